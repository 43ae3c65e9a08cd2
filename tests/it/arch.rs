//! The same programs built for x86-64, armhf (Thumb-2 and A32), arm64 and
//! riscv64 with Debian's cross compilers and run under `qemu-user` give
//! the same `graph --csv` call counts and the same `coverage --csv`
//! statuses as on x86-64: which code calls the entry hook is decoded on
//! every one of them, directly and through the PLT. The programs: bzip2
//! (from the bzip2-sys crate's sources) compressing and decompressing a
//! buffer, linked statically and with libbz2 as a shared library (its
//! hook calls go through its PLT), and a small program whose statuses are
//! known from its source, linked statically and against the runtime as a
//! shared library (the program's hook calls go through its PLT). On armhf
//! bzip2 takes the runtime in the other instruction set (Thumb-2 code
//! calls A32 code with `blx` and back), the small program in its own.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::util::*;

/// One instruction set and how to build for it and run its programs.
struct Target {
    name: &'static str,
    cc: &'static str,
    /// Flags of the program's code.
    flags: &'static [&'static str],
    /// Flags of the runtime linked with bzip2.
    bzip2_runtime: &'static [&'static str],
    /// qemu-user and the sysroot it loads libraries from; None to run natively.
    qemu: Option<(&'static str, &'static str)>,
}

const TARGETS: [Target; 5] = [
    Target {
        name: "x86-64",
        cc: "gcc",
        flags: &[],
        bzip2_runtime: &[],
        qemu: None,
    },
    Target {
        name: "armhf",
        cc: "arm-linux-gnueabihf-gcc",
        flags: &["-mthumb"],
        bzip2_runtime: &["-marm"],
        qemu: Some(("qemu-arm", "/usr/arm-linux-gnueabihf")),
    },
    Target {
        name: "armhf-a32",
        cc: "arm-linux-gnueabihf-gcc",
        flags: &["-marm"],
        bzip2_runtime: &["-mthumb"],
        qemu: Some(("qemu-arm", "/usr/arm-linux-gnueabihf")),
    },
    Target {
        name: "arm64",
        cc: "aarch64-linux-gnu-gcc",
        flags: &[],
        bzip2_runtime: &[],
        qemu: Some(("qemu-aarch64", "/usr/aarch64-linux-gnu")),
    },
    Target {
        name: "riscv64",
        cc: "riscv64-linux-gnu-gcc",
        flags: &[],
        bzip2_runtime: &[],
        qemu: Some(("qemu-riscv64", "/usr/riscv64-linux-gnu")),
    },
];

/// bzip2's library sources.
const BZIP2_FILES: &[&str] = &[
    "blocksort.c",
    "huffman.c",
    "crctable.c",
    "randtable.c",
    "compress.c",
    "decompress.c",
    "bzlib.c",
];

/// A traced run: the program and its trace.
struct Run {
    exe: PathBuf,
    trace: PathBuf,
}

/// One target's runs, by name: `bzip2-static`, `bzip2-shared`,
/// `small-static`, `small-shared`, `small-got` (`-fno-plt`).
type Runs = BTreeMap<&'static str, Run>;

/// The runs of `TARGETS[i]`, built and traced once; None when its
/// compiler or qemu is not installed (a failure under
/// `CALLTRACE_REQUIRE_TOOLS=1`).
fn runs(i: usize) -> Option<&'static Runs> {
    static BUILT: [OnceLock<Option<Runs>>; 5] = [const { OnceLock::new() }; 5];
    BUILT[i].get_or_init(|| build(&TARGETS[i])).as_ref()
}

/// Every target's runs (built in parallel), the ones that can be built.
fn all_runs() -> Vec<(&'static str, &'static Runs)> {
    let built: Vec<Option<&'static Runs>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..TARGETS.len())
            .map(|i| s.spawn(move || runs(i)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("build thread"))
            .collect()
    });
    assert!(built[0].is_some(), "the x86-64 build is the reference");
    TARGETS
        .iter()
        .zip(built)
        .filter_map(|(t, r)| Some((t.name, r?)))
        .collect()
}

fn build(t: &Target) -> Option<Runs> {
    tool(t.cc)?;
    if let Some((qemu, _)) = t.qemu {
        tool(qemu)?;
    }
    let dir = fresh_dir("arch", t.name);
    let bz = third_party("bzip2");
    let cc = |args: Vec<OsString>| {
        compile(
            Command::new(t.cc)
                .current_dir(&dir)
                .args(["-g", "-O2"])
                .args(args),
        );
    };
    let runtime = root().join("runtime/calltrace.c");
    let object = |name: &str, src: &Path, flags: &[&str], instrument: bool| {
        let obj = dir.join(format!("{name}.o"));
        let mut args = os(["-c", "-fPIC", "-I"]);
        args.push(bz.clone().into());
        args.extend(os(flags));
        if instrument {
            args.push("-finstrument-functions".into());
        }
        args.extend([src.into(), "-o".into(), obj.clone().into()]);
        cc(args);
        obj
    };
    let rt_own = object("rt-own", &runtime, t.flags, false);
    let rt_bz = match t.bzip2_runtime == t.flags {
        true => rt_own.clone(),
        false => object("rt-bz", &runtime, t.bzip2_runtime, false),
    };
    let lib: Vec<PathBuf> = BZIP2_FILES
        .iter()
        .map(|f| object(f.trim_end_matches(".c"), &bz.join(f), t.flags, true))
        .collect();
    let data = root().join("testdata/arch");
    let bzbuf = object("bzbuf", &data.join("bzbuf.c"), t.flags, true);
    let small = object("small", &data.join("small.c"), t.flags, true);
    let no_plt: Vec<&str> = t.flags.iter().copied().chain(["-fno-plt"]).collect();
    let small_no_plt = object("small-no-plt", &data.join("small.c"), &no_plt, true);
    let link = |out: &str, objects: &[&Path], extra: &[&str]| {
        let exe = dir.join(out);
        let mut args = os(t.flags);
        args.extend(os(objects));
        args.extend(os(extra));
        args.extend(os(["-pthread".as_ref(), "-o".as_ref(), exe.as_os_str()]));
        cc(args);
        exe
    };
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    let libdir = format!("-L{}", dir.display());
    let mut all: Vec<&Path> = lib.iter().map(PathBuf::as_path).collect();
    link("libbz2.so", &all, &["-shared"]);
    link("libcalltrace.so", &[&rt_own], &["-shared"]);
    let mut runs = Runs::new();
    let bz_shared = link(
        "bzip2-shared",
        &[&bzbuf, &rt_bz],
        &[&libdir, "-lbz2", &rpath],
    );
    all.extend([bzbuf.as_path(), rt_bz.as_path()]);
    let bz_static = link("bzip2-static", &all, &["-static"]);
    let small_static = link("small-static", &[&small, &rt_own], &["-static"]);
    let small_shared = link("small-shared", &[&small], &[&libdir, "-lcalltrace", &rpath]);
    let small_got = link(
        "small-got",
        &[&small_no_plt],
        &[&libdir, "-lcalltrace", &rpath],
    );
    for (name, exe, out) in [
        ("bzip2-static", bz_static, "20000 -> "),
        ("bzip2-shared", bz_shared, "20000 -> "),
        ("small-static", small_static, "30 31\n"),
        ("small-shared", small_shared, "30 31\n"),
        ("small-got", small_got, "30 31\n"),
    ] {
        let trace = dir.join(format!("{name}.txt"));
        let mut cmd = match t.qemu {
            Some((qemu, sysroot)) => {
                let mut c = Command::new(qemu);
                c.arg("-L").arg(sysroot).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        let run = output_within(cmd.env("CALLTRACE_OUT", &trace), 120);
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && stdout.contains(out),
            "{} {name}: {stdout}{}",
            t.name,
            String::from_utf8_lossy(&run.stderr)
        );
        runs.insert(name, Run { exe, trace });
    }
    Some(runs)
}

/// Command-line arguments.
fn os<S: AsRef<OsStr>>(items: impl IntoIterator<Item = S>) -> Vec<OsString> {
    items.into_iter().map(|s| s.as_ref().to_owned()).collect()
}

/// The calls of each caller -> callee edge.
fn call_counts(run: &Run) -> Vec<Edge> {
    graph(run.exe.to_str().expect("a UTF-8 path"), &run.trace).edges()
}

/// What `coverage --csv` says of each function whose source file is one
/// of ours (function and file name -> status), and of the runtime's.
struct Statuses {
    program: BTreeMap<(String, String), String>,
    runtime: BTreeMap<String, String>,
    /// The summary's last line without the count of functions not
    /// instrumented (the C library's differ): instrumented, called,
    /// never called and called %.
    totals: Vec<String>,
}

fn statuses(run: &Run, dir: &Path, target: &str) -> Statuses {
    let csv = dir.join(format!("{target}.csv"));
    let out = calltrace([
        "coverage".as_ref(),
        run.exe.as_os_str(),
        run.trace.as_os_str(),
    ])
    .args(["--csv".as_ref(), csv.as_os_str()])
    .run()
    .success();
    let totals = out.text().lines().last().unwrap_or("").to_string();
    let mut s = Statuses {
        program: BTreeMap::new(),
        runtime: BTreeMap::new(),
        totals: totals
            .split_whitespace()
            .enumerate()
            .filter(|&(i, _)| i != 4)
            .map(|(_, t)| t.to_string())
            .collect(),
    };
    let mut r = csv::Reader::from_path(&csv).expect("coverage wrote the CSV");
    for rec in r.records() {
        let rec = rec.expect("a CSV record");
        let file = Path::new(&rec[1])
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (name, status) = (rec[0].to_string(), rec[5].to_string());
        if file == "calltrace.c" {
            s.runtime.insert(name, status);
        } else if BZIP2_FILES.contains(&file.as_str()) || ["bzbuf.c", "small.c"].contains(&&*file) {
            s.program.insert((name, file), status);
        }
    }
    s
}

/// Checks that each target's `kind` run has x86-64's call counts and
/// statuses, and that no runtime function counts as instrumented; returns
/// x86-64's statuses.
fn same_as_x86_64(kind: &str) -> Statuses {
    let all = all_runs();
    let dir = fresh_dir("arch", &format!("{kind}-outputs"));
    let reference = &all[0].1[kind];
    let (counts, want) = (call_counts(reference), statuses(reference, &dir, all[0].0));
    assert!(counts.len() >= 2, "{counts:?}");
    for (target, runs) in &all[1..] {
        let run = &runs[kind];
        assert_eq!(call_counts(run), counts, "{target} {kind}: call counts");
        let got = statuses(run, &dir, target);
        assert_eq!(got.program, want.program, "{target} {kind}: statuses");
        assert_eq!(got.totals, want.totals, "{target} {kind}: totals");
        assert_eq!(
            got.runtime.is_empty(),
            want.runtime.is_empty(),
            "{target} {kind}: the runtime is listed where it is linked in"
        );
        not_instrumented(&got.runtime, target, kind);
    }
    not_instrumented(&want.runtime, all[0].0, kind);
    want
}

/// Checks that the runtime's functions count as not instrumented.
#[track_caller]
fn not_instrumented(runtime: &BTreeMap<String, String>, target: &str, kind: &str) {
    assert!(
        runtime.values().all(|s| s == "not instrumented"),
        "{target} {kind}: the runtime's functions are not instrumented: {runtime:?}"
    );
}

/// The status of each function of testdata/arch/small.c.
fn small_statuses() -> BTreeMap<(String, String), String> {
    [
        ("main", "called"),
        ("sum_squares", "called"),
        ("square", "called"),
        ("never", "never called"),
        ("plain", "not instrumented"),
    ]
    .iter()
    .map(|&(f, s)| ((f.to_string(), "small.c".to_string()), s.to_string()))
    .collect()
}

#[test]
fn bzip2_linked_statically_counts_and_covers_alike_on_every_architecture() {
    let want = same_as_x86_64("bzip2-static");
    assert!(want.runtime.len() > 10, "{:?}", want.runtime);
    let called = want.program.values().filter(|s| *s == "called").count();
    let never = want
        .program
        .values()
        .filter(|s| *s == "never called")
        .count();
    assert!(called > 20 && never > 5, "{:?}", want.program);
    assert!(
        want.program.values().all(|s| s != "not instrumented"),
        "{:?}",
        want.program
    );
}

/// libbz2.so calls the hook, defined in the executable, through its PLT.
#[test]
fn bzip2_with_a_shared_libbz2_counts_and_covers_alike_on_every_architecture() {
    let want = same_as_x86_64("bzip2-shared");
    assert!(
        want.program.values().all(|s| s != "not instrumented"),
        "{:?}",
        want.program
    );
}

#[test]
fn a_small_programs_statuses_are_its_sources_on_every_architecture() {
    let want = same_as_x86_64("small-static");
    assert_eq!(want.program, small_statuses());
    assert!(want.runtime.len() > 10, "{:?}", want.runtime);
}

/// The runtime is a shared library: the program calls the hook through its PLT.
#[test]
fn a_small_program_calling_the_hook_through_its_plt_is_covered_on_every_architecture() {
    assert_eq!(same_as_x86_64("small-shared").program, small_statuses());
}

/// Bare-metal ELF32 programs (no C library, not run): RV32 with the
/// compressed `c.jal` that linker relaxation makes of a call, RV32 with
/// `-mno-relax`'s `auipc`+`jalr` pairs, and a Thumb-only Cortex-M3. A
/// hand-written trace calls `main` and `leaf` at their symbols' addresses
/// (odd for Thumb, as the hook's `this_fn` is).
#[test]
fn bare_metal_elf32_programs_are_covered_from_their_code() {
    let variants: [(&str, &str, &[&str]); 3] = [
        (
            "rv32-relaxed",
            "riscv64-linux-gnu-gcc",
            &["-march=rv32imac", "-mabi=ilp32"],
        ),
        (
            "rv32-no-relax",
            "riscv64-linux-gnu-gcc",
            &["-march=rv32imac", "-mabi=ilp32", "-mno-relax"],
        ),
        (
            "cortex-m3",
            "arm-linux-gnueabihf-gcc",
            &["-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"],
        ),
    ];
    let data = root().join("testdata/arch");
    for (name, cc, flags) in variants {
        if tool(cc).is_none() {
            continue;
        }
        let dir = fresh_dir("arch", name);
        let (obj, exe) = (dir.join("bare.o"), dir.join("bare"));
        let base = ["-g", "-Os", "-nostdlib", "-static"];
        compile(
            Command::new(cc)
                .args(base)
                .args(flags)
                .args(["-finstrument-functions", "-c"])
                .arg(data.join("bare.c"))
                .arg("-o")
                .arg(&obj),
        );
        compile(
            Command::new(cc)
                .args(base)
                .args(flags)
                .arg(&obj)
                .arg(data.join("bare-hooks.c"))
                .arg("-o")
                .arg(&exe),
        );
        let bytes = std::fs::read(&exe).unwrap();
        let elf = object::File::parse(&*bytes).expect("an ELF file");
        assert!(!object::Object::is_64(&elf), "{name}: ELF32");
        let addr = |f: &str| {
            object::Object::symbols(&elf)
                .find(|s| object::ObjectSymbol::name(s) == Ok(f))
                .map(|s| object::ObjectSymbol::address(&s))
                .unwrap_or_else(|| panic!("{name}: no symbol {f}"))
        };
        let (main, leaf) = (addr("main"), addr("leaf"));
        let trace = dir.join("trace.txt");
        std::fs::write(
            &trace,
            format!("E{main:#x}\nE{leaf:#x}\nX{leaf:#x}\nX{main:#x}\n"),
        )
        .unwrap();
        let csv = dir.join("coverage.csv");
        calltrace(["coverage".as_ref(), exe.as_os_str(), trace.as_os_str()])
            .args(["--csv".as_ref(), csv.as_os_str()])
            .run()
            .success();
        let mut got = BTreeMap::new();
        for rec in csv::Reader::from_path(&csv).unwrap().records() {
            let rec = rec.unwrap();
            got.insert(rec[0].to_string(), rec[5].to_string());
        }
        let want: BTreeMap<String, String> = [
            ("main", "called"),
            ("leaf", "called"),
            ("never", "never called"),
            ("plain", "not instrumented"),
            ("__cyg_profile_func_enter", "not instrumented"),
            ("__cyg_profile_func_exit", "not instrumented"),
            ("_start", "not instrumented"),
        ]
        .iter()
        .map(|&(f, s)| (f.to_string(), s.to_string()))
        .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// Built with `-fno-plt`, the program calls the hook through its GOT
/// slot (x86-64's `call *slot(%rip)`, AArch64's `adrp`+`ldr`+`blr`;
/// Arm and RISC-V keep the PLT).
#[test]
fn a_small_program_calling_the_hook_through_its_got_is_covered_on_every_architecture() {
    assert_eq!(same_as_x86_64("small-got").program, small_statuses());
}

/// A trace without its header and `# map` lines (pvtrace's format) of a
/// position-independent program: the load bias is inferred from the
/// addresses, which are odd for Thumb functions as the symbols are, and
/// the calls come out as on x86-64.
#[test]
fn headerless_traces_of_pie_programs_count_alike_on_every_architecture() {
    let all = all_runs();
    let bare = |run: &Run| {
        let text = std::fs::read_to_string(&run.trace).unwrap();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        let path = run.trace.with_extension("headerless.txt");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        graph(run.exe.to_str().unwrap(), &path)
    };
    let want = bare(&all[0].1["small-shared"]).edges();
    assert_eq!(
        want,
        edges(&[("main", "sum_squares", 1), ("sum_squares", "square", 4)])
    );
    for (target, runs) in &all[1..] {
        let got = bare(&runs["small-shared"]);
        assert_eq!(got.edges(), want, "{target}: {}", got.stderr);
    }
}
