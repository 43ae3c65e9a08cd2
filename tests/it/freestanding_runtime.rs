//! The freestanding runtime (`calltrace runtime --freestanding`): it
//! compiles for Cortex-M0/M3/M33 and RV32 with no library call left and the
//! buffer size the format says, and on the host (x86-64, with a counting
//! clock) its dumps, decoded by `decode.rs` from the specification, hold
//! exactly the calls made: per function, in a ring, in a full stop buffer,
//! per task, around clear/stop/start and around a dump.

mod decode;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use decode::{Dump, Header, decode};

use super::util::{calltrace, compile, fresh_dir, tool};

/// The host program's source.
const HOST: &str = include_str!("freestanding_runtime/host.c");

/// Writes the printed freestanding runtime into `dir`; returns its path.
fn runtime_in(dir: &Path) -> PathBuf {
    let text = calltrace(["runtime", "--freestanding"])
        .run()
        .success()
        .stdout;
    let path = dir.join("calltrace-fw.c");
    std::fs::write(&path, text).expect("write the runtime");
    path
}

// ------------------------------------------------------------------
// Cross compilers

/// A target of the cross-compile tests: its compiler, nm and flags.
struct Cross {
    cc: &'static str,
    nm: &'static str,
    flags: &'static [&'static str],
}

const CROSS: [Cross; 4] = [
    Cross {
        cc: "arm-none-eabi-gcc",
        nm: "arm-none-eabi-nm",
        flags: &["-mcpu=cortex-m3", "-mthumb"],
    },
    Cross {
        cc: "arm-none-eabi-gcc",
        nm: "arm-none-eabi-nm",
        flags: &["-mcpu=cortex-m0", "-mthumb"],
    },
    Cross {
        cc: "arm-none-eabi-gcc",
        nm: "arm-none-eabi-nm",
        flags: &["-mcpu=cortex-m33", "-mthumb"],
    },
    Cross {
        cc: "riscv64-unknown-elf-gcc",
        nm: "riscv64-unknown-elf-nm",
        flags: &["-march=rv32imac", "-mabi=ilp32"],
    },
];

/// Option sets compiled for each target: the defaults in stop mode, and a
/// ring whose task table ends 4 bytes short of a multiple of 8 (3 entries
/// of round_up(4 + 5, 4) = 12 bytes: header_size 104). With the size of
/// `calltrace_buffer` each gives: 64 + task table (rounded up to 8) + 8 per event.
const CONFIGS: [(&[&str], u64); 2] = [
    (&[], 64 + 16 * 20 + 4096 * 8),
    (
        &[
            "-DCALLTRACE_MODE=CALLTRACE_MODE_RING",
            "-DCALLTRACE_EVENTS=100",
            "-DCALLTRACE_TASKS=3",
            "-DCALLTRACE_TASK_NAME=5",
        ],
        104 + 100 * 8,
    ),
];

/// An instrumented firmware entry, to link the runtime with -nostdlib.
const FIRMWARE: &str = "static volatile int n;\n\
    __attribute__((noinline)) static void work(void) { n++; }\n\
    void entry(void) { for (;;) work(); }\n";

/// The output of a command that must succeed.
#[track_caller]
fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run the command");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The size `nm -S` gives `calltrace_buffer` in an object.
fn buffer_size(nm: &str, object: &Path) -> u64 {
    let listing = stdout_of(Command::new(nm).arg("-S").arg(object));
    let line = listing
        .lines()
        .find(|l| l.ends_with(" calltrace_buffer"))
        .unwrap_or_else(|| panic!("no calltrace_buffer in\n{listing}"));
    let size = line.split_whitespace().nth(1).expect("a size column");
    u64::from_str_radix(size, 16).expect("a hex size")
}

/// Compiles the runtime for one target at one -O with one option set;
/// checks that it leaves no undefined symbol and the buffer's size, then
/// links it with an instrumented firmware under -nostdlib -lgcc.
fn cross_check(x: &Cross, dir: &Path, runtime: &Path, opt: &str, config: usize) {
    let (defines, size) = CONFIGS[config];
    let tag = format!("{}{}{opt}-{config}", x.cc, x.flags.join(""));
    let object = dir.join(format!("{tag}.o"));
    let common = ["-ffreestanding", "-finstrument-functions", opt];
    let warnings = ["-Wall", "-Wextra", "-Werror"];
    compile(
        Command::new(x.cc)
            .args(x.flags)
            .args(common)
            .args(warnings)
            .args(defines)
            .arg("-c")
            .arg(runtime)
            .arg("-o")
            .arg(&object),
    );
    let undefined = stdout_of(Command::new(x.nm).arg("-u").arg(&object));
    assert_eq!(undefined, "", "{tag}: the runtime calls something");
    assert_eq!(
        buffer_size(x.nm, &object),
        size,
        "{tag}: sizeof(calltrace_buffer)"
    );
    compile(
        Command::new(x.cc)
            .args(x.flags)
            .args(common)
            .args(["-nostdlib", "-e", "entry", "-o"])
            .arg(dir.join(format!("{tag}.elf")))
            .arg(dir.join("firmware.c"))
            .arg(&object)
            .arg("-lgcc"),
    );
}

#[test]
fn freestanding_runtime_compiles_for_cortex_m_and_rv32_calling_nothing() {
    let dir = fresh_dir("freestanding_runtime", "cross");
    let runtime = runtime_in(&dir);
    std::fs::write(dir.join("firmware.c"), FIRMWARE).expect("write firmware.c");
    let mut checked = 0;
    for x in &CROSS {
        if tool(x.cc).is_none() || tool(x.nm).is_none() {
            return;
        }
        for opt in ["-O0", "-O2"] {
            for config in 0..CONFIGS.len() {
                cross_check(x, &dir, &runtime, opt, config);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 16);
}

// ------------------------------------------------------------------
// The host program

/// The two host builds: stop mode and ring mode, 1024 events, 4 tasks,
/// the counting clock at a stated 1 MHz.
fn host(ring: bool) -> &'static Path {
    static STOP: OnceLock<PathBuf> = OnceLock::new();
    static RING: OnceLock<PathBuf> = OnceLock::new();
    let cell = if ring { &RING } else { &STOP };
    cell.get_or_init(|| build_host(ring))
}

fn build_host(ring: bool) -> PathBuf {
    let dir = fresh_dir("freestanding_runtime", if ring { "ring" } else { "stop" });
    let runtime = runtime_in(&dir);
    std::fs::write(dir.join("host.c"), HOST).expect("write host.c");
    let mode = if ring {
        "-DCALLTRACE_MODE=CALLTRACE_MODE_RING"
    } else {
        "-DCALLTRACE_MODE=CALLTRACE_MODE_STOP"
    };
    let options = [
        mode,
        "-DCALLTRACE_EVENTS=1024",
        "-DCALLTRACE_TASKS=4",
        "-DCALLTRACE_CLOCK()=host_clock()",
        "-DCALLTRACE_DECLARE=uint32_t host_clock(void);",
        "-DCALLTRACE_CLOCK_HZ=1000000",
    ];
    // x86-64 code may start at an odd address (at -O1 it does), where the
    // format keeps an event's kind in bit 0: aligned, as -O2 would.
    let flags = [
        "-g",
        "-O1",
        "-falign-functions=16",
        "-finstrument-functions",
    ];
    compile(
        Command::new("gcc")
            .args(flags)
            .args(["-ffreestanding", "-Wall", "-Wextra", "-Werror"])
            .args(options)
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
struct Run {
    names: BTreeMap<u64, String>,
    printed: Vec<(String, i64)>,
    dumps: Vec<Vec<u8>>,
}

impl Run {
    fn printed(&self, what: &str) -> Vec<i64> {
        let found = self.printed.iter().filter(|(w, _)| w == what);
        found.map(|&(_, v)| v).collect()
    }

    fn dump(&self, i: usize) -> Dump {
        decode(&self.dumps[i]).unwrap_or_else(|e| panic!("dump {i}: {e}"))
    }

    /// Entries per (context, name) in dump i.
    fn entries(&self, i: usize) -> BTreeMap<(u16, String), u64> {
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
fn run(ring: bool, name: &str, dumps: usize) -> Run {
    let exe = host(ring);
    let dir = fresh_dir("freestanding_runtime", &format!("{name}-{ring}"));
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
fn host_header(ring: bool, count: u32, write_index: u32, dropped: u32, flags: u32) -> Header {
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
fn clock_at(k: u64) -> u64 {
    (0xffff_ff07 + 7 * k) & 0xffff_ffff
}

/// Checks that successive function events are successive clock readings
/// (the decoder unwrapped the 32-bit times) and returns the first's raw time.
#[track_caller]
fn consecutive_times(d: &Dump) -> u64 {
    let times: Vec<u64> = d.funcs().iter().map(|e| e.2).collect();
    assert!(times.windows(2).all(|w| w[1] == w[0] + 7), "{times:?}");
    times[0]
}

/// Checks that each context's entries and exits nest, all closed.
#[track_caller]
fn balanced(d: &Dump) {
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

fn main_counts(list: &[(&str, u64)]) -> BTreeMap<(u16, String), u64> {
    list.iter()
        .map(|&(n, c)| ((0x7fff, n.to_string()), c))
        .collect()
}

#[test]
fn host_calls_are_counted_per_function_with_unwrapped_times() {
    let r = run(false, "calls", 1);
    let d = r.dump(0);
    let mut want = host_header(false, 140, 140, 0, 1);
    want.buffer_address = r.printed("buffer")[0] as u32;
    assert_eq!(d.header, want);
    assert_eq!(r.printed("dump"), [r.dumps[0].len() as i64]);
    assert_eq!(r.printed("semihosting"), [-1], "no semihosting on the host");
    let want = main_counts(&[("outer", 10), ("inner", 30), ("leaf", 30)]);
    assert_eq!(r.entries(0), want);
    balanced(&d);
    assert_eq!(consecutive_times(&d), clock_at(0));
    assert!(
        d.funcs().last().expect("events").2 > 1 << 32,
        "times did not wrap"
    );
}

/// The kind and name of event k of the `many` scenario: ring_a calling
/// ring_b, 4 events a call of ring_a.
fn many_event(k: u64) -> (bool, &'static str) {
    [
        (false, "ring_a"),
        (false, "ring_b"),
        (true, "ring_b"),
        (true, "ring_a"),
    ][(k % 4) as usize]
}

/// Checks that a dump of the `many` scenario holds events first.. of it,
/// in order.
#[track_caller]
fn holds_many_from(r: &Run, d: &Dump, first: u64) {
    let funcs = d.funcs();
    assert_eq!(consecutive_times(d), clock_at(first));
    for (k, &(addr, exit, _, ctx)) in (first..).zip(&funcs) {
        assert_eq!((exit, r.names[&addr].as_str()), many_event(k), "event {k}");
        assert_eq!(ctx, 0x7fff);
    }
}

/// 100,007 calls of ring_a (each calling ring_b): 400,028 events.
const MANY_EVENTS: u32 = 400_028;

#[test]
fn ring_keeps_exactly_the_last_events_of_a_long_run() {
    let r = run(true, "many", 1);
    let d = r.dump(0);
    let mut want = host_header(true, MANY_EVENTS, MANY_EVENTS % 1024, 0, 1 | 4);
    want.buffer_address = d.header.buffer_address;
    assert_eq!(d.header, want);
    assert_eq!(d.slots.len(), 1024);
    holds_many_from(&r, &d, u64::from(MANY_EVENTS) - 1024);
}

#[test]
fn stop_mode_keeps_the_first_events_and_counts_the_dropped() {
    let r = run(false, "many", 1);
    let d = r.dump(0);
    // Full: write_index went round to 0, and slots read from there on.
    let mut want = host_header(false, 1024, 0, MANY_EVENTS - 1024, 1 | 4);
    want.buffer_address = d.header.buffer_address;
    assert_eq!(d.header, want);
    assert_eq!(d.slots.len(), 1024);
    holds_many_from(&r, &d, 0);
}

/// 1022 slots of f, then switch_and_call's entry takes the last slot; in
/// the task it switches to, g's entry and exit and its own exit each need a
/// context-switch record too: two slots each, none free, all dropped.
#[test]
fn a_context_switch_and_its_event_need_two_free_slots() {
    let r = run(false, "edge", 1);
    let d = r.dump(0);
    assert_eq!(
        (d.header.count, d.header.write_index, d.header.dropped),
        (1023, 1023, 6)
    );
    assert_eq!(d.header.flags, 1, "not full, not wrapped");
    assert_eq!(d.switches(), []);
    let want = main_counts(&[("f", 511), ("switch_and_call", 1)]);
    assert_eq!(r.entries(0), want);
    assert_eq!(d.tasks, [(0x1000, "late".to_string())]);
}

#[test]
fn task_switches_give_context_records_and_copied_names() {
    let r = run(false, "tasks", 1);
    let d = r.dump(0);
    let names = [
        (0x100, "sensor"),
        (0x200, "ui"),
        (0x100, "renamed"),
        (0x300, "a-very-long-tas"),
    ];
    let names: Vec<(u64, String)> = names.iter().map(|&(p, n)| (p, n.to_string())).collect();
    assert_eq!(
        d.tasks, names,
        "copied, truncated to 15 bytes, a new name a new task"
    );
    assert_eq!(d.header.tasks_used, 4);
    assert_eq!(d.header.flags, 1 | 2, "the task table overflowed");
    assert_eq!(d.header.context, 0x7ffe);
    let want = [(0x7fff, 0), (0, 1), (1, 0), (0, 2), (2, 3), (3, 0x7ffe)];
    assert_eq!(d.switches(), want);
    assert_eq!(d.header.count, 8 * 2 + 6);
    let want: BTreeMap<(u16, String), u64> = [
        (0x7fff, "f", 1),
        (0, "g", 3),
        (1, "h", 1),
        (2, "f", 1),
        (3, "h", 1),
        (0x7ffe, "g", 1),
    ]
    .iter()
    .map(|&(c, n, k)| ((c, n.to_string()), k))
    .collect();
    assert_eq!(r.entries(0), want);
    balanced(&d);
    consecutive_times(&d);
}

#[test]
fn clear_empties_and_stop_pauses_until_start() {
    let r = run(false, "control", 1);
    let d = r.dump(0);
    let mut want = host_header(false, 8, 8, 0, 1);
    want.buffer_address = d.header.buffer_address;
    assert_eq!(d.header, want);
    assert_eq!(r.entries(0), main_counts(&[("g", 3), ("f", 1)]));
    // Events cleared or not recorded read no clock: g's first entry is
    // the fifth reading (after f's two calls), f's the eleventh.
    assert_eq!(consecutive_times(&d), clock_at(4));
}

/// The write callback is instrumented (it calls byte_out): none of its
/// calls are in either dump, and recording goes on after the first.
#[test]
fn a_dump_records_none_of_its_write_callback_and_recording_goes_on() {
    let r = run(true, "calls", 2);
    let (first, second) = (r.entries(0), r.entries(1));
    let want = main_counts(&[("outer", 10), ("inner", 30), ("leaf", 30)]);
    assert_eq!(first, want);
    let mut want = want;
    want.insert((0x7fff, "f".to_string()), 1);
    assert_eq!(second, want);
    assert_eq!(r.dump(1).header.count, 142);
    let sizes: Vec<i64> = r.dumps.iter().map(|d| d.len() as i64).collect();
    assert_eq!(r.printed("dump"), sizes);
    assert_eq!(sizes[0], 160 + 1024 * 16);
    consecutive_times(&r.dump(1));
}

#[test]
fn runtime_flags_pick_one_text() {
    let fw = calltrace(["runtime", "--freestanding"])
        .run()
        .success()
        .text();
    assert!(fw.contains("calltrace_dump_semihosting") && !fw.contains("pthread"));
    let linux = calltrace(["runtime"]).run().success().text();
    assert!(linux.contains("pthread_create") && !linux.contains("calltrace_dump_semihosting"));
    let both = calltrace(["runtime", "--freestanding", "--header"]).run();
    assert_eq!(both.code, 2, "{}", both.stderr);
}
