//! Loaded objects that change while the program runs, and what the runtime
//! must never do to the files around it: a library loaded where an unloaded
//! one was keeps its own names (the runtime writes its mappings in order
//! with the events, the reader uses the mappings in force at each event),
//! the trace never truncates a file the process maps, a name that does not
//! fit is refused, and diagnostics never go into a file that took stderr's
//! descriptor.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::{BIN, build_traced, compile, fresh_dir, output_within, root, tool};

/// A fresh directory for one test's programs and traces.
fn work(name: &str) -> PathBuf {
    fresh_dir("runtime_maps", name)
}

/// The program: loads a library, calls into it, closes it, then the same
/// with a second library, which the loader puts where the first one was.
const DLOPEN_MAIN: &str = r#"#include <dlfcn.h>
#include <stdio.h>

static int visit(const char *lib, const char *sym, int n)
{
    void *h = dlopen(lib, RTLD_NOW);
    int (*f)(int);
    int r;
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    f = (int (*)(int))dlsym(h, sym);
    r = f ? f(n) : -1;
    dlclose(h);
    return r < 0;
}

int main(void)
{
    return visit("./libfirst.so", "first_outer", 3) || visit("./libsecond.so", "second_outer", 4);
}
"#;

const FIRST_LIB: &str = r#"static int first_inner(int n) { return n * 2; }
int first_middle(int n) { return first_inner(n + 1) - 1; }
int first_outer(int n) { return first_middle(n) + 1; }
"#;

const SECOND_LIB: &str = r#"volatile int sink;
struct Helper {
    static int twice(int n) { sink = n; return 2 * n; }
};
extern "C" int second_outer(int n) { return Helper::twice(n) + Helper::twice(n + 1); }
"#;

/// The calls each function of the program gets.
const DLOPEN_CALLS: &[(&str, u64)] = &[
    ("Helper::twice(int)", 2),
    ("first_inner", 1),
    ("first_middle", 1),
    ("first_outer", 1),
    ("main", 1),
    ("second_outer", 1),
    ("visit", 2),
];

/// Builds the two libraries into `dir`, and the program (with the runtime
/// unless `runtime` is false) as `dir/exe`.
fn build_dlopen(dir: &Path, exe: &str, runtime: bool) -> PathBuf {
    std::fs::write(dir.join("main.c"), DLOPEN_MAIN).unwrap();
    std::fs::write(dir.join("first.c"), FIRST_LIB).unwrap();
    std::fs::write(dir.join("second.cpp"), SECOND_LIB).unwrap();
    let flags = ["-g", "-finstrument-functions", "-shared", "-fPIC"];
    compile(Command::new("gcc").current_dir(dir).args(flags).args([
        "first.c",
        "-o",
        "libfirst.so",
    ]));
    compile(Command::new("g++").current_dir(dir).args(flags).args([
        "second.cpp",
        "-o",
        "libsecond.so",
    ]));
    let mut cmd = Command::new("gcc");
    cmd.current_dir(dir)
        .args(["-g", "-finstrument-functions", "main.c"]);
    if runtime {
        cmd.arg(root().join("runtime/calltrace.c"));
    }
    compile(cmd.args(["-o", exe, "-ldl"]));
    dir.join(exe)
}

/// Runs `exe` in `dir` writing a trace of `format` to `trace`.
fn record(dir: &Path, exe: &Path, format: &str, trace: &Path) {
    let out = output_within(
        Command::new(exe)
            .current_dir(dir)
            .env("CALLTRACE_OUT", trace)
            .env("CALLTRACE_FORMAT", format),
        60,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "runtime complained"
    );
}

/// How often each function is called in `calltrace tree` of `trace`.
fn call_counts(trace: &Path, extra: &[&str]) -> BTreeMap<String, u64> {
    let out = Command::new(BIN)
        .args(["tree", "--trace"])
        .arg(trace)
        .args(extra)
        .output()
        .expect("run calltrace");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut counts = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.trim_start();
        let name = name.rsplit_once(" (").map_or(name, |(n, _)| n);
        *counts.entry(name.to_string()).or_insert(0) += 1;
    }
    counts
}

fn expected(list: &[(&str, u64)]) -> BTreeMap<String, u64> {
    list.iter().map(|&(n, c)| (n.to_string(), c)).collect()
}

/// uftrace's s-dlopen shape: a library loaded where a closed one was got
/// the closed one's names (`foo` counted as `lib_a`), because nothing told
/// the reader that the code at those addresses had changed.
#[test]
fn a_library_loaded_where_a_closed_one_was_keeps_its_own_names() {
    let dir = work("dlopen");
    let exe = build_dlopen(&dir, "app", true);
    let text = dir.join("trace.txt");
    record(&dir, &exe, "text", &text);
    // The second library really went where the first one was.
    let trace = std::fs::read_to_string(&text).unwrap();
    let starts: Vec<(&str, &str)> = trace
        .lines()
        .filter_map(|l| l.strip_prefix("# map "))
        .filter(|l| l.ends_with("/libfirst.so") || l.ends_with("/libsecond.so"))
        .map(|l| (l.split(' ').next().unwrap(), l.rsplit('/').next().unwrap()))
        .collect();
    assert_eq!(starts.len(), 2, "{starts:?}");
    assert_eq!(
        starts[0].0, starts[1].0,
        "the loader chose another address: {starts:?}"
    );
    // The second library's mapping comes after the first one's events.
    let second_map = trace.find("/libsecond.so").unwrap();
    let first_start = u64::from_str_radix(starts[0].0.trim_start_matches("0x"), 16).unwrap();
    let last_event_before = trace[..second_map]
        .lines()
        .filter(|l| l.starts_with('E'))
        .filter_map(|l| u64::from_str_radix(&l[3..l.find(' ').unwrap()], 16).ok())
        .filter(|&a| a >= first_start && a < first_start + 0x10000)
        .count();
    assert_eq!(
        last_event_before, 3,
        "the first library's 3 entries come before:\n{trace}"
    );
    for threads in ["1", "2"] {
        assert_eq!(
            call_counts(&text, &["--threads", threads]),
            expected(DLOPEN_CALLS)
        );
    }
    let bin = dir.join("trace.bin");
    record(&dir, &exe, "binary", &bin);
    assert_eq!(call_counts(&bin, &[]), expected(DLOPEN_CALLS));
}

/// The same program against uftrace's call counts (uftrace's own build,
/// without the runtime), through scripts/compare-uftrace.sh.
#[test]
fn a_library_loaded_where_a_closed_one_was_counts_as_uftrace_counts() {
    if tool("uftrace").is_none() {
        return;
    }
    let dir = work("dlopen-uftrace");
    build_dlopen(&dir, "unused", false);
    let out = output_within(
        Command::new(root().join("scripts/compare-uftrace.sh"))
            .env("CALLTRACE", BIN)
            .arg("--dir")
            .arg(&dir)
            .args(["gcc"])
            .arg(dir.join("main.c"))
            .arg("-ldl"),
        120,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = DLOPEN_CALLS.len();
    let calls: u64 = DLOPEN_CALLS.iter().map(|c| c.1).sum();
    assert!(
        stdout.contains(&format!("agree: {n} of {n} functions, {calls} calls")),
        "{stdout}"
    );
}

/// Builds `source` (C) with the runtime as `dir/name`, plus `extra` arguments.
fn build(dir: &Path, name: &str, source: &str, extra: &[&str]) -> PathBuf {
    build_traced(dir, name, source, "-O0", extra)
}

/// Runs `exe` in `dir` with `CALLTRACE_OUT=out`.
fn run_with_out(dir: &Path, exe: &Path, out: &Path) -> std::process::Output {
    output_within(
        Command::new(exe)
            .current_dir(dir)
            .env("CALLTRACE_OUT", out)
            .env_remove("CALLTRACE_FORMAT"),
        60,
    )
}

/// `CALLTRACE_OUT=libl.so ./app` with app linked against libl.so: the
/// runtime emptied the library the process had mapped, and the program
/// died of SIGBUS on its next call into it.
#[test]
fn a_trace_file_that_the_process_maps_is_refused_not_truncated() {
    let dir = work("mapped");
    std::fs::write(dir.join("l.c"), "int twice(int n) { return 2 * n; }\n").unwrap();
    compile(Command::new("gcc").current_dir(&dir).args([
        "-g",
        "-finstrument-functions",
        "-shared",
        "-fPIC",
        "l.c",
        "-o",
        "libl.so",
    ]));
    let main = "#include <stdio.h>\nint twice(int);\n\
                int main(void) { int s = 0; for (int i = 0; i < 100; i++) s += twice(i); \
                printf(\"%d\\n\", s); return 0; }\n";
    let exe = build(&dir, "app", main, &["-L.", "-ll", "-Wl,-rpath,$ORIGIN"]);
    let lib = dir.join("libl.so");
    let before = std::fs::read(&lib).unwrap();
    for format in ["text", "binary"] {
        let out = output_within(
            Command::new(&exe)
                .current_dir(&dir)
                .env("CALLTRACE_OUT", &lib)
                .env("CALLTRACE_FORMAT", format),
            60,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{format}: {:?} {stderr}", out.status);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "9900\n");
        assert!(
            stderr.contains("the trace file is mapped into the process")
                && stderr.contains("libl.so"),
            "{stderr}"
        );
        assert_eq!(
            std::fs::read(&lib).unwrap(),
            before,
            "{format}: the library changed"
        );
    }
}

/// A directory path of `len` bytes under `base` (components of at most
/// 200 bytes), created.
fn long_dir(base: &Path, len: usize) -> PathBuf {
    let mut dir = base.to_path_buf();
    while dir.as_os_str().len() + 201 < len {
        dir.push("d".repeat(200));
    }
    let rest = len - dir.as_os_str().len() - 1;
    dir.push("e".repeat(rest));
    std::fs::create_dir_all(&dir).expect("create a long directory");
    assert_eq!(dir.as_os_str().len(), len);
    dir
}

/// A valid `CALLTRACE_OUT` of 4,082 bytes was cut to 4,072, which named an
/// existing file, and that file was overwritten. A name that fits is used
/// whole; one that does not is refused.
#[test]
fn a_long_trace_name_is_used_whole_or_refused_never_cut_short() {
    let dir = work("long");
    let exe = build(&dir, "app", "int main(void) { return 0; }\n", &[]);
    let deep = long_dir(&dir, 4000);
    let name = |len: usize| deep.join("t".repeat(len - deep.as_os_str().len() - 1));
    let full = name(4082);
    let cut = name(4072);
    std::fs::write(&cut, "precious\n").unwrap();
    let out = run_with_out(&dir, &exe, &full);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(std::fs::read_to_string(&cut).unwrap(), "precious\n");
    let trace = std::fs::read_to_string(&full).expect("the trace under its whole name");
    assert!(trace.starts_with("# calltrace 1 text\n"), "{trace}");
    // 4,096 bytes do not fit with the NUL: refused, nothing written.
    let too_long = name(4096);
    let cut = name(4095);
    std::fs::write(&cut, "precious\n").unwrap();
    let out = run_with_out(&dir, &exe, &too_long);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("longer than PATH_MAX"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&cut).unwrap(), "precious\n");
}

/// A program that closes descriptor 2 and opens a data file there got
/// "calltrace: ..." written into its data.
#[test]
fn runtime_messages_never_go_into_a_file_that_took_stderrs_descriptor() {
    let dir = work("stderr");
    // Closes every descriptor but 0 and 1 (the trace's too: the runtime
    // then has something to say), opens its data file, which gets 2.
    let main = r#"#include <fcntl.h>
#include <unistd.h>
static int step(int n) { return n + 1; }
int main(void)
{
    int s = 0, fd;
    for (fd = 2; fd < 4096; fd++)
        close(fd);
    fd = open("data.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd != 2)
        return 3;
    if (write(fd, "data\n", 5) != 5)
        return 4;
    for (int i = 0; i < 100000; i++)
        s = step(s);
    return s == 100000 ? 0 : 5;
}
"#;
    let exe = build(&dir, "app", main, &[]);
    let out = run_with_out(&dir, &exe, &dir.join("trace.txt"));
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(
        std::fs::read_to_string(dir.join("data.txt")).unwrap(),
        "data\n"
    );
}

/// A newline in a directory name became `?` in the recorded executable path
/// (binary traces too, which can carry any bytes), so the trace named a
/// file that does not exist and its functions could not be named without
/// BINARY. Text traces escape the path; the reader undoes it.
#[test]
fn an_executable_under_a_directory_with_a_newline_is_found_from_the_trace() {
    let dir = work("newline").join("new\nline \\n dir");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = build(
        &dir,
        "app",
        "static int leaf(int n) { return n + 1; }\nint main(void) { return leaf(1) - 2; }\n",
        &[],
    );
    for (format, name) in [("text", "t.txt"), ("binary", "t.bin")] {
        let trace = dir.join(name);
        record(&dir, &exe, format, &trace);
        let out = Command::new(BIN)
            .args(["tree", "--trace"])
            .arg(&trace)
            .output()
            .expect("run calltrace");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{format}: {stderr}");
        assert!(!stderr.contains("warning"), "{format}: {stderr}");
        let names: Vec<&str> = stdout
            .lines()
            .map(|l| l.trim_start().split(" (").next().unwrap())
            .collect();
        assert_eq!(names, ["main", "leaf"], "{format}: {stdout}");
    }
}
