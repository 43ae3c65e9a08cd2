//! The host program (`host.c`) built with the freestanding runtime and a
//! counting clock, its runs and what they printed and dumped, and checks
//! its tests share.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::cross::stdout_of;
use super::decode::{Dump, Header, decode};
use super::runtime_in;
use crate::it::util::{compile, fresh_dir};

/// The host program's source.
const HOST: &str = include_str!("host.c");

/// A build of the host program: 4 tasks, the counting clock at a stated
/// 1 MHz, and
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Build {
    /// stop mode, 1024 events;
    Stop,
    /// ring mode, 1024 events;
    Ring,
    /// stop mode, 65536 events, SIGALRM's handler as exception 15: the
    /// signal masked around each record (CALLTRACE_LOCK/UNLOCK), its
    /// handler's calls in their own context (CALLTRACE_EXCEPTION).
    Irq,
    /// stop mode, 1024 events, at -O2, the clock a word that a fault's
    /// handler (an NMI: no lock holds it off) can interrupt a record at.
    Nmi,
}

impl Build {
    fn name(self) -> &'static str {
        match self {
            Build::Stop => "stop",
            Build::Ring => "ring",
            Build::Irq => "irq",
            Build::Nmi => "nmi",
        }
    }

    fn options(self) -> &'static [&'static str] {
        const CLOCK: &str = "-DCALLTRACE_CLOCK()=host_clock()";
        match self {
            Build::Stop => &[CLOCK, "-DCALLTRACE_EVENTS=1024"],
            Build::Ring => &[
                CLOCK,
                "-DCALLTRACE_MODE=CALLTRACE_MODE_RING",
                "-DCALLTRACE_EVENTS=1024",
            ],
            Build::Irq => &[
                CLOCK,
                "-DCALLTRACE_EVENTS=65536",
                "-DCALLTRACE_LOCK()=host_lock()",
                "-DCALLTRACE_UNLOCK(key)=host_unlock(key)",
                "-DCALLTRACE_EXCEPTION()=host_exception()",
            ],
            Build::Nmi => &[
                "-DCALLTRACE_EVENTS=1024",
                "-O2",
                "-DCALLTRACE_CLOCK()=(*host_clock_word += 7)",
            ],
        }
    }
}

/// The executable of a build, built once.
pub(super) fn host(build: Build) -> &'static Path {
    static BUILT: [OnceLock<PathBuf>; 4] = [const { OnceLock::new() }; 4];
    BUILT[build as usize].get_or_init(|| build_host(build))
}

/// What the host build declares for the runtime's macros.
const DECLARE: &str = "-DCALLTRACE_DECLARE=uint32_t host_clock(void); \
    uintptr_t host_lock(void); void host_unlock(uintptr_t); unsigned host_exception(void); \
    extern volatile uint32_t *host_clock_word;";

fn build_host(build: Build) -> PathBuf {
    let dir = fresh_dir("freestanding_runtime", build.name());
    let runtime = runtime_in(&dir);
    std::fs::write(dir.join("host.c"), HOST).expect("write host.c");
    let options = [
        "-DCALLTRACE_TASKS=4",
        "-DCALLTRACE_CLOCK_HZ=1000000",
        DECLARE,
    ];
    // x86-64 code may start at an odd address (at -O1 it does), where the
    // format keeps an event's kind in bit 0: aligned, as -O2 would. Not a
    // PIE: the buffer holds run-time addresses and no load address.
    let flags = [
        "-g",
        "-O1",
        "-falign-functions=16",
        "-finstrument-functions",
        "-fno-pie",
        "-no-pie",
    ];
    compile(
        Command::new("gcc")
            .args(flags)
            .args(["-ffreestanding", "-Wall", "-Wextra", "-Werror"])
            .args(options)
            .args(build.options())
            .arg("-c")
            .arg(&runtime)
            .arg("-o")
            .arg(dir.join("calltrace-fw.o")),
    );
    let exe = dir.join("host");
    compile(
        Command::new("gcc")
            .args(flags)
            .arg(dir.join("host.c"))
            .arg(dir.join("calltrace-fw.o"))
            .arg("-o")
            .arg(&exe),
    );
    exe
}

/// One run of the host program: its function names, what it printed
/// (`dump N`, `semihosting N`, `buffer ADDRESS`), its dumps.
pub(super) struct Run {
    pub names: BTreeMap<u64, String>,
    pub printed: Vec<(String, i64)>,
    pub dumps: Vec<Vec<u8>>,
}

impl Run {
    pub(super) fn printed(&self, what: &str) -> Vec<i64> {
        let found = self.printed.iter().filter(|(w, _)| w == what);
        found.map(|&(_, v)| v).collect()
    }

    pub(super) fn dump(&self, i: usize) -> Dump {
        decode(&self.dumps[i]).unwrap_or_else(|e| panic!("dump {i}: {e}"))
    }

    /// Entries per (context, name) in dump i.
    pub(super) fn entries(&self, i: usize) -> BTreeMap<(u16, String), u64> {
        self.dump(i).entries(&self.names)
    }
}

fn number(text: &str) -> i64 {
    match text.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => text.parse(),
    }
    .unwrap_or_else(|_| panic!("a number: {text}"))
}

/// Runs scenario `name` of a host build, with `dumps` dumps.
pub(super) fn run(build: Build, name: &str, dumps: usize) -> Run {
    let exe = host(build);
    // Tests run in parallel, some the same scenario: a directory per run.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let dir = fresh_dir(
        "freestanding_runtime",
        &format!("{name}-{}-{n}", build.name()),
    );
    let outs: Vec<PathBuf> = (0..dumps)
        .map(|i| dir.join(format!("dump{i}.bin")))
        .collect();
    let text = stdout_of(Command::new(exe).arg(name).args(&outs).current_dir(&dir));
    let (mut names, mut printed) = (BTreeMap::new(), Vec::new());
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["fn", name, addr] => drop(names.insert(number(addr) as u64, name.to_string())),
            [what, value] => printed.push((what.to_string(), number(value))),
            _ => panic!("unexpected line {line:?}"),
        }
    }
    let dumps = outs
        .iter()
        .map(|p| std::fs::read(p).expect("a dump"))
        .collect();
    Run {
        names,
        printed,
        dumps,
    }
}

/// The header a host build writes, for the fields a scenario sets.
pub(super) fn host_header(
    ring: bool,
    count: u32,
    write_index: u32,
    dropped: u32,
    flags: u32,
) -> Header {
    Header {
        version: 1,
        header_size: 64 + 4 * 24,
        pointer_size: 8,
        event_size: 16,
        mode: u8::from(ring),
        clock: 0,
        clock_hz: 1_000_000,
        capacity: 1024,
        count,
        write_index,
        dropped,
        task_capacity: 4,
        task_name_size: 16,
        tasks_used: 0,
        context: 0x7fff,
        flags,
        buffer_address: 0,
    }
}

/// The time of the host clock's k-th reading, as recorded (low 32 bits).
pub(super) fn clock_at(k: u64) -> u64 {
    (0xffff_ff07 + 7 * k) & 0xffff_ffff
}

/// Checks that successive function events are successive clock readings
/// (the decoder unwrapped the 32-bit times) and returns the first's raw time.
#[track_caller]
pub(super) fn consecutive_times(d: &Dump) -> u64 {
    let times: Vec<u64> = d.funcs().iter().map(|e| e.2).collect();
    assert!(times.windows(2).all(|w| w[1] == w[0] + 7), "{times:?}");
    times[0]
}

/// Checks that each context's entries and exits nest, all closed.
#[track_caller]
pub(super) fn balanced(d: &Dump) {
    let mut stacks: BTreeMap<u16, Vec<u64>> = BTreeMap::new();
    for (addr, exit, _, ctx) in d.funcs() {
        let stack = stacks.entry(ctx).or_default();
        if exit {
            assert_eq!(stack.pop(), Some(addr), "an exit of {addr:#x} in {ctx:#x}");
        } else {
            stack.push(addr);
        }
    }
    assert!(stacks.values().all(Vec::is_empty), "{stacks:?}");
}

pub(super) fn main_counts(list: &[(&str, u64)]) -> BTreeMap<(u16, String), u64> {
    list.iter()
        .map(|&(n, c)| ((0x7fff, n.to_string()), c))
        .collect()
}
