//! `calltrace export`: every format on a real program's trace, checked by
//! the tools that read it (serde_json for Chrome traces, callgrind_annotate
//! for callgrind profiles, an XML parser for flame graphs).

use std::path::Path;

use super::util::*;

/// Runs `calltrace export BINARY --trace TRACE --to FORMAT -o - EXTRA...`.
#[track_caller]
fn export(binary: &str, trace: &Path, to: &str, extra: &[&str]) -> Vec<u8> {
    let mut args: Vec<String> = vec!["export".to_string()];
    if !binary.is_empty() {
        args.push(binary.to_string());
    }
    for a in [
        "--trace",
        &trace.display().to_string(),
        "--to",
        to,
        "-o",
        "-",
    ] {
        args.push(a.to_string());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    calltrace(&args).run().success().stdout
}

/// (name, ts, dur, tid) of a Chrome trace's events.
fn chrome_events(json: &[u8]) -> Vec<(String, f64, f64, u64)> {
    let v: serde_json::Value = serde_json::from_slice(json).expect("valid JSON");
    v["traceEvents"]
        .as_array()
        .expect("traceEvents")
        .iter()
        .map(|e| {
            assert_eq!((&e["ph"], &e["pid"]), (&"X".into(), &1.into()), "{e}");
            let f = |k: &str| e[k].as_f64().unwrap_or_else(|| panic!("{k} in {e}"));
            let name = e["name"].as_str().expect("name").to_string();
            (name, f("ts"), f("dur"), e["tid"].as_u64().expect("tid"))
        })
        .collect()
}

#[test]
fn chrome_trace_has_one_nested_event_per_call_of_each_thread() {
    let p = threads();
    let trace = p.text_trace();
    let ev = chrome_events(&export(p.exe(), &trace.path, "chrome", &[]));
    assert_eq!(ev.len(), 16, "16 calls");
    let tids: std::collections::BTreeSet<u64> = ev.iter().map(|e| e.3).collect();
    assert!(tids.len() > 1, "one tid per thread: {tids:?}");
    for (i, x) in ev.iter().enumerate() {
        for y in &ev[i + 1..] {
            let (xe, ye) = (x.1 + x.2, y.1 + y.2);
            let disjoint = xe <= y.1 + 1e-9 || ye <= x.1 + 1e-9;
            let nested = (x.1 >= y.1 && xe <= ye) || (y.1 >= x.1 && ye <= xe);
            assert!(x.3 != y.3 || disjoint || nested, "{x:?} overlaps {y:?}");
        }
    }
    // The same calls as the call tree, by name.
    let tree_text = tree(p.exe(), &trace.path, &[]);
    let calls = tree_text
        .lines()
        .filter(|l| !l.trim_start().starts_with('['))
        .count();
    assert_eq!(ev.len(), calls);
}

#[test]
fn flamegraph_is_an_svg_naming_the_functions() {
    let p = hello_pie();
    let svg = String::from_utf8(export(p.exe(), &p.text_trace().path, "flamegraph", &[])).unwrap();
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&svg, opts).expect("well-formed XML");
    let text: String = doc.descendants().filter_map(|n| n.text()).collect();
    for f in ["main", "greet", "log_value", "total_area"] {
        assert!(text.contains(f), "{f} missing");
    }
}

#[test]
fn callgrind_profile_reads_in_callgrind_annotate_with_our_inclusive_totals() {
    let Some(annotate) = tool("callgrind_annotate") else {
        return;
    };
    // main 0..100 calls f (10..40, which calls g 20..25) and g (50..60):
    // inclusive main 100, f 30, g 15; self main 60, f 25, g 15.
    let (_d, trace) = temp_file(
        "t.trace",
        "E main 0\nE f 10\nE g 20\nX g 25\nX f 40\nE g 50\nX g 60\nX main 100\n",
    );
    let (dir, out) = temp_file("callgrind.out", "");
    let o = calltrace(["export", "--trace"])
        .args([&trace])
        .args(["--to", "callgrind", "-o"])
        .args([&out])
        .run()
        .success();
    assert!(o.stderr.contains("wrote"), "{}", o.stderr);
    let run = std::process::Command::new(annotate)
        .args(["--inclusive=yes"])
        .arg(&out)
        .current_dir(dir.path())
        .output()
        .expect("run callgrind_annotate");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for (func, incl) in [("main", 100), ("f", 30), ("g", 15)] {
        let found = text.lines().any(|l| {
            let l = l.trim();
            l.starts_with(&format!("{incl} ")) && l.ends_with(&format!(":{func}"))
                || l.starts_with(&format!("{incl} ")) && l.contains(&format!(":{func} "))
        });
        assert!(found, "{func} inclusive {incl} in:\n{text}");
    }
}

#[test]
fn json_tree_names_files_and_lines_from_dwarf() {
    let p = hello_pie();
    let json = export(p.exe(), &p.text_trace().path, "json", &[]);
    let v: serde_json::Value = serde_json::from_slice(&json).expect("valid JSON");
    assert_eq!((&v["unit"], &v["view"]), (&"ns".into(), &"contexts".into()));
    let main = &v["children"][0];
    assert_eq!(main["name"], "main");
    assert!(
        main["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("hello/main.c")),
        "{main}"
    );
    assert!(main["line"].as_u64().is_some_and(|l| l > 0));
    let kids: u64 = main["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["total"].as_u64().unwrap())
        .sum();
    assert_eq!(
        main["total"].as_u64().unwrap(),
        main["self"].as_u64().unwrap() + kids
    );
}

#[test]
fn folded_stacks_of_an_abstracted_tree_are_fewer() {
    let p = hello_pie();
    let trace = &p.text_trace().path;
    let all = String::from_utf8(export(p.exe(), trace, "folded", &[])).unwrap();
    let abstracted =
        String::from_utf8(export(p.exe(), trace, "folded", &["--threshold", "50%"])).unwrap();
    let sum = |s: &str| -> u64 {
        s.lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum()
    };
    assert!(
        all.lines().any(|l| l.starts_with("main;greet;log_value ")),
        "{all}"
    );
    assert!(
        abstracted.lines().count() < all.lines().count(),
        "{abstracted}"
    );
    assert_eq!(
        sum(&abstracted),
        sum(&all),
        "removed time moves into callers"
    );
}

#[test]
fn unknown_format_is_a_usage_error() {
    let out = calltrace(["export", "--to", "svg", "-o", "x"]).run();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("folded, flamegraph, chrome, callgrind, json")
            || out.stderr.contains("possible values"),
        "{}",
        out.stderr
    );
}
