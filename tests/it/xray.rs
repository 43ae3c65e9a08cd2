//! LLVM XRay basic-mode logs of real programs: `testdata/` built with
//! `clang -fxray-instrument -fxray-instruction-threshold=1`, run with
//! XRay's basic mode, the `xray-log.*` read by calltrace with the
//! program. Per-function counts and times must equal what
//! `llvm-xray account` makes of the same log, names those of `nm -C`, and
//! a threaded program's call graph that of its gcc build under calltrace's
//! own runtime. Skipped without clang, its XRay runtime
//! (`libclang_rt.xray`) or `llvm-xray`, unless `CALLTRACE_REQUIRE_TOOLS=1`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::{calltrace, fresh_dir, graph, listing, output_within, root, threads, tool};

/// One instrumented program and the log of one run.
struct Run {
    exe: PathBuf,
    log: PathBuf,
}

impl Run {
    fn exe(&self) -> &str {
        self.exe.to_str().expect("UTF-8 path")
    }
}

/// `llvm-xray`, under its plain name or a versioned one (`llvm-xray-14`).
fn llvm_xray() -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    let versioned = std::env::split_paths(&paths).find_map(|d| {
        let mut found: Vec<PathBuf> = std::fs::read_dir(&d)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n == "llvm-xray" || n.starts_with("llvm-xray-"))
            })
            .collect();
        found.sort();
        found.into_iter().next()
    });
    versioned.or_else(|| tool("llvm-xray"))
}

/// Builds `sources` (under the repository) with `compiler` and XRay at
/// `opt` into a fresh directory named `name`, runs it in basic mode there
/// and returns the program and its log; None (after a note) when clang
/// or its XRay runtime is missing.
fn xray_run(
    name: &str,
    compiler: &str,
    sources: &[&str],
    opt: &str,
    extra: &[&str],
) -> Option<Run> {
    tool(compiler)?;
    let dir = fresh_dir("xray", name);
    let exe = dir.join(name);
    let out = Command::new(compiler)
        .args([
            "-g",
            opt,
            "-fxray-instrument",
            "-fxray-instruction-threshold=1",
        ])
        .args(sources.iter().map(|s| root().join(s)))
        .args(extra)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run clang");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("libclang_rt.xray") {
        assert!(
            std::env::var("CALLTRACE_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "clang's XRay runtime is required (CALLTRACE_REQUIRE_TOOLS=1): install libclang-rt-dev"
        );
        eprintln!("skipped: clang's XRay runtime (libclang_rt.xray) is not installed");
        return None;
    }
    assert!(out.status.success(), "{compiler} failed:\n{stderr}");
    let ran = output_within(
        Command::new(&exe)
            .current_dir(&dir)
            .env("XRAY_OPTIONS", "patch_premain=true xray_mode=xray-basic")
            .env("XRAY_BASIC_OPTIONS", "func_duration_threshold_us=0"),
        60,
    );
    assert!(ran.status.success(), "{name} failed");
    let logs: Vec<String> = listing(&dir)
        .into_iter()
        .filter(|f| f.starts_with("xray-log."))
        .collect();
    assert_eq!(logs.len(), 1, "one log in {dir:?}: {logs:?}");
    Some(Run {
        log: dir.join(&logs[0]),
        exe,
    })
}

/// What `llvm-xray account` says of each function: calls and the sum of
/// their durations in nanoseconds, by name.
fn account(xray: &Path, run: &Run) -> BTreeMap<String, (u64, f64)> {
    let out = Command::new(xray)
        .arg("account")
        .arg(&run.log)
        .arg(format!("--instr_map={}", run.exe()))
        .arg("--format=csv")
        .output()
        .expect("run llvm-xray account");
    assert!(
        out.status.success(),
        "llvm-xray account: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Not read as CSV: account quotes the names without doubling their
    // quotes (`"operator"" _km(unsigned long long)"`). The eight numbers
    // come first, then the quoted source location and name.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.splitn(9, ',').collect();
            assert_eq!(f.len(), 9, "{line}");
            let (_, name) = f[8].split_once("\",\"").expect("location, name");
            let name = name.strip_suffix('"').expect("a quoted name");
            let sum: f64 = f[7].parse().expect("sum");
            (name.to_string(), (f[1].parse().expect("count"), sum * 1e9))
        })
        .collect()
}

/// `calltrace stats --csv` of the run: calls, total and mean in ns by name.
fn stats(run: &Run) -> BTreeMap<String, (u64, u64, u64)> {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("stats.csv");
    calltrace(["stats", run.exe(), "--trace"])
        .args([&run.log])
        .args(["--csv".as_ref(), csv.as_os_str()])
        .run()
        .success();
    let mut r = csv::Reader::from_path(&csv).expect("stats CSV");
    r.records()
        .map(|rec| {
            let rec = rec.expect("stats row");
            let n = |i: usize| rec[i].parse::<u64>().expect("a number");
            (rec[0].to_string(), (n(1), n(2), n(5)))
        })
        .collect()
}

/// Calls into each function along the edges of `calltrace graph --csv`.
fn calls_in(edges: &[(String, String, u64)]) -> BTreeMap<String, u64> {
    let mut calls = BTreeMap::new();
    for (_, callee, n) in edges {
        *calls.entry(callee.clone()).or_insert(0) += n;
    }
    calls
}

/// The names `nm -C` gives the program's functions.
fn nm_names(exe: &str) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-C", exe])
        .output()
        .expect("run nm");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, ' ');
            let (_, kind, name) = (f.next()?, f.next()?, f.next()?);
            matches!(kind, "T" | "t" | "W" | "w").then(|| name.to_string())
        })
        .collect()
}

/// Checks calltrace's reading of `run` against `llvm-xray account`:
/// every function with its count, its total within 1% (the per-call mean
/// times the calls, so that a recursive function's nested calls count as
/// account counts them), the graph's calls into each called function, and
/// every name one of `nm -C`'s. Returns the functions compared.
#[track_caller]
fn check_against_account(xray: &Path, run: &Run) -> usize {
    let expected = account(xray, run);
    let got = stats(run);
    let want: BTreeMap<String, u64> = expected.iter().map(|(f, &(n, _))| (f.clone(), n)).collect();
    let have: BTreeMap<String, u64> = got.iter().map(|(f, &(n, _, _))| (f.clone(), n)).collect();
    assert_eq!(have, want, "calls per function");
    for (f, &(calls, _, mean)) in &got {
        let sum = expected[f].1;
        let ours = (mean * calls) as f64;
        assert!(
            (ours - sum).abs() <= sum * 0.01 + calls as f64,
            "{f}: {ours} ns against account's {sum} ns"
        );
    }
    let g = graph(run.exe(), &run.log);
    for (callee, n) in calls_in(&g.edges()) {
        assert_eq!(Some(&n), want.get(&callee), "calls into {callee}");
    }
    let nm = nm_names(run.exe());
    for f in got.keys() {
        assert!(nm.contains(f), "{f} is not a name of `nm -C`");
    }
    got.len()
}

const HELLO: &[&str] = &[
    "testdata/hello/main.c",
    "testdata/hello/shapes.c",
    "testdata/hello/util.c",
];

#[test]
fn a_c_programs_counts_and_times_equal_llvm_xray_accounts_at_o0_and_o2() {
    let Some(xray) = llvm_xray() else { return };
    let Some(o0) = xray_run("hello-o0", "clang", HELLO, "-O0", &[]) else {
        return;
    };
    // Every function of hello at -O0, factorial's recursion included.
    assert_eq!(check_against_account(&xray, &o0), 12);
    let Some(o2) = xray_run("hello-o2", "clang", HELLO, "-O2", &[]) else {
        return;
    };
    let n = check_against_account(&xray, &o2);
    assert!((2..12).contains(&n), "-O2 inlines some of hello: {n}");
}

#[test]
fn a_cpp_programs_counts_and_names_equal_llvm_xray_accounts() {
    let Some(xray) = llvm_xray() else { return };
    let Some(run) = xray_run("names", "clang++", &["testdata/cpp/names.cpp"], "-O0", &[]) else {
        return;
    };
    assert!(check_against_account(&xray, &run) >= 20);
    let got = stats(&run);
    for f in [
        "ns::Box<int>::get() const",
        "(anonymous namespace)::helper(int)",
        "ns::operator+(ns::Point const&, ns::Point const&)",
    ] {
        assert!(got.contains_key(f), "{f} in {:?}", got.keys());
    }
}

#[test]
fn a_threaded_programs_graph_is_that_of_its_gcc_build() {
    // llvm-xray account refuses a log of several threads, whose blocks are
    // not in time order; calltrace's own runtime is the reference here.
    let Some(run) = xray_run(
        "threads",
        "clang",
        &["testdata/threads/threads.c"],
        "-O0",
        &["-pthread"],
    ) else {
        return;
    };
    let gcc = threads();
    let functions_only = |edges: Vec<(String, String, u64)>| -> Vec<_> {
        edges
            .into_iter()
            .filter(|(a, _, _)| !a.starts_with('['))
            .collect()
    };
    let ours = graph(run.exe(), &run.log);
    let theirs = graph(gcc.exe(), &gcc.text_trace().path);
    assert_eq!(functions_only(ours.edges()), functions_only(theirs.edges()));
    let roots = |edges: Vec<(String, String, u64)>| -> BTreeSet<String> {
        edges
            .into_iter()
            .filter(|(a, _, _)| a.starts_with('['))
            .map(|(_, b, _)| b)
            .collect()
    };
    assert_eq!(
        roots(ours.edges()),
        roots(theirs.edges()),
        "each thread's first function"
    );
}

#[test]
fn a_malformed_log_exits_2_naming_the_file_and_the_record() {
    let Some(run) = xray_run("broken", "clang", HELLO, "-O0", &[]) else {
        return;
    };
    let bytes = std::fs::read(&run.log).expect("read the log");
    let dir = tempfile::tempdir().expect("temp dir");
    let fail = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write log");
        let msg = calltrace(["graph", run.exe(), "--trace"])
            .args([&path])
            .run()
            .failure();
        assert!(msg.contains(path.to_str().unwrap()), "{msg}");
        msg
    };
    let records = bytes.len() / 32 - 1;
    let cut = fail("xray-log.cut", &bytes[..bytes.len() - 7]);
    assert!(
        cut.contains(&format!("record {records} (byte {})", records * 32)),
        "{cut}"
    );
    assert!(cut.contains("ends 25 bytes into"), "{cut}");
    let mut v9 = bytes.clone();
    v9[0] = 9;
    let version = fail("xray-log.v9", &v9);
    assert!(version.contains("header: XRay log version 9"), "{version}");
    let mut typed = bytes.clone();
    typed[32 + 3] = 7;
    assert!(fail("xray-log.typed", &typed).contains("record 1 (byte 32): entry type 7"));
    // Read leniently, the cut record is skipped and counted.
    let lenient = calltrace(["stats", run.exe(), "--lenient", "--trace"])
        .args([dir.path().join("xray-log.cut")])
        .run()
        .success();
    assert!(
        lenient.stderr.contains("skipped 1 malformed record(s)"),
        "{}",
        lenient.stderr
    );
}

#[test]
fn a_log_without_its_program_or_with_another_says_what_names_it() {
    let Some(run) = xray_run("unnamed", "clang", HELLO, "-O0", &[]) else {
        return;
    };
    let alone = calltrace(["graph", "--trace"])
        .args([&run.log])
        .run()
        .failure();
    assert!(
        alone.contains("LLVM XRay log") && alone.contains("BINARY"),
        "{alone}"
    );
    // A gcc build has no instrumentation map.
    let gcc = super::util::hello_pie();
    let other = calltrace(["graph", gcc.exe(), "--trace"])
        .args([&run.log])
        .run()
        .failure();
    assert!(other.contains("has no xray_instr_map section"), "{other}");
}

#[test]
fn an_object_given_with_an_xray_log_is_said_to_be_unused() {
    let Some(run) = xray_run("object", "clang", HELLO, "-O0", &[]) else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let out = calltrace(["graph", run.exe(), "--trace"])
        .args([&run.log])
        .args(["--object", run.exe(), "-o"])
        .args([dir.path().join("g.dot")])
        .run()
        .success();
    assert!(
        out.stderr.contains("--object is not used for an XRay log"),
        "{}",
        out.stderr
    );
}
