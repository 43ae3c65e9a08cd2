//! `--object FILE[@ADDRESS]`: objects the trace does not record. A
//! program and a shared library built with `gcc -finstrument-functions`,
//! traced by the runtime; the program prints the library's load base
//! (`dladdr`). The same trace without its `#` lines (a format without
//! maps, as pvtrace's) names the library's functions only when the library
//! is named with that base, and then exactly as its `# map` line did.
//! And firmware on the emulated Cortex-M3 (`board`) calling a ROM linked
//! apart from it: the ROM's functions are named from its ELF at its link
//! addresses.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::board::{self, Recipe};
use super::util::{
    build_traced, calltrace, compile, csv_edges, edges, fresh_dir, headerless, output_within,
    untimed,
};

/// A library of two instrumented functions and a static one, which says
/// where the loader put it.
const LIB: &str = r#"#define _GNU_SOURCE
#include <dlfcn.h>

static int lib_twice(int x) { return 2 * x; }

int lib_square(int x) { return x * x; }

int lib_sum(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += lib_square(i) + lib_twice(i);
    return s;
}

/* Where the loader put this library: the load base --object takes. */
__attribute__((no_instrument_function)) void *lib_base(void)
{
    Dl_info info;
    return dladdr((void *)lib_twice, &info) ? info.dli_fbase : 0;
}
"#;

/// The program: `main` calls `work` twice, which calls the library.
const MAIN: &str = r#"#include <stdio.h>

int lib_sum(int n);
void *lib_base(void);

static int work(int n) { return lib_sum(n); }

int main(void)
{
    fprintf(stderr, "lib base %p\n", lib_base());
    printf("%d\n", work(4) + work(3));
    return 0;
}
"#;

/// The edges of the run, the library's functions named.
const NAMED: &[(&str, &str, u64)] = &[
    ("lib_sum", "lib_square", 7),
    ("lib_sum", "lib_twice", 7),
    ("main", "work", 2),
    ("work", "lib_sum", 2),
];

/// One traced run: the program, its library, the trace and the
/// library's load base as the program printed it.
struct Run {
    exe: PathBuf,
    lib: PathBuf,
    trace: PathBuf,
    base: String,
}

/// The library and program built and run once per test run.
fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = fresh_dir("object_flag", "lib");
        std::fs::write(dir.join("shape.c"), LIB).unwrap();
        let lib = dir.join("libshape.so");
        compile(
            Command::new("gcc")
                .current_dir(&dir)
                .args(["-g", "-O0", "-fPIC", "-shared", "-finstrument-functions"])
                .args(["shape.c", "-o"])
                .arg(&lib)
                .arg("-ldl"),
        );
        let rpath = format!("-Wl,-rpath,{}", dir.display());
        let exe = build_traced(&dir, "app", MAIN, "-O0", &["-L.", "-lshape", &rpath]);
        let out = output_within(Command::new(&exe).current_dir(&dir), 60);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "37\n");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let base = stderr
            .lines()
            .find_map(|l| l.strip_prefix("lib base "))
            .unwrap_or_else(|| panic!("no load base in {stderr}"))
            .to_string();
        Run {
            exe,
            lib,
            trace: dir.join("trace.txt"),
            base,
        }
    })
}

/// `text` written beside the run's trace as `name`.
fn trace_file(name: &str, text: &str) -> PathBuf {
    let path = run().trace.with_file_name(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The run's trace untimed, with its `# map` lines, and without any `#`
/// line (no maps: the library's addresses are outside the executable).
fn traces() -> (PathBuf, PathBuf) {
    let text = std::fs::read_to_string(&run().trace).unwrap();
    (
        trace_file("maps.txt", &untimed(&text)),
        trace_file("bare.txt", &headerless(&text)),
    )
}

/// What `calltrace graph EXE --trace TRACE EXTRA...` wrote: the DOT, the
/// CSV's edges (sorted) and stderr.
fn graph(trace: &Path, extra: &[&str]) -> (String, Vec<(String, String, u64)>, String) {
    let dir = tempfile::tempdir().unwrap();
    let (dot, csv) = (dir.path().join("g.dot"), dir.path().join("g.csv"));
    let mut args: Vec<OsString> = vec!["graph".into(), run().exe.clone().into()];
    args.extend(["--trace".into(), trace.into()]);
    args.extend(["--min-total", "0", "--min-edge", "0"].map(Into::into));
    args.extend([
        "-o".into(),
        dot.clone().into(),
        "--csv".into(),
        csv.clone().into(),
    ]);
    args.extend(extra.iter().map(Into::into));
    let out = calltrace(args).run().success();
    let mut edges = csv_edges(&std::fs::read(&csv).unwrap());
    edges.sort();
    (std::fs::read_to_string(&dot).unwrap(), edges, out.stderr)
}

fn named() -> Vec<(String, String, u64)> {
    NAMED
        .iter()
        .map(|&(a, b, n)| (a.to_string(), b.to_string(), n))
        .collect()
}

/// `lib` at `base` as `--object` takes it.
fn object(lib: &Path, base: &str) -> String {
    format!("{}@{base}", lib.display())
}

#[test]
fn a_library_of_a_trace_without_maps_is_named_at_its_load_base_as_its_map_line_names_it() {
    let (maps, bare) = traces();
    let (map_dot, map_edges, _) = graph(&maps, &[]);
    assert_eq!(map_edges, named());

    let (_, hex, stderr) = graph(&bare, &[]);
    let hex_callees = hex.iter().filter(|e| e.1.starts_with("0x")).count();
    assert_eq!(hex_callees, 3, "{hex:?}");
    assert!(stderr.contains("outside the binary"), "{stderr}");

    let lib = object(&run().lib, &run().base);
    let (dot, edges, stderr) = graph(&bare, &["--object", &lib]);
    assert_eq!(edges, named(), "{stderr}");
    assert_eq!(
        dot, map_dot,
        "the same names, files and lines as through the map"
    );
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_decimal_load_base_names_as_the_hex_one() {
    let (_, bare) = traces();
    let hex = run().base.trim_start_matches("0x");
    let decimal = u64::from_str_radix(hex, 16).unwrap().to_string();
    let lib = object(&run().lib, &decimal);
    let (_, edges, stderr) = graph(&bare, &["--object", &lib]);
    assert_eq!(edges, named(), "{stderr}");
}

#[test]
fn an_object_at_a_wrong_address_names_nothing_and_says_so() {
    let (_, bare) = traces();
    // Far above the library: no traced address falls in it.
    let lib = object(&run().lib, "0x10000000000");
    let (_, edges, stderr) = graph(&bare, &["--object", &lib]);
    assert_eq!(edges.iter().filter(|e| e.1.starts_with("0x")).count(), 3);
    let line = stderr
        .lines()
        .find(|l| l.contains("no address of the trace falls in it"))
        .unwrap_or_else(|| panic!("no warning in {stderr}"));
    assert!(line.contains("--object"), "{line}");
    assert!(line.contains(&lib), "{line}");
}

/// The error of `graph EXE --trace bare.txt` with `extra`.
fn refused(extra: &[&str]) -> String {
    let (_, bare) = traces();
    let mut args = vec!["graph", run().exe.to_str().unwrap(), "--trace"];
    args.extend([bare.to_str().unwrap(), "-o", "-"]);
    args.extend(extra);
    let out = calltrace(args).run();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    out.stderr
}

#[test]
fn unusable_objects_are_refused_naming_the_flag_the_file_and_what_was_expected() {
    let lib = run().lib.to_str().unwrap();
    let at = |file: &str| object(Path::new(file), &run().base);
    let text = trace_file("not-elf.so", "not an object\n");
    let text = text.to_str().unwrap();
    let cases = [
        (
            at("/nonexistent/libgone.so"),
            "/nonexistent/libgone.so",
            "cannot open it",
        ),
        (at(text), text, "not an ELF file"),
        (lib.to_string(), lib, "expected FILE@ADDRESS"),
        (format!("{lib}@0xzz"), lib, "expected FILE or FILE@ADDRESS"),
        (format!("{lib}@"), lib, "expected FILE or FILE@ADDRESS"),
    ];
    for (arg, file, expected) in cases {
        let stderr = refused(&["--object", &arg]);
        assert!(stderr.contains("--object"), "{arg}: {stderr}");
        assert!(stderr.contains(file), "{arg}: {stderr}");
        assert!(stderr.contains(expected), "{arg}: {stderr}");
    }
}

#[test]
fn objects_overlapping_each_other_or_the_executable_are_refused() {
    let lib = run().lib.to_str().unwrap();
    let base = u64::from_str_radix(run().base.trim_start_matches("0x"), 16).unwrap();
    let twice = [
        "--object",
        &object(Path::new(lib), &run().base),
        "--object",
        &object(Path::new(lib), &format!("{:#x}", base + 0x1000)),
    ];
    let stderr = refused(&twice);
    assert!(stderr.contains("--object: "), "{stderr}");
    assert!(stderr.matches(lib).count() >= 2, "{stderr}");
    assert!(stderr.contains("overlaps"), "{stderr}");
    // At the executable's load base, which the trace without its header
    // does not say (it is inferred).
    let text = std::fs::read_to_string(&run().trace).unwrap();
    let exe_base = text
        .lines()
        .find_map(|l| l.strip_prefix("# base "))
        .and_then(|l| l.split(' ').next())
        .expect("a # base line");
    let exe = ["--object", &object(Path::new(lib), exe_base)];
    let stderr = refused(&exe);
    assert!(stderr.contains("--object: "), "{stderr}");
    assert!(stderr.contains("overlaps the executable"), "{stderr}");
}

/// Firmware that calls a ROM through the ROM's API table (the ROM's first
/// word, as real ROM APIs are reached). Usage: ELF DUMP.
const FIRMWARE: &str = r#"#include <stdio.h>
#include <string.h>

typedef unsigned (*rom_checksum_fn)(const unsigned char *data, unsigned len);

/* The ROM's API table, at its first address: rom_checksum first. */
#define ROM_API ((const rom_checksum_fn *)0x00300000)

static unsigned app_sum(const char *text)
{
    return ROM_API[0]((const unsigned char *)text, (unsigned)strlen(text));
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("%08x %08x\n", app_sum("hello"), app_sum("firmware"));
    return 0;
}
"#;

/// The ROM: CRC-32, instrumented, calling the firmware's hooks (it is
/// linked with `--just-symbols` of the firmware).
const ROM: &str = r#"static unsigned rom_step(unsigned crc, unsigned char byte)
{
    crc ^= byte;
    for (int k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
    return crc;
}

unsigned rom_checksum(const unsigned char *data, unsigned len)
{
    unsigned crc = 0xffffffffu;
    for (unsigned i = 0; i < len; i++)
        crc = rom_step(crc, data[i]);
    return ~crc;
}

__attribute__((section(".rom_api"), used)) const void *const rom_api[] = {(const void *)rom_checksum};
"#;

/// The ROM's layout: at 0x300000 in the board's flash, between the
/// firmware's code (at 0) and its RAM (at 0x20000000).
const ROM_LD: &str = "ENTRY(rom_checksum)
SECTIONS
{
    . = 0x300000;
    .rom_api : { KEEP(*(.rom_api)) }
    .text : { *(.text .text.*) *(.rodata .rodata.*) }
    /DISCARD/ : { *(.ARM.exidx*) *(.ARM.extab*) }
}
";

#[test]
fn a_rom_linked_apart_from_the_firmware_is_named_at_its_link_addresses() {
    if !board::have_tools() {
        return;
    }
    let src = fresh_dir("object_flag", "firmware");
    for (name, text) in [("app.c", FIRMWARE), ("rom.c", ROM), ("rom.ld", ROM_LD)] {
        std::fs::write(src.join(name), text).unwrap();
    }
    let elf = board::build_firmware(&Recipe {
        name: "object-rom",
        sources: vec![src.join("app.c")],
        ..Recipe::default()
    });
    let rom = src.join("rom.elf");
    compile(
        Command::new(board::CC)
            .current_dir(&src)
            .args(["-mcpu=cortex-m3", "-mthumb", "-g", "-O0"])
            .args(["-finstrument-functions", "-nostdlib", "-nostartfiles"])
            .args(["-T", "rom.ld", "rom.c", "-o"])
            .arg(&rom)
            .arg(format!("-Wl,--just-symbols={}", elf.display())),
    );
    let dir = elf.parent().unwrap().to_path_buf();
    let loader = format!("loader,file={}", rom.display());
    let run = board::qemu_ok(&elf, &dir, &["semi:trace.bin"], &["-device", &loader]);
    // CRC-32 of "hello" and "firmware": the ROM ran.
    assert_eq!(run.stdout, "3610a686 d5ecd7c4\n");
    let trace = dir.join("trace.bin");

    let (bare, _) = board::read_graph(&elf, &trace, &[]);
    let hex: Vec<_> = bare.iter().filter(|e| e.1.starts_with("0x3000")).collect();
    assert_eq!(hex.len(), 2, "{bare:?}");

    let rom_arg = rom.to_str().unwrap();
    let (named, notes) = board::read_graph(&elf, &trace, &["--object", rom_arg]);
    let want = edges(&[
        ("main", "app_sum", 2),
        ("app_sum", "rom_checksum", 2),
        ("rom_checksum", "rom_step", 13),
    ]);
    assert_eq!(named, want, "{notes}");
    assert!(!notes.contains("warning"), "{notes}");
    // The ROM's source files and lines, from its DWARF.
    let mut args = vec!["graph", elf.to_str().unwrap(), "--trace"];
    args.extend([trace.to_str().unwrap(), "--object", rom_arg, "-o", "-"]);
    let dot = calltrace(&args).run().success().text();
    // (the line of each function's opening brace, as for every object)
    assert!(dot.contains("/rom.c:2\\n"), "{dot}");
    assert!(dot.contains("/rom.c:10\\n"), "{dot}");
}

#[test]
fn an_object_is_an_input_that_no_output_overwrites() {
    let lib = run().lib.to_str().unwrap();
    let before = std::fs::read(lib).unwrap();
    let stderr = refused(&[
        "--object",
        &object(Path::new(lib), &run().base),
        "--csv",
        lib,
    ]);
    assert!(stderr.contains("the input --object"), "{stderr}");
    assert_eq!(std::fs::read(lib).unwrap(), before);
}

/// `calltrace info`'s `names:` line for the bare trace, with `extra`.
fn info_names(extra: &[&str]) -> String {
    let (_, bare) = traces();
    let mut args: Vec<OsString> = vec!["info".into(), run().exe.clone().into()];
    args.extend(["--trace".into(), bare.into()]);
    args.extend(extra.iter().map(Into::into));
    let text = calltrace(args).run().success().text();
    text.lines()
        .find_map(|l| l.strip_prefix("names:"))
        .unwrap_or_else(|| panic!("no names: line in\n{text}"))
        .trim()
        .to_string()
}

#[test]
fn info_says_which_source_named_the_addresses_and_how_many_stayed_hex() {
    // The library's three functions: hex without the object, named by it.
    let without = info_names(&[]);
    assert_eq!(without, "executable 2 addresses; 3 left as hex");
    let object = format!("{}@{}", run().lib.display(), run().base);
    let with = info_names(&["--object", &object]);
    assert_eq!(with, "executable 2, object 3 addresses");
}

#[test]
fn without_the_executable_an_object_is_said_to_be_unused_and_hex_calls_point_to_it() {
    let (_, bare) = traces();
    let object = format!("{}@{}", run().lib.display(), run().base);
    // No BINARY and no `#` lines: nothing to place the object beside.
    let args: Vec<OsString> = vec![
        "graph".into(),
        "--trace".into(),
        bare.clone().into(),
        "--object".into(),
        object.into(),
        "-o".into(),
        "-".into(),
    ];
    let out = calltrace(args).run().success();
    assert!(
        out.stderr
            .contains("--object names addresses outside the executable: it was not used"),
        "{}",
        out.stderr
    );
    // With the executable and no --object, the hex calls name the remedy.
    let (_, _, stderr) = graph(&bare, &[]);
    assert!(
        stderr
            .contains("or name each library or image linked apart with --object FILE@LOAD_ADDRESS"),
        "{stderr}"
    );
}

/// `calltrace coverage EXE TRACE EXTRA... --csv -`'s CSV.
fn coverage_csv(trace: &Path, extra: &[&str]) -> String {
    let mut args: Vec<OsString> = vec!["coverage".into(), run().exe.clone().into(), trace.into()];
    args.extend(extra.iter().map(Into::into));
    args.extend(["--csv", "-"].map(Into::into));
    let text = calltrace(args).run().success().text();
    // The CSV, without the summary table that follows it.
    text.lines()
        .take_while(|l| l.contains(','))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn coverage_places_calls_in_an_object_as_its_map_line_does() {
    let (maps, bare) = traces();
    let object = format!("{}@{}", run().lib.display(), run().base);
    let with_maps = coverage_csv(&maps, &[]);
    assert!(with_maps.contains("lib_square,"), "{with_maps}");
    assert_eq!(coverage_csv(&bare, &["--object", &object]), with_maps);
    // Without it, the library is not among the objects at all.
    assert!(!coverage_csv(&bare, &[]).contains("lib_square,"));
}
