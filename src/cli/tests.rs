use std::path::PathBuf;

use clap::Parser;

use super::*;
use crate::abstraction::Share;
use crate::calltree::View;
use crate::run::abstract_::AbstractOptions;
use crate::run::compare::CompareOptions;
use crate::run::export::ExportOptions;
use crate::run::graph::GraphOptions;
use crate::run::live::LiveOptions;
use crate::run::tree::TreeOptions;
use crate::symbols::{Demangle, SymbolOptions};

fn parse(args: &[&str]) -> Command {
    Cli::try_parse_from(std::iter::once("calltrace").chain(args.iter().copied()))
        .unwrap()
        .command
}

#[test]
fn defaults_map_to_default_options() {
    let Command::Graph(g) = parse(&["graph"]) else {
        panic!("graph")
    };
    assert_eq!(g.into_options(), GraphOptions::default());
    let Command::Tree(t) = parse(&["tree"]) else {
        panic!("tree")
    };
    assert_eq!(t.into_options(), TreeOptions::default());
    let Command::Abstract(a) = parse(&["abstract"]) else {
        panic!("abstract")
    };
    assert_eq!(a.into_options(), AbstractOptions::default());
    let Command::Compare(c) = parse(&["compare", "a.trace"]) else {
        panic!("compare")
    };
    let expected = CompareOptions {
        traces: vec!["a.trace".to_string()],
        ..CompareOptions::default()
    };
    assert_eq!(c.into_options(), expected);
    let Command::Live(l) = parse(&["live"]) else {
        panic!("live")
    };
    assert_eq!(l.into_options(), LiveOptions::default());
}

#[test]
fn man_page_and_completions_cover_every_command() {
    let mut man = Vec::new();
    man_page(&mut man).unwrap();
    let man = String::from_utf8(man).unwrap();
    assert!(man.starts_with(".ie \\n(.g .ds Aq"), "roff: {}", &man[..40]);
    for heading in [".SH \"CALLTRACE GRAPH\"", ".SH \"CALLTRACE EXPORT\""] {
        assert!(man.contains(heading), "{heading}");
    }
    assert!(man.contains("min\\-total"), "graph's flags are documented");
    let mut bash = Vec::new();
    completions(clap_complete::Shell::Bash, &mut bash);
    let bash = String::from_utf8(bash).unwrap();
    assert!(bash.contains("complete -F _calltrace"), "{bash}");
    assert!(bash.contains("--time-unit") && bash.contains("flamegraph"));
}

#[test]
fn export_flags_reach_the_options() {
    let Command::Export(e) = parse(&["export", "--to", "folded", "-o", "-"]) else {
        panic!("export")
    };
    assert_eq!(e.into_options(), ExportOptions::default());
    let Command::Export(e) = parse(&[
        "export",
        "./app",
        "--to",
        "chrome",
        "-o",
        "t.json",
        "--threshold",
        "80%",
        "--merge-modules",
        "--modules",
        "auto:file",
        "--view",
        "contexts",
    ]) else {
        panic!("export")
    };
    let o = e.into_options();
    let a = &o.abstraction;
    assert_eq!((o.to.as_str(), a.view), ("chrome", Some(View::Contexts)));
    assert_eq!((a.merge, a.threshold), (true, Share::new(0.8)));
    assert_eq!(a.modules, Some(crate::abstraction::ModulesArg::AutoFile));
    let err = Cli::try_parse_from(["calltrace", "export", "--to", "svg", "-o", "x"])
        .unwrap_err()
        .to_string();
    assert!(err.contains("folded") && err.contains("callgrind"), "{err}");
}

#[test]
fn compare_flags_reach_the_options() {
    let Command::Compare(c) = parse(&[
        "compare",
        "--binary",
        "./app",
        "--modules",
        "m.csv",
        "--threshold",
        "80%",
        "--sweep",
        "0.5:1:0.1",
        "--view",
        "contexts",
        "--out-dir",
        "out",
        "x=a.trace",
        "b.trace",
    ]) else {
        panic!("compare")
    };
    let o = c.into_options();
    assert_eq!(o.traces, ["x=a.trace", "b.trace"]);
    assert_eq!(o.config.input.binary, Some(PathBuf::from("./app")));
    assert_eq!(
        o.modules,
        Some(crate::abstraction::ModulesArg::Table("m.csv".into()))
    );
    assert_eq!(
        (o.config.threshold.get(), o.config.view),
        (0.8, View::Contexts)
    );
    assert_eq!(o.config.sweep.points().len(), 6);
    assert_eq!(o.out_dir, PathBuf::from("out"));
    let err = Cli::try_parse_from(["calltrace", "compare", "--sweep", "0:1", "a"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--sweep") && err.contains("START:END:STEP"),
        "{err}"
    );
    assert!(Cli::try_parse_from(["calltrace", "compare"]).is_err());
}

#[test]
fn abstract_flags_reach_the_options() {
    let Command::Abstract(a) = parse(&[
        "abstract",
        "--threshold",
        "90%",
        "--merge-modules",
        "--modules",
        "auto:file",
    ]) else {
        panic!("abstract")
    };
    let o = a.into_options().abstraction;
    assert!(o.merge && !o.no_method());
    assert_eq!(o.threshold, Share::new(0.9));
    assert_eq!(o.modules, Some(crate::abstraction::ModulesArg::AutoFile));
    let Command::Abstract(a) = parse(&[
        "abstract",
        "--fold-recursion",
        "--min-total",
        "0.1%",
        "--max-nodes",
        "50",
        "--keep",
        "lua*",
        "--keep",
        "f?",
        "--fold-chains",
        "--view",
        "calls",
    ]) else {
        panic!("abstract")
    };
    let o = a.into_options().abstraction;
    assert!(o.fold_recursion && o.chains == Some(true) && !o.merge);
    assert_eq!((o.min_total, o.max_nodes), (Share::new(0.001), Some(50)));
    let keep: Vec<&str> = o.keep.iter().map(|p| p.as_str()).collect();
    assert_eq!(keep, ["lua*", "f?"]);
    assert_eq!(o.view, Some(View::Calls));
    let err = Cli::try_parse_from(["calltrace", "abstract", "--threshold", "2"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--threshold") && err.contains("did you mean 2%?"),
        "{err}"
    );
}

/// Every share-valued flag of every command, with what precedes it.
const SHARE_FLAGS: &[(&[&str], &str)] = &[
    (&["graph"], "--min-total"),
    (&["graph"], "--min-edge"),
    (&["abstract"], "--threshold"),
    (&["abstract"], "--min-total"),
    (&["export", "--to", "folded", "-o", "-"], "--threshold"),
    (&["export", "--to", "folded", "-o", "-"], "--min-total"),
    (&["compare", "a.trace"], "--threshold"),
    (&["compare", "a.trace"], "--min-total"),
];

#[test]
fn every_share_flag_reads_percentages_and_fractions_alike() {
    let debug = |args: Vec<&str>| format!("{:?}", parse(&args));
    for (cmd, flag) in SHARE_FLAGS {
        let with = |v: &'static str| [cmd, &[*flag, v][..]].concat();
        assert_eq!(debug(with("5%")), debug(with("0.05")), "{flag}");
        assert_ne!(debug(with("5%")), debug(with("6%")), "{flag} is read");
        let err = Cli::try_parse_from([&["calltrace"][..], &with("5")].concat())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(flag) && err.contains("\"5\" is not a share: did you mean 5%?"),
            "{cmd:?} {flag}: {err}"
        );
    }
}

#[test]
fn help_shows_share_defaults_as_percentages() {
    use clap::CommandFactory;
    let mut cli = Cli::command();
    let graph = cli.find_subcommand_mut("graph").unwrap().render_long_help();
    let graph = graph.to_string();
    assert!(graph.contains("[default: 0.5%]"), "{graph}");
    assert!(graph.contains("[default: 0.1%]"), "{graph}");
    let compare = cli
        .find_subcommand_mut("compare")
        .unwrap()
        .render_long_help();
    let compare = compare.to_string();
    assert!(compare.contains("[default: 90%]"), "{compare}");
    assert!(compare.contains("[default: 0.1%]"), "{compare}");
}

#[test]
fn flags_reach_the_options() {
    let Command::Tree(t) = parse(&[
        "tree",
        "./app",
        "--trace",
        "-",
        "--view",
        "contexts",
        "--format",
        "binary",
        "--lenient",
    ]) else {
        panic!("tree")
    };
    let o = t.into_options();
    assert_eq!(o.view, View::Contexts);
    assert_eq!(o.input.binary, Some(PathBuf::from("./app")));
    assert_eq!(o.input.format.as_deref(), Some("binary"));
    assert!(o.input.parse.lenient);
    let Command::Graph(g) = parse(&["graph", "--rules", "r.json"]) else {
        panic!("graph")
    };
    assert_eq!(g.into_options().input.rules, Some(PathBuf::from("r.json")));
    let Command::Compare(c) = parse(&["compare", "--rules", "r.json", "a.log"]) else {
        panic!("compare")
    };
    assert_eq!(
        c.into_options().config.input.rules,
        Some(PathBuf::from("r.json"))
    );
    let Command::Live(l) = parse(&["live", "./app", "--trace", "t.fifo"]) else {
        panic!("live")
    };
    let l = l.into_options();
    assert_eq!(
        (l.binary, l.trace),
        (Some(PathBuf::from("./app")), PathBuf::from("t.fifo"))
    );
    assert_eq!(o.input.symbols, SymbolOptions::default());
}

#[test]
fn symbol_flags_reach_every_command() {
    let want = SymbolOptions {
        search_path: vec![PathBuf::from("a"), PathBuf::from("b")],
        demangle: Demangle::Simple,
        allow_mismatch: true,
        perf_map: Some(PathBuf::from("jit.map")),
        debug_dirs: vec![PathBuf::from("dbg")],
        objects: vec![
            "boot.elf".parse().unwrap(),
            "lib.so@0x7f0000000000".parse().unwrap(),
        ],
    };
    let flags = [
        "--search-path",
        "a",
        "--search-path",
        "b",
        "--demangle",
        "simple",
        "--allow-mismatch",
        "--perf-map",
        "jit.map",
        "--debug-dir",
        "dbg",
        "--object",
        "boot.elf",
        "--object",
        "lib.so@0x7f0000000000",
    ];
    for cmd in ["graph", "tree", "abstract"] {
        let got = match parse(&[&[cmd][..], &flags[..]].concat()) {
            Command::Graph(g) => g.into_options().input.symbols,
            Command::Tree(t) => t.into_options().input.symbols,
            Command::Abstract(a) => a.into_options().input.symbols,
            _ => panic!("{cmd}"),
        };
        assert_eq!(got, want, "{cmd}");
    }
    let Command::Compare(c) = parse(&[&["compare"][..], &flags[..], &["t"][..]].concat()) else {
        panic!("compare")
    };
    assert_eq!(c.into_options().config.input.symbols, want);
    let Command::Live(l) = parse(&[&["live"][..], &flags[..]].concat()) else {
        panic!("live")
    };
    assert_eq!(l.into_options().symbols, want);
    let export = [&["export", "--to", "folded", "-o", "-"][..], &flags[..]].concat();
    let Command::Export(e) = parse(&export) else {
        panic!("export")
    };
    assert_eq!(e.into_options().input.symbols, want);
    let none = parse(&["tree", "--demangle", "none"]);
    let Command::Tree(t) = none else {
        panic!("tree")
    };
    assert_eq!(t.into_options().input.symbols.demangle, Demangle::None);
}

#[test]
fn out_of_range_threads_name_the_flag() {
    for bad in ["4000000000", "1025", "x"] {
        let err = Cli::try_parse_from(["calltrace", "graph", "--threads", bad])
            .unwrap_err()
            .to_string();
        assert!(err.contains("--threads") && err.contains("1024"), "{err}");
    }
    let Command::Graph(g) = parse(&["graph", "--threads", "1024"]) else {
        panic!("graph")
    };
    assert_eq!(g.into_options().input.parse.threads, 1024);
}

#[test]
fn read_flags_reach_every_trace_reading_command() {
    let flags = [
        "--quiet",
        "--threads",
        "3",
        "--lenient",
        "--format",
        "symbolic",
    ];
    let check = |what: &str, o: crate::pipeline::InputOptions| {
        assert!(o.quiet && o.parse.lenient, "{what}");
        assert_eq!(o.parse.threads, 3, "{what}");
        assert_eq!(o.format.as_deref(), Some("symbolic"), "{what}");
    };
    for cmd in ["graph", "tree", "abstract", "compare"] {
        let args = [&[cmd][..], &flags[..], &["t"][..]].concat();
        match parse(&args) {
            Command::Graph(g) => check(cmd, g.into_options().input),
            Command::Tree(t) => check(cmd, t.into_options().input),
            Command::Abstract(a) => check(cmd, a.into_options().input),
            Command::Compare(c) => check(cmd, c.into_options().config.input),
            _ => panic!("{cmd}"),
        }
    }
    let export = [&["export", "--to", "folded", "-o", "-"][..], &flags[..]].concat();
    let Command::Export(e) = parse(&export) else {
        panic!("export")
    };
    check("export", e.into_options().input);
}

#[test]
fn time_unit_reaches_every_command_that_prints_times() {
    use crate::emit::format::TimeUnit;
    let Command::Graph(g) = parse(&["graph", "--time-unit", "ms"]) else {
        panic!("graph")
    };
    assert_eq!(g.into_options().time_unit, TimeUnit::Ms);
    let Command::Tree(t) = parse(&["tree", "--time-unit", "ms"]) else {
        panic!("tree")
    };
    assert_eq!(t.into_options().time_unit, TimeUnit::Ms);
    let Command::Abstract(a) = parse(&["abstract", "--time-unit", "ms"]) else {
        panic!("abstract")
    };
    assert_eq!(a.into_options().time_unit, TimeUnit::Ms);
}

/// Every pass of the pipeline, by the flag that turns it on.
const PASS_FLAGS: [(&[&str], &str); 5] = [
    (&["--merge-modules"], "merge"),
    (&["--fold-recursion"], "fold-recursion"),
    (&["--threshold", "90%"], "threshold"),
    (&["--min-total", "1%"], "min-total"),
    (&["--max-nodes", "10"], "max-nodes"),
];

#[test]
fn every_pass_is_reachable_by_its_flag_and_counts_as_a_method() {
    let names = |args: &[&str]| {
        let Command::Abstract(a) = parse(&[&["abstract"][..], args].concat()) else {
            panic!("abstract")
        };
        let o = a.into_options().abstraction;
        let passes: Vec<&str> = o.passes().iter().map(|p| p.name()).collect();
        (passes, o.no_method(), o.paper_only())
    };
    for (args, pass) in PASS_FLAGS {
        let (passes, none, paper) = names(args);
        assert_eq!(passes, [pass], "{args:?}");
        assert!(!none, "{args:?} is a method");
        assert_eq!(paper, ["merge", "threshold"].contains(&pass), "{args:?}");
    }
    // All flags at once give every pass, each once: none is missing here.
    let all: Vec<&str> = PASS_FLAGS
        .iter()
        .flat_map(|(a, _)| a.iter().copied())
        .collect();
    let (passes, _, paper) = names(&all);
    assert_eq!(passes, PASS_FLAGS.map(|(_, p)| p));
    assert!(!paper);
    assert!(names(&[]).1, "no flag, no method");
}

#[test]
fn diff_defaults_map_to_default_options() {
    let Command::Diff(d) = parse(&["diff", "a.txt", "b.txt"]) else {
        panic!("diff")
    };
    let o = d.into_options();
    let expected = crate::run::diff::DiffOptions {
        base: "a.txt".into(),
        new: "b.txt".into(),
        // Each trace is set per run of a side.
        input: crate::pipeline::InputOptions {
            trace: PathBuf::new(),
            ..Default::default()
        },
        ..Default::default()
    };
    assert_eq!(o, expected);
}
