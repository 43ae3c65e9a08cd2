//! The Lua profiler example (examples/lua-profiler): built from the lua-src
//! crate's Lua 5.4 sources, it traces testdata/lua/prog.lua through
//! calltrace.h, and `graph` / `tree --view contexts` show the script's own
//! functions as NAME@FILE:LINE with the calls the script makes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::{self, root};

/// examples/lua-profiler/build.sh's luaprof, built once per test run into
/// target/tmp/luaprof (the Lua objects stay there between runs). None when
/// the Lua sources cannot be fetched and CALLTRACE_REQUIRE_TOOLS is not 1.
fn luaprof() -> Option<&'static Path> {
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("luaprof");
        let fetch = Command::new(root().join("scripts/third-party.sh"))
            .arg("lua")
            .output()
            .expect("run scripts/third-party.sh");
        if !fetch.status.success() {
            assert!(
                std::env::var_os("CALLTRACE_REQUIRE_TOOLS").is_none_or(|v| v != "1"),
                "no Lua sources and CALLTRACE_REQUIRE_TOOLS=1: {}",
                String::from_utf8_lossy(&fetch.stderr)
            );
            eprintln!("note: scripts/third-party.sh lua failed; skipping the Lua tests");
            return None;
        }
        let build = Command::new(root().join("examples/lua-profiler/build.sh"))
            .arg(&out)
            .env("CALLTRACE", util::BIN)
            .output()
            .expect("run examples/lua-profiler/build.sh (needs gcc)");
        assert!(
            build.status.success(),
            "build.sh failed:\n{}",
            String::from_utf8_lossy(&build.stderr)
        );
        Some(out.join("luaprof"))
    })
    .as_deref()
}

/// What one luaprof run did.
struct Run {
    trace: PathBuf,
    code: i32,
    stdout: String,
    stderr: String,
    _dir: tempfile::TempDir,
}

/// Runs `luaprof SCRIPT` in `dir` (so names carry SCRIPT as written).
fn profile(exe: &Path, dir: &Path, script: &str) -> Run {
    let tmp = tempfile::tempdir().expect("temp dir");
    let trace = tmp.path().join("lua.trace");
    let out = Command::new(exe)
        .arg(script)
        .current_dir(dir)
        .env("CALLTRACE_OUT", &trace)
        .env_remove("CALLTRACE_FORMAT")
        .output()
        .expect("run luaprof");
    Run {
        trace,
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        _dir: tmp,
    }
}

/// testdata/lua/prog.lua, profiled once.
fn prog() -> Option<&'static Run> {
    static RUN: OnceLock<Option<Run>> = OnceLock::new();
    RUN.get_or_init(|| {
        let run = profile(luaprof()?, &root().join("testdata/lua"), "prog.lua");
        assert_eq!(run.stderr, "");
        assert_eq!(run.code, 0);
        assert_eq!(run.stdout, "55\n45\tfalse\ndone!\nTHE QUICK BROWN FOX\n6\n");
        Some(run)
    })
    .as_ref()
}

#[test]
fn graph_shows_the_scripts_functions_with_their_calls() {
    let Some(run) = prog() else { return };
    let graph = util::graph("", &run.trace);
    let (main, fib) = ("main chunk@prog.lua:0", "fib@prog.lua:5");
    let (new, deposit, withdraw) = (
        "new@prog.lua:13",
        "deposit@prog.lua:17",
        "withdraw@prog.lua:21",
    );
    // shout is only ever tail-called, which leaves Lua without its name.
    let (count_down, shout) = (
        "count_down@prog.lua:30",
        "function <prog.lua:26>@prog.lua:26",
    );
    let (words, producer, body) = (
        "words@prog.lua:35",
        "producer@prog.lua:41",
        "function <prog.lua:58>@prog.lua:58",
    );
    let expected = util::edges(&[
        // fib(10) makes 177 calls: one from the chunk, 176 recursive.
        (main, fib, 1),
        (fib, fib, 176),
        (main, "[C] print", 5),
        (main, new, 1),
        (new, "[C] setmetatable", 1),
        (main, deposit, 2),
        (main, withdraw, 1),
        (main, "[C] pcall", 1),
        ("[C] pcall", withdraw, 1),
        (withdraw, "[C] error", 1),
        // count_down(3) tail-calls itself 3 times, then shout.
        (main, count_down, 1),
        (count_down, count_down, 3),
        (count_down, shout, 1),
        // 4 words: gmatch's iterator runs 5 times (the last ends the loop).
        (main, words, 1),
        (words, "[C] gmatch", 1),
        (words, "[C] for iterator", 5),
        (words, "[C] upper", 4),
        (main, "[C] concat", 1),
        // The coroutine runs in 3 slices, each ended by a yield.
        (main, "[C] wrap", 1),
        (main, "[C] gen", 3),
        ("[C] gen", body, 3),
        (body, producer, 3),
        (producer, "[C] yield", 3),
    ]);
    assert_eq!(graph.edges(), expected);
    // The DOT nodes carry the calls of each function.
    for (name, calls) in [(fib, 177), (count_down, 4), (withdraw, 2)] {
        let label = format!("[label=\"{name}\\n");
        let node = graph.dot.lines().find(|l| l.contains(&label));
        let node = node.unwrap_or_else(|| panic!("no node {name}:\n{}", graph.dot));
        assert!(node.contains(&format!("\\n{calls}×\"")), "{node}");
    }
}

#[test]
fn contexts_nest_recursion_tail_calls_errors_and_coroutines() {
    let Some(run) = prog() else { return };
    let tree = util::tree("", &run.trace, &["--view", "contexts", "-o", "-"]);
    let shape = util::shape(&tree);
    let lines: Vec<&str> = shape.lines().collect();
    assert_eq!(lines[0], "main chunk@prog.lua:0", "{shape}");
    // fib(10): one context per recursion depth (fib(10) down to fib(1)),
    // 177 calls in all.
    let fibs: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.trim_start().starts_with("fib@prog.lua:5"))
        .collect();
    assert_eq!(fibs.len(), 10, "{shape}");
    let calls: u64 = fibs
        .iter()
        .map(|l| l.rsplit_once(" x").map_or(1, |(_, n)| n.parse().unwrap()))
        .sum();
    assert_eq!(calls, 177, "{shape}");
    let rest: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.trim_start().starts_with("fib@"))
        .collect();
    let expected = [
        "main chunk@prog.lua:0",
        "  [C] print x5",
        "  new@prog.lua:13",
        "    [C] setmetatable",
        "  deposit@prog.lua:17 x2",
        "  withdraw@prog.lua:21",
        "  [C] pcall",
        "    withdraw@prog.lua:21",
        "      [C] error",
        "  count_down@prog.lua:30",
        "    count_down@prog.lua:30",
        "      count_down@prog.lua:30",
        "        count_down@prog.lua:30",
        "          function <prog.lua:26>@prog.lua:26",
        "  words@prog.lua:35",
        "    [C] gmatch",
        "    [C] for iterator x5",
        "    [C] upper x4",
        "  [C] concat",
        "  [C] wrap",
        "  [C] gen x3",
        "    function <prog.lua:58>@prog.lua:58 x3",
        "      producer@prog.lua:41 x3",
        "        [C] yield x3",
    ];
    assert_eq!(rest, expected, "{shape}");
}

#[test]
fn a_script_error_closes_the_open_frames_and_exits_1() {
    let Some(exe) = luaprof() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("err.lua"),
        "local function inner() error(\"boom\") end\n\
         local function outer() inner() end\n\
         outer()\n",
    )
    .unwrap();
    let run = profile(exe, dir.path(), "err.lua");
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr, "luaprof: err.lua:1: boom\n");
    let tree = util::tree("", &run.trace, &["-o", "-"]);
    // Error unwinding has no return events: luaprof closes the frames.
    assert_eq!(
        util::shape(&tree).trim_end(),
        "main chunk@err.lua:0\n  outer@err.lua:2\n    inner@err.lua:1\n      [C] error"
    );
}

#[test]
fn luaprof_without_a_script_prints_its_usage() {
    let Some(exe) = luaprof() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let out = Command::new(exe)
        .current_dir(dir.path())
        .output()
        .expect("run luaprof");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "usage: luaprof script.lua [args]\n"
    );
}
