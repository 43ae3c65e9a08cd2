//! The freestanding runtime (`calltrace runtime --freestanding`): it
//! compiles for Cortex-M0/M3/M33 and RV32 with no library call left and the
//! buffer size the format says, and on the host (x86-64, with a counting
//! clock) its dumps, decoded by `decode.rs` from the specification, hold
//! exactly the calls made: per function, in a ring, in a full stop buffer,
//! per task, around clear/stop/start and around a dump.

mod cross;
mod decode;
mod host;
mod qemu;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use decode::Dump;
use host::{
    Build, Run, balanced, clock_at, consecutive_times, host, host_header, main_counts, run,
};

use super::util::{calltrace, csv_total_unit, edges, fresh_dir, graph, tree};

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

#[test]
fn host_calls_are_counted_per_function_with_unwrapped_times() {
    let r = run(Build::Stop, "calls", 1);
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
    let r = run(Build::Ring, "many", 1);
    let d = r.dump(0);
    let mut want = host_header(true, MANY_EVENTS, MANY_EVENTS % 1024, 0, 1 | 4);
    want.buffer_address = d.header.buffer_address;
    assert_eq!(d.header, want);
    assert_eq!(d.slots.len(), 1024);
    holds_many_from(&r, &d, u64::from(MANY_EVENTS) - 1024);
}

#[test]
fn stop_mode_keeps_the_first_events_and_counts_the_dropped() {
    let r = run(Build::Stop, "many", 1);
    let d = r.dump(0);
    // Full: write_index went back to 0, not wrapped: slots read from 0.
    let mut want = host_header(false, 1024, 0, MANY_EVENTS - 1024, 1);
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
    let r = run(Build::Stop, "edge", 1);
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
    let r = run(Build::Stop, "tasks", 1);
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
    let r = run(Build::Stop, "control", 1);
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
    let r = run(Build::Ring, "calls", 2);
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

/// The threads of a `calltrace tree` and the functions under each.
fn threads_of(tree: &str) -> Vec<(String, Vec<String>)> {
    let mut threads: Vec<(String, Vec<String>)> = Vec::new();
    for line in tree.lines() {
        let name = line.trim_start().split(" (").next().unwrap_or("");
        match (line.starts_with('['), threads.last_mut()) {
            (true, _) => threads.push((name.trim_matches(['[', ']']).to_string(), Vec::new())),
            (false, Some((_, funcs))) => funcs.push(name.to_string()),
            (false, None) => panic!("a function before any thread: {tree}"),
        }
    }
    threads
}

/// calltrace reads the host's dumps: the call graph of the calls, in
/// seconds (the header's 1 MHz), and one thread per task, named by it.
#[test]
fn calltrace_reads_the_host_dumps_per_function_and_per_task() {
    let exe = host(Build::Stop).to_str().expect("UTF-8");
    let calls = run(Build::Stop, "calls", 1);
    let dir = fresh_dir("freestanding_runtime", "read");
    let (calls_bin, tasks_bin) = (dir.join("calls.bin"), dir.join("tasks.bin"));
    std::fs::write(&calls_bin, &calls.dumps[0]).expect("write the dump");
    let g = graph(exe, &calls_bin);
    assert_eq!(
        g.edges(),
        edges(&[("outer", "inner", 30), ("inner", "leaf", 30)])
    );
    assert_eq!(csv_total_unit(&g.csv), "ns");
    std::fs::write(&tasks_bin, &run(Build::Stop, "tasks", 1).dumps[0]).expect("write the dump");
    let text = tree(exe, &tasks_bin, &[]);
    let want = [
        ("main", &["f"][..]),
        ("sensor", &["g", "g", "g"]),
        ("ui", &["h"]),
        ("renamed", &["f"]),
        ("a-very-long-tas", &["h"]),
        ("other tasks", &["g"]),
    ];
    let want: Vec<(String, Vec<String>)> = want
        .iter()
        .map(|(t, f)| (t.to_string(), f.iter().map(|s| s.to_string()).collect()))
        .collect();
    assert_eq!(threads_of(&text), want, "{text}");
}

/// SIGALRM as an interrupt every 200 us (the "irq" build): its handler's
/// calls land in their own context, exception 15, with context-switch
/// records in and out, and the interrupted calls' context stays balanced,
/// with every call counted.
#[test]
fn interrupts_get_their_own_context_and_never_break_the_interrupted_stack() {
    let r = run(Build::Irq, "irq", 1);
    let d = r.dump(0);
    let (outers, ticks) = (r.printed("outers")[0] as u64, r.printed("ticks")[0] as u64);
    assert!(ticks >= 1, "no SIGALRM arrived");
    assert_eq!((d.header.dropped, d.header.flags), (0, 1));
    let want: BTreeMap<(u16, String), u64> = [
        (0x7fff, "outer", outers),
        (0x7fff, "inner", 3 * outers),
        (0x7fff, "leaf", 3 * outers),
        (0x800f, "tick", ticks),
        (0x800f, "leaf", ticks),
    ]
    .iter()
    .map(|&(c, n, k)| ((c, n.to_string()), k))
    .collect();
    assert_eq!(r.entries(0), want);
    let switches = d.switches();
    let expected: Vec<(u16, u16)> = (0..switches.len())
        .map(|i| [(0x7fff, 0x800f), (0x800f, 0x7fff)][i % 2])
        .collect();
    assert_eq!(switches, expected);
    // Two in, one out when a second signal was pending as the first
    // handler returned (under load), one in and no out for a last tick.
    let n = switches.len() as u64;
    assert!(
        n >= 1 && n <= 2 * ticks,
        "{n} switches for {ticks} ticks, {outers} outers"
    );
    balanced(&d);
    consecutive_times(&d);
}

/// A fault in the middle of a record (its clock's page made unreadable for
/// g's entry), whose handler calls nmi_work, stands for an NMI: no lock
/// holds it off, and the runtime, busy, records none of its calls; the
/// record it interrupted completes. (At -O2 GCC removed the store that
/// marks the runtime busy, as nothing it could see read it.)
#[test]
fn a_handler_that_interrupts_a_record_records_nothing() {
    let r = run(Build::Nmi, "nmi", 1);
    let d = r.dump(0);
    assert_eq!(r.printed("faults"), [1]);
    assert_eq!(r.entries(0), main_counts(&[("f", 3), ("g", 1)]));
    assert_eq!((d.header.count, d.header.dropped), (8, 0));
    balanced(&d);
    consecutive_times(&d);
}

/// calltrace reads a full stop buffer as its first slots, a ring as its
/// last ones, and only the ring as wrapped.
#[test]
fn calltrace_reads_a_full_stop_buffer_from_its_start_and_a_ring_from_its_oldest_slot() {
    let dir = fresh_dir("freestanding_runtime", "read-many");
    for build in [Build::Stop, Build::Ring] {
        let exe = host(build).to_str().expect("UTF-8");
        let dump = dir.join(format!("{build:?}.bin"));
        std::fs::write(&dump, &run(build, "many", 1).dumps[0]).expect("write the dump");
        let g = graph(exe, &dump);
        // 1024 slots from a multiple of 4 events: 256 whole calls of ring_a.
        assert_eq!(g.edges(), edges(&[("ring_a", "ring_b", 256)]), "{build:?}");
        let wrapped = g.stderr.contains("wrapped");
        assert_eq!(wrapped, build == Build::Ring, "{build:?}: {}", g.stderr);
    }
}
