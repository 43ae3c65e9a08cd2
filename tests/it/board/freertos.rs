//! The FreeRTOS kernel (testdata/freertos/, unmodified) on the board:
//! testdata/board/freertos/main.c runs two tasks, `sensor` and `logger`,
//! passing readings through a queue, preempted by the kernel's SysTick
//! tick, built as README.md's FreeRTOS recipe says: the kernel and the
//! port instrumented too, but for the port's naked handlers
//! (`-finstrument-functions-exclude-function-list`), and the
//! `traceTASK_SWITCHED_IN` hook in FreeRTOSConfig.h. Each task is a thread
//! named by the task (`--tid sensor`) holding its own code's calls, with
//! the counts the firmware counted; the idle task is one too; the tick
//! interrupt and PendSV are threads of their own; and every thread is
//! balanced but for the frames the run leaves open (the tasks are stopped
//! mid-call when the logger takes the trace off).

use super::*;

/// Rounds of each task.
const ROUNDS: u64 = 300;
/// The sensor sleeps after every this many rounds.
const SLEEP_EVERY: u64 = 64;

/// The README recipe's flag: the port's naked handlers not instrumented.
const EXCLUDE: &str = "-finstrument-functions-exclude-function-list=vPortSVCHandler,xPortPendSVHandler,prvPortStartFirstTask";

/// The functions of the firmware's own code (not the kernel's).
const APP: &[&str] = &[
    "sensor_task",
    "sensor_sample",
    "sensor_filter",
    "logger_task",
    "logger_format",
    "logger_digit",
    "spin",
];

/// What the logger's digits loop runs over the readings `level + 7919 i`
/// (the same code on the host: the filter's level, then the digits).
fn logger_digits() -> u64 {
    let mut level: i64 = 0;
    (0..ROUNDS as i64)
        .map(|i| {
            let sample = (i * 37 + 11) % 101;
            level = (3 * level + sample) / 4;
            (level as u64 + i as u64 * 7919).to_string().len() as u64
        })
        .sum()
}

/// The sensor task's calls made by its own code: its functions and the
/// kernel calls it makes itself.
fn sensor() -> Vec<Edge> {
    edges(&[
        ("sensor_task", "sensor_sample", ROUNDS),
        ("sensor_sample", "spin", ROUNDS),
        ("sensor_task", "sensor_filter", ROUNDS),
        ("sensor_task", "xQueueGenericSend", ROUNDS),
        ("sensor_task", "vTaskDelay", ROUNDS / SLEEP_EVERY),
        ("sensor_task", "vTaskSuspend", 1),
    ])
}

/// The logger task's calls made by its own code; the last one is
/// taskDISABLE_INTERRUPTS() in logger_finish (not instrumented, so its
/// callee shows under logger_task): the port's forced-inline function,
/// instrumented in main.c too.
fn logger() -> Vec<Edge> {
    edges(&[
        ("logger_task", "vPortRaiseBASEPRI [main.c]", 1),
        ("logger_task", "xQueueReceive", ROUNDS),
        ("logger_task", "logger_format", ROUNDS),
        ("logger_format", "logger_digit", logger_digits()),
        ("logger_format", "spin", ROUNDS),
    ])
}

/// The edges whose caller is the firmware's own code.
fn own(all: &[Edge]) -> Vec<Edge> {
    all.iter()
        .filter(|e| APP.contains(&e.0.as_str()))
        .cloned()
        .collect()
}

/// One run of the firmware: its ELF, the dump and what it counted
/// (`sensor_sample=N ... ticks=N`).
struct FreeRtosRun {
    elf: PathBuf,
    dump: PathBuf,
    counts: Vec<(String, u64)>,
}

impl FreeRtosRun {
    /// The count the firmware printed for `name`.
    fn count(&self, name: &str) -> u64 {
        self.counts
            .iter()
            .find(|(n, _)| n == name)
            .map(|c| c.1)
            .unwrap_or_else(|| panic!("no count of {name} in {:?}", self.counts))
    }

    /// `graph --tid THREAD`: its edges and the repair note (empty if none).
    fn thread(&self, name: &str) -> (Vec<Edge>, String) {
        let (edges, stderr) = read_graph(&self.elf, &self.dump, &["--tid", name]);
        let note = stderr
            .lines()
            .find_map(|l| l.split_once("repaired unbalanced trace: "))
            .map_or(String::new(), |(_, what)| what.to_string());
        (edges, note)
    }
}

/// The counts the firmware printed: `name=N` words.
fn parse_counts(stdout: &str) -> Vec<(String, u64)> {
    stdout
        .split_whitespace()
        .filter_map(|w| w.split_once('='))
        .filter_map(|(n, v)| Some((n.to_string(), v.parse().ok()?)))
        .collect()
}

/// The firmware built and run once, or None without the tools.
fn run() -> Option<&'static FreeRtosRun> {
    static RUN: OnceLock<Option<FreeRtosRun>> = OnceLock::new();
    RUN.get_or_init(|| {
        if !have_tools() {
            return None;
        }
        let kernel = root().join("testdata/freertos");
        let config = board_file("freertos");
        let elf = build_firmware(&Recipe {
            name: "freertos",
            sources: vec![
                config.join("main.c"),
                kernel.join("tasks.c"),
                kernel.join("list.c"),
                kernel.join("queue.c"),
                kernel.join("portable/GCC/ARM_CM3/port.c"),
            ],
            flags: vec![
                EXCLUDE.into(),
                "-I".into(),
                config.display().to_string(),
                "-I".into(),
                kernel.join("include").display().to_string(),
                "-I".into(),
                kernel.join("portable/GCC/ARM_CM3").display().to_string(),
            ],
            runtime: vec!["-DCALLTRACE_EVENTS=65536".into()],
            ..Recipe::default()
        });
        let dir = elf
            .parent()
            .expect("the firmware's directory")
            .to_path_buf();
        let rounds = ROUNDS.to_string();
        let out = qemu_ok(&elf, &dir, &["semi:freertos.bin", &rounds], &[]);
        Some(FreeRtosRun {
            dump: dir.join("freertos.bin"),
            counts: parse_counts(&out.stdout),
            elf,
        })
    })
    .as_ref()
}

#[test]
fn freertos_tasks_land_on_threads_named_by_the_tasks_with_the_counts_of_their_code() {
    let Some(run) = run() else { return };
    for (name, want) in [
        ("sensor_sample", ROUNDS),
        ("sensor_filter", ROUNDS),
        ("logger_format", ROUNDS),
        ("logger_digit", logger_digits()),
    ] {
        assert_eq!(run.count(name), want, "the firmware's count of {name}");
    }
    let (sensor_edges, _) = run.thread("sensor");
    assert_eq!(own(&sensor_edges), sensor(), "the sensor task's own calls");
    let (logger_edges, _) = run.thread("logger");
    assert_eq!(own(&logger_edges), logger(), "the logger task's own calls");
    // the kernel's calls a task makes are on its thread, below its code
    assert!(
        sensor_edges
            .iter()
            .any(|e| e.0 == "xQueueGenericSend" && e.1 == "prvCopyDataToQueue" && e.2 == ROUNDS),
        "{sensor_edges:?}"
    );
    let (idle, _) = run.thread("IDLE");
    assert!(
        idle.iter().all(|e| !APP.contains(&e.1.as_str())) && !idle.is_empty(),
        "the idle task runs the kernel's code only: {idle:?}"
    );
}

#[test]
fn the_freertos_tick_runs_on_its_own_thread_and_no_task_holds_it() {
    let Some(run) = run() else { return };
    let ticks = run.count("ticks");
    assert!(ticks > 100, "{ticks} ticks");
    let (tick, note) = run.thread("xPortSysTickHandler");
    assert_eq!(note, "", "the tick handler's thread is balanced");
    for edge in [
        ("xPortSysTickHandler", "xTaskIncrementTick", ticks),
        ("xTaskIncrementTick", "vApplicationTickHook", ticks),
    ] {
        let edge = (edge.0.to_string(), edge.1.to_string(), edge.2);
        assert!(tick.contains(&edge), "{edge:?} in {tick:?}");
    }
    // PendSV's switches: vTaskSwitchContext, on a thread of its own
    let (pendsv, note) = run.thread("vTaskSwitchContext");
    assert_eq!(note, "", "PendSV's thread is balanced");
    assert!(
        pendsv.iter().all(|e| e.0 != "xTaskIncrementTick"),
        "{pendsv:?}"
    );
    for task in ["main", "sensor", "logger", "IDLE"] {
        let (edges, _) = run.thread(task);
        assert!(
            edges.iter().all(|e| e.1 != "xPortSysTickHandler"
                && e.1 != "vApplicationTickHook"
                && e.1 != "vTaskSwitchContext"),
            "no interrupt on {task}'s stack: {edges:?}"
        );
    }
}

#[test]
fn each_freertos_thread_is_balanced_but_for_where_the_run_stops_it() {
    let Some(run) = run() else { return };
    let open = |n: u64| format!("{n} frame(s) still open at the end closed at the last timestamp");
    // main: in vTaskStartScheduler, which never returns; the logger
    // (switched in first, by vTaskStartScheduler, before the scheduler
    // starts: its thread begins in xPortStartScheduler) takes the trace
    // off from logger_task; the sensor is suspended in vTaskSuspend
    for (task, frames) in [("main", 2), ("logger", 2), ("sensor", 2)] {
        let (_, note) = run.thread(task);
        assert_eq!(note, open(frames), "{task}");
    }
    let (logger_edges, _) = run.thread("logger");
    assert!(
        logger_edges.contains(&("xPortStartScheduler".into(), "logger_task".into(), 1)),
        "{logger_edges:?}"
    );
    // the idle task: in prvIdleTask and wherever its last switch left it
    let (_, note) = run.thread("IDLE");
    let frames: u64 = note
        .strip_suffix(" frame(s) still open at the end closed at the last timestamp")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("IDLE: {note}"));
    assert!((1..=4).contains(&frames), "IDLE: {note}");
}

/// SysTick cycles per kernel tick (configCPU_CLOCK_HZ / configTICK_RATE_HZ).
const TICK_CYCLES: u64 = 2_500;

/// The kernel reprograms SysTick, which is also the runtime's clock on
/// QEMU's board: the run still takes one tick period per tick the
/// firmware counted, plus the start before the scheduler and the part of
/// a period after the last tick, not a jump of up to 2^24 cycles where
/// the kernel set its period.
#[test]
fn a_freertos_run_takes_one_tick_period_per_tick() {
    let Some(run) = run() else { return };
    let ticks = run.count("ticks");
    let elf = run.elf.to_str().expect("a UTF-8 path");
    let text = tree(elf, &run.dump, &["--tid", "main"]);
    let first = text.lines().next().unwrap_or("");
    let total: u64 = first
        .strip_prefix("main (")
        .and_then(|rest| rest.split(" / ").nth(1))
        .and_then(|total| total.strip_suffix(" cycles)"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no total in {first:?}"));
    assert!(
        total >= ticks * TICK_CYCLES && total <= (ticks + 4) * TICK_CYCLES,
        "{total} cycles for {ticks} ticks of {TICK_CYCLES}"
    );
}
