//! TraceLogVisualizer's (TLV, TOPPERS) standard-format trace log: one event
//! per line, `[time]Resource.behavior(args)`. Each traced thread is a
//! resource `Thread_<tid>`; each call is an `enter(function)` line at its
//! entry and a `leave(function)` line at its exit, times in nanoseconds,
//! radix 10. `rules/tlv.json` reads the log back to the same call trees.
//!
//! The format has no comment lines, so the time unit is not in the file:
//! TLV's resource file says it (`"TimeScale": "ns"`, see docs/rules.md).
//! Arguments may hold neither `"` nor `\`, and `,` and `)` end one, so
//! names are written with `(`, `)`, `,`, `"`, `\` and control characters
//! (line breaks, tab, NUL...) replaced by `[`, `]`, `;`, `'`, `/` and
//! spaces, then trimmed ([`argument`]): the escaping rule of this format.
//!
//! From an event trace the writer streams ([`TlvSink`]); stacks, repairs
//! (one `leave` per frame an exit closes) and the layout of trees are
//! [`super::calls`]', shared with the chrome exporter. An untimed trace
//! gets one nanosecond per event.

use std::io::{self, Write};

use super::calls::{CallStream, CallWriter, Layout};
use super::{Exporter, StreamExporter, StreamSink};
use crate::ingest::{Event, EventSink, FuncId, FuncTable, NodeRecord, NodeSink};
use crate::symbols::FuncInfo;

/// `--to tlv`.
pub(super) struct Tlv;

impl Exporter for Tlv {
    fn name(&self) -> &'static str {
        "tlv"
    }
    fn about(&self) -> &'static str {
        "TraceLogVisualizer standard-format log, enter/leave per call in ns (streamed)"
    }
}

impl StreamExporter for Tlv {
    fn sink<'a>(
        &self,
        names: &'a [FuncInfo],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> Box<dyn StreamSink + 'a> {
        Box::new(TlvSink::new(names, funcs, threads, timed, out))
    }
}

/// Writes an `enter` and a `leave` line per call as events arrive.
pub(super) struct TlvSink<'a> {
    stream: CallStream<'a>,
    layout: Layout<'a>,
    /// Laid-out tree frames still open: (depth, function, thread, end).
    open: Vec<(u32, FuncId, u64, u64)>,
    writer: Writer<'a>,
}

/// The log side: one line per entry or exit.
struct Writer<'a> {
    out: io::BufWriter<&'a mut dyn Write>,
    /// Names as TLV arguments, made once each.
    args: Vec<Option<String>>,
    names: &'a [FuncInfo],
    error: Option<io::Error>,
}

impl<'a> TlvSink<'a> {
    /// A sink writing to `out`; times are nanoseconds when `timed`.
    pub(super) fn new(
        names: &'a [FuncInfo],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> TlvSink<'a> {
        TlvSink {
            stream: CallStream::new(threads, timed),
            layout: Layout::new(funcs, threads.first().copied().unwrap_or(0)),
            open: Vec::new(),
            writer: Writer {
                out: io::BufWriter::with_capacity(1 << 16, out),
                args: vec![None; names.len()],
                names,
                error: None,
            },
        }
    }

    /// Closes the laid-out frames at `depth` and deeper.
    fn close_from(&mut self, depth: u32) {
        while let Some(&(d, f, tid, end)) = self.open.last() {
            if d < depth {
                break;
            }
            self.open.pop();
            self.writer.line("leave", f, tid, end);
        }
    }

    /// Lays out a tree node at `depth` below the root (1 = top-level call)
    /// inside its caller, after its earlier siblings.
    fn place(&mut self, depth: u32, func: FuncId, total: u64) {
        self.close_from(depth);
        match self.layout.place(depth, func, total) {
            Some((tid, start, end)) => {
                self.writer.line("enter", func, tid, start);
                self.open.push((depth, func, tid, end));
            }
            None => self.close_from(0),
        }
    }
}

impl Writer<'_> {
    /// Writes `[time]Thread_<tid>.behavior(function)`.
    fn line(&mut self, behavior: &str, func: FuncId, tid: u64, time: u64) {
        let f = func as usize;
        if self.args[f].is_none() {
            self.args[f] = Some(argument(&self.names[f].name));
        }
        if self.error.is_some() {
            return;
        }
        let name = self.args[f].as_deref().unwrap_or("?");
        if let Err(e) = writeln!(self.out, "[{time}]Thread_{tid}.{behavior}({name})") {
            self.error = Some(e);
        }
    }
}

impl CallWriter for Writer<'_> {
    fn enter(&mut self, func: FuncId, tid: u64, time: u64) {
        self.line("enter", func, tid, time);
    }
    fn leave(&mut self, func: FuncId, tid: u64, _start: u64, end: u64) {
        self.line("leave", func, tid, end);
    }
}

/// `name` as a TLV behaviour argument that `rules/tlv.json` reads back:
/// without `"`, `\`, the `,` and `)` that end an argument, the `(` that
/// would unbalance it, control characters (line breaks, tabs, NUL), or
/// surrounding spaces.
fn argument(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| match c {
            '(' => '[',
            ')' => ']',
            ',' => ';',
            '"' => '\'',
            '\\' => '/',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    match mapped.trim() {
        "" => "?".to_string(),
        t => t.to_string(),
    }
}

impl EventSink for TlvSink<'_> {
    fn events(&mut self, events: &[Event]) {
        self.stream.events(events, &mut self.writer);
    }
}

impl NodeSink for TlvSink<'_> {
    fn node(&mut self, node: NodeRecord) {
        self.place(node.depth + 1, node.func, node.total);
    }
}

impl StreamSink for TlvSink<'_> {
    fn finish(mut self: Box<Self>) -> io::Result<()> {
        self.close_from(0);
        self.stream.finish(&mut self.writer);
        let w = &mut self.writer;
        super::calls::flushed(&mut w.out, &mut w.error)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Shape;
    use super::super::testing::{TRACE, export};
    use super::*;

    fn streamed(text: &str) -> String {
        String::from_utf8(super::super::testing::streamed(&Tlv, text)).unwrap()
    }

    #[test]
    fn each_call_is_an_enter_and_a_leave_line_in_ns() {
        let log = streamed(TRACE);
        let lines: Vec<_> = log.lines().collect();
        assert_eq!(lines.len(), 12, "two lines per call:\n{log}");
        assert_eq!(lines[0], "[0]Thread_0.enter(main)");
        assert_eq!(lines[2], "[12]Thread_0.enter(g)");
        assert_eq!(lines[3], "[15]Thread_0.leave(g)");
        assert_eq!(lines[11], "[40]Thread_0.leave(main)");
    }

    #[test]
    fn repairs_close_skipped_and_open_frames_in_time_order() {
        // `b` never exits: `a`'s exit closes it; `lost` (thread 2) and
        // `open` (thread 1) are still open at the end.
        let text =
            "E main 0 1\nE a 5 1\nE b 6 1\nX a 9 1\nX ghost 10 1\nE lost 20 2\nE open 30 1\n";
        let log = streamed(text);
        let expected = "\
[0]Thread_1.enter(main)
[5]Thread_1.enter(a)
[6]Thread_1.enter(b)
[9]Thread_1.leave(b)
[9]Thread_1.leave(a)
[20]Thread_2.enter(lost)
[30]Thread_1.enter(open)
[20]Thread_2.leave(lost)
[30]Thread_1.leave(open)
[30]Thread_1.leave(main)
";
        assert_eq!(log, expected);
    }

    #[test]
    fn trees_are_laid_out_inside_their_callers() {
        let log = export(
            Shape::Stream(&Tlv),
            "main (1 / 10)\n  f (2 / 4)\n    g (2 / 2)\n  g (5 / 5)\n",
        );
        let expected = "\
[0]Thread_0.enter(main)
[0]Thread_0.enter(f)
[0]Thread_0.enter(g)
[2]Thread_0.leave(g)
[4]Thread_0.leave(f)
[4]Thread_0.enter(g)
[9]Thread_0.leave(g)
[10]Thread_0.leave(main)
";
        assert_eq!(String::from_utf8(log).unwrap(), expected);
    }

    #[test]
    fn names_become_arguments_the_rules_read_back() {
        assert_eq!(argument("f"), "f");
        assert_eq!(
            argument("ns::max<int, long>(int, \"a\\b\")"),
            "ns::max<int; long>[int; 'a/b']"
        );
        assert_eq!(argument(" \n"), "?");
    }
}
