//! Symbol-resolution micro-benchmark: a generated C program with 2,000
//! functions is compiled with `gcc -g` (skipped when gcc is missing) and
//! every function's entry address is resolved to its name and line, as
//! `calltrace graph BINARY` does once per distinct address. Run with
//! `cargo bench --bench symbols`.

// criterion_group!/criterion_main! define undocumented public functions.
#![allow(missing_docs)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use calltrace::ingest::FuncTable;
use calltrace::symbols;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use object::{Object, ObjectSymbol};

const FUNCS: usize = 2_000;

/// Writes and compiles the program; None without a working gcc.
fn compile(dir: &Path) -> Option<PathBuf> {
    let mut src = String::new();
    for i in 0..FUNCS {
        let _ = writeln!(src, "int f{i}(int x) {{ return x * {i} + 1; }}");
    }
    src.push_str("int main(void) { return 0; }\n");
    let c = dir.join("many.c");
    std::fs::write(&c, src).ok()?;
    let exe = dir.join("many");
    let ok = Command::new("gcc")
        .args(["-g", "-O0", "-no-pie"])
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .status()
        .ok()?
        .success();
    ok.then_some(exe)
}

/// Entry addresses of the program's `f*` functions (no-PIE: bias 0).
fn addresses(exe: &Path) -> FuncTable {
    let data = std::fs::read(exe).expect("read binary");
    let file = object::File::parse(&*data).expect("parse binary");
    let mut funcs = FuncTable::default();
    for sym in file.symbols() {
        if sym.name().is_ok_and(|n| n.starts_with('f')) && sym.address() != 0 {
            funcs.addr(sym.address());
        }
    }
    funcs
}

fn resolve(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let Some(exe) = compile(dir.path()) else {
        eprintln!("gcc not found: skipping the symbol benchmark");
        return;
    };
    let funcs = addresses(&exe);
    let mut g = c.benchmark_group("symbols");
    g.sample_size(10);
    g.throughput(Throughput::Elements(funcs.len() as u64 - 1));
    g.bench_function("resolve every function", |b| {
        b.iter(|| {
            let meta = calltrace::ingest::TraceMeta::default();
            symbols::resolve(&funcs, &meta, Some(&exe), &Default::default())
                .expect("resolve")
                .0
                .len()
        })
    });
    g.finish();
}

criterion_group!(benches, resolve);
criterion_main!(benches);
