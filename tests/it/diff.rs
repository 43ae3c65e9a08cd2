//! `calltrace diff` on two builds of a third-party program: zlib, built
//! from its own sources (the libz-sys crate) into `testdata/zlib/zdiff.c`
//! in three variants: as is, with the CRC taken twice as often, and with a
//! busy loop added to zlib's `adler32_z`. Each runs 5 times, in rounds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

/// The busy loop the slow build adds at the top of `adler32_z`.
const BUSY: &str = "\n    { volatile unsigned ct_i; for (ct_i = 0; ct_i < 1000000; ct_i++) ; }";
const ADLER32_Z: &str = "uLong ZEXPORT adler32_z(uLong adler, const Bytef *buf, z_size_t len) {";

/// Runs of each build: `base` and `same` are the unchanged build (two sets
/// of 5 runs), `twice` and `slow` the changed ones.
struct Runs {
    dir: PathBuf,
}

impl Runs {
    fn side(&self, name: &str) -> PathBuf {
        self.dir.join(name).join("runs")
    }
}

fn build(dir: &Path, zlib: &Path, define: Option<&str>, slow: bool) -> PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for entry in std::fs::read_dir(zlib).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".h") || ZLIB_FILES.contains(&name.as_str()) {
            std::fs::copy(&path, src.join(&name)).unwrap();
        }
    }
    if slow {
        let adler = src.join("adler32.c");
        let text = std::fs::read_to_string(&adler).unwrap();
        assert!(
            text.contains(ADLER32_Z),
            "zlib's adler32_z changed its signature"
        );
        std::fs::write(
            &adler,
            text.replace(ADLER32_Z, &format!("{ADLER32_Z}{BUSY}")),
        )
        .unwrap();
    }
    let exe = dir.join("zdiff");
    compile(
        Command::new("gcc")
            .args(["-O2", "-g", "-finstrument-functions", "-I"])
            .arg(&src)
            .args(define)
            .args(ZLIB_FILES.iter().map(|f| src.join(f)))
            .arg(root().join("testdata/zlib/zdiff.c"))
            .arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe),
    );
    exe
}

fn runs() -> &'static Runs {
    static R: OnceLock<Runs> = OnceLock::new();
    R.get_or_init(|| {
        let zlib = third_party("zlib");
        let dir = fresh_dir("diff", "zlib");
        let base = build(&dir.join("base"), &zlib, None, false);
        let twice = build(&dir.join("twice"), &zlib, Some("-DCRC_CALLS=6"), false);
        let slow = build(&dir.join("slow"), &zlib, None, true);
        for name in ["base", "same", "twice", "slow"] {
            std::fs::create_dir_all(dir.join(name).join("runs")).unwrap();
        }
        let record = |exe: &Path, side: &str, i: usize| {
            let trace = dir.join(side).join("runs").join(format!("run{i}.txt"));
            let out = output_within(Command::new(exe).env("CALLTRACE_OUT", &trace), 120);
            assert!(out.status.success(), "{side} run {i} failed");
        };
        // Rounds of one run of each, so that a machine whose load changes
        // affects every side alike; the unchanged build's two sides swap
        // places each round, so that they differ by noise alone.
        for i in 1..=5 {
            let pair = if i % 2 == 1 {
                ["base", "same"]
            } else {
                ["same", "base"]
            };
            for side in pair {
                record(&base, side, i);
            }
            record(&twice, "twice", i);
            record(&slow, "slow", i);
        }
        Runs { dir }
    })
}

/// `diff BASE NEW --csv` rows by function: (calls_base, calls_new, delta_self, change).
fn diff_rows(base: &Path, new: &Path, extra: &[&str]) -> (Vec<BTreeMap<String, String>>, Output) {
    let csv = base.parent().unwrap().parent().unwrap().join(format!(
        "{}-{}.csv",
        base.parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy(),
        new.parent().unwrap().file_name().unwrap().to_string_lossy()
    ));
    let out = calltrace(["diff"])
        .args([base, new])
        .args(["--csv".as_ref(), csv.as_os_str()])
        .args(extra)
        .run();
    let mut r = csv::Reader::from_path(&csv).expect("diff wrote its CSV");
    let header = r.headers().unwrap().clone();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .map(String::from)
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect();
    (rows, out)
}

fn row<'r>(rows: &'r [BTreeMap<String, String>], function: &str) -> &'r BTreeMap<String, String> {
    rows.iter()
        .find(|r| r["function"] == function)
        .unwrap_or_else(|| panic!("no row for {function}"))
}

#[test]
fn a_busy_loop_ranks_first_as_slower_per_call_and_fails_the_gate() {
    let r = runs();
    let (rows, out) = diff_rows(&r.side("base"), &r.side("slow"), &["--fail-above", "50%"]);
    assert_eq!(
        out.code, 3,
        "the gate fails for the slow build:\n{}",
        out.stderr
    );
    assert!(out.stderr.contains("adler32_z"), "{}", out.stderr);
    let first = &rows[0];
    assert_eq!(first["function"], "adler32_z");
    assert_eq!(first["change"], "slower per call");
    assert_eq!(first["calls_base"], first["calls_new"]);
    assert!(first["file"].ends_with("adler32.c"), "{first:?}");
    let delta: i64 = first["delta_self_ns"].parse().unwrap();
    assert!(delta > 0);
    // Every other row moved less than the busy function.
    for r in &rows[1..] {
        assert!(r["delta_self_ns"].parse::<i64>().unwrap().abs() <= delta);
    }
    assert!(
        out.text()
            .starts_with("base → new; + means new spends more")
    );
}

#[test]
fn a_function_called_twice_as_often_is_more_calls_and_passes_the_gate() {
    let r = runs();
    let (rows, out) = diff_rows(&r.side("base"), &r.side("twice"), &["--fail-above", "50%"]);
    assert_eq!(
        out.code, 0,
        "doubling a cheap CRC passes a 50% gate (it adds a few percent idle, up to 11% seen on a loaded machine; the busy loop adds over 150%):\n{}",
        out.stderr
    );
    let crc = row(&rows, "crc32");
    let (b, n): (u64, u64) = (
        crc["calls_base"].parse().unwrap(),
        crc["calls_new"].parse().unwrap(),
    );
    assert!(b > 0);
    assert_eq!(n, 2 * b);
    assert_eq!(crc["change"], "more calls");
    for r in &rows {
        // Counts are exact: a row whose count changed says so, and only
        // the CRC's functions are called more. (That time noise is not a
        // change is the same-build test's question.)
        let calls_changed = r["calls_base"] != r["calls_new"];
        let says_calls = r["change"] == "more calls" || r["change"] == "fewer calls";
        assert!(!says_calls || calls_changed, "{r:?}");
        if calls_changed {
            assert!(
                r["function"].starts_with("crc"),
                "only the CRC's functions changed: {r:?}"
            );
        }
    }
}

#[test]
fn five_runs_against_five_of_the_same_build_are_the_same_everywhere() {
    let r = runs();
    let (rows, out) = diff_rows(&r.side("base"), &r.side("same"), &["--fail-above", "0%"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(rows.len() > 20, "zlib's functions are rows: {}", rows.len());
    let changed: Vec<_> = rows.iter().filter(|r| r["change"] != "same").collect();
    assert!(
        changed.is_empty(),
        "noise between runs is not a change: {changed:?}"
    );
    assert!(out.text().contains("no change"), "{}", out.text());
}

#[test]
fn a_run_diffed_with_itself_is_zero_everywhere_by_context_too() {
    let r = runs();
    let run = r.side("base").join("run1.txt");
    let (rows, out) = diff_rows(&run, &run, &["--by", "context"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for r in &rows {
        assert_eq!(r["delta_self_ns"], "0");
        assert_eq!(r["delta_total_ns"], "0");
        assert_eq!(r["change"], "same");
        assert!(r["path"].ends_with(&r["function"]), "{r:?}");
    }
    assert!(rows.iter().any(|r| r["path"].starts_with("main;")));
}

#[test]
fn json_has_the_csv_rows_and_bad_shares_are_refused_with_a_hint() {
    let r = runs();
    let json = r.dir.join("d.json");
    calltrace(["diff"])
        .args([r.side("base"), r.side("slow")])
        .args(["--json".as_ref(), json.as_os_str()])
        .run()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["rows"][0]["function"], "adler32_z");
    assert_eq!(v["base"]["runs"], 5);
    assert_eq!(v["unit"], "ns");
    let msg = calltrace(["diff"])
        .args([r.side("base"), r.side("slow")])
        .args(["--min-change", "5"])
        .run();
    assert_eq!(msg.code, 2);
    assert!(msg.stderr.contains("did you mean 5%?"), "{}", msg.stderr);
    let missing = calltrace(["diff", "no-such-base.txt"])
        .args([r.side("slow")])
        .run()
        .failure();
    assert!(missing.contains("no-such-base.txt"), "{missing}");
}

#[test]
fn the_union_graph_and_flame_graphs_show_the_busy_function() {
    let r = runs();
    let (dot, svg, removed) = (
        r.dir.join("d.dot"),
        r.dir.join("d.svg"),
        r.dir.join("removed.svg"),
    );
    let out = calltrace(["diff"])
        .args([r.side("base"), r.side("slow")])
        .args(["-o".as_ref(), dot.as_os_str()])
        .args(["--flamegraph".as_ref(), svg.as_os_str()])
        .args(["--flamegraph-removed".as_ref(), removed.as_os_str()])
        .run()
        .success();
    assert!(out.stderr.contains("functions drawn"), "{}", out.stderr);
    let text = std::fs::read_to_string(&dot).unwrap();
    let busy = text
        .lines()
        .find(|l| l.contains("label=\"adler32_z\\n"))
        .unwrap_or_else(|| panic!("adler32_z is drawn:\n{text}"));
    assert!(
        busy.contains("fillcolor=\"#b2182b\""),
        "the largest change is the reddest: {busy}"
    );
    assert!(busy.contains("slower per call"), "{busy}");
    let main = text
        .lines()
        .find(|l| l.contains("label=\"main\\n"))
        .unwrap();
    assert!(
        main.contains("fillcolor=\"#ffffff\""),
        "no change is white: {main}"
    );
    if let Some(dot_tool) = tool("dot") {
        let ok = Command::new(dot_tool)
            .args(["-Tsvg", "-o", "/dev/null"])
            .arg(&dot)
            .status();
        assert!(ok.unwrap().success(), "graphviz reads the union graph");
    }
    for (file, widths) in [(&svg, "widths: new run"), (&removed, "widths: base run")] {
        let s = std::fs::read_to_string(file).unwrap();
        assert!(s.starts_with("<?xml"), "{}", file.display());
        assert!(
            s.contains(widths) && s.contains("adler32_z"),
            "{}",
            file.display()
        );
    }
}
