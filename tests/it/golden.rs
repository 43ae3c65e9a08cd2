//! Golden files: each `tests/data/CASE/` holds an input trace (or names a
//! `testdata/` program) and the expected DOT, CSV and trees. Real programs
//! are traced untimed (timestamps cut, so weights are call counts) and the
//! repository path in DWARF tooltips becomes `<repo>`, so the goldens do
//! not depend on the machine. `CALLTRACE_BLESS=1` rewrites them.

use std::path::Path;

use super::util::*;

/// Checks `graph.dot` (hot), `plain.dot` (pvtrace style), `graph.csv`,
/// `tree.txt` and `contexts.txt` of CASE.
fn check_outputs(case: &str, binary: &str, trace: &Path) {
    let g = graph(binary, trace);
    assert_golden(case, "graph.dot", &normalise_paths(&g.dot));
    let mut args = vec!["graph".as_ref(), "--trace".as_ref(), trace.as_os_str()];
    if !binary.is_empty() {
        args.push(binary.as_ref());
    }
    let plain = calltrace(args)
        .args(["--style", "plain", "-o", "-"])
        .run()
        .success();
    assert_golden(case, "plain.dot", &normalise_paths(&plain.text()));
    assert_golden(case, "graph.csv", &String::from_utf8(g.csv).unwrap());
    assert_golden(case, "tree.txt", &tree(binary, trace, &[]));
    let contexts = tree(binary, trace, &["--view", "contexts"]);
    assert_golden(case, "contexts.txt", &contexts);
}

#[test]
fn paper_figure_1() {
    let input = data("fig1", "trace.txt");
    check_outputs("fig1", "", &input);
    assert_eq!(
        tree("", &input, &[]),
        std::fs::read_to_string(&input).unwrap(),
        "the figure prints as itself"
    );
}

#[test]
fn decimal_weights_stay_exact() {
    let input = data("decimals", "trace.txt");
    check_outputs("decimals", "", &input);
    assert_eq!(
        tree("", &input, &[]),
        std::fs::read_to_string(&input).unwrap()
    );
}

#[test]
fn symbolic_trace_with_threads_and_names_to_escape() {
    check_outputs("symbolic", "", &data("symbolic", "trace.txt"));
}

#[test]
fn unbalanced_trace_is_repaired_and_the_repairs_counted() {
    let input = data("repair", "trace.txt");
    check_outputs("repair", "", &input);
    let out = calltrace(["tree", "--trace"])
        .args([&input])
        .run()
        .success();
    assert_golden("repair", "stderr.txt", &out.stderr);
}

#[test]
fn hello_program_untimed() {
    let p = hello_pie();
    let (_d, trace) = temp_file("trace.txt", untimed(&p.text_trace().text()));
    check_outputs("hello", p.exe(), &trace);
}

#[test]
fn longjmp_program_untimed() {
    let p = longjmp();
    let (_d, trace) = temp_file("trace.txt", untimed(&p.text_trace().text()));
    check_outputs("longjmp", p.exe(), &trace);
}
