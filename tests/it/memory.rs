//! Memory use with huge inputs: a function name of tens of megabytes, over
//! the 1 MiB bound on names, must be refused where it is read, before it is
//! copied. Address-space limits are deterministic, so these tests do not
//! depend on how loaded the machine is.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use super::util::{BIN, fresh_dir, output_within};

const MB: u64 = 1 << 20;

/// A symbolic trace in which `main` calls one function named `name`.
fn trace_with(dir: &Path, file: &str, name: &str) -> std::path::PathBuf {
    let path = dir.join(file);
    let text = format!("E main 1 1\nE {name} 2 1\nX {name} 5 1\nX main 9 1\n");
    std::fs::write(&path, text).expect("write trace");
    path
}

/// Runs `calltrace tree --trace TRACE` under an address-space limit of
/// `limit` bytes. One parsing thread: with two, whether the chunks of both
/// huge lines are in flight at once depends on how the threads are
/// scheduled, and a loaded machine made the limit fail one run in several.
fn tree_within(trace: &Path, limit: u64) -> std::process::Output {
    let mut cmd = Command::new(BIN);
    cmd.args(["tree", "--threads", "1", "--trace"]).arg(trace);
    // SAFETY: setrlimit is async-signal-safe and touches no shared state.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    output_within(&mut cmd, 600)
}

/// Regression: a huge name was copied four to five times while being read
/// (the chunk's copy, its index key, the function table's key and its
/// index key) and aborted with "memory allocation failed". Names are now
/// bounded (1 MiB, `ingest::funcs::MAX_NAME`): a longer one is refused
/// with exit 2 under a limit that fits the trace's mapping and half a name,
/// so no stage, the error message included, may copy it whole.
#[test]
fn a_huge_name_is_refused_before_it_is_copied() {
    let dir = fresh_dir("memory", "huge_name");
    // What the program needs with a short name, to 16 MiB.
    let short = trace_with(&dir, "short.txt", "f");
    let base = (1..=32)
        .map(|k| k * 16 * MB)
        .find(|&limit| tree_within(&short, limit).status.success())
        .expect("a short trace runs in 512 MiB");
    let n = 32 * MB;
    let name = "f".repeat(n as usize);
    let huge = trace_with(&dir, "huge.txt", &name);
    // The file is mapped (twice the name), plus room for half a copy.
    let limit = base + 2 * n + n / 2;
    let out = tree_within(&huge, limit);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a {} MiB name under {} MiB (a short one runs in {} MiB): {:?}: {stderr}",
        n / MB,
        limit / MB,
        base / MB,
        out.status
    );
    assert!(
        stderr.contains("huge.txt:2: ") && stderr.contains("at most 1 MiB"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
