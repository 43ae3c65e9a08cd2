//! `--modules` is parsed once into a value (`auto`, `auto:file`, ... or a
//! table file), and every command's inputs come from one list: so `auto`
//! is never mistaken for an input file, a table whose name starts with
//! `auto` is protected like any other, and `coverage` and `diff` protect
//! `--rules` and `--perf-map` as the other commands do.

use super::util::*;

const TRACE: &str = "E main\nE f\nX f\nE g\nX g\nX main\n";

/// Runs `args` in `dir`, expects the refusal naming `input_flag`, and
/// checks `kept` still holds `text`.
#[track_caller]
fn refused(dir: &std::path::Path, args: &[&str], input_flag: &str, kept: &str, text: &str) {
    let msg = calltrace(args).current_dir(dir).run().failure();
    assert!(
        msg.contains(&format!("is the same file as the input {input_flag} ")),
        "{args:?}: {msg}"
    );
    let now = std::fs::read_to_string(dir.join(kept)).unwrap();
    assert_eq!(now, text, "{args:?} changed {kept}");
}

#[test]
fn modules_auto_is_no_file_so_an_output_may_be_named_auto() {
    let (dir, _trace) = temp_file("t.txt", TRACE);
    let args = [
        "abstract",
        "--trace",
        "t.txt",
        "--modules",
        "auto",
        "--merge-modules",
        "-o",
        "auto",
    ];
    calltrace(args).current_dir(dir.path()).run().success();
    let dot = std::fs::read_to_string(dir.path().join("auto")).unwrap();
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(dot.contains("main"), "{dot}");
}

#[test]
fn a_module_table_named_like_auto_is_protected_as_an_input() {
    let table = "main,app\nf,app\ng,lib\n";
    let (dir, _trace) = temp_file("t.txt", TRACE);
    std::fs::write(dir.path().join("autos.csv"), table).unwrap();
    let m = ["--modules", "autos.csv"];
    let coverage = [&["coverage", "t.txt"][..], &m, &["--csv", "autos.csv"]].concat();
    refused(dir.path(), &coverage, "--modules", "autos.csv", table);
    let view = [&["view", "--trace", "t.txt"][..], &m, &["-o", "autos.csv"]].concat();
    refused(dir.path(), &view, "--modules", "autos.csv", table);
    let abs = [
        &["abstract", "--trace", "t.txt"][..],
        &m,
        &["-o", "autos.csv"],
    ]
    .concat();
    refused(dir.path(), &abs, "--modules", "autos.csv", table);
}

#[test]
fn coverage_and_diff_protect_rules_and_perf_map() {
    let rules = "{\"rules\": []}\n";
    let map = "1000 10 jitted\n";
    let (dir, _trace) = temp_file("t.txt", TRACE);
    std::fs::write(dir.path().join("t2.txt"), TRACE).unwrap();
    std::fs::write(dir.path().join("r.json"), rules).unwrap();
    std::fs::write(dir.path().join("p.map"), map).unwrap();
    let d = dir.path();
    let cases: &[(&[&str], &str, &str, &str)] = &[
        (
            &["coverage", "t.txt", "--rules", "r.json", "--csv", "r.json"],
            "--rules",
            "r.json",
            rules,
        ),
        (
            &[
                "coverage",
                "t.txt",
                "--perf-map",
                "p.map",
                "--lcov",
                "p.map",
            ],
            "--perf-map",
            "p.map",
            map,
        ),
        (
            &[
                "diff",
                "t.txt",
                "t2.txt",
                "--perf-map",
                "p.map",
                "--csv",
                "p.map",
            ],
            "--perf-map",
            "p.map",
            map,
        ),
    ];
    for (args, flag, kept, text) in cases {
        refused(d, args, flag, kept, text);
    }
}

#[test]
fn every_input_of_each_command_is_refused_as_an_output() {
    let rules = "{\"rules\": []}\n";
    let elf = "\x7fELF\x02\x01\x01";
    let (dir, _trace) = temp_file("t.txt", TRACE);
    let d = dir.path();
    std::fs::write(d.join("t2.txt"), TRACE).unwrap();
    std::fs::write(d.join("r.json"), rules).unwrap();
    // Named like compare's outputs, so its --out-dir would overwrite them.
    std::fs::write(d.join("report.html"), elf).unwrap();
    std::fs::write(d.join("rates.csv"), TRACE).unwrap();
    std::fs::create_dir(d.join("pats")).unwrap();
    std::fs::write(d.join("pats/a.txt"), TRACE).unwrap();
    let cases: &[(&[&str], &str, &str, &str)] = &[
        // [BINARY] TRACE...: the program split off the front is an input.
        (
            &["coverage", "report.html", "t.txt", "--csv", "report.html"],
            "BINARY",
            "report.html",
            elf,
        ),
        (
            &["compare", "report.html", "t.txt", "--out-dir", "."],
            "BINARY",
            "report.html",
            elf,
        ),
        (
            &["compare", "rates.csv", "--out-dir", "."],
            "TRACE",
            "rates.csv",
            TRACE,
        ),
        (
            &["diff", "t.txt", "t2.txt", "--json", "t2.txt"],
            "NEW",
            "t2.txt",
            TRACE,
        ),
        (
            &[
                "diff", "t.txt", "t2.txt", "--rules", "r.json", "-o", "r.json",
            ],
            "--rules",
            "r.json",
            rules,
        ),
        // view DIR draws every trace in DIR.
        (
            &["view", "pats", "-o", "pats/a.txt"],
            "DIR",
            "pats/a.txt",
            TRACE,
        ),
        (
            &[
                "stats", "--trace", "t.txt", "--rules", "r.json", "--csv", "r.json",
            ],
            "--rules",
            "r.json",
            rules,
        ),
    ];
    for (args, flag, kept, text) in cases {
        refused(d, args, flag, kept, text);
    }
}

/// What every command warns about an unbalanced trace.
const REPAIRED: &str = "repaired unbalanced trace";

#[test]
fn a_warning_from_each_command_reaches_stderr_once() {
    // An exit without its entry.
    let (dir, _trace) = temp_file(
        "t.txt",
        "E main 0 1\nE f 10 1\nX f 20 1\nX g 25 1\nX main 30 1\n",
    );
    let d = dir.path();
    let commands: &[&[&str]] = &[
        &["graph", "--trace", "t.txt", "-o", "g.dot"],
        &["tree", "--trace", "t.txt"],
        &["stats", "--trace", "t.txt"],
        &["abstract", "--trace", "t.txt", "-o", "a.dot"],
        &["view", "--trace", "t.txt", "-o", "v.html"],
        &[
            "export", "--trace", "t.txt", "--to", "folded", "-o", "f.txt",
        ],
        &["compare", "t.txt", "--out-dir", "out"],
        &["diff", "t.txt", "t.txt"],
        &["info", "--trace", "t.txt"],
    ];
    // Every command that reads trace files is here (coverage below).
    for c in super::util::commands().iter().filter(|c| *c != "help") {
        let help = calltrace([c.as_str(), "-h"]).run().success().text();
        if help.contains("--format <FORMAT>") && c != "coverage" {
            assert!(commands.iter().any(|a| a[0] == c), "{c} is not tried");
        }
    }
    for args in commands {
        let out = calltrace(*args).current_dir(d).run().success();
        // `info` reports it among what it prints, on stdout.
        let said = match args[0] {
            "info" => &out.text(),
            _ => &out.stderr,
        };
        assert_eq!(
            said.matches(REPAIRED).count(),
            1,
            "{args:?}: {}",
            out.stderr
        );
    }
    // coverage needs a program: hello's trace with one exit too many.
    let p = hello_pie();
    let mut text = std::fs::read_to_string(&p.text_trace().path).unwrap();
    let last = text.lines().last().unwrap().to_string();
    text.push_str(&format!("{last}\n"));
    std::fs::write(d.join("h.txt"), text).unwrap();
    let out = calltrace(["coverage", p.exe(), "h.txt"])
        .current_dir(d)
        .run()
        .success();
    assert_eq!(
        out.stderr.matches(REPAIRED).count(),
        1,
        "coverage: {}",
        out.stderr
    );
}

#[test]
fn the_command_names_the_argument_of_a_bad_trace_list() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    for (args, flag) in [
        (&["compare", "empty"][..], "TRACE"),
        (&["coverage", "empty"], "TRACE"),
        (&["diff", "empty", "empty"], "TRACE"),
        (&["view", "empty"], "DIR"),
    ] {
        let msg = calltrace(args).current_dir(dir.path()).run().failure();
        assert_eq!(
            msg,
            format!("{flag}: directory empty holds no trace files"),
            "{args:?}"
        );
    }
}

#[test]
fn a_bad_module_table_is_named_by_its_flag_in_every_command() {
    let (dir, _trace) = temp_file("t.txt", TRACE);
    for args in [
        &["compare", "t.txt", "--modules", "nosuch.csv"][..],
        &["view", "--trace", "t.txt", "--modules", "nosuch.csv"],
        &["abstract", "--trace", "t.txt", "--modules", "nosuch.csv"],
        &[
            "export",
            "--trace",
            "t.txt",
            "--to",
            "folded",
            "-o",
            "f.txt",
            "--modules",
            "nosuch.csv",
            "--merge-modules",
        ],
    ] {
        let msg = calltrace(args).current_dir(dir.path()).run().failure();
        assert!(
            msg.starts_with("--modules: nosuch.csv: No such file"),
            "{args:?}: {msg}"
        );
    }
    // auto:file needs source files, which a trace of names has none of.
    for args in [
        &["compare", "t.txt", "--modules", "auto:file"][..],
        &["view", "--trace", "t.txt", "--modules", "auto:file"],
    ] {
        let msg = calltrace(args).current_dir(dir.path()).run().failure();
        assert!(
            msg.starts_with("--modules: auto:file and auto:dir need"),
            "{args:?}: {msg}"
        );
    }
}
