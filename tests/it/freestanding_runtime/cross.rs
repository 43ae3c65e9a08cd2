//! The freestanding runtime compiles for Cortex-M0, M3, M33 and RV32IMAC
//! at -O0 and -O2 with every warning an error, leaves no undefined symbol
//! (no memset or memcpy), links with -nostdlib -lgcc, and its buffer has
//! the size the format gives.

use std::path::Path;
use std::process::Command;

use super::runtime_in;
use crate::it::util::{compile, fresh_dir, tool};

/// A target of the cross-compile tests: its compiler, nm and flags.
struct Cross {
    cc: &'static str,
    nm: &'static str,
    flags: &'static [&'static str],
}

const CROSS: [Cross; 4] = [
    Cross {
        cc: "arm-none-eabi-gcc",
        nm: "arm-none-eabi-nm",
        flags: &["-mcpu=cortex-m3", "-mthumb"],
    },
    Cross {
        cc: "arm-none-eabi-gcc",
        nm: "arm-none-eabi-nm",
        flags: &["-mcpu=cortex-m0", "-mthumb"],
    },
    Cross {
        cc: "arm-none-eabi-gcc",
        nm: "arm-none-eabi-nm",
        flags: &["-mcpu=cortex-m33", "-mthumb"],
    },
    Cross {
        cc: "riscv64-unknown-elf-gcc",
        nm: "riscv64-unknown-elf-nm",
        flags: &["-march=rv32imac", "-mabi=ilp32"],
    },
];

/// Option sets compiled for each target: the defaults in stop mode, and a
/// ring whose task table ends 4 bytes short of a multiple of 8 (3 entries
/// of round_up(4 + 5, 4) = 12 bytes: header_size 104). With the size of
/// `calltrace_buffer` each gives: 64 + task table (rounded up to 8) + 8 per event.
const CONFIGS: [(&[&str], u64); 2] = [
    (&[], 64 + 16 * 20 + 4096 * 8),
    (
        &[
            "-DCALLTRACE_MODE=CALLTRACE_MODE_RING",
            "-DCALLTRACE_EVENTS=100",
            "-DCALLTRACE_TASKS=3",
            "-DCALLTRACE_TASK_NAME=5",
        ],
        104 + 100 * 8,
    ),
];

/// An instrumented firmware entry, to link the runtime with -nostdlib.
const FIRMWARE: &str = "static volatile int n;\n\
    __attribute__((noinline)) static void work(void) { n++; }\n\
    void entry(void) { for (;;) work(); }\n";

/// The output of a command that must succeed.
#[track_caller]
pub(super) fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run the command");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The size `nm -S` gives `calltrace_buffer` in an object.
fn buffer_size(nm: &str, object: &Path) -> u64 {
    let listing = stdout_of(Command::new(nm).arg("-S").arg(object));
    let line = listing
        .lines()
        .find(|l| l.ends_with(" calltrace_buffer"))
        .unwrap_or_else(|| panic!("no calltrace_buffer in\n{listing}"));
    let size = line.split_whitespace().nth(1).expect("a size column");
    u64::from_str_radix(size, 16).expect("a hex size")
}

/// Compiles the runtime for one target at one -O with one option set;
/// checks that it leaves no undefined symbol and the buffer's size, then
/// links it with an instrumented firmware under -nostdlib -lgcc.
fn cross_check(x: &Cross, dir: &Path, runtime: &Path, opt: &str, config: usize) {
    let (defines, size) = CONFIGS[config];
    let tag = format!("{}{}{opt}-{config}", x.cc, x.flags.join(""));
    let object = dir.join(format!("{tag}.o"));
    let common = ["-ffreestanding", "-finstrument-functions", opt];
    let warnings = ["-Wall", "-Wextra", "-Werror"];
    compile(
        Command::new(x.cc)
            .args(x.flags)
            .args(common)
            .args(warnings)
            .args(defines)
            .arg("-c")
            .arg(runtime)
            .arg("-o")
            .arg(&object),
    );
    let undefined = stdout_of(Command::new(x.nm).arg("-u").arg(&object));
    assert_eq!(undefined, "", "{tag}: the runtime calls something");
    assert_eq!(
        buffer_size(x.nm, &object),
        size,
        "{tag}: sizeof(calltrace_buffer)"
    );
    compile(
        Command::new(x.cc)
            .args(x.flags)
            .args(common)
            .args(["-nostdlib", "-e", "entry", "-o"])
            .arg(dir.join(format!("{tag}.elf")))
            .arg(dir.join("firmware.c"))
            .arg(&object)
            .arg("-lgcc"),
    );
}

#[test]
fn freestanding_runtime_compiles_for_cortex_m_and_rv32_calling_nothing() {
    let dir = fresh_dir("freestanding_runtime", "cross");
    let runtime = runtime_in(&dir);
    std::fs::write(dir.join("firmware.c"), FIRMWARE).expect("write firmware.c");
    let mut checked = 0;
    for x in &CROSS {
        if tool(x.cc).is_none() || tool(x.nm).is_none() {
            return;
        }
        for opt in ["-O0", "-O2"] {
            for config in 0..CONFIGS.len() {
                cross_check(x, &dir, &runtime, opt, config);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 16);
}
