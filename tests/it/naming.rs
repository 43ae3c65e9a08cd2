//! Every flag that names functions (`graph`/`tree` `--focus` and `--root`,
//! `stats --histogram`, `--keep`, `--function`, `--exclude`) reads one
//! function pattern by one rule: on the C++ program, a pattern picks in
//! each flag exactly what the function's full name picks, a pattern of
//! two functions is refused where one is expected (naming both) and
//! takes both where a set is expected.

use super::util::*;

/// The function every case names, as shown.
const FULL: &str = "ns::Point::norm2() const";

/// Runs `calltrace ARGS... FLAG VALUE -o -` on the C++ program's trace.
fn output(args: &[&str], flag: &str, value: &str) -> String {
    let p = cpp();
    let trace = p.text_trace().path.to_str().unwrap().to_string();
    let mut all: Vec<&str> = args.to_vec();
    all.extend([p.exe(), "--trace", &trace, flag, value]);
    calltrace(all).run().success().text()
}

/// Each flag with the arguments it is tried with.
const FLAGS: [(&[&str], &str); 8] = [
    (&["graph", "-o", "-"], "--focus"),
    (&["graph", "-o", "-"], "--root"),
    (&["tree", "--view", "contexts"], "--focus"),
    (&["tree", "--view", "contexts"], "--root"),
    (&["stats"], "--histogram"),
    (&["abstract", "--threshold", "0.99", "-o", "-"], "--keep"),
    (&["tree", "--view", "contexts"], "--function"),
    (&["tree", "--view", "contexts"], "--exclude"),
];

#[test]
fn a_pattern_picks_the_same_function_in_every_flag() {
    for (args, flag) in FLAGS {
        let by_name = output(args, flag, FULL);
        // Excluded, norm2 is the one function not shown.
        let shown = by_name.contains("norm2");
        assert_eq!(shown, flag != "--exclude", "{args:?} {flag}: {by_name}");
        // A glob over the full name and its short form, in every flag.
        for pattern in ["ns::Point::n*", "*::norm?", "Point::norm2", "norm2"] {
            assert_eq!(
                output(args, flag, pattern),
                by_name,
                "{args:?} {flag} {pattern}"
            );
        }
    }
}

#[test]
fn two_functions_are_refused_where_one_is_expected_and_taken_where_a_set_is() {
    let p = cpp();
    let trace = p.text_trace().path.to_str().unwrap().to_string();
    for (args, flag) in &FLAGS[..5] {
        let mut all: Vec<&str> = args.to_vec();
        all.extend([p.exe(), "--trace", &trace, flag, "Box::get"]);
        let msg = calltrace(all).run().failure();
        assert!(
            msg.starts_with(&format!("{flag}: "))
                && msg.contains(
                    "did you mean 'ns::Box<double>::get() const', 'ns::Box<int>::get() const'?"
                ),
            "{args:?} {flag}: {msg}"
        );
    }
    // view offers --focus and --root in its page: the same refusal.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("v.html");
    let page = page.to_str().unwrap();
    for flag in ["--focus", "--root"] {
        let args = [
            "view",
            p.exe(),
            "--trace",
            &trace,
            flag,
            "Box::get",
            "-o",
            page,
        ];
        let msg = calltrace(args).run().failure();
        assert!(
            msg.starts_with(&format!("{flag}: ")) && msg.contains("did you mean"),
            "{msg}"
        );
        let args = [
            "view",
            p.exe(),
            "--trace",
            &trace,
            flag,
            "norm2",
            "-o",
            page,
        ];
        calltrace(args).run().success();
    }
    let keep = [
        "--keep",
        "ns::Box<int>::get() const",
        "--keep",
        "ns::Box<double>::get() const",
    ];
    let args = [
        "abstract",
        p.exe(),
        "--trace",
        &trace,
        "--threshold",
        "0.99",
        "-o",
        "-",
    ];
    let both = calltrace(args.iter().chain(&keep)).run().success().text();
    assert!(both.matches("get() const").count() >= 2, "{both}");
    let by_glob = calltrace(args.iter().chain(&["--keep", "Box::ge?"]))
        .run()
        .success()
        .text();
    assert_eq!(by_glob, both);
}

#[test]
fn a_name_that_matches_nothing_suggests_similar_ones() {
    let msg = calltrace(["graph", "--trace", "-", "--focus", "Work", "-o", "-"])
        .stdin("E main\nE work\nX work\nX main\n")
        .run()
        .failure();
    assert_eq!(
        msg,
        "--focus: expected the name of a function in the trace, found `Work`; did you mean 'work'?"
    );
}

/// Every `<FUNC>` option of every command (from `calltrace help` and each
/// command's `-h`) is one of the flags [`FLAGS`] tries, so a new flag that
/// names functions cannot skip the one rule.
#[test]
fn every_func_option_of_every_command_is_tried_by_the_rule() {
    let tried: std::collections::BTreeSet<&str> = FLAGS.iter().map(|(_, f)| *f).collect();
    let mut seen = std::collections::BTreeSet::new();
    for command in commands().iter().filter(|c| *c != "help") {
        let help = calltrace([command.as_str(), "-h"]).run().success().text();
        for line in help.lines() {
            let mut words = line.split_whitespace();
            let (Some(flag), Some(value)) = (words.next(), words.next()) else {
                continue;
            };
            if flag.starts_with("--") && value == "<FUNC>" {
                assert!(tried.contains(flag), "{command} {flag} is not in FLAGS");
                seen.insert(flag.to_string());
            }
        }
    }
    for flag in tried {
        assert!(
            seen.contains(flag),
            "{flag}: no command offers it: {seen:?}"
        );
    }
}
