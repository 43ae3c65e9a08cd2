//! Tree-builder micro-benchmarks: the one-node-per-call tree and the
//! calling-context tree fed the same events (a recursive, call-heavy
//! shape with a few hundred distinct paths). Throughput is in events per
//! second. Run with `cargo bench --bench builder`.

// criterion_group!/criterion_main! define undocumented public functions.
#![allow(missing_docs)]

use calltrace::calltree::{CallsBuilder, ContextsBuilder};
use calltrace::ingest::{Event, EventKind, EventSink, FuncTable, TraceMeta};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Events of `n` top-level calls, each a small recursive call tree.
fn events(n: u32) -> Vec<Event> {
    let mut out = Vec::new();
    let mut time = 0u64;
    let mut push = |out: &mut Vec<Event>, func: u32, kind: EventKind| {
        time += 40;
        out.push(Event {
            time,
            func,
            thread: 0,
            kind,
        });
    };
    for i in 0..n {
        let path = [1 + i % 5, 6 + i % 3, 9 + i % 4, 13 + i % 2];
        for &f in &path {
            push(&mut out, f, EventKind::Enter);
        }
        for _ in 0..3 {
            push(&mut out, 20 + i % 6, EventKind::Enter);
            push(&mut out, 20 + i % 6, EventKind::Exit);
        }
        for &f in path.iter().rev() {
            push(&mut out, f, EventKind::Exit);
        }
    }
    out
}

fn funcs() -> FuncTable {
    let mut f = FuncTable::default();
    for i in 1..=30 {
        f.addr(0x1000 + i);
    }
    f
}

fn builders(c: &mut Criterion) {
    let evs = events(200_000);
    let meta = TraceMeta {
        timed: true,
        threads: vec![1],
        ..TraceMeta::default()
    };
    let mut g = c.benchmark_group("build");
    g.sample_size(20);
    g.throughput(Throughput::Elements(evs.len() as u64));
    g.bench_function("calls", |b| {
        b.iter(|| {
            let mut builder = CallsBuilder::default();
            for batch in evs.chunks(8192) {
                builder.events(batch);
            }
            builder.finish(&meta, &mut funcs()).0.len()
        })
    });
    g.bench_function("contexts", |b| {
        b.iter(|| {
            let mut builder = ContextsBuilder::default();
            for batch in evs.chunks(8192) {
                builder.events(batch);
            }
            builder.finish(&meta, &mut funcs()).0.len()
        })
    });
    g.finish();
}

criterion_group!(benches, builders);
criterion_main!(benches);
