//! Filters on every core (issue 43): a filtered `graph`, `tree --view
//! contexts` and `stats` read the trace once, in parallel chunks, and cut
//! the calling-context tree down to what the filter keeps. The two-pass
//! read through the filter, forced by `CALLTRACE_FILTER_PASSES=2`, is the
//! oracle: every output and every warning must be the same bytes, for one
//! and two parsing threads. Checked on zlib built from its own sources
//! driven over 128 KiB of text (text and binary traces of several
//! chunks), on `testdata/threads`
//! with `--tid` by number, and on `testdata/longjmp`, whose unwound
//! frames the cut leaves to the two passes. `--time-range` alone keeps
//! its naming first pass but builds its second on every core, the window
//! applied to the chunks: the same oracle holds for it, on zlib and on
//! the threads program.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::util::*;

/// zlib's program and its text and binary traces.
struct Zlib {
    exe: PathBuf,
    text: PathBuf,
    binary: PathBuf,
}

fn zlib() -> &'static Zlib {
    static Z: OnceLock<Zlib> = OnceLock::new();
    Z.get_or_init(|| {
        let zlib = third_party("zlib");
        let dir = fresh_dir("filter_parallel", "zlib");
        let exe = dir.join("zlib-drive");
        compile(
            Command::new("gcc")
                .args(["-O2", "-g", "-finstrument-functions", "-I"])
                .arg(&zlib)
                .args(ZLIB_FILES.iter().map(|f| zlib.join(f)))
                .arg(root().join("scripts/drivers/zlib-drive.c"))
                .arg(root().join("runtime/calltrace.c"))
                .arg("-o")
                .arg(&exe),
        );
        let record = |name: &str, format: &str| {
            let trace = dir.join(name);
            let out = output_within(
                Command::new(&exe)
                    .arg("128")
                    .current_dir(&dir)
                    .env("CALLTRACE_OUT", &trace)
                    .env("CALLTRACE_FORMAT", format),
                120,
            );
            assert!(out.status.success(), "zlib-drive failed");
            trace
        };
        Zlib {
            text: record("trace.txt", "text"),
            binary: record("trace.bin", "binary"),
            exe,
        }
    })
}

/// What one run gave: exit code, stderr, and the output file's bytes.
#[derive(Debug, PartialEq, Eq)]
struct Ran {
    code: i32,
    stderr: String,
    output: String,
}

/// `calltrace COMMAND EXE --trace TRACE ARGS... --threads N -o OUT`, the
/// filtered read in one pass or forced into two.
fn run(command: &[&str], exe: &Path, trace: &Path, args: &[&str], threads: u32, two: bool) -> Ran {
    // Tests run side by side: each run its own output.
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let out = trace.with_extension(format!("out-{n}"));
    let _ = std::fs::remove_file(&out);
    let mut cmd = Command::new(BIN);
    cmd.args(command)
        .arg(exe)
        .arg("--trace")
        .arg(trace)
        .args(args)
        .args(["--threads", &threads.to_string(), "-o"])
        .arg(&out);
    if two {
        cmd.env("CALLTRACE_FILTER_PASSES", "2");
    }
    let ran = output_within(&mut cmd, 120);
    let stderr = String::from_utf8_lossy(&ran.stderr).replace(out.to_str().expect("UTF-8"), "OUT");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let output = String::from_utf8_lossy(&std::fs::read(&out).unwrap_or_default()).into_owned();
    let _ = std::fs::remove_file(&out);
    Ran {
        code: ran.status.code().unwrap_or(-1),
        stderr,
        output,
    }
}

/// Runs `command` with `filter` in one pass on one and two threads and in
/// two passes, and checks all three agree; returns the output.
#[track_caller]
fn same_every_way(command: &[&str], exe: &Path, trace: &Path, filter: &[&str]) -> Ran {
    let oracle = run(command, exe, trace, filter, 1, true);
    for threads in [1, 2] {
        let got = run(command, exe, trace, filter, threads, false);
        assert_eq!(
            got,
            oracle,
            "{command:?} {filter:?} on {} with {threads} thread(s) differs from the two-pass read",
            trace.display()
        );
    }
    oracle
}

/// [`same_every_way`] of a filter with a time range, which either keeps
/// calls or finds none starting in the range (refused alike both ways).
#[track_caller]
fn kept_or_none_every_way(command: &[&str], exe: &Path, trace: &Path, filter: &[&str]) -> Ran {
    let ran = same_every_way(command, exe, trace, filter);
    let none = ran.code == 2 && ran.stderr.contains("no call starts in");
    assert!(
        ran.code == 0 || none,
        "{command:?} {filter:?}: {}",
        ran.stderr
    );
    ran
}

/// The unfiltered output of `command`.
fn unfiltered(command: &[&str], exe: &Path, trace: &Path) -> Ran {
    run(command, exe, trace, &[], 2, false)
}

const COMMANDS: [&[&str]; 4] = [
    &["graph"],
    &["graph", "--style", "plain"],
    &["tree", "--view", "contexts", "--show", "max"],
    &["stats", "--self"],
];

#[test]
fn zlib_filtered_in_one_pass_is_the_two_pass_read_on_any_thread_count() {
    let z = zlib();
    // Several chunks of the parallel reader, in both formats.
    for trace in [&z.text, &z.binary] {
        let size = std::fs::metadata(trace).unwrap().len();
        assert!(size > 2 << 20, "{} is {size} bytes", trace.display());
    }
    let filters: [&[&str]; 6] = [
        &["--exclude", "adler32*"],
        &["--exclude", "zcfree", "--exclude", "inflate_fast"],
        &["--function", "deflate"],
        &["--function", "inflate", "--exclude", "inflate_fast"],
        &["--function", "fill_window"],
        &["--function", "adler32"],
    ];
    // Every command on the binary trace, the graph on the text one.
    let runs = COMMANDS.iter().map(|c| (*c, &z.binary));
    for (command, trace) in runs.chain([(COMMANDS[0], &z.text)]) {
        {
            let whole = unfiltered(command, &z.exe, trace);
            assert_eq!(whole.code, 0, "{}", whole.stderr);
            for filter in filters {
                let ran = same_every_way(command, &z.exe, trace, filter);
                assert_eq!(ran.code, 0, "{command:?} {filter:?}: {}", ran.stderr);
                assert_ne!(
                    ran.output, whole.output,
                    "{command:?} {filter:?} cut nothing"
                );
            }
        }
    }
}

#[test]
fn a_filter_that_matches_nothing_or_no_thread_fails_alike_both_ways() {
    let z = zlib();
    for filter in [
        &["--exclude", "no_such_function"][..],
        &["--function", "no_such_function"],
        &["--tid", "4"],
    ] {
        let ran = same_every_way(&["graph"], &z.exe, &z.binary, filter);
        assert_eq!(ran.code, 2, "{filter:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(filter[0]), "{}", ran.stderr);
    }
}

/// The thread ids of the threads program's `trace`, main's first.
fn thread_ids(exe: &Path, trace: &Path) -> Vec<String> {
    let info = calltrace(["info", "--json", "-o", "-"])
        .args([exe, Path::new("--trace"), trace])
        .run()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).expect("JSON");
    let tids: Vec<String> = json["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .map(|t| t["id"].to_string())
        .collect();
    assert_eq!(tids.len(), 3, "{json}");
    tids
}

#[test]
fn tid_by_number_keeps_the_same_threads_both_ways() {
    let p = threads();
    let trace = &p.text_trace().path;
    let exe = Path::new(p.exe());
    let tids = thread_ids(exe, trace);
    let (main, worker) = (tids[0].as_str(), tids[2].as_str());
    let both = format!("{main},{worker}");
    for filter in [
        &["--tid", worker][..],
        &["--tid", &both],
        &["--tid", &both, "--exclude", "worker_a"],
        &["--exclude", "worker_b"],
        &["--function", "worker_*"],
    ] {
        for command in COMMANDS {
            let ran = same_every_way(command, exe, trace, filter);
            assert_eq!(ran.code, 0, "{command:?} {filter:?}: {}", ran.stderr);
        }
    }
}

#[test]
fn unwound_frames_are_filtered_alike_by_the_two_passes() {
    let p = longjmp();
    let trace = &p.text_trace().path;
    let exe = Path::new(p.exe());
    let whole = unfiltered(&["graph"], exe, trace);
    assert!(
        whole.stderr.contains("closed by the exit of a caller"),
        "{}",
        whole.stderr
    );
    for filter in [&["--exclude", "c"][..], &["--function", "run"]] {
        for command in COMMANDS {
            let ran = same_every_way(command, exe, trace, filter);
            assert_eq!(ran.code, 0, "{command:?} {filter:?}: {}", ran.stderr);
        }
    }
}

/// A program that leaves calls open: `exit` from two calls deep on the
/// main thread while a worker waits three calls deep, after `leaf` ran
/// on both threads.
const EXITS_EARLY: &str = r#"
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static int ready[2], never[2];
static volatile int sink;
__attribute__((noinline)) static void leaf(int i) { sink += i; }
__attribute__((noinline)) static void wait_here(void) {
    char c;
    leaf(1);
    if (write(ready[1], "x", 1) != 1 || read(never[0], &c, 1) < 0) abort();
}
__attribute__((noinline)) static void *worker(void *p) { wait_here(); return p; }
__attribute__((noinline)) static void finish(void) { leaf(2); exit(0); }
__attribute__((noinline)) static void work(void) { for (int i = 0; i < 3; i++) leaf(i); finish(); }
int main(void) {
    pthread_t t;
    char c;
    if (pipe(ready) || pipe(never) || pthread_create(&t, 0, worker, 0)) return 1;
    if (read(ready[0], &c, 1) != 1) return 1;
    work();
    return 1;
}
"#;

#[test]
fn calls_left_open_are_counted_alike_both_ways() {
    let dir = fresh_dir("filter_parallel", "exits_early");
    let exe = build_traced(&dir, "exits_early", EXITS_EARLY, "-O1", &["-pthread"]);
    let trace = dir.join("trace.txt");
    let out = output_within(Command::new(&exe).env("CALLTRACE_OUT", &trace), 60);
    assert!(out.status.success(), "exits_early failed");
    let whole = unfiltered(&["graph"], &exe, &trace);
    assert!(
        whole.stderr.contains("still open at the end"),
        "{}",
        whole.stderr
    );
    // Entry lines are `E<address> <time> <tid>`; main's thread comes first.
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut tids: Vec<&str> = Vec::new();
    for l in text.lines().filter(|l| l.starts_with('E')) {
        if let Some(tid) = l.split_whitespace().nth(2).filter(|t| !tids.contains(t)) {
            tids.push(tid);
        }
    }
    assert_eq!(tids.len(), 2, "{tids:?}");
    let mut filters: Vec<Vec<String>> = [
        &["--exclude", "finish"][..],
        &["--exclude", "wait_here"],
        &["--function", "leaf"],
        &["--function", "work"],
        &["--exclude", "leaf"],
    ]
    .iter()
    .map(|f| f.iter().map(|s| s.to_string()).collect())
    .collect();
    filters.push(vec!["--tid".into(), tids[1].into()]);
    filters.push(vec![
        "--tid".into(),
        tids.join(","),
        "--exclude".into(),
        "finish".into(),
    ]);
    let mut open_counts = std::collections::BTreeSet::new();
    for filter in &filters {
        let filter: Vec<&str> = filter.iter().map(String::as_str).collect();
        for command in COMMANDS {
            let ran = same_every_way(command, &exe, &trace, &filter);
            assert_eq!(ran.code, 0, "{command:?} {filter:?}: {}", ran.stderr);
            open_counts.insert(
                ran.stderr
                    .lines()
                    .find(|l| l.contains("still open"))
                    .map(String::from),
            );
        }
    }
    // The filters keep different numbers of the open calls.
    assert!(open_counts.len() >= 3, "{open_counts:?}");
}

/// Time ranges over `trace` between its calls' starts: from its first
/// event to the 20th percentile of the starts, from the 40th to the 60th
/// (each holds calls where the percentiles differ), from the 70th on, and
/// one past its last call (which holds none).
/// The starts come from the Chrome export (microseconds, to the
/// nanosecond): programs run long stretches without a call
/// (zlib a third of its run), so a share of the run's length may hold none.
fn ranges_between_calls(exe: &Path, trace: &Path) -> Vec<String> {
    let out = calltrace(["export", "--to", "chrome", "-o", "-"])
        .args([exe, Path::new("--trace"), trace])
        .run()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut starts: Vec<u64> = json["traceEvents"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["ph"] == "X")
        .filter_map(|e| e["ts"].as_f64())
        .map(|us| (us * 1000.0).round() as u64)
        .collect();
    starts.sort_unstable();
    // A range counts from the trace's earliest event, the first call's
    // start; the export's times may count from another.
    let first = starts[0];
    let at = |percent: usize| starts[(starts.len() - 1) * percent / 100] - first;
    vec![
        format!("..{}ns", at(20)),
        format!("{}ns..{}ns", at(40), at(60)),
        format!("{}ns..", at(70)),
        format!("{}ns..", at(100) + 1),
    ]
}

#[test]
fn a_time_range_on_every_core_gives_the_two_pass_read() {
    let z = zlib();
    for trace in [&z.binary, &z.text] {
        let whole = unfiltered(&["graph"], &z.exe, trace);
        let ranges = ranges_between_calls(&z.exe, trace);
        for range in &ranges[..3] {
            for command in COMMANDS {
                let ran = same_every_way(command, &z.exe, trace, &["--time-range", range]);
                assert_eq!(ran.code, 0, "{command:?} {range}: {}", ran.stderr);
                if command == COMMANDS[0] {
                    assert_ne!(ran.output, whole.output, "{range} cut nothing");
                }
            }
        }
        // No call in the range: the same refusal either way.
        let ran = same_every_way(&["graph"], &z.exe, trace, &["--time-range", &ranges[3]]);
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(ran.stderr.contains("no call starts in"), "{}", ran.stderr);
    }
}

#[test]
fn a_time_range_over_threads_and_open_calls_gives_the_two_pass_read() {
    // Three threads, whose first calls in a window come in another order
    // than their first events; then calls left open at the end and
    // unwound frames, which the window leaves to the two passes.
    // The threads sleep between bursts of calls, so the ranges are taken
    // between the calls' own start times, which each keeps some of.
    let p = threads();
    let (trace, exe) = (&p.text_trace().path, Path::new(p.exe()));
    let ranges = ranges_between_calls(exe, trace);
    for range in &ranges[..3] {
        for command in COMMANDS {
            let ran = same_every_way(command, exe, trace, &["--time-range", range]);
            assert_eq!(ran.code, 0, "{command:?} {range}: {}", ran.stderr);
        }
    }
    // With --tid (a worker, then main and a worker): a range may hold no
    // call of the threads kept, refused alike.
    let tids = thread_ids(exe, trace);
    let both = format!("{},{}", tids[0], tids[2]);
    let mut kept = 0;
    for tid in [tids[2].as_str(), &both] {
        for range in &ranges[..3] {
            for command in COMMANDS {
                let filter = ["--tid", tid, "--time-range", range];
                let ran = kept_or_none_every_way(command, exe, trace, &filter);
                kept += usize::from(ran.code == 0);
            }
        }
    }
    assert!(kept >= 12, "{kept} of 24 runs kept calls");
    let dir = fresh_dir("filter_parallel", "exits_early_range");
    let exe = build_traced(&dir, "exits_early", EXITS_EARLY, "-O1", &["-pthread"]);
    let trace = dir.join("trace.txt");
    let out = output_within(Command::new(&exe).env("CALLTRACE_OUT", &trace), 60);
    assert!(out.status.success(), "exits_early failed");
    let p = longjmp();
    for (exe, trace) in [
        (exe.as_path(), trace.as_path()),
        (Path::new(p.exe()), &p.text_trace().path),
    ] {
        // (A few calls: two percentiles may coincide, an empty range,
        // refused alike.)
        for range in &ranges_between_calls(exe, trace)[..3] {
            kept_or_none_every_way(&["graph"], exe, trace, &["--time-range", range]);
        }
    }
}

#[test]
fn a_time_range_with_function_or_exclude_gives_the_two_pass_read() {
    // The window built on every core with the callers before it kept as
    // path nodes, then cut by function: a call in the window below a
    // `deflate` that started before it is kept, one below an excluded
    // function that did is not.
    let z = zlib();
    let filters: [&[&str]; 3] = [
        &["--function", "deflate"],
        &["--exclude", "adler32*"],
        &["--function", "inflate", "--exclude", "inflate_fast"],
    ];
    for trace in [&z.binary, &z.text] {
        let ranges = ranges_between_calls(&z.exe, trace);
        for range in &ranges[..3] {
            let window = ["--time-range", range.as_str()];
            let alone = same_every_way(&["graph"], &z.exe, trace, &window);
            for filter in filters {
                let both = [filter, &window[..]].concat();
                // Every command on the binary trace, the graph on the text one.
                let commands = if trace == &z.binary {
                    &COMMANDS[..]
                } else {
                    &COMMANDS[..1]
                };
                for &command in commands {
                    let ran = kept_or_none_every_way(command, &z.exe, trace, &both);
                    if command == COMMANDS[0] && ran.code == 0 {
                        assert_ne!(ran.output, alone.output, "{both:?} cut nothing");
                    }
                }
            }
        }
    }
    // Threads whose first calls in the window are cut away or not.
    let p = threads();
    let (trace, exe) = (&p.text_trace().path, Path::new(p.exe()));
    let tids = thread_ids(exe, trace);
    let both_tids = format!("{},{}", tids[0], tids[2]);
    for range in &ranges_between_calls(exe, trace)[..3] {
        for filter in [
            vec!["--function", "worker_b"],
            vec!["--exclude", "leaf_a"],
            vec!["--tid", &both_tids, "--exclude", "leaf_b"],
        ] {
            let both = [&filter[..], &["--time-range", range]].concat();
            for command in COMMANDS {
                kept_or_none_every_way(command, exe, trace, &both);
            }
        }
    }
}
