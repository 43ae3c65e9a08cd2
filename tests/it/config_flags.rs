//! Flags that mean the same in every command: every share (`--min-total`,
//! `--min-edge`, `--threshold`) reads `5%` and `0.05` alike and refuses a
//! bare `5` with a hint, and the flags every trace-reading command shares
//! (`--quiet`, `--threads`, `--time-unit` where times are printed) exist in
//! each of them.

use std::path::Path;

use super::util::*;

/// `main` calls `a` (59% of the run, through `a2`), `b` (4%) and `c` (1%):
/// a 5% cut keeps `a` and drops `b` and `c`, a 3% cut keeps `b` too.
const TRACE: &str =
    "E main 0\nE a 1\nE a2 2\nX a2 40\nX a 60\nE b 61\nX b 65\nE c 66\nX c 67\nX main 100\n";

/// Runs `calltrace ARGS --trace TRACE` in `dir` and returns its stdout and
/// the bytes of the files it wrote under `dir/out`.
#[track_caller]
fn run_share(args: &[&str], trace: &Path, dir: &Path) -> (String, Vec<(String, Vec<u8>)>) {
    let out_dir = dir.join("out");
    let _ = std::fs::remove_dir_all(&out_dir);
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = calltrace(args)
        .args([Path::new("--trace"), trace])
        .current_dir(&out_dir)
        .run()
        .success();
    let mut files = Vec::new();
    for name in listing(&out_dir) {
        let bytes = std::fs::read(out_dir.join(&name)).unwrap_or_default();
        files.push((name, bytes));
    }
    (out.text(), files)
}

/// Every share flag of every command, with the command's other arguments.
fn share_flags() -> Vec<(Vec<&'static str>, &'static str)> {
    let export = vec!["export", "--to", "folded", "-o", "-"];
    vec![
        (vec!["graph", "-o", "-"], "--min-total"),
        (vec!["graph", "-o", "-", "--min-total", "0%"], "--min-edge"),
        (vec!["abstract", "-o", "-"], "--threshold"),
        (vec!["abstract", "-o", "-"], "--min-total"),
        (export.clone(), "--threshold"),
        (export, "--min-total"),
    ]
}

#[test]
fn shares_read_as_percent_and_fraction_give_identical_output_in_every_command() {
    let (dir, trace) = temp_file("t.trace", TRACE);
    for (args, flag) in share_flags() {
        let with = |v: &'static str| [&args[..], &[flag, v]].concat();
        let percent = run_share(&with("5%"), &trace, dir.path());
        let fraction = run_share(&with("0.05"), &trace, dir.path());
        assert_eq!(percent, fraction, "{args:?} {flag}");
        let other = run_share(&with("99%"), &trace, dir.path());
        assert_ne!(percent, other, "{args:?} {flag} changes the output");
    }
}

#[test]
fn compare_reads_shares_as_percent_and_fraction_alike() {
    let (dir, trace) = temp_file("t.trace", TRACE);
    let out = |threshold: &str, min_total: &str| {
        let out_dir = dir.path().join(format!("cmp-{threshold}-{min_total}"));
        calltrace([
            "compare",
            "--threshold",
            threshold,
            "--min-total",
            min_total,
        ])
        .args([Path::new("--out-dir"), &out_dir, &trace])
        .run()
        .success();
        let rates = std::fs::read_to_string(out_dir.join("rates.csv")).unwrap();
        let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
        (rates, html)
    };
    let percent = out("80%", "5%");
    assert_eq!(percent, out("0.8", "0.05"));
    assert_ne!(percent.0, out("80%", "50%").0, "--min-total is read");
}

#[test]
fn a_bare_number_above_one_is_refused_with_a_hint_in_every_command() {
    let (dir, trace) = temp_file("t.trace", TRACE);
    let mut cases = share_flags();
    cases.push((vec!["compare", "--out-dir", "o"], "--threshold"));
    cases.push((vec!["compare", "--out-dir", "o"], "--min-total"));
    for (args, flag) in cases {
        let out = calltrace([&args[..], &[flag, "5"]].concat())
            .args([&trace])
            .current_dir(dir.path())
            .run();
        assert_eq!(out.code, 2, "{args:?} {flag}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?} {flag}");
        assert!(
            out.stderr.contains(flag)
                && out
                    .stderr
                    .contains("\"5\" is not a share: did you mean 5%?"),
            "{args:?} {flag}: {}",
            out.stderr
        );
    }
    assert!(!dir.path().join("o").exists(), "compare wrote nothing");
}

#[test]
fn abstract_shows_tree_out_times_in_the_time_unit_asked_for() {
    let (dir, trace) = temp_file("t.trace", TRACE);
    let mut seen = Vec::new();
    for unit in ["ns", "us", "auto"] {
        let tree = calltrace(["tree", "--time-unit", unit, "--trace"])
            .args([&trace])
            .run()
            .success()
            .text();
        // A threshold of 100% keeps every call: the same tree as `tree`'s.
        let abstracted = calltrace(["abstract", "--threshold", "100%", "--tree-out", "-"])
            .args(["--time-unit", unit, "--trace"])
            .args([&trace])
            .current_dir(dir.path())
            .run()
            .success()
            .text();
        assert_eq!(abstracted, tree, "--time-unit {unit}");
        seen.push(abstracted);
    }
    assert!(seen[1].contains(" us /"), "{}", seen[1]);
    assert_ne!(seen[0], seen[1]);
}

/// Two small patterns in `dir`.
fn two_patterns(dir: &Path) -> [std::path::PathBuf; 2] {
    let a = dir.join("a.trace");
    let b = dir.join("b.trace");
    std::fs::write(&a, TRACE).unwrap();
    std::fs::write(&b, TRACE.replace("E c 66\nX c 67\n", "E d 66\nX d 68\n")).unwrap();
    [a, b]
}

#[test]
fn compare_output_is_the_same_for_any_number_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    let patterns = two_patterns(dir.path());
    let run = |threads: &str| {
        let out_dir = dir.path().join(format!("out-{threads}"));
        let stdout = calltrace(["compare", "--threads", threads, "--out-dir"])
            .args([&out_dir])
            .args(&patterns)
            .run()
            .success()
            .text();
        let files: Vec<_> = listing(&out_dir)
            .into_iter()
            .map(|n| (std::fs::read(out_dir.join(&n)).unwrap(), n))
            .collect();
        assert!(files.len() >= 6, "{files:?}");
        (stdout, files)
    };
    assert_eq!(run("1"), run("2"));
    let err = calltrace(["compare", "--threads", "2000", "a.trace"]).run();
    assert_eq!(err.code, 2);
    assert!(err.stderr.contains("--threads"), "{}", err.stderr);
}

#[test]
fn compare_quiet_draws_no_progress_bar_on_a_terminal() {
    let Some(script) = tool("script") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let [a, b] = two_patterns(dir.path());
    let run = |extra: &str| {
        let cmd = format!(
            "{} compare {} {} --out-dir out{} {extra}",
            env!("CARGO_BIN_EXE_calltrace"),
            a.display(),
            b.display(),
            extra.len()
        );
        // `script` gives calltrace a terminal and copies what it drew.
        let out = std::process::Command::new(&script)
            .args(["-qec", &cmd, "/dev/null"])
            .current_dir(dir.path())
            .output()
            .expect("run script");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shown = run("");
    assert!(shown.contains("2/2 patterns"), "{shown}");
    let quiet = run("--quiet");
    assert!(!quiet.contains("patterns  "), "{quiet}");
    assert!(
        quiet.contains("merge+threshold"),
        "the table is still printed"
    );
}
