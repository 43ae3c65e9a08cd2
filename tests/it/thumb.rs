//! Thumb code's odd function addresses in every command (issue 41,
//! section 1): one program built for x86-64 and for armhf in Thumb-2
//! (`-mthumb`, run under `qemu-arm`), traced by the Linux runtime, gives
//! the same names and counts in `graph`, `coverage`, `diff`, and the pprof
//! and Parquet exports. pprof's locations are the symbol's address as the
//! symbol table and `this_fn` hold it: with the Thumb bit (odd), moved by
//! the load bias. A Thumb JIT's functions are named from its perf map
//! whether the map gives their start with the Thumb bit or without.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::freestanding_read::Symbols;
use super::util::*;

/// Recursion, a static function, a call through a pointer, one function
/// never called and one not instrumented.
const PROGRAM: &str = r#"#include <stdio.h>
static int leaf(int x) { return x * 3; }
int mid(int x) { return leaf(x) + leaf(x + 1); }
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int never(int x) { return x + 1; }
__attribute__((no_instrument_function)) int plain(int x) { return x - 1; }
int apply(int (*f)(int), int x) { return f(x); }
int main(int argc, char **argv)
{
    int s = 0;
    (void)argv;
    for (int i = 0; i < 3; i++)
        s += mid(i);
    s += apply(mid, 5) + fact(5);
    if (argc > 5)
        s += never(s);
    printf("%d %d\n", s, plain(s));
    return 0;
}
"#;

/// What the program prints.
const OUT: &str = "180 179\n";

/// A build of [`PROGRAM`] and its trace.
struct Build {
    exe: PathBuf,
    trace: PathBuf,
}

/// The x86-64 build, and the armhf Thumb build (None without
/// `arm-linux-gnueabihf-gcc` or `qemu-arm`).
fn builds() -> &'static (Build, Option<Build>) {
    static BUILT: OnceLock<(Build, Option<Build>)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = fresh_dir("thumb", "program");
        std::fs::write(dir.join("p.c"), PROGRAM).expect("write p.c");
        let x86 = build(&dir, "x86-64", "gcc", &[], None);
        let arm =
            (tool("arm-linux-gnueabihf-gcc").is_some() && tool("qemu-arm").is_some()).then(|| {
                build(
                    &dir,
                    "armhf",
                    "arm-linux-gnueabihf-gcc",
                    &["-mthumb"],
                    Some(QEMU),
                )
            });
        (x86, arm)
    })
}

/// qemu-user and the sysroot it loads armhf libraries from.
const QEMU: (&str, &str) = ("qemu-arm", "/usr/arm-linux-gnueabihf");

fn build(dir: &Path, name: &str, cc: &str, flags: &[&str], qemu: Option<(&str, &str)>) -> Build {
    let exe = dir.join(name);
    compile(
        Command::new(cc)
            .current_dir(dir)
            .args(["-g", "-O1", "-finstrument-functions", "-pthread"])
            .args(flags)
            .arg("p.c")
            .arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe),
    );
    let trace = dir.join(format!("{name}.txt"));
    let out = output_within(run_on(&exe, qemu).env("CALLTRACE_OUT", &trace), 60);
    assert_eq!(String::from_utf8_lossy(&out.stdout), OUT, "{name}: {out:?}");
    Build { exe, trace }
}

/// A command running `exe`, under qemu-user when given.
fn run_on(exe: &Path, qemu: Option<(&str, &str)>) -> Command {
    match qemu {
        Some((qemu, sysroot)) => {
            let mut c = Command::new(qemu);
            c.arg("-L").arg(sysroot).arg(exe);
            c
        }
        None => Command::new(exe),
    }
}

/// Both builds, or None (skipped) without the armhf tools.
fn both() -> Option<(&'static Build, &'static Build)> {
    let (x86, arm) = builds();
    Some((x86, arm.as_ref()?))
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

#[test]
fn graph_coverage_and_diff_name_and_count_thumb_code_as_x86_64s() {
    let Some((x86, arm)) = both() else { return };
    let want = graph(path(&x86.exe), &x86.trace).edges();
    assert!(
        want.contains(&("main".into(), "apply".into(), 1)),
        "{want:?}"
    );
    assert!(
        want.contains(&("fact".into(), "fact".into(), 4)),
        "{want:?}"
    );
    assert_eq!(graph(path(&arm.exe), &arm.trace).edges(), want);
    assert_eq!(statuses(arm), statuses(x86));
    assert_eq!(statuses(x86)["never"], "never called");
    assert_eq!(statuses(x86)["plain"], "not instrumented");
    // diff: armhf against x86-64, every function by name with equal calls.
    let file = arm.trace.with_extension("diff.json");
    calltrace([
        "diff",
        "--json",
        path(&file),
        path(&arm.trace),
        path(&x86.trace),
    ])
    .run()
    .success();
    let text = std::fs::read(&file).expect("the JSON");
    let json: serde_json::Value = serde_json::from_slice(&text).expect("JSON");
    let rows = json["rows"].as_array().expect("rows");
    let calls: BTreeMap<String, (u64, u64)> = rows
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_u64().unwrap_or(0);
            let name = r["function"].as_str().unwrap_or("").to_string();
            (name, (n("calls_base"), n("calls_new")))
        })
        .collect();
    let names: Vec<&str> = calls.keys().map(String::as_str).collect();
    assert_eq!(names, ["apply", "fact", "leaf", "main", "mid"], "{calls:?}");
    assert!(calls.values().all(|(a, b)| a == b), "{calls:?}");
}

/// `coverage --csv`'s status of each function of p.c.
fn statuses(b: &Build) -> BTreeMap<String, String> {
    let csv = b.trace.with_extension("coverage.csv");
    calltrace([
        "coverage",
        path(&b.exe),
        path(&b.trace),
        "--csv",
        path(&csv),
    ])
    .run()
    .success();
    let mut r = csv::Reader::from_path(&csv).expect("coverage wrote the CSV");
    r.records()
        .map(|rec| rec.expect("a CSV record"))
        .filter(|rec| rec[1].ends_with("/p.c"))
        .map(|rec| (rec[0].to_string(), rec[5].to_string()))
        .collect()
}

/// pprof's profile, decoded with its upstream field numbers.
mod pprof {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Profile {
        #[prost(message, repeated, tag = "2")]
        pub sample: Vec<Sample>,
        #[prost(message, repeated, tag = "3")]
        pub mapping: Vec<Mapping>,
        #[prost(message, repeated, tag = "4")]
        pub location: Vec<Location>,
        #[prost(message, repeated, tag = "5")]
        pub function: Vec<Function>,
        #[prost(string, repeated, tag = "6")]
        pub string_table: Vec<String>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Sample {
        #[prost(uint64, repeated, tag = "1")]
        pub location_id: Vec<u64>,
        #[prost(int64, repeated, tag = "2")]
        pub value: Vec<i64>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Mapping {
        #[prost(uint64, tag = "1")]
        pub id: u64,
        #[prost(uint64, tag = "2")]
        pub memory_start: u64,
        #[prost(uint64, tag = "3")]
        pub memory_limit: u64,
        #[prost(uint64, tag = "4")]
        pub file_offset: u64,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Location {
        #[prost(uint64, tag = "1")]
        pub id: u64,
        #[prost(uint64, tag = "2")]
        pub mapping_id: u64,
        #[prost(uint64, tag = "3")]
        pub address: u64,
        #[prost(message, repeated, tag = "4")]
        pub line: Vec<Line>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Line {
        #[prost(uint64, tag = "1")]
        pub function_id: u64,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Function {
        #[prost(uint64, tag = "1")]
        pub id: u64,
        #[prost(int64, tag = "2")]
        pub name: i64,
    }
}

/// Each exported function's name -> (its location's address as a file
/// address of the executable, the calls of the samples ending there).
fn pprof_functions(b: &Build) -> BTreeMap<String, (u64, i64)> {
    use prost::Message;
    let out = b.trace.with_extension("pb.gz");
    calltrace([
        "export",
        path(&b.exe),
        "--trace",
        path(&b.trace),
        "--to",
        "pprof",
    ])
    .args(["-o", path(&out)])
    .run()
    .success();
    let mut bytes = Vec::new();
    let gz = std::fs::File::open(&out).expect("the profile");
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(gz), &mut bytes).expect("gzip");
    let p = pprof::Profile::decode(&*bytes).expect("a pprof profile");
    let name = |f: u64| {
        let func = p.function.iter().find(|x| x.id == f).expect("a function");
        p.string_table[func.name as usize].clone()
    };
    let file = ElfFile::of(&b.exe);
    let mut out = BTreeMap::new();
    for loc in &p.location {
        let map = &p.mapping[loc.mapping_id as usize - 1];
        let offset = loc.address - map.memory_start + map.file_offset;
        let calls: i64 = p
            .sample
            .iter()
            .filter(|s| s.location_id.first() == Some(&loc.id))
            .map(|s| s.value[0])
            .sum();
        out.insert(name(loc.line[0].function_id), (file.vaddr(offset), calls));
    }
    out
}

/// The loadable segments of an ELF file: file offsets to addresses.
struct ElfFile(Vec<(u64, u64, u64)>);

impl ElfFile {
    fn of(path: &Path) -> ElfFile {
        use object::{Object, ObjectSegment};
        let data = std::fs::read(path).expect("read the ELF");
        let file = object::File::parse(&*data).expect("an ELF file");
        let segs = file
            .segments()
            .map(|s| (s.file_range().0, s.file_range().1, s.address()))
            .collect();
        ElfFile(segs)
    }

    #[track_caller]
    fn vaddr(&self, offset: u64) -> u64 {
        let (start, _, vaddr) = self
            .0
            .iter()
            .find(|(start, size, _)| (*start..start + size).contains(&offset))
            .unwrap_or_else(|| panic!("offset {offset:#x} in no segment"));
        offset - start + vaddr
    }
}

#[test]
fn pprof_locations_are_the_symbols_addresses_thumb_bit_included() {
    let Some((x86, arm)) = both() else { return };
    let (x, a) = (pprof_functions(x86), pprof_functions(arm));
    let names = |m: &BTreeMap<String, (u64, i64)>| {
        m.iter().map(|(k, v)| (k.clone(), v.1)).collect::<Vec<_>>()
    };
    assert_eq!(names(&a), names(&x));
    assert_eq!(x["leaf"].1, 8, "{x:?}");
    for (b, funcs) in [(arm, &a), (x86, &x)] {
        let syms = Symbols::of(&b.exe);
        for (name, (addr, _)) in funcs {
            assert_eq!(*addr, syms.get(name), "{}: {name}", path(&b.exe));
        }
    }
    assert!(a.values().all(|(addr, _)| addr & 1 == 1), "Thumb: {a:x?}");
}

/// Rows of a Parquet file: each row's Utf8 and Int64 columns as text.
fn parquet_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_schema::DataType;
    let file = std::fs::File::open(path).expect("a Parquet file");
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .expect("a Parquet reader");
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.expect("a batch");
        for i in 0..batch.num_rows() {
            let mut row = BTreeMap::new();
            for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
                let v = match field.data_type() {
                    DataType::Int64 if col.is_valid(i) => {
                        col.as_primitive::<Int64Type>().value(i).to_string()
                    }
                    DataType::Utf8 if col.is_valid(i) => {
                        col.as_string::<i32>().value(i).to_string()
                    }
                    _ => continue,
                };
                row.insert(field.name().clone(), v);
            }
            rows.push(row);
        }
    }
    rows
}

/// Name, line and object of an exported function.
type FunctionRow = (String, String, String);

/// Name, line and object of each exported function, and the calls of
/// each function id summed over its contexts.
fn parquet_export(b: &Build) -> (Vec<FunctionRow>, BTreeMap<String, u64>) {
    let dir = b.trace.with_extension("parquet");
    calltrace([
        "export",
        path(&b.exe),
        "--trace",
        path(&b.trace),
        "--to",
        "parquet",
    ])
    .args(["-o", path(&dir)])
    .run()
    .success();
    let exe = b.exe.file_name().expect("a name").to_string_lossy();
    let funcs: Vec<FunctionRow> = parquet_rows(&dir.join("functions.parquet"))
        .into_iter()
        .map(|r| {
            let object = r
                .get("object")
                .map_or("", |o| o.rsplit('/').next().unwrap_or(""));
            let object = object.replace(&*exe, "EXE");
            (
                r["name"].clone(),
                r.get("line").cloned().unwrap_or_default(),
                object,
            )
        })
        .collect();
    let mut calls = BTreeMap::new();
    for r in parquet_rows(&dir.join("contexts.parquet")) {
        let n: u64 = r["calls"].parse().expect("calls");
        *calls.entry(r["function_id"].clone()).or_insert(0) += n;
    }
    (funcs, calls)
}

#[test]
fn parquet_rows_of_thumb_code_are_x86_64s() {
    let Some((x86, arm)) = both() else { return };
    let (xf, xc) = parquet_export(x86);
    let (af, ac) = parquet_export(arm);
    let mut sorted = xf.clone();
    sorted.sort();
    assert!(
        sorted.iter().any(|f| f.0 == "leaf" && f.2 == "EXE"),
        "{sorted:?}"
    );
    assert_eq!(af, xf);
    assert_eq!(ac, xc);
}

/// A JIT of two Thumb functions called through `call_jit`; its perf map
/// gives `jit_add`'s start without the Thumb bit and `jit_mul`'s with it.
const JIT: &str = r#"#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);
typedef int (*jit_fn)(int, int);

/* adds r0, r0, r1; bx lr */
static const unsigned short ADD[] = {0x1840, 0x4770};
/* muls r0, r1; bx lr */
static const unsigned short MUL[] = {0x4348, 0x4770};

static int call_jit(jit_fn f, int a, int b)
{
    int r;
    __cyg_profile_func_enter((void *)f, __builtin_return_address(0));
    r = f(a, b);
    __cyg_profile_func_exit((void *)f, __builtin_return_address(0));
    return r;
}

int main(void)
{
    unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    FILE *map = fopen("jit.map", "w");
    jit_fn add, mul;
    int i, sum = 0;
    if (page == MAP_FAILED || !map)
        return 1;
    memcpy(page, ADD, sizeof ADD);
    memcpy(page + 64, MUL, sizeof MUL);
    __builtin___clear_cache((char *)page, (char *)page + 128);
    add = (jit_fn)(void *)(page + 1);
    mul = (jit_fn)(void *)(page + 65);
    fprintf(map, "%lx %x jit_add\n", (unsigned long)page, (unsigned)sizeof ADD);
    fprintf(map, "%lx %x jit_mul\n", (unsigned long)(page + 65), (unsigned)sizeof MUL - 1);
    fclose(map);
    for (i = 0; i < 3; i++)
        sum += call_jit(add, i, 1);
    for (i = 0; i < 2; i++)
        sum += call_jit(mul, i + 1, 2);
    printf("%d\n", sum);
    return 0;
}
"#;

#[test]
fn perf_map_names_a_thumb_jits_functions_with_or_without_the_thumb_bit() {
    if tool("arm-linux-gnueabihf-gcc").is_none() || tool("qemu-arm").is_none() {
        return;
    }
    let dir = fresh_dir("thumb", "jit");
    std::fs::write(dir.join("jit.c"), JIT).expect("write jit.c");
    let exe = dir.join("jit");
    compile(
        Command::new("arm-linux-gnueabihf-gcc")
            .current_dir(&dir)
            .args([
                "-g",
                "-O1",
                "-mthumb",
                "-finstrument-functions",
                "-pthread",
                "jit.c",
            ])
            .arg(root().join("runtime/calltrace.c"))
            .arg("-o")
            .arg(&exe),
    );
    let trace = dir.join("trace.txt");
    let out = output_within(
        run_on(&exe, Some(QEMU))
            .current_dir(&dir)
            .env("CALLTRACE_OUT", &trace),
        60,
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "12\n", "{out:?}");
    let csv = dir.join("graph.csv");
    calltrace([
        "graph",
        path(&exe),
        "--trace",
        path(&trace),
        "--perf-map",
        path(&dir.join("jit.map")),
    ])
    .args([
        "--min-total",
        "0",
        "--min-edge",
        "0",
        "-o",
        "-",
        "--csv",
        path(&csv),
    ])
    .run()
    .success();
    let got = csv_edges(&std::fs::read(&csv).expect("the CSV"));
    assert_eq!(
        got,
        edges(&[
            ("main", "call_jit", 5),
            ("call_jit", "jit_add", 3),
            ("call_jit", "jit_mul", 2)
        ])
    );
}
