//! The printer (`testdata/printer`, unchanged) on the Cortex-M3: its job
//! file is read from the host through semihosting, its 19 patterns print
//! what the x86-64 build prints, exit with its status, and the trace each
//! dumps by semihosting has the x86-64 trace's call counts.

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

/// The printer firmware, built once: instrumented, with room for the
/// longest pattern's 9,230 events.
pub fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        build_firmware(&Recipe {
            name: "printer",
            sources: sources(),
            flags: vec![format!("-I{}", root().join("testdata/printer").display())],
            runtime: vec!["-DCALLTRACE_EVENTS=16384".into()],
            ..Recipe::default()
        })
    })
}

/// One pattern run on x86-64: output, status and trace.
struct Reference {
    exe: PathBuf,
    trace: PathBuf,
    stdout: String,
    stderr: String,
    status: i32,
}

/// One pattern run on the Cortex-M3: output, status and dump.
struct M3Run {
    run: Run,
    dump: PathBuf,
}

/// The firmware's runs of every pattern, once, each dumping its trace by
/// semihosting.
fn m3_runs() -> &'static Vec<M3Run> {
    static RUNS: OnceLock<Vec<M3Run>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let dir = fresh_dir("board", "printer-runs");
        patterns()
            .iter()
            .map(|job| {
                let stem = job.file_stem().expect("a job name").to_string_lossy();
                let dump = format!("semi:{stem}.bin");
                let run = qemu(firmware(), &dir, &[&dump, job.to_str().unwrap()], &[]);
                M3Run {
                    run,
                    dump: dir.join(format!("{stem}.bin")),
                }
            })
            .collect()
    })
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
                let out =
                    output_within(Command::new(&exe).arg(job).env("CALLTRACE_OUT", &trace), 60);
                Reference {
                    exe: exe.clone(),
                    trace,
                    stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                    status: out.status.code().unwrap_or(-1),
                }
            })
            .collect()
    })
}

/// The x86-64 runs, made while the firmware runs under QEMU.
fn both_runs() -> &'static Vec<Reference> {
    std::thread::scope(|s| {
        let m3 = s.spawn(m3_runs);
        let x86 = x86_runs();
        m3.join().expect("the firmware's runs");
        x86
    })
}

#[test]
fn printer_patterns_print_on_the_cortex_m3_what_they_print_on_x86_64() {
    if !have_tools() {
        return;
    }
    let jobs = patterns();
    let want = both_runs();
    assert_eq!(jobs.len(), 19, "{jobs:?}");
    let mut statuses = Vec::new();
    for ((job, want), got) in jobs.iter().zip(want).zip(m3_runs()) {
        let (got, name) = (&got.run, job.display());
        assert_eq!(got.stdout, want.stdout, "{name}: stdout");
        assert_eq!(got.stderr, want.stderr, "{name}: stderr");
        assert_eq!(got.status, want.status, "{name}: exit status");
        statuses.push(got.status);
    }
    // the bad-* patterns exit with 1, the others with 0
    assert_eq!(
        statuses.iter().filter(|&&s| s == 1).count(),
        3,
        "{statuses:?}"
    );
    assert!(
        want.iter().all(|r| r.stdout.contains("crc=")),
        "every pattern prints its summary"
    );
}

#[test]
fn printer_patterns_make_the_same_calls_on_the_cortex_m3_as_on_x86_64() {
    if !have_tools() {
        return;
    }
    let mut total = 0;
    for ((job, want), got) in patterns().iter().zip(both_runs()).zip(m3_runs()) {
        let name = job.display();
        assert!(got.run.status <= 1, "{name}: {}", got.run.stderr);
        let x86 = graph(want.exe.to_str().unwrap(), &want.trace).edges();
        let (m3, notes) = read_graph(firmware(), &got.dump, &[]);
        assert_eq!(m3, x86, "{name}: call counts, Cortex-M3 (left) and x86-64");
        assert!(
            !notes.contains("repair") && !notes.contains("closed"),
            "{name}: {notes}"
        );
        total += m3.iter().map(|e| e.2).sum::<u64>();
    }
    assert!(total > 19 * 100, "{total} calls");
}
