//! Names and calling contexts in `stats` and `diff`: a name holding the
//! path separator `;` (perf maps of JIT code have them) keeps a row of its
//! own, exactly named, in every format that allows it; and a deep
//! recursion's contexts stay within memory proportional to its tree, or
//! are refused with exit 2 naming the bound and the flags that lower it.
//! Address-space limits are deterministic, so the memory tests do not
//! depend on how loaded the machine is.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::*;

/// A symbolic trace where `main` calls `a;b` (10 ns) and `a:b` (20 ns).
fn semicolon_trace(dir: &Path) -> PathBuf {
    let path = dir.join("semi.txt");
    let text = "E main 1 1\nE a;b 10 1\nX a;b 20 1\nE a:b 30 1\nX a:b 50 1\nX main 100 1\n";
    std::fs::write(&path, text).unwrap();
    path
}

/// The rows of a CSV file as maps from column to cell.
fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).expect("the CSV was written");
    let header = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .map(String::from)
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect()
}

fn column(rows: &[BTreeMap<String, String>], name: &str) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(|r| r[name].clone()).collect();
    v.sort();
    v
}

/// Regression: `a;b` was shown as `a:b` and merged with the real `a:b`
/// (one row of 2 calls), and `--histogram 'a;b'` found nothing.
#[test]
fn stats_keeps_a_name_with_a_semicolon_apart_and_exact() {
    let dir = fresh_dir("context_paths", "stats_semicolon");
    let trace = semicolon_trace(&dir);
    let t = trace.to_str().unwrap();
    let csv = dir.join("s.csv");
    calltrace(["stats", "--trace", t, "--csv", csv.to_str().unwrap()])
        .run()
        .success();
    let rows = read_csv(&csv);
    assert_eq!(column(&rows, "function"), ["a:b", "a;b", "main"]);
    let semi = rows.iter().find(|r| r["function"] == "a;b").unwrap();
    assert_eq!(
        (semi["calls"].as_str(), semi["total_ns"].as_str()),
        ("1", "10")
    );
    let out = calltrace(["stats", "--trace", t, "--histogram", "a;b"])
        .run()
        .success();
    let text = out.text();
    assert!(text.starts_with("a;b: time per call, 1 call"), "{text}");
    // By context, the path escapes the `;` inside a name.
    let ctx = dir.join("c.csv");
    calltrace(["stats", "--by", "context", "--trace", t, "--csv"])
        .args([&ctx])
        .run()
        .success();
    let rows = read_csv(&ctx);
    assert_eq!(column(&rows, "path"), ["main", "main;a:b", r"main;a\;b"]);
    assert_eq!(column(&rows, "function"), ["a:b", "a;b", "main"]);
    let out = calltrace(["stats", "--by", "context", "--trace", t, "--histogram"])
        .args([r"main;a\;b"])
        .run()
        .success();
    assert!(out.text().contains("1 call; min 10 ns"), "{}", out.text());
}

/// Regression: `diff` merged `a;b` and `a:b` into one row in CSV and JSON.
#[test]
fn diff_keeps_a_name_with_a_semicolon_apart_in_csv_and_json() {
    let dir = fresh_dir("context_paths", "diff_semicolon");
    let trace = semicolon_trace(&dir);
    for by in ["function", "context"] {
        let (csv, json) = (
            dir.join(format!("{by}.csv")),
            dir.join(format!("{by}.json")),
        );
        calltrace(["diff", "--by", by])
            .args([&trace, &trace])
            .args(["--csv".as_ref(), csv.as_os_str()])
            .args(["--json".as_ref(), json.as_os_str()])
            .run()
            .success();
        let rows = read_csv(&csv);
        assert_eq!(column(&rows, "function"), ["a:b", "a;b", "main"], "{by}");
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let mut names: Vec<&str> = doc["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["function"].as_str().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a:b", "a;b", "main"], "{by}");
        if by == "context" {
            assert_eq!(column(&rows, "path"), ["main", "main;a:b", r"main;a\;b"]);
        }
    }
}

/// A symbolic trace of `main` and a recursion `depth` deep; each call
/// takes `step` ns of its own.
fn deep_trace(dir: &Path, name: &str, depth: usize, step: u64) -> PathBuf {
    let mut text = String::from("E main 1 1\n");
    let mut t = 2;
    for _ in 0..depth {
        text.push_str(&format!("E f {t} 1\n"));
        t += 1;
    }
    for _ in 0..depth {
        text.push_str(&format!("X f {t} 1\n"));
        t += step;
    }
    text.push_str(&format!("X main {t} 1\n"));
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs calltrace with `args` under an address-space limit of 1 GiB.
fn within_1gib(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    // SAFETY: setrlimit is async-signal-safe and touches no shared state.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    output_within(&mut cmd, 300)
}

fn os(args: &[&str]) -> Vec<std::ffi::OsString> {
    args.iter().map(Into::into).collect()
}

fn run_within(args: &[std::ffi::OsString]) -> (i32, String, String) {
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let out = within_1gib(&refs);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Regression: the contexts of a 40,000-deep recursion (a 0.9 MB trace)
/// were keyed by their `main;f;f;…` paths, 1.5 GiB in all: `diff --by
/// context` and `stats --by context` (even for a 25-row table) aborted
/// under a 1 GiB address-space limit, and `diff --flamegraph` had no
/// bound at all. Contexts are now parent links; the table writes the
/// paths of the rows it shows, the CSVs refuse paths past 256 MiB, and the
/// flame graph cuts its stacks at the depth that fits its bound.
#[test]
fn a_deep_recursion_stays_within_memory_in_stats_and_diff() {
    let dir = fresh_dir("context_paths", "deep");
    let deep = deep_trace(&dir, "deep.txt", 40_000, 1);
    let shallower = deep_trace(&dir, "shallower.txt", 20_000, 2);
    let (d, s) = (deep.to_str().unwrap(), shallower.to_str().unwrap());
    let (code, table, err) = run_within(&os(&["stats", "--by", "context", "--trace", d]));
    assert_eq!(code, 0, "stats --by context: {err}");
    assert!(table.starts_with("40001 contexts;"), "{}", &table[..200]);
    assert_eq!(table.lines().count(), 2 + 25 + 1, "25 rows and a count");
    let (code, table, err) = run_within(&os(&["diff", "--by", "context", d, s]));
    assert_eq!(code, 0, "diff --by context: {err}");
    assert!(table.contains("... and 19980 more"), "{table:.2000}");
    let svg = dir.join("d.svg");
    let (code, _, err) = run_within(&os(&["diff", d, s, "--flamegraph", svg.to_str().unwrap()]));
    assert_eq!(code, 0, "diff --flamegraph: {err}");
    assert!(err.contains("its stacks end at depth"), "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("stacks cut at depth"), "the picture says so");
    for args in [
        os(&["stats", "--by", "context", "--trace", d, "--csv"]),
        os(&["diff", "--by", "context", d, s, "--json"]),
    ] {
        let mut args = args;
        args.push(dir.join("rows.out").into_os_string());
        let (code, _, err) = run_within(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("256 MiB") && err.contains("--by function") && err.contains("--exclude"),
            "{err}"
        );
        assert!(!dir.join("rows.out").exists());
    }
    // The flag named lowers it: with the recursion left out, it is written.
    let csv = dir.join("kept.csv");
    let (code, _, err) = run_within(&os(&[
        "stats",
        "--by",
        "context",
        "--trace",
        d,
        "--exclude",
        "f",
        "--csv",
        csv.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(column(&read_csv(&csv), "path"), ["main"]);
}

/// A symbolic trace: `f` recursing `n` deep under `main`.
fn recursion(n: usize) -> String {
    let mut s = String::from("E main 0\n");
    for i in 1..=n {
        s += &format!("E f {i}\n");
    }
    for i in 1..=n {
        s += &format!("X f {}\n", n + i);
    }
    s + &format!("X main {}\n", 2 * n + 1)
}

/// Regression: `stats --by context` built every context's path string,
/// whose lengths add up to the square of the depth.
#[test]
fn stats_by_context_is_linear_in_the_depth_of_a_recursion() {
    let cmds: &[super::scaling::Cmd] = &[&["stats", "--by", "context"], &["stats"]];
    super::scaling::assert_linear("depth (a recursion)", cmds, recursion, 16_000);
}
