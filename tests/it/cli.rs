//! The command line: pvtrace-compatible defaults, `-` for standard input and
//! output, the CSV columns, running without the binary, `calltrace runtime`.

use std::path::Path;

use super::util::*;

#[test]
fn graph_with_no_options_reads_trace_txt_and_writes_graph_dot() {
    let p = hello_pie();
    let dir = tempfile::tempdir().unwrap();
    p.run_in(dir.path()); // the runtime's default output is ./trace.txt
    assert!(dir.path().join("trace.txt").is_file());

    let out = calltrace(["graph", p.exe()])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(out.stdout.is_empty(), "the DOT goes to graph.dot");
    // Timed: how much the default thresholds prune varies from run to run.
    let note = out
        .stderr
        .strip_prefix("calltrace: wrote graph.dot (")
        .unwrap_or("");
    assert!(
        note.contains(" functions, ") && note.ends_with(")\n") && out.stderr.lines().count() == 1,
        "{}",
        out.stderr
    );
    let dot = std::fs::read_to_string(dir.path().join("graph.dot")).unwrap();
    let explicit = calltrace(["graph", p.exe(), "--trace", "trace.txt", "-o", "-"])
        .current_dir(dir.path())
        .run()
        .success();
    assert_eq!(dot, explicit.text());
    assert!(dot.starts_with("digraph {\n") && dot.contains("[label=\"main\\ntotal 100.00% ("));

    // Without the binary too (pvtrace always needed it): the trace names
    // the executable it was recorded from, and that file exists.
    std::fs::remove_file(dir.path().join("graph.dot")).unwrap();
    calltrace(["graph"]).current_dir(dir.path()).run().success();
    let implicit = std::fs::read_to_string(dir.path().join("graph.dot")).unwrap();
    assert_eq!(implicit, dot);
    // The pvtrace drawing: names and call counts only.
    let plain = calltrace(["graph", p.exe(), "--style", "plain", "-o", "-"])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(
        plain.text().contains("[label=\"factorial\""),
        "{}",
        plain.text()
    );
}

#[test]
fn dash_reads_standard_input_and_writes_standard_output() {
    for (p, trace) in [
        (hello_pie(), &hello_pie().text_trace().path),
        (hello_pie(), &hello_pie().binary_trace().path),
        (threads(), &threads().text_trace().path),
    ] {
        let bytes = std::fs::read(trace).unwrap();
        let from_file = graph(p.exe(), trace);
        let piped = calltrace(["graph", p.exe(), "--trace", "-", "-o", "-"])
            .args(["--min-total", "0", "--min-edge", "0"])
            .stdin(bytes.clone())
            .run()
            .success();
        assert_eq!(piped.text(), from_file.dot);
        assert!(
            !piped.stderr.contains("wrote"),
            "no note about standard output: {}",
            piped.stderr
        );
        let tree_file = tree(p.exe(), trace, &[]);
        let tree_piped = calltrace(["tree", p.exe(), "--trace", "-"])
            .stdin(bytes)
            .run()
            .success();
        assert_eq!(tree_piped.text(), tree_file);
    }
}

#[test]
fn tree_output_option_writes_a_file() {
    let p = hello_pie();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tree.txt");
    let trace = &p.text_trace().path;
    let out = calltrace(["tree", p.exe(), "--trace"])
        .args([trace.as_path(), Path::new("-o"), file.as_path()])
        .run()
        .success();
    assert!(out.stdout.is_empty());
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text, tree(p.exe(), trace, &[]));
    // Says what it wrote, as graph and export do.
    let note = format!(
        "calltrace: wrote {} (calls view, {} lines)\n",
        file.display(),
        text.lines().count()
    );
    assert!(out.stderr.ends_with(&note), "{}", out.stderr);
}

#[test]
fn csv_has_caller_callee_calls_and_a_total_named_with_its_unit() {
    // Untimed: the total counts calls in the callee's subtrees.
    let (_d, untimed) = temp_file("t.txt", "E main\nE f\nX f\nE f\nX f\nE g\nX g\nX main\n");
    let g = graph("", &untimed);
    assert_eq!(
        String::from_utf8(g.csv).unwrap(),
        "caller,callee,calls,total_calls\nmain,f,2,2\nmain,g,1,1\n"
    );
    // Timed: the summed totals of the callee's calls.
    let (_d, timed) = temp_file(
        "t.txt",
        "E main 0\nE f 10\nX f 15\nE f 20\nX f 27\nE g 30\nX g 31\nX main 40\n",
    );
    let g = graph("", &timed);
    assert_eq!(
        String::from_utf8(g.csv).unwrap(),
        "caller,callee,calls,total_ns\nmain,f,2,12\nmain,g,1,1\n"
    );
    // Fields with commas and quotes are quoted CSV.
    let (_d, names) = temp_file(
        "t.txt",
        "E main\nE pair<a,b>\nX pair<a,b>\nE op\"\"\nX op\"\"\nX main\n",
    );
    let g = graph("", &names);
    assert_eq!(
        String::from_utf8(g.csv.clone()).unwrap(),
        "caller,callee,calls,total_calls\nmain,\"pair<a,b>\",1,1\nmain,\"op\"\"\"\"\",1,1\n"
    );
    assert_eq!(
        g.edges(),
        edges(&[("main", "pair<a,b>", 1), ("main", "op\"\"", 1)])
    );
}

#[test]
fn without_the_binary_functions_are_hex_addresses() {
    let p = hello_pie();
    // The executable the trace names is gone (the trace moved to another
    // machine), and the trace records no mappings (pvtrace's format).
    let text: String = p
        .text_trace()
        .text()
        .replace(p.exe(), "/gone/hello-pie")
        .lines()
        .filter(|l| !l.starts_with("# map "))
        .map(|l| format!("{l}\n"))
        .collect();
    let (_d, path) = temp_file("trace.txt", untimed(&text));
    let named = graph(p.exe(), &path);
    let hex = graph("", &path);
    assert!(
        hex.stderr.contains(
            "warning: no binary given: functions are shown as addresses; pass the traced executable \
             to name them (the trace was recorded from /gone/hello-pie)"
        ),
        "{}",
        hex.stderr
    );
    // The hex graph is the named graph with addresses for names: same rows
    // in the same order, one name per address.
    let (hex_rows, named_rows) = (csv_rows(&hex.csv), csv_rows(&named.csv));
    assert_eq!(hex_rows.len(), 16);
    let mut name_of = std::collections::BTreeMap::new();
    for (h, n) in hex_rows.iter().zip(&named_rows) {
        assert_eq!(h[2], n[2], "same counts");
        for (addr, name) in [(&h[0], &n[0]), (&h[1], &n[1])] {
            assert!(
                text.contains(&format!("E{addr} ")),
                "{addr} is a traced address"
            );
            assert_eq!(name_of.entry(addr.clone()).or_insert(name), &name);
        }
    }
    assert_eq!(name_of.len(), 12, "12 functions");
    assert!(
        !hex.dot.contains("tooltip"),
        "no source locations without the binary"
    );
}

#[test]
fn runtime_prints_the_bundled_runtime_source() {
    let out = calltrace(["runtime"]).run().success();
    let source = std::fs::read(root().join("runtime/calltrace.c")).unwrap();
    assert_eq!(out.stdout, source);
    assert_eq!(out.stderr, "");
}

#[test]
fn runtime_header_prints_the_interpreter_api() {
    let out = calltrace(["runtime", "--header"]).run().success();
    let header = std::fs::read(root().join("runtime/calltrace.h")).unwrap();
    assert_eq!(out.stdout, header);
    let text = String::from_utf8(out.stdout).unwrap();
    for f in [
        "ct_method_register(",
        "ct_enter(",
        "ct_exit(",
        "ct_thread_name(",
        "ct_thread_end(",
    ] {
        assert!(text.contains(f), "{f}");
    }
}

#[test]
fn help_names_the_commands_and_the_defaults() {
    let help = calltrace(["--help"]).run().success().text();
    for word in ["graph", "tree", "runtime", "Quick start"] {
        assert!(help.contains(word), "{word} in\n{help}");
    }
    let graph_help = calltrace(["graph", "--help"]).run().success().text();
    for word in [
        "[BINARY]",
        "--trace",
        "trace.txt",
        "graph.dot",
        "--csv",
        "--lenient",
    ] {
        assert!(graph_help.contains(word), "{word} in\n{graph_help}");
    }
    let out = calltrace(["frobnicate"]).run();
    assert_eq!(out.code, 2, "usage errors exit 2");
}

#[test]
fn output_into_a_fifo_keeps_the_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        // Blocks until calltrace opens the FIFO; leaked if it never does.
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let (_d, trace) = temp_file("t.txt", "E main\nE f\nX f\nX main\n");
    calltrace(["tree", "--trace"])
        .args([trace.as_path(), Path::new("-o"), fifo.as_path()])
        .run()
        .success();
    let kind = std::fs::metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced by a regular file");
    assert_eq!(
        reader.join().unwrap(),
        "main (1 call / 2 calls)\n  f (1 call / 1 call)\n"
    );
}

#[test]
fn completions_and_man_page_are_printed() {
    for shell in ["bash", "zsh", "fish"] {
        let out = calltrace(["completions", shell]).run().success();
        assert!(out.text().contains("export"), "{shell}: {}", out.text());
    }
    let man = calltrace(["man"]).run().success().text();
    assert!(
        man.contains(".TH calltrace 1"),
        "{}",
        &man[..200.min(man.len())]
    );
    assert!(man.contains(".SH \"CALLTRACE EXPORT\""));
    assert_eq!(calltrace(["completions", "tcsh"]).run().code, 2);
}

#[test]
fn progress_bar_on_a_terminal_only_and_not_with_quiet() {
    let Some(script) = tool("script") else {
        return;
    };
    // Just over the 4 MiB below which no bar is shown.
    let mut text = String::from("E main 0\n");
    let mut t = 1u64;
    while text.len() < (4 << 20) + 4096 {
        text.push_str(&format!("E work {t}\nX work {}\n", t + 5));
        t += 10;
    }
    text.push_str(&format!("X main {t}\n"));
    let (dir, trace) = temp_file("big.trace", text);
    let run = |extra: &str| {
        let cmd = format!(
            "{} tree --trace {} --view contexts -o /dev/null {extra}",
            env!("CARGO_BIN_EXE_calltrace"),
            trace.display()
        );
        // `script` gives calltrace a terminal and copies what it drew.
        let out = std::process::Command::new(&script)
            .args(["-qec", &cmd, "/dev/null"])
            .current_dir(dir.path())
            .output()
            .expect("run script");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shown = run("");
    assert!(
        shown.contains("reading") && shown.contains("MiB"),
        "{shown}"
    );
    let quiet = run("--quiet");
    assert!(!quiet.contains("reading"), "{quiet}");
}
