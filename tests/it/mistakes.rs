//! Common mistakes of a first session never give a wrong answer with exit
//! code 0: a trace given where the program goes, a trace of an older
//! build, a program built without the runtime (glibc's empty hooks run and
//! nothing is written), and a program built without `-g` (warned about
//! before any output).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::*;

/// Version 1 of the traced program.
const V1: &str = r#"
#include <stdio.h>
int pad1(int x) { return x + 1; }
int skip(int x) { return x * 2; }
int main(void) { printf("%d\n", skip(pad1(3))); return 0; }
"#;

/// Compiles `source` into `dir/name` with `-finstrument-functions`, plus
/// `-g` when `debug` and the runtime when `runtime`.
fn build(dir: &Path, name: &str, source: &str, debug: bool, runtime: bool) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).unwrap();
    let exe = dir.join(name);
    let mut cmd = Command::new("gcc");
    cmd.arg("-finstrument-functions").arg(&src);
    if debug {
        cmd.arg("-g");
    }
    if runtime {
        cmd.arg(root().join("runtime/calltrace.c"));
    }
    let out = cmd.arg("-o").arg(&exe).output().expect("run gcc");
    assert!(
        out.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs `exe` in `dir` with the runtime's settings in `env`.
fn run_program(exe: &Path, dir: &Path, env: &[(&str, &str)]) {
    let out = output_within(
        Command::new(exe)
            .current_dir(dir)
            .env_remove("CALLTRACE_OUT")
            .env_remove("CALLTRACE_FORMAT")
            .envs(env.iter().copied()),
        60,
    );
    assert!(out.status.success(), "{exe:?} failed");
}

/// The files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn a_trace_given_as_the_program_is_refused_with_the_flag_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let exe = build(d, "app", V1, true, true);
    run_program(&exe, d, &[("CALLTRACE_OUT", "mytrace.txt")]);
    run_program(
        &exe,
        d,
        &[
            ("CALLTRACE_OUT", "mytrace.bin"),
            ("CALLTRACE_FORMAT", "binary"),
        ],
    );
    // A trace.txt of another run lies there too: it must not be read instead.
    std::fs::copy(d.join("mytrace.txt"), d.join("trace.txt")).unwrap();
    let before = files_in(d);
    for trace in ["mytrace.txt", "mytrace.bin"] {
        for cmd in [
            &["graph", trace][..],
            &["tree", trace],
            &["abstract", trace, "--tree-out", "-"],
            &["export", trace, "--to", "folded", "-o", "-"],
            &["live", trace],
        ] {
            let msg = calltrace(cmd).current_dir(d).run().failure();
            assert_eq!(
                msg,
                format!("{trace} is a trace; did you mean `--trace {trace}`?"),
                "{cmd:?}"
            );
        }
    }
    // compare has no --trace: its traces are its arguments.
    let msg = calltrace(["compare", "--binary", "mytrace.txt", "trace.txt"])
        .current_dir(d)
        .run()
        .failure();
    assert_eq!(
        msg,
        "--binary: mytrace.txt is a trace, not the traced program; give it as a TRACE argument"
    );
    assert_eq!(files_in(d), before, "nothing written");
    // Neither a program nor a trace: said so, not read as a program with a
    // warning.
    let msg = calltrace(["tree", "app.c"]).current_dir(d).run().failure();
    assert!(
        msg.starts_with("app.c: not an ELF executable") && msg.contains("traced program"),
        "{msg}"
    );
}

#[test]
fn a_program_without_the_runtime_gets_the_link_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let exe = build(d, "app", V1, true, false);
    run_program(&exe, d, &[]);
    assert_eq!(files_in(d), ["app", "app.c"], "glibc's hooks write nothing");
    for cmd in [&["tree", "./app"][..], &["graph", "./app"]] {
        let msg = calltrace(cmd).current_dir(d).run().failure();
        for part in [
            "trace.txt: No such file",
            "./app calls __cyg_profile_func_enter",
            "calltrace runtime > calltrace.c",
            "gcc -g -finstrument-functions app.c calltrace.c -o app",
        ] {
            assert!(msg.contains(part), "{part} in {msg}");
        }
    }
    assert_eq!(files_in(d), ["app", "app.c"], "nothing written");
    // With the runtime in the program, a missing trace is only that.
    build(d, "app", V1, true, true);
    let msg = calltrace(["tree", "./app"]).current_dir(d).run().failure();
    assert!(msg.starts_with("trace.txt: No such file"), "{msg}");
    assert!(!msg.contains("runtime"), "{msg}");
}
