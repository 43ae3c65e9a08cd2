//! `diff` and the noise of real runs: a small C program whose `slowed`
//! sleeps 2 ms a call, or 20 ms when `SLOW` is set, beside `steady` (2 ms)
//! and `brief` (0.5 ms), run 5 times a side. What the table and the DOT
//! call a finding is what the flame graph colours; one run a side cannot
//! test time against noise; timed runs are not compared with untimed ones.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

/// Sleeps rather than spins: on a loaded machine a spinning call takes
/// every time slice it loses, a sleeping one only its wake-up latency.
const PROGRAM: &str = r#"
#include <stdlib.h>
#include <time.h>

static __attribute__((no_instrument_function)) void pause_us(long us) {
    struct timespec t = {0, us * 1000};
    nanosleep(&t, NULL);
}

void slowed(void) { pause_us(getenv("SLOW") ? 20000 : 2000); }
void steady(void) { pause_us(2000); }
void brief(void) { pause_us(500); }

int main(void) {
    for (int i = 0; i < 5; i++) {
        slowed();
        steady();
        brief();
    }
    return 0;
}
"#;

struct Runs {
    dir: PathBuf,
}

impl Runs {
    fn side(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// 5 runs of the program as it is (`base`) and with `SLOW` set (`slow`),
/// in alternating rounds.
fn runs() -> &'static Runs {
    static R: OnceLock<Runs> = OnceLock::new();
    R.get_or_init(|| {
        let dir = fresh_dir("diff_noise", "sleeps");
        let exe = build_traced(&dir, "sleeps", PROGRAM, "-O1", &[]);
        for side in ["base", "slow"] {
            std::fs::create_dir_all(dir.join(side)).unwrap();
        }
        for i in 0..5 {
            for side in ["base", "slow"] {
                let trace = dir.join(side).join(format!("run{i}.txt"));
                let mut cmd = Command::new(&exe);
                cmd.env("CALLTRACE_OUT", &trace);
                if side == "slow" {
                    cmd.env("SLOW", "1");
                }
                let out = output_within(&mut cmd, 60);
                assert!(out.status.success(), "{side} run {i}");
            }
        }
        Runs { dir }
    })
}

/// The `fill` of the flame graph frame whose title starts with `name (`.
fn fill_of(svg: &str, name: &str) -> String {
    let at = svg
        .find(&format!("<title>{name} ("))
        .unwrap_or_else(|| panic!("no frame {name}"));
    let rest = &svg[at..];
    let fill = rest.find("fill=\"").expect("a filled rectangle") + 6;
    rest[fill..fill + rest[fill..].find('"').unwrap()].to_string()
}

/// Regression (issue 39): the differential flame graph coloured frames
/// by the change in their share, noise or not, so an unchanged function
/// could be the reddest while the table and the DOT named only the slowed
/// one. Frames whose row is `same` are now neutral; the DOT says `within
/// noise` rather than `same` for a row whose numbers moved.
#[test]
fn the_flame_graph_colours_what_the_table_calls_a_change() {
    let r = runs();
    let (svg, dot, csv) = (
        r.dir.join("d.svg"),
        r.dir.join("d.dot"),
        r.dir.join("d.csv"),
    );
    let out = calltrace(["diff"])
        .args([r.side("base"), r.side("slow")])
        .args(["--flamegraph".as_ref(), svg.as_os_str()])
        .args(["-o".as_ref(), dot.as_os_str()])
        .args(["--by", "context", "--csv"])
        .args([&csv])
        .run()
        .success();
    let table = out.text();
    assert!(table.contains("slower per call  main;slowed"), "{table}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    let red = fill_of(&svg, "slowed");
    assert!(
        red.starts_with("rgb(255,") && red != "rgb(255,250,250)",
        "slowed is red: {red}"
    );
    // Every frame whose row is `same` is neutral (main's always is: its
    // own time is far under --min-change; the others' almost always).
    let rows = csv_column(&csv, "path")
        .into_iter()
        .zip(csv_column(&csv, "change"));
    let mut neutral = Vec::new();
    for (path, change) in rows {
        let function = path.rsplit(';').next().unwrap().to_string();
        if change == "same" {
            assert_eq!(fill_of(&svg, &function), "rgb(250,250,250)", "{function}");
            neutral.push(function);
        }
    }
    assert!(neutral.contains(&"main".to_string()), "{neutral:?}");
    // main's total grew by slowed's change, its own time within noise.
    let dot = std::fs::read_to_string(&dot).unwrap();
    let main = dot.lines().find(|l| l.contains("label=\"main\\n")).unwrap();
    assert!(main.contains("· within noise\""), "{main}");
    assert!(main.contains("fillcolor=\"#ffffff\""), "{main}");
}

fn csv_column(path: &Path, name: &str) -> Vec<String> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let i = r.headers().unwrap().iter().position(|h| h == name).unwrap();
    r.records().map(|rec| rec.unwrap()[i].to_string()).collect()
}

/// Regression (issue 39): one run a side reported noise as `slower per
/// call`. Time changes are now `untested`, said in the table's header and
/// the JSON's `time_tested`; call counts stay exact.
#[test]
fn one_run_a_side_leaves_time_untested_and_says_so() {
    let r = runs();
    let (base, slow) = (
        r.side("base").join("run0.txt"),
        r.side("slow").join("run0.txt"),
    );
    let json = r.dir.join("one.json");
    let out = calltrace(["diff"])
        .args([&base, &slow])
        .args(["--json".as_ref(), json.as_os_str()])
        .run()
        .success();
    let table = out.text();
    assert!(
        table
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("one run on a side"),
        "{table}"
    );
    assert!(table.contains("untested  slowed"), "{table}");
    assert!(!table.contains("slower per call"), "{table}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(doc["time_tested"], false);
    let slowed = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["function"] == "slowed")
        .unwrap();
    assert_eq!(slowed["change"], "untested");
    assert_eq!(
        (slowed["calls_base"].as_u64(), slowed["calls_new"].as_u64()),
        (Some(5), Some(5))
    );
    // Five runs a side test it: the JSON says so.
    let json5 = r.dir.join("five.json");
    calltrace(["diff"])
        .args([r.side("base"), r.side("slow")])
        .args(["--json".as_ref(), json5.as_os_str()])
        .run()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json5).unwrap()).unwrap();
    assert_eq!(doc["time_tested"], true);
}

/// Regression: a timed base against an untimed new run read the base's
/// nanoseconds as calls (`total_base_calls` 110 for 3 calls). Refused.
#[test]
fn timed_runs_are_not_compared_with_untimed_ones() {
    let r = runs();
    let timed = r.side("base").join("run0.txt");
    let text = std::fs::read_to_string(&timed).unwrap();
    let untimed_trace = r.dir.join("untimed.txt");
    std::fs::write(&untimed_trace, untimed(&text)).unwrap();
    let msg = calltrace(["diff"])
        .args([&timed, &untimed_trace])
        .run()
        .failure();
    assert!(
        msg.contains("times (ns)") && msg.contains("calls (it has no timestamps)"),
        "{msg}"
    );
    assert!(msg.contains("untimed.txt"), "{msg}");
    // Both untimed: calls are compared.
    calltrace(["diff"])
        .args([&untimed_trace, &untimed_trace])
        .run()
        .success();
}
