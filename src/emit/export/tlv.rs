//! TraceLogVisualizer's (TLV, TOPPERS) standard-format trace log: one event
//! per line, `[time]Resource.behavior(args)`. Each traced thread is a
//! resource `Thread_<tid>`; each call is an `enter(function)` line at its
//! entry and a `leave(function)` line at its exit, times in nanoseconds,
//! radix 10. `rules/tlv.json` reads the log back to the same call trees.
//!
//! The format has no comment lines, so the time unit is not in the file:
//! TLV's resource file says it (`"TimeScale": "ns"`, see docs/rules.md).
//! Arguments may hold neither `"` nor `\`, and `,` and `)` end one, so
//! names are written with `(`, `)`, `,`, `"`, `\` and line breaks replaced
//! by `[`, `]`, `;`, `'`, `/` and spaces ([`argument`]).
//!
//! From an event trace the writer streams ([`TlvSink`]) with the chrome
//! exporter's repairs: an exit closes the frames above its function's
//! nearest frame (one `leave` each, at the exit's time), an exit without
//! entry is dropped, frames still open at the end close at their thread's
//! last time. An untimed trace gets one nanosecond per event. Indented
//! traces and abstracted trees have no timestamps: calls are laid out one
//! after another inside their caller, each as long as its total.

use std::io::{self, Write};

use super::{Exported, Exporter, StreamSink};
use crate::calltree::NodeId;
use crate::ingest::{Event, EventKind, FuncId, FuncKey, FuncTable, NodeRecord, Sink};
use crate::symbols::FuncInfo;

/// `--to tlv`.
pub struct Tlv;

impl Exporter for Tlv {
    fn name(&self) -> &'static str {
        "tlv"
    }
    fn about(&self) -> &'static str {
        "TraceLogVisualizer standard-format log, enter/leave per call in ns (streamed)"
    }
    fn view(&self) -> crate::calltree::View {
        crate::calltree::View::Calls
    }
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()> {
        let tree = t.tree;
        let mut sink = TlvSink::new(t.names, t.funcs, &[], tree.unit.is_time(), out);
        let depths = tree.depths();
        for n in 1..tree.len() as NodeId {
            sink.place(depths[n as usize], tree.func(n), tree.total(n));
        }
        Box::new(sink).finish()
    }
    fn streams<'a>(
        &self,
        names: &'a [FuncInfo],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> Option<Box<dyn StreamSink + 'a>> {
        Some(Box::new(TlvSink::new(names, funcs, threads, timed, out)))
    }
}

/// Writes an `enter` and a `leave` line per call as events arrive.
pub struct TlvSink<'a> {
    out: io::BufWriter<&'a mut dyn Write>,
    /// Names as TLV arguments, made once each.
    args: Vec<Option<String>>,
    names: &'a [FuncInfo],
    funcs: &'a FuncTable,
    /// Thread ids by event thread index.
    threads: &'a [u64],
    timed: bool,
    /// Open frames per thread index.
    stacks: Vec<Vec<FuncId>>,
    /// Last time seen per thread index, to close what is left open.
    last: Vec<u64>,
    /// Event counter: the clock of untimed traces.
    tick: u64,
    /// Tree layout: next start per depth, open (depth, function, end)
    /// frames, and the current thread.
    cursor: Vec<u64>,
    open: Vec<(u32, FuncId, u64)>,
    tid: u64,
    error: Option<io::Error>,
}

impl<'a> TlvSink<'a> {
    /// A sink writing to `out`; times are nanoseconds when `timed`.
    pub fn new(
        names: &'a [FuncInfo],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> TlvSink<'a> {
        TlvSink {
            out: io::BufWriter::with_capacity(1 << 16, out),
            args: vec![None; names.len()],
            names,
            funcs,
            threads,
            timed,
            stacks: Vec::new(),
            last: Vec::new(),
            tick: 0,
            cursor: Vec::new(),
            open: Vec::new(),
            tid: threads.first().copied().unwrap_or(0),
            error: None,
        }
    }

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

    fn enter(&mut self, thread: usize, func: FuncId, time: u64) {
        if self.stacks.len() <= thread {
            self.stacks.resize_with(thread + 1, Vec::new);
            self.last.resize(thread + 1, 0);
        }
        self.stacks[thread].push(func);
        self.last[thread] = time;
        let tid = self.tid_of(thread);
        self.line("enter", func, tid, time);
    }

    fn exit(&mut self, thread: usize, func: FuncId, time: u64) {
        let Some(stack) = self.stacks.get(thread) else {
            return;
        };
        let Some(at) = stack.iter().rposition(|&f| f == func) else {
            return; // an exit with no entry
        };
        self.last[thread] = time;
        let tid = self.tid_of(thread);
        while self.stacks[thread].len() > at {
            let f = self.stacks[thread].pop().expect("checked length");
            self.line("leave", f, tid, time);
        }
    }

    fn tid_of(&self, thread: usize) -> u64 {
        self.threads.get(thread).copied().unwrap_or(thread as u64)
    }

    /// Closes the laid-out frames at `depth` and deeper.
    fn close_from(&mut self, depth: u32) {
        while let Some(&(d, f, end)) = self.open.last() {
            if d < depth {
                break;
            }
            self.open.pop();
            self.line("leave", f, self.tid, end);
        }
    }

    /// Lays out a tree node at `depth` below the root (1 = top-level call)
    /// inside its caller, after its earlier siblings.
    fn place(&mut self, depth: u32, func: FuncId, total: u64) {
        self.close_from(depth);
        if self.funcs.is_synthetic(func) {
            self.close_from(0);
            if let FuncKey::Thread(tid) = self.funcs.key(func) {
                self.tid = *tid;
            }
            self.cursor.clear();
            return;
        }
        let d = depth as usize;
        self.cursor.truncate(d + 1);
        self.cursor
            .resize(d + 1, self.cursor.last().copied().unwrap_or(0));
        let start = self.cursor[d];
        self.cursor[d] = start + total;
        self.cursor.push(start);
        self.line("enter", func, self.tid, start);
        self.open.push((depth, func, start + total));
    }
}

/// `name` as a TLV behaviour argument that `rules/tlv.json` reads back:
/// without `"`, `\`, the `,` and `)` that end an argument, the `(` that
/// would unbalance it, line breaks, or surrounding spaces.
fn argument(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| match c {
            '(' => '[',
            ')' => ']',
            ',' => ';',
            '"' => '\'',
            '\\' => '/',
            '\n' | '\r' => ' ',
            c => c,
        })
        .collect();
    match mapped.trim() {
        "" => "?".to_string(),
        t => t.to_string(),
    }
}

impl Sink for TlvSink<'_> {
    fn events(&mut self, events: &[Event]) {
        for e in events {
            let time = if self.timed {
                e.time
            } else {
                self.tick += 1;
                self.tick
            };
            match e.kind {
                EventKind::Enter => self.enter(e.thread as usize, e.func, time),
                EventKind::Exit => self.exit(e.thread as usize, e.func, time),
            }
        }
    }

    fn node(&mut self, node: NodeRecord) {
        self.place(node.depth + 1, node.func, node.total);
    }
}

impl StreamSink for TlvSink<'_> {
    fn finish(mut self: Box<Self>) -> io::Result<()> {
        self.close_from(0);
        // What is still open closes at its thread's last time, in time order.
        let mut left = Vec::new();
        for thread in 0..self.stacks.len() {
            let end = self.last[thread];
            while let Some(f) = self.stacks[thread].pop() {
                left.push((end, thread, f));
            }
        }
        left.sort_by_key(|&(end, thread, _)| (end, thread));
        for (end, thread, f) in left {
            let tid = self.tid_of(thread);
            self.line("leave", f, tid, end);
        }
        if self.error.is_none()
            && let Err(e) = self.out.flush()
        {
            self.error = Some(e);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{TRACE, built, export};
    use super::*;
    use crate::calltree::View;

    fn streamed(text: &str) -> String {
        let (b, names) = built(text, View::Calls);
        let input = crate::ingest::Input::from_bytes("t", text.as_bytes().to_vec());
        let format = crate::ingest::guess::detect(&input, None).unwrap();
        let mut funcs = b.funcs.clone();
        let mut out = Vec::new();
        let mut sink = Tlv
            .streams(&names, &b.funcs, &b.meta.threads, b.meta.timed, &mut out)
            .unwrap();
        format
            .parse(&input, &Default::default(), &mut funcs, &mut *sink)
            .unwrap();
        sink.finish().unwrap();
        String::from_utf8(out).unwrap()
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
            &Tlv,
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
