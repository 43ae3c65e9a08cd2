//! `calltrace live` on a real traced program: a C program that spins in one
//! hot function for a few seconds writes its trace into a FIFO; `live` runs
//! in a detached tmux session, and the screen (capture-pane) must show the
//! hot function at the top while the program still runs; `q` (send-keys)
//! quits. Skipped with a note when tmux or gcc is missing, unless
//! CALLTRACE_REQUIRE_TOOLS=1.

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use super::util::*;

const PROGRAM: &str = r#"
#include <time.h>
__attribute__((no_instrument_function)) static double now(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9;
}
volatile unsigned long sink;
__attribute__((noinline)) void hot_spin(void) { for (int i = 0; i < 2000; i++) sink += i * i; }
__attribute__((noinline)) void cold_step(void) { sink++; }
__attribute__((noinline)) void run_for(double secs) {
    double end = now() + secs;
    while (now() < end) { for (int k = 0; k < 20; k++) hot_spin(); cold_step(); }
}
int main(void) { run_for(5.0); return 0; }
"#;

/// A private tmux server, killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "live"]).stdout)
            .into_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// Kills the traced program if the test ends early.
struct Program(Child);

impl Drop for Program {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn build(dir: &Path) {
    let runtime = calltrace(["runtime"]).run().success().stdout;
    std::fs::write(dir.join("calltrace.c"), runtime).unwrap();
    std::fs::write(dir.join("app.c"), PROGRAM).unwrap();
    let status = Command::new("gcc")
        .args([
            "-g",
            "-O0",
            "-finstrument-functions",
            "app.c",
            "calltrace.c",
            "-o",
            "app",
        ])
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "gcc failed");
    let status = Command::new("mkfifo")
        .arg("trace.fifo")
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo failed");
}

/// The first function of the "last interval" table, if the screen shows one.
fn top_of_last_interval(screen: &str) -> Option<String> {
    let mut lines = screen
        .lines()
        .skip_while(|l| !l.contains("Top by self time, last interval"));
    lines.next()?;
    let row = lines.next()?;
    let left = row.split('│').nth(1)?;
    // `75.0%   1.50 ms  name`: the name comes last.
    left.split_whitespace().last().map(str::to_string)
}

#[test]
fn live_shows_the_hot_function_of_a_running_program() {
    shows_the_hot_function("text");
}

/// The same view from a binary trace (`live` refused them before).
#[test]
fn live_shows_the_hot_function_of_a_running_program_traced_in_binary() {
    shows_the_hot_function("binary");
}

fn shows_the_hot_function(format: &str) {
    if tool("tmux").is_none() || tool("gcc").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    build(d);
    let tmux = Tmux {
        socket: format!("calltrace-live-test-{format}-{}", std::process::id()),
    };
    let live = format!("{BIN} live ./app --trace trace.fifo");
    let dir_arg = d.to_str().unwrap();
    let out = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "live",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        dir_arg,
        &live,
    ]);
    assert!(
        out.status.success(),
        "tmux: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut app = Program(
        Command::new("./app")
            .current_dir(d)
            .env("CALLTRACE_OUT", "trace.fifo")
            .env("CALLTRACE_FORMAT", format)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_millis(3500);
    let mut screen = tmux.screen();
    while top_of_last_interval(&screen).as_deref() != Some("hot_spin") && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(200));
        screen = tmux.screen();
    }
    assert!(
        app.0.try_wait().unwrap().is_none(),
        "the program still runs"
    );
    assert_eq!(
        top_of_last_interval(&screen).as_deref(),
        Some("hot_spin"),
        "{screen}"
    );
    assert!(screen.contains("dropped: 0"), "{screen}");
    assert!(
        screen.contains("run_for > hot_spin") || screen.contains("main > run_for"),
        "{screen}"
    );
    let rate: f64 = screen
        .split("events/s: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|r| r.parse().ok())
        .expect("an events/s figure");
    assert!(rate > 0.0, "{screen}");
    tmux.cmd(&["send-keys", "-t", "live", "q"]);
    let deadline = Instant::now() + Duration::from_secs(3);
    while tmux.cmd(&["has-session", "-t", "live"]).status.success() {
        assert!(
            Instant::now() < deadline,
            "q did not quit:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The program's own stderr is the test's: once live has quit, the
    // runtime says tracing stopped and the program goes on.
    let _ = app.0.kill();
    let mut said = String::new();
    let mut err = app.0.stderr.take().expect("piped stderr");
    std::io::Read::read_to_string(&mut err, &mut said).unwrap();
    assert!(
        said.is_empty() || said.contains("the trace's reader has gone"),
        "{said}"
    );
}

#[test]
fn live_refuses_to_draw_into_a_file() {
    let msg = calltrace(["live", "--trace", "whatever.txt"])
        .run()
        .failure();
    assert!(msg.contains("not a terminal"), "{msg}");
}

/// Runs `calltrace live ARGS` on a terminal (`script`) in `dir`, bounded
/// in time (a `live` that did not stop would draw until it is quit): its
/// exit code and what it printed. None without `script`.
fn live_on_a_terminal(dir: &Path, args: &str) -> Option<(Option<i32>, String)> {
    let script = tool("script")?;
    let cmd = format!("timeout 20 {} live {args}", env!("CARGO_BIN_EXE_calltrace"));
    let out = Command::new(&script)
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run script");
    Some((
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

/// On a terminal, a BINARY that is not there stops `live` at once with
/// the file named, as it stops the other commands.
#[test]
fn live_names_a_binary_that_is_not_there() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.txt"), "E main 1\nX main 2\n").unwrap();
    let Some((code, shown)) = live_on_a_terminal(dir.path(), "./nosuch --trace t.txt") else {
        return;
    };
    assert_eq!(code, Some(2), "{shown}");
    assert!(
        shown.contains("./nosuch: No such file or directory"),
        "{shown}"
    );
}

/// A trace live cannot follow (the program itself) stops it before the
/// screen is drawn, with the file named.
#[test]
fn live_names_a_trace_it_cannot_follow() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app"), b"\x7fELF\x02\x01\x01\0rest").unwrap();
    let Some((code, shown)) = live_on_a_terminal(dir.path(), "--trace app") else {
        return;
    };
    assert_eq!(code, Some(2), "{shown}");
    let want = "app: this is a program or library (ELF), not a trace";
    assert!(shown.contains(want), "{shown}");
}
