//! uftrace's recordings read in place (`--trace uftrace.data`): programs
//! built with `-pg` (uftrace's default) and with `-finstrument-functions`,
//! recorded by the real `uftrace record`, must give the call counts
//! `uftrace report` gives, for every function. The programs: one of our
//! own (threads, recursion, a shared library, calls through the PLT) and
//! zlib's sources as a `-pg` shared library driven by testdata/zlib.
//! Also: every command reads a recording, times are nanoseconds, and a
//! damaged or incomplete recording is a clear error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

const LIB: &str = r#"
int lib_square(int x) { return x * x; }
int lib_sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += lib_square(i); return s; }
"#;

const APP: &str = r#"
#include <pthread.h>
#include <stdio.h>
int lib_sum(int n);
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static int twice(int x) { return 2 * x; }
static void *worker(void *arg) {
    long n = (long)arg;
    return (void *)(long)twice(lib_sum((int)n) + fib((int)n));
}
int main(void) {
    pthread_t t[3];
    for (long i = 0; i < 3; i++) pthread_create(&t[i], 0, worker, (void *)(i + 4));
    long total = 0;
    for (int i = 0; i < 3; i++) { void *r; pthread_join(t[i], &r); total += (long)r; }
    printf("%ld %d\n", total, fib(10));
    return 0;
}
"#;

/// Runs `cmd`, within two minutes; fails the test on an error.
#[track_caller]
fn run(cmd: &mut Command) -> String {
    let out = output_within(cmd, 120);
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// `uftrace record -d DIR [OPTIONS] PROGRAM` in `dir`; returns DIR.
fn record(dir: &Path, exe: &Path, options: &[&str]) -> PathBuf {
    let data = dir.join("uftrace.data");
    run(Command::new("uftrace")
        .current_dir(dir)
        .arg("record")
        .arg("-d")
        .arg(&data)
        .args(options)
        .arg(exe));
    data
}

/// Our program `app` and its library built with `flags` in a fresh
/// directory `name`; None when uftrace is not installed.
fn build_own(name: &str, flags: &[&str]) -> Option<PathBuf> {
    tool("uftrace")?;
    let dir = fresh_dir("uftrace_data", name);
    std::fs::write(dir.join("lib.c"), LIB).unwrap();
    std::fs::write(dir.join("app.c"), APP).unwrap();
    compile(
        Command::new("gcc")
            .current_dir(&dir)
            .arg("-g")
            .args(flags)
            .args(["-fPIC", "-shared", "lib.c", "-o", "libdemo.so"]),
    );
    compile(
        Command::new("gcc")
            .current_dir(&dir)
            .arg("-g")
            .args(flags)
            .args(["app.c", "-L.", "-ldemo", "-lpthread", "-o", "app"])
            .arg(format!("-Wl,-rpath,{}", dir.display())),
    );
    Some(dir)
}

/// Our program and its library built with `flag` in a fresh directory
/// `name`, and recorded; None when uftrace is not installed.
fn own_program(name: &str, flag: &str) -> Option<PathBuf> {
    let dir = build_own(name, &[flag])?;
    Some(record(&dir, &dir.join("app"), &[]))
}

/// The `-finstrument-functions` recording, made once for the tests that
/// only read it (copy it before changing it).
fn shared_recording() -> Option<&'static Path> {
    static DATA: OnceLock<Option<PathBuf>> = OnceLock::new();
    DATA.get_or_init(|| own_program("instrument-functions", "-finstrument-functions"))
        .as_deref()
}

/// `uftrace report -f call`'s calls per function; schedule events
/// (`linux:schedule`, from the perf files calltrace does not read) aside.
fn uftrace_counts(data: &Path) -> BTreeMap<String, u64> {
    let report = run(Command::new("uftrace")
        .args(["report", "-f", "call", "-d"])
        .arg(data));
    let mut counts = BTreeMap::new();
    for line in report.lines().skip(2) {
        let (n, name) = line.trim_start().split_once(' ').expect("`CALLS NAME`");
        let name = name.trim_start();
        if !name.starts_with("linux:") {
            counts.insert(name.to_string(), n.parse().expect("a call count"));
        }
    }
    assert!(counts.contains_key("main"), "{report}");
    for (name, calls) in entered_of_remaining(data) {
        counts.insert(name, calls);
    }
    counts
}

/// The functions `uftrace replay` says were still open when tracing
/// stopped, each with the entries replay shows of it. `uftrace report`
/// counts such a function once more than it was entered when the
/// recording closed it at exit too (`main` of a program of 1,500 threads,
/// now and then): replay's entry lines are what the data holds.
fn entered_of_remaining(data: &Path) -> BTreeMap<String, u64> {
    let replay = run(Command::new("uftrace").args(["replay", "-d"]).arg(data));
    let Some((lines, tail)) = replay.split_once("uftrace stopped tracing with remaining functions")
    else {
        return BTreeMap::new();
    };
    let remaining: std::collections::BTreeSet<&str> = tail
        .lines()
        .filter_map(|l| l.trim().strip_prefix('['))
        .filter_map(|l| l.split_once("] ").map(|(_, name)| name.trim()))
        .collect();
    let mut entered = BTreeMap::new();
    for line in lines.lines() {
        let Some((_, call)) = line.split_once("| ") else {
            continue;
        };
        let call = call.trim_start();
        let name = call
            .strip_suffix("() {")
            .or_else(|| call.strip_suffix("();"));
        if let Some(name) = name.filter(|n| remaining.contains(n)) {
            *entered.entry(name.to_string()).or_insert(0) += 1;
        }
    }
    entered
}

/// calltrace's calls per function: the JSON export's contexts tree, summed by name.
fn calltrace_counts(data: &Path) -> BTreeMap<String, u64> {
    let out = calltrace(["export", "--to", "json", "-o", "-", "--trace"])
        .args([data])
        .run()
        .success();
    json_counts(&out.stdout)
}

/// The calls per function of the JSON export `json`, summed by name.
fn json_counts(json: &[u8]) -> BTreeMap<String, u64> {
    let tree: serde_json::Value = serde_json::from_slice(json).expect("JSON");
    assert_eq!(tree["unit"], "ns");
    let mut counts = BTreeMap::new();
    let mut todo: Vec<&serde_json::Value> = vec![&tree];
    while let Some(node) = todo.pop() {
        if let Some(name) = node["name"].as_str().filter(|n| !n.starts_with('[')) {
            *counts.entry(name.to_string()).or_insert(0) += node["calls"].as_u64().unwrap();
        }
        todo.extend(node["children"].as_array().into_iter().flatten());
    }
    counts
}

#[test]
fn call_counts_equal_uftrace_reports_for_a_program_built_with_pg() {
    let Some(data) = own_program("pg", "-pg") else {
        return;
    };
    let ours = calltrace_counts(&data);
    assert_eq!(ours, uftrace_counts(&data));
    // fib(n) makes 2 fib(n + 1) - 1 calls: fib(4), fib(5), fib(6) and fib(10).
    assert_eq!(ours["fib"], 9 + 15 + 25 + 177);
    assert_eq!(ours["lib_square"], 4 + 5 + 6);
}

#[test]
fn call_counts_equal_uftrace_reports_for_a_program_built_with_finstrument_functions() {
    let Some(data) = shared_recording() else {
        return;
    };
    let ours = calltrace_counts(data);
    assert_eq!(ours, uftrace_counts(data));
    assert_eq!(ours["worker"], 3);
}

#[test]
fn call_counts_equal_uftrace_reports_for_zlib_built_with_pg() {
    if tool("uftrace").is_none() {
        return;
    }
    let src = run(Command::new(root().join("scripts/third-party.sh")).arg("zlib"));
    let src = PathBuf::from(src.trim());
    let dir = fresh_dir("uftrace_data", "zlib");
    compile(
        Command::new("gcc")
            .args(["-O2", "-g", "-pg", "-fPIC", "-shared", "-I"])
            .arg(&src)
            .args(ZLIB_FILES.iter().map(|f| src.join(f)))
            .arg("-o")
            .arg(dir.join("libz.so")),
    );
    compile(
        Command::new("gcc")
            .args(["-g", "-pg", "-I"])
            .arg(&src)
            .arg(root().join("testdata/zlib/zround.c"))
            .arg("-L")
            .arg(&dir)
            .args(["-lz", &format!("-Wl,-rpath,{}", dir.display()), "-o"])
            .arg(dir.join("zround")),
    );
    let data = record(&dir, &dir.join("zround"), &[]);
    let ours = calltrace_counts(&data);
    assert_eq!(ours, uftrace_counts(&data));
    assert!(
        ours["deflate"] > 1 && ours.contains_key("crc32"),
        "{ours:?}"
    );
    assert!(ours.values().sum::<u64>() > 1000, "{ours:?}");
}

#[test]
fn graph_tree_and_chrome_export_read_a_recording_in_nanoseconds() {
    let Some(data) = shared_recording() else {
        return;
    };
    let tree = calltrace(["tree", "--trace"])
        .args([data])
        .run()
        .success()
        .text();
    assert!(tree.contains("\n  main ("), "{tree}");
    assert!(tree.contains("    fib ("), "{tree}");
    let dot = calltrace(["graph", "--style", "plain", "-o", "-", "--trace"])
        .args([data])
        .run()
        .success()
        .text();
    assert!(
        dot.contains("\"lib_sum\"") && dot.contains("\"worker\""),
        "{dot}"
    );
    // `--format uftrace` names the format the sniffing found.
    let forced = calltrace(["tree", "--format", "uftrace", "--trace"])
        .args([data])
        .run()
        .success()
        .text();
    assert_eq!(forced, tree);
    // main's duration in the Chrome export (microseconds) is the one
    // uftrace reports, to its last digit (it cuts, not rounds): the
    // recording's times are nanoseconds.
    let chrome = calltrace(["export", "--to", "chrome", "-o", "-", "--trace"])
        .args([data])
        .run()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&chrome.stdout).expect("JSON");
    let events = json["traceEvents"].as_array().unwrap();
    let main = events.iter().find(|e| e["name"] == "main").expect("main");
    let ours_us = main["dur"].as_f64().unwrap();
    let report = run(Command::new("uftrace")
        .args(["report", "-f", "total", "-F", "main", "-D", "1", "-d"])
        .arg(data));
    let line = report
        .lines()
        .find(|l| l.ends_with(" main"))
        .expect(&report);
    let mut words = line.split_whitespace();
    let value: f64 = words.next().unwrap().parse().unwrap();
    let unit_us = match words.next().unwrap() {
        "ns" => 1e-3,
        "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        other => panic!("unit {other}"),
    };
    let theirs_us = value * unit_us;
    assert!(
        (ours_us - theirs_us).abs() <= 0.001 * unit_us + 1e-9,
        "main: {ours_us} us here, {line} in uftrace's report"
    );
}

/// A copy of the shared recording in a fresh directory named `name`.
fn copy_of_recording(name: &str) -> Option<PathBuf> {
    let data = shared_recording()?;
    let dir = fresh_dir("uftrace_data", name).join("uftrace.data");
    std::fs::create_dir_all(&dir).unwrap();
    for file in listing(data) {
        std::fs::copy(data.join(&file), dir.join(&file)).unwrap();
    }
    Some(dir)
}

#[test]
fn a_cut_off_dat_file_is_an_error_naming_it_and_the_byte() {
    let Some(data) = copy_of_recording("truncated") else {
        return;
    };
    let dat = listing(&data)
        .into_iter()
        .find(|f| f.ends_with(".dat") && f.as_bytes()[0].is_ascii_digit())
        .expect("a thread's .dat file");
    let path = data.join(&dat);
    let len = std::fs::metadata(&path).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(len - 7).unwrap();
    let msg = calltrace(["tree", "--trace"]).args([&data]).run().failure();
    let at = len - 16;
    assert!(
        msg.contains(&format!(
            "{dat}: byte {at} (record {}): expected a 16-byte record, found 9 byte(s)",
            at / 16
        )),
        "{msg}"
    );
    // --lenient reads the rest and says what it skipped.
    let out = calltrace(["tree", "--lenient", "--trace"])
        .args([&data])
        .run()
        .success();
    assert!(out.stderr.contains("skipped 1 malformed"), "{}", out.stderr);
}

#[test]
fn a_recording_without_its_task_file_is_an_error_naming_it() {
    let Some(data) = copy_of_recording("no-task") else {
        return;
    };
    std::fs::remove_file(data.join("task.txt")).unwrap();
    let msg = calltrace(["graph", "-o", "-", "--trace"])
        .args([&data])
        .run()
        .failure();
    assert!(
        msg.contains(&format!(
            "{}: No such file",
            data.join("task.txt").display()
        )),
        "{msg}"
    );
}

#[test]
fn a_file_given_as_a_uftrace_recording_is_refused_with_what_to_give() {
    let (_dir, file) = temp_file("trace.txt", "E main\nX main\n");
    let msg = calltrace(["tree", "--format", "uftrace", "--trace"])
        .args([&file])
        .run()
        .failure();
    assert!(
        msg.contains("a uftrace recording is a directory (`uftrace record -d DIR` writes one)"),
        "{msg}"
    );
}

/// A plug-in loaded with dlopen, called through a pointer from main.
const PLUGIN: &str = r#"
int plug_leaf(int x) { return x + 1; }
int plug_run(int n) { int s = 0; for (int i = 0; i < n; i++) s += plug_leaf(i); return s; }
"#;

const DLOPEN_MAIN: &str = r#"
#include <dlfcn.h>
#include <stdio.h>
static int local(int x) { return x * 3; }
int main(int argc, char **argv) {
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) { puts(dlerror()); return 1; }
    int (*run)(int) = (int (*)(int))dlsym(h, "plug_run");
    printf("%d\n", run(5) + run(2) + local(2));
    dlclose(h);
    return 0;
}
"#;

/// A library loaded with dlopen is not in the session's map (written at
/// the start): its `DLOP` line in task.txt places it.
#[test]
fn call_counts_equal_uftrace_reports_for_a_library_loaded_with_dlopen() {
    if tool("uftrace").is_none() {
        return;
    }
    let dir = fresh_dir("uftrace_data", "dlopen");
    std::fs::write(dir.join("plug.c"), PLUGIN).unwrap();
    std::fs::write(dir.join("main.c"), DLOPEN_MAIN).unwrap();
    compile(Command::new("gcc").current_dir(&dir).args([
        "-g",
        "-pg",
        "-fPIC",
        "-shared",
        "plug.c",
        "-o",
        "libplug.so",
    ]));
    compile(
        Command::new("gcc")
            .current_dir(&dir)
            .args(["-g", "-pg", "main.c", "-ldl", "-o", "main"]),
    );
    let data = dir.join("uftrace.data");
    run(Command::new("uftrace")
        .current_dir(&dir)
        .args(["record", "-d"])
        .arg(&data)
        .arg(dir.join("main"))
        .arg(dir.join("libplug.so")));
    let tasks = std::fs::read_to_string(data.join("task.txt")).unwrap();
    assert!(tasks.contains("DLOP "), "{tasks}");
    let ours = calltrace_counts(&data);
    assert_eq!(ours, uftrace_counts(&data));
    assert_eq!((ours["plug_run"], ours["plug_leaf"]), (2, 7));
}

/// The recorded program and library moved away: `--search-path` finds
/// them by file name, as for calltrace's own traces.
#[test]
fn moved_objects_are_found_through_the_search_path() {
    let Some(data) = own_program("moved", "-finstrument-functions") else {
        return;
    };
    let dir = data.parent().unwrap();
    let away = dir.join("away");
    std::fs::create_dir_all(&away).unwrap();
    for file in ["app", "libdemo.so"] {
        std::fs::rename(dir.join(file), away.join(file)).unwrap();
    }
    let lost = calltrace(["tree", "--trace"]).args([&data]).run().success();
    assert!(!lost.text().contains("lib_square ("), "{}", lost.text());
    assert!(lost.text().contains("libdemo.so+0x"), "{}", lost.text());
    let found = calltrace(["tree", "--search-path"])
        .args([&away])
        .args(["--trace"])
        .args([&data])
        .run()
        .success();
    assert!(found.text().contains(" lib_square ("), "{}", found.text());
    assert!(found.text().contains("\n    fib ("), "{}", found.text());
}

/// `compare` takes a recording as one pattern, bare or named, where a
/// directory of trace files gives one pattern per file.
#[test]
fn compare_takes_a_recording_directory_as_one_pattern() {
    let (Some(data), Some(copy)) = (shared_recording(), copy_of_recording("compare")) else {
        return;
    };
    let out = fresh_dir("uftrace_data", "compare-out");
    calltrace(["compare", "--modules", "auto", "--out-dir"])
        .args([&out])
        .args([data])
        .args([format!("second={}", copy.display())])
        .run()
        .success();
    let rates = std::fs::read_to_string(out.join("rates.csv")).unwrap();
    let patterns: Vec<&str> = rates
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .collect();
    assert!(
        patterns.contains(&"uftrace") && patterns.contains(&"second"),
        "{rates}"
    );
}

/// `calltrace tree uftrace.data`, the recording given where the program
/// goes, says where it belongs.
#[test]
fn a_recording_given_as_the_binary_is_pointed_to_trace() {
    let Some(data) = shared_recording() else {
        return;
    };
    let msg = calltrace(["tree"]).args([data]).run().failure();
    let name = data.display();
    assert_eq!(
        msg,
        format!("{name} is a uftrace recording; did you mean `--trace {name}`?")
    );
}

/// Tracing without rebuilding for calltrace's runtime: uftrace patches a
/// program's functions as it starts (`uftrace record -P`), whether it was
/// built with `-fpatchable-function-entry` (nops where the calls go),
/// with `-pg`, or with no option at all (uftrace moves the first
/// instructions aside), and calltrace reads what it recorded.
#[test]
fn call_counts_equal_uftrace_reports_for_programs_patched_when_recorded() {
    for (name, flags) in [
        ("patch-none", &[][..]),
        ("patch-entry", &["-fpatchable-function-entry=5"][..]),
        ("patch-pg", &["-pg"][..]),
    ] {
        let Some(dir) = build_own(name, flags) else {
            return;
        };
        // Every function of the program and of its library (`.@MODULE`).
        let patch = ["-P", ".", "-P", ".@libdemo.so"];
        let data = record(&dir, &dir.join("app"), &patch);
        let ours = calltrace_counts(&data);
        assert_eq!(ours, uftrace_counts(&data), "{name}");
        // fib(n) makes 2 fib(n + 1) - 1 calls: fib(4), fib(5), fib(6) and fib(10).
        assert_eq!(ours["fib"], 9 + 15 + 25 + 177, "{name}");
        assert_eq!(
            (ours["worker"], ours["lib_square"]),
            (3, 4 + 5 + 6),
            "{name}"
        );
    }
}

/// Threads made and joined 100 at a time, 1,500 in all.
const MANY_THREADS: &str = r#"
#include <pthread.h>
#include <stdio.h>
static int leaf(int x) { return x + 1; }
static void *worker(void *arg) { return (void *)(long)leaf((int)(long)arg); }
int main(void) {
    long total = 0;
    for (int b = 0; b < 15; b++) {
        pthread_t t[100];
        for (long i = 0; i < 100; i++) pthread_create(&t[i], 0, worker, (void *)i);
        for (int i = 0; i < 100; i++) { void *r; pthread_join(t[i], &r); total += (long)r; }
    }
    printf("%ld\n", total);
    return 0;
}
"#;

/// A recording of 1,500 threads has 1,500 `.dat` files, which were all
/// opened at once: under the usual soft limit of 1,024 open files (256
/// here) the read failed with "Too many open files".
#[test]
fn a_recording_of_1500_threads_reads_under_an_open_file_limit_of_256() {
    if tool("uftrace").is_none() {
        return;
    }
    let dir = fresh_dir("uftrace_data", "threads-1500");
    std::fs::write(dir.join("many.c"), MANY_THREADS).unwrap();
    compile(Command::new("gcc").current_dir(&dir).args([
        "-g",
        "-pg",
        "many.c",
        "-lpthread",
        "-o",
        "many",
    ]));
    let data = record(&dir, &dir.join("many"), &[]);
    let dats = listing(&data)
        .iter()
        .filter(|f| f.ends_with(".dat"))
        .count();
    assert!(dats > 1500, "{dats} .dat files");
    let out = output_within(
        Command::new("sh")
            .arg("-c")
            .arg("ulimit -n 256 && exec \"$0\" \"$@\"")
            .arg(BIN)
            .args(["export", "--to", "json", "-o", "-", "--trace"])
            .arg(&data),
        120,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let ours = json_counts(&out.stdout);
    assert_eq!(ours, uftrace_counts(&data));
    assert_eq!((ours["worker"], ours["leaf"]), (1500, 1500));
}
