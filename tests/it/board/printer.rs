//! The printer (`testdata/printer`, unchanged) on the Cortex-M3: its job
//! file is read from the host through semihosting, its 19 patterns print
//! what the x86-64 build prints and exit with its status.

use std::path::PathBuf;
use std::sync::OnceLock;

use super::*;

/// The printer's sources.
fn sources() -> Vec<PathBuf> {
    let dir = root().join("testdata/printer");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read testdata/printer")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    v.sort();
    v
}

/// The job files of the patterns, sorted.
fn patterns() -> Vec<PathBuf> {
    let dir = root().join("testdata/printer/patterns");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read the patterns")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "job"))
        .collect();
    v.sort();
    v
}

/// The printer firmware, built once.
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        build_firmware(&Recipe {
            name: "printer",
            sources: sources(),
            flags: vec![format!("-I{}", root().join("testdata/printer").display())],
            traced: false,
        })
    })
}

/// One pattern run on x86-64: output, status and trace.
struct Reference {
    stdout: String,
    stderr: String,
    status: i32,
}

/// The x86-64 build's runs of every pattern, once.
fn x86_runs() -> &'static Vec<Reference> {
    static RUNS: OnceLock<Vec<Reference>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let dir = fresh_dir("board", "printer-x86");
        let exe = build_x86(&dir, "printer", &sources(), &[]);
        patterns()
            .iter()
            .map(|job| {
                let stem = job.file_stem().expect("a job name");
                let trace = dir.join(stem).with_extension("txt");
                let out = output_within(
                    Command::new(&exe).arg(job).env("CALLTRACE_OUT", &trace),
                    60,
                );
                Reference {
                    stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                    status: out.status.code().unwrap_or(-1),
                }
            })
            .collect()
    })
}

#[test]
fn printer_patterns_print_on_the_cortex_m3_what_they_print_on_x86_64() {
    if !have_tools() {
        return;
    }
    let dir = fresh_dir("board", "printer-runs");
    let (jobs, want) = (patterns(), x86_runs());
    assert_eq!(jobs.len(), 19, "{jobs:?}");
    let mut statuses = Vec::new();
    for (job, want) in jobs.iter().zip(want) {
        let got = qemu(firmware(), &dir, &["none", job.to_str().unwrap()], &[]);
        let name = job.display();
        assert_eq!(got.stdout, want.stdout, "{name}: stdout");
        assert_eq!(got.stderr, want.stderr, "{name}: stderr");
        assert_eq!(got.status, want.status, "{name}: exit status");
        statuses.push(got.status);
    }
    // the bad-* patterns exit with 1, the others with 0
    assert_eq!(statuses.iter().filter(|&&s| s == 1).count(), 3, "{statuses:?}");
    assert!(want.iter().all(|r| r.stdout.contains("crc=")), "every pattern prints its summary");
}
