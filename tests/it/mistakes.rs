//! Common mistakes of a first session never give a wrong answer with exit
//! code 0: a trace given where the program goes, a trace of an older
//! build, a program built without the runtime (glibc's empty hooks run and
//! nothing is written), and a program built without `-g` (warned about
//! before any output).

use std::fs::File;
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

/// Version 2: one function more, so every address after it moves.
const V2: &str = r#"
#include <stdio.h>
int pad0(int x) { return x - 1; }
int pad1(int x) { return x + 1; }
int skip(int x) { return x * 2; }
int main(void) { printf("%d\n", skip(pad1(pad0(3)))); return 0; }
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

/// Runs calltrace in `dir` with standard output and standard error going
/// to one file, so the order of warnings and output shows; returns the
/// exit code and everything printed.
fn merged(dir: &Path, args: &[&str]) -> (i32, String) {
    let path = dir.join("merged.out");
    let file = File::create(&path).unwrap();
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("calltrace {args:?} did not finish within 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("panicked"), "{text}");
    (status.code().unwrap_or(-1), text)
}

/// The GNU build-id of an ELF file, as lower-case hex.
fn build_id(path: &Path) -> String {
    use object::Object;
    let data = std::fs::read(path).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let id = file.build_id().unwrap().expect("a build-id");
    id.iter().map(|b| format!("{b:02x}")).collect()
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
    let before = listing(d);
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
    assert_eq!(listing(d), before, "nothing written");
    // Neither a program nor a trace: said so, not read as a program with a
    // warning.
    let msg = calltrace(["tree", "app.c"]).current_dir(d).run().failure();
    assert!(
        msg.starts_with("app.c: not an ELF executable") && msg.contains("traced program"),
        "{msg}"
    );
}

#[test]
fn a_trace_of_an_older_build_is_refused_naming_both_build_ids() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = d.join("old");
    std::fs::create_dir(&old).unwrap();
    let exe = build(d, "app", V1, true, true);
    run_program(&exe, d, &[("CALLTRACE_OUT", "old.txt")]);
    std::fs::copy(&exe, old.join("app")).unwrap();
    let traced = build_id(&exe);
    build(d, "app", V2, true, true);
    let current = build_id(&exe);
    assert_ne!(traced, current);
    let trace = d.join("old.txt");
    let trace = trace.to_str().unwrap();
    let commands: [&[&str]; 5] = [
        &["tree", "./app", "--trace", trace],
        &["graph", "./app", "--trace", trace, "-o", "-"],
        &["abstract", "./app", "--trace", trace, "--tree-out", "-"],
        &[
            "export", "./app", "--trace", trace, "--to", "folded", "-o", "-",
        ],
        &["compare", "--binary", "./app", "--out-dir", "cmp", trace],
    ];
    for cmd in commands {
        let msg = calltrace(cmd).current_dir(d).run().failure();
        for part in [&traced, &current, "--search-path", "--allow-mismatch"] {
            assert!(msg.contains(part), "{cmd:?}: {part} in {msg}");
        }
    }
    // The recorded executable rebuilt in place: the same refusal.
    let msg = calltrace(["tree", "--trace", trace])
        .current_dir(d)
        .run()
        .failure();
    assert!(msg.contains(&traced) && msg.contains(&current), "{msg}");
    // The traced build in a search directory names the trace rightly.
    for binary in [&["./app"][..], &[]] {
        let tree = calltrace(["tree", "--search-path", "old", "--trace", trace])
            .args(binary)
            .current_dir(d)
            .run()
            .success();
        assert_eq!(shape(&tree.text()), "main\n  pad1\n  skip\n", "{binary:?}");
        assert!(!tree.stderr.contains("warning"), "{}", tree.stderr);
    }
    // --allow-mismatch goes on, with the warning before the output.
    for cmd in commands {
        let args = [cmd, &["--allow-mismatch"]].concat();
        let (code, text) = merged(d, &args);
        assert_eq!(code, 0, "{args:?}: {text}");
        // compare names the pattern first: `warning: old: ./app: ...`.
        let warning = text
            .find(&format!("./app: build-id {current}"))
            .unwrap_or_else(|| panic!("{args:?}: {text}"));
        assert!(
            text.starts_with("calltrace: warning: ") && !text[..warning].contains('\n'),
            "{args:?}: the warning comes first:\n{text}"
        );
        assert!(text[warning..].contains(&traced), "{text}");
    }
}

#[test]
fn a_program_without_the_runtime_gets_the_link_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let exe = build(d, "app", V1, true, false);
    run_program(&exe, d, &[]);
    assert_eq!(listing(d), ["app", "app.c"], "glibc's hooks write nothing");
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
    assert_eq!(listing(d), ["app", "app.c"], "nothing written");
    // With the runtime in the program, a missing trace is only that.
    build(d, "app", V1, true, true);
    let msg = calltrace(["tree", "./app"]).current_dir(d).run().failure();
    assert!(msg.starts_with("trace.txt: No such file"), "{msg}");
    assert!(!msg.contains("runtime"), "{msg}");
}

#[test]
fn a_program_built_without_debug_information_is_warned_about_before_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let exe = build(d, "app", V1, false, true);
    run_program(&exe, d, &[]);
    for cmd in [
        &["tree", "./app"][..],
        &["export", "./app", "--to", "callgrind", "-o", "-"],
        &["graph", "./app", "-o", "-"],
    ] {
        let (code, text) = merged(d, cmd);
        assert_eq!(code, 0, "{text}");
        let warning = "warning: ./app has no debug information (built without -g?): \
                       names come from the symbol table, without source files and lines";
        assert_eq!(text.matches(warning).count(), 1, "{cmd:?}: {text}");
        assert!(
            text.starts_with(&format!("calltrace: {warning}")),
            "{cmd:?}: warned first:\n{text}"
        );
        assert!(text.contains("main"), "{text}");
    }
    // Built with -g: no such warning.
    build(d, "app", V1, true, true);
    run_program(&exe, d, &[]);
    let (code, text) = merged(d, &["tree", "./app"]);
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("warning"), "{text}");
}
