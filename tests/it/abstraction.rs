//! `calltrace abstract` end to end: the paper's figure 1 through the
//! command line, a golden DOT and tree of a real program's trace (the
//! printer's committed fax pattern), modules from DWARF source files of a
//! freshly compiled program, and the errors a user can make.

use super::util::*;

const TABLE1: &str =
    "function,module\nMain,m1\nfuncA,m1\nfuncB,m2\nfuncC,m2\nfuncE,m2\nfuncD,m3\nfuncF,m4\n";

#[test]
fn dot_on_stdout_is_not_mixed_with_the_summary() {
    let (_dir, modules) = temp_file("table1.csv", TABLE1);
    let out = calltrace(["abstract", "--merge-modules", "--trace"])
        .args([data("fig1", "trace.txt")])
        .args([
            "--modules".as_ref(),
            modules.as_os_str(),
            "-o".as_ref(),
            "-".as_ref(),
        ])
        .run()
        .success();
    let dot = out.text();
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(!dot.contains("nodes ->"), "{dot}");
}

#[test]
fn figure_1_merge_through_the_command_line() {
    let (dir, modules) = temp_file("table1.csv", TABLE1);
    let out_tree = dir.path().join("merged.txt");
    let out = calltrace(["abstract", "--merge-modules", "--trace"])
        .args([data("fig1", "trace.txt")])
        .args([
            "--modules".as_ref(),
            modules.as_os_str(),
            "--tree-out".as_ref(),
            out_tree.as_os_str(),
        ])
        .run()
        .success();
    assert_eq!(
        out.text(),
        "merge: 7 nodes -> 5 nodes (kept 71.43%, eliminated 28.57%); kept nodes' self times explain 100% of the root's total\n"
    );
    let merged = std::fs::read_to_string(&out_tree).unwrap();
    assert_eq!(
        merged,
        "Main (4500 / 10000)\n  funcC (1300 / 1300)\n  funcD (1200 / 1200)\n  funcB (2500 / 3000)\n    funcF (500 / 500)\n"
    );
    assert_eq!(
        tree("", &out_tree, &[]),
        merged,
        "--tree-out reads back to the same tree"
    );
}

/// An untimed trace weighs calls: merging a callee into its caller adds
/// its calls to the caller's own, in the calls view and in the contexts
/// view alike (the contexts view used to weigh the folded tree's calls
/// again, and lost the merged ones).
#[test]
fn untimed_merge_keeps_the_merged_calls_in_both_views() {
    // main calls helper 3 times, each calling leaf twice; helper is main's module.
    let mut trace = String::from("E main\n");
    for _ in 0..3 {
        trace.push_str("E helper\nE leaf\nX leaf\nE leaf\nX leaf\nX helper\n");
    }
    trace.push_str("X main\n");
    let dir = tempfile::tempdir().unwrap();
    let (path, modules) = (dir.path().join("t.txt"), dir.path().join("m.csv"));
    std::fs::write(&path, trace).unwrap();
    std::fs::write(&modules, "function,module\nmain,a\nhelper,a\nleaf,b\n").unwrap();
    for (view, expected) in [
        (
            "calls",
            "main (4 calls / 10 calls)\n  leaf (1 call / 1 call)\n  leaf (1 call / 1 call)\n  leaf (1 call / 1 call)\n  leaf (1 call / 1 call)\n  leaf (1 call / 1 call)\n  leaf (1 call / 1 call)\n",
        ),
        (
            "contexts",
            "main (4 calls / 10 calls)\n  leaf (6 calls / 6 calls) x6\n",
        ),
    ] {
        let out = calltrace(["abstract", "--merge-modules", "--view", view, "--trace"])
            .args([path.as_os_str(), "--modules".as_ref(), modules.as_os_str()])
            .args(["--tree-out", "-"])
            .run()
            .success();
        let text = out.text();
        assert!(text.starts_with(expected), "--view {view}:\n{text}");
        // The summary goes to stderr when the tree takes stdout.
        assert!(
            out.stderr
                .contains("kept nodes' own calls explain 100% of the root's calls"),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn printer_fax_pattern_golden() {
    let p = root().join("testdata/printer");
    let dir = tempfile::tempdir().unwrap();
    let (dot, txt) = (dir.path().join("fax.dot"), dir.path().join("fax.txt"));
    let out = calltrace(["abstract"])
        .args([p.join("traces/printer")])
        .args(["--trace".as_ref(), p.join("traces/fax.trace").as_os_str()])
        .args(["--modules".as_ref(), p.join("modules.csv").as_os_str()])
        .args(["--merge-modules", "--threshold", "90%", "-o"])
        .args([&dot])
        .args(["--tree-out".as_ref(), txt.as_os_str()])
        .run()
        .success();
    assert_golden("abstract-fax", "stdout.txt", &out.text());
    let dot = std::fs::read_to_string(&dot).unwrap();
    assert!(
        dot.contains("subgraph cluster_legend"),
        "one colour per module, with a legend"
    );
    assert_golden(
        "abstract-fax",
        "fax.dot",
        &dot.replace(p.to_str().unwrap(), "<printer>"),
    );
    assert_golden(
        "abstract-fax",
        "fax.txt",
        &std::fs::read_to_string(&txt).unwrap(),
    );
}

#[test]
fn auto_file_modules_merge_calls_within_a_source_file() {
    let hello = hello_pie();
    let (_d, trace) = temp_file("trace.txt", untimed(&hello.text_trace().text()));
    let (dir, _) = temp_file("x", "");
    let out_tree = dir.path().join("merged.txt");
    calltrace([
        "abstract",
        hello.exe(),
        "--modules",
        "auto:file",
        "--merge-modules",
        "--trace",
    ])
    .args([&trace])
    .args(["--tree-out".as_ref(), out_tree.as_os_str()])
    .run()
    .success();
    // main.c: main, greet; shapes.c: *_area; util.c: the rest. Calls inside
    // one file merge away: square_area's rect_area, factorial's
    // recursion and multiply; calls into another file stay.
    assert_eq!(
        shape(&std::fs::read_to_string(&out_tree).unwrap()),
        "main\n  log_value\n  total_area\n    multiply\n    multiply\n    multiply\n    half\n    sum3\n  log_value\n  factorial\n  log_value\n  log_value\n"
    );
}

#[test]
fn user_errors_name_the_file_line_or_flag() {
    let trace = data("fig1", "trace.txt");
    let (_d, bad) = temp_file("m.csv", "Main,m1\nfuncA\n");
    let msg = calltrace(["abstract", "--trace"])
        .args([&trace])
        .args(["--modules".as_ref(), bad.as_os_str()])
        .run()
        .failure();
    assert!(
        msg.contains("m.csv:2: expected two columns `function,module`, found 1 column(s)"),
        "{msg}"
    );
    let out = calltrace(["abstract", "--threshold", "1.5", "--trace"])
        .args([&trace])
        .run();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("'--threshold <T>': \"1.5\" is not a share: did you mean 1.5%?"),
        "{}",
        out.stderr
    );
    let msg = calltrace(["abstract", "--modules", "auto:file", "--trace"])
        .args([&trace])
        .run()
        .failure();
    assert!(
        msg.contains("--modules: auto:file and auto:dir need an address trace"),
        "{msg}"
    );
    let out = calltrace(["abstract", "--modules", "auto:function", "--trace"])
        .args([&trace])
        .run();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("'--modules <M>': unknown `auto:function`; expected auto, auto:file"),
        "{}",
        out.stderr
    );
}

/// The printer's fax pattern through the recommended pipeline.
fn fax_default(dir: &std::path::Path, extra: &[&str]) -> (Output, String) {
    let p = root().join("testdata/printer");
    let stats = dir.join("stats.json");
    let out = calltrace(["abstract"])
        .args([p.join("traces/printer")])
        .args(["--trace".as_ref(), p.join("traces/fax.trace").as_os_str()])
        .args(["--stats".as_ref(), stats.as_os_str()])
        .args(extra)
        .run()
        .success();
    (out, std::fs::read_to_string(stats).unwrap())
}

#[test]
fn no_method_runs_the_recommended_pipeline_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("fax.dot");
    let (out, stats) = fax_default(dir.path(), &["-o", dot.to_str().unwrap()]);
    assert!(
        out.stderr.contains("no method given: using the recommended pipeline: --view contexts, --merge-modules (modules: auto picked auto:file"),
        "{}",
        out.stderr
    );
    assert_golden("abstract-default", "stdout.txt", &out.text());
    assert_golden("abstract-default", "stats.json", &stats);
    let json: serde_json::Value = serde_json::from_str(&stats).unwrap();
    let num = |k: &str| json[k].as_f64().unwrap();
    assert_eq!(num("nodes_before"), 1618.0, "the fax pattern's call nodes");
    assert!(num("contexts") < num("nodes_before"));
    assert!((num("explained_time") + num("absorbed_time") - 1.0).abs() < 1e-12);
    assert_eq!(json["parameters"]["min_total"], 0.001);
    let dot = std::fs::read_to_string(&dot).unwrap();
    assert!(dot.contains(" → "), "a chain drawn as one node:\n{dot}");
    assert_golden(
        "abstract-default",
        "fax.dot",
        &dot.replace(root().to_str().unwrap(), "<root>"),
    );
}

#[test]
fn summary_line_is_honest_about_small_shares() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = fax_default(dir.path(), &["--max-nodes", "1"]);
    // One node of 1,618 is 0.06%, never 0.00%.
    assert!(
        out.text()
            .starts_with("kept 1 of 1,618 call nodes (0.06%), explaining "),
        "{}",
        out.text()
    );
}

#[test]
fn keep_budget_and_fold_compose_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let tree_out = dir.path().join("t.txt");
    let (_, stats) = fax_default(
        dir.path(),
        &[
            "--fold-recursion",
            "--max-nodes",
            "5",
            "--keep",
            "xcalloc",
            "--tree-out",
            tree_out.to_str().unwrap(),
        ],
    );
    let json: serde_json::Value = serde_json::from_str(&stats).unwrap();
    let passes: Vec<&str> = json["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(passes, ["fold-recursion", "max-nodes"]);
    let text = std::fs::read_to_string(&tree_out).unwrap();
    assert!(text.contains("xcalloc"), "--keep honoured:\n{text}");
    assert_eq!(json["nodes_after"], 5, "the kept path fits in the budget");
    let (out, _) = fax_default(dir.path(), &["--max-nodes", "1", "--keep", "xcalloc"]);
    assert!(
        out.stderr
            .contains("more than --max-nodes 1: the kept functions win"),
        "{}",
        out.stderr
    );
}

#[test]
fn auto_prefix_modules_and_broken_table_quoting() {
    let (_t, prefixed) = temp_file(
        "t.txt",
        "E main\nE ui_draw\nE ui_button\nX ui_button\nX ui_draw\nE net_send\nE net_recv\nX net_recv\nX net_send\nX main\n",
    );
    let out = calltrace(["abstract", "--modules", "auto:prefix", "--merge-modules"])
        .args(["--trace".as_ref(), prefixed.as_os_str()])
        .args(["-o", "/dev/null"])
        .run()
        .success();
    // ui_button merges into ui_draw, net_recv into net_send; main is alone.
    assert!(
        out.text().starts_with("merge: 5 nodes -> 3 nodes"),
        "{}",
        out.text()
    );
    let trace = data("fig1", "trace.txt");
    let (_d, bad) = temp_file("m.csv", "Main,m1\n\"funcA,m1\n");
    let msg = calltrace(["abstract", "--merge-modules", "--trace"])
        .args([&trace])
        .args(["--modules".as_ref(), bad.as_os_str()])
        .run()
        .failure();
    assert!(msg.contains("m.csv:2: expected a closing quote"), "{msg}");
}
