//! `export --to parquet -o DIR`: what happens to the files already in a
//! dataset directory, and the run ids that tell the runs of a dataset
//! apart.

use std::path::Path;
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
