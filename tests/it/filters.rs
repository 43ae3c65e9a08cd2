//! The filters every trace-reading command takes: `--tid`, `--time-range`,
//! `--function`, `--exclude`. Checked against the real things: a time range
//! keeps what filtering the Chrome export's events by start time keeps;
//! `--tid` keeps exactly that thread's part of the tree; `--function` and
//! `--exclude` count the calls `uftrace record -F`/`-N` count on zlib built
//! from its own sources; every command accepts the flags and its output
//! changes; bad values are errors naming the flag.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

/// One Chrome "X" event: a call, with times in nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Call {
    name: String,
    tid: u64,
    ts: u64,
    dur: u64,
}

/// The calls of `calltrace export --to chrome -o - ARGS...`.
#[track_caller]
fn chrome(args: &[&str]) -> Vec<Call> {
    let out = calltrace(["export", "--to", "chrome", "-o", "-"])
        .args(args)
        .run()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let ns = |v: &serde_json::Value| (v.as_f64().expect("a number") * 1000.0).round() as u64;
    let mut calls: Vec<Call> = json["traceEvents"]
        .as_array()
        .expect("traceEvents")
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| Call {
            name: e["name"].as_str().expect("a name").to_string(),
            tid: e["tid"].as_u64().expect("a tid"),
            ts: ns(&e["ts"]),
            dur: ns(&e["dur"]),
        })
        .collect();
    calls.sort();
    calls
}

/// Calls per function name.
fn counts(calls: &[Call]) -> BTreeMap<&str, usize> {
    let mut c = BTreeMap::new();
    for call in calls {
        *c.entry(call.name.as_str()).or_default() += 1;
    }
    c
}

/// `--time-range START..END` (nanoseconds from the earliest call) keeps
/// the calls whose Chrome event starts in the range, each cut at its end,
/// both when the export streams and when it goes through the tree.
#[track_caller]
fn check_range(exe: &str, trace: &Path, start: Option<u64>, end: Option<u64>) {
    let trace = trace.to_str().unwrap();
    let all = chrome(&["--trace", trace, exe]);
    let origin = all.iter().map(|c| c.ts).min().expect("calls");
    let (lo, hi) = (start.unwrap_or(0), end.unwrap_or(u64::MAX));
    let mut expected: Vec<Call> = all
        .iter()
        .filter(|c| (lo..hi).contains(&(c.ts - origin)))
        .map(|c| Call {
            dur: c.dur.min(hi.saturating_sub(c.ts - origin)),
            ..c.clone()
        })
        .collect();
    expected.sort();
    assert!(!expected.is_empty() && expected.len() < all.len());
    let range = format!(
        "{}..{}",
        start.map_or(String::new(), |s| format!("{s}ns")),
        end.map_or(String::new(), |e| format!("{e}ns"))
    );
    let streamed = chrome(&["--trace", trace, exe, "--time-range", &range]);
    assert_eq!(counts(&streamed), counts(&expected), "{range}");
    assert!(streamed == expected, "{range}: other calls or times");
    // Through the tree, the export lays the calls out from 0 again: the
    // same calls with the same durations.
    let built = chrome(&[
        "--trace",
        trace,
        exe,
        "--time-range",
        &range,
        "--view",
        "calls",
    ]);
    assert!(
        durations(&built) == durations(&expected),
        "{range} through the tree: other calls or durations"
    );
}

/// Each call's name and duration, sorted.
fn durations(calls: &[Call]) -> Vec<(&str, u64)> {
    let mut d: Vec<(&str, u64)> = calls.iter().map(|c| (c.name.as_str(), c.dur)).collect();
    d.sort();
    d
}

/// Start times of the calls, relative to the earliest, sorted.
fn starts(exe: &str, trace: &Path) -> Vec<u64> {
    let all = chrome(&["--trace", trace.to_str().unwrap(), exe]);
    let origin = all.iter().map(|c| c.ts).min().unwrap();
    let mut s: Vec<u64> = all.iter().map(|c| c.ts - origin).collect();
    s.sort();
    s.dedup();
    s
}

#[test]
fn time_range_keeps_the_calls_whose_chrome_events_start_in_it() {
    let z = zlib();
    let s = starts(z.exe(), &z.trace);
    let (a, b) = (s[s.len() / 3], s[2 * s.len() / 3]);
    check_range(z.exe(), &z.trace, Some(a), Some(b));
    check_range(z.exe(), &z.trace, None, Some(a));
    check_range(z.exe(), &z.trace, Some(b), None);
}

#[test]
fn time_range_counts_from_the_earliest_event_of_any_thread() {
    // The runtime writes each thread's events in blocks: the main thread's
    // come last in the file, yet its calls start first.
    let p = threads();
    let trace = &p.text_trace().path;
    let s = starts(p.exe(), trace);
    check_range(p.exe(), trace, None, Some(s[2] + 1));
    check_range(p.exe(), trace, Some(s[3]), Some(s[s.len() - 4]));
}

/// The lines of `tree` under the `[thread TID]` header, one level up.
fn thread_part(tree: &str, tid: &str) -> String {
    let header = format!("[thread {tid}] (");
    let mut lines = tree.lines().skip_while(|l| !l.starts_with(&header));
    lines.next().expect("the thread's header");
    lines
        .take_while(|l| l.starts_with("  "))
        .map(|l| format!("{}\n", &l[2..]))
        .collect()
}

#[test]
fn tid_keeps_exactly_that_threads_calls() {
    let p = threads();
    let trace = p.text_trace().path.to_str().unwrap();
    let tree = |extra: &[&str]| {
        calltrace(["tree", "--time-unit", "ns", "--trace", trace, p.exe()])
            .args(extra)
            .run()
            .success()
            .text()
    };
    let all = tree(&[]);
    let tids: Vec<&str> = all
        .lines()
        .filter_map(|l| l.strip_prefix("[thread ")?.split(']').next())
        .collect();
    assert_eq!(tids.len(), 3, "{all}");
    for tid in &tids {
        let one = tree(&["--tid", tid]);
        assert_eq!(one, thread_part(&all, tid), "--tid {tid}");
        assert!(!one.is_empty());
    }
    // Two threads keep their headers and order; the third is gone.
    let two = tree(&["--tid", &format!("{},{}", tids[0], tids[2])]);
    assert!(two.contains(&format!("[thread {}]", tids[0])), "{two}");
    assert!(!two.contains(&format!("[thread {}]", tids[1])), "{two}");
    assert_eq!(thread_part(&two, tids[2]), thread_part(&all, tids[2]));
    // The repeatable form means the same.
    assert_eq!(tree(&["--tid", tids[0], "--tid", tids[2]]), two);
}

#[test]
fn tid_takes_the_task_names_a_rules_file_gives() {
    let tree = |extra: &[&str]| {
        calltrace(["tree", "--time-unit", "ns", "--rules"])
            .args([root().join("rules/toppers-asp.json")])
            .args([
                "--trace".into(),
                root().join("testdata/logs/toppers-asp.log"),
            ])
            .args(extra)
            .run()
            .success()
            .text()
    };
    let all = tree(&[]);
    let task2 = tree(&["--tid", "task 2"]);
    let part: String = all
        .lines()
        .skip_while(|l| !l.starts_with("[task 2]"))
        .skip(1)
        .map(|l| format!("{}\n", l.trim_start()))
        .collect();
    assert_eq!(task2, part);
    assert!(task2.contains("sns_ctx"), "{task2}");
    assert_eq!(tree(&["--tid", "[task 4]"]), tree(&["--tid", "task 4"]));
    // Task 4's first line leaves a call entered before the log began: the
    // repair is still counted when only that task is read.
    let out = calltrace(["tree", "--rules"])
        .args([root().join("rules/toppers-asp.json")])
        .args([
            "--trace".into(),
            root().join("testdata/logs/toppers-asp.log"),
        ])
        .args(["--tid", "task 4"])
        .run()
        .success();
    assert!(
        out.stderr.contains("1 exit(s) without a matching entry"),
        "{}",
        out.stderr
    );
}

/// A symbolic trace of two threads, `calls` calls of `f` each (calling
/// `g` and `h`), a few MiB: more than one chunk for the parsing threads.
fn two_thread_trace(calls: u64) -> String {
    let mut t = String::from("E main 0 1\nE main 5 2\n");
    let mut time = 10;
    for i in 0..calls {
        for thread in [1, 2] {
            let g = if i % 3 == 0 { "g" } else { "h" };
            for (kind, f) in [("E", "f"), ("E", g), ("X", g), ("X", "f")] {
                t.push_str(&format!("{kind} {f} {time} {thread}\n"));
                time += 7 + i % 5;
            }
        }
    }
    t.push_str(&format!("X main {time} 1\nX main {} 2\n", time + 1));
    t
}

#[test]
fn filtered_output_is_the_same_for_any_thread_count() {
    let (_dir, trace) = temp_file("two.txt", two_thread_trace(60_000));
    assert!(std::fs::metadata(&trace).unwrap().len() > 3 << 20);
    let folded = |extra: &[&str]| {
        calltrace(["export", "--to", "folded", "-o", "-", "--trace"])
            .args([&trace])
            .args(extra)
            .run()
            .success()
            .text()
    };
    let filters = ["--exclude", "g", "--time-range", "1ms..3ms", "--tid", "2"];
    let one = folded(&[&filters[..], &["--threads", "1"]].concat());
    assert!(one.contains("f;h") && !one.contains(";g"), "{one}");
    assert_ne!(one, folded(&["--threads", "1"]));
    for n in ["2", "3", "8"] {
        assert_eq!(
            folded(&[&filters[..], &["--threads", n]].concat()),
            one,
            "--threads {n}"
        );
    }
}

/// zlib built from its own sources with `gcc -O2 -finstrument-functions`,
/// once with calltrace's runtime (traced) and once without (for uftrace).
struct Zlib {
    ours: PathBuf,
    plain: PathBuf,
    trace: PathBuf,
}

impl Zlib {
    fn exe(&self) -> &str {
        self.ours.to_str().unwrap()
    }
}

fn zlib() -> &'static Zlib {
    static Z: OnceLock<Zlib> = OnceLock::new();
    Z.get_or_init(|| {
        let src = third_party("zlib");
        let dir = fresh_dir("filters", "zlib");
        let build = |exe: &Path, runtime: bool| {
            let mut cmd = Command::new("gcc");
            cmd.args(["-O2", "-g", "-finstrument-functions", "-I"])
                .arg(&src)
                .args(ZLIB_FILES.iter().map(|f| src.join(f)))
                .arg(root().join("testdata/zlib/zround.c"));
            if runtime {
                cmd.arg(root().join("runtime/calltrace.c"));
            }
            compile(cmd.arg("-o").arg(exe));
        };
        let (ours, plain) = (dir.join("zround"), dir.join("zround-plain"));
        build(&ours, true);
        build(&plain, false);
        let trace = dir.join("trace.txt");
        let out = output_within(
            Command::new(&ours)
                .current_dir(&dir)
                .env("CALLTRACE_OUT", &trace),
            120,
        );
        assert!(out.status.success(), "{out:?}");
        Zlib { ours, plain, trace }
    })
}

/// calltrace's calls per function: the JSON export's contexts tree.
fn calltrace_counts(z: &Zlib, filters: &[&str]) -> BTreeMap<String, u64> {
    let out = calltrace(["export", "--to", "json", "-o", "-", z.exe(), "--trace"])
        .args([&z.trace])
        .args(filters)
        .run()
        .success();
    let tree: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut counts = BTreeMap::new();
    let mut todo = vec![&tree];
    while let Some(node) = todo.pop() {
        if let Some(name) = node["name"].as_str().filter(|n| !n.starts_with(['[', '('])) {
            *counts.entry(name.to_string()).or_insert(0) += node["calls"].as_u64().unwrap();
        }
        todo.extend(node["children"].as_array().into_iter().flatten());
    }
    counts
}

/// `uftrace record --no-libcall --match glob FILTERS` of the plain build,
/// as `uftrace report -f call` counts it.
fn uftrace_counts(z: &Zlib, filters: &[&str], name: &str) -> BTreeMap<String, u64> {
    let data = fresh_dir("filters", name).join("uftrace.data");
    let record = output_within(
        Command::new("uftrace")
            .args(["record", "--no-libcall", "--match", "glob", "-d"])
            .arg(&data)
            .args(filters)
            .arg(&z.plain),
        120,
    );
    assert!(record.status.success(), "{record:?}");
    let report = output_within(
        Command::new("uftrace")
            .args(["report", "-f", "call", "-d"])
            .arg(&data),
        120,
    );
    assert!(report.status.success(), "{report:?}");
    let text = String::from_utf8(report.stdout).unwrap();
    let mut counts = BTreeMap::new();
    for line in text.lines().skip(2) {
        let (n, name) = line.trim_start().split_once(' ').expect("`CALLS NAME`");
        // Schedule events come from perf files calltrace does not read.
        if !name.trim().starts_with("linux:") {
            counts.insert(name.trim().to_string(), n.parse().expect("a call count"));
        }
    }
    counts
}

#[test]
fn function_and_exclude_count_the_calls_uftrace_records_with_f_and_n() {
    if tool("uftrace").is_none() {
        return;
    }
    let z = zlib();
    let whole = calltrace_counts(z, &[]);
    let cases: [(&str, &[&str], &[&str]); 3] = [
        (
            "deflate",
            &[
                "--function",
                "deflate",
                "--exclude",
                "longest_match",
                "--exclude",
                "pqdownheap",
            ],
            &["-F", "deflate", "-N", "longest_match", "-N", "pqdownheap"],
        ),
        (
            "inflate",
            &["--function", "inflate*", "--exclude", "crc32*"],
            &["-F", "inflate*", "-N", "crc32*"],
        ),
        ("no-crc", &["--exclude", "crc32*"], &["-N", "crc32*"]),
    ];
    for (name, ours, theirs) in cases {
        let got = calltrace_counts(z, ours);
        assert_eq!(got, uftrace_counts(z, theirs, name), "{ours:?}");
        assert_ne!(got, whole, "{ours:?} changed nothing");
        assert!(!got.is_empty(), "{ours:?}");
    }
}

#[test]
fn excluded_time_goes_to_the_callers_self_time() {
    let p = threads();
    let trace = p.text_trace().path.to_str().unwrap();
    let tree = |extra: &[&str]| {
        calltrace(["tree", "--time-unit", "ns", "--trace", trace, p.exe()])
            .args(extra)
            .run()
            .success()
            .text()
    };
    // `main (SELF ns / TOTAL ns)`: the total stays, main_work's moves to self.
    let times = |text: &str, name: &str| -> (u64, u64) {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} (")))
            .unwrap_or_else(|| panic!("{name} in {text}"));
        let inner = line.split_once('(').unwrap().1.trim_end_matches(')');
        let mut n = inner
            .split(" / ")
            .map(|t| t.trim_end_matches(" ns").parse::<u64>().expect("ns"));
        (n.next().unwrap(), n.next().unwrap())
    };
    let all = tree(&[]);
    let cut = tree(&["--exclude", "main_work"]);
    assert!(
        !cut.contains("main_work") && !cut.contains("leaf_main"),
        "{cut}"
    );
    let (self_all, total_all) = times(&all, "main");
    let (self_cut, total_cut) = times(&cut, "main");
    assert_eq!(total_cut, total_all);
    assert_eq!(self_cut, self_all + times(&all, "main_work").1);
}

#[test]
fn every_command_takes_the_filters_and_they_change_its_output() {
    let p = threads();
    let trace = p.text_trace().path.to_str().unwrap().to_string();
    let dir = fresh_dir("filters", "commands");
    let run = |args: &[&str], filter: &[&str], out: &str| -> String {
        let o = calltrace(args)
            .args(filter)
            .current_dir(&dir)
            .run()
            .success();
        match out {
            "-" => o.text(),
            file => std::fs::read_to_string(dir.join(file)).expect("the output file"),
        }
    };
    let exe = p.exe();
    let commands: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "graph", "--style", "plain", "-o", "-", "--trace", &trace, exe,
            ],
            "-",
        ),
        (vec!["tree", "--trace", &trace, exe], "-"),
        (
            vec![
                "abstract",
                "--threshold",
                "0",
                "-o",
                "abs.dot",
                "--trace",
                &trace,
                exe,
            ],
            "abs.dot",
        ),
        (
            vec![
                "export", "--to", "folded", "-o", "-", "--trace", &trace, exe,
            ],
            "-",
        ),
        (
            vec!["diff", &trace, &trace, "--csv", "diff.csv"],
            "diff.csv",
        ),
        (vec!["coverage", exe, &trace, "--csv", "cov.csv"], "cov.csv"),
        (
            vec!["compare", exe, &trace, "--out-dir", "cmp"],
            "cmp/coverage.csv",
        ),
    ];
    for (args, out) in commands {
        let whole = run(&args, &[], out);
        assert!(whole.contains("worker_b"), "{args:?}: {whole}");
        let cut = run(
            &args,
            &["--exclude", "leaf_b", "--exclude", "worker_b"],
            out,
        );
        assert_ne!(cut, whole, "{args:?}");
        let kept = run(&args, &["--function", "main_work"], out);
        assert_ne!(kept, whole, "{args:?}");
        assert_ne!(kept, cut, "{args:?}");
    }
}

#[test]
fn bad_filter_values_are_errors_naming_the_flag() {
    let p = threads();
    let trace = p.text_trace().path.to_str().unwrap();
    let fail = |extra: &[&str]| {
        calltrace(["tree", "--trace", trace, p.exe()])
            .args(extra)
            .run()
    };
    let clap_error = |extra: &[&str], says: &str| {
        let out = fail(extra);
        assert_eq!(out.code, 2, "{extra:?}: {}", out.stderr);
        assert!(out.stdout.is_empty());
        assert!(
            out.stderr.contains("--time-range") && out.stderr.contains(says),
            "{extra:?}: {}",
            out.stderr
        );
    };
    clap_error(&["--time-range", "10..20"], "add one, e.g. 10ms");
    clap_error(&["--time-range", "5ms..1ms"], "must come before the end");
    clap_error(&["--time-range", "10ms"], "START..END");
    for (extra, says) in [
        (&["--tid", "nope"][..], "--tid: no thread `nope`"),
        (
            &["--function", "no_such_*"],
            "--function: `no_such_*` matches no function",
        ),
        (
            &["--exclude", "nothing"],
            "--exclude: `nothing` matches no function",
        ),
        (
            &["--time-range", "100s.."],
            "--time-range: no call starts in 100s..; ",
        ),
    ] {
        let msg = fail(extra).failure();
        assert!(msg.contains(says), "{extra:?}: {msg}");
    }
    // The trace's threads and some functions are listed.
    let msg = fail(&["--tid", "1"]).failure();
    assert!(msg.contains(&p.text_trace().pid.to_string()), "{msg}");
    let msg = fail(&["--function", "leaf"]).failure();
    assert!(msg.contains("leaf_a"), "{msg}");
    // An untimed trace cannot be cut by time.
    let (_d, untimed_trace) = temp_file("untimed.txt", untimed(&p.text_trace().text()));
    let msg = calltrace(["tree", "--time-range", "..1ms", p.exe(), "--trace"])
        .args([&untimed_trace])
        .run()
        .failure();
    assert!(
        msg.contains("--time-range") && msg.contains("no timestamps"),
        "{msg}"
    );
    // An indented tree cannot be cut by time or function.
    let indented = data("decimals", "trace.txt");
    for extra in [["--function", "funcA"], ["--time-range", "..1s"]] {
        let msg = calltrace(["tree", "--trace"])
            .args([&indented])
            .args(extra)
            .run()
            .failure();
        assert!(msg.contains("is an indented tree"), "{extra:?}: {msg}");
    }
}

#[test]
fn a_pattern_matching_nothing_lists_short_forms_a_pattern_can_be() {
    let p = cpp();
    let trace = p.text_trace().path.to_str().unwrap();
    let msg = calltrace(["tree", "--trace", trace, p.exe(), "--exclude", "Box*zz"])
        .run()
        .failure();
    let listed = msg
        .split("functions such as ")
        .nth(1)
        .unwrap_or_else(|| panic!("no list in {msg}"));
    let names: Vec<&str> = listed.trim_end().split(", ").collect();
    // Those sharing the pattern's literal `Box` first, each short form
    // once (`ns::Box<int>::get() const` and `ns::Box<double>::get() const`
    // are both `ns::Box::get`), with no parameter or template list.
    assert_eq!(
        names[..3],
        ["ns::Box::Box", "ns::Box::get", "ns::Box::set"],
        "{msg}"
    );
    assert!(!listed.contains('<') && !listed.contains("(int"), "{msg}");
    assert!(!listed.contains(" const"), "{msg}");
    // Each is a pattern that matches.
    let out = calltrace(["tree", "--trace", trace, p.exe(), "--function", names[1]]).run();
    assert!(out.success().text().contains("ns::Box<int>::get() const"));
}
