//! Hostile input at the limits: a function name of hundreds of megabytes
//! under an address-space limit, traces that replace one library with
//! another at the same address very many times, and flame graphs whose
//! stacks stay too big even when `--max-depth` cuts them.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::Command;

use super::scaling::{Cmd, assert_linear};
use super::util::{BIN, calltrace, output_within, temp_file};

/// The bound on function names (1 MiB), as the README states it.
const MAX_NAME: usize = 1 << 20;

/// A symbolic trace of `main` calling the function `name` once.
fn one_call(name: &str) -> String {
    format!("E main 0\nE {name} 1\nX {name} 2\nX main 3\n")
}

#[test]
fn a_function_name_over_one_mib_is_refused_with_its_line_and_length() {
    let name = "n".repeat(MAX_NAME + 1);
    let (_dir, trace) = temp_file("long.trace", one_call(&name));
    for threads in ["1", "2"] {
        let msg = calltrace(["tree", "-o", "-", "--threads", threads, "--trace"])
            .args([&trace])
            .run()
            .failure();
        assert!(msg.contains("long.trace:2: "), "{msg}");
        assert!(
            msg.contains("at most 1 MiB") && msg.contains(&format!("{} bytes", MAX_NAME + 1)),
            "{msg}"
        );
        assert!(msg.len() < 300, "the message shows the line's start only");
    }
}

#[test]
fn lenient_skips_the_lines_of_a_name_over_the_bound() {
    let name = "n".repeat(MAX_NAME + 1);
    let (_dir, trace) = temp_file("long.trace", one_call(&name));
    let out = calltrace(["tree", "--lenient", "-o", "-", "--trace"])
        .args([&trace])
        .run()
        .success();
    assert_eq!(out.text(), "main (3 ns / 3 ns)\n");
    assert!(out.stderr.contains("skipped 2 malformed"), "{}", out.stderr);
    assert!(out.stderr.contains("at most 1 MiB"), "{}", out.stderr);
}

#[test]
fn a_function_name_of_one_mib_is_read() {
    let name = "n".repeat(MAX_NAME);
    let (_dir, trace) = temp_file("long.trace", one_call(&name));
    let text = calltrace(["tree", "-o", "-", "--trace"])
        .args([&trace])
        .run()
        .success()
        .text();
    assert_eq!(
        text,
        format!("main (2 ns / 3 ns)\n  {name} (1 ns / 1 ns)\n")
    );
}

#[test]
fn a_256_mib_name_under_a_1_gib_address_space_limit_is_refused_not_aborted() {
    // The case: the mapped 512 MB trace counts against the limit,
    // and each copy of the name took another 256 MB until one failed.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.txt");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    let piece = vec![b'f'; 1 << 20];
    file.write_all(b"E main 0\n").unwrap();
    for (letter, time) in [("E", 1), ("X", 2)] {
        write!(file, "{letter} ").unwrap();
        for _ in 0..256 {
            file.write_all(&piece).unwrap();
        }
        writeln!(file, " {time}").unwrap();
    }
    file.write_all(b"X main 3\n").unwrap();
    file.into_inner().expect("flush").sync_all().ok();
    let mut cmd = Command::new(BIN);
    cmd.args(["tree", "-o", "-", "--trace"]).arg(&path);
    // SAFETY: setrlimit is async-signal-safe and touches no memory of ours.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let out = output_within(&mut cmd, 120);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{:?}: {stderr}", out.status);
    assert!(
        stderr.contains("big.txt:2: ") && stderr.contains(&format!("{} bytes", 256 << 20)),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// An address trace that loads `n` libraries (not on disk) at distinct
/// addresses, calls into each, then replaces each with another library at
/// the same address and calls into it again: every first call's address
/// is then held, at the end, by a mapping recorded after the call.
fn replacements(n: usize) -> String {
    let mut s = String::from("# base 0x400000 /nonexistent/app\n");
    let calls = |s: &mut String| {
        for i in 0..n {
            let a = 0x1000_0010 + i * 0x10000;
            *s += &format!("E{a:#x}\nX{a:#x}\n");
        }
    };
    for lib in ["a", "b"] {
        for i in 0..n {
            let start = 0x1000_0000 + i * 0x10000;
            s += &format!(
                "# map {start:#x} {:#x} 0x0 - /nonexistent/{lib}{i}.so\n",
                start + 0x1000
            );
        }
        calls(&mut s);
    }
    s
}

#[test]
fn naming_is_linear_in_mapping_replacements() {
    let cmds: &[Cmd] = &[&["graph", "--format", "addr"]];
    assert_linear("mapping replacements", cmds, replacements, 4_000);
}

#[test]
fn replaced_libraries_name_each_call_by_the_library_it_went_to() {
    let (_dir, trace) = temp_file("r.trace", replacements(3));
    let tree = calltrace(["tree", "--format", "addr", "-o", "-", "--trace"])
        .args([&trace])
        .run()
        .success()
        .text();
    let want: String = ["a", "b"]
        .iter()
        .flat_map(|lib| (0..3).map(move |i| format!("{lib}{i}.so+0x10 (1 call / 1 call)\n")))
        .collect();
    assert_eq!(tree, want);
}

/// A symbolic trace: `f` recursing `n` deep under `main`.
fn recursion(n: usize) -> String {
    let mut s = String::from("E main 0\n");
    for i in 1..=n {
        s += &format!("E f {i}\n");
    }
    for i in 1..=n {
        s += &format!("X f {}\n", n + i);
    }
    s + &format!("X main {}\n", 2 * n + 1)
}

#[test]
fn flamegraph_stacks_cut_by_a_large_max_depth_are_still_bounded() {
    // 20k frames of `f` make about 400 MB of stacks; ended at depth 20k
    // they are the same, at depth 100 a few hundred KB.
    let (dir, trace) = temp_file("deep.trace", recursion(20_000));
    let svg = dir.path().join("f.svg");
    let flamegraph = |depth: &str| {
        calltrace(["export", "--to", "flamegraph", "--max-depth", depth, "-o"])
            .args([&svg])
            .args([std::ffi::OsStr::new("--trace"), trace.as_os_str()])
            .run()
    };
    let msg = flamegraph("20000").failure();
    assert!(
        msg.contains("--max-depth") && msg.contains("even when they end at depth 20000"),
        "{msg}"
    );
    assert!(!svg.exists());
    flamegraph("100").success();
    let drawn = std::fs::read_to_string(&svg).expect("read the SVG");
    assert!(drawn.contains("<svg"));
}

/// An indented trace of `main` calling `f`, the function `name` and `g`.
fn indented_call(name: &str) -> String {
    format!("main (1 / 10)\n  f (1 / 1)\n  {name} (2 / 2)\n  g (3 / 6) x2\n")
}

#[test]
fn an_indented_name_over_one_mib_is_refused_with_its_line_and_length() {
    let name = "n".repeat(MAX_NAME + 1);
    let (_dir, trace) = temp_file("long.txt", indented_call(&name));
    for threads in ["1", "2"] {
        for view in ["calls", "contexts"] {
            let msg = calltrace(["tree", "-o", "-", "--threads", threads, "--view", view])
                .args([std::ffi::OsStr::new("--trace"), trace.as_os_str()])
                .run()
                .failure();
            assert!(msg.contains("long.txt:3: "), "{msg}");
            assert!(
                msg.contains("at most 1 MiB") && msg.contains(&format!("{} bytes", MAX_NAME + 1)),
                "{msg}"
            );
            assert!(msg.len() < 300, "the message shows the line's start only");
        }
    }
}

#[test]
fn lenient_skips_the_line_of_an_indented_name_over_the_bound() {
    let name = "n".repeat(MAX_NAME + 1);
    let (_dir, trace) = temp_file("long.txt", indented_call(&name));
    for threads in ["1", "2"] {
        let out = calltrace(["tree", "--lenient", "-o", "-", "--threads", threads])
            .args([std::ffi::OsStr::new("--trace"), trace.as_os_str()])
            .run()
            .success();
        assert_eq!(
            out.text(),
            "main (1 / 10)\n  f (1 / 1)\n  g (3 / 6) x2\n",
            "threads {threads}"
        );
        assert!(out.stderr.contains("skipped 1 malformed"), "{}", out.stderr);
        assert!(out.stderr.contains("at most 1 MiB"), "{}", out.stderr);
    }
}

#[test]
fn an_indented_name_of_one_mib_is_read() {
    let name = "n".repeat(MAX_NAME);
    let (_dir, trace) = temp_file("long.txt", indented_call(&name));
    for threads in ["1", "2"] {
        let text = calltrace(["tree", "-o", "-", "--threads", threads, "--trace"])
            .args([&trace])
            .run()
            .success()
            .text();
        assert_eq!(text, indented_call(&name), "threads {threads}");
    }
}

#[test]
fn a_256_mib_indented_name_under_a_1_gib_address_space_limit_is_refused_not_aborted() {
    // Each copy of the name took another 256 MB (two for the reader's
    // tables, one to unescape it) until one failed.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.txt");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    let piece = vec![b'f'; 1 << 20];
    file.write_all(b"main (1 / 3)\n  ").unwrap();
    for _ in 0..256 {
        file.write_all(&piece).unwrap();
    }
    file.write_all(b" (2 / 2)\n").unwrap();
    file.into_inner().expect("flush").sync_all().ok();
    for threads in ["1", "2"] {
        let mut cmd = Command::new(BIN);
        cmd.args(["tree", "-o", "-", "--threads", threads, "--trace"])
            .arg(&path);
        // SAFETY: setrlimit is async-signal-safe and touches no memory of ours.
        unsafe {
            cmd.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: 1 << 30,
                    rlim_max: 1 << 30,
                };
                match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                    0 => Ok(()),
                    _ => Err(std::io::Error::last_os_error()),
                }
            });
        }
        let out = output_within(&mut cmd, 120);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{:?}: {stderr}", out.status);
        assert!(
            stderr.contains("big.txt:2: ") && stderr.contains(&format!("{} bytes", 256 << 20)),
            "{stderr}"
        );
        assert!(stderr.len() < 300, "{stderr}");
        assert!(out.stdout.is_empty());
    }
}
