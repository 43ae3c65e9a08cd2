//! `calltrace live --batch` following a real program: bzip2 (the
//! bzip2-sys crate's sources, program and library instrumented) compresses
//! generated text while it writes its trace, text or binary, into a FIFO
//! that `live` reads. Every event must be counted, and each function's
//! calls must equal what `graph --csv` counts on the same run written to a
//! file (bzip2 makes the same calls on the same input every time).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::util::*;

/// bzip2's program and library sources.
const BZIP2_FILES: &[&str] = &[
    "blocksort.c",
    "huffman.c",
    "crctable.c",
    "randtable.c",
    "compress.c",
    "decompress.c",
    "bzlib.c",
    "bzip2.c",
];

/// bzip2 built with the runtime, once per test run, with its input: the
/// directory and the program.
fn build() -> &'static (PathBuf, PathBuf) {
    static BUILT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(build_once)
}

fn build_once() -> (PathBuf, PathBuf) {
    let bz = third_party("bzip2");
    let dir = fresh_dir("live_follow", "bzip2");
    let exe = dir.join("bzip2");
    compile(
        Command::new("gcc")
            .args(["-O2", "-g", "-w", "-finstrument-functions", "-I"])
            .arg(&bz)
            .args(BZIP2_FILES.iter().map(|f| bz.join(f)))
            .arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-lpthread"),
    );
    let text: String = (0..6000)
        .map(|i| format!("line {i} of words {} and {}\n", i * 7 % 113, i % 17))
        .collect();
    std::fs::write(dir.join("input.txt"), text).unwrap();
    (dir, exe)
}

/// Runs bzip2 on its input with its trace going to `out` in `format`.
fn run_bzip2(dir: &Path, exe: &Path, format: &str, out: &str) {
    let output = output_within(
        Command::new(exe)
            .args(["-c", "input.txt"])
            .current_dir(dir)
            .env("CALLTRACE_FORMAT", format)
            .env("CALLTRACE_OUT", out),
        60,
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Calls by callee in `graph --csv` on a trace written to a file.
fn graph_calls(exe: &Path, trace: &Path) -> BTreeMap<String, u64> {
    let exe = exe.to_str().unwrap();
    let mut calls = BTreeMap::new();
    for (_, callee, n) in graph(exe, trace).edges() {
        *calls.entry(callee).or_default() += n;
    }
    calls
}

/// `live --batch` following a FIFO the program writes: calls by function
/// and the events it says it read.
fn live_calls(dir: &Path, exe: &Path, format: &str) -> (BTreeMap<String, u64>, u64) {
    let fifo = dir.join(format!("{format}.fifo"));
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    let live = Command::new(BIN)
        .arg("live")
        .arg(exe)
        .arg("--trace")
        .arg(&fifo)
        .arg("--batch")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start calltrace live");
    run_bzip2(dir, exe, format, fifo.to_str().unwrap());
    let out = live.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let events = err
        .split("events")
        .next()
        .and_then(|s| s.rsplit(' ').nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no event count in {err}"));
    assert!(err.contains(" 0 dropped, 0 skipped"), "{err}");
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    assert_eq!(
        r.headers().unwrap().iter().collect::<Vec<_>>(),
        ["function", "calls", "self_ns"]
    );
    let calls = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            (rec[0].to_string(), rec[1].parse().unwrap())
        })
        .collect();
    (calls, events)
}

/// The E/X lines of a text trace.
fn text_events(trace: &Path) -> u64 {
    let text = std::fs::read(trace).unwrap();
    text.split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"E") || l.starts_with(b"X"))
        .count() as u64
}

fn follows_bzip2_through_a_fifo(format: &str) {
    if tool("mkfifo").is_none() {
        return;
    }
    let (dir, exe) = build();
    let text = format!("{format}-events.txt");
    run_bzip2(dir, exe, "text", &text);
    let events = text_events(&dir.join(text));
    let file = format!("{format}-file.trace");
    run_bzip2(dir, exe, format, &file);
    let mut want = graph_calls(exe, &dir.join(&file));
    // The outermost call has no caller, so no edge.
    want.insert("main".to_string(), 1);
    let (got, live_events) = live_calls(dir, exe, format);
    assert!(events > 100_000, "a real run: {events} events");
    assert_eq!(live_events, events, "every event counted");
    assert_eq!(got, want);
}

#[test]
fn live_follows_a_text_trace_of_bzip2_and_counts_every_call() {
    follows_bzip2_through_a_fifo("text");
}

#[test]
fn live_follows_a_binary_trace_of_bzip2_and_counts_every_call() {
    follows_bzip2_through_a_fifo("binary");
}

/// A regular file is read to its end with `--batch`, and its totals
/// match `graph`'s.
#[test]
fn live_batch_reads_a_finished_file_to_its_end() {
    let (dir, exe) = build();
    run_bzip2(dir, exe, "binary", "whole.bin");
    let out = calltrace(["live", "--batch", "--trace"])
        .args([dir.join("whole.bin")])
        .args([exe])
        .run()
        .success();
    let want = graph_calls(exe, &dir.join("whole.bin"));
    let text = out.text();
    for (callee, n) in want {
        let row = format!("\n{callee},{n},");
        assert!(text.contains(&row), "{row:?} not in {text}");
    }
}
