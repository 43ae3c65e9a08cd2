//! The freestanding runtime on the host (x86-64, LP64, a counting clock
//! given as `CALLTRACE_CLOCK()`): testdata/hello dumps its buffer through
//! `calltrace_dump` when it exits, and `calltrace graph --csv` reads the
//! dump to the call counts of the same program traced by the Linux
//! runtime.

use std::path::Path;
use std::process::Command;

use super::super::util::*;

/// Dumps `calltrace_buffer` into `fw.bin` once `main` has returned.
const DUMPER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
size_t calltrace_dump(void (*write)(const void *, size_t, void *), void *ctx);
static void write_file(const void *data, size_t len, void *ctx)
{
    if (fwrite(data, 1, len, (FILE *)ctx) != len)
        exit(3);
}
__attribute__((destructor)) static void dump_at_exit(void)
{
    FILE *out = fopen("fw.bin", "wb");
    if (!out || calltrace_dump(write_file, out) == 0 || fclose(out) != 0)
        _exit(3);
}
static unsigned clock_now = 0xfffff000u;
unsigned host_clock(void) { return clock_now += 5; }
"#;

const HELLO: [&str; 3] = [
    "testdata/hello/main.c",
    "testdata/hello/shapes.c",
    "testdata/hello/util.c",
];

/// Builds testdata/hello in `dir` with `runtime` (and `extra` files),
/// at -O1 with functions aligned (bit 0 of an address is the event's kind
/// in the freestanding buffer), and runs it there; `env` names its trace.
fn build_and_run(dir: &Path, name: &str, runtime: &[&Path], extra: &[&str], env: (&str, &str)) {
    let mut cc = Command::new("gcc");
    cc.current_dir(dir)
        .args([
            "-g",
            "-O1",
            "-falign-functions=16",
            "-finstrument-functions",
        ])
        .args(HELLO.map(|f| root().join(f)))
        .args(runtime)
        .args(extra)
        .args(["-o", name]);
    compile(&mut cc);
    let out = output_within(
        Command::new(dir.join(name))
            .current_dir(dir)
            .env(env.0, env.1),
        60,
    );
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("sum        55"),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_host_programs_dump_reads_to_the_linux_runtimes_call_counts() {
    let dir = fresh_dir("freestanding_read", "host");
    let fw = dir.join("calltrace-fw.c");
    let text = calltrace(["runtime", "--freestanding"])
        .run()
        .success()
        .stdout;
    std::fs::write(&fw, text).expect("write the runtime");
    std::fs::write(dir.join("dumper.c"), DUMPER).expect("write dumper.c");
    let object = dir.join("calltrace-fw.o");
    compile(
        Command::new("gcc")
            .current_dir(&dir)
            .args(["-O1", "-c", "-o"])
            .args([&object, &fw])
            .args([
                "-DCALLTRACE_EVENTS=4096",
                "-DCALLTRACE_CLOCK()=host_clock()",
                "-DCALLTRACE_DECLARE=unsigned host_clock(void);",
            ]),
    );
    let dumper = dir.join("dumper.o");
    compile(
        Command::new("gcc")
            .current_dir(&dir)
            .args(["-O1", "-c", "-o"])
            .args([&dumper, &dir.join("dumper.c")]),
    );
    build_and_run(&dir, "hello-fw", &[&object, &dumper], &[], ("UNUSED", ""));
    let linux = root().join("runtime/calltrace.c");
    build_and_run(
        &dir,
        "hello-linux",
        &[&linux],
        &[],
        ("CALLTRACE_OUT", "trace.txt"),
    );
    let fw_graph = graph(
        dir.join("hello-fw").to_str().expect("UTF-8"),
        &dir.join("fw.bin"),
    );
    let linux_graph = graph(
        dir.join("hello-linux").to_str().expect("UTF-8"),
        &dir.join("trace.txt"),
    );
    let want = linux_graph.edges();
    assert_eq!(fw_graph.edges(), want, "{}", fw_graph.stderr);
    assert_eq!(want.iter().map(|e| e.2).sum::<u64>(), 24, "{want:?}");
    assert!(!fw_graph.stderr.contains("repaired"), "{}", fw_graph.stderr);
    // The clock advanced 5 a step: cycles, 2 events per call of 25.
    let tree = tree(
        dir.join("hello-fw").to_str().expect("UTF-8"),
        &dir.join("fw.bin"),
        &[],
    );
    assert!(tree.starts_with("main ("), "{tree}");
    assert!(
        tree.lines()
            .next()
            .expect("a line")
            .ends_with("/ 245 cycles)"),
        "{tree}"
    );
}
