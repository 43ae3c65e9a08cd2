//! What a new user meets first: `--help` texts that say what really
//! happens, the same option order in every command, `tree --root` and
//! `--focus` meaning what they mean in `graph`, and a word before a huge
//! per-call tree is written.

use std::collections::BTreeSet;

use super::util::*;

/// The commands (of `calltrace help`) whose usage line takes `[BINARY]`.
fn with_binary() -> Vec<String> {
    commands()
        .into_iter()
        .filter(|c| c != "help")
        .filter(|c| {
            let help = calltrace([c.as_str(), "-h"]).run().success().text();
            help.lines()
                .find(|l| l.starts_with("Usage:"))
                .is_some_and(|l| l.contains("[BINARY]"))
        })
        .collect()
}

#[test]
fn binary_help_says_the_recorded_executable_is_used() {
    let commands = with_binary();
    for known in [
        "graph", "tree", "abstract", "export", "stats", "live", "compare", "coverage",
    ] {
        assert!(commands.iter().any(|c| c == known), "{known}: {commands:?}");
    }
    for command in &commands {
        let help = calltrace([command.as_str(), "--help"])
            .run()
            .success()
            .text();
        assert!(
            help.contains("Default: the executable the trace records")
                || help.contains("Default: the executable each trace records"),
            "{command}:\n{help}"
        );
        assert!(
            !help.contains("without it addresses are shown in hex"),
            "{command}:\n{help}"
        );
    }
}

/// The `-h` option lines of `command`, as their long flag names.
fn option_flags(command: &str) -> Vec<String> {
    let help = calltrace([command, "-h"]).run().success().text();
    help.lines()
        .skip_while(|l| *l != "Options:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("--")))
        .map(|w| w.trim_end_matches(',').to_string())
        .collect()
}

#[test]
fn every_command_lists_the_shared_flags_first_in_one_order() {
    // How traces are read, then how functions are named: the same run of
    // flags at the top of every trace-reading command's -h.
    let shared = [
        "--format",
        "--lenient",
        "--threads",
        "--clock-hz",
        "--rules",
        "--search-path",
        "--demangle",
        "--allow-mismatch",
        "--perf-map",
        "--debug-dir",
        "--object",
        "--quiet",
    ];
    // Every command that reads a trace file (`live` follows one as it is
    // written, with flags of its own).
    let readers: Vec<String> = commands()
        .into_iter()
        .filter(|c| c != "help")
        .filter(|c| option_flags(c).iter().any(|f| f == "--format"))
        .collect();
    for known in ["graph", "compare", "diff", "info", "view"] {
        assert!(readers.iter().any(|c| c == known), "{known}: {readers:?}");
    }
    for command in &readers {
        let flags = option_flags(command);
        let start = usize::from(flags.first().is_some_and(|f| f == "--trace"));
        assert_eq!(
            flags[start..start + shared.len()],
            shared,
            "{command}: {flags:?}"
        );
    }
}

/// Caller-callee pairs of a contexts tree printed by `calltrace tree`.
fn tree_edges(text: &str) -> BTreeSet<(String, String)> {
    let mut stack: Vec<String> = Vec::new();
    let mut edges = BTreeSet::new();
    for line in shape(text).lines() {
        let depth = (line.len() - line.trim_start().len()) / 2;
        let name = line.trim_start().split(" x").next().unwrap().to_string();
        stack.truncate(depth);
        if let Some(caller) = stack.last() {
            edges.insert((caller.clone(), name.clone()));
        }
        stack.push(name);
    }
    edges
}

/// Caller-callee pairs of the hot graph's DOT.
fn dot_edges(dot: &str) -> BTreeSet<(String, String)> {
    let mut names = std::collections::HashMap::new();
    for line in dot.lines() {
        if let Some((id, rest)) = line.trim().split_once(" [label=\"") {
            names.insert(
                id.to_string(),
                rest.split("\\n").next().unwrap().to_string(),
            );
        }
    }
    dot.lines()
        .filter_map(|l| {
            let (a, rest) = l.trim().split_once(" -> ")?;
            let b = rest.split(' ').next()?;
            Some((names[a].clone(), names[b].clone()))
        })
        .collect()
}

#[test]
fn tree_root_and_focus_keep_what_graph_draws() {
    let p = hello_pie();
    let trace = &p.text_trace().path;
    for (flag, func) in [
        ("--root", "total_area"),
        ("--focus", "multiply"),
        ("--focus", "rect_area"),
        ("--root", "factorial"),
    ] {
        let tree = tree(p.exe(), trace, &["--view", "contexts", flag, func]);
        let args = [
            "graph",
            p.exe(),
            "--trace",
            trace.to_str().unwrap(),
            flag,
            func,
            "--min-total",
            "0",
            "--min-edge",
            "0",
            "-o",
            "-",
        ];
        let dot = calltrace(args).run().success().text();
        assert_eq!(tree_edges(&tree), dot_edges(&dot), "{flag} {func}:\n{tree}");
        assert!(!tree_edges(&tree).is_empty(), "{flag} {func}");
    }
}

#[test]
fn tree_root_prints_each_call_of_func_and_counts_depth_from_it() {
    let p = hello_pie();
    let trace = &p.text_trace().path;
    let root = shape(&tree(
        p.exe(),
        trace,
        &["--root", "total_area", "--max-depth", "2"],
    ));
    assert_eq!(
        root,
        "total_area\n  square_area\n  rect_area\n  triangle_area\n  sum3\n"
    );
    // --focus: the callers above, down to the top-level call.
    let focus = shape(&tree(p.exe(), trace, &["--focus", "half"]));
    assert_eq!(focus, "main\n  total_area\n    triangle_area\n      half\n");
    // A name that is no function is an error naming the flag, as in graph.
    let args = [
        "tree",
        p.exe(),
        "--trace",
        trace.to_str().unwrap(),
        "--root",
        "nosuch",
    ];
    let msg = calltrace(args).run().failure();
    assert!(msg.starts_with("--root: "), "{msg}");
}

#[test]
fn tree_focus_is_a_flag_not_a_clap_tip() {
    let p = hello_pie();
    let trace = p.text_trace().path.to_str().unwrap();
    let out = calltrace(["tree", p.exe(), "--trace", trace, "--focus", "main"]).run();
    assert!(!out.stderr.contains("-- --focus"), "{}", out.stderr);
    assert_eq!(out.success().text().lines().count(), 25);
}

#[test]
fn a_huge_per_call_tree_suggests_the_contexts_view_before_writing() {
    // One line more than the limit of a million, as an indented trace.
    let lines = 1_000_001;
    let (_dir, trace) = temp_file("big.txt", "f (1 / 1)\n".repeat(lines));
    let out = calltrace(["tree", "--trace", trace.to_str().unwrap(), "-o", "-"])
        .run()
        .success();
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), lines);
    let warning = out
        .stderr
        .lines()
        .find(|l| l.contains("--view contexts"))
        .unwrap_or_else(|| panic!("no hint in:\n{}", out.stderr));
    assert!(warning.contains("1.0 M lines"), "{warning}");
    // The contexts view says nothing, nor does a tree at the limit.
    let out = calltrace([
        "tree",
        "--trace",
        trace.to_str().unwrap(),
        "-o",
        "/dev/null",
    ])
    .args(["--view", "contexts"])
    .run()
    .success();
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
    std::fs::write(&trace, "f (1 / 1)\n".repeat(lines - 1)).unwrap();
    let out = calltrace([
        "tree",
        "--trace",
        trace.to_str().unwrap(),
        "-o",
        "/dev/null",
    ])
    .run()
    .success();
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

#[test]
fn stats_help_says_times_are_wall_clock_and_what_the_runtime_takes_out() {
    let help = calltrace(["stats", "--help"]).run().success().text();
    assert!(help.contains("Times are elapsed (wall-clock)"), "{help}");
    assert!(help.contains("CALLTRACE_WAITS=keep"), "{help}");
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first = readme.find("(wall-clock)").expect("the README says it");
    // Said before the first command section prints a time.
    assert!(first < readme.find("### `calltrace graph").unwrap());
}

#[test]
fn no_trace_from_an_instrumented_library_without_the_runtime_names_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let hello = root().join("testdata/hello");
    // The library is instrumented, the program that loads it is not, and
    // neither has the runtime: glibc's empty hooks run.
    compile(
        std::process::Command::new("gcc")
            .args(["-g", "-finstrument-functions", "-fPIC", "-shared"])
            .args([hello.join("shapes.c"), hello.join("util.c")])
            .arg("-o")
            .arg(d.join("libshapes.so")),
    );
    let link = |runtime: bool| {
        let mut cmd = std::process::Command::new("gcc");
        cmd.arg("-g").arg(hello.join("main.c"));
        if runtime {
            cmd.arg(root().join("runtime/calltrace.c"));
        }
        cmd.args([
            "-L",
            ".",
            "-lshapes",
            "-Wl,-rpath,$ORIGIN",
            "-o",
            "app-notrace",
        ])
        .current_dir(d);
        compile(&mut cmd);
    };
    link(false);
    let ran = std::process::Command::new(d.join("app-notrace"))
        .current_dir(d)
        .output()
        .unwrap();
    assert!(ran.status.success());
    let msg = calltrace(["graph", "./app-notrace"])
        .current_dir(d)
        .run()
        .failure();
    assert!(
        msg.contains("./app-notrace loads ./libshapes.so, whose code calls"),
        "{msg}"
    );
    assert!(
        msg.contains("link the runtime into the executable"),
        "{msg}"
    );
    assert!(
        !msg.contains("not built with -finstrument-functions"),
        "{msg}"
    );
    assert!(
        !msg.contains("app-notrace.c"),
        "no source named after the binary: {msg}"
    );
    // Done as it says, the library's calls are in the trace.
    link(true);
    let ran = std::process::Command::new(d.join("app-notrace"))
        .current_dir(d)
        .output()
        .unwrap();
    assert!(ran.status.success());
    let tree = calltrace(["tree", "./app-notrace"])
        .current_dir(d)
        .run()
        .success()
        .text();
    assert!(tree.contains("total_area ("), "{tree}");
}

/// Skips when `CALLTRACE_SKIP_PROBE` is set, as a test whose tool is
/// missing does; passes otherwise. Run by the test below.
#[test]
fn skip_probe() {
    if std::env::var_os("CALLTRACE_SKIP_PROBE").is_some() {
        skip("the probe was asked to skip");
    }
}

#[test]
fn a_skipped_test_is_listed_after_the_summary_or_fails_when_tools_are_required() {
    let run = |require: &str| {
        std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "it::first_use::skip_probe",
                "--test-threads",
                "1",
            ])
            .env("CALLTRACE_SKIP_PROBE", "1")
            .env("CALLTRACE_REQUIRE_TOOLS", require)
            .output()
            .unwrap()
    };
    let out = run("0");
    assert!(out.status.success());
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.contains("test result: ok. 1 passed"), "{stdout}");
    assert!(
        stderr.contains("SKIPPED 1 test(s)")
            && stderr.contains("SKIP it::first_use::skip_probe: the probe was asked to skip"),
        "{stderr}"
    );
    let out = run("1");
    assert!(!out.status.success(), "CALLTRACE_REQUIRE_TOOLS=1 fails it");
    assert!(String::from_utf8_lossy(&out.stdout).contains("CALLTRACE_REQUIRE_TOOLS=1 requires it"));
}

#[test]
fn compare_plots_show_shares_as_percentages_and_counts_with_separators() {
    let p = root().join("testdata/printer");
    let out = tempfile::tempdir().unwrap();
    let traces = p.join("traces");
    let args = [
        traces.join("printer"),
        "--modules".into(),
        p.join("modules.csv"),
        "--out-dir".into(),
        out.path().into(),
        traces.join("color-duplex.trace"),
        traces.join("fax.trace"),
    ];
    calltrace(["compare"]).args(args).run().success();
    // plotters writes each text on a line of its own.
    let texts = |file: &str| -> Vec<String> {
        let svg = std::fs::read_to_string(out.path().join(file)).unwrap();
        svg.lines().map(|l| l.trim().to_string()).collect()
    };
    let sweep = texts("sweep.svg");
    let has = |texts: &[String], t: &str| texts.iter().any(|l| l == t);
    assert!(
        has(&sweep, "T = 90%, the threshold of rates.svg"),
        "{sweep:?}"
    );
    assert!(
        has(&sweep, "50%") && !has(&sweep, "0.5"),
        "threshold axis in percent: {sweep:?}"
    );
    let rates = texts("rates.svg");
    // color-duplex has 4,614 call nodes before abstraction.
    assert!(has(&rates, "4,614") && !has(&rates, "4614"), "{rates:?}");
    assert!(has(&rates, "after threshold (T = 90%)"), "{rates:?}");
    assert!(has(&rates, "after global (P = 0.1%)"), "{rates:?}");
}

#[test]
fn the_flame_graph_title_names_the_program() {
    let p = root().join("testdata/printer/traces");
    let svg = calltrace(["export"])
        .args([p.join("printer"), "--trace".into(), p.join("fax.trace")])
        .args(["--to", "flamegraph", "-o", "-"])
        .run()
        .success()
        .text();
    let title = format!(">calltrace: printer ({})<", p.join("fax.trace").display());
    assert!(svg.contains(&title), "{}", &svg[..svg.len().min(3000)]);
}
