//! `--rules`: logs of other tracers read through the shipped conversion
//! rules (rules/*.json) and flowing into every command. The TOPPERS/ASP log
//! is the TLV manual's example (table 2.4); the ftrace sample is written for
//! this test; the uftrace log is `uftrace replay` of a C program recorded
//! here, checked against the calls the program makes and the durations
//! uftrace printed.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::*;

fn rules(name: &str) -> PathBuf {
    root().join("rules").join(name)
}

fn log(name: &str) -> PathBuf {
    root().join("testdata/logs").join(name)
}

/// Whether `tool` is on the PATH. A missing tool skips the test with a
/// note, unless CALLTRACE_REQUIRE_TOOLS=1 (CI) makes it a failure.
pub fn have(tool: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CALLTRACE_REQUIRE_TOOLS").is_none_or(|v| v != "1"),
            "{tool} is not installed and CALLTRACE_REQUIRE_TOOLS=1"
        );
        eprintln!("note: {tool} is not installed; skipping this test");
    }
    found
}

/// `calltrace CMD --rules RULES --trace LOG EXTRA...`, successful.
#[track_caller]
fn with_rules(cmd: &str, rules: &Path, log: &Path, extra: &[&str]) -> Output {
    calltrace([cmd, "--rules"])
        .args([rules, Path::new("--trace"), log])
        .args(extra)
        .run()
        .success()
}

#[test]
fn toppers_log_becomes_one_call_tree_per_task() {
    let out = with_rules(
        "tree",
        &rules("toppers-asp.json"),
        &log("toppers-asp.log"),
        &["--time-unit", "ns"],
    );
    // Times in us from the log, shown in ns: task 4 enters dly_tsk at
    // 11006347 and is still in it when the log ends (11008832); task 2
    // calls sns_ctx twice for 176 us. Task 4's first line leaves a call
    // entered before the log began.
    let expected = "\
[task 4] (0 ns / 2485000 ns)
  dly_tsk (2485000 ns / 2485000 ns)
[task 2] (0 ns / 352000 ns)
  sns_ctx (176000 ns / 176000 ns)
  sns_ctx (176000 ns / 176000 ns)
";
    assert_eq!(out.text(), expected);
    assert!(
        out.stderr.contains("1 exit(s) without a matching entry"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("matched no rule"), "{}", out.stderr);
}

#[test]
fn ftrace_function_graph_becomes_a_call_graph() {
    let (dir, csv) = temp_file("edges.csv", "");
    let dot = dir.path().join("graph.dot");
    let out = calltrace(["graph", "--rules"])
        .args([&rules("ftrace-function-graph.json"), Path::new("--trace")])
        .args([&log("ftrace-function-graph.txt"), Path::new("-o"), &dot])
        .args([Path::new("--csv"), &csv])
        .run()
        .success();
    let rows = csv_rows(&std::fs::read(&csv).unwrap());
    let mut got: Vec<(String, String, String)> =
        rows.into_iter().map(|[a, b, _, t]| (a, b, t)).collect();
    got.sort();
    // Every caller -> callee of the sample, with the callee's printed duration in ns.
    let mut expected: Vec<(String, String, String)> = [
        ("__x64_sys_openat", "do_sys_openat2", 18402),
        ("do_sys_openat2", "getname", 1870),
        ("getname", "getname_flags", 1402),
        ("getname_flags", "kmem_cache_alloc", 345),
        ("getname_flags", "__check_object_size", 210),
        ("do_sys_openat2", "do_filp_open", 15010),
        ("do_filp_open", "path_openat", 14233),
        ("path_openat", "alloc_empty_file", 401),
        ("path_openat", "link_path_walk", 10512),
        ("do_sys_openat2", "putname", 288),
        ("__x64_sys_read", "ksys_read", 122020),
        ("ksys_read", "__fdget_pos", 512),
        ("ksys_read", "vfs_read", 120456),
        ("__x64_sys_close", "__fput", 250),
    ]
    .iter()
    .map(|&(a, b, t)| (a.to_string(), b.to_string(), t.to_string()))
    .collect();
    expected.sort();
    assert_eq!(got, expected);
    assert!(
        std::fs::read_to_string(&dot)
            .unwrap()
            .contains("[label=\"vfs_read\\ntotal ")
    );
    // The interrupt marker is the one line no rule reads.
    assert!(
        out.stderr.contains("1 line(s) of ")
            && out.stderr.contains("first: line 34: ` 0)   ==========> |`"),
        "{}",
        out.stderr
    );
}

#[test]
fn rules_events_flow_into_abstract_and_compare() {
    let ftrace = log("ftrace-function-graph.txt");
    let out = with_rules(
        "abstract",
        &rules("ftrace-function-graph.json"),
        &ftrace,
        &["--threshold", "90%", "-o", "/dev/null"],
    );
    // 18 calls in the sample; every caller keeps its biggest callees.
    assert!(out.text().contains("18 nodes ->"), "{}", out.text());
    let dir = tempfile::tempdir().unwrap();
    let two = dir.path().join("two.log");
    std::fs::write(
        &two,
        b"[10]: dispatch to task 1.\n[20]: enter to slp_tsk.\n[50]: leave to slp_tsk ercd=0.\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    calltrace(["compare", "--rules"])
        .args([&rules("toppers-asp.json"), Path::new("--out-dir"), &out_dir])
        .args([&log("toppers-asp.log"), &two])
        .run()
        .success();
    let rates = std::fs::read_to_string(out_dir.join("rates.csv")).unwrap();
    let befores: Vec<(&str, &str)> = rates
        .lines()
        .skip(1)
        .filter(|l| l.contains(",threshold,"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0], f[3])
        })
        .collect();
    assert_eq!(befores, [("toppers-asp", "3"), ("two", "1")], "{rates}");
}

#[test]
fn tlv_standard_format_is_readable() {
    let (_dir, path) = temp_file(
        "tlv.log",
        "[1000]MAIN_TASK.state=RUNNING\n\
         [1200]MAIN_TASK.enterSVC(dly_tsk, 10)\n\
         [1300]MAIN_TASK.leaveSVC(dly_tsk,ercd=0)\n\
         [1400]Task(id==2).state=RUNNING\n\
         [1500]TASK2.enter(compute)\n\
         [1550]TASK2.enter(helper)\n\
         [1580]TASK2.leave(helper)\n\
         [1900]TASK2.leave(compute)\n\
         [2000]TASK2.preempt()\n",
    );
    let out = with_rules("tree", &rules("tlv.json"), &path, &["--time-unit", "ns"]);
    let expected = "\
[MAIN_TASK] (0 ns / 100 ns)
  dly_tsk (100 ns / 100 ns)
[TASK2] (0 ns / 400 ns)
  compute (370 ns / 400 ns)
    helper (30 ns / 30 ns)
";
    assert_eq!(out.text(), expected);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

/// A program whose calls are known: main -> work x4, work -> leaf x3 each,
/// main -> rec(3), rec -> rec x3.
const PROGRAM: &str = r#"
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < 3; i++) s += leaf(n + i); return s; }
__attribute__((noinline)) int rec(int n) { return n == 0 ? 0 : 1 + rec(n - 1); }
int main(void) { int s = 0; for (int i = 0; i < 4; i++) s += work(i); s += rec(3); printf("%d\n", s); return 0; }
"#;

#[test]
fn uftrace_replay_of_a_recorded_program_becomes_a_call_graph() {
    if !have("uftrace") || !have("gcc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("p.c"), PROGRAM).unwrap();
    let sh = |cmd: &str| {
        let out = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .current_dir(d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    sh("gcc -pg -O0 -fno-inline p.c -o p");
    sh("uftrace record -d data ./p");
    let replay = sh("uftrace replay -d data");
    // An event line, as uftrace prints when the program was pre-empted
    // (a loaded machine), is not a call: put one after the first call.
    let mut lines: Vec<&[u8]> = replay.split_inclusive(|&b| b == b'\n').collect();
    let event: &[u8] = b"  116.662 us [ 27177] |   /* linux:schedule (pre-empted) */\n";
    lines.insert(lines.len().min(3), event);
    std::fs::write(d.join("replay.txt"), lines.concat()).unwrap();
    let g = {
        let csv = d.join("edges.csv");
        let out = calltrace(["graph", "--rules"])
            .args([&rules("uftrace-replay.json"), Path::new("--trace")])
            .args([&d.join("replay.txt"), Path::new("-o"), &d.join("g.dot")])
            .args([Path::new("--csv"), &csv])
            .run()
            .success();
        assert!(!out.stderr.contains("matched no rule"), "{}", out.stderr);
        csv_edges(&std::fs::read(&csv).unwrap())
    };
    for edge in edges(&[
        ("main", "work", 4),
        ("work", "leaf", 12),
        ("main", "rec", 1),
        ("rec", "rec", 3),
    ]) {
        assert!(g.contains(&edge), "{edge:?} missing from {g:?}");
    }
    // main's total is the duration uftrace printed on `} /* main */`.
    let replay = String::from_utf8(replay).unwrap();
    let line = replay
        .lines()
        .find(|l| l.ends_with("} /* main */"))
        .expect("main's exit");
    let mut words = line.split_whitespace();
    let (value, unit) = (words.next().unwrap(), words.next().unwrap());
    assert_eq!(unit, "us", "{line}");
    let ns = (value.parse::<f64>().unwrap() * 1000.0).round() as u64;
    let tree = with_rules(
        "tree",
        &rules("uftrace-replay.json"),
        &d.join("replay.txt"),
        &["--time-unit", "ns"],
    )
    .text();
    let main = tree
        .lines()
        .find(|l| l.starts_with("main ("))
        .expect("main in the tree");
    assert!(main.ends_with(&format!(" / {ns} ns)")), "{main} vs {line}");
}

#[test]
fn bad_rules_name_the_file_rule_and_field() {
    let (dir, bad) = temp_file(
        "bad.json",
        r#"{"rules": [{"regex": "x"}, {"name": "call", "regex": "(?P<f>\\w+)", "emit": [{"kind": "enter", "name": "${g}"}]}]}"#,
    );
    let logf = dir.path().join("a.log");
    std::fs::write(&logf, "main\n").unwrap();
    let msg = calltrace(["tree", "--rules"])
        .args([&bad, Path::new("--trace"), &logf])
        .run()
        .failure();
    assert!(
        msg.contains("bad.json: rule 2 (call): field `emit[0].name`: `${g}`"),
        "{msg}"
    );
    let out = calltrace(["tree", "--format", "addr", "--rules"])
        .args([&bad])
        .run();
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
}
