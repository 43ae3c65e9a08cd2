//! Chrome's Trace Event Format (JSON), which the Perfetto UI and
//! chrome://tracing open: one complete event (`"ph":"X"`) per call, `ts`
//! and `dur` in microseconds (fractions allowed: nanosecond traces keep
//! every digit), `pid` 1 and `tid` the traced thread's id. Names are
//! escaped as JSON strings by serde_json (`"`, `\`, control characters as
//! `\n` or `\u0000`), so they read back exactly.
//!
//! From an event trace the writer streams ([`ChromeSink`]): each call is
//! written at its exit from per-thread stacks, so a 10^8-call trace never
//! becomes a tree; stacks, repairs and the layout of trees are
//! [`super::calls`]'. An untimed trace gets one microsecond per event.

use std::io::{self, Write};

use super::calls::{CallStream, CallWriter, Layout};
use super::{Exporter, StreamExporter, StreamSink};
use crate::ingest::{Event, EventSink, FuncId, FuncTable, NodeRecord, NodeSink};
use crate::symbols::FuncInfo;

/// `--to chrome`.
pub(super) struct Chrome;

impl Exporter for Chrome {
    fn name(&self) -> &'static str {
        "chrome"
    }
    fn about(&self) -> &'static str {
        "Trace Event Format JSON for the Perfetto UI and chrome://tracing (streamed)"
    }
}

impl StreamExporter for Chrome {
    fn sink<'a>(
        &self,
        names: &'a [FuncInfo],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> Box<dyn StreamSink + 'a> {
        Box::new(ChromeSink::new(names, funcs, threads, timed, out))
    }
}

/// Writes one complete event per call as entries and exits arrive.
pub struct ChromeSink<'a> {
    stream: CallStream<'a>,
    layout: Layout<'a>,
    writer: Writer<'a>,
}

/// The JSON side: one complete event per call.
struct Writer<'a> {
    out: io::BufWriter<&'a mut dyn Write>,
    /// Names as JSON strings, quoted and escaped once each.
    quoted: Vec<Option<String>>,
    names: &'a [FuncInfo],
    timed: bool,
    written: u64,
    error: Option<io::Error>,
}

impl<'a> ChromeSink<'a> {
    /// A sink writing to `out`; times are nanoseconds when `timed`.
    pub fn new(
        names: &'a [FuncInfo],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> ChromeSink<'a> {
        let mut writer = Writer {
            out: io::BufWriter::with_capacity(1 << 16, out),
            quoted: vec![None; names.len()],
            names,
            timed,
            written: 0,
            error: None,
        };
        let head = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
        writer.check(|out| out.write_all(head.as_bytes()));
        ChromeSink {
            stream: CallStream::new(threads, timed),
            layout: Layout::new(funcs, threads.first().copied().unwrap_or(0)),
            writer,
        }
    }

    /// Lays out a tree node at `depth` below the root (1 = top-level call)
    /// inside its caller, after its earlier siblings.
    fn place(&mut self, depth: u32, func: FuncId, total: u64) {
        if let Some((tid, start, end)) = self.layout.place(depth, func, total) {
            self.writer.leave(func, tid, start, end);
        }
    }
}

impl<'a> Writer<'a> {
    fn check(&mut self, f: impl FnOnce(&mut io::BufWriter<&'a mut dyn Write>) -> io::Result<()>) {
        if self.error.is_none()
            && let Err(e) = f(&mut self.out)
        {
            self.error = Some(e);
        }
    }
}

impl CallWriter for Writer<'_> {
    /// Writes one call; `start` and `end` in trace units.
    fn leave(&mut self, func: FuncId, tid: u64, start: u64, end: u64) {
        let f = func as usize;
        if self.quoted[f].is_none() {
            let q = serde_json::to_string(&self.names[f].name).unwrap_or_else(|_| "\"?\"".into());
            self.quoted[f] = Some(q);
        }
        let sep = if self.written == 0 { "\n" } else { ",\n" };
        self.written += 1;
        let timed = self.timed;
        let Some(name) = self.quoted[f].as_deref() else {
            return;
        };
        if self.error.is_some() {
            return;
        }
        let out = &mut self.out;
        let result = write!(
            out,
            "{sep}{{\"name\":{name},\"cat\":\"call\",\"ph\":\"X\",\"ts\":"
        )
        .and_then(|()| micros(out, start, timed))
        .and_then(|()| out.write_all(b",\"dur\":"))
        .and_then(|()| micros(out, end.saturating_sub(start), timed))
        .and_then(|()| write!(out, ",\"pid\":1,\"tid\":{tid}}}"));
        if let Err(e) = result {
            self.error = Some(e);
        }
    }
}

/// Writes trace units as microseconds: exact decimals for nanoseconds.
fn micros(out: &mut impl Write, v: u64, timed: bool) -> io::Result<()> {
    if !timed {
        return write!(out, "{v}");
    }
    let (int, frac) = (v / 1000, v % 1000);
    match frac {
        0 => write!(out, "{int}"),
        f if f % 100 == 0 => write!(out, "{int}.{}", f / 100),
        f if f % 10 == 0 => write!(out, "{int}.{:02}", f / 10),
        f => write!(out, "{int}.{f:03}"),
    }
}

impl EventSink for ChromeSink<'_> {
    fn events(&mut self, events: &[Event]) {
        self.stream.events(events, &mut self.writer);
    }
}

impl NodeSink for ChromeSink<'_> {
    fn node(&mut self, node: NodeRecord) {
        self.place(node.depth + 1, node.func, node.total);
    }
}

impl StreamSink for ChromeSink<'_> {
    fn finish(mut self: Box<Self>) -> io::Result<()> {
        self.stream.finish(&mut self.writer);
        let w = &mut self.writer;
        w.check(|out| out.write_all(b"\n]}\n").and_then(|()| out.flush()));
        match w.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Shape;
    use super::super::testing::{TRACE, export};
    use super::*;

    /// (name, ts, dur, tid) of every event.
    fn events(json: &[u8]) -> Vec<(String, f64, f64, u64)> {
        let v: serde_json::Value = serde_json::from_slice(json).expect("valid JSON");
        v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                assert_eq!(e["ph"], "X");
                assert_eq!(e["pid"], 1);
                (
                    e["name"].as_str().unwrap().to_string(),
                    e["ts"].as_f64().unwrap(),
                    e["dur"].as_f64().unwrap(),
                    e["tid"].as_u64().unwrap(),
                )
            })
            .collect()
    }

    fn streamed(text: &str) -> Vec<u8> {
        super::super::testing::streamed(&Chrome, text)
    }

    #[test]
    fn streamed_calls_are_complete_events_in_microseconds() {
        let ev = events(&streamed(TRACE));
        assert_eq!(ev.len(), 6, "one event per call");
        assert_eq!(ev[0], ("g".to_string(), 0.012, 0.003, 0), "written at exit");
        assert_eq!(ev[5], ("main".to_string(), 0.0, 0.04, 0));
    }

    #[test]
    fn durations_nest_per_thread() {
        let text = "E main 0 1\nE a 5 2\nE f 10 1\nX f 1500 1\nE b 2000 2\nX b 2100 2\nX a 3000 2\nX main 4000 1\nE lost 4100 1\n";
        let ev = events(&streamed(text));
        for (i, x) in ev.iter().enumerate() {
            for y in &ev[i + 1..] {
                let (xe, ye) = (x.1 + x.2, y.1 + y.2);
                let disjoint = xe <= y.1 || ye <= x.1;
                let nested = (x.1 >= y.1 && xe <= ye) || (y.1 >= x.1 && ye <= xe);
                assert!(x.3 != y.3 || disjoint || nested, "{x:?} {y:?}");
            }
        }
        let tids: Vec<_> = ev.iter().map(|e| e.3).collect();
        assert_eq!(
            tids,
            [1, 2, 2, 1, 1],
            "open `lost` closes at its thread's end"
        );
        assert_eq!(ev[1], ("b".to_string(), 2.0, 0.1, 2));
    }

    #[test]
    fn trees_are_laid_out_inside_their_callers() {
        let ev = events(&export(
            Shape::Stream(&Chrome),
            "main (1 / 10)\n  f (2 / 4)\n  g (5 / 5)\n",
        ));
        let spans: Vec<_> = ev.iter().map(|e| (e.0.as_str(), e.1, e.2)).collect();
        assert_eq!(
            spans,
            [("main", 0.0, 10.0), ("f", 0.0, 4.0), ("g", 4.0, 5.0)]
        );
    }
}
