//! Per-object symbols on real programs: zlib built from its own sources as
//! an instrumented shared object and called from testdata/zlib/zround.c,
//! and testdata/cppstl, optimised C++ (STL, templates, lambdas, virtual
//! calls, two file-static `twice(int)`), and xz's liblzma as a shared
//! object driven by testdata/xz/xzround.c (copies of its headers' `static
//! inline` helpers in many files). The runtime records the mappings
//! of every loaded object, so names come from the executable, libz.so and
//! libstdc++.so; every name must be one
//! `nm -C` prints for those objects, and at least 99.9% of calls named.
//! Also: moved objects (--search-path), build-id mismatches, traces
//! without mappings, stripped and damaged binaries, and the demangler
//! against `nm -C` on every symbol of libstdc++.so.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

/// Whether `tool` runs; when it does not, a note is printed and the test
/// skips, unless CALLTRACE_REQUIRE_TOOLS=1 makes that a failure.
fn have(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CALLTRACE_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "{tool} is required (CALLTRACE_REQUIRE_TOOLS=1); install binutils"
        );
        eprintln!("note: {tool} not found, skipping");
    }
    ok
}

/// Where these programs and traces go (left behind for inspection).
fn work_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("symbols");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create target/tmp/symbols");
        dir
    })
}

#[track_caller]
fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// A traced program: its executable, the objects whose names count, its
/// text trace, the same without the `# map` lines, and a binary trace.
struct Traced {
    exe: PathBuf,
    objects: Vec<PathBuf>,
    trace: PathBuf,
    plain: PathBuf,
    binary: PathBuf,
}

impl Traced {
    fn exe(&self) -> &str {
        self.exe.to_str().expect("UTF-8 path")
    }

    /// Runs the program with the runtime, in both formats.
    fn record(exe: PathBuf, objects: Vec<PathBuf>, stdout: &str) -> Traced {
        Traced::record_with(exe, &[], objects, stdout)
    }

    /// [`Traced::record`] with arguments for the program.
    fn record_with(exe: PathBuf, args: &[&Path], objects: Vec<PathBuf>, stdout: &str) -> Traced {
        let trace = exe.with_extension("trace.txt");
        let binary = exe.with_extension("trace.bin");
        for (path, format) in [(&trace, "text"), (&binary, "binary")] {
            let out = run(Command::new(&exe)
                .args(args)
                .env("CALLTRACE_OUT", path)
                .env("CALLTRACE_FORMAT", format));
            assert_eq!(out, stdout);
        }
        let text = std::fs::read_to_string(&trace).expect("trace");
        assert!(text.contains("\n# map 0x"), "the runtime records mappings");
        let plain = exe.with_extension("plain.txt");
        let without: String = text
            .lines()
            .filter(|l| !l.starts_with("# map "))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&plain, without).expect("write trace");
        Traced {
            exe,
            objects,
            trace,
            plain,
            binary,
        }
    }
}

/// zlib's library sources (no gz*.c: file I/O is not exercised).
const ZROUND_OUT: &str = "bytes=19954 compress2=2180 deflate=1751 crc=907a247a\n";

/// zround linked against zlib built as an instrumented libz.so (-O2).
fn zlib() -> &'static Traced {
    static T: OnceLock<Traced> = OnceLock::new();
    T.get_or_init(|| {
        let src = run(Command::new(root().join("scripts/third-party.sh")).arg("zlib"));
        let src = PathBuf::from(src.trim());
        let dir = work_dir().join("zlib");
        std::fs::create_dir_all(&dir).unwrap();
        let lib = dir.join("libz.so");
        run(Command::new("gcc")
            .args([
                "-O2",
                "-g",
                "-fPIC",
                "-shared",
                "-finstrument-functions",
                "-I",
            ])
            .arg(&src)
            .args(ZLIB_FILES.iter().map(|f| src.join(f)))
            .arg("-o")
            .arg(&lib));
        let exe = dir.join("zround");
        run(Command::new("gcc")
            .args(["-g", "-finstrument-functions", "-I"])
            .arg(&src)
            .arg(root().join("testdata/zlib/zround.c"))
            .arg(root().join("runtime/calltrace.c"))
            .arg("-L")
            .arg(&dir)
            .arg("-lz")
            .arg(format!("-Wl,-rpath,{}", dir.display()))
            .arg("-o")
            .arg(&exe));
        Traced::record(exe.clone(), vec![exe, lib], ZROUND_OUT)
    })
}

/// xz's sources (the lzma-sys crate) and the liblzma.so and xzround
/// built from them, traced.
struct Xz {
    src: PathBuf,
    lib_dir: PathBuf,
    traced: Traced,
}

const XZROUND_OUT: &str = "test files: 21 good decoded, 37 bad rejected, 0 wrong
preset 0, 1 thread(s): 4096 -> 1100 bytes
preset 6, 1 thread(s): 4096 -> 904 bytes
preset 1, 2 thread(s): 16384 -> 3900 bytes
";

impl Xz {
    /// xz's own test files, which xzround decodes.
    fn test_files(&self) -> PathBuf {
        self.src.join("tests/files")
    }
}

/// liblzma built as an instrumented shared object (-O2, the files and
/// flags of lzma-sys's build script), and testdata/xz/xzround.c linked
/// against it, traced in both formats.
fn xz() -> &'static Xz {
    static T: OnceLock<Xz> = OnceLock::new();
    T.get_or_init(|| {
        let src = run(Command::new(root().join("scripts/third-party.sh")).arg("xz"));
        let src = PathBuf::from(src.trim());
        let lzma = src.join("src/liblzma");
        let mut files: Vec<PathBuf> = [
            "common",
            "lzma",
            "lz",
            "check",
            "delta",
            "rangecoder",
            "simple",
        ]
        .iter()
        .flat_map(|d| std::fs::read_dir(lzma.join(d)).expect("liblzma sources"))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            p.extension().is_some_and(|e| e == "c")
                && !stem.ends_with("_small")
                && !stem.ends_with("_tablegen")
        })
        .collect();
        files.extend(
            ["tuklib_cpucores.c", "tuklib_physmem.c"].map(|f| src.join("src/common").join(f)),
        );
        files.sort();
        let dir = work_dir().join("xz");
        std::fs::create_dir_all(&dir).unwrap();
        let lib = dir.join("liblzma.so");
        let mut cc = Command::new("gcc");
        cc.args([
            "-O2",
            "-g",
            "-fPIC",
            "-shared",
            "-finstrument-functions",
            "-std=c99",
            "-pthread",
        ])
        .arg("-DHAVE_CONFIG_H=1");
        for d in [
            "api",
            "lzma",
            "lz",
            "check",
            "simple",
            "delta",
            "common",
            "rangecoder",
        ] {
            cc.arg("-I").arg(lzma.join(d));
        }
        cc.arg("-I").arg(src.join("src/common"));
        cc.arg("-I")
            .arg(src.parent().expect("the crate's directory"));
        run(cc.args(&files).arg("-o").arg(&lib));
        let exe = dir.join("xzround");
        run(Command::new("gcc")
            .args(["-g", "-finstrument-functions", "-I"])
            .arg(lzma.join("api"))
            .arg(root().join("testdata/xz/xzround.c"))
            .arg(root().join("runtime/calltrace.c"))
            .arg("-L")
            .arg(&dir)
            .arg("-llzma")
            .arg(format!("-Wl,-rpath,{}", dir.display()))
            .arg("-o")
            .arg(&exe));
        let files = src.join("tests/files");
        let traced = Traced::record_with(exe.clone(), &[&files], vec![exe, lib], XZROUND_OUT);
        Xz {
            src,
            lib_dir: dir,
            traced,
        }
    })
}

const CPPSTL_OUT: &str = "total=186 big=2 circles=3 rects=1\na=7 b=105\n";

/// testdata/cppstl built with g++ -O2.
fn cppstl() -> &'static Traced {
    static T: OnceLock<Traced> = OnceLock::new();
    T.get_or_init(|| {
        let exe = work_dir().join("cppstl");
        let mut cmd = Command::new("g++");
        cmd.args(["-O2", "-g", "-finstrument-functions"]);
        for f in ["main.cpp", "a.cpp", "b.cpp"] {
            cmd.arg(root().join("testdata/cppstl").join(f));
        }
        run(cmd
            .arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe));
        let libstdcxx = run(Command::new("g++").arg("-print-file-name=libstdc++.so.6"));
        let libstdcxx = std::fs::canonicalize(libstdcxx.trim()).expect("libstdc++.so.6");
        Traced::record(exe.clone(), vec![exe, libstdcxx], CPPSTL_OUT)
    })
}

/// Every function name `nm -C` prints for `objects` (.symtab and .dynsym).
fn nm_names(objects: &[PathBuf]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for o in objects {
        for dynamic in [false, true] {
            let mut cmd = Command::new("nm");
            cmd.args(["-C", "--defined-only"]);
            if dynamic {
                cmd.arg("-D");
            }
            let out = cmd.arg(o).output().expect("run nm");
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                // "ADDR T NAME", NAME may hold spaces; strip @VERSION.
                let mut parts = line.splitn(3, ' ');
                let (_, kind, name) = (parts.next(), parts.next(), parts.next());
                if matches!(kind, Some("T" | "t" | "W" | "w" | "i"))
                    && let Some(name) = name
                {
                    names.insert(name.split('@').next().unwrap_or(name).to_string());
                }
            }
        }
    }
    names
}

/// Calls per callee name in a graph's CSV (callers' own calls included
/// through their callers; roots are not counted).
fn calls_by_callee(g: &Graph) -> BTreeMap<String, u64> {
    let mut calls = BTreeMap::new();
    for (_, callee, n) in g.edges() {
        *calls.entry(callee).or_insert(0) += n;
    }
    calls
}

/// The name without a `[file]` / `[0xaddr]` suffix that tells functions apart.
fn bare(name: &str) -> &str {
    match name.rfind(" [") {
        Some(i) if name.ends_with(']') => &name[..i],
        _ => name,
    }
}

/// Asserts >= 99.9% of calls named and every name one of `nm -C`'s; returns (named, all).
#[track_caller]
fn check_names(t: &Traced, g: &Graph) -> (u64, u64) {
    let calls = calls_by_callee(g);
    let all: u64 = calls.values().sum();
    let hex: u64 = calls
        .iter()
        .filter(|(n, _)| n.starts_with("0x"))
        .map(|(_, c)| c)
        .sum();
    assert!(
        (all - hex) * 1000 >= all * 999,
        "{hex} of {all} calls unnamed:\n{}",
        g.stderr
    );
    let nm = nm_names(&t.objects);
    let foreign: Vec<&String> = calls
        .keys()
        .filter(|n| !n.starts_with("0x") && !nm.contains(bare(n)))
        .collect();
    assert!(
        foreign.is_empty(),
        "names nm -C does not print: {foreign:#?}"
    );
    (all - hex, all)
}

#[test]
fn zlib_as_an_instrumented_shared_object_is_named_like_nm() {
    if !have("nm") {
        return;
    }
    let t = zlib();
    // No BINARY: the trace names the executable, and the maps the library.
    let g = graph("", &t.trace);
    let (named, all) = check_names(t, &g);
    eprintln!("zlib: {named} of {all} calls named");
    let edges = g.edges();
    for (caller, callee) in [
        ("round_trip", "compress2"),
        ("round_trip", "uncompress"),
        ("compress2", "compress2_z"),
        ("compress2_z", "deflateInit_"),
        ("streamed", "deflate"),
        ("main", "crc32"),
    ] {
        assert!(
            edges.iter().any(|(a, b, _)| a == caller && b == callee),
            "{caller} -> {callee} missing"
        );
    }
    assert!(!g.stderr.contains("warning"), "{}", g.stderr);
    // The same names with BINARY, from the binary trace's map records, and
    // in tree, abstract and compare.
    assert_eq!(graph(t.exe(), &t.trace).csv, g.csv);
    assert_eq!(graph("", &t.binary).edges(), g.edges());
    let text = tree("", &t.trace, &[]);
    assert!(
        text.contains("\n    compress2 (") && !text.contains("0x"),
        "{text}"
    );
    let dir = tempfile::tempdir().unwrap();
    calltrace(["abstract", "--threshold", "0.9", "--trace"])
        .args([&t.trace])
        .args(["--tree-out".as_ref(), dir.path().join("a.txt").as_os_str()])
        .run()
        .success();
    let abstracted = std::fs::read_to_string(dir.path().join("a.txt")).unwrap();
    assert!(abstracted.starts_with("main ("), "{abstracted}");
    calltrace(["compare", "--out-dir"])
        .args([dir.path().join("cmp").as_os_str(), t.trace.as_os_str()])
        .run()
        .success();
    let features = std::fs::read_to_string(dir.path().join("cmp/rates.csv")).unwrap();
    assert!(features.lines().count() > 1, "{features}");
}

#[test]
fn optimised_cpp_is_named_like_nm_and_same_named_statics_stay_apart() {
    if !have("nm") {
        return;
    }
    let t = cppstl();
    let g = graph("", &t.trace);
    let (named, all) = check_names(t, &g);
    eprintln!("cppstl: {named} of {all} calls named");
    let calls = calls_by_callee(&g);
    assert_eq!(calls.get("twice(int) [a.cpp]"), Some(&1), "{calls:#?}");
    assert_eq!(calls.get("twice(int) [b.cpp]"), Some(&1));
    assert!(!calls.contains_key("twice(int)"));
    // Virtual calls through Shape: three of each kind.
    assert_eq!(calls.get("geo::Rect::area() const"), Some(&3));
    assert_eq!(calls.get("geo::Circle::area() const"), Some(&3));
    assert_eq!(
        calls.get("double geo::total<double>(std::vector<double, std::allocator<double> > const&)"),
        Some(&1)
    );
    assert!(
        calls
            .keys()
            .any(|n| n.starts_with("main::{lambda(double, double)#1}::operator()")),
        "lambdas are named"
    );
    // Full C++ names make a graph several screens wide: a hint says so.
    assert!(
        g.stderr
            .contains("characters; --demangle simple draws them"),
        "{}",
        g.stderr
    );
    // Out-of-line std::string code in libstdc++.so is named from its .dynsym.
    assert!(
        g.stderr.is_empty() || !g.stderr.contains("did not resolve"),
        "{}",
        g.stderr
    );

    let simple = tree("", &t.trace, &["--demangle", "simple"]);
    assert!(simple.contains("  geo::make_shapes ("), "{simple}");
    assert!(simple.contains("twice [a.cpp] (") && simple.contains("twice [b.cpp] ("));
    assert!(
        simple
            .lines()
            .all(|l| !l.contains('<') || l.contains("operator<")),
        "no template arguments in simple names"
    );
    // Simple names as uftrace shows them: the instances of a global
    // template (std::vector<T>::begin for several T) are one function,
    // one row of the CSV.
    let csv = calltrace([
        "graph",
        "--demangle",
        "simple",
        "-o",
        "/dev/null",
        "--csv",
        "-",
    ])
    .args(["--trace".as_ref(), t.trace.as_os_str()])
    .run()
    .success()
    .text();
    let rows: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with("main,std::vector::begin,"))
        .collect();
    assert_eq!(rows.len(), 1, "{csv}");
    let pairs: Vec<(&str, &str)> = csv
        .lines()
        .filter_map(|l| {
            let mut f = l.split(',');
            Some((f.next()?, f.next()?))
        })
        .collect();
    let distinct: BTreeSet<&(&str, &str)> = pairs.iter().collect();
    assert_eq!(
        distinct.len(),
        pairs.len(),
        "one row per caller and callee:\n{csv}"
    );
    let none = tree("", &t.trace, &["--demangle", "none"]);
    assert!(none.contains("  _ZN3geo11make_shapesEi ("), "{none}");
    assert!(none.contains("_ZL5twicei [a.cpp]") && none.contains("_ZL5twicei [b.cpp]"));
}

/// liblzma's headers define `static inline` helpers (`mf_ptr`,
/// `read32le`, ...) that every file using them gets a copy of, all with
/// the header as their source file: each copy is named by the file it was
/// compiled from, the same in every run (whatever address the library is
/// loaded at) and in both trace formats.
#[test]
fn copies_of_a_real_librarys_header_statics_keep_one_name_from_run_to_run() {
    let x = xz();
    let t = &x.traced;
    let g = graph("", &t.trace);
    check_names(t, &g);
    let calls = calls_by_callee(&g);
    let copies: BTreeSet<&str> = calls
        .keys()
        .filter(|n| bare(n) == "mf_ptr")
        .map(String::as_str)
        .collect();
    let expected = [
        "mf_ptr [lz_encoder_mf.c]",
        "mf_ptr [lzma_encoder_optimum_fast.c]",
        "mf_ptr [lzma_encoder_optimum_normal.c]",
    ];
    assert_eq!(copies, BTreeSet::from(expected), "{calls:#?}");
    assert!(
        calls.keys().all(|n| !n.contains(" [0x")),
        "copies named by address: {calls:#?}"
    );
    // Another run loads liblzma.so elsewhere; the binary trace too.
    let again = t.exe.with_extension("again.txt");
    run(Command::new(&t.exe)
        .arg(x.test_files())
        .env("CALLTRACE_OUT", &again));
    for other in [&again, &t.binary] {
        let other = calls_by_callee(&graph("", other));
        let suffixed = |c: &BTreeMap<String, u64>| -> Vec<(String, u64)> {
            c.iter()
                .filter(|(n, _)| bare(n) != n.as_str())
                .map(|(n, k)| (n.clone(), *k))
                .collect()
        };
        assert_eq!(suffixed(&other), suffixed(&calls));
        assert!(suffixed(&calls).len() >= 30, "{calls:#?}");
    }
}

/// The same library against uftrace: every copy called as often as uftrace
/// counts, told apart the same way. (Single-threaded: how often the
/// two-thread encoder's threads wait for each other differs from run to
/// run.)
#[test]
fn every_function_of_liblzma_is_called_as_often_as_uftrace_counts() {
    if !have("uftrace") {
        return;
    }
    let x = xz();
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(root().join("scripts/compare-uftrace.sh"));
    cmd.env("CALLTRACE", BIN)
        .arg("--dir")
        .arg(dir.path())
        .args(["gcc", "-O2", "-I"])
        .arg(x.src.join("src/liblzma/api"))
        .arg(root().join("testdata/xz/xzround.c"))
        .arg("-L")
        .arg(&x.lib_dir)
        .arg("-llzma")
        .arg(format!("-Wl,-rpath,{}", x.lib_dir.display()))
        .arg("--")
        .arg(x.test_files())
        .arg("1");
    let out = cmd.output().expect("run compare-uftrace.sh");
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!("liblzma: {out}");
    let summary = out.lines().last().expect("summary line");
    let (same, rest) = summary
        .strip_prefix("agree: ")
        .and_then(|s| s.split_once(" of "))
        .expect("agree: N of N functions, ...");
    assert!(rest.starts_with(&format!("{same} functions")), "{out}");
    assert!(same.parse::<u32>().unwrap() > 150, "{out}");
    let total = rest.split(' ').nth(2).expect("N calls");
    assert!(
        rest.ends_with(&format!("(calltrace {total}, uftrace {total})")),
        "{out}"
    );
    let counts = std::fs::read_to_string(dir.path().join("uftrace.counts")).unwrap();
    assert!(
        counts.contains("mf_ptr [lzma_encoder_optimum_normal.c]\t"),
        "{counts}"
    );
}

/// GCC gives a recursive function of a -fPIC library a local alias at the
/// same address (`fib.localalias`), which its calls within the library
/// go to: the function keeps its own name, as uftrace and addr2line give it.
#[test]
fn a_local_alias_of_a_library_function_is_not_its_name() {
    if !have("nm") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (lib, main) = (dir.path().join("fib.c"), dir.path().join("main.c"));
    std::fs::write(
        &lib,
        "int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n",
    )
    .unwrap();
    std::fs::write(
        &main,
        "#include <stdio.h>\nint fib(int);\nint main(void) { printf(\"%d\\n\", fib(5)); return 0; }\n",
    )
    .unwrap();
    let so = dir.path().join("libfib.so");
    run(Command::new("gcc")
        .args(["-O2", "-g", "-fPIC", "-shared", "-finstrument-functions"])
        .arg(&lib)
        .arg("-o")
        .arg(&so));
    let symbols = run(Command::new("nm").arg(&so));
    assert!(symbols.contains(" t fib.localalias\n"), "{symbols}");
    let exe = dir.path().join("app");
    run(Command::new("gcc")
        .args(["-g", "-finstrument-functions"])
        .arg(&main)
        .arg(root().join("runtime/calltrace.c"))
        .arg("-L")
        .arg(dir.path())
        .arg("-lfib")
        .arg(format!("-Wl,-rpath,{}", dir.path().display()))
        .arg("-o")
        .arg(&exe));
    let trace = dir.path().join("trace.txt");
    assert_eq!(run(Command::new(&exe).env("CALLTRACE_OUT", &trace)), "5\n");
    let calls = calls_by_callee(&graph("", &trace));
    // fib(5) makes 15 calls of fib.
    assert_eq!(calls, BTreeMap::from([("fib".to_string(), 15)]));
}

#[test]
fn moved_and_rebuilt_objects() {
    let t = zlib();
    let text = std::fs::read_to_string(&t.trace).unwrap();
    let lib = &t.objects[1];
    let lib_path = lib.to_str().unwrap();
    assert!(text.contains(lib_path), "the trace maps libz.so");
    let moved = text.replace(lib_path, "/elsewhere/libz.so");
    let (dir, path) = temp_file("moved.txt", &moved);
    // Not found: named by object and file offset (the same in every run,
    // unlike the process address) and one warning saying how to point at
    // a copy.
    let g = graph("", &path);
    assert!(
        g.stderr.contains(
            "warning: /elsewhere/libz.so: not found; its functions are named by file offset, \
             libz.so+0x... (--search-path DIR finds a copy named libz.so)"
        ),
        "{}",
        g.stderr
    );
    let unnamed: Vec<String> = calls_by_callee(&g)
        .into_keys()
        .filter(|n| n.starts_with("libz.so+0x"))
        .collect();
    assert!(unnamed.len() >= 5, "{unnamed:?}");
    assert!(
        calls_by_callee(&g).keys().all(|n| !n.starts_with("0x")),
        "{:?}",
        calls_by_callee(&g)
    );
    // A copy in a search directory.
    let copies = dir.path().join("copies");
    std::fs::create_dir(&copies).unwrap();
    std::fs::copy(lib, copies.join("libz.so")).unwrap();
    let found = calltrace(["graph", "-o", "-", "--search-path"])
        .args([copies.as_os_str(), "--trace".as_ref(), path.as_os_str()])
        .run()
        .success();
    let reference = calltrace(["graph", "-o", "-", "--trace"])
        .args([&t.trace])
        .run()
        .success();
    assert_eq!(found.stdout, reference.stdout);
    assert!(!found.stderr.contains("warning"), "{}", found.stderr);
    // Another build of it in a search directory while the traced one is
    // still in place: the one with the traced build-id names.
    let rebuilt = dir.path().join("rebuilt");
    std::fs::create_dir(&rebuilt).unwrap();
    std::fs::copy(&t.exe, rebuilt.join("libz.so")).unwrap();
    let kept = calltrace(["graph", "-o", "-", "--search-path"])
        .args([rebuilt.as_os_str(), "--trace".as_ref(), t.trace.as_os_str()])
        .run()
        .success();
    assert_eq!(kept.stdout, reference.stdout);
    assert!(!kept.stderr.contains("warning"), "{}", kept.stderr);
    // A different build-id: refused naming both, or with --allow-mismatch
    // one warning naming both.
    let line = text
        .lines()
        .find(|l| l.starts_with("# map") && l.ends_with(lib_path))
        .unwrap();
    let id = line.split(' ').nth(5).unwrap();
    assert_eq!(id.len(), 40, "a GNU build-id: {line}");
    let other = "0".repeat(40);
    let (_d, path) = temp_file("rebuilt.txt", text.replace(id, &other));
    let both = format!("build-id {id} differs from the traced {lib_path}'s {other}");
    let msg = calltrace(["graph", "-o", "-", "--trace"])
        .args([&path])
        .run()
        .failure();
    assert!(
        msg.contains(&both) && msg.contains("--allow-mismatch"),
        "{msg}"
    );
    let allowed = calltrace(["graph", "-o", "-", "--allow-mismatch", "--trace"])
        .args([&path])
        .run()
        .success();
    assert_eq!(
        allowed.stderr.matches(&both).count(),
        1,
        "{}",
        allowed.stderr
    );
    assert_eq!(allowed.stdout, reference.stdout);
}

#[test]
fn without_maps_library_calls_stay_hex_with_one_warning() {
    let t = zlib();
    let text = std::fs::read_to_string(&t.plain).unwrap();
    for trace in [untimed(&text), headerless(&text)] {
        let (_d, path) = temp_file("pvtrace.txt", &trace);
        let g = graph(t.exe(), &path);
        let calls = calls_by_callee(&g);
        let hex: u64 = calls
            .iter()
            .filter(|(n, _)| n.starts_with("0x"))
            .map(|(_, c)| c)
            .sum();
        let all: u64 = calls.values().sum::<u64>() + 1; // + main
        let funcs = calls.keys().filter(|n| n.starts_with("0x")).count();
        assert!(hex > 0 && calls.contains_key("round_trip"), "{calls:#?}");
        let warning = format!(
            "warning: {hex} of {all} call(s) ({funcs} function(s)) are at addresses outside the binary, \
             in shared libraries, and keep hex names: record the trace with calltrace's runtime"
        );
        assert!(
            g.stderr.contains(&warning),
            "{}\nwanted {warning}",
            g.stderr
        );
        assert_eq!(g.stderr.matches("warning").count(), 1, "{}", g.stderr);
    }
}

/// Overwrites the byte at `offset` of section `name` in a copy of `exe`.
fn damaged(exe: &Path, dir: &Path, name: &str, offset: u64, value: u8) -> PathBuf {
    use object::{Object, ObjectSection};
    let mut bytes = std::fs::read(exe).unwrap();
    let at = {
        let file = object::File::parse(&*bytes).unwrap();
        let section = file.section_by_name(name).expect("section");
        section.file_range().expect("in the file").0 + offset
    };
    bytes[at as usize] = value;
    let out = dir.join(name.trim_start_matches('.'));
    std::fs::write(&out, bytes).unwrap();
    out
}

#[test]
fn damaged_debug_information_falls_back_to_the_symbol_table() {
    let p = hello_pie();
    let trace = &p.text_trace().path;
    let reference = graph(p.exe(), trace);
    let dir = tempfile::tempdir().unwrap();
    // The address size of the first unit: 7 bytes in, for DWARF 5 (10 in .debug_aranges).
    for (section, offset) in [(".debug_info", 7), (".debug_aranges", 10)] {
        let bad = damaged(Path::new(p.exe()), dir.path(), section, offset, 3);
        let g = graph(bad.to_str().unwrap(), trace);
        assert_eq!(
            g.edges(),
            reference.edges(),
            "{section}: names from .symtab"
        );
        let warning = format!("{}: cannot read debug information (", bad.display());
        assert_eq!(
            g.stderr.matches(&warning).count(),
            1,
            "{section}: {}",
            g.stderr
        );
    }
}

#[test]
fn a_stripped_binary_is_said_to_have_no_symbols() {
    if !have("strip") {
        return;
    }
    let p = hello_pie();
    let dir = tempfile::tempdir().unwrap();
    let stripped = dir.path().join("hello");
    run(Command::new("strip").arg(p.exe()).arg("-o").arg(&stripped));
    let g = graph(stripped.to_str().unwrap(), &p.text_trace().path);
    assert!(
        g.stderr.contains(&format!(
            "warning: {} has no symbols (stripped?): its functions keep addresses for names",
            stripped.display()
        )),
        "{}",
        g.stderr
    );
    // Addresses in the executable, by file offset: the same in every run
    // of the PIE, wherever it was loaded.
    // (The recorded executable's name: the same whatever BINARY is called.)
    let recorded = format!(
        "{}+0x",
        Path::new(p.exe()).file_name().unwrap().to_str().unwrap()
    );
    let edges = g.edges();
    assert!(
        edges
            .iter()
            .all(|(a, b, _)| a.starts_with(&recorded) && b.starts_with(&recorded)),
        "{edges:?}"
    );
}

/// Mangled names of `object`'s defined symbols and `nm -C`'s names for
/// them, paired by position (`nm -p` keeps the table order).
fn nm_pairs(object: &Path, dynamic: bool) -> Vec<(String, String)> {
    let list = |demangle: bool| -> Vec<String> {
        let mut cmd = Command::new("nm");
        cmd.args(["-p", "--defined-only"]);
        if dynamic {
            cmd.arg("-D");
        }
        if demangle {
            cmd.arg("-C");
        }
        run(cmd.arg(object))
            .lines()
            .map(|l| {
                let name = l.splitn(3, ' ').nth(2).unwrap_or("");
                name.split('@').next().unwrap_or(name).to_string()
            })
            .collect()
    };
    let (raw, demangled) = (list(false), list(true));
    assert_eq!(raw.len(), demangled.len());
    raw.into_iter()
        .zip(demangled)
        .filter(|(r, _)| r.starts_with("_Z"))
        .collect()
}

#[test]
fn every_libstdcxx_and_program_symbol_demangles_like_nm() {
    use calltrace::symbols::{Demangle, demangle};
    if !have("nm") || !have("c++filt") {
        return;
    }
    let t = cppstl();
    let mut pairs = nm_pairs(&t.objects[1], true);
    pairs.extend(nm_pairs(&t.exe, false));
    pairs.sort();
    pairs.dedup();
    assert!(pairs.len() > 5000, "a large corpus: {}", pairs.len());
    let wrong: Vec<_> = pairs
        .iter()
        .filter(|(raw, nm)| demangle(raw, Demangle::Full) != *nm)
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} differ: {wrong:#?}",
        wrong.len(),
        pairs.len()
    );
    // c++filt differs from nm -C only by spelling out std::string and the
    // like (its verbose option); count it for the record.
    let input: String = pairs.iter().map(|(r, _)| format!("{r}\n")).collect();
    let (_d, path) = temp_file("names.txt", input);
    let filt = run(Command::new("sh")
        .arg("-c")
        .arg(format!("c++filt < '{}'", path.display())));
    let same = filt
        .lines()
        .zip(&pairs)
        .filter(|(f, (_, nm))| f == nm)
        .count();
    eprintln!(
        "demangling: {} of {} names equal nm -C; c++filt agrees with nm -C on {same}",
        pairs.len() - wrong.len(),
        pairs.len()
    );
}

#[test]
fn compare_uftrace_script_agrees_with_uftrace_on_hello() {
    if !have("uftrace") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(root().join("scripts/compare-uftrace.sh"));
    cmd.env("CALLTRACE", BIN)
        .arg("--dir")
        .arg(dir.path())
        .arg("gcc");
    for f in ["main.c", "shapes.c", "util.c"] {
        cmd.arg(root().join("testdata/hello").join(f));
    }
    let out = run(&mut cmd);
    // testdata/hello/main.c: 12 functions, 25 calls.
    assert_eq!(
        out,
        "agree: 12 of 12 functions, 25 calls (calltrace 25, uftrace 25)\n"
    );
}

/// Optimised C++: uftrace's demangled names differ from `nm -C`'s
/// (anonymous namespaces, lambdas, ABI tags), so the script matches
/// functions by linkage name, and the two file-static `twice(int)` by file.
#[test]
fn every_function_of_optimised_cpp_is_called_as_often_as_uftrace_counts() {
    if !have("uftrace") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(root().join("scripts/compare-uftrace.sh"));
    cmd.env("CALLTRACE", BIN)
        .arg("--dir")
        .arg(dir.path())
        .args(["g++", "-O2"]);
    for f in ["main.cpp", "a.cpp", "b.cpp"] {
        cmd.arg(root().join("testdata/cppstl").join(f));
    }
    // Exit status 0: every function's count agrees (`run` asserts it).
    let out = run(&mut cmd);
    eprintln!("cppstl -O2: {out}");
    let summary = out.lines().last().expect("summary line");
    let (funcs, calls) = summary
        .strip_prefix("agree: ")
        .and_then(|s| s.split_once(" functions, "))
        .expect("agree: N of N functions, ...");
    let (same, all) = funcs.split_once(" of ").expect("N of N");
    assert_eq!(same, all, "{out}");
    assert!(all.parse::<u32>().unwrap() > 200, "{out}");
    let total = calls.split(' ').next().unwrap();
    assert!(
        calls.ends_with(&format!("(calltrace {total}, uftrace {total})")),
        "{out}"
    );
    // uftrace's own report merges the two statics; here they stay apart.
    let counts = std::fs::read_to_string(dir.path().join("uftrace.counts")).unwrap();
    for file in ["a.cpp", "b.cpp"] {
        let line = format!("_ZL5twicei [{file}]\t");
        assert!(counts.contains(&line), "{counts}");
    }
}

#[test]
fn live_names_library_functions_from_the_mappings() {
    use calltrace::live::Monitor;
    let t = zlib();
    let text = std::fs::read(&t.trace).unwrap();
    // Without BINARY, fed in two pieces (the header's mappings come first).
    let mut m = Monitor::new(None);
    let cut = text.len() / 2
        + text[text.len() / 2..]
            .iter()
            .position(|&b| b == b'\n')
            .unwrap()
        + 1;
    m.feed(&text[..cut]).unwrap();
    m.feed(&text[cut..]).unwrap();
    m.end_interval(1.0);
    let snap = m.snapshot(100);
    let names: Vec<&str> = snap
        .top_overall
        .iter()
        .map(|(n, _, _)| n.as_str())
        .collect();
    assert!(
        names.contains(&"deflate") && names.contains(&"main"),
        "{names:?}"
    );
    assert!(names.iter().all(|n| !n.starts_with("0x")), "{names:?}");
    assert_eq!(snap.problem, None);
}

/// A static function's name does not depend on which of its namesakes a
/// run calls: a library with a `static helper` in each of two files,
/// driven so that one run calls one copy, another run the other, a third
/// both. Each copy keeps its file's suffix in every run, so `compare`
/// sees the same function in every pattern. The program has a `static
/// helper` of its own too: it keeps its suffix in a run that calls the
/// library but none of the library's copies (bzip2's `myfeof`, in the
/// program and in libbz2.so, was named alike by the object only).
#[test]
fn a_static_keeps_its_suffix_in_runs_that_call_only_one_of_its_namesakes() {
    let dir = work_dir().join("namesakes");
    std::fs::create_dir_all(&dir).unwrap();
    let unit = |name: &str, k: u32| {
        let path = dir.join(format!("{name}.c"));
        let text = format!(
            "static int helper(int x) {{ return x * {k}; }}\nint {name}_api(int x) {{ return helper(x) + 1; }}\n\
             int {name}_plain(int x) {{ return x - 1; }}\n"
        );
        std::fs::write(&path, text).unwrap();
        path
    };
    let (a, b) = (unit("a", 2), unit("b", 3));
    let lib = dir.join("libpair.so");
    run(Command::new("gcc")
        .args(["-O0", "-g", "-fPIC", "-shared", "-finstrument-functions"])
        .args([&a, &b])
        .arg("-o")
        .arg(&lib));
    let main = dir.join("main.c");
    std::fs::write(
        &main,
        "#include <stdio.h>\n#include <string.h>\nint a_api(int); int b_api(int); int a_plain(int);\n\
         static int helper(int x) { return x + 5; }\n\
         int main(int argc, char **argv) {\n  int s = 0;\n\
         if (strchr(argv[1], 'a')) s += a_api(1);\n  if (strchr(argv[1], 'b')) s += b_api(1);\n\
         if (strchr(argv[1], 'm')) s += helper(1);\n  if (strchr(argv[1], 'p')) s += a_plain(1);\n\
         printf(\"%d\\n\", s);\n  return 0;\n}\n",
    )
    .unwrap();
    let exe = dir.join("pair");
    run(Command::new("gcc")
        .args(["-g", "-finstrument-functions"])
        .arg(&main)
        .arg(root().join("runtime/calltrace.c"))
        .arg("-L")
        .arg(&dir)
        .arg("-lpair")
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-o")
        .arg(&exe));
    let helpers = |which: &str| -> BTreeSet<String> {
        let trace = dir.join(format!("{which}.txt"));
        run(Command::new(&exe).arg(which).env("CALLTRACE_OUT", &trace));
        calls_by_callee(&graph("", &trace))
            .into_keys()
            .filter(|n| n.starts_with("helper"))
            .collect()
    };
    let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(helpers("a"), set(&["helper [a.c]"]));
    assert_eq!(helpers("b"), set(&["helper [b.c]"]));
    assert_eq!(helpers("ab"), set(&["helper [a.c]", "helper [b.c]"]));
    assert_eq!(helpers("mp"), set(&["helper [main.c]"]));
    assert_eq!(helpers("ma"), set(&["helper [a.c]", "helper [main.c]"]));
}

/// `--demangle simple` names a template's instances alike and they count
/// as one function, also when one instance is local to its unit (for a
/// type of an anonymous namespace) and when the library's link made its
/// functions local (`-fvisibility=hidden`): no `[0x...]` or `[unit]`
/// suffix splits them. Two `static` functions of one name in two files
/// stay apart.
#[test]
fn simple_names_of_local_instances_and_hidden_functions_stay_one() {
    let dir = work_dir().join("simple");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let lib_src = write(
        "lib.cpp",
        "namespace api {\nint put(int x) { return x + 1; }\nint put(double x) { return (int)x + 2; }\n\
         static int twice(int x) { return 2 * x; }\n}\n\
         __attribute__((visibility(\"default\"))) int run_lib(int x) { return api::put(x) + api::put(1.5) + api::twice(x); }\n",
    );
    let other = write(
        "other.cpp",
        "namespace api { static int twice(int x) { return x << 1; } }\n\
         __attribute__((visibility(\"default\"))) int run_other(int x) { return api::twice(x); }\n",
    );
    let lib = dir.join("libsimple.so");
    run(Command::new("g++")
        .args(["-O1", "-g", "-fPIC", "-shared", "-fvisibility=hidden"])
        .arg("-finstrument-functions")
        .args([&lib_src, &other])
        .arg("-o")
        .arg(&lib));
    let main = write(
        "main.cpp",
        "#include <cstdio>\n#include <vector>\nint run_lib(int); int run_other(int);\n\
         namespace { struct Point { int x, y; }; }\n\
         int main() {\n  std::vector<int> v{1, 2, 3};\n  std::vector<Point> p{{1, 2}};\n\
         std::printf(\"%d\\n\", (int)(v.size() + p.size()) + run_lib(1) + run_other(2));\n  return 0;\n}\n",
    );
    let rt = dir.join("calltrace.o");
    run(Command::new("gcc")
        .args(["-O2", "-c"])
        .arg(root().join("runtime/calltrace.c"))
        .arg("-o")
        .arg(&rt));
    let exe = dir.join("simple");
    run(Command::new("g++")
        .args(["-O0", "-g", "-finstrument-functions"])
        .arg(&main)
        .arg(&rt)
        .arg("-L")
        .arg(&dir)
        .arg("-lsimple")
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-o")
        .arg(&exe));
    let trace = dir.join("trace.txt");
    run(Command::new(&exe).env("CALLTRACE_OUT", &trace));
    let names = |style: &str| -> BTreeSet<String> {
        tree("", &trace, &["--view", "contexts", "--demangle", style])
            .lines()
            .map(|l| l.trim_start().split(" (").next().unwrap_or("").to_string())
            .collect()
    };
    let simple = names("simple");
    let has = |n: &str| simple.contains(n);
    assert!(has("std::vector::vector"), "{simple:#?}");
    assert!(has("api::put"), "{simple:#?}");
    assert!(
        has("api::twice [lib.cpp]") && has("api::twice [other.cpp]"),
        "{simple:#?}"
    );
    let suffixed: Vec<&String> = simple
        .iter()
        .filter(|n| n.ends_with(']') && !n.starts_with("api::twice ["))
        .collect();
    assert!(suffixed.is_empty(), "{suffixed:#?}");
    let full = names("full");
    assert!(
        full.contains("api::put(int)") && full.contains("api::put(double)"),
        "{full:#?}"
    );
}

/// A library of the trace given as BINARY is refused with what to give
/// instead, not as a trace that does not match.
#[test]
fn a_library_given_as_binary_is_named_as_one() {
    let t = zlib();
    let lib = &t.objects[1];
    let msg = calltrace(["graph", "-o", "-"])
        .args([lib.as_os_str(), "--trace".as_ref(), t.trace.as_os_str()])
        .run()
        .failure();
    assert!(
        msg.contains("a library the trace loaded, not its executable")
            && msg.contains(&format!("give the executable ({})", t.exe())),
        "{msg}"
    );
}
