//! Every output reads its inputs once: `export` knows whether a format
//! streams before it reads anything, so no format parses the trace and
//! resolves symbols twice. Opens are counted with `strace` (skipped with a
//! note when it is not installed).

use std::path::Path;
use std::process::Command;

use super::util::{self, BIN};

/// How often `calltrace ARGS` opened `trace` and `exe`: (trace, exe).
fn opens(strace: &Path, dir: &Path, args: &[&str], trace: &Path, exe: &Path) -> (usize, usize) {
    let log = dir.join("strace.log");
    let mut cmd = Command::new(strace);
    cmd.args(["-f", "-qq", "-e", "trace=open,openat", "-o"])
        .arg(&log)
        .arg(BIN)
        .args(args);
    let out = util::output_within(&mut cmd, 120);
    assert!(
        out.status.success(),
        "{args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(&log).expect("read the strace log");
    let count = |p: &Path| {
        let quoted = format!("\"{}\"", p.display());
        log.lines()
            .filter(|l| l.contains(&quoted) && !l.contains("= -1 "))
            .count()
    };
    (count(trace), count(exe))
}

#[test]
fn every_export_format_opens_the_trace_once_and_the_program_as_often_as_graph() {
    let Some(strace) = util::tool("strace") else {
        return;
    };
    let program = util::hello_pie();
    let dir = util::fresh_dir("outputs_once", "formats");
    let trace = dir.join("t.txt");
    std::fs::copy(&program.text_trace().path, &trace).expect("copy the trace");
    let (t, e) = (trace.to_str().unwrap(), program.exe());
    let graph_dot = dir.join("g.dot");
    let graph = ["graph", "-o", graph_dot.to_str().unwrap(), "--trace", t, e];
    let (graph_traces, graph_exes) = opens(&strace, &dir, &graph, &trace, &program.exe);
    assert_eq!(
        graph_traces, 1,
        "graph opened the trace {graph_traces} times"
    );
    assert!(graph_exes >= 1, "graph never opened the program");
    for exporter in calltrace::emit::export::exporters() {
        let format = exporter.name();
        let out = dir.join(format!("out.{format}"));
        let args = ["export", "--to", format, "-o", out.to_str().unwrap()];
        let args = [&args[..], &["--trace", t, e]].concat();
        let (traces, exes) = opens(&strace, &dir, &args, &trace, &program.exe);
        assert_eq!(traces, 1, "--to {format} opened the trace {traces} times");
        assert!(
            exes <= graph_exes,
            "--to {format} opened the program {exes} times, graph {graph_exes}"
        );
        // A directory format: its first file.
        let out = match exporter.files().first() {
            Some(file) => out.join(file),
            None => out,
        };
        assert!(!std::fs::read(&out).unwrap().is_empty(), "--to {format}");
    }
}
