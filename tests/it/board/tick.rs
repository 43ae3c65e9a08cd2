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
