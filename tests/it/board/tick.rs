//! SysTick at a fast rate (every 500 cycles) interrupting a workload,
//! with an instrumented handler: the handler's calls land on a thread of
//! their own named `SysTick_Handler`, one call per interrupt the firmware
//! counted, and the workload's thread (`main`) keeps the calls, and the
//! balanced tree, of the same run without the interrupt.

use super::*;

/// The workload's rounds: about 12,000 calls.
const ROUNDS: &str = "500";

#[test]
fn systick_calls_land_on_their_own_thread_and_leave_the_tasks_calls_alone() {
    if !have_tools() {
        return;
    }
    let elf = build_firmware(&Recipe {
        name: "tick",
        sources: vec![board_file("tick.c")],
        runtime: vec!["-DCALLTRACE_EVENTS=65536".into()],
        ..Recipe::default()
    });
    let dir = elf
        .parent()
        .expect("the firmware's directory")
        .to_path_buf();
    let quiet = qemu_ok(&elf, &dir, &["semi:quiet.bin", "0", ROUNDS], &[]);
    let ticked = qemu_ok(&elf, &dir, &["semi:ticked.bin", "499", ROUNDS], &[]);
    let ticks: u64 = ticked
        .stdout
        .strip_prefix("ticks=")
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no tick count in {:?}", ticked.stdout));
    assert!(quiet.stdout.starts_with("ticks=0 "), "{}", quiet.stdout);
    assert!(ticks > 100, "{ticks} interrupts");
    // the same result with and without the interrupt
    assert_eq!(
        quiet.stdout[7..],
        ticked.stdout[ticked.stdout.find(' ').unwrap()..]
    );

    let (alone, _) = read_graph(&elf, &dir.join("quiet.bin"), &[]);
    let (task, notes) = read_graph(&elf, &dir.join("ticked.bin"), &["--tid", "main"]);
    assert!(
        !notes.contains("repaired"),
        "the task's stack is balanced: {notes}"
    );
    assert_eq!(
        task, alone,
        "the task's calls with the interrupt (left) and without"
    );
    let (handler, _) = read_graph(&elf, &dir.join("ticked.bin"), &["--tid", "SysTick_Handler"]);
    assert_eq!(
        handler,
        edges(&[("SysTick_Handler", "tick_count", ticks)]),
        "one handler call per interrupt"
    );
    let elf = elf.to_str().expect("a UTF-8 path");
    let with_ticks = tree(elf, &dir.join("ticked.bin"), &["--tid", "main"]);
    let without = tree(elf, &dir.join("quiet.bin"), &[]);
    assert_eq!(shape(&with_ticks), shape(&without), "the task's tree");
}

/// main's total time in cycles, from the first line of `calltrace tree`:
/// `main (SELF cycles / TOTAL cycles)`.
fn main_cycles(elf: &str, dump: &Path) -> u64 {
    let text = tree(elf, dump, &["--tid", "main"]);
    let first = text.lines().next().unwrap_or("");
    first
        .strip_prefix("main (")
        .and_then(|rest| rest.split(" / ").nth(1))
        .and_then(|total| total.strip_suffix(" cycles)"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no total in {first:?}"))
}

/// The runtime's SysTick clock follows a SysTick the firmware programs
/// after the first event: the interrupted workload takes its own time plus
/// the handlers' (a few hundred cycles per interrupt), not a jump of up to
/// 2^24 cycles where the period changed.
#[test]
fn a_firmware_that_programs_systick_keeps_its_times() {
    if !have_tools() {
        return;
    }
    let elf = build_firmware(&Recipe {
        name: "tick-times",
        sources: vec![board_file("tick.c")],
        runtime: vec!["-DCALLTRACE_EVENTS=65536".into()],
        ..Recipe::default()
    });
    let dir = elf
        .parent()
        .expect("the firmware's directory")
        .to_path_buf();
    qemu_ok(&elf, &dir, &["semi:quiet.bin", "0", ROUNDS], &[]);
    qemu_ok(&elf, &dir, &["semi:ticked.bin", "499", ROUNDS], &[]);
    let elf = elf.to_str().expect("a UTF-8 path");
    let (quiet, ticked) = (
        main_cycles(elf, &dir.join("quiet.bin")),
        main_cycles(elf, &dir.join("ticked.bin")),
    );
    assert!(quiet > 100_000, "{quiet}");
    assert!(
        ticked > quiet && ticked < 3 * quiet,
        "{ticked} cycles against {quiet}"
    );
}
