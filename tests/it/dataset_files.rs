//! `export --to parquet -o DIR`: what happens to the files already in a
//! dataset directory, and the run ids that tell the runs of a dataset
//! apart.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::*;

const SMALL_C: &str =
    "static int twice(int x) { return 2 * x; }\nint main(void) { return twice(1) - 2; }\n";

/// Runs `exe` in its directory, recording a text trace `TRACE`.
fn record(exe: &Path, trace: &Path) {
    let run = output_within(
        Command::new(exe)
            .current_dir(exe.parent().unwrap())
            .env("CALLTRACE_FORMAT", "text")
            .env("CALLTRACE_OUT", trace),
        60,
    );
    assert!(run.status.success(), "{run:?}");
}

#[test]
fn a_program_named_like_the_call_table_is_kept_when_a_stale_one_would_be_removed() {
    let dir = fresh_dir("dataset_files", "program_named_calls");
    // The traced program is DIR/calls.parquet; its trace names it, so the
    // export reads it to name the functions.
    let exe = build_traced(&dir, "calls.parquet", SMALL_C, "-O0", &[]);
    let trace = dir.join("t.txt");
    record(&exe, &trace);
    let program = std::fs::read(&exe).unwrap();
    let out = calltrace(["export", "--to", "parquet", "-q", "--trace"])
        .args([&trace])
        .args([std::ffi::OsStr::new("-o"), dir.as_os_str()])
        .run();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("calls.parquet"), "{}", out.stderr);
    assert!(out.stderr.contains("input"), "{}", out.stderr);
    assert_eq!(std::fs::read(&exe).unwrap(), program, "the program is kept");
    assert!(
        !listing(&dir).iter().any(|f| f.ends_with(".tmp")),
        "{:?}",
        listing(&dir)
    );
}

#[test]
fn a_dataset_file_that_is_a_symlink_is_refused_not_written_through() {
    let (dir, trace) = temp_file("t.trace", "E main 0\nE f 1\nX f 2\nX main 3\n");
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "keep me\n").unwrap();
    let ds = dir.path().join("ds");
    std::fs::create_dir(&ds).unwrap();
    for name in ["runs.parquet", "calls.parquet"] {
        let link = ds.join(name);
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let out = calltrace(["export", "--to", "parquet", "-q", "--trace"])
            .args([&trace])
            .args([std::ffi::OsStr::new("-o"), ds.as_os_str()])
            .run();
        assert_eq!(out.code, 2, "{name}: {}", out.stderr);
        assert!(out.stderr.contains(name), "{}", out.stderr);
        assert!(out.stderr.contains("symbolic link"), "{}", out.stderr);
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me\n");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(listing(&ds), [name], "nothing else written");
        std::fs::remove_file(&link).unwrap();
    }
    calltrace(["export", "--to", "parquet", "-q", "--trace"])
        .args([&trace])
        .args([std::ffi::OsStr::new("-o"), ds.as_os_str()])
        .run()
        .success();
    assert_eq!(
        listing(&ds),
        ["contexts.parquet", "functions.parquet", "runs.parquet"]
    );
}

const BASE: &str = "E main 0\nE f 1\nX f 2\nX main 3\n";
const SLOW: &str = "E main 0\nE f 1\nE g 2\nX g 3\nX f 9\nX main 10\n";

/// Exports `trace` into the dataset directory `out`; calltrace's stderr.
fn export_run(trace: &Path, out: &Path, extra: &[&str]) -> String {
    calltrace(["export", "--to", "parquet", "--trace"])
        .args([trace])
        .args([std::ffi::OsStr::new("-o"), out.as_os_str()])
        .args(extra)
        .run()
        .success()
        .stderr
}

/// The `run_id` of a run directory's `runs.parquet`.
fn run_id(dir: &Path) -> String {
    use arrow_array::cast::AsArray;
    let file = std::fs::File::open(dir.join("runs.parquet")).unwrap();
    let mut reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let batch = reader.next().unwrap().unwrap();
    let ids = batch.column_by_name("run_id").unwrap().as_string::<i32>();
    ids.value(0).to_string()
}

/// Two traces of one name (`r2.bin`, or the runtime's default
/// `trace.txt`) exported into `ds/base` and `ds/slow`: the run ids are the
/// directories' names, where the trace's file stem made them one run.
/// A `--run-id` that a run beside already has is warned about.
fn two_runs(dir: &Path) -> PathBuf {
    for (name, text) in [("a", BASE), ("b", SLOW)] {
        std::fs::create_dir_all(dir.join(name)).unwrap();
        std::fs::write(dir.join(name).join("r2.bin"), text).unwrap();
    }
    let ds = dir.join("ds");
    for (trace, run) in [("a", "base"), ("b", "slow")] {
        let stderr = export_run(&dir.join(trace).join("r2.bin"), &ds.join(run), &[]);
        assert!(!stderr.contains("warning"), "{stderr}");
    }
    ds
}

#[test]
fn a_run_is_named_after_its_directory_and_a_shared_run_id_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let ds = two_runs(dir.path());
    assert_eq!(run_id(&ds.join("base")), "base");
    assert_eq!(run_id(&ds.join("slow")), "slow");
    let stderr = export_run(
        &dir.path().join("b/r2.bin"),
        &ds.join("again"),
        &["--run-id", "base"],
    );
    assert_eq!(run_id(&ds.join("again")), "base");
    let base = ds.join("base").canonicalize().unwrap();
    assert!(
        stderr.contains(&format!(
            "warning: {} has run id `base` too",
            base.display()
        )),
        "{stderr}"
    );
}

/// python3 when it can import duckdb (else the test skips, unless
/// `CALLTRACE_REQUIRE_TOOLS=1`).
fn python_with_duckdb() -> Option<PathBuf> {
    let py = tool("python3")?;
    let ok = Command::new(&py)
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok || std::env::var("CALLTRACE_REQUIRE_TOOLS").as_deref() != Ok("1"),
        "python module `duckdb` is required (CALLTRACE_REQUIRE_TOOLS=1)"
    );
    ok.then_some(py)
}

/// `scripts/sql-run.py --engine duckdb` on `ds` with `args`: (exit code,
/// stderr, the result directory).
fn sql_run(py: &Path, ds: &Path, args: &[&str]) -> (Option<i32>, String, tempfile::TempDir) {
    sql_run_in("duckdb", py, ds, args)
}

/// [`sql_run`] with `engine`.
fn sql_run_in(
    engine: &str,
    py: &Path,
    ds: &Path,
    args: &[&str],
) -> (Option<i32>, String, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let done = output_within(
        Command::new(py)
            .arg(root().join("scripts/sql-run.py"))
            .args(["--engine", engine, "--dataset"])
            .arg(ds)
            .arg("--out")
            .arg(out.path())
            .args(args)
            .arg(root().join("sql/diff.sql")),
        300,
    );
    let stderr = String::from_utf8_lossy(&done.stderr).into_owned();
    (done.status.code(), stderr, out)
}

#[test]
fn sql_run_refuses_a_run_that_is_not_in_the_dataset_and_diff_names_the_paths() {
    let Some(py) = python_with_duckdb() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ds = two_runs(dir.path());
    // The trace's stem: the run that diff.sql used to be asked for.
    let (code, stderr, out) = sql_run(&py, &ds, &["--base", "r2", "--new", "slow"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--base 'r2' names no run of")
            && stderr.contains("its runs are: base, slow"),
        "{stderr}"
    );
    assert!(!out.path().join("diff.csv").exists());
    let (code, stderr, _) = sql_run(&py, &ds, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("a recipe reads pair: give --base"),
        "{stderr}"
    );
    let (code, stderr, out) = sql_run(&py, &ds, &["--base", "base", "--new", "slow"]);
    assert_eq!(code, Some(0), "{stderr}");
    let diff = std::fs::read_to_string(out.path().join("diff.csv")).unwrap();
    let rows: Vec<(&str, &str)> = diff
        .lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[0], cells[2])
        })
        .collect();
    assert_eq!(
        rows,
        [("added", "main;f;g"), ("changed", "main;f")],
        "paths by name:\n{diff}"
    );
    // Two runs with one id: their rows mix, and sql-run.py says so.
    export_run(
        &dir.path().join("a/r2.bin"),
        &ds.join("dup"),
        &["--run-id", "slow"],
    );
    let (code, stderr, _) = sql_run(&py, &ds, &["--base", "base", "--new", "slow"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("2 runs of") && stderr.contains("share the run id 'slow'"),
        "{stderr}"
    );
}

/// Spark refuses the same way (its rows are `Row`s, not tuples). Spark in
/// local mode needs pyspark and a Java runtime.
#[test]
fn sql_run_with_spark_refuses_a_run_that_is_not_in_the_dataset() {
    let Some(py) = python_with_duckdb() else {
        return;
    };
    let spark = Command::new(&py)
        .args(["-c", "import pyspark"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        spark || std::env::var("CALLTRACE_REQUIRE_TOOLS").as_deref() != Ok("1"),
        "python module `pyspark` is required (CALLTRACE_REQUIRE_TOOLS=1)"
    );
    if !spark || tool("java").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ds = two_runs(dir.path());
    let (code, stderr, out) = sql_run_in("spark", &py, &ds, &["--base", "base", "--new", "r2"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--new 'r2' names no run of")
            && stderr.contains("its runs are: base, slow"),
        "{stderr}"
    );
    assert!(!out.path().join("diff.csv").exists());
}
