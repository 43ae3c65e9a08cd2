use super::*;
use crate::ingest::testing::parse;
use crate::ingest::{Event, EventKind, FuncKey};

const TOPPERS: &str = include_str!("../../../rules/toppers-asp.json");
const TOPPERS_LOG: &[u8] = include_bytes!("../../../testdata/logs/toppers-asp.log");

/// An event as (time, function name, thread index, kind).
type Named = (u64, String, u32, EventKind);

fn run(rules: &str, log: &[u8]) -> Result<(Vec<Named>, TraceMeta)> {
    let format = RulesFormat::from_text("r.json", rules)?;
    let (sink, meta, funcs) = parse(&format, "log", log, false)?;
    let named = |e: &Event| match funcs.key(e.func) {
        FuncKey::Name(n) => n.to_string(),
        other => format!("{other:?}"),
    };
    let events = sink
        .events
        .iter()
        .map(|e| (e.time, named(e), e.thread, e.kind))
        .collect();
    Ok((events, meta))
}

#[test]
fn toppers_calls_land_on_the_dispatched_task() {
    use EventKind::*;
    let (events, meta) = run(TOPPERS, TOPPERS_LOG).unwrap();
    let us = |t: u64| t * 1000;
    let expected = [
        (us(11006160), "dly_tsk", 0, Exit),
        (us(11006347), "dly_tsk", 0, Enter),
        (us(11007758), "sns_ctx", 1, Enter),
        (us(11007934), "sns_ctx", 1, Exit),
        (us(11008656), "sns_ctx", 1, Enter),
        (us(11008832), "sns_ctx", 1, Exit),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|&(t, n, th, k)| (t, n.to_string(), th, k))
        .collect();
    assert_eq!(events, expected);
    assert_eq!(meta.thread_names, ["task 4", "task 2"]);
    assert!(meta.timed && meta.warnings.is_empty(), "{meta:?}");
}

#[test]
fn lines_no_rule_matches_are_counted_once() {
    let rules =
        r#"{"rules": [{"regex": "^E (?P<f>\\w+)$", "emit": [{"kind": "enter", "name": "${f}"}]}]}"#;
    let (events, meta) = run(rules, b"E main\nnoise 1\n\nnoise 2\n").unwrap();
    assert_eq!(events.len(), 1);
    assert!(!meta.timed);
    assert_eq!(
        meta.warnings,
        ["2 line(s) of log matched no rule of r.json; first: line 2: `noise 1`"]
    );
}

#[test]
fn exits_without_time_or_name_use_the_open_call() {
    use EventKind::*;
    let rules = r#"{"rules": [
        {"regex": "^(?P<f>\\w+) \\{$", "emit": [{"kind": "enter", "name": "${f}"}]},
        {"regex": "^(?P<f>\\w+);(?P<d>\\d+)$", "emit": [{"kind": "complete", "name": "${f}", "duration": "${d}"}]},
        {"regex": "^\\}(?P<d>\\d+)$", "emit": [{"kind": "exit", "duration": "${d}"}]}]}"#;
    let (events, meta) = run(rules, b"main {\nleaf;3\nmid {\nleaf;2\n}5\n}20\n}1\n").unwrap();
    let got: Vec<_> = events
        .iter()
        .map(|(t, n, _, k)| (*t, n.as_str(), *k))
        .collect();
    assert_eq!(
        got,
        [
            (0, "main", Enter),
            (0, "leaf", Enter),
            (3, "leaf", Exit),
            (3, "mid", Enter),
            (3, "leaf", Enter),
            (5, "leaf", Exit),
            (8, "mid", Exit),
            (20, "main", Exit),
        ]
    );
    assert_eq!(
        meta.warnings,
        ["ignored 1 exit(s) with no name on a thread with no open call"]
    );
}

#[test]
fn state_guards_rules_and_bad_times_name_line_and_rule() {
    let rules = r#"{"radix": 16, "rules": [
        {"regex": "^on (?P<t>\\w+)$", "set": {"cur": "${t}"}},
        {"name": "call", "regex": "^(?P<time>\\w+) (?P<f>\\w+)$", "when": ["${state.cur} == a"],
         "emit": [{"kind": "enter", "time": "${time}", "name": "${f}", "thread": "${state.cur}"}]}]}"#;
    let (events, meta) = run(rules, b"ff f\non a\nff f\n").unwrap();
    assert_eq!(meta.threads, [1]);
    assert_eq!(events, [(255, "f".to_string(), 0, EventKind::Enter)]);
    assert_eq!(meta.thread_names, ["a"]);
    assert_eq!(meta.warnings.len(), 1, "the guarded line is unmatched");
    let err = run(rules, b"on a\nzz f\n").unwrap_err().to_string();
    assert_eq!(
        err,
        "log:2: rule 2 (call): field `emit[0].time`: `zz` is not a number in radix 16 (rules r.json)"
    );
}

#[test]
fn numeric_threads_keep_their_ids_and_named_ones_get_free_ids() {
    let rules = r#"{"rules": [{"regex": "^(?P<t>\\S+) (?P<f>\\w+)$",
        "emit": [{"kind": "enter", "name": "${f}", "thread": "${t}"}]}]}"#;
    let (_, meta) = run(rules, b"cpu f\n7 g\n1 h\n").unwrap();
    assert_eq!(meta.threads, [1, 7, 2]);
    assert_eq!(meta.thread_names, ["cpu", "", "1"]);
}

#[test]
fn a_state_variable_doubling_each_line_stops_at_the_bound_naming_the_rule() {
    let rules = r#"{"state": {"x": "ab"}, "rules": [
        {"name": "grow", "regex": "^(?P<f>\\w+)$", "set": {"x": "${state.x}${state.x}"},
         "emit": [{"kind": "complete", "time": "1", "duration": "1", "name": "${f}"}]}]}"#;
    let log = "f\n".repeat(64);
    let err = run(rules, log.as_bytes()).unwrap_err().to_string();
    // "ab" doubled 19 times is 1 MiB; the 20th doubling passes the bound.
    assert!(err.contains("log:20:"), "{err}");
    assert!(
        err.contains("rule 1 (grow)") && err.contains("`x`"),
        "{err}"
    );
}

#[test]
fn names_over_the_bound_are_refused_or_skipped() {
    use crate::ingest::funcs::MAX_NAME;
    let rules =
        r#"{"rules": [{"regex": "^E (?P<f>\\S+)$", "emit": [{"kind": "enter", "name": "${f}"}]}]}"#;
    let log = |len: usize| format!("E main\nE {}\nE g\n", "n".repeat(len)).into_bytes();
    let (events, _) = run(rules, &log(MAX_NAME)).unwrap();
    assert_eq!(events.len(), 3, "at the bound");
    let err = run(rules, &log(MAX_NAME + 1)).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "log:2: rule 1: field `emit[0].name`: expected a function name of at most 1 MiB, not one of {} bytes (rules r.json)",
            MAX_NAME + 1
        )
    );
    let format = RulesFormat::from_text("r.json", rules).unwrap();
    let (sink, meta, _) = parse(&format, "log", &log(MAX_NAME + 1), true).unwrap();
    assert_eq!((sink.events.len(), meta.skipped_lines), (2, 1));
}
