//! `calltrace export --to tlv`: the TraceLogVisualizer standard-format log
//! read back through the shipped `rules/tlv.json` gives the graph of the
//! original trace (same edges, call counts and times), for real C programs
//! traced here (one and three threads), for C++ names (written with the
//! documented character substitutions) and for the bundled symbolic trace.

use std::path::{Path, PathBuf};

use super::util::*;

/// `calltrace export [BINARY] --trace TRACE --to tlv -o DIR/out.tlv`; the log.
#[track_caller]
fn export_tlv(binary: &str, trace: &Path, dir: &Path) -> PathBuf {
    let out = dir.join("out.tlv");
    let mut args: Vec<&std::ffi::OsStr> = vec!["export".as_ref()];
    if !binary.is_empty() {
        args.push(binary.as_ref());
    }
    args.extend::<[&std::ffi::OsStr; 6]>([
        "--trace".as_ref(),
        trace.as_ref(),
        "--to".as_ref(),
        "tlv".as_ref(),
        "-o".as_ref(),
        out.as_ref(),
    ]);
    calltrace(args).run().success();
    out
}

/// `calltrace graph --rules rules/tlv.json --trace LOG`, nothing pruned.
#[track_caller]
fn graph_of_log(log: &Path, dir: &Path) -> Graph {
    let (dot, csv) = (dir.join("back.dot"), dir.join("back.csv"));
    let rules = root().join("rules/tlv.json");
    let out = calltrace(["graph", "--min-total", "0", "--min-edge", "0", "--rules"])
        .args([&rules, Path::new("--trace"), log, Path::new("-o"), &dot])
        .args([Path::new("--csv"), &csv])
        .run()
        .success();
    Graph {
        dot: std::fs::read_to_string(&dot).expect("read DOT"),
        csv: std::fs::read(&csv).expect("read CSV"),
        stderr: out.stderr,
    }
}

/// Exports `trace` to TLV, reads it back and checks every line is a TLV
/// behaviour event the rules turned into a call: the read-back graph.
#[track_caller]
fn round_trip(binary: &str, trace: &Path) -> (Graph, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = export_tlv(binary, trace, dir.path());
    let text = std::fs::read_to_string(&log).expect("read log");
    for line in text.lines() {
        let (time, event) = line
            .strip_prefix('[')
            .and_then(|l| l.split_once(']'))
            .unwrap_or_else(|| panic!("no [time]: {line}"));
        assert!(time.bytes().all(|b| b.is_ascii_digit()), "{line}");
        let (res, behavior) = event.split_once('.').expect("Resource.behavior");
        assert!(res.starts_with("Thread_"), "{line}");
        assert!(
            behavior.starts_with("enter(") || behavior.starts_with("leave("),
            "{line}"
        );
        assert!(!behavior.contains(['"', '\\']), "TLV arguments: {line}");
    }
    let back = graph_of_log(&log, dir.path());
    assert!(!back.stderr.contains("warning"), "{}", back.stderr);
    (back, text)
}

#[test]
fn a_c_programs_graph_survives_the_round_trip() {
    let p = hello_pie();
    let trace = p.text_trace();
    let original = graph(p.exe(), &trace.path);
    let (back, log) = round_trip(p.exe(), &trace.path);
    assert_eq!(
        String::from_utf8_lossy(&back.csv),
        String::from_utf8_lossy(&original.csv),
        "edges, calls and times"
    );
    assert_eq!(
        without_tooltips(&back.dot),
        without_tooltips(&original.dot),
        "nodes and edges"
    );
    assert!(!back.dot.contains(".c:"), "the log has no files");
    assert!(
        back.dot.contains("per call: min "),
        "per-call times survive"
    );
    let calls: u64 = original.edges().iter().map(|e| e.2).sum();
    let enters = log.lines().filter(|l| l.contains(".enter(")).count() as u64;
    assert_eq!(enters, calls + 1, "one enter per call, main's included");
    let tid = format!("]Thread_{}.", trace.pid);
    assert!(
        log.lines().all(|l| l.contains(&tid)),
        "the main thread's id"
    );
}

#[test]
fn each_thread_is_a_resource_and_keeps_its_calls() {
    let p = threads();
    let trace = p.text_trace();
    let original = graph(p.exe(), &trace.path);
    let (back, log) = round_trip(p.exe(), &trace.path);
    assert_eq!(
        String::from_utf8_lossy(&back.csv),
        String::from_utf8_lossy(&original.csv)
    );
    let mut resources: Vec<_> = log
        .lines()
        .filter_map(|l| l.split_once(']')?.1.split_once('.').map(|r| r.0))
        .collect();
    resources.sort();
    resources.dedup();
    assert_eq!(resources.len(), 3, "main and two workers: {resources:?}");
}

/// The DOT without the `tooltip="FILE:LINE"` attributes DWARF gave it.
fn without_tooltips(dot: &str) -> String {
    let mut out = String::new();
    for line in dot.lines() {
        match line.find(", tooltip=\"") {
            Some(at) => {
                out.push_str(&line[..at]);
                out.push_str("];");
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// The documented substitutions for characters TLV arguments cannot hold.
fn as_argument(name: &str) -> String {
    name.replace('(', "[")
        .replace(')', "]")
        .replace(',', ";")
        .replace('"', "'")
        .replace('\\', "/")
}

fn renamed(edges: Vec<Edge>) -> Vec<Edge> {
    let mut v: Vec<Edge> = edges
        .into_iter()
        .map(|(a, b, n)| (as_argument(&a), as_argument(&b), n))
        .collect();
    v.sort();
    v
}

#[test]
fn cpp_names_come_back_with_their_substitutions() {
    let p = cpp();
    let trace = p.text_trace();
    let original = graph(p.exe(), &trace.path);
    assert!(
        original.edges().iter().any(|e| e.1.contains(['(', ','])),
        "the program has names to substitute"
    );
    let (back, _) = round_trip(p.exe(), &trace.path);
    assert_eq!(back.edges(), renamed(original.edges()));
}

#[test]
fn the_bundled_symbolic_trace_survives_the_round_trip() {
    let trace = root().join("tests/data/symbolic/trace.txt");
    let original = graph("", &trace);
    let (back, _) = round_trip("", &trace);
    assert_eq!(back.edges(), renamed(original.edges()));
    let totals = |csv: &[u8]| -> Vec<String> {
        let mut t: Vec<_> = csv_rows(csv).into_iter().map(|r| r[3].clone()).collect();
        t.sort();
        t
    };
    assert_eq!(totals(&back.csv), totals(&original.csv), "times in ns");
}
