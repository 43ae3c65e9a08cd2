//! `calltrace coverage` against gcov on a third-party library: zlib, from
//! its own sources (the libz-sys crate), built as a shared object with
//! `--coverage -finstrument-functions` (and `zutil.c` with `--coverage`
//! alone, so its functions are not instrumented), called by two programs
//! of ours: two test patterns over one library.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

struct Built {
    dir: PathBuf,
    traces: [PathBuf; 2],
}

fn built() -> &'static Built {
    static B: OnceLock<Built> = OnceLock::new();
    B.get_or_init(|| {
        let zlib = third_party("zlib");
        let dir = fresh_dir("coverage", "zlib");
        let cc = |file: &str, instrument: bool| {
            let obj = dir.join(file).with_extension("o");
            compile(
                Command::new("gcc")
                    .current_dir(&dir)
                    .args(["-c", "-O0", "-g", "-fPIC", "--coverage"])
                    .args(instrument.then_some("-finstrument-functions"))
                    .arg("-I")
                    .arg(&zlib)
                    .arg(zlib.join(file))
                    .arg("-o")
                    .arg(&obj),
            );
            obj
        };
        // zutil.c without -finstrument-functions: its functions are not instrumented.
        let instrumented = ZLIB_FILES.iter().filter(|&&f| f != "zutil.c");
        let mut objects: Vec<PathBuf> = instrumented.map(|f| cc(f, true)).collect();
        objects.push(cc("zutil.c", false));
        compile(
            Command::new("gcc")
                .args(["-shared", "--coverage", "-o"])
                .arg(dir.join("libz.so"))
                .args(&objects),
        );
        let mut traces = Vec::new();
        for prog in ["zdiff", "zround"] {
            let exe = dir.join(prog);
            compile(
                Command::new("gcc")
                    .args(["-g", "-finstrument-functions", "-I"])
                    .arg(&zlib)
                    .arg(root().join(format!("testdata/zlib/{prog}.c")))
                    .arg(root().join("runtime/calltrace.c"))
                    .arg("-L")
                    .arg(&dir)
                    .arg("-lz")
                    .arg(format!("-Wl,-rpath,{}", dir.display()))
                    .arg("-o")
                    .arg(&exe),
            );
            let trace = dir.join(format!("{prog}.txt"));
            let run = output_within(Command::new(&exe).env("CALLTRACE_OUT", &trace), 120);
            assert!(run.status.success(), "{prog} failed");
            traces.push(trace);
        }
        Built {
            dir,
            traces: [traces[0].clone(), traces[1].clone()],
        }
    })
}

fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).expect("coverage wrote the CSV");
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

/// gcov's functions of zlib's files: (file name, function) -> execution count.
fn gcov(dir: &Path) -> BTreeMap<(String, String), u64> {
    let gcda: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gcda"))
        .collect();
    assert!(gcda.len() >= 11, "the library wrote its gcov data");
    let out = Command::new("gcov")
        .current_dir(dir)
        .args(["--json-format", "--stdout"])
        .args(&gcda)
        .output()
        .expect("run gcov (it comes with gcc)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut counts = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let doc: serde_json::Value = serde_json::from_str(line).expect("gcov's JSON");
        for file in doc["files"].as_array().unwrap() {
            let name = Path::new(file["file"].as_str().unwrap());
            let name = name.file_name().unwrap().to_string_lossy().into_owned();
            for f in file["functions"].as_array().unwrap() {
                let count = f["execution_count"].as_u64().unwrap();
                counts.insert(
                    (name.clone(), f["name"].as_str().unwrap().to_string()),
                    count,
                );
            }
        }
    }
    counts
}

#[test]
fn never_called_and_calls_equal_gcovs_and_uninstrumented_code_is_told_apart() {
    let b = built();
    let (csv, matrix, info) = (
        b.dir.join("cov.csv"),
        b.dir.join("matrix.csv"),
        b.dir.join("cov.info"),
    );
    let out = calltrace(["coverage"])
        .args(&b.traces)
        .args(["--csv".as_ref(), csv.as_os_str()])
        .args(["--matrix".as_ref(), matrix.as_os_str()])
        .args(["--lcov".as_ref(), info.as_os_str()])
        .run()
        .success();
    let rows = read_csv(&csv);
    let ours: BTreeMap<(String, String), (u64, String)> = rows
        .iter()
        .filter(|r| r["file"].contains(".c"))
        .map(|r| {
            let file = Path::new(&r["file"])
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (
                (file, r["function"].clone()),
                (r["calls"].parse().unwrap(), r["status"].clone()),
            )
        })
        .collect();
    let theirs = gcov(&b.dir);
    let mut compared = 0;
    for ((file, function), &count) in &theirs {
        let Some((calls, status)) = ours.get(&(file.clone(), function.clone())) else {
            panic!("{function} ({file}) is missing from the coverage CSV");
        };
        if file == "zutil.c" {
            assert_eq!(
                status, "not instrumented",
                "{function}: zutil.c is built without -finstrument-functions"
            );
            continue;
        }
        assert_eq!(
            *calls, count,
            "{function} ({file}): calls against gcov's execution_count"
        );
        let expected = if count == 0 { "never called" } else { "called" };
        assert_eq!(status, expected, "{function} ({file})");
        compared += 1;
    }
    assert!(compared > 100, "zlib's functions were compared: {compared}");
    assert!(theirs.values().any(|&c| c == 0) && theirs.values().any(|&c| c > 0));
    // The runtime's own functions can never be traced.
    let runtime = rows
        .iter()
        .find(|r| r["function"] == "__cyg_profile_func_enter")
        .unwrap();
    assert_eq!(runtime["status"], "not instrumented");
    assert!(out.text().contains("zutil.c"), "{}", out.text());
    // The matrix has one column per pattern, named by file stem.
    let m = read_csv(&matrix);
    let adler = m.iter().find(|r| r["function"] == "adler32_z").unwrap();
    assert!(
        adler["zdiff"].parse::<u64>().unwrap() > 0 && adler["zround"].parse::<u64>().unwrap() > 0
    );
    let deflate_stream = m.iter().find(|r| r["function"] == "deflateEnd").unwrap();
    assert!(deflate_stream.contains_key("zround"));
    // genhtml takes the tracefile.
    if let Some(genhtml) = tool("genhtml") {
        let html = b.dir.join("html");
        let run = Command::new(genhtml)
            .arg(&info)
            .arg("-o")
            .arg(&html)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "genhtml: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(html.join("index.html").is_file());
    }
}

#[test]
fn fail_under_gates_on_the_called_share() {
    let b = built();
    let low = calltrace(["coverage"])
        .args(&b.traces)
        .args(["--fail-under", "10%"])
        .run();
    assert_eq!(low.code, 0, "{}", low.stderr);
    let high = calltrace(["coverage"])
        .args(&b.traces)
        .args(["--fail-under", "0.95"])
        .run();
    assert_eq!(high.code, 3, "{}", high.stderr);
    assert!(high.stderr.contains("--fail-under 95%"), "{}", high.stderr);
    let bad = calltrace(["coverage"])
        .args(&b.traces)
        .args(["--fail-under", "80"])
        .run();
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("did you mean 80%?"), "{}", bad.stderr);
}

#[test]
fn a_trace_of_nothing_instrumented_is_an_error() {
    let (_dir, trace) = temp_file("t.txt", "E main\nX main\n");
    let msg = calltrace(["coverage"]).args([&trace]).run().failure();
    assert!(msg.contains("no function to list"), "{msg}");
}

#[test]
fn compare_writes_the_coverage_matrix_and_lists_what_no_pattern_called() {
    let b = built();
    let out = b.dir.join("compare-out");
    calltrace(["compare", "--out-dir"])
        .args([&out])
        .args(&b.traces)
        .run()
        .success();
    let m = read_csv(&out.join("coverage.csv"));
    let adler = m.iter().find(|r| r["function"] == "adler32_z").unwrap();
    assert!(adler["zdiff"].parse::<u64>().unwrap() > 0);
    let never: Vec<&String> = m
        .iter()
        .filter(|r| r["file"].ends_with("infback.c"))
        .map(|r| &r["function"])
        .collect();
    assert!(!never.is_empty(), "infback.c's functions are listed");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let section = html
        .split("<h2>Functions no pattern called</h2>")
        .nth(1)
        .expect("the section");
    assert!(
        section.contains("infback.c") && section.contains("inflateBack"),
        "{section}"
    );
    assert!(!section.contains(">adler32_z<") && !section.contains(" adler32_z,"));
}
