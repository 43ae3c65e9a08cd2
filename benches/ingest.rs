//! Parser micro-benchmarks: the E/X text reader (one thread and every
//! core) on every E/X shape of the same events (the runtime's
//! `E0x55d4c3a2c1c9 1234 4242`, the timestamp only, the untimed seed
//! format `E0x55d4c3a2c1c9`, symbolic `E f12 1234 4242`) and the binary
//! reader. Throughput is in bytes of trace per second. Run with
//! `cargo bench --bench ingest`.

// criterion_group!/criterion_main! define undocumented public functions.
#![allow(missing_docs)]

use calltrace::ingest::{
    AddrFormat, BinaryFormat, Event, EventKind, EventSink, FuncTable, Input, NodeRecord, NodeSink,
    ParseOptions, SymbolicFormat, TraceFormat, binary,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Counts events so the parse cannot be optimised away.
#[derive(Default)]
struct Count(u64);
impl EventSink for Count {
    fn events(&mut self, e: &[Event]) {
        self.0 += e.len() as u64;
    }
}

impl NodeSink for Count {
    fn node(&mut self, _: NodeRecord) {}
}

/// `calls` nested call pairs over 40 functions, as (kind, address, time).
fn events(calls: u64) -> Vec<(EventKind, u64, u64)> {
    let mut out = Vec::new();
    let mut time = 1_000_000u64;
    for i in 0..calls {
        let outer = 0x55d4_c3a2_c000 + (i % 40) * 0x40;
        let inner = 0x55d4_c3a2_d000 + (i % 7) * 0x30;
        for (kind, addr) in [
            (EventKind::Enter, outer),
            (EventKind::Enter, inner),
            (EventKind::Exit, inner),
            (EventKind::Exit, outer),
        ] {
            time += 37 + i % 11;
            out.push((kind, addr, time));
        }
    }
    out
}

/// The trace shapes of the E/X text reader.
#[derive(Clone, Copy)]
enum Shape {
    Full,
    Timed,
    Untimed,
    Symbolic,
}

fn trace_text(events: &[(EventKind, u64, u64)], shape: Shape) -> Vec<u8> {
    let mut t = b"# calltrace 1 text\n# base 0x55d4c3a2b000 /tmp/app\n".to_vec();
    for &(kind, addr, time) in events {
        let k = if kind == EventKind::Enter { 'E' } else { 'X' };
        let line = match shape {
            Shape::Full => format!("{k}0x{addr:x} {time} 4242\n"),
            Shape::Timed => format!("{k}0x{addr:x} {time}\n"),
            Shape::Untimed => format!("{k}0x{addr:x}\n"),
            Shape::Symbolic => format!("{k} f{:x} {time} 4242\n", addr & 0xfff),
        };
        t.extend_from_slice(line.as_bytes());
    }
    t
}

fn parse(format: &dyn TraceFormat, input: &Input, threads: usize) -> u64 {
    let opts = ParseOptions {
        threads,
        ..ParseOptions::default()
    };
    let mut sink = Count::default();
    format
        .parse(input, &opts, &mut FuncTable::default(), &mut sink)
        .expect("parse");
    sink.0
}

fn parsers(c: &mut Criterion) {
    let evs = events(250_000);
    let text = Input::from_bytes("bench.txt", trace_text(&evs, Shape::Full));
    let bin = Input::from_bytes(
        "bench.bin",
        binary::encode(0x55d4_c3a2_b000, "/tmp/app", &[(4242, evs.clone())]),
    );
    let mut g = c.benchmark_group("parse");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("text, 1 thread", |b| {
        b.iter(|| parse(&AddrFormat, &text, 1))
    });
    g.bench_function("text, all cores", |b| {
        b.iter(|| parse(&AddrFormat, &text, 0))
    });
    for (name, shape, format) in [
        (
            "text, timestamp only",
            Shape::Timed,
            &AddrFormat as &dyn TraceFormat,
        ),
        ("text, untimed", Shape::Untimed, &AddrFormat),
        ("text, symbolic", Shape::Symbolic, &SymbolicFormat),
    ] {
        let input = Input::from_bytes("bench.txt", trace_text(&evs, shape));
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.bench_function(format!("{name}, 1 thread"), |b| {
            b.iter(|| parse(format, &input, 1))
        });
    }
    g.throughput(Throughput::Bytes(bin.len() as u64));
    g.bench_function("binary", |b| b.iter(|| parse(&BinaryFormat, &bin, 1)));
    g.finish();
}

criterion_group!(benches, parsers);
criterion_main!(benches);
