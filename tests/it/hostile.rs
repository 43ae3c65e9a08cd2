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

/// Opens the FIFO `path` for writing once its reader is there, giving up
/// after a while (the reader may have failed before opening it).
fn open_fifo_writer(path: &std::path::Path) -> std::fs::File {
    use std::os::unix::fs::OpenOptionsExt;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(f) => return f,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                assert!(std::time::Instant::now() < deadline, "no reader");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn every_export_from_a_pipe_or_fifo_equals_the_export_from_a_file() {
    let (dir, _) = temp_file("s.txt", TRACE);
    let d = dir.path();
    for to in ["folded", "flamegraph", "chrome", "callgrind", "json", "tlv"] {
        let args = |out: &str| ["export", "--to", to, "--trace", "t", "-o", out].map(String::from);
        std::fs::write(d.join("t"), TRACE).unwrap();
        super::util::calltrace(args("file.out"))
            .current_dir(d)
            .run()
            .success();
        let from_file = std::fs::read(d.join("file.out")).unwrap();
        std::fs::remove_file(d.join("t")).unwrap();
        let made = Command::new("mkfifo").arg(d.join("t")).status().unwrap();
        assert!(made.success());
        let mut child = Command::new(BIN)
            .args(args("fifo.out"))
            .current_dir(d)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut w = open_fifo_writer(&d.join("t"));
        w.write_all(TRACE.as_bytes()).unwrap();
        drop(w);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{to} from a FIFO: {err}");
        assert_eq!(
            std::fs::read(d.join("fifo.out")).unwrap(),
            from_file,
            "{to}"
        );
        std::fs::remove_file(d.join("t")).unwrap();
        // And from standard input: the same events (the title names `-`).
        let piped = super::util::calltrace(["export", "--to", to, "--trace", "-", "-o", "-"])
            .stdin(TRACE)
            .run()
            .success();
        let work = if to == "tlv" {
            b"work".as_slice()
        } else {
            b"work"
        };
        assert!(
            piped.stdout.windows(work.len()).any(|w| w == work),
            "{to} from stdin names the functions"
        );
    }
}

/// A text trace of a program with `libs` shared libraries: a `# map` line
/// each (about 128 bytes) before the first event.
fn many_libraries(libs: usize) -> String {
    let mut t = String::from("# calltrace 1 text\n");
    for i in 0..libs {
        t += &format!(
            "# map 0x7f{i:04x}00000000 0x7f{i:04x}00001000 0x0 {:040x} /usr/lib/x86_64-linux-gnu/libnumber{i}.so.1\n",
            i
        );
    }
    t + TRACE
}

#[test]
fn traces_of_programs_with_many_libraries_are_not_empty() {
    for libs in [80, 1000] {
        let trace = many_libraries(libs);
        assert!(trace.len() > libs * 100);
        let (_dir, path) = temp_file("many.txt", &trace);
        let from_file = super::util::calltrace(["tree", "--trace", path.to_str().unwrap()])
            .run()
            .success()
            .text();
        assert!(from_file.starts_with("main ("), "{libs}: {from_file}");
        let from_pipe = super::util::calltrace(["tree", "--trace", "-"])
            .stdin(trace)
            .run()
            .success()
            .text();
        assert_eq!(from_pipe, from_file, "{libs} libraries through a pipe");
    }
}
