//! Code that no loaded object holds, named from a perf map (`START SIZE
//! NAME` lines, as JIT compilers write for perf): a tiny JIT (x86-64
//! machine code written into an anonymous page) that calls the profiling
//! hooks around its generated functions and writes their perf map, the
//! traced process's `/tmp/perf-PID.map` or the file `--perf-map` names.
#![cfg(target_arch = "x86_64")]

use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::{build_traced, calltrace, edges, fresh_dir, graph, output_within};

/// A JIT of two functions, `jit_add` called 3 times and `jit_mul(int,
/// int)` twice, each through `call_jit`. Its perf map goes to
/// `$JIT_PERF_MAP`, else to `/tmp/perf-PID.map`.
const JIT: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

typedef int (*jit_fn)(int, int);

/* lea eax, [rdi+rsi]; ret */
static const unsigned char ADD[] = {0x8d, 0x04, 0x37, 0xc3};
/* mov eax, edi; imul eax, esi; ret */
static const unsigned char MUL[] = {0x89, 0xf8, 0x0f, 0xaf, 0xc6, 0xc3};

/* Generated code between the hooks, as a JIT emitting profiling calls. */
static int call_jit(jit_fn f, int a, int b)
{
    int r;
    __cyg_profile_func_enter((void *)f, __builtin_return_address(0));
    r = f(a, b);
    __cyg_profile_func_exit((void *)f, __builtin_return_address(0));
    return r;
}

int main(void)
{
    const char *path = getenv("JIT_PERF_MAP");
    char own[64];
    unsigned char *page;
    jit_fn add, mul;
    FILE *map;
    int i, sum = 0;

    page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return 1;
    memcpy(page, ADD, sizeof ADD);
    memcpy(page + 64, MUL, sizeof MUL);
    if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
        return 1;
    add = (jit_fn)(void *)page;
    mul = (jit_fn)(void *)(page + 64);
    if (!path) {
        snprintf(own, sizeof own, "/tmp/perf-%d.map", (int)getpid());
        path = own;
    }
    map = fopen(path, "w");
    if (!map)
        return 1;
    fprintf(map, "%lx %zx jit_add\n", (unsigned long)page, sizeof ADD);
    fprintf(map, "0x%lx 0x%zx jit_mul(int, int)\n", (unsigned long)(page + 64), sizeof MUL);
    fclose(map);
    for (i = 0; i < 3; i++)
        sum += call_jit(add, i, 1);
    for (i = 0; i < 2; i++)
        sum += call_jit(mul, i + 1, 2);
    printf("%d\n", sum);
    return 0;
}
"#;

/// The calls of the JIT's run, with the generated functions named.
const NAMED: &[(&str, &str, u64)] = &[
    ("main", "call_jit", 5),
    ("call_jit", "jit_add", 3),
    ("call_jit", "jit_mul(int, int)", 2),
];

/// Builds the JIT in a fresh directory.
fn build(name: &str) -> (PathBuf, PathBuf) {
    let dir = fresh_dir("perf_map", name);
    let exe = build_traced(&dir, "jit", JIT, "-O0", &[]);
    (dir, exe)
}

/// Runs the JIT in `dir` with `env`; the trace is `dir/trace.txt` or, for
/// the binary format, `dir/trace.bin`.
fn run(dir: &Path, exe: &Path, env: &[(&str, &str)]) {
    let mut cmd = Command::new(exe);
    cmd.current_dir(dir).envs(env.iter().copied());
    let out = output_within(&mut cmd, 60);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "12\n");
}

/// Removes a file when dropped (the map the JIT wrote in /tmp).
struct Removed(PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The graph's edges with the JIT's addresses, those outside every object
/// named `0x...`, as `JIT`.
fn jit_as_hex(edges: Vec<(String, String, u64)>) -> Vec<(String, String, u64)> {
    let mut v: Vec<_> = edges
        .into_iter()
        .map(|(a, b, n)| match b.starts_with("0x") {
            true => (a, "JIT".to_string(), n),
            false => (a, b, n),
        })
        .collect();
    v.sort();
    v
}

#[test]
fn jit_functions_are_named_from_the_traced_processs_perf_map_and_stay_hex_without_it() {
    let (dir, exe) = build("default");
    run(&dir, &exe, &[]);
    let trace = dir.join("trace.txt");
    let text = std::fs::read_to_string(&trace).unwrap();
    let pid = text
        .lines()
        .find_map(|l| l.strip_prefix("# process "))
        .and_then(|l| l.split(' ').next())
        .expect("a # process line");
    let map = Removed(PathBuf::from(format!("/tmp/perf-{pid}.map")));
    assert!(map.0.is_file(), "the JIT wrote {}", map.0.display());
    let exe = exe.to_str().unwrap();
    let named = graph(exe, &trace);
    assert_eq!(named.edges(), edges(NAMED), "{}", named.stderr);
    assert!(
        !named.stderr.contains("did not resolve"),
        "{}",
        named.stderr
    );

    drop(map);
    let bare = graph(exe, &trace);
    let hex = edges(&[
        ("main", "call_jit", 5),
        ("call_jit", "JIT", 3),
        ("call_jit", "JIT", 2),
    ]);
    assert_eq!(jit_as_hex(bare.edges()), hex, "{}", bare.stderr);
    assert!(
        bare.stderr
            .contains("2 of 4 address(es) did not resolve to a function"),
        "{}",
        bare.stderr
    );
}

#[test]
fn perf_map_names_the_jit_functions_of_a_binary_trace() {
    let (dir, exe) = build("explicit");
    let map = dir.join("jit.map");
    let env = [
        ("JIT_PERF_MAP", map.to_str().unwrap()),
        ("CALLTRACE_FORMAT", "binary"),
        ("CALLTRACE_OUT", "trace.bin"),
    ];
    run(&dir, &exe, &env);
    let trace = dir.join("trace.bin");
    let tree = |extra: &[&str]| {
        let args = [
            "tree",
            exe.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
        ];
        calltrace(args.iter().chain(extra)).run().success().text()
    };
    let named = tree(&["--perf-map", map.to_str().unwrap()]);
    assert_eq!(named.matches("    jit_add (").count(), 3, "{named}");
    assert_eq!(
        named.matches("    jit_mul(int, int) (").count(),
        2,
        "{named}"
    );
    // `--modules auto:file` puts them in a module of their own.
    let mut args = vec!["abstract", exe.to_str().unwrap(), "--trace"];
    args.extend([trace.to_str().unwrap(), "--perf-map", map.to_str().unwrap()]);
    args.extend(["--modules", "auto:file", "--merge-modules", "-o", "-"]);
    let dot = calltrace(args).run().success().text();
    assert!(dot.contains("label=\"[perf-map]\""), "{dot}");
    // A binary trace records no process id: no map without the flag.
    let bare = tree(&[]);
    assert!(!bare.contains("jit_"), "{bare}");
    assert_eq!(bare.matches("    0x").count(), 5, "{bare}");
}

#[test]
fn a_malformed_perf_map_line_is_an_error_naming_the_file_and_line() {
    let (dir, exe) = build("malformed");
    let map = dir.join("jit.map");
    run(&dir, &exe, &[("JIT_PERF_MAP", map.to_str().unwrap())]);
    let mut text = std::fs::read_to_string(&map).unwrap();
    text.push_str("7f00 jit_sub\n");
    std::fs::write(&map, &text).unwrap();
    let err = calltrace(["graph", exe.to_str().unwrap(), "--perf-map"])
        .args([&map])
        .args(["--trace", "trace.txt", "-o", "-"])
        .current_dir(&dir)
        .run()
        .failure();
    let want = format!(
        "{}:3: expected a perf map line `START SIZE NAME`",
        map.display()
    );
    assert!(err.starts_with(&want), "{err}");
    assert!(err.contains("found `7f00 jit_sub`"), "{err}");
}

#[test]
fn output_onto_the_perf_map_is_refused() {
    let (dir, exe) = build("overwrite");
    let map = dir.join("jit.map");
    run(&dir, &exe, &[("JIT_PERF_MAP", map.to_str().unwrap())]);
    let before = std::fs::read(&map).unwrap();
    let err = calltrace(["graph", exe.to_str().unwrap(), "--trace", "trace.txt"])
        .args(["--perf-map", "jit.map", "-o", "jit.map"])
        .current_dir(&dir)
        .run()
        .failure();
    assert!(
        err.contains("--perf-map") && err.contains("jit.map"),
        "{err}"
    );
    assert_eq!(std::fs::read(&map).unwrap(), before);
}

/// `calltrace ARGS` in `dir` under an address-space limit of `bytes`,
/// within two minutes.
fn run_limited(dir: &Path, args: &[&std::ffi::OsStr], bytes: u64) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(super::util::BIN);
    cmd.args(args).current_dir(dir);
    // SAFETY: setrlimit is async-signal-safe and touches no memory of ours.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    output_within(&mut cmd, 120)
}

/// The issue's case: a perf map line naming a function with 128 MiB made
/// `stats` and `graph` abort under a 600 MB address-space limit (the map
/// was read whole, then its name copied). Names are bounded at 1 MiB as
/// in every trace format, and the long line is never held in memory.
#[test]
fn a_128_mib_perf_map_name_is_refused_under_a_600_mb_limit_not_aborted() {
    use std::io::Write;
    let (dir, exe) = build("huge-name");
    let map = dir.join("jit.map");
    run(&dir, &exe, &[("JIT_PERF_MAP", map.to_str().unwrap())]);
    // jit_add's range again, named anew (the later line wins).
    let text = std::fs::read_to_string(&map).unwrap();
    let range = text.lines().next().and_then(|l| l.strip_suffix(" jit_add"));
    let range = range.expect("jit_add's line first").to_string();
    let mut file = std::fs::OpenOptions::new().append(true).open(&map).unwrap();
    let piece = vec![b'j'; 1 << 20];
    write!(file, "{range} ").unwrap();
    for _ in 0..128 {
        file.write_all(&piece).unwrap();
    }
    file.write_all(b"\n").unwrap();
    drop(file);
    let want = format!(
        "{}:3: expected a function name of at most 1 MiB, not one of {} bytes",
        map.display(),
        128 << 20
    );
    for cmd in ["stats", "graph"] {
        let args = [
            cmd,
            exe.to_str().unwrap(),
            "--trace",
            "trace.txt",
            "-o",
            "out",
        ];
        let mut args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        args.extend(["--perf-map".as_ref(), map.as_os_str()]);
        let out = run_limited(&dir, &args, 600 << 20);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{cmd}: {:?}: {stderr}",
            out.status
        );
        assert!(stderr.contains(&want), "{cmd}: {stderr}");
        assert!(stderr.len() < 500, "{cmd}: the message is short: {stderr}");
    }
    // Without that line, the same limit reads the map and names the JIT.
    let text = std::fs::read(&map).unwrap();
    let mut newlines = text.iter().enumerate().filter(|(_, b)| **b == b'\n');
    let end = newlines.nth(1).expect("two lines before the long one").0;
    std::fs::write(&map, &text[..=end]).unwrap();
    let args = [
        "stats",
        exe.to_str().unwrap(),
        "--trace",
        "trace.txt",
        "--perf-map",
    ];
    let mut args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    args.push(map.as_os_str());
    let out = run_limited(&dir, &args, 600 << 20);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{:?}", out);
    assert!(stdout.contains("jit_add"), "{stdout}");
}
