//! Traced programs whose threads end inside instrumented code: cancelled
//! (deferred, at `pause()`, `write()` or `usleep()`; asynchronous, anywhere
//! in a busy loop of calls) or by `pthread_exit()` from deep recursion.
//! Each program of `testdata/cancel/` runs several times in a row in both
//! formats, with busy loops on the CPUs (the runtime once kept its lock
//! when a thread was cancelled inside it, and the hang showed only under
//! load: 29 runs of 30), each run under a watchdog, and its trace must read
//! back with every call counted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::util::{build_traced, calltrace, fresh_dir, output_within, root};

/// Runs of each program in each format, shared by its settings.
const RUNS: usize = 10;

/// Seconds a run may take before the watchdog kills it and fails the test
/// (a run takes well under a second, under load too).
const WATCHDOG_SECS: u64 = 20;

/// Busy threads, one per CPU (two at least), shared by the tests of this
/// module while any of them runs.
struct Load {
    stop: Arc<AtomicBool>,
    spinners: Vec<JoinHandle<()>>,
}

static LOAD: Mutex<(usize, Option<Load>)> = Mutex::new((0, None));

/// Keeps the CPUs busy until dropped (by the last of the tests holding one).
struct LoadGuard;

fn load() -> LoadGuard {
    let mut held = LOAD.lock().unwrap_or_else(|e| e.into_inner());
    if held.0 == 0 {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get().max(2));
        let stop = Arc::new(AtomicBool::new(false));
        let spinners = (0..cpus)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005) + 1);
                    }
                })
            })
            .collect();
        held.1 = Some(Load { stop, spinners });
    }
    held.0 += 1;
    LoadGuard
}

impl Drop for LoadGuard {
    fn drop(&mut self) {
        let mut held = LOAD.lock().unwrap_or_else(|e| e.into_inner());
        held.0 -= 1;
        if held.0 == 0
            && let Some(load) = held.1.take()
        {
            load.stop.store(true, Ordering::Relaxed);
            for s in load.spinners {
                let _ = s.join();
            }
        }
    }
}

/// Builds `testdata/cancel/NAME.c` with the runtime (`-O0`, as in the report).
fn build(name: &str) -> (PathBuf, PathBuf) {
    let dir = fresh_dir("cancel", name);
    let source = std::fs::read_to_string(root().join(format!("testdata/cancel/{name}.c")))
        .expect("read the test program");
    let exe = build_traced(&dir, name, &source, "-O0", &["-lpthread"]);
    (dir, exe)
}

/// What one traced run left: its trace's call counts and repairs.
pub(super) struct Run {
    /// Calls per function.
    pub(super) calls: BTreeMap<String, u64>,
    /// Frames the reader closed.
    pub(super) repaired: u64,
}

/// Runs `exe` once, traced in `format` with `env`, under the watchdog;
/// checks its exit, its output and that the runtime said nothing; reads
/// the trace back with `calltrace stats`.
fn run_once(dir: &Path, exe: &Path, format: &str, env: &[(&str, &str)], stdout: &str) -> Run {
    let trace = dir.join(format!("run.{format}"));
    let _ = std::fs::remove_file(&trace);
    let mut cmd = Command::new(exe);
    cmd.current_dir(dir)
        .env("CALLTRACE_OUT", &trace)
        .env("CALLTRACE_FORMAT", format)
        .envs(env.iter().copied());
    let out = output_within(&mut cmd, WATCHDOG_SECS);
    let what = format!("{} ({format} {env:?})", exe.display());
    assert!(out.status.success(), "{what}: {out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), stdout, "{what}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "{what}: the runtime complained"
    );
    read_back(exe, &trace)
}

/// `calltrace stats --csv` of a trace: calls per function, and the frames
/// the reader closed (exits the program never made).
pub(super) fn read_back(exe: &Path, trace: &Path) -> Run {
    let csv = trace.with_extension("csv");
    let out = calltrace(["stats".as_ref(), exe.as_os_str()])
        .args([
            "--trace".as_ref(),
            trace.as_os_str(),
            "--csv".as_ref(),
            csv.as_os_str(),
        ])
        .run()
        .success();
    let text = std::fs::read_to_string(&csv).expect("read the stats CSV");
    let calls = text
        .lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split(',');
            let name = f.next().expect("a function").to_string();
            let n = f.next().and_then(|n| n.parse().ok()).expect("a call count");
            (name, n)
        })
        .collect();
    let repaired = out
        .stderr
        .split_once("repaired unbalanced trace: ")
        .map_or(0, |(_, rest)| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().expect("a number of frames")
        });
    Run { calls, repaired }
}

/// Runs `exe` RUNS times in each format, the runs shared out among
/// `settings`, under load, and checks each run with `check`.
fn under_load(name: &str, settings: &[&[(&str, &str)]], stdout: &str, check: impl Fn(&Run, &str)) {
    let (dir, exe) = build(name);
    let _load = load();
    for format in ["text", "binary"] {
        for k in 0..RUNS {
            let env = settings[k % settings.len()];
            let run = run_once(&dir, &exe, format, env, stdout);
            check(&run, &format!("{name} {format} {env:?}, run {}", k + 1));
        }
    }
}

fn calls(run: &Run, name: &str) -> u64 {
    run.calls.get(name).copied().unwrap_or(0)
}

#[test]
fn threads_ended_by_pthread_exit_or_cancelled_in_pause_never_hang_the_program() {
    under_load("exit_cancel", &[&[]], "", |run, what| {
        let counts: Vec<(&str, u64)> = ["a", "inner", "b", "blocked", "main", "after"]
            .iter()
            .map(|f| (*f, calls(run, f)))
            .collect();
        assert_eq!(
            counts,
            [
                ("a", 50),
                ("inner", 50 * 21),
                ("b", 50),
                ("blocked", 50),
                ("main", 1),
                ("after", 1)
            ],
            "{what}"
        );
        // Neither pthread_exit() nor cancellation calls the exits of the
        // frames they unwind: 22 per `a` thread, 2 per `b` thread.
        assert_eq!(run.repaired, 50 * 22 + 50 * 2, "{what}");
    });
}

#[test]
fn threads_cancelled_asynchronously_in_a_loop_of_calls_never_hang_the_program() {
    // Without the writer thread each thread writes its own ring, holding
    // the runtime's lock for a while: the cancellation often lands there.
    let settings: &[&[(&str, &str)]] = &[&[], &[("CALLTRACE_WRITER", "0")]];
    under_load("async_cancel", settings, "cancelled 24\n", |run, what| {
        assert_eq!(calls(run, "spin"), 24, "{what}");
        // The cleanup handlers run while the cancellation unwinds, inside
        // the runtime too: their calls are recorded, each once.
        assert_eq!(calls(run, "cleanup"), 24, "{what}");
        assert_eq!(calls(run, "after"), 1, "{what}");
        // Each mid calls leaf twice; a thread cancelled inside a mid has
        // made fewer (under load a thread may be cancelled before any).
        let (mid, leaf) = (calls(run, "mid"), calls(run, "leaf"));
        assert!(
            leaf <= 2 * mid && 2 * mid <= leaf + 2 * 24,
            "{what}: mid {mid}, leaf {leaf}"
        );
        assert!(run.repaired >= 24, "{what}: {} frames closed", run.repaired);
    });
}

#[test]
fn threads_cancelled_inside_functions_that_write_never_hang_the_program() {
    under_load("write_cancel", &[&[]], "cancelled 40\n", |run, what| {
        assert_eq!(calls(run, "chatty"), 40, "{what}");
        assert_eq!(calls(run, "cleanup"), 40, "{what}");
        assert_eq!(calls(run, "after"), 1, "{what}");
        // Cancelled in write() or usleep(): inside chatty and say or nap.
        assert_eq!(run.repaired, 40 * 2, "{what}");
    });
}
