//! Reading the freestanding runtime's buffer (docs/binary-format.md, "The
//! freestanding buffer") through the commands: buffers written by a small
//! encoder of the contract ([`Buf`]), 32-bit and 64-bit; a real Cortex-M3
//! ELF built with `arm-none-eabi-gcc` whose Thumb functions the buffer
//! calls at even addresses (the runtime drops the Thumb bit), so names
//! resolve through the ELF's odd symbols; tasks and exceptions as named
//! threads; times in cycles or, at a clock rate, in nanoseconds; a ring
//! that wrapped mid-stack; and damaged buffers.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::*;

mod buf;
mod host;

pub use buf::Buf;

/// A Cortex-M3 program: `main` calls `mid` (which calls `leaf` twice)
/// three times; a task `sample` calls `leaf`; the SysTick handler calls
/// `mid`. Thumb code throughout.
const M3_SOURCE: &str = r#"
void __cyg_profile_func_enter(void *f, void *c) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *f, void *c) __attribute__((no_instrument_function));
void __cyg_profile_func_enter(void *f, void *c) { (void)f; (void)c; }
void __cyg_profile_func_exit(void *f, void *c) { (void)f; (void)c; }
static int leaf(int x) { return x * 3; }
int mid(int x) { return leaf(x) + leaf(x + 1); }
int sample(int x) { return leaf(x); }
void SysTick_Handler(void) { mid(1); }
int main(void) { int s = 0; for (int i = 0; i < 3; i++) s += mid(i); return s + sample(s); }
"#;

/// The Cortex-M3 program built with `flags` (-g or not), and its
/// functions' symbol addresses (odd: Thumb); None without
/// `arm-none-eabi-gcc`.
pub fn cortex_m3(name: &str, flags: &[&str]) -> Option<(PathBuf, Symbols)> {
    tool("arm-none-eabi-gcc")?;
    let dir = fresh_dir("freestanding_read", name);
    std::fs::write(dir.join("m3.c"), M3_SOURCE).expect("write the source");
    let elf = dir.join("m3.elf");
    compile(
        Command::new("arm-none-eabi-gcc")
            .current_dir(&dir)
            .args([
                "-mcpu=cortex-m3",
                "-mthumb",
                "-O0",
                "-finstrument-functions",
            ])
            .args(flags)
            .args(["m3.c", "-o", "m3.elf", "--specs=nosys.specs"]),
    );
    let syms = Symbols::of(&elf);
    Some((elf, syms))
}

/// Function symbols of an ELF file by name.
pub struct Symbols(std::collections::BTreeMap<String, u64>);

impl Symbols {
    pub fn of(elf: &Path) -> Symbols {
        use object::{Object, ObjectSymbol};
        let data = std::fs::read(elf).expect("read the ELF");
        let file = object::File::parse(&*data).expect("an ELF file");
        let map = file
            .symbols()
            .filter(|s| s.kind() == object::SymbolKind::Text)
            .filter_map(|s| Some((s.name().ok()?.to_string(), s.address())))
            .collect();
        Symbols(map)
    }

    /// The symbol's address (odd for a Thumb function).
    #[track_caller]
    pub fn get(&self, name: &str) -> u64 {
        *self
            .0
            .get(name)
            .unwrap_or_else(|| panic!("no symbol {name}"))
    }
}

/// What the Cortex-M3 program does, as the runtime records it: `main` on
/// thread mode, a switch to task 0 (`sensor`) for `sample`, SysTick
/// (exception 15) firing inside `mid`, back to `main`.
fn m3_run(s: &Symbols) -> Buf {
    let mut b = Buf {
        tasks: vec!["sensor"],
        ..Buf::default()
    };
    let (main, mid, leaf) = (s.get("main"), s.get("mid"), s.get("leaf"));
    let mut t = 100;
    let mut tick = |d| {
        t += d;
        t
    };
    b.enter(main, tick(1));
    for i in 0..3 {
        b.enter(mid, tick(5))
            .enter(leaf, tick(2))
            .exit(leaf, tick(7));
        if i == 1 {
            b.switch(0x7FFF, 0x800F);
            b.enter(s.get("SysTick_Handler"), tick(1))
                .enter(mid, tick(1));
            b.enter(leaf, tick(1)).exit(leaf, tick(3));
            b.enter(leaf, tick(1)).exit(leaf, tick(3));
            b.exit(mid, tick(1)).exit(s.get("SysTick_Handler"), tick(1));
            b.switch(0x800F, 0x7FFF);
        }
        b.enter(leaf, tick(2))
            .exit(leaf, tick(7))
            .exit(mid, tick(3));
    }
    b.switch(0x7FFF, 0);
    b.enter(s.get("sample"), tick(4)).enter(leaf, tick(1));
    b.exit(leaf, tick(6)).exit(s.get("sample"), tick(2));
    b.switch(0, 0x7FFF);
    b.exit(main, tick(9));
    b
}

#[test]
fn a_cortex_m3_buffer_names_its_thumb_functions_and_threads_from_the_elf() {
    for (name, flags) in [("m3-g", &["-g"][..]), ("m3-symtab", &[][..])] {
        let Some((elf, syms)) = cortex_m3(name, flags) else {
            return;
        };
        assert_eq!(syms.get("mid") & 1, 1, "Thumb symbols are odd");
        let dir = elf.parent().expect("a directory");
        let trace = m3_run(&syms).write(dir, "ram.bin");
        let g = graph(elf.to_str().expect("UTF-8"), &trace);
        assert_eq!(
            g.edges(),
            edges(&[
                ("main", "mid", 3),
                ("mid", "leaf", 8),
                ("SysTick_Handler", "mid", 1),
                ("sample", "leaf", 1),
            ]),
            "{name}: {}",
            g.stderr
        );
        assert!(!g.stderr.contains("repaired"), "{}", g.stderr);
        assert_eq!(csv_total_unit(&g.csv), "cycles");
        let text = tree(
            elf.to_str().expect("UTF-8"),
            &trace,
            &["--view", "contexts"],
        );
        assert_eq!(
            shape(&text),
            "[main]\n  main\n    mid x3\n      leaf x6\n\
             [SysTick_Handler]\n  SysTick_Handler\n    mid\n      leaf x2\n\
             [sensor]\n  sample\n    leaf\n",
            "{name}"
        );
    }
}

#[test]
fn tid_selects_a_task_or_an_exception_by_name() {
    let Some((elf, syms)) = cortex_m3("m3-tid", &["-g"]) else {
        return;
    };
    let dir = elf.parent().expect("a directory");
    let trace = m3_run(&syms).write(dir, "ram.bin");
    let elf = elf.to_str().expect("UTF-8");
    let sensor = tree(elf, &trace, &["--tid", "sensor"]);
    assert_eq!(shape(&sensor), "sample\n  leaf\n");
    let tick = tree(elf, &trace, &["--tid", "SysTick_Handler"]);
    assert_eq!(shape(&tick), "SysTick_Handler\n  mid\n    leaf\n    leaf\n");
    // The total of the handler: from its entry to its exit, in cycles.
    assert!(
        tick.lines()
            .next()
            .expect("a line")
            .ends_with("/ 11 cycles)"),
        "{tick}"
    );
    let err = calltrace(["tree", elf, "--trace"])
        .args([&trace])
        .args(["--tid", "idle"])
        .run()
        .failure();
    assert!(
        err.contains("no thread `idle`") && err.contains("0 (main)") && err.contains("(sensor)"),
        "{err}"
    );
}

/// Coverage places the buffer's even addresses on the Thumb functions
/// whose odd symbols are one above them.
#[test]
fn coverage_counts_a_cortex_m3_buffers_calls_on_its_thumb_functions() {
    let Some((elf, syms)) = cortex_m3("m3-coverage", &["-g"]) else {
        return;
    };
    let dir = elf.parent().expect("a directory");
    let trace = m3_run(&syms).write(dir, "ram.bin");
    let csv = dir.join("coverage.csv");
    calltrace(["coverage".as_ref(), elf.as_os_str(), trace.as_os_str()])
        .args(["--csv".as_ref(), csv.as_os_str()])
        .run()
        .success();
    let mut got = Vec::new();
    let mut r = csv::Reader::from_path(&csv).expect("coverage wrote the CSV");
    for rec in r.records() {
        let rec = rec.expect("a CSV record");
        if rec[1].ends_with("m3.c") && !rec[0].starts_with("__cyg") {
            got.push(format!("{} {} {}", &rec[0], &rec[4], &rec[5]));
        }
    }
    got.sort();
    assert_eq!(
        got,
        [
            "SysTick_Handler 1 called",
            "leaf 9 called",
            "main 1 called",
            "mid 4 called",
            "sample 1 called"
        ]
    );
}

#[test]
fn an_exception_whose_handler_cannot_be_named_is_exception_n() {
    let mut b = Buf::default();
    b.switch(0x7FFF, 0x8010).enter(0x9000, 1).exit(0x9000, 5);
    let dir = fresh_dir("freestanding_read", "exception-n");
    let trace = b.write(&dir, "ram.bin");
    let threads = calltrace(["tree", "--tid", "nothing", "--trace"])
        .args([&trace])
        .run()
        .failure();
    assert!(
        threads.contains("its threads are 32784 (exception 16)"),
        "{threads}"
    );
}

/// The same calls at a clock of 1 cycle per 250 ns.
fn timed(clock_hz: u32) -> Buf {
    let mut b = Buf {
        clock_hz,
        ..Buf::default()
    };
    b.enter(0x1000, 10)
        .enter(0x2000, 14)
        .exit(0x2000, 54)
        .exit(0x1000, 410);
    b
}

#[test]
fn times_are_cycles_unless_the_buffer_or_clock_hz_gives_the_rate() {
    let dir = fresh_dir("freestanding_read", "clock");
    let cycles = timed(0).write(&dir, "cycles.bin");
    assert_eq!(
        tree("", &cycles, &[]),
        "0x1000 (360 cycles / 400 cycles)\n  0x2000 (40 cycles / 40 cycles)\n"
    );
    let g = graph("", &cycles);
    assert_eq!(csv_total_unit(&g.csv), "cycles");
    // 4 MHz: 250 ns a cycle.
    let want = "0x1000 (90.0 us / 100 us)\n  0x2000 (10.0 us / 10.0 us)\n";
    assert_eq!(tree("", &cycles, &["--clock-hz", "4MHz"]), want);
    let recorded = timed(4_000_000).write(&dir, "hz.bin");
    assert_eq!(tree("", &recorded, &[]), want);
    // The flag overrides the recorded rate.
    assert_eq!(
        tree("", &recorded, &["--clock-hz", "8000000"]),
        "0x1000 (45.0 us / 50.0 us)\n  0x2000 (5.00 us / 5.00 us)\n"
    );
    assert_eq!(csv_total_unit(&graph("", &recorded).csv), "ns");
    let bad = calltrace(["tree", "--clock-hz", "0", "--trace"])
        .args([&recorded])
        .run();
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("expected a clock rate in Hz above 0"),
        "{}",
        bad.stderr
    );
}

/// Every command that prints times prints cycles as cycles.
#[test]
fn every_command_prints_cycles_as_cycles() {
    let dir = fresh_dir("freestanding_read", "cycles");
    let trace = timed(0).write(&dir, "cycles.bin");
    let t = trace.to_str().expect("UTF-8");
    let runs: [(&[&str], &str); 5] = [
        (
            &["graph", "-o", "-", "--trace", t],
            "total 100.00% (400 cycles)",
        ),
        (&["abstract", "-o", "-", "--trace", t], "total 400 cycles"),
        (&["stats", "--trace", t], "400 cycles  360 cycles"),
        (
            &["export", "--to", "json", "-o", "-", "--trace", t],
            "{\"unit\":\"cycles\"",
        ),
        (&["diff", t, t], "total 400 cycles"),
    ];
    for (args, want) in runs {
        let out = calltrace(args).run().success();
        let text = format!("{}{}", out.text(), out.stderr);
        assert!(text.contains(want), "{args:?}: {text}");
        assert!(
            !text.contains(" ns") && !text.contains("_ns"),
            "{args:?}: {text}"
        );
    }
    let with_rate = calltrace(["stats", "--clock-hz", "4MHz", "--trace", t])
        .run()
        .success();
    assert!(
        with_rate.text().contains("100 us  90.0 us"),
        "{}",
        with_rate.text()
    );
}

#[test]
fn a_buffer_without_a_clock_counts_calls() {
    let mut b = Buf {
        clock: 3,
        ..timed(0)
    };
    b.slots
        .iter_mut()
        .enumerate()
        .for_each(|(i, s)| s.1 = i as u32);
    let dir = fresh_dir("freestanding_read", "no-clock");
    let trace = b.write(&dir, "seq.bin");
    assert_eq!(
        tree("", &trace, &[]),
        "0x1000 (1 call / 2 calls)\n  0x2000 (1 call / 1 call)\n"
    );
    assert_eq!(csv_total_unit(&graph("", &trace).csv), "calls");
}

#[test]
fn times_run_on_across_the_32_bit_wrap_of_the_clock() {
    let mut b = Buf::default();
    b.enter(0x1000, 0xFFFF_FF00).enter(0x2000, 0xFFFF_FFF0);
    b.exit(0x2000, 0x10).exit(0x1000, 0x100);
    let dir = fresh_dir("freestanding_read", "wrap");
    let trace = b.write(&dir, "wrap.bin");
    assert_eq!(
        tree("", &trace, &[]),
        "0x1000 (480 cycles / 512 cycles)\n  0x2000 (32 cycles / 32 cycles)\n"
    );
}

/// A recursive walk: `f` calls `g` `n` times, each `g` calling `h`.
fn walk(b: &mut Buf, n: u32) {
    let mut t = 0;
    let mut at = || {
        t += 3;
        t
    };
    b.enter(0xF00, at());
    for _ in 0..n {
        b.enter(0x600, at())
            .enter(0x800, at())
            .exit(0x800, at())
            .exit(0x600, at());
    }
    b.exit(0xF00, at());
}

#[test]
fn ilp32_and_lp64_buffers_of_the_same_calls_read_alike() {
    let dir = fresh_dir("freestanding_read", "layouts");
    let mut narrow = Buf::default();
    walk(&mut narrow, 5);
    let wide = Buf {
        pointer: 8,
        task_name_size: 12,
        ..narrow.clone()
    };
    let (a, b) = (
        narrow.write(&dir, "ilp32.bin"),
        wide.write(&dir, "lp64.bin"),
    );
    assert_eq!(narrow.bytes().len(), 64 + 4 * 20 + 64 * 8);
    assert_eq!(wide.bytes().len(), 64 + 4 * 24 + 64 * 16);
    assert_eq!(tree("", &a, &[]), tree("", &b, &[]));
    assert_eq!(
        graph("", &a).edges(),
        edges(&[("0xf00", "0x600", 5), ("0x600", "0x800", 5)])
    );
}

#[test]
fn a_ring_that_wrapped_mid_stack_is_repaired_and_says_how_many_frames_it_closed() {
    // 2 + 4 * 40 = 162 events into 64 slots: the ring keeps the last 64,
    // from the middle of a call of `g` to the exit of `f`.
    let mut b = Buf {
        mode: 1,
        ..Buf::default()
    };
    walk(&mut b, 40);
    assert_eq!(b.slots.len(), 162);
    let dir = fresh_dir("freestanding_read", "ring");
    let trace = b.write(&dir, "ring.bin");
    let g = graph("", &trace);
    // Events 98..162 are kept: `enter h`, `exit h` and `exit g` of the
    // 25th call of g, 15 whole calls, then `exit f`.
    assert!(
        g.stderr
            .contains("the ring wrapped: it holds the last 64 of 162 slots written"),
        "{}",
        g.stderr
    );
    assert!(
        g.stderr
            .contains("repaired unbalanced trace: 2 exit(s) without a matching entry ignored"),
        "{}",
        g.stderr
    );
    assert_eq!(g.edges(), edges(&[("0x600", "0x800", 15)]));
    // Balanced: the lone h, then 15 calls of g each holding one of h.
    let text = tree("", &trace, &[]);
    let top: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(top.len(), 16, "{text}");
    assert_eq!(top[0], "0x800 (3 cycles / 3 cycles)");
    assert!(
        top[1..].iter().all(|l| *l == "0x600 (6 cycles / 9 cycles)"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 31, "{text}");
}

#[test]
fn a_full_stop_buffer_warns_of_the_events_it_dropped() {
    let mut b = Buf {
        capacity: 16,
        ..Buf::default()
    };
    walk(&mut b, 10);
    let dir = fresh_dir("freestanding_read", "stop");
    let trace = b.write(&dir, "full.bin");
    let g = graph("", &trace);
    assert!(
        g.stderr
            .contains("the buffer filled up and 26 event(s) were dropped")
            && g.stderr.contains("CALLTRACE_EVENTS"),
        "{}",
        g.stderr
    );
    assert!(
        g.stderr
            .contains("frame(s) still open at the end closed at the last timestamp"),
        "{}",
        g.stderr
    );
}

#[test]
fn damaged_buffers_stop_with_the_file_the_place_and_what_was_expected() {
    let dir = fresh_dir("freestanding_read", "damaged");
    let mut b = Buf::default();
    walk(&mut b, 2);
    let good = b.bytes();
    let run = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write");
        calltrace(["graph", "-o", "-", "--trace"])
            .args([&path])
            .run()
            .failure()
    };
    let cut = run("cut.bin", &good[..good.len() - 100]);
    assert!(
        cut.contains("cut.bin: byte 556: the file ends inside slot 51; expected 656 bytes"),
        "{cut}"
    );
    let mut swapped = good.clone();
    swapped[8..10].copy_from_slice(&[0, 1]);
    let msg = run("be.bin", &swapped);
    assert!(
        msg.contains("be.bin: byte 8:") && msg.contains("big-endian"),
        "{msg}"
    );
    let mut index = good.clone();
    index[28..32].copy_from_slice(&70u32.to_le_bytes());
    let msg = run("index.bin", &index);
    assert!(msg.contains("index.bin: byte 28: write index 70"), "{msg}");
    let mut small = good.clone();
    small[10..12].copy_from_slice(&72u16.to_le_bytes());
    let msg = run("small.bin", &small);
    assert!(
        msg.contains(
            "small.bin: byte 10: header size 72; expected a multiple of 8 of at least 144"
        ),
        "{msg}"
    );
    let mut special = good.clone();
    special[144 + 8 * 3..][..4].copy_from_slice(&0xFFFF_FFF5u32.to_le_bytes());
    let msg = run("special.bin", &special);
    assert!(
        msg.contains("special.bin: slot 3 (byte 168): a special record of type 0x5"),
        "{msg}"
    );
    // --lenient skips the bad slot.
    let path = dir.join("special.bin");
    let out = calltrace(["graph", "-o", "-", "--lenient", "--trace"])
        .args([&path])
        .run()
        .success();
    assert!(
        out.stderr.contains("skipped 1 malformed record(s)"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_forced_format_and_the_sniffer_agree_on_the_magic() {
    let dir = fresh_dir("freestanding_read", "magic");
    let mut b = Buf::default();
    walk(&mut b, 1);
    let trace = b.write(&dir, "ram.bin");
    let forced = tree("", &trace, &["--format", "freestanding"]);
    assert_eq!(forced, tree("", &trace, &[]));
    let (_g, text) = temp_file("t.txt", "E0x10\nX0x10\n");
    let err = calltrace(["tree", "--format", "freestanding", "--trace"])
        .args([&text])
        .run()
        .failure();
    assert!(err.contains("expected the magic `CALLTRF\\0`"), "{err}");
}
