//! A smoke run of `scripts/bench.sh` on a tiny workload: the benchmark
//! itself (a >= 3 GB trace) stays out of `cargo test`, but the script must
//! keep working and keep printing every target.

use std::process::Command;

use super::util::root;

#[test]
fn bench_script_smoke_run_prints_every_target() {
    if !std::path::Path::new("/usr/bin/time").exists() {
        eprintln!("skipped: /usr/bin/time is not installed");
        return;
    }
    let out = Command::new("bash")
        .arg(root().join("scripts/bench.sh"))
        .env("BENCH_MB", "0.02")
        .env("BENCH_RUNS", "1")
        .env("BENCH_FUNCS", "300")
        .env("CALLTRACE_BIN", env!("CARGO_BIN_EXE_calltrace"))
        .output()
        .expect("run bash");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for target in ["1 ", "2 ", "3 ", "4 ", "5 "] {
        assert!(
            text.lines().any(|l| l.starts_with(target)),
            "no row for target {target}:\n{text}"
        );
    }
    assert!(text.contains("same output: PASS"), "{text}");
    assert!(text.contains("(300 named)"), "{text}");
}
