//! Nothing lost, no crash, no surprise: outputs never overwrite inputs or
//! each other, are written atomically (permissions kept, no temporary file
//! left behind, even when the run is killed), inputs that are not plain
//! files (pipes, directories, devices, BOM and UTF-16 text) get a clear
//! answer, and no option makes the binary panic or abort.

use std::fs::Permissions;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::util::*;

const TRACE: &str = "E main\nE f\nX f\nE g\nX g\nX main\n";

#[test]
fn an_output_that_is_the_trace_is_refused_before_anything_is_read() {
    let (dir, trace) = temp_file("t.txt", TRACE);
    std::os::unix::fs::symlink(&trace, dir.path().join("link.txt")).unwrap();
    std::fs::write(dir.path().join("m.csv"), "main,app\n").unwrap();
    let cases: &[&[&str]] = &[
        &["graph", "--trace", "t.txt", "-o", "t.txt"],
        &["graph", "--trace", "t.txt", "-o", "link.txt"],
        &["graph", "--trace", "t.txt", "--csv", "./t.txt"],
        &["tree", "--trace", "t.txt", "-o", "t.txt"],
        &["abstract", "--trace", "t.txt", "--tree-out", "t.txt"],
        &[
            "abstract",
            "--trace",
            "t.txt",
            "--modules",
            "m.csv",
            "-o",
            "m.csv",
        ],
    ];
    for args in cases {
        let msg = calltrace(*args).current_dir(dir.path()).run().failure();
        assert!(
            msg.contains("is the same file as the input"),
            "{args:?}: {msg}"
        );
        assert_eq!(std::fs::read_to_string(&trace).unwrap(), TRACE, "{args:?}");
    }
    assert_eq!(listing(dir.path()), ["link.txt", "m.csv", "t.txt"]);
}

#[test]
fn two_outputs_to_one_file_are_refused() {
    let (dir, _trace) = temp_file("t.txt", TRACE);
    let msg = calltrace(["graph", "--trace", "t.txt", "-o", "g.dot", "--csv", "g.dot"])
        .current_dir(dir.path())
        .run()
        .failure();
    assert!(
        msg.starts_with("--csv: g.dot is the same file as the output --output"),
        "{msg}"
    );
    assert_eq!(listing(dir.path()), ["t.txt"]);
}

#[test]
fn compare_refuses_an_out_dir_that_holds_a_trace_it_would_overwrite() {
    let (dir, _trace) = temp_file("rates.csv", TRACE);
    let msg = calltrace(["compare", "--out-dir", ".", "rates.csv"])
        .current_dir(dir.path())
        .run()
        .failure();
    assert!(
        msg.starts_with("--out-dir: ") && msg.contains("input TRACE"),
        "{msg}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("rates.csv")).unwrap(),
        TRACE
    );
}

#[test]
fn an_overwritten_output_keeps_its_permissions() {
    let (dir, _trace) = temp_file("t.txt", TRACE);
    let out = dir.path().join("graph.dot");
    std::fs::write(&out, "old").unwrap();
    std::fs::set_permissions(&out, Permissions::from_mode(0o604)).unwrap();
    calltrace(["graph", "--trace", "t.txt"])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(std::fs::read_to_string(&out).unwrap().contains("digraph"));
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o604);
    assert_eq!(listing(dir.path()), ["graph.dot", "t.txt"]);
}

/// A chain of `depth` nested calls, `times` times: small to read, big to
/// print (indentation grows with the square of the depth).
fn deep_trace(depth: usize, times: usize) -> String {
    let one = "E f\n".repeat(depth) + &"X f\n".repeat(depth);
    format!("E main\n{}X main\n", one.repeat(times))
}

#[test]
fn a_killed_run_leaves_no_temporary_file() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        killed_run_leaves_no_temporary(signal);
    }
}

fn killed_run_leaves_no_temporary(signal: i32) {
    let (dir, _trace) = temp_file("t.txt", deep_trace(6000, 3));
    let mut child = Command::new(BIN)
        .args(["tree", "--trace", "t.txt", "-o", "out.txt"])
        .current_dir(dir.path())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut seen = false;
    while start.elapsed() < Duration::from_secs(20) && child.try_wait().unwrap().is_none() {
        if listing(dir.path()).iter().any(|n| n.ends_with(".tmp")) {
            seen = true;
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    assert!(
        seen,
        "the run ended ({status}) before its temporary file was seen"
    );
    assert_eq!(
        listing(dir.path()),
        ["t.txt"],
        "killed by SIGTERM: {status}"
    );
}

#[test]
fn a_pipe_trace_is_streamed_not_empty() {
    let script = format!(
        "exec '{BIN}' tree --trace <(printf '{}')",
        TRACE.replace('\n', "\\n")
    );
    let out = Command::new("bash").args(["-c", &script]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout,
        "main (1 call / 3 calls)\n  f (1 call / 1 call)\n  g (1 call / 1 call)\n"
    );
}

#[test]
fn a_directory_trace_is_named_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let msg = calltrace(["graph", "--trace", ".", "-o", "-"])
        .current_dir(dir.path())
        .run()
        .failure();
    assert_eq!(msg, ".: is a directory; expected a trace file");
}

#[test]
fn dev_zero_read_as_binary_ends_quickly_with_an_error() {
    let start = Instant::now();
    let msg = calltrace([
        "graph",
        "--trace",
        "/dev/zero",
        "--format",
        "binary",
        "-o",
        "-",
    ])
    .run()
    .failure();
    assert!(msg.starts_with("/dev/zero: "), "{msg}");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn an_endless_pipe_forced_as_binary_ends_quickly_with_an_error() {
    let script = format!("exec '{BIN}' graph --format binary -o - --trace <(cat /dev/zero)");
    let start = Instant::now();
    let out = Command::new("timeout")
        .args(["20", "bash", "-c", &script])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("byte 0: expected the magic"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn byte_order_marks_and_utf16_get_a_clear_message() {
    let utf16: Vec<u8> = TRACE.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let bom = [&b"\xEF\xBB\xBF"[..], TRACE.as_bytes()].concat();
    for (bytes, want) in [(utf16, "is UTF-16 text"), (bom, "UTF-8 byte-order mark")] {
        let (dir, _t) = temp_file("t.txt", &bytes);
        let msg = calltrace(["tree", "--trace", "t.txt"])
            .current_dir(dir.path())
            .run()
            .failure();
        assert!(msg.starts_with("t.txt: ") && msg.contains(want), "{msg}");
    }
}

#[test]
fn huge_thread_counts_are_refused_naming_the_flag() {
    let out = calltrace(["graph", "--threads", "4000000000"]).run();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("--threads") && out.stderr.contains("1024"),
        "{}",
        out.stderr
    );
}

#[test]
fn abstract_with_a_full_or_closed_stdout_does_not_panic() {
    let (dir, _t) = temp_file("t.txt", TRACE);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(BIN)
        .args(["abstract", "--trace", "t.txt"])
        .current_dir(dir.path())
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("<stdout>: No space left on device"),
        "{stderr}"
    );
    let mut child = Command::new(BIN)
        .args(["abstract", "--trace", "t.txt"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a closed pipe is not an error: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn compare_takes_a_pattern_name_longer_than_65535_bytes() {
    let (dir, _t) = temp_file("t.txt", TRACE);
    let arg = format!("{}=t.txt", "p".repeat(70_000));
    let out = calltrace(["compare", "--out-dir", "out", &arg])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(out.text().contains(&"p".repeat(70_000)));
    assert_eq!(
        listing(&dir.path().join("out")).len(),
        8,
        "CSVs (coverage.csv too), SVGs and report.html"
    );
}

#[test]
fn the_indented_format_round_trips_awkward_names() {
    // Written escaped, as `calltrace tree` prints them: `#hash` (a comment
    // if unescaped), a trailing ` x3`, `(a / b)`, NBSP, a newline, a tab.
    let text = "main (1 / 9)\n  \\#hash (1 / 1)\n  f x3 (1 / 1)\n  g (a / b) (1 / 1)\n  \
                nbsp\\u{a0} (1 / 1) x2\n  new\\x0aline (1 / 1)\n  tab\\x09 (2 / 3)\n    \\\\ (1 / 1)\n";
    let (dir, _t) = temp_file("t.txt", text);
    let once = calltrace(["tree", "--trace", "t.txt"])
        .current_dir(dir.path())
        .run()
        .success()
        .text();
    assert_eq!(once, text);
    let out = calltrace(["graph", "--trace", "t.txt", "--csv", "-", "-o", "/dev/null"])
        .current_dir(dir.path())
        .run()
        .success();
    let callees: Vec<String> = csv_rows(&out.stdout)
        .into_iter()
        .map(|r| r[1].clone())
        .collect();
    for name in [
        "#hash",
        "f x3",
        "g (a / b)",
        "nbsp\u{a0}",
        "new\nline",
        "tab\t",
        "\\",
    ] {
        assert!(callees.iter().any(|c| c == name), "{name:?} in {callees:?}");
    }
}

/// Peak resident memory (KiB) and exit code of `calltrace ARGS` in `dir`.
#[allow(clippy::zombie_processes)] // reaped by wait4, which also gives its rusage
fn peak_rss(dir: &Path, args: &[&str]) -> (i64, i32) {
    // A child spawned from this (large, multi-threaded) test process
    // inherits its peak RSS up to the exec; /usr/bin/time forks the run
    // from a small process, so its figure is the run's own.
    let time = Path::new("/usr/bin/time");
    if time.exists() {
        let status = Command::new(time)
            .args(["-f", "%M", "-o", "peak-rss.txt", BIN])
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        let text = std::fs::read_to_string(dir.join("peak-rss.txt")).unwrap();
        let kib = text.lines().last().and_then(|l| l.trim().parse().ok());
        return (kib.expect("a peak RSS in KiB"), status.code().unwrap_or(-1));
    }
    let child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; we wait for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    (usage.ru_maxrss, libc::WEXITSTATUS(status))
}

#[test]
fn deep_indented_output_is_streamed_and_warned_about() {
    // 33,000 levels: 264 KB of trace, 1 GiB of indentation.
    let (dir, _t) = temp_file("t.txt", deep_trace(33_000, 1));
    let args = ["abstract", "--trace", "t.txt", "--tree-out", "/dev/null"];
    let (rss, code) = peak_rss(dir.path(), &args);
    assert_eq!(code, 0);
    // It used to be built in memory: 1 GB resident for this input.
    assert!(rss < 200 * 1024, "peak RSS {rss} KiB");
    let out = calltrace(["tree", "--trace", "t.txt", "-o", "/dev/null"])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(out.stderr.contains("--max-depth"), "{}", out.stderr);
    // The depth it suggests is the deepest cut that stays under 1 GiB.
    let fits: u32 = out
        .stderr
        .split("--max-depth ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no depth suggested: {}", out.stderr));
    for (depth, warned) in [(fits, false), (fits + 1, true)] {
        let out = calltrace(["tree", "--trace", "t.txt", "-o", "/dev/null"])
            .args(["--max-depth", &depth.to_string()])
            .current_dir(dir.path())
            .run()
            .success();
        assert_eq!(
            out.stderr.contains("warning"),
            warned,
            "--max-depth {depth}: {}",
            out.stderr
        );
    }
    let out = calltrace(["tree", "--trace", "t.txt", "--max-depth", "3"])
        .current_dir(dir.path())
        .run()
        .success();
    assert_eq!(out.text().lines().count(), 3);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

#[test]
fn orphan_exits_against_a_deep_stack_stay_linear() {
    let d = 100_000;
    let text = "E f\n".repeat(d) + &"X g\n".repeat(d) + &"X f\n".repeat(d);
    let (dir, _t) = temp_file("t.txt", text);
    let start = Instant::now();
    for view in ["calls", "contexts"] {
        let out = calltrace([
            "tree",
            "--trace",
            "t.txt",
            "--max-depth",
            "1",
            "--view",
            view,
        ])
        .current_dir(dir.path())
        .run()
        .success();
        assert!(
            out.stderr
                .contains("100000 exit(s) without a matching entry"),
            "{}",
            out.stderr
        );
    }
    // Minutes with a stack search per orphan exit.
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn backwards_timestamps_are_counted_and_totals_never_wrap() {
    // f exits before it entered; main's two calls last 2^64 - 1 ns each,
    // which a 64-bit sum cannot hold.
    let text = "E main 0 1\nE f 200 1\nX f 150 1\nX main 18446744073709551615 1\n\
                E main 0 1\nX main 18446744073709551615 1\n";
    let (dir, _t) = temp_file("t.txt", text);
    let out = calltrace(["tree", "--trace", "t.txt", "--view", "contexts"])
        .args(["--time-unit", "ns"])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(
        out.stderr.contains("1 exit(s) timed before their entry"),
        "{}",
        out.stderr
    );
    let max = u64::MAX;
    assert_eq!(
        out.text(),
        format!("main ({max} ns / {max} ns) x2\n  f (0 ns / 0 ns)\n")
    );
}

/// No byte of `bytes` is a control character other than newline (and tab).
fn no_raw_controls(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .all(|&b| b == b'\n' || b == b'\t' || !(b < 0x20 || b == 0x7f))
}

#[test]
fn names_with_nul_controls_and_quotes_stay_well_formed_everywhere() {
    // Indented input can carry any name; these become functions everywhere.
    let text = "main (1 / 5)\n  a\\x00b (1 / 1)\n  esc\\x1b[31m (1 / 1)\n  \"q\",<&> (1 / 1)\n  =SUM(A1) (1 / 1)\n";
    let (dir, _t) = temp_file("t.txt", text);
    let out = calltrace(["graph", "--trace", "t.txt", "-o", "-", "--csv", "e.csv"])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(no_raw_controls(&out.stdout), "{}", out.text());
    let dot = out.text();
    assert!(
        dot.contains(r#"label="a\\x00b\ntotal "#) && dot.contains(r#"label="\"q\",<&>\ntotal "#),
        "{dot}"
    );
    let csv = std::fs::read(dir.path().join("e.csv")).unwrap();
    let callees: Vec<String> = csv_rows(&csv).into_iter().map(|r| r[1].clone()).collect();
    // CSV keeps names exactly (RFC 4180 quoting), formula-like cells included.
    assert_eq!(callees, ["a\0b", "esc\x1b[31m", "\"q\",<&>", "=SUM(A1)"]);
    // The pattern name goes into the SVGs, the stdout table and the CSVs.
    let arg = "p<&\"\x01\x1b[31m=t.txt";
    let out = calltrace(["compare", "--out-dir", "out", arg])
        .current_dir(dir.path())
        .run()
        .success();
    assert!(no_raw_controls(&out.stdout) && no_raw_controls(out.stderr.as_bytes()));
    assert!(out.text().contains(r#"p<&"\x01\x1b[31m"#), "{}", out.text());
    for svg in ["sweep.svg", "rates.svg"] {
        let text = std::fs::read_to_string(dir.path().join("out").join(svg)).unwrap();
        roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{svg}: {e}"));
    }
}

#[test]
fn error_messages_never_echo_raw_control_bytes() {
    let (dir, _t) = temp_file("t.txt", "E0x10\nE\x1b[2J\x07\nX0x10\n");
    let out = calltrace(["graph", "--trace", "t.txt", "-o", "-"])
        .current_dir(dir.path())
        .run();
    assert!(no_raw_controls(out.stderr.as_bytes()), "{:?}", out.stderr);
    let msg = out.failure();
    assert!(msg.contains(r"E\x1b[2J\x07"), "{msg}");
}

#[test]
fn compare_writes_its_files_all_or_nothing() {
    let (dir, _t) = temp_file("t.txt", TRACE);
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("sweep.svg")).unwrap();
    std::fs::write(out.join("rates.csv"), "old").unwrap();
    let msg = calltrace(["compare", "--out-dir", "out", "t.txt"])
        .current_dir(dir.path())
        .run()
        .failure();
    assert!(
        msg.contains("sweep.svg") && msg.contains("directory"),
        "{msg}"
    );
    assert_eq!(listing(&out), ["rates.csv", "sweep.svg"]);
    assert_eq!(
        std::fs::read_to_string(out.join("rates.csv")).unwrap(),
        "old"
    );
}

#[test]
fn an_output_that_is_the_rules_file_is_refused() {
    let (dir, _t) = temp_file("t.txt", TRACE);
    std::fs::write(dir.path().join("r.json"), "{}").unwrap();
    let msg = calltrace([
        "graph", "--trace", "t.txt", "--rules", "r.json", "-o", "r.json",
    ])
    .current_dir(dir.path())
    .run()
    .failure();
    assert!(msg.contains("the input --rules r.json"), "{msg}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("r.json")).unwrap(),
        "{}"
    );
}
