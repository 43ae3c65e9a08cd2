//! `calltrace export` at the edges: a trace cut off mid-line, outputs too
//! big to be useful, and trees too deep for a format that repeats each
//! calling context's whole path.

use super::util::*;

/// Every way export reads a trace (a tree, a tree through the filters,
/// and the streamed formats' two passes) says that a last line without a
/// line end is one the program was cut off in.
#[test]
fn every_export_says_a_cut_off_last_line_is_one() {
    let (dir, _) = temp_file("cut.txt", "E main 1 1\nE f 2 1\nX f 3 1\nX mai");
    for extra in [
        &["--to", "folded"][..],
        &["--to", "folded", "--tid", "1"],
        &["--to", "chrome"],
        &["--to", "perfetto"],
        &["--to", "tlv"],
        &["--to", "chrome", "--tid", "1"],
    ] {
        let out = calltrace(["export", "--trace", "cut.txt", "-o", "out"])
            .args(extra)
            .current_dir(dir.path())
            .run();
        assert_eq!(out.code, 2, "{extra:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("cut.txt:4: ")
                && out
                    .stderr
                    .contains("the program was cut off while writing it (--lenient skips it)"),
            "{extra:?}: {}",
            out.stderr
        );
        assert_eq!(listing(dir.path()), ["cut.txt"], "{extra:?}");
    }
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

/// pprof's samples and parquet's `path` column repeat each calling
/// context's whole path: a 40,000-deep recursion (a 0.8 MB trace) makes
/// 800 million frames. Under a 1 GB address-space limit both aborted
/// (parquet leaving two `.tmp` files); they are refused, naming the bound
/// and the flag that folds the recursion, and with that flag they fit.
#[test]
fn a_deep_recursion_is_refused_by_pprof_and_parquet_within_a_memory_limit() {
    let Some(prlimit) = tool("prlimit") else {
        return;
    };
    let (dir, trace) = temp_file("deep.trace", recursion(40_000));
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let run = |to: &str, extra: &[&str]| {
        let out = out_dir.join(format!("x.{to}"));
        let output = output_within(
            std::process::Command::new(&prlimit)
                .arg("--as=1073741824")
                .arg(BIN)
                .args(["export", "-q", "--to", to, "-o"])
                .arg(&out)
                .arg("--trace")
                .arg(&trace)
                .args(extra),
            120,
        );
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.code(), stderr, out)
    };
    for to in ["pprof", "parquet"] {
        let (code, stderr, out) = run(to, &[]);
        assert_eq!(code, Some(2), "{to}: {stderr}");
        assert!(
            stderr.contains("800.1 million frames")
                && stderr.contains("134.2 million")
                && stderr.contains("--fold-recursion"),
            "{to}: {stderr}"
        );
        assert!(!out.exists(), "{to}: nothing written");
        let tmp = |l: Vec<String>| l.into_iter().filter(|f| f.ends_with(".tmp")).count();
        assert_eq!(tmp(listing(&out_dir)), 0, "{to}: {:?}", listing(&out_dir));
        let (code, stderr, out) = run(to, &["--fold-recursion"]);
        assert_eq!(code, Some(0), "{to}: {stderr}");
        assert!(out.exists(), "{to}");
        assert_eq!(tmp(listing(&out_dir)), 0, "{to}: {:?}", listing(&out_dir));
        if out.is_dir() {
            assert_eq!(tmp(listing(&out)), 0, "{to}: {:?}", listing(&out));
        }
    }
}

/// A timeline export (every streamed format: chrome, perfetto, tlv) of a
/// small trace can be huge (a 200 KB input made 1.9 GB of Chrome JSON;
/// tlv writes two lines a call): past 1 GiB it warns and says
/// how to export a part, and still writes the file. The bound is lowered
/// for the test by `CALLTRACE_TEST_HUGE_OUTPUT`, so nothing writes a
/// gigabyte; without it these small outputs get no warning.
#[test]
fn a_huge_timeline_export_warns_and_suggests_cutting_the_trace() {
    let (dir, trace) = temp_file(
        "t.trace",
        "E main 1 1\nE f 2 1\nX f 3 1\nX main 4 1\nE w 2 2\nX w 5 2\n",
    );
    for (to, extra) in [
        ("chrome", &[][..]),
        ("perfetto", &[]),
        ("chrome", &["--threshold", "50%"]),
        ("perfetto", &["--view", "contexts"]),
        ("tlv", &[]),
    ] {
        let out = dir.path().join(format!("out.{to}"));
        let run = |limit: Option<&str>| {
            let mut cmd = std::process::Command::new(BIN);
            cmd.args(["export", "--to", to, "-o"])
                .arg(&out)
                .arg("--trace")
                .arg(&trace)
                .args(extra);
            if let Some(limit) = limit {
                cmd.env("CALLTRACE_TEST_HUGE_OUTPUT", limit);
            }
            let o = output_within(&mut cmd, 60);
            assert!(o.status.success(), "{to} {extra:?}: {o:?}");
            String::from_utf8_lossy(&o.stderr).into_owned()
        };
        let quiet = run(None);
        assert!(!quiet.contains("warning"), "{to} {extra:?}: {quiet}");
        let size = std::fs::metadata(&out).unwrap().len();
        let stderr = run(Some("100"));
        let want = format!(
            "calltrace: warning: --to {to} wrote {size} bytes (one event per call), more than viewers open with ease: give --time-range or --tid to export a part of the trace\n"
        );
        assert!(stderr.contains(&want), "{to} {extra:?}: {stderr}");
        assert_eq!(
            std::fs::metadata(&out).unwrap().len(),
            size,
            "still written"
        );
        let under = run(Some(&size.to_string()));
        assert!(!under.contains("warning"), "{to} {extra:?}: {under}");
    }
}
