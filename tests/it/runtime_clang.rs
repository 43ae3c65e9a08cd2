//! The runtime compiled by clang, with the program: clang instruments the
//! inline functions of system headers (`gnu_dev_major` of
//! `<sys/sysmacros.h>`, the `_FORTIFY_SOURCE` wrappers of `memcpy`), and
//! inlined into the runtime they recorded the runtime itself, or were
//! counted as "events dropped (nested signal handlers interrupted the
//! tracer)" where no signal ran. A clang build must trace what the gcc
//! build traces, and say nothing.

use std::path::Path;
use std::process::Command;

use super::cancel::read_back;
use super::util::{compile, fresh_dir, graph, hello_pie, output_within, root, tool};

const HELLO: [&str; 3] = [
    "testdata/hello/main.c",
    "testdata/hello/shapes.c",
    "testdata/hello/util.c",
];

/// testdata/hello and the runtime built by clang with `flags`.
fn build_with_clang(clang: &Path, dir: &Path, name: &str, flags: &[&str]) -> std::path::PathBuf {
    let exe = dir.join(name);
    compile(
        Command::new(clang)
            .args(["-g", "-finstrument-functions"])
            .args(flags)
            .args(HELLO.iter().map(|s| root().join(s)))
            .arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe),
    );
    exe
}

#[test]
fn a_clang_build_traces_what_the_gcc_build_traces_and_never_the_runtime() {
    let Some(clang) = tool("clang") else { return };
    let dir = fresh_dir("runtime-clang", "hello");
    let gcc = hello_pie();
    let gcc_trace = &gcc.text_trace().path;
    let expected_edges = graph(gcc.exe(), gcc_trace).edges();
    let expected_calls = read_back(&gcc.exe, gcc_trace).calls;
    let expected_stdout = Command::new(&gcc.exe)
        .current_dir(&dir)
        .env("CALLTRACE_OUT", "/dev/null")
        .output()
        .expect("run the gcc build")
        .stdout;
    let builds: [(&str, &[&str]); 3] = [
        ("O0", &["-O0"]),
        ("O2", &["-O2"]),
        ("O2-fortify", &["-O2", "-D_FORTIFY_SOURCE=2"]),
    ];
    for (name, flags) in builds {
        let exe = build_with_clang(&clang, &dir, name, flags);
        for format in ["text", "binary"] {
            let what = format!("clang {flags:?}, {format}");
            let trace = dir.join(format!("{name}.{format}"));
            let out = output_within(
                Command::new(&exe)
                    .current_dir(&dir)
                    .env("CALLTRACE_OUT", &trace)
                    .env("CALLTRACE_FORMAT", format),
                30,
            );
            assert!(out.status.success(), "{what}: {out:?}");
            assert_eq!(out.stdout, expected_stdout, "{what}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                "",
                "{what}: the runtime complained"
            );
            // The same functions (no ct_*, gnu_dev_*, memcpy.inline), each
            // called as often, from the same callers.
            assert_eq!(read_back(&exe, &trace).calls, expected_calls, "{what}");
            assert_eq!(
                graph(exe.to_str().expect("UTF-8 path"), &trace).edges(),
                expected_edges,
                "{what}"
            );
        }
    }
}
