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

/// A program `app` calling into its own library `libl.so`, built with the
/// runtime and run once in a new directory: (directory, trace `app.txt`).
fn app_with_library() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("l.c"), "int lib_work(int x) { return x * 2 + 1; }\n").unwrap();
    std::fs::write(
        d.join("app.c"),
        "int lib_work(int x);\nstatic int local(int x) { return lib_work(x) + 1; }\n\
         int main(void) { return local(20) == 42 ? 0 : 1; }\n",
    )
    .unwrap();
    let runtime = super::util::root().join("runtime/calltrace.c");
    let gcc = |args: &[&str]| {
        let out = Command::new("gcc")
            .current_dir(d)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    gcc(&[
        "-g",
        "-finstrument-functions",
        "-fPIC",
        "-shared",
        "l.c",
        "-o",
        "libl.so",
    ]);
    let rt = runtime.to_str().unwrap();
    gcc(&[
        "-g",
        "-finstrument-functions",
        "app.c",
        rt,
        "-L.",
        "-ll",
        "-Wl,-rpath,$ORIGIN",
        "-lpthread",
        "-o",
        "app",
    ]);
    let trace = d.join("app.txt");
    let status = Command::new(d.join("app"))
        .current_dir(d)
        .env("CALLTRACE_OUT", &trace)
        .env_remove("CALLTRACE_FORMAT")
        .status()
        .unwrap();
    assert!(status.success());
    (dir, trace)
}

#[test]
fn files_found_through_the_trace_are_inputs_too() {
    let (dir, trace) = app_with_library();
    let d = dir.path();
    let sp = d.join("sp");
    std::fs::create_dir(&sp).unwrap();
    std::fs::copy(d.join("app"), sp.join("app")).unwrap();
    let t = trace.to_str().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&[], "app"),
        (&["--search-path", "sp"], "sp/app"),
        (&[], "libl.so"),
    ];
    for (extra, out) in cases {
        let before = std::fs::read(d.join(out)).unwrap();
        let args = [&["graph", "--trace", t][..], extra, &["-o", out]].concat();
        let msg = super::util::calltrace(&args).current_dir(d).run().failure();
        assert!(
            msg.contains(out) && msg.contains("refusing to overwrite an input"),
            "{out}: {msg}"
        );
        assert_eq!(std::fs::read(d.join(out)).unwrap(), before, "{out} kept");
    }
    let ok = super::util::calltrace(["graph", "--trace", t, "-o", "g.dot"])
        .current_dir(d)
        .run()
        .success();
    assert!(ok.stderr.contains("wrote g.dot"), "{}", ok.stderr);
    let dot = std::fs::read_to_string(d.join("g.dot")).unwrap();
    assert!(dot.contains("lib_work"), "the library was read: {dot}");
}
