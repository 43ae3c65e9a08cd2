//! Programs built by clang (`-finstrument-functions` at -O0 and -O2,
//! `-finstrument-functions-after-inlining`, DWARF 4 and 5; C, C++ and
//! zlib from its crate's sources) read like gcc's: the call counts of
//! `graph --csv` equal those of the same program built by gcc, where the
//! two compilers inline alike, and every name is one `nm -C` prints.
//!
//! The runtime is compiled by gcc into an object that clang's objects are
//! linked with: compiled by clang, it records some of its own helpers and
//! warns of dropped events (being fixed in `runtime/calltrace.c`). The
//! tests are skipped without clang, unless `CALLTRACE_REQUIRE_TOOLS=1`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::{
    Edge, ZLIB_FILES, calltrace, compile, fresh_dir, graph, output_within, root, third_party, tool,
    untimed,
};

/// One build of a program and the trace of one run.
struct Traced {
    exe: PathBuf,
    trace: PathBuf,
}

impl Traced {
    fn exe(&self) -> &str {
        self.exe.to_str().expect("UTF-8 path")
    }

    /// The edges of `calltrace graph --csv`, sorted.
    fn edges(&self) -> Vec<Edge> {
        graph(self.exe(), &self.trace).edges()
    }
}

/// The runtime compiled once by gcc (see the module doc).
fn runtime_object() -> &'static Path {
    static OBJ: OnceLock<PathBuf> = OnceLock::new();
    OBJ.get_or_init(|| {
        let obj = fresh_dir("clang", "runtime").join("calltrace.o");
        compile(
            Command::new("gcc")
                .args(["-g", "-O2", "-c"])
                .arg(root().join("runtime/calltrace.c"))
                .arg("-o")
                .arg(&obj),
        );
        obj
    })
}

/// Builds `sources` with `compiler` and `flags` (which name the
/// instrumentation) into `clang/NAME`, linked with the runtime, runs it
/// there and returns the program and its trace.
fn build_and_trace(name: &str, compiler: &str, flags: &[&str], sources: &[PathBuf]) -> Traced {
    let dir = fresh_dir("clang", name);
    let exe = dir.join(name);
    compile(
        Command::new(compiler)
            .arg("-g")
            .args(flags)
            .args(sources)
            .arg(runtime_object())
            .arg("-o")
            .arg(&exe),
    );
    let trace = dir.join("trace.txt");
    let out = output_within(
        Command::new(&exe)
            .current_dir(&dir)
            .env("CALLTRACE_OUT", &trace),
        120,
    );
    assert!(out.status.success(), "{name} failed");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "{name}: the runtime complained"
    );
    Traced { exe, trace }
}

/// clang's path, or None (after a note) to skip.
fn clang() -> Option<PathBuf> {
    tool("clang")
}

fn sources(files: &[&str]) -> Vec<PathBuf> {
    files.iter().map(|f| root().join(f)).collect()
}

const HELLO: &[&str] = &[
    "testdata/hello/main.c",
    "testdata/hello/shapes.c",
    "testdata/hello/util.c",
];

/// The function names `nm -C` gives the program's code.
fn nm_names(exe: &str) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-C", exe])
        .output()
        .expect("run nm");
    assert!(out.status.success(), "nm -C {exe}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, ' ');
            let (_, kind, name) = (f.next()?, f.next()?, f.next()?);
            matches!(kind, "T" | "t" | "W" | "w").then(|| name.to_string())
        })
        .collect()
}

/// Every function of `edges` is named as `nm -C` names it in `exe`.
#[track_caller]
fn assert_nm_names(exe: &str, edges: &[Edge]) {
    let nm = nm_names(exe);
    for (a, b, _) in edges {
        for f in [a, b] {
            assert!(nm.contains(f), "{f} is not a name of `nm -C {exe}`");
        }
    }
}

/// Calls of each function along `edges` (calls into it).
fn calls_per_function(edges: &[Edge]) -> BTreeMap<String, u64> {
    let mut calls = BTreeMap::new();
    for (_, callee, n) in edges {
        *calls.entry(callee.clone()).or_insert(0) += n;
    }
    calls
}

#[test]
fn a_c_program_has_gccs_call_counts_and_nm_names_at_o0_and_o2() {
    if clang().is_none() {
        return;
    }
    for opt in ["-O0", "-O2"] {
        let flags = [opt, "-finstrument-functions"];
        let by_clang = build_and_trace(&format!("hello{opt}"), "clang", &flags, &sources(HELLO));
        let by_gcc = build_and_trace(&format!("hello-gcc{opt}"), "gcc", &flags, &sources(HELLO));
        let edges = by_clang.edges();
        assert_eq!(edges.len(), 16, "{opt}: {edges:?}");
        assert_eq!(edges, by_gcc.edges(), "{opt}");
        assert_nm_names(by_clang.exe(), &edges);
    }
}

#[test]
fn after_inlining_only_calls_left_after_inlining_are_recorded() {
    if clang().is_none() {
        return;
    }
    let o2 = ["-O2", "-finstrument-functions"];
    let by_gcc = build_and_trace("hello-gcc-O2-ref", "gcc", &o2, &sources(HELLO)).edges();
    let after = ["-O2", "-finstrument-functions-after-inlining"];
    let inlined = build_and_trace("hello-after", "clang", &after, &sources(HELLO));
    let edges = inlined.edges();
    assert_nm_names(inlined.exe(), &edges);
    // Inlined calls are gone, never added: each function is called at
    // most as often as in the build that records every call, and some
    // (greet, inlined into main) are not called at all.
    let all = calls_per_function(&by_gcc);
    let left = calls_per_function(&edges);
    for (f, n) in &left {
        assert!(
            all.get(f).is_some_and(|m| n <= m),
            "{f}: {n} calls, gcc {all:?}"
        );
    }
    assert!(left.len() < all.len(), "nothing inlined: {left:?}");
    assert!(!left.contains_key("greet"), "{left:?}");
    // Where nothing is inlined, every call is recorded, as gcc does.
    let no_inline = [
        "-O2",
        "-fno-inline",
        "-finstrument-functions-after-inlining",
    ];
    let whole = build_and_trace("hello-after-noinline", "clang", &no_inline, &sources(HELLO));
    assert_eq!(whole.edges(), by_gcc);
}

#[test]
fn a_cpp_program_has_gccs_call_counts_and_nm_names_at_o0_and_o2() {
    if clang().is_none() || tool("clang++").is_none() {
        return;
    }
    let src = sources(&["testdata/cpp/names.cpp"]);
    for opt in ["-O0", "-O2"] {
        let flags = [opt, "-finstrument-functions"];
        let by_clang = build_and_trace(&format!("names{opt}"), "clang++", &flags, &src);
        let by_gcc = build_and_trace(&format!("names-gcc{opt}"), "g++", &flags, &src);
        let edges = by_clang.edges();
        assert_nm_names(by_clang.exe(), &edges);
        // The compilers name the lambda differently, each as `nm -C` shows it.
        let gcc_names = |e: &Edge| {
            let lambda = "main::$_0::operator()(int) const";
            let b = if e.1 == lambda {
                "main::{lambda(int)#1}::operator()(int) const"
            } else {
                &e.1
            };
            (e.0.clone(), b.to_string(), e.2)
        };
        let mut renamed: Vec<Edge> = edges.iter().map(gcc_names).collect();
        renamed.sort();
        assert_eq!(renamed, by_gcc.edges(), "{opt}");
        assert!(edges.len() >= 30, "{opt}: {edges:?}");
    }
}

#[test]
fn zlib_built_by_clang_at_o2_has_gccs_call_counts() {
    if clang().is_none() {
        return;
    }
    let zlib = third_party("zlib");
    let mut src: Vec<PathBuf> = ZLIB_FILES.iter().map(|f| zlib.join(f)).collect();
    src.push(root().join("testdata/zlib/zround.c"));
    let include = format!("-I{}", zlib.display());
    let flags = ["-O2", "-finstrument-functions", &include];
    let by_clang = build_and_trace("zround", "clang", &flags, &src);
    let by_gcc = build_and_trace("zround-gcc", "gcc", &flags, &src);
    let edges = by_clang.edges();
    assert!(edges.len() >= 60, "{edges:?}");
    assert_eq!(edges, by_gcc.edges());
    assert_nm_names(by_clang.exe(), &edges);
}

#[test]
fn dwarf_4_and_5_give_the_same_names_files_and_lines() {
    if clang().is_none() {
        return;
    }
    let dot = |version: &str| {
        let flags = ["-O0", version, "-finstrument-functions"];
        let t = build_and_trace(&format!("hello{version}"), "clang", &flags, &sources(HELLO));
        let counts = t.trace.with_extension("untimed.txt");
        let text = std::fs::read_to_string(&t.trace).expect("read trace");
        std::fs::write(&counts, untimed(&text)).expect("write trace");
        let out = calltrace(["graph", t.exe(), "-o", "-", "--trace"])
            .args([&counts])
            .run()
            .success();
        out.text()
    };
    let (four, five) = (dot("-gdwarf-4"), dot("-gdwarf-5"));
    assert_eq!(four, five);
    // Files and lines come from DWARF: the symbol table has neither.
    assert!(five.contains("testdata/hello/util.c:34"), "{five}");
}
