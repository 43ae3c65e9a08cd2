//! Hostile outputs and inputs: outputs that are not regular files
//! (`/dev/stdout` redirected to a log), outputs that are files the run
//! read (the program a trace names, a library its maps name), traces that
//! can be read only once (pipes), long headers, and function names built
//! to forge lines in every output format.

use std::io::Write;
use std::process::{Command, Stdio};

use super::util::{BIN, temp_file};

const TRACE: &str = "E main 100 1\nE work 200 1\nX work 300 1\nX main 400 1\n";

/// Runs `calltrace ARGS` with its standard output on `out`; asserts success.
fn run_onto(args: &[&str], out: &std::fs::File) {
    let status = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{args:?}");
}

#[test]
fn dev_stdout_appended_to_a_log_keeps_the_log() {
    let (dir, trace) = temp_file("s.txt", TRACE);
    let log = dir.path().join("log");
    std::fs::write(&log, "old\n").unwrap();
    let appending = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let t = trace.to_str().unwrap();
    run_onto(&["tree", "--trace", t, "-o", "/dev/stdout"], &appending);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("old\nmain ("), "{text}");
}

#[test]
fn dev_stdout_twice_into_one_file_loses_nothing_written_between() {
    let (dir, trace) = temp_file("s.txt", TRACE);
    let f = dir.path().join("F");
    let mut out = std::fs::File::create(&f).unwrap();
    let t = trace.to_str().unwrap();
    run_onto(&["tree", "--trace", t, "-o", "/dev/stdout"], &out);
    out.write_all(b"x\n").unwrap();
    run_onto(&["tree", "--trace", t, "-o", "/proc/self/fd/1"], &out);
    let text = std::fs::read_to_string(&f).unwrap();
    let tree = "main (200 ns / 300 ns)\n  work (100 ns / 100 ns)\n";
    assert_eq!(text, format!("{tree}x\n{tree}"));
    assert!(
        std::fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .file_type()
            .is_symlink()
    );
}
