//! The runtime's own clock on an emulated Cortex-M3 (`qemu-system-arm -M
//! mps2-an385`): QEMU's DWT cycle counter stays 0, so the runtime falls
//! back to SysTick, says so in the header, and its times advance, with and
//! without `-icount`. (The board tests under `tests/it/board/` run whole
//! programs on the same board; this is the clock alone.)

use std::path::Path;
use std::process::Command;

use super::decode::decode;
use super::runtime_in;
use crate::it::util::{compile, fresh_dir, output_within, tool};

/// A firmware that calls leaf 50 times, dumps by semihosting and exits.
const FIRMWARE: &str = r#"#include <stdint.h>
int calltrace_dump_semihosting(const char *path);
extern uint32_t _stack_top;
void Reset_Handler(void) __attribute__((no_instrument_function));
static void semihost(uintptr_t op, uintptr_t arg) __attribute__((no_instrument_function));
static volatile int sink;
__attribute__((noinline)) void leaf(int x) { sink += x; }
__attribute__((noinline)) void work(int n) { int i; for (i = 0; i < n; i++) leaf(i); }
static void semihost(uintptr_t op, uintptr_t arg)
{
    register uintptr_t r0 __asm__("r0") = op;
    register uintptr_t r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}
void Reset_Handler(void)
{
    work(50);
    if (calltrace_dump_semihosting("trace.bin") != 0)
        semihost(0x18, 0x20023); /* SYS_EXIT, ADP_Stopped_RunTimeErrorUnknown */
    semihost(0x18, 0x20026);     /* SYS_EXIT, ADP_Stopped_ApplicationExit */
    for (;;)
        ;
}
__attribute__((section(".vectors"), used)) const void *vectors[2] = {&_stack_top, (void *)Reset_Handler};
"#;

/// All of it in the board's first 4 MB of RAM, where QEMU loads the ELF.
const LINK: &str = "MEMORY { RAM (rwx) : ORIGIN = 0x00000000, LENGTH = 4M }\n\
    SECTIONS {\n\
      .text : { KEEP(*(.vectors)) *(.text*) *(.rodata*) } > RAM\n\
      .data : { *(.data*) } > RAM\n\
      .bss : { *(.bss*) *(COMMON) } > RAM\n\
      _stack_top = ORIGIN(RAM) + LENGTH(RAM);\n\
    }\n";

fn build(dir: &Path) -> std::path::PathBuf {
    let runtime = runtime_in(dir);
    std::fs::write(dir.join("app.c"), FIRMWARE).expect("write app.c");
    std::fs::write(dir.join("link.ld"), LINK).expect("write link.ld");
    let elf = dir.join("app.elf");
    compile(
        Command::new("arm-none-eabi-gcc")
            .args(["-mcpu=cortex-m3", "-mthumb", "-g", "-O1", "-ffreestanding"])
            .args(["-finstrument-functions", "-nostdlib", "-T"])
            .arg(dir.join("link.ld"))
            .arg(dir.join("app.c"))
            .arg(&runtime)
            .arg("-lgcc")
            .arg("-o")
            .arg(&elf),
    );
    elf
}

/// Runs the firmware in `dir`, with `extra` QEMU options; its dump.
fn run(dir: &Path, elf: &Path, extra: &[&str]) -> Vec<u8> {
    let _ = std::fs::remove_file(dir.join("trace.bin"));
    let out = output_within(
        Command::new("qemu-system-arm")
            .args(["-M", "mps2-an385", "-nographic", "-monitor", "none"])
            .args(["-semihosting-config", "enable=on,target=native"])
            .args(extra)
            .arg("-kernel")
            .arg(elf)
            .current_dir(dir),
        60,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(dir.join("trace.bin")).expect("the firmware wrote trace.bin")
}

/// Times of a dump's events, checked to be SysTick's and to advance.
#[track_caller]
fn systick_times(dump: &[u8]) -> Vec<u64> {
    let d = decode(dump).expect("a freestanding buffer");
    assert_eq!(
        d.header.clock, 2,
        "SysTick, as CYCCNT stays 0: {:?}",
        d.header
    );
    assert_eq!(d.header.count, 102, "work and 50 calls of leaf");
    let times: Vec<u64> = d.funcs().iter().map(|e| e.2).collect();
    assert!(
        times.last() > times.first(),
        "the clock stood still: {times:?}"
    );
    times
}

/// Without -icount, QEMU's SysTick only loads its reload value when QEMU
/// next looks at its timers: a short run read 0 for all its events.
#[test]
fn on_qemu_the_clock_falls_back_to_systick_and_advances() {
    if tool("arm-none-eabi-gcc").is_none() || tool("qemu-system-arm").is_none() {
        return;
    }
    let dir = fresh_dir("freestanding_runtime", "qemu");
    let elf = build(&dir);
    systick_times(&run(&dir, &elf, &[]));
    let icount = ["-icount", "shift=4,sleep=off"];
    let first = run(&dir, &elf, &icount);
    let times = systick_times(&first);
    assert!(times.windows(2).all(|w| w[1] > w[0]), "{times:?}");
    assert_eq!(run(&dir, &elf, &icount), first, "-icount runs repeat");
}
