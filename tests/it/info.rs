//! `calltrace info`: what is in a trace. On a real threaded program (each
//! thread row's id is one `--tid` takes, and its calls are those the
//! thread's graph shows), on a freestanding buffer (its task and exception
//! handler as named threads, times in cycles, a full buffer's dropped
//! events among the warnings), `--json` against the text, and a bad trace.

use std::path::Path;

use serde_json::Value;

use super::freestanding_read::{Buf, cortex_m3};
use super::util::*;

/// `calltrace info` of `trace` (with `binary` unless empty) and `extra`.
fn info(binary: &str, trace: &Path, extra: &[&str]) -> String {
    let mut args: Vec<&std::ffi::OsStr> = vec!["info".as_ref()];
    if !binary.is_empty() {
        args.push(binary.as_ref());
    }
    args.extend(["--trace".as_ref(), trace.as_os_str()]);
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    calltrace(args).run().success().text()
}

/// `calltrace info --json` of `trace`, parsed.
fn info_json(binary: &str, trace: &Path) -> Value {
    let text = info(binary, trace, &["--json"]);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The first number after `key` at the start of a line of `text`.
#[track_caller]
fn number(text: &str, key: &str) -> u64 {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("no `{key}` in\n{text}"));
    let digits: String = line
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap_or_else(|_| panic!("{key}{line}"))
}

/// The thread rows of the text: (id, name, calls).
fn text_threads(text: &str) -> Vec<(u64, String, u64)> {
    let table = text.split_once("\n  id ").expect("a thread table").1;
    table
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            let n = |i: usize| cells[i].parse::<u64>().expect("a number");
            (n(0), cells[1].to_string(), n(2))
        })
        .collect()
}

/// The JSON's thread rows: (id, name or `-`, calls).
fn json_threads(json: &Value) -> Vec<(u64, String, u64)> {
    let rows = json["threads"].as_array().expect("threads");
    rows.iter()
        .map(|r| {
            let name = r["name"].as_str().unwrap_or("-").to_string();
            (
                r["id"].as_u64().unwrap(),
                name,
                r["calls"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `graph --csv` of the one thread `--tid tid` names, nothing pruned.
fn graph_of_thread(binary: &str, trace: &Path, tid: &str) -> Graph {
    let dir = tempfile::tempdir().expect("temp dir");
    let (dot, csv) = (dir.path().join("g.dot"), dir.path().join("g.csv"));
    let out = calltrace(["graph", binary, "--tid", tid, "--min-total", "0"])
        .args(["--min-edge", "0", "--trace"])
        .args([trace])
        .args([
            "-o".as_ref(),
            dot.as_os_str(),
            "--csv".as_ref(),
            csv.as_os_str(),
        ])
        .run()
        .success();
    Graph {
        dot: String::new(),
        csv: std::fs::read(&csv).expect("read CSV"),
        stderr: out.stderr,
    }
}

/// The sum of the calls column of `graph --csv` (calls below a caller).
fn edge_calls(g: &Graph) -> u64 {
    g.edges().iter().map(|e| e.2).sum()
}

#[test]
fn threads_program_rows_are_what_tid_takes_and_sum_to_the_calls() {
    let p = threads();
    let trace = &p.text_trace().path;
    let text = info(p.exe(), trace, &[]);
    let rows = text_threads(&text);
    assert_eq!(rows.len(), 3, "main and two workers:\n{text}");
    let mut ids: Vec<u64> = rows.iter().map(|r| r.0).collect();
    ids.sort_unstable();
    assert_eq!(ids, rows.iter().map(|r| r.0).collect::<Vec<_>>(), "sorted");
    let calls = number(&text, "calls:");
    assert_eq!(rows.iter().map(|r| r.2).sum::<u64>(), calls, "{text}");
    // Each thread's graph: its edges' calls plus its one top-level call.
    for (id, _, row_calls) in &rows {
        let tid = id.to_string();
        let g = graph_of_thread(p.exe(), trace, &tid);
        assert_eq!(edge_calls(&g) + 1, *row_calls, "--tid {tid}:\n{text}");
    }
    // And the whole trace: the graph's calls plus one top-level call per thread.
    let g = graph(p.exe(), trace);
    assert_eq!(edge_calls(&g) + rows.len() as u64, calls, "{text}");
    assert_eq!(number(&text, "events:"), 2 * calls, "balanced: {text}");
    assert!(text.contains("unit:      ns\n") && text.contains("repairs:   none\n"));
    assert_eq!(
        number(&text, "max depth:"),
        3,
        "main -> main_work -> leaf_main:\n{text}"
    );
}

#[test]
fn json_holds_the_numbers_of_the_text() {
    let p = threads();
    let trace = &p.text_trace().path;
    let text = info(p.exe(), trace, &[]);
    let json = info_json(p.exe(), trace);
    for (key, field) in [
        ("events:", "events"),
        ("calls:", "calls"),
        ("functions:", "functions"),
        ("max depth:", "max_depth"),
        ("span:", "span"),
    ] {
        let shown = text
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("{key}"));
        let value = json[field].as_u64().unwrap_or_else(|| panic!("{field}"));
        // Text shows a span for people first, its number in parentheses.
        let raw = match shown.rsplit_once('(') {
            Some((_, n)) if field == "span" => n.trim_end_matches(')').to_string(),
            _ => number(&text, key).to_string(),
        };
        assert_eq!(raw, value.to_string(), "{key} {shown} vs {field}");
    }
    assert_eq!(json["functions"].as_u64(), Some(9), "{text}");
    assert_eq!(json["format"], "addr");
    assert_eq!(json["unit"], "ns");
    assert_eq!(json_threads(&json), text_threads(&text));
    assert_eq!(
        json["entries"].as_u64().unwrap() + json["exits"].as_u64().unwrap(),
        json["events"].as_u64().unwrap()
    );
}

#[test]
fn a_filter_counts_only_what_it_keeps() {
    // Each thread alone: its row's calls, twice as many events, one row.
    let p = threads();
    let trace = &p.text_trace().path;
    let whole = json_threads(&info_json(p.exe(), trace));
    for (id, name, calls) in &whole {
        let tid = id.to_string();
        let text = info(p.exe(), trace, &["--json", "--tid", &tid]);
        let json: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(json["calls"].as_u64(), Some(*calls), "--tid {tid}: {text}");
        assert_eq!(
            json["events"].as_u64(),
            Some(2 * calls),
            "--tid {tid}: {text}"
        );
        assert_eq!(json["entries"], json["exits"], "--tid {tid}: {text}");
        assert_eq!(json_threads(&json), vec![(*id, name.clone(), *calls)]);
    }
    // A function's subtree on every thread: fewer calls than the whole,
    // as many events as the graph of that subtree has calls, twice.
    let all: u64 = whole.iter().map(|r| r.2).sum();
    let text = info(p.exe(), trace, &["--json", "--function", "worker_*"]);
    let json: Value = serde_json::from_str(&text).expect("JSON");
    let calls = json["calls"].as_u64().expect("calls");
    assert!(0 < calls && calls < all, "{calls} of {all}: {text}");
    assert_eq!(json["events"].as_u64(), Some(2 * calls), "{text}");
    let rows = json_threads(&json);
    assert_eq!(rows.iter().map(|r| r.2).sum::<u64>(), calls, "{text}");
}

/// `main` (thread mode) calls `mid` twice, the task `sensor` runs
/// `sample`, and SysTick (exception 15) fires inside the second `mid`.
fn firmware(s: &super::freestanding_read::Symbols, dropped: u32) -> Buf {
    let mut b = Buf {
        tasks: vec!["sensor"],
        dropped,
        ..Buf::default()
    };
    let (main, mid, leaf) = (s.get("main"), s.get("mid"), s.get("leaf"));
    b.enter(main, 100).enter(mid, 105).exit(mid, 110);
    b.enter(mid, 120);
    b.switch(0x7FFF, 0x800F);
    b.enter(s.get("SysTick_Handler"), 121).enter(leaf, 122);
    b.exit(leaf, 124).exit(s.get("SysTick_Handler"), 126);
    b.switch(0x800F, 0x7FFF);
    b.exit(mid, 130);
    b.switch(0x7FFF, 0);
    b.enter(s.get("sample"), 140).exit(s.get("sample"), 150);
    b.switch(0, 0x7FFF);
    b.exit(main, 160);
    b
}

#[test]
fn a_freestanding_buffer_shows_its_task_and_exception_by_name_in_cycles() {
    let Some((elf, syms)) = cortex_m3("info-m3", &["-g"]) else {
        return;
    };
    let dir = elf.parent().expect("a directory");
    let trace = firmware(&syms, 0).write(dir, "ram.bin");
    let elf = elf.to_str().expect("UTF-8");
    let text = info(elf, &trace, &[]);
    assert!(text.contains("unit:      cycles\n"), "{text}");
    assert_eq!(number(&text, "span:"), 60, "160 - 100 cycles:\n{text}");
    let json = info_json(elf, &trace);
    assert_eq!(json["unit"], "cycles");
    assert_eq!(json["span"].as_u64(), Some(60));
    let rows = json_threads(&json);
    let names: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    for name in ["main", "sensor", "SysTick_Handler"] {
        assert!(names.contains(&name), "{name} in {rows:?}\n{text}");
        // The name is one `--tid` takes, and picks that thread's calls.
        let tree = calltrace(["tree", elf, "--view", "calls", "--tid", name, "--trace"])
            .args([&trace])
            .run()
            .success()
            .text();
        let row = rows.iter().find(|r| r.1 == name).expect("the row");
        assert_eq!(tree.lines().count() as u64, row.2, "--tid {name}:\n{tree}");
    }
    assert_eq!(json["calls"].as_u64(), Some(6), "{text}");
    assert_eq!(json["warnings"].as_array().map(Vec::len), Some(0), "{text}");
}

#[test]
fn a_full_buffer_says_how_many_events_it_dropped() {
    let Some((elf, syms)) = cortex_m3("info-m3-full", &["-g"]) else {
        return;
    };
    let dir = elf.parent().expect("a directory");
    let trace = firmware(&syms, 7).write(dir, "ram.bin");
    let json = info_json(elf.to_str().expect("UTF-8"), &trace);
    let warnings = json["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .is_some_and(|w| w.contains("7 event(s) were dropped"))),
        "{json}"
    );
}

#[test]
fn a_bad_trace_exits_2_naming_the_file() {
    let (dir, _) = temp_file("bad.txt", "this is not a trace\n\u{1}\u{2}\n");
    // `failure` holds the exit code to 2 and the output to nothing.
    let msg = calltrace(["info", "--trace", "bad.txt"])
        .current_dir(dir.path())
        .run()
        .failure();
    assert!(msg.contains("bad.txt"), "{msg}");
    assert!(listing(dir.path()) == ["bad.txt"], "wrote nothing");
}
