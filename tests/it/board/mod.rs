//! Firmware on an emulated board: programs built for a Cortex-M3 with
//! `arm-none-eabi-gcc` and newlib, with the board support of
//! `testdata/board/` (vector table, linker script, semihosting, UART,
//! SysTick, a two-task scheduler), run under
//! `qemu-system-arm -M mps2-an385` with `-icount` (so every run executes
//! the same instructions) and compared with the same code built for
//! x86-64 Linux. Each firmware is built once per test run; every QEMU run
//! is under a watchdog. Without the cross compiler, QEMU or
//! `gdb-multiarch` the tests skip (fail under `CALLTRACE_REQUIRE_TOOLS=1`).
//!
//! The traced firmwares include `calltrace runtime --freestanding` and
//! are read by `calltrace` from the dump of `calltrace_buffer`:
//! - `printer.rs`: the printer's 19 patterns, output and call counts;
//! - `bzip2.rs`: a third-party library compressing a buffer;
//! - `tick.rs`: SysTick interrupting a workload;
//! - `ring.rs`: the flight recorder over a million calls;
//! - `dumps.rs`: the same run taken off by semihosting, by GDB and
//!   through a UART;
//! - `tasks.rs`: two tasks of a small scheduler, on two threads;
//! - `freertos.rs`: two tasks of the FreeRTOS kernel, its tick and idle task.

mod bzip2;
mod dumps;
mod freertos;
mod printer;
mod ring;
mod tasks;
mod tick;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

/// The cross compiler.
pub const CC: &str = "arm-none-eabi-gcc";
/// The emulator.
pub const QEMU: &str = "qemu-system-arm";
/// Watchdog of one QEMU run, in seconds.
const WATCHDOG: u64 = 60;

/// Whether the cross compiler and QEMU are installed; skips the test
/// (or fails it under `CALLTRACE_REQUIRE_TOOLS=1`) when not.
pub fn have_tools() -> bool {
    tool(CC).is_some() && tool(QEMU).is_some()
}

/// A file of `testdata/board/`.
pub fn board_file(name: &str) -> PathBuf {
    root().join("testdata/board").join(name)
}

/// How to build one firmware.
pub struct Recipe<'a> {
    /// Its name: the directory under `target/tmp/board/` and the ELF's stem.
    pub name: &'a str,
    /// The application's sources (instrumented when `traced`).
    pub sources: Vec<PathBuf>,
    /// More flags for the application's sources (defines, include paths).
    pub flags: Vec<String>,
    /// The application's optimisation level. Default is `-O0`.
    pub opt: &'a str,
    /// Built with `-finstrument-functions` and the freestanding runtime.
    pub traced: bool,
    /// Flags of the runtime (`-DCALLTRACE_EVENTS=...`).
    pub runtime: Vec<String>,
}

impl Default for Recipe<'_> {
    fn default() -> Self {
        Recipe {
            name: "firmware",
            sources: Vec::new(),
            flags: Vec::new(),
            opt: "-O0",
            traced: true,
            runtime: Vec::new(),
        }
    }
}

/// Flags of every source of a firmware.
const TARGET: &[&str] = &["-mcpu=cortex-m3", "-mthumb", "-g"];

/// Builds a firmware: the application's sources compiled (instrumented
/// when traced), with printf's `%zu` made to work (zformat.c), then
/// linked with the board's sources, the runtime and newlib's semihosting
/// library. Returns the ELF.
pub fn build_firmware(r: &Recipe) -> PathBuf {
    let dir = fresh_dir("board", r.name);
    let mut app = Command::new(CC);
    app.current_dir(&dir)
        .args(TARGET)
        .args([
            r.opt,
            "-c",
            "-Dprintf=board_printf",
            "-Dfprintf=board_fprintf",
            "-I",
        ])
        .arg(board_file(""))
        .args(&r.flags)
        .args(&r.sources);
    if r.traced {
        app.arg("-finstrument-functions");
    }
    compile(&mut app);
    let elf = dir.join(format!("{}.elf", r.name));
    let mut link = Command::new(CC);
    link.current_dir(&dir)
        .args(TARGET)
        .args(["-O2", "--specs=rdimon.specs", "-nostartfiles", "-T"])
        .arg(board_file("mps2-an385.ld"))
        .arg("-I")
        .arg(board_file(""))
        .args(
            [
                "startup.c",
                "semihosting.c",
                "board.c",
                "zformat.c",
                "systick.c",
            ]
            .map(board_file),
        )
        .args(objects(&r.sources))
        .arg("-o")
        .arg(&elf);
    if r.traced {
        link.arg("-DBOARD_TRACE")
            .args(["uart.c", "sched.c"].map(board_file))
            .args(&r.runtime)
            .arg(freestanding_runtime());
    }
    compile(&mut link);
    elf
}

/// The object file `gcc -c` makes of each source, in its directory.
fn objects(sources: &[PathBuf]) -> Vec<PathBuf> {
    sources
        .iter()
        .map(|s| {
            let stem = s.file_stem().expect("a source file name");
            PathBuf::from(stem).with_extension("o")
        })
        .collect()
}

/// `calltrace runtime --freestanding`, written once per test run.
pub fn freestanding_runtime() -> &'static Path {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let out = calltrace(["runtime", "--freestanding"]).run().success();
        let path = fresh_dir("board", "runtime").join("calltrace.c");
        std::fs::write(&path, out.stdout).expect("write the runtime");
        path
    })
}

/// What one run of a firmware printed and its exit status.
pub struct Run {
    /// QEMU's exit status: the firmware's (semihosting SYS_EXIT_EXTENDED).
    pub status: i32,
    /// What the firmware wrote on stdout through semihosting.
    pub stdout: String,
    /// What it wrote on stderr.
    pub stderr: String,
}

/// Runs `elf` under QEMU in `dir` with the command line `ELF ARGS...`
/// (the first is the dump, see testdata/board/board.c), `extra` QEMU
/// arguments, under the watchdog.
pub fn qemu(elf: &Path, dir: &Path, args: &[&str], extra: &[&str]) -> Run {
    let mut cmd = qemu_command(elf, dir, args);
    let out = output_within(cmd.args(extra), WATCHDOG);
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The QEMU command line of [`qemu`], without the extra arguments.
pub fn qemu_command(elf: &Path, dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(QEMU);
    cmd.current_dir(dir)
        .args(["-M", "mps2-an385", "-nographic", "-monitor", "none"])
        .args(["-semihosting-config", "enable=on,target=native"])
        .args(["-icount", "shift=4,sleep=off", "-kernel"])
        .arg(elf)
        .arg("-append")
        .arg(args.join(" "));
    cmd
}

/// Runs `elf` under QEMU in `dir` with `args` and checks that it exits
/// with 0 and prints `stdout`; returns what it printed.
#[track_caller]
pub fn qemu_ok(elf: &Path, dir: &Path, args: &[&str], extra: &[&str]) -> Run {
    let run = qemu(elf, dir, args, extra);
    assert_eq!(run.status, 0, "{args:?}: {}{}", run.stdout, run.stderr);
    run
}

/// What `calltrace graph ELF --trace TRACE EXTRA...` read: the edges of
/// its CSV (nothing pruned) and its stderr.
#[track_caller]
pub fn read_graph(elf: &Path, trace: &Path, extra: &[&str]) -> (Vec<Edge>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("graph.csv");
    let mut args: Vec<std::ffi::OsString> = vec!["graph".into(), elf.into(), "--trace".into()];
    args.push(trace.into());
    args.extend(["--min-total", "0", "--min-edge", "0", "-o"].map(Into::into));
    args.push(dir.path().join("graph.dot").into());
    args.push("--csv".into());
    args.push(csv.clone().into());
    args.extend(extra.iter().map(Into::into));
    let out = calltrace(args).run().success();
    let csv = std::fs::read(&csv).expect("read the CSV");
    // QEMU's board has no cycle counter and no rate in the header
    assert_eq!(
        csv_total_unit(&csv),
        "cycles",
        "a firmware's times are cycles"
    );
    (csv_edges(&csv), out.stderr)
}

/// Builds C `sources` for x86-64 with `gcc -g -O0 -finstrument-functions`
/// (a later `-O` in `flags` wins) and the runtime into `dir/name`.
pub fn build_x86(dir: &Path, name: &str, sources: &[PathBuf], flags: &[&str]) -> PathBuf {
    let exe = dir.join(name);
    compile(
        Command::new("gcc")
            .current_dir(dir)
            .args(["-g", "-O0", "-finstrument-functions"])
            .args(flags)
            .args(sources)
            .arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-pthread"),
    );
    exe
}
