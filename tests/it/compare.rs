//! `calltrace compare` on the shipped printer patterns
//! (`testdata/printer/traces`, recorded by `scripts/make-patterns.sh` and
//! committed, so their times are fixed): golden tables, a monotone sweep,
//! well-formed figures, identical bytes for one and two threads; plus small
//! symbolic patterns for distinguishing functions and bad input.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

/// The tables, in the order they are written.
const CSVS: [&str; 4] = ["rates.csv", "sweep.csv", "groups.csv", "features.csv"];
/// Every file `compare` writes.
const FILES: [&str; 6] = [
    "rates.csv",
    "sweep.csv",
    "groups.csv",
    "features.csv",
    "sweep.svg",
    "rates.svg",
];

fn printer(file: &str) -> PathBuf {
    root().join("testdata/printer").join(file)
}

/// The shipped patterns' arguments: the trace directory (the binary beside
/// the traces is skipped), the binary and the module table.
fn printer_args(out_dir: &Path) -> Vec<PathBuf> {
    vec![
        "compare".into(),
        "--binary".into(),
        printer("traces/printer"),
        "--modules".into(),
        printer("modules.csv"),
        "--out-dir".into(),
        out_dir.to_path_buf(),
        printer("traces"),
    ]
}

/// One run over the shipped patterns: its output directory and stdout.
struct Run {
    _dir: tempfile::TempDir,
    out: PathBuf,
    stdout: String,
}

impl Run {
    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.out.join(name)).expect("output file")
    }
}

/// The shipped patterns compared once for all tests that only read the result.
fn shipped() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let stdout = calltrace(printer_args(&out)).run().success().text();
        Run {
            _dir: dir,
            out,
            stdout,
        }
    })
}

/// Runs the shipped comparison with `threads` rayon threads; returns every file and stdout.
fn run_with_threads(threads: &str) -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(printer_args(dir.path()))
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("run calltrace");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files = vec![("stdout".to_string(), out.stdout)];
    for f in FILES {
        files.push((f.to_string(), std::fs::read(dir.path().join(f)).unwrap()));
    }
    files
}

/// CSV text as header-keyed rows.
fn rows(csv_text: &str) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_reader(csv_text.as_bytes());
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

#[test]
fn shipped_patterns_match_the_goldens() {
    let run = shipped();
    for f in CSVS {
        assert_golden("compare", f, &run.file(f));
    }
    assert_golden("compare", "stdout.txt", &run.stdout);
}

#[test]
fn tables_have_the_documented_headers_and_order() {
    let run = shipped();
    let headers = [
        "pattern,method,threshold,nodes_before,nodes_after,kept_ratio,eliminated_ratio,time_explained",
        "pattern,method,threshold,nodes_after,kept_ratio",
        "pattern,stage,group,changed",
        "pattern,function,stage,kept",
    ];
    for (f, h) in CSVS.iter().zip(headers) {
        assert_eq!(run.file(f).lines().next(), Some(h), "{f}");
    }
    let rates = rows(&run.file("rates.csv"));
    assert_eq!(rates.len(), 19 * 6, "19 patterns, 6 methods");
    let methods: Vec<&str> = rates[..5].iter().map(|r| r["method"].as_str()).collect();
    assert_eq!(
        methods,
        [
            "threshold",
            "merge",
            "merge+threshold",
            "global",
            "merge+global"
        ]
    );
    assert_eq!(rates[1]["threshold"], "", "merge takes no threshold");
    assert_eq!(rates[0]["threshold"], "0.900000");
    assert_eq!(
        rates[3]["threshold"], "0.001000",
        "global: --min-total 0.1%"
    );
    let names: Vec<&str> = rates
        .iter()
        .step_by(6)
        .map(|r| r["pattern"].as_str())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "patterns sorted by name");
    for r in &rates {
        let kept: f64 = r["kept_ratio"].parse().unwrap();
        let elim: f64 = r["eliminated_ratio"].parse().unwrap();
        assert!((kept + elim - 1.0).abs() < 2e-6, "{r:?}");
    }
}

#[test]
fn the_sweep_is_monotone_and_has_21_points() {
    let run = shipped();
    let mut series: BTreeMap<(String, String), Vec<(f64, u64)>> = BTreeMap::new();
    for r in rows(&run.file("sweep.csv")) {
        series
            .entry((r["pattern"].clone(), r["method"].clone()))
            .or_default()
            .push((
                r["threshold"].parse().unwrap(),
                r["nodes_after"].parse().unwrap(),
            ));
    }
    assert_eq!(
        series.len(),
        19 * 2,
        "method 1 and merge+threshold per pattern"
    );
    for ((pattern, method), points) in &series {
        assert_eq!(points.len(), 21, "{pattern} {method}");
        assert_eq!((points[0].0, points[20].0), (0.0, 1.0));
        for w in points.windows(2) {
            assert!(w[0].0 < w[1].0, "{pattern} {method}: thresholds ascend");
            assert!(
                w[0].1 <= w[1].1,
                "{pattern} {method}: {} nodes at {} but {} at {}",
                w[0].1,
                w[0].0,
                w[1].1,
                w[1].0
            );
        }
    }
}

#[test]
fn the_figures_are_well_formed_svg_with_one_line_per_pattern() {
    let run = shipped();
    let patterns: Vec<String> = rows(&run.file("rates.csv"))
        .iter()
        .step_by(6)
        .map(|r| r["pattern"].clone())
        .collect();
    for (file, axis) in [
        ("sweep.svg", ["threshold", "nodes kept"]),
        ("rates.svg", ["call nodes", "pattern"]),
    ] {
        let svg = run.file(file);
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{file}: {e}"));
        let texts: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or("").trim().to_string())
            .collect();
        for label in axis {
            assert!(
                texts.iter().any(|t| t.starts_with(label)),
                "{file}: no axis label `{label}`"
            );
        }
        for p in &patterns {
            assert!(texts.contains(p), "{file}: no label for pattern {p}");
        }
        if file == "sweep.svg" {
            // Axes and tick marks are two-point polylines; data lines have one point per threshold.
            let lines = doc
                .descendants()
                .filter(|n| n.has_tag_name("polyline"))
                .filter(|n| {
                    n.attribute("points")
                        .unwrap_or("")
                        .split_whitespace()
                        .count()
                        > 2
                })
                .count();
            assert_eq!(lines, patterns.len(), "{file}: one line per pattern");
        }
    }
}

#[test]
fn one_and_two_threads_give_identical_bytes() {
    let one = run_with_threads("1");
    let two = run_with_threads("2");
    for ((name, a), (_, b)) in one.iter().zip(&two) {
        assert!(a == b, "{name} differs between 1 and 2 threads");
    }
}

/// A symbolic trace: `main` calls `big` (90 units) and then `helper` (1 unit).
fn symbolic(helper: &str) -> String {
    format!("E main 0\nE big 1\nX big 91\nE {helper} 91\nX {helper} 92\nX main 100\n")
}

#[test]
fn a_unique_function_is_listed_in_features() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), symbolic("only_in_a")).unwrap();
    std::fs::write(dir.path().join("b.txt"), symbolic("shared")).unwrap();
    std::fs::write(dir.path().join("c.txt"), symbolic("shared")).unwrap();
    // All functions in one module, so that merging folds the helpers away.
    std::fs::write(dir.path().join("m.csv"), "*,all\n").unwrap();
    calltrace([
        "compare",
        "a.txt",
        "second=b.txt",
        "c.txt",
        "--modules",
        "m.csv",
        "--out-dir",
        "out",
    ])
    .current_dir(dir.path())
    .run()
    .success();
    let features = std::fs::read_to_string(dir.path().join("out/features.csv")).unwrap();
    // only_in_a is 1% of main: method 1 at 90% drops it, merging (one module) folds it away.
    assert_eq!(
        features,
        "pattern,function,stage,kept\n\
         a,only_in_a,before,true\n\
         a,only_in_a,threshold,false\n\
         a,only_in_a,merge,false\n\
         a,only_in_a,merge+threshold,false\n\
         a,only_in_a,global,true\n\
         a,only_in_a,merge+global,false\n\
         a,only_in_a,merge+fold+global,false\n"
    );
    let groups = std::fs::read_to_string(dir.path().join("out/groups.csv")).unwrap();
    let threshold: Vec<String> = rows(&groups)
        .into_iter()
        .filter(|r| r["stage"] == "threshold")
        .map(|r| format!("{} {} {}", r["pattern"], r["group"], r["changed"]))
        .collect();
    // Without only_in_a, a's tree looks like the others: all three now share G1.
    assert_eq!(threshold, ["a G1 true", "c G1 true", "second G1 true"]);
}

#[test]
fn keep_features_protects_distinguishing_functions_and_counts_the_cost() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), symbolic("only_in_a")).unwrap();
    std::fs::write(dir.path().join("b.txt"), symbolic("shared")).unwrap();
    std::fs::write(dir.path().join("c.txt"), symbolic("other")).unwrap();
    std::fs::write(dir.path().join("m.csv"), "*,all\n").unwrap();
    let out = calltrace(["compare", "a.txt", "b.txt", "c.txt", "--keep-features"])
        .args(["--modules", "m.csv", "--out-dir", "out"])
        .current_dir(dir.path())
        .run()
        .success();
    let features = std::fs::read_to_string(dir.path().join("out/features.csv")).unwrap();
    let kept: Vec<String> = rows(&features)
        .into_iter()
        .map(|r| format!("{} {} {}", r["pattern"], r["function"], r["kept"]))
        .collect();
    assert_eq!(kept.len(), 3 * 7, "3 features at 7 stages");
    assert!(kept.iter().all(|k| k.ends_with("true")), "{kept:?}");
    let groups = std::fs::read_to_string(dir.path().join("out/groups.csv")).unwrap();
    assert!(
        !groups.contains("true"),
        "no pattern changed group:\n{groups}"
    );
    // Without protection merging folds the 1-unit helper into main, and
    // method 1 at 90% drops it: each then keeps one extra node per pattern.
    let cost = std::fs::read_to_string(dir.path().join("out/protection.csv")).unwrap();
    let extra: Vec<String> = rows(&cost)
        .into_iter()
        .filter(|r| r["pattern"] == "a")
        .map(|r| format!("{} {}", r["method"], r["extra_nodes"]))
        .collect();
    assert_eq!(
        extra,
        [
            "threshold 1",
            "merge 1",
            "merge+threshold 1",
            "global 0",
            "merge+global 1",
            "merge+fold+global 1"
        ]
    );
    assert!(
        out.text().contains("merge: 3 groups (0 patterns changed group), 3/3 distinguishing functions kept; protecting them cost 3 extra nodes"),
        "{}",
        out.text()
    );
}

#[test]
fn a_bad_trace_names_its_file_and_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.txt"), symbolic("x")).unwrap();
    std::fs::write(dir.path().join("bad.txt"), "E main 0\nE big 1\nQ big 2\n").unwrap();
    let msg = calltrace(["compare", "good.txt", "bad.txt", "--out-dir", "out"])
        .current_dir(dir.path())
        .run()
        .failure();
    assert!(msg.starts_with("bad.txt:3: "), "{msg}");
    assert!(
        !dir.path().join("out").exists(),
        "no output directory on error"
    );
    // --lenient reads the bad pattern's other lines and says what it skipped.
    let out = calltrace([
        "compare",
        "good.txt",
        "bad.txt",
        "--out-dir",
        "out",
        "--lenient",
    ])
    .current_dir(dir.path())
    .run()
    .success();
    assert!(
        out.stderr
            .contains("warning: bad: skipped 1 malformed line(s) (--lenient); first: bad.txt:3:"),
        "{}",
        out.stderr
    );
    let groups = std::fs::read_to_string(dir.path().join("out/rates.csv")).unwrap();
    assert!(groups.contains("\nbad,"), "{groups}");
}

#[test]
fn bad_arguments_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), symbolic("x")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/a.txt"), symbolic("y")).unwrap();
    let run = |args: &[&str]| {
        let out = calltrace(["compare"])
            .args(args)
            .current_dir(dir.path())
            .run();
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        out.stderr
    };
    let err = run(&["a.txt", "sub/a.txt"]);
    assert!(err.contains("two patterns are named `a`"), "{err}");
    let err = run(&["--sweep", "0:1", "a.txt"]);
    assert!(
        err.contains("--sweep") && err.contains("START:END:STEP"),
        "{err}"
    );
    let err = run(&["--sweep", "0.9:0.1:0.1", "a.txt"]);
    assert!(err.contains("START 0.9 is above END 0.1"), "{err}");
    let err = run(&["--threshold", "1.5", "a.txt"]);
    assert!(err.contains("--threshold"), "{err}");
    let err = run(&["missing.txt"]);
    assert!(err.contains("missing.txt"), "{err}");
}
