//! The tracing runtime makes progress and records only the program, once:
//! a thread that exits under a fast signal timer finishes, a program that
//! defines its own `malloc`/`free` does not see the runtime's calls of them,
//! programs spawned with an environment of their own keep each other's
//! traces, and a runtime linked into a library as well as the executable
//! writes one trace. Every traced run here is bounded in time (a watchdog)
//! and in output (`ulimit -f`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::{build_traced, compile, fresh_dir, output_within, root, tree};

/// How long a traced run may take before the watchdog kills it: far more
/// than any of them needs, even with both cores busy.
const WATCHDOG_SECS: u64 = 120;

/// The most a traced run may write: `ulimit -f` in 512-byte blocks (dash;
/// bash counts 1024), so 32 or 64 MiB.
const FSIZE_BLOCKS: u64 = 65536;

/// A fresh directory for one test's programs and traces.
fn work(name: &str) -> PathBuf {
    fresh_dir("runtime_progress", name)
}

/// Compiles `source` (C) with the runtime into `dir/name`, plus `extra` gcc
/// arguments (after the sources, so libraries can follow).
fn build(dir: &Path, name: &str, source: &str, extra: &[&str]) -> PathBuf {
    build_traced(dir, name, source, "-O1", extra)
}

/// Runs `exe` in `dir`, bounded, with the default trace name (no
/// `CALLTRACE_OUT`); fails the test unless it succeeds.
#[track_caller]
fn run_with_default_name(exe: &Path, dir: &Path) -> std::process::Output {
    let out = output_within(
        bounded(exe, &[])
            .current_dir(dir)
            .env_remove("CALLTRACE_OUT")
            .env_remove("CALLTRACE_OUT_TAKEN"),
        WATCHDOG_SECS,
    );
    assert!(out.status.success(), "{out:?}");
    out
}

/// A command that runs `exe ARGS` with its file size limited (the trace
/// cannot fill the disk); run it with `output_within`.
fn bounded(exe: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -f {FSIZE_BLOCKS} && exec \"$0\" \"$@\""))
        .arg(exe)
        .args(args);
    cmd
}

/// Calls per function over the contexts view of `trace` (the `xN` counts).
fn calls_per_function(exe: &Path, trace: &Path) -> BTreeMap<String, u64> {
    let view = tree(exe.to_str().unwrap(), trace, &["--view", "contexts"]);
    let mut calls = BTreeMap::new();
    for line in view.lines().filter(|l| !l.starts_with('[')) {
        let body = line.trim_start();
        let Some((name, rest)) = body.split_once(" (") else {
            continue;
        };
        let n = match rest.rsplit_once(" x") {
            Some((_, n)) if n.bytes().all(|b| b.is_ascii_digit()) => n.parse::<u64>().unwrap(),
            _ => 1,
        };
        *calls.entry(name.to_string()).or_insert(0) += n;
    }
    calls
}

/// The number printed after `what` on stderr, 0 if absent.
fn number_after(stderr: &str, what: &str) -> u64 {
    stderr.split_once(what).map_or(0, |(_, rest)| {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().unwrap()
    })
}

/// Threads that call `f` in a loop while a 20 us timer of their own runs a
/// signal handler (`on_sig`, calling `h` DEPTH times) on them, until and
/// while they exit; the program counts the handler's runs.
const EXIT_TICKS: &str = r#"
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
static volatile long handled;
static int depth;
__attribute__((noinline)) static void h(void) { __asm__ volatile(""); }
static void on_sig(int s) {
    (void)s;
    for (int i = 0; i < depth; i++) h();
    __atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
}
__attribute__((noinline)) static int f(int x) { __asm__ volatile(""); return x + 1; }
static void *run(void *arg) {
    sigset_t u; sigemptyset(&u); sigaddset(&u, SIGUSR1); pthread_sigmask(SIG_UNBLOCK, &u, 0);
    long n = (long)arg; int s = 0;
    struct sigevent sev = {0};
    timer_t tm;
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGUSR1;
    sev._sigev_un._tid = syscall(SYS_gettid);
    timer_create(CLOCK_MONOTONIC, &sev, &tm);
    struct itimerspec its = {{0, 20000}, {0, 20000}};
    timer_settime(tm, 0, &its, 0);
    for (long i = 0; i < n; i++) s += f(i);
    return (void *)tm;  /* still armed as the thread exits */
}
int main(int argc, char **argv) {
    int waves = atoi(argv[1]), width = atoi(argv[2]); long calls = atol(argv[3]);
    depth = atoi(argv[4]);
    struct sigaction sa = {0};
    sa.sa_handler = on_sig; sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, 0);
    sigset_t set; sigemptyset(&set); sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, 0);  /* main does not take them */
    for (int w = 0; w < waves; w++) {
        pthread_t t[64]; void *tm[64];
        for (int i = 0; i < width; i++) pthread_create(&t[i], 0, (void*(*)(void*))run, (void*)calls);
        for (int i = 0; i < width; i++) { pthread_join(t[i], &tm[i]); timer_delete((timer_t)tm[i]); }
    }
    fprintf(stderr, "handled %ld\n", handled);
    return 0;
}
"#;

/// Issue 28, item 1. Once a thread's exit destructor had run, each event of
/// a signal handler was written through (a lock and six system calls): a
/// handler of 18 events then took longer than the 20 us period of its
/// timer, the thread never finished exiting, and the trace grew by
/// megabytes a second until the disk was full. Now those events cost what
/// any event costs: the run ends, and every run of the handler is in the
/// trace or counted as dropped.
#[test]
fn a_thread_exiting_under_a_fast_signal_timer_finishes_and_keeps_its_handlers_events() {
    let dir = work("exit-ticks");
    let exe = build(&dir, "ticks", EXIT_TICKS, &["-lrt", "-lpthread"]);
    for (format, writer) in [("text", "1"), ("binary", "1"), ("text", "0")] {
        let what = format!("{format}, CALLTRACE_WRITER={writer}");
        let trace = dir.join(format!("ticks.{format}.{writer}"));
        let out = output_within(
            bounded(&exe, &["6", "4", "2000", "8"])
                .env("CALLTRACE_OUT", &trace)
                .env("CALLTRACE_FORMAT", format)
                .env("CALLTRACE_WRITER", writer),
            WATCHDOG_SECS,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{what}: {out:?}");
        let handled = number_after(&stderr, "handled ");
        let dropped = number_after(&stderr, "interrupted the tracer): ");
        let calls = calls_per_function(&exe, &trace);
        let (on_sig, h) = (calls["on_sig"], calls["h"]);
        assert!(handled > 0, "{what}: {stderr}");
        assert_eq!(calls["f"], 6 * 4 * 2000, "{what}: {calls:?}");
        // A run of the handler is 18 events: on_sig and 8 calls of h, in and out.
        assert_eq!(
            18 * handled,
            2 * (on_sig + h) + dropped,
            "{what}: handled {handled}, traced on_sig {on_sig} and h {h}, dropped {dropped} events"
        );
    }
}

/// A program that defines `malloc`, `realloc` and `free` (forwarding to
/// libc's, found with `dlsym` from a `.preinit_array` function), forks, and
/// then makes one call of each of `malloc` and `free` in both processes.
const OWN_MALLOC_FORK: &str = r#"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <sys/wait.h>
#include <unistd.h>
static void *(*next_malloc)(size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static char arena[1 << 20];
static size_t used;
void *malloc(size_t n) {
    if (next_malloc) return next_malloc(n);
    void *p = arena + used;
    used += (n + 15) & ~(size_t)15;
    return used <= sizeof arena ? p : NULL;
}
void *realloc(void *p, size_t n) {
    if (next_realloc && ((char *)p < arena || (char *)p >= arena + sizeof arena))
        return next_realloc(p, n);
    char *q = malloc(n), *o = p;
    for (size_t i = 0; o && i < n; i++) q[i] = o[i];
    return q;
}
void free(void *p) {
    if ((char *)p >= arena && (char *)p < arena + sizeof arena) return;
    if (next_free) next_free(p);
}
static void find_libc(void) {
    next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
}
__attribute__((section(".preinit_array"), used)) static void (*preinit[])(void) = {find_libc};
int main(void) {
    pid_t child = fork();
    void *volatile p = malloc(1); /* (volatile: gcc drops a malloc-free pair) */
    free(p);
    if (child > 0) waitpid(child, NULL, 0);
    return 0;
}
"#;

/// The traces a run in `dir` wrote: `trace.txt` and `trace.<pid>.txt`.
fn default_traces(dir: &Path) -> Vec<PathBuf> {
    let mut traces: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("trace.") && name.ends_with(".txt")
        })
        .collect();
    traces.sort();
    traces
}

/// Issue 28, item 3 (the shape of uftrace's `s-malloc-fork.c`). libc's
/// `setenv()` and `pthread_create()`, which the runtime calls, call the
/// program's `realloc`/`malloc` and `free`: the forked child's trace showed
/// 16 calls of `free` under `main` that main never made (starting the
/// child's writer thread), and the parent's two `malloc` and a `realloc`
/// before main (exporting `CALLTRACE_OUT_TAKEN`). The calls per function
/// must be what the program made, as `uftrace record` counts them: `main`,
/// `malloc` and `free` twice each (and the `.preinit_array` function once,
/// which runs before uftrace starts recording).
#[test]
fn the_runtimes_own_calls_of_a_malloc_and_free_the_program_defines_are_not_traced() {
    let dir = work("own-malloc-fork");
    let exe = build(&dir, "mallocfork", OWN_MALLOC_FORK, &["-ldl"]);
    run_with_default_name(&exe, &dir);
    let traces = default_traces(&dir);
    assert_eq!(traces.len(), 2, "the parent's and the child's: {traces:?}");
    let mut total = BTreeMap::new();
    for trace in &traces {
        for (name, n) in calls_per_function(&exe, trace) {
            *total.entry(name).or_insert(0) += n;
        }
    }
    let expected: BTreeMap<String, u64> =
        [("find_libc", 1), ("free", 2), ("main", 2), ("malloc", 2)]
            .into_iter()
            .map(|(name, n)| (name.to_string(), n))
            .collect();
    assert_eq!(total, expected, "calls per function in {traces:?}");
}

/// A traced program that starts two traced programs one after the other
/// with `posix_spawn` and an environment of its own (no `CALLTRACE_*`), as
/// uftrace's `s-posix_spawn.c` does; the shapes of its `s-abc.c` and
/// `s-openclose.c`.
const SPAWN: &str = r#"
#include <spawn.h>
#include <sys/wait.h>
int main(void) {
    char *first[] = {"abc", 0}, *second[] = {"openclose", 0};
    char *envp[] = {"PATH=.", "HOME=/nonexistent", 0};
    int pid;
    if (posix_spawn(&pid, "./abc", 0, 0, first, envp) != 0) return 1;
    waitpid(pid, 0, 0);
    if (posix_spawn(&pid, "./openclose", 0, 0, second, envp) != 0) return 1;
    waitpid(pid, 0, 0);
    return 0;
}
"#;
const ABC: &str = r#"
#include <unistd.h>
static int c(void) { return getpid() % 100000; }
static int b(void) { return c() + 1; }
static int a(void) { return b() - 1; }
int main(void) { return a() ? 0 : 1; }
"#;
const OPENCLOSE: &str = r#"
#include <stdio.h>
int main(void) { fclose(fopen("/dev/null", "r")); return 0; }
"#;

/// Issue 28, item 4. A traced program that starts programs with its own
/// `envp` hides `CALLTRACE_OUT_TAKEN` from them: the first wrote
/// `trace.txt`, and the second truncated it. A default-named trace whose
/// writer's parent still runs (and is traced) is now left alone: the second
/// writes `trace.<pid>.txt` and says so. Calls per function over all traces
/// are uftrace's (`main` 3, `a`, `b`, `c` 1 each). Runs one after the other
/// from an untraced process (a shell, this test) still overwrite
/// `trace.txt`.
#[test]
fn a_program_spawned_with_a_scrubbed_environment_keeps_its_siblings_trace() {
    let dir = work("spawn-scrubbed");
    build(&dir, "abc", ABC, &[]);
    build(&dir, "openclose", OPENCLOSE, &[]);
    let spawn = build(&dir, "spawn", SPAWN, &[]);
    let out = output_within(
        bounded(&spawn, &[])
            .current_dir(&dir)
            .env("CALLTRACE_OUT", "spawn.txt")
            .env_remove("CALLTRACE_OUT_TAKEN"),
        WATCHDOG_SECS,
    );
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let traces = default_traces(&dir);
    assert_eq!(traces.len(), 2, "abc's and openclose's: {traces:?}");
    assert!(
        stderr.contains("trace.txt holds the trace of process ")
            && stderr.contains("whose parent still runs; this process writes trace."),
        "{stderr}"
    );
    let mut total = BTreeMap::new();
    for trace in traces.iter().chain([&dir.join("spawn.txt")]) {
        for (name, n) in calls_per_function(Path::new(""), trace) {
            *total.entry(name).or_insert(0) += n;
        }
    }
    let expected: BTreeMap<String, u64> = [("a", 1), ("b", 1), ("c", 1), ("main", 3)]
        .into_iter()
        .map(|(name, n)| (name.to_string(), n))
        .collect();
    assert_eq!(total, expected, "calls per function in {traces:?}");

    // Two runs from this (untraced) process: the second overwrites.
    for trace in traces {
        std::fs::remove_file(trace).unwrap();
    }
    for _ in 0..2 {
        let run = output_within(
            bounded(&dir.join("abc"), &[])
                .current_dir(&dir)
                .env_remove("CALLTRACE_OUT")
                .env_remove("CALLTRACE_OUT_TAKEN"),
            WATCHDOG_SECS,
        );
        assert!(run.status.success(), "{run:?}");
        assert_eq!(String::from_utf8_lossy(&run.stderr), "");
    }
    assert_eq!(default_traces(&dir), [dir.join("trace.txt")]);
}

/// Runs gcc with `args` in `dir`; fails the test with gcc's messages.
fn gcc(dir: &Path, args: &[&str]) {
    compile(Command::new("gcc").current_dir(dir).args(args));
}

/// Issue 28, item 5. With the runtime linked into a shared library as well
/// as the executable, the library's copy started first (its constructors run
/// first) and took `trace.txt`, where it wrote only headers, while every
/// event went to the executable's copy, in `trace.<pid>.txt`; `calltrace`
/// then called `trace.txt` empty. The two copies now behave as one: one
/// trace, every call in it.
#[test]
fn a_runtime_linked_into_a_library_and_the_executable_writes_one_trace() {
    let dir = work("linked-twice");
    let runtime = root().join("runtime/calltrace.c");
    let runtime = runtime.to_str().unwrap();
    std::fs::write(
        dir.join("lib.c"),
        "int lib_add(int a, int b) { return a + b; }\n\
         int lib_twice(int a) { return lib_add(a, a); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("app.c"),
        "#include <stdio.h>\nint lib_twice(int a);\n\
         static int work(int x) { return lib_twice(x) + 1; }\n\
         int main(void) { int s = 0; for (int i = 0; i < 3; i++) s += work(i);\n\
         printf(\"%d\\n\", s); return 0; }\n",
    )
    .unwrap();
    let flags = ["-g", "-O1", "-finstrument-functions"];
    let mut lib = flags.to_vec();
    lib.extend(["-fPIC", "-shared", "lib.c", runtime, "-o", "libtwice.so"]);
    gcc(&dir, &lib);
    let mut app = flags.to_vec();
    app.extend([
        "app.c",
        runtime,
        "-L.",
        "-ltwice",
        "-Wl,-rpath,$ORIGIN",
        "-o",
        "app",
    ]);
    gcc(&dir, &app);
    let exe = dir.join("app");
    let out = run_with_default_name(&exe, &dir);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "9\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let traces = default_traces(&dir);
    assert_eq!(traces, [dir.join("trace.txt")], "one trace");
    let calls = calls_per_function(&exe, &traces[0]);
    let expected: BTreeMap<String, u64> =
        [("lib_add", 3), ("lib_twice", 3), ("main", 1), ("work", 3)]
            .into_iter()
            .map(|(name, n)| (name.to_string(), n))
            .collect();
    assert_eq!(calls, expected);
}
