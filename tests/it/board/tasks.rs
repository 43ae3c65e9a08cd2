//! Task switching: testdata/board/tasks.c runs two tasks, `sensor` and
//! `logger`, under the PendSV scheduler of testdata/board/sched.c, which
//! calls `calltrace_task_switch(task, name)` at each switch. Cooperative
//! (each task yields after each round) and preemptive (an instrumented
//! SysTick handler switches them wherever they are), each task's calls
//! land on a balanced thread named by the task, with the counts its code
//! makes, the handler's on a thread of its own, and `--tid NAME` selects
//! one.

use super::*;

/// Rounds of each task.
const ROUNDS: u64 = 300;

/// What the logger's digits loop runs for `7919 * i`, i < ROUNDS.
fn logger_digits() -> u64 {
    (0..ROUNDS)
        .map(|i| (i * 7919).to_string().len() as u64)
        .sum()
}

/// The sensor task's edges.
fn sensor() -> Vec<Edge> {
    edges(&[
        ("sensor_task", "sensor_sample", ROUNDS),
        ("sensor_task", "sensor_filter", ROUNDS),
    ])
}

/// The logger task's edges.
fn logger() -> Vec<Edge> {
    edges(&[
        ("logger_task", "logger_format", ROUNDS),
        ("logger_format", "logger_digit", logger_digits()),
    ])
}

/// Runs the tasks firmware `how` (coop or preempt) and checks each
/// task's thread.
fn two_threads(how: &str, min_switches: usize) {
    if !have_tools() {
        return;
    }
    let elf = firmware();
    let dir = fresh_dir("board", &format!("tasks-{how}"));
    let rounds = ROUNDS.to_string();
    qemu_ok(elf, &dir, &["semi:tasks.bin", how, &rounds], &[]);
    let dump = dir.join("tasks.bin");
    let (sensor_edges, notes) = read_graph(elf, &dump, &["--tid", "sensor"]);
    assert_eq!(sensor_edges, sensor(), "{how}: the sensor task's thread");
    assert!(
        !notes.contains("repaired"),
        "{how}: the sensor's stack is balanced: {notes}"
    );
    let (logger_edges, notes) = read_graph(elf, &dump, &["--tid", "logger"]);
    assert_eq!(logger_edges, logger(), "{how}: the logger task's thread");
    assert!(
        !notes.contains("repaired"),
        "{how}: the logger's stack is balanced: {notes}"
    );
    if how == "preempt" {
        let (ticks, _) = read_graph(elf, &dump, &["--tid", "SysTick_Handler"]);
        let n = ticks.first().map_or(0, |e| e.2);
        let want = edges(&[("SysTick_Handler", "tick_preempt", n)]);
        assert!(ticks == want && n >= min_switches as u64, "{ticks:?}");
    }
    let tree = tree(elf.to_str().unwrap(), &dump, &[]);
    for name in ["[main]", "[sensor]", "[logger]"] {
        assert!(
            tree.lines().any(|l| l.starts_with(name)),
            "{how}: thread {name}:\n{tree}"
        );
    }
    let switches = context_switches(&std::fs::read(&dump).expect("the dump"));
    assert!(
        switches >= min_switches,
        "{how}: {switches} context switches"
    );
}

/// The context-switch records of a 32-bit stop-mode dump (the format of
/// docs/binary-format.md).
fn context_switches(dump: &[u8]) -> usize {
    let word = |off: usize| u32::from_le_bytes(dump[off..off + 4].try_into().expect("4 bytes"));
    let header = u16::from_le_bytes([dump[10], dump[11]]) as usize;
    (0..word(28) as usize)
        .filter(|slot| word(header + slot * 8) == 0xFFFF_FFFE)
        .count()
}

/// The tasks firmware, built once.
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        build_firmware(&Recipe {
            name: "tasks",
            sources: vec![board_file("tasks.c")],
            runtime: vec!["-DCALLTRACE_EVENTS=16384".into()],
            ..Recipe::default()
        })
    })
}

#[test]
fn two_cooperative_tasks_land_on_two_threads_named_by_the_tasks() {
    // main to sensor, then one per yield but the last task's last ones
    two_threads("coop", 2 * ROUNDS as usize);
}

#[test]
fn two_preempted_tasks_land_on_two_threads_named_by_the_tasks() {
    // SysTick every 2,000 cycles over some 100,000 cycles of work
    two_threads("preempt", 20);
}
