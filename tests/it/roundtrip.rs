//! Properties across commands: `calltrace tree` output read back by
//! `calltrace tree` prints the same tree and gives the same graph, and every
//! output is the same bytes on every run.

use std::path::PathBuf;

use super::util::*;

/// (binary, trace) pairs covering every format and both tree shapes.
fn inputs() -> Vec<(&'static str, PathBuf)> {
    let mut v = Vec::new();
    for p in [hello_pie(), threads(), longjmp(), cpp()] {
        v.push((p.exe(), p.text_trace().path.clone()));
    }
    v.push((threads().exe(), threads().binary_trace().path.clone()));
    for case in ["fig1", "decimals", "symbolic", "repair"] {
        v.push(("", data(case, "trace.txt")));
    }
    v
}

#[test]
fn tree_output_read_back_prints_the_same_tree() {
    for (binary, trace) in inputs() {
        // Same view both times; a calling-context tree also reads back
        // unchanged as a call tree (its `xN` nodes stay merged).
        for (view, again) in [
            ("calls", "calls"),
            ("contexts", "contexts"),
            ("contexts", "calls"),
        ] {
            let printed = tree(binary, &trace, &["--view", view]);
            let reread = calltrace(["tree", "--trace", "-", "--view", again])
                .stdin(printed.clone())
                .run()
                .success();
            assert_eq!(
                reread.text(),
                printed,
                "{} --view {view}, read back with --view {again}",
                trace.display()
            );
            assert_eq!(reread.stderr, "", "nothing to repair in a printed tree");
        }
    }
}

#[test]
fn the_printed_tree_has_the_graph_of_the_trace() {
    for (binary, trace) in inputs() {
        let original = graph(binary, &trace).csv;
        // An untimed trace prints call counts as weights, which read back as
        // numbers of unknown unit: then only the edges and their counts must
        // match. Times printed in exact nanoseconds read back exactly.
        let timed = csv_total_unit(&original) == "ns";
        for view in ["calls", "contexts"] {
            let printed = tree(binary, &trace, &["--view", view, "--time-unit", "ns"]);
            let (_d, printed) = temp_file("tree.txt", printed);
            let reread = graph("", &printed).csv;
            let what = format!("{} --view {view}", trace.display());
            match timed {
                true => assert_eq!(
                    String::from_utf8(reread).unwrap(),
                    String::from_utf8(original.clone()).unwrap(),
                    "{what}"
                ),
                false => assert_eq!(csv_edges(&reread), csv_edges(&original), "{what}"),
            }
        }
    }
}

#[test]
fn output_is_identical_on_every_run() {
    for (binary, trace) in inputs() {
        let first = graph(binary, &trace);
        let second = graph(binary, &trace);
        assert_eq!(first.dot, second.dot, "{}", trace.display());
        assert_eq!(first.csv, second.csv, "{}", trace.display());
        for view in ["calls", "contexts"] {
            assert_eq!(
                tree(binary, &trace, &["--view", view]),
                tree(binary, &trace, &["--view", view]),
                "{} --view {view}",
                trace.display()
            );
        }
    }
}
