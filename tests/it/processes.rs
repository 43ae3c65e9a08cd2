//! Every command on programs whose processes do more than call functions:
//! one `dlopen`s an instrumented library built here, one `fork`s a child
//! that calls functions, one `posix_spawn`s itself, and one leaves with
//! `_exit` from deep inside a call (a daemon-like exit). Each trace goes
//! through `graph`, `tree`, `abstract`, `export --to folded` and `compare`;
//! names, callers and call counts are the ones the programs make.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::*;

/// A fresh directory for one program and its traces.
fn work(name: &str) -> PathBuf {
    fresh_dir("processes", name)
}

#[track_caller]
fn gcc(args: &[&std::ffi::OsStr]) {
    let out = Command::new("gcc")
        .args(["-g", "-O0", "-finstrument-functions"])
        .args(args)
        .output()
        .expect("run gcc (these tests need gcc)");
    assert!(
        out.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles `source` with the runtime into `dir/name`.
fn build(dir: &Path, name: &str, source: &str, extra: &[&str]) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).expect("write source");
    let exe = dir.join(name);
    let runtime = root().join("runtime/calltrace.c");
    let mut args = vec![src.as_os_str(), runtime.as_os_str(), "-o".as_ref()];
    args.push(exe.as_os_str());
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    gcc(&args);
    exe
}

/// The trace formats, with their file extensions.
const FORMATS: [(&str, &str); 2] = [("text", "txt"), ("binary", "bin")];

/// Runs `exe ARGS` in a fresh `dir/FORMAT` with the trace `trace.EXT`;
/// returns its stdout and the trace files it left, sorted (`trace.EXT` last).
fn record(exe: &Path, args: &[&str], (format, ext): (&str, &str)) -> (String, Vec<PathBuf>) {
    let dir = exe.parent().unwrap().join(format);
    std::fs::create_dir_all(&dir).unwrap();
    let main = format!("trace.{ext}");
    let out = Command::new(exe)
        .args(args)
        .current_dir(&dir)
        .env("CALLTRACE_OUT", &main)
        .env("CALLTRACE_FORMAT", format)
        .env_remove("CALLTRACE_OUT_TAKEN")
        .output()
        .expect("run the program");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("trace.") && n.ends_with(&format!(".{ext}"))
        })
        .collect();
    files.sort_by_key(|p| p.ends_with(&main));
    (String::from_utf8_lossy(&out.stdout).into_owned(), files)
}

/// Runs graph, tree, abstract and export --to folded on `trace`; asserts
/// no function is left unnamed and returns the graph's edges and the tree.
#[track_caller]
fn every_command(exe: &Path, trace: &Path) -> (Vec<Edge>, String) {
    let exe = exe.to_str().unwrap();
    let g = graph(exe, trace);
    let t = tree(exe, trace, &["-o", "-"]);
    let abs = calltrace(["abstract", exe, "--trace"])
        .args([trace])
        .args(["--threshold", "1", "-o", "-"])
        .run()
        .success()
        .text();
    let folded = calltrace(["export", exe, "--to", "folded", "-o", "-", "--trace"])
        .args([trace])
        .run()
        .success()
        .text();
    for (what, text) in [
        ("DOT", &g.dot),
        ("tree", &t),
        ("abstract", &abs),
        ("folded", &folded),
    ] {
        assert!(!text.trim().is_empty(), "{what} of {trace:?} is empty");
        assert!(
            !text.contains("0x"),
            "{what} has unnamed functions:\n{text}"
        );
    }
    let csv = String::from_utf8_lossy(&g.csv).into_owned();
    assert!(!csv.contains("0x"), "{csv}");
    // Nothing pruned: every callee is a box of the abstracted tree and,
    // when it took any time of its own, the last frame of a folded stack
    // (a stack of weight 0 is no line: a trivial leaf can take 0 ns).
    let timed = self_timed(exe, trace);
    for (_, callee, _) in g.edges() {
        assert!(abs.contains(&format!("label=\"{callee}\\n")), "{abs}");
        assert!(
            !timed.contains(&callee) || folded.lines().any(|l| l.contains(&format!(";{callee} "))),
            "{folded}"
        );
    }
    (g.edges(), shape(&t))
}

/// The functions of `trace` that have self time somewhere in its tree.
fn self_timed(exe: &str, trace: &Path) -> std::collections::BTreeSet<String> {
    let json = calltrace(["export", exe, "--to", "json", "-o", "-", "--trace"])
        .args([trace])
        .run()
        .success()
        .text();
    let root: serde_json::Value = serde_json::from_str(&json).expect("JSON export");
    let mut timed = std::collections::BTreeSet::new();
    let mut todo = vec![&root];
    while let Some(node) = todo.pop() {
        if node["self"].as_u64().is_some_and(|s| s > 0) {
            timed.insert(node["name"].as_str().unwrap_or_default().to_string());
        }
        todo.extend(node["children"].as_array().into_iter().flatten());
    }
    timed
}

/// `compare` over the run's trace files, one pattern each.
#[track_caller]
fn compare(exe: &Path, traces: &[PathBuf]) {
    let out_dir = traces[0].parent().unwrap().join("compare-out");
    calltrace(["compare", "--binary"])
        .args([exe])
        .args(["--out-dir"])
        .args([&out_dir])
        .args(traces)
        .run()
        .success();
    let rates = std::fs::read_to_string(out_dir.join("rates.csv")).unwrap();
    for t in traces {
        let stem = t.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            rates.lines().any(|l| l.starts_with(&format!("{stem},"))),
            "{stem} missing from rates.csv:\n{rates}"
        );
    }
    let features = std::fs::read_to_string(out_dir.join("features.csv")).unwrap();
    assert!(!features.contains("0x"), "{features}");
}

const PLUGIN: &str = r#"
int plugin_leaf(int x) { return x + 1; }
int plugin_entry(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += plugin_leaf(i);
    return s;
}
"#;

const DLOPEN: &str = r#"
#include <dlfcn.h>
#include <stdio.h>
static int call_plugin(const char *path) {
    void *h = dlopen(path, RTLD_NOW);
    if (!h) return -1;
    int (*entry)(int) = (int (*)(int))dlsym(h, "plugin_entry");
    int r = entry(3);
    dlclose(h);
    return r;
}
int main(int argc, char **argv) {
    printf("%d\n", argc > 1 ? call_plugin(argv[1]) : -1);
    return 0;
}
"#;

#[test]
fn a_dlopened_library_is_named_under_its_caller() {
    let dir = work("dlopen");
    let src = dir.join("plugin.c");
    std::fs::write(&src, PLUGIN).unwrap();
    let lib = dir.join("libplugin.so");
    gcc(&[
        "-shared".as_ref(),
        "-fPIC".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        lib.as_os_str(),
    ]);
    let exe = build(&dir, "dl", DLOPEN, &["-ldl"]);
    for format in FORMATS {
        let (out, traces) = record(&exe, &[lib.to_str().unwrap()], format);
        assert_eq!(out, "6\n");
        assert_eq!(traces.len(), 1, "{traces:?}");
        let (e, _) = every_command(&exe, &traces[0]);
        assert_eq!(
            e,
            edges(&[
                ("main", "call_plugin", 1),
                ("call_plugin", "plugin_entry", 1),
                ("plugin_entry", "plugin_leaf", 3),
            ])
        );
        compare(&exe, &traces);
    }
}

const FORK: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static int leaf(int x) { return x * 2; }
static int child_work(void) { return leaf(1) + leaf(2) + leaf(3); }
static int run_child(void) {
    pid_t p = fork();
    if (p == 0) exit(child_work() == 12 ? 0 : 1);
    int st;
    waitpid(p, &st, 0);
    return WEXITSTATUS(st);
}
int main(void) {
    int r = run_child();
    printf("%d %d\n", r, leaf(4));
    return 0;
}
"#;

#[test]
fn a_forked_childs_calls_hang_under_the_inherited_caller() {
    let dir = work("fork");
    let exe = build(&dir, "fk", FORK, &[]);
    for format in FORMATS {
        let (out, traces) = record(&exe, &[], format);
        assert_eq!(out, "0 8\n");
        assert_eq!(traces.len(), 2, "{traces:?}");
        let (child, child_tree) = every_command(&exe, &traces[0]);
        assert_eq!(
            child,
            edges(&[
                ("main", "run_child", 1),
                ("run_child", "child_work", 1),
                ("child_work", "leaf", 3),
            ])
        );
        assert_eq!(
            child_tree,
            "main\n  run_child\n    child_work\n      leaf\n      leaf\n      leaf\n"
        );
        let (parent, _) = every_command(&exe, &traces[1]);
        assert_eq!(
            parent,
            edges(&[("main", "run_child", 1), ("main", "leaf", 1)])
        );
        compare(&exe, &traces);
    }
}

const SPAWN: &str = r#"
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
extern char **environ;
static int leaf(int x) { return x + 1; }
static int spawned_work(void) { return leaf(1) + leaf(2) + leaf(3) + leaf(4); }
static int spawn_self(char *self) {
    char *argv[] = {self, "child", 0};
    pid_t pid;
    if (posix_spawn(&pid, self, 0, 0, argv, environ)) return -1;
    int st;
    waitpid(pid, &st, 0);
    return WEXITSTATUS(st);
}
int main(int argc, char **argv) {
    if (argc > 1) return spawned_work() == 14 ? 0 : 1;
    printf("%d\n", spawn_self(argv[0]));
    return 0;
}
"#;

#[test]
fn a_posix_spawned_program_writes_its_own_named_trace() {
    let dir = work("spawn");
    let exe = build(&dir, "sp", SPAWN, &[]);
    for format in FORMATS {
        let (out, traces) = record(&exe, &[], format);
        assert_eq!(out, "0\n");
        assert_eq!(traces.len(), 2, "{traces:?}");
        let (child, child_tree) = every_command(&exe, &traces[0]);
        assert_eq!(
            child,
            edges(&[("main", "spawned_work", 1), ("spawned_work", "leaf", 4)])
        );
        assert_eq!(
            child_tree,
            "main\n  spawned_work\n    leaf\n    leaf\n    leaf\n    leaf\n"
        );
        let (parent, _) = every_command(&exe, &traces[1]);
        assert_eq!(parent, edges(&[("main", "spawn_self", 1)]));
        compare(&exe, &traces);
    }
}

const EXIT: &str = r#"
#include <stdio.h>
#include <unistd.h>
static int leaf(int x) { return x + 1; }
static void finish(int code) { leaf(code); fflush(stdout); _exit(code); }
static void detach(void) { leaf(1); leaf(2); printf("detached\n"); finish(0); }
static void daemonize(void) { leaf(0); detach(); }
int main(void) { daemonize(); return 1; }
"#;

#[test]
fn events_up_to_an_exit_from_a_nested_call_are_all_present() {
    let dir = work("exit");
    let exe = build(&dir, "ex", EXIT, &[]);
    for format in FORMATS {
        let (out, traces) = record(&exe, &[], format);
        assert_eq!(out, "detached\n");
        assert_eq!(traces.len(), 1, "{traces:?}");
        let (e, t) = every_command(&exe, &traces[0]);
        assert_eq!(
            e,
            edges(&[
                ("main", "daemonize", 1),
                ("daemonize", "leaf", 1),
                ("daemonize", "detach", 1),
                ("detach", "leaf", 2),
                ("detach", "finish", 1),
                ("finish", "leaf", 1),
            ])
        );
        assert_eq!(
            t,
            "main\n  daemonize\n    leaf\n    detach\n      leaf\n      leaf\n      finish\n        leaf\n"
        );
        compare(&exe, &traces);
    }
}
