//! `calltrace live`: a trace followed while the program writes it (seed
//! 001's real-time view of a running system). `follow` reads the growing
//! file or FIFO on its own thread; [`Monitor`] is fed what it read, cut
//! anywhere: it tells the format (a binary trace by its magic, text from
//! the first event line), `pieces` cuts whole lines or records into
//! batches that the format's own reader parses, and `tally` keeps every
//! thread's current stack, the self time of each function over the last
//! interval and overall, its calls, and counts events and the events a
//! lossy runtime reported dropped; `screen` draws a [`Snapshot`] with ratatui.
//! A thread whose outermost call has returned has ended: it is shown once
//! with no open call, then only counted, so that a program that started
//! hundreds of short threads still shows the ones running.

pub mod follow;
mod pieces;
pub mod screen;
mod tally;

use std::path::PathBuf;

use crate::error::Result;
use crate::ingest::{self, Event, FuncId, FuncTable, Input, NodeRecord, ParseOptions};
use crate::symbols::{self, FuncInfo};
use pieces::{Cutter, Framing};
use tally::Tally;

/// The state of a followed trace.
pub struct Monitor {
    binary: Option<PathBuf>,
    format: Option<&'static dyn ingest::TraceFormat>,
    /// Cuts what arrives into batches, once the format is known.
    cutter: Option<Cutter>,
    /// Bytes received before the format could be told.
    pending: Vec<u8>,
    funcs: FuncTable,
    names: Vec<FuncInfo>,
    /// Search path and demangling style.
    symbols: symbols::SymbolOptions,
    /// What the trace said about the loaded objects, for naming.
    objects: ingest::TraceMeta,
    timed: bool,
    tally: Tally,
    last_interval: Vec<(FuncId, u64)>,
    /// Recent intervals: seconds and events, for the rate.
    recent: std::collections::VecDeque<(f64, u64)>,
    dropped: u64,
    skipped: u64,
    problem: Option<String>,
    /// A batch's decoded events (the allocation is kept between batches).
    scratch: Vec<Event>,
}

/// What the screen shows.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Snapshot {
    /// True when weights are nanoseconds of self time, false when they are calls.
    pub timed: bool,
    /// Functions by self time over the last interval: name, weight, share.
    pub top_interval: Vec<(String, u64, f64)>,
    /// Functions by self time since the start.
    pub top_overall: Vec<(String, u64, f64)>,
    /// Each thread's current stack, outermost first, by thread id. A
    /// thread that ended is here (with an empty stack) in one snapshot only.
    pub stacks: Vec<(u64, Vec<String>)>,
    /// Threads that ended and are no longer in `stacks`.
    pub ended_threads: usize,
    /// Events per second over the last interval.
    pub rate: f64,
    /// Events read.
    pub events: u64,
    /// Events the runtime reported dropped (lossy mode).
    pub dropped: u64,
    /// Lines that could not be read.
    pub skipped: u64,
    /// Something the user should know (unresolvable binary, bad lines).
    pub problem: Option<String>,
}

/// One function's figures since the start (`live --batch`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Total {
    /// Its name.
    pub name: String,
    /// Times it was entered.
    pub calls: u64,
    /// Its self time in nanoseconds (timed traces), else its calls.
    pub self_weight: u64,
}

impl Monitor {
    /// A monitor naming functions from `binary` when given.
    pub fn new(binary: Option<PathBuf>) -> Monitor {
        Monitor {
            binary,
            format: None,
            cutter: None,
            pending: Vec::new(),
            funcs: FuncTable::default(),
            names: Vec::new(),
            symbols: symbols::SymbolOptions::default(),
            objects: ingest::TraceMeta::default(),
            timed: false,
            tally: Tally::default(),
            last_interval: Vec::new(),
            recent: Default::default(),
            dropped: 0,
            skipped: 0,
            problem: None,
            scratch: Vec::new(),
        }
    }

    /// Reads the next bytes of the trace, cut anywhere: the pieces (lines
    /// or records) they complete are parsed now, the rest when it is whole.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<()> {
        let batch = match (&mut self.cutter, self.format) {
            (Some(cutter), Some(format)) => cutter.push(bytes).map(|b| (format, b)),
            _ => {
                self.pending.extend_from_slice(bytes);
                self.sniff()?
            }
        };
        match batch {
            Some((format, batch)) => {
                self.dropped += batch.dropped;
                self.parse(format, batch.bytes)
            }
            None => Ok(()),
        }
    }

    /// Names functions with these symbol options (search path, demangling).
    pub fn with_symbols(mut self, symbols: symbols::SymbolOptions) -> Monitor {
        self.symbols = symbols;
        self
    }

    /// Forgets everything read (the trace file was truncated).
    pub fn restart(&mut self) {
        let symbols = std::mem::take(&mut self.symbols);
        *self = Monitor::new(self.binary.take()).with_symbols(symbols);
    }

    /// Tells the format once the first event (or the binary header) has
    /// come, and cuts what came so far.
    fn sniff(&mut self) -> Result<Option<(&'static dyn ingest::TraceFormat, pieces::Batch)>> {
        let Some((format, framing, header_len)) = self.framing()? else {
            return Ok(None);
        };
        let mut cutter = Cutter::new(framing, self.pending[..header_len].to_vec());
        let batch = cutter.push(&self.pending[header_len..]);
        self.pending = Vec::new();
        (self.format, self.cutter) = (Some(format), Some(cutter));
        Ok(batch.map(|b| (format, b)))
    }

    /// The format of the pending bytes, how it is cut and how long its
    /// header is, once that can be told.
    fn framing(&self) -> Result<Option<(&'static dyn ingest::TraceFormat, Framing, usize)>> {
        let magic = ingest::binary::MAGIC;
        if magic.starts_with(&self.pending) {
            return Ok(None); // perhaps the start of a binary trace
        }
        if self.pending.starts_with(magic) {
            return Ok(
                ingest::binary::header_end(&self.pending).map(|(end, version)| {
                    let format: &'static dyn ingest::TraceFormat = &ingest::BinaryFormat;
                    (format, Framing::Records(version), end)
                }),
            );
        }
        // Past a long header of `# map` lines, as the sniffer reads files.
        let header = ingest::guess::header_len(&self.pending).min(ingest::guess::HEADER_BOUND);
        let head = &self.pending[..self.pending.len().min(header + ingest::guess::HEAD)];
        if ingest::guess::meaningful_lines(head).next().is_none() {
            return Ok(None);
        }
        let input = Input::from_bytes("trace", head.to_vec());
        let format = ingest::guess::detect(&input, None)?;
        let header_len = self
            .pending
            .split_inclusive(|&b| b == b'\n')
            .take_while(|l| l.starts_with(b"#"))
            .map(<[u8]>::len)
            .sum();
        Ok(Some((format, Framing::Lines, header_len)))
    }

    fn parse(&mut self, format: &dyn ingest::TraceFormat, batch: Vec<u8>) -> Result<()> {
        let input = Input::from_bytes("trace", batch);
        let opts = ParseOptions {
            lenient: true,
            threads: 1,
            ..ParseOptions::default()
        };
        let mut sink = Collect(std::mem::take(&mut self.scratch));
        sink.0.clear();
        let meta = format.parse(&input, &opts, &mut self.funcs, &mut sink)?;
        self.objects.base = self.objects.base.or(meta.base);
        if self.objects.exe_path.is_none() {
            self.objects.exe_path = meta.exe_path.clone();
        }
        // The header's mappings come with every batch: keep each once.
        for m in &meta.maps {
            if !self.objects.maps.contains(m) {
                self.objects.maps.push(m.clone());
            }
        }
        self.timed = meta.timed;
        self.skipped += meta.skipped_lines;
        if let Some(first) = meta.first_skipped {
            self.problem
                .get_or_insert(format!("skipped lines; first: {first}"));
        }
        let funcs = self.funcs.len();
        self.tally.apply(&meta.threads, &sink.0, self.timed, funcs);
        self.scratch = sink.0;
        if let (Some(cutter), Some(bytes)) = (&mut self.cutter, input.into_bytes()) {
            cutter.give_back(bytes);
        }
        Ok(())
    }

    /// Ends an interval of `secs` seconds: its figures become the "last
    /// interval" ones. The runtime writes events in blocks, so an interval
    /// that received none keeps the previous one's table, and the rate is
    /// taken over the last [`RATE_WINDOW`] intervals.
    pub fn end_interval(&mut self, secs: f64) {
        let t = &mut self.tally;
        if t.now_touched {
            self.last_interval = sorted(&t.self_now);
            t.self_now.fill(0);
            t.now_touched = false;
        }
        self.recent.push_back((secs, t.events_now));
        if self.recent.len() > RATE_WINDOW {
            self.recent.pop_front();
        }
        self.tally.events_now = 0;
    }

    fn rate(&self) -> f64 {
        let (secs, events) = self
            .recent
            .iter()
            .fold((0.0, 0), |(s, n), &(ds, dn)| (s + ds, n + dn));
        if secs > 0.0 {
            events as f64 / secs
        } else {
            0.0
        }
    }

    /// What to draw, with at most `top` functions per list.
    pub fn snapshot(&mut self, top: usize) -> Snapshot {
        self.name_functions();
        self.drop_ended();
        for t in self.tally.threads.values_mut() {
            t.shown_ended = t.stack.is_empty();
        }
        let named = |list: &[(FuncId, u64)]| {
            let sum: u64 = list.iter().map(|&(_, w)| w).sum();
            list.iter()
                .take(top)
                .map(|&(f, w)| (self.name(f), w, w as f64 / sum.max(1) as f64))
                .collect()
        };
        let mut stacks: Vec<_> = self
            .tally
            .threads
            .iter()
            .map(|(&tid, t)| (tid, t.stack.iter().map(|&f| self.name(f)).collect()))
            .collect();
        stacks.sort();
        Snapshot {
            timed: self.timed,
            top_interval: named(&self.last_interval),
            top_overall: named(&sorted(&self.tally.self_all)),
            stacks,
            ended_threads: self.tally.ended.len(),
            rate: self.rate(),
            events: self.tally.events,
            dropped: self.dropped,
            skipped: self.skipped,
            problem: self.problem.clone(),
        }
    }

    /// Every function entered or with self time since the start, by
    /// decreasing calls, then name: what `live --batch` prints at the end.
    pub fn totals(&mut self) -> Vec<Total> {
        self.name_functions();
        let t = &self.tally;
        let mut rows: Vec<Total> = (0..t.calls.len())
            .filter(|&f| t.calls[f] > 0 || t.self_all[f] > 0)
            .map(|f| Total {
                name: self.name(f as FuncId),
                calls: t.calls[f],
                self_weight: t.self_all[f],
            })
            .collect();
        rows.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
        rows
    }

    /// Forgets the threads a snapshot already showed as ended (their
    /// outermost call returned, nothing since).
    fn drop_ended(&mut self) {
        let ended: Vec<u64> = self
            .tally
            .threads
            .iter()
            .filter(|(_, t)| t.shown_ended && t.stack.is_empty())
            .map(|(&tid, _)| tid)
            .collect();
        for tid in ended {
            self.tally.threads.remove(&tid);
            self.tally.ended.insert(tid);
        }
    }

    fn name(&self, f: FuncId) -> String {
        self.names
            .get(f as usize)
            .map_or_else(|| format!("#{f}"), |i| i.name.clone())
    }

    /// Names functions seen since the last call (resolving against the binary).
    fn name_functions(&mut self) {
        if self.names.len() == self.funcs.len() {
            return;
        }
        let binary = self.binary.clone().or_else(|| {
            let exe = self.objects.exe_path.as_deref()?;
            symbols::locate(exe, &self.symbols.search_path)
        });
        let resolvable = binary.is_some() || !self.objects.maps.is_empty();
        self.names = if resolvable && self.funcs.has_addresses() {
            let resolved =
                symbols::resolve(&self.funcs, &self.objects, binary.as_deref(), &self.symbols);
            match resolved {
                Ok((names, _)) => names,
                Err(e) => {
                    self.problem = Some(e.to_string());
                    symbols::names_without_binary(&self.funcs)
                }
            }
        } else {
            symbols::names_without_binary(&self.funcs)
        };
    }
}

/// Intervals the events-per-second figure is averaged over.
pub const RATE_WINDOW: usize = 8;

/// Weights by decreasing weight, then function id (deterministic).
fn sorted(weights: &[u64]) -> Vec<(FuncId, u64)> {
    let mut v: Vec<_> = (0..)
        .zip(weights.iter().copied())
        .filter(|&(_, w)| w > 0)
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// Keeps the events of one batch.
struct Collect(Vec<Event>);

impl ingest::EventSink for Collect {
    fn events(&mut self, events: &[Event]) {
        self.0.extend_from_slice(events);
    }
}

impl ingest::NodeSink for Collect {
    fn node(&mut self, _node: NodeRecord) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_and_self_times_follow_the_batches() {
        let mut m = Monitor::new(None);
        m.feed(b"# a comment\n").unwrap();
        assert_eq!(m.snapshot(5).events, 0);
        m.feed(b"E main 0 1\nE hot 10 1\nX hot 70 1\nE hot 80 1\n")
            .unwrap();
        m.feed(b"E other 0 2\n# dropped 7\n").unwrap();
        m.end_interval(0.5);
        let s = m.snapshot(5);
        assert_eq!(
            s.stacks,
            [
                (1, vec!["main".to_string(), "hot".to_string()]),
                (2, vec!["other".to_string()])
            ]
        );
        assert_eq!(s.top_interval[0].0, "hot");
        assert_eq!(s.top_interval[0].1, 60);
        assert_eq!(s.top_interval[1], ("main".to_string(), 20, 0.25));
        assert_eq!((s.events, s.rate, s.dropped), (5, 10.0, 7));
        m.end_interval(1.5);
        let s = m.snapshot(5);
        assert_eq!(
            s.top_interval[0].0, "hot",
            "an empty interval keeps the last table"
        );
        assert_eq!(s.rate, 5.0 / 2.0);
        m.feed(b"X hot 90 1\nX main 100 1\n").unwrap();
        m.end_interval(0.5);
        let s = m.snapshot(5);
        assert_eq!(
            s.top_interval,
            [("main".to_string(), 10, 0.5), ("hot".to_string(), 10, 0.5)]
        );
        assert_eq!(s.top_overall[0], ("hot".to_string(), 70, 0.7));
        assert_eq!(s.stacks[0], (1, vec![]));
    }

    #[test]
    fn untimed_traces_count_calls() {
        let mut m = Monitor::new(None);
        m.feed(b"E f\nX f\nE f\nX f\nE g\n").unwrap();
        let s = m.snapshot(5);
        assert!(!s.timed);
        assert_eq!(s.top_overall[0], ("f".to_string(), 2, 2.0 / 3.0));
    }

    /// A binary trace fed in pieces cut anywhere (as a FIFO delivers it)
    /// reads as it would whole.
    #[test]
    fn binary_traces_are_followed_in_pieces_cut_anywhere() {
        use ingest::EventKind::{Enter, Exit};
        let blocks = [
            (7, vec![(Enter, 0x1000, 10), (Enter, 0x2000, 20)]),
            (8, vec![(Enter, 0x3000, 5)]),
            (7, vec![(Exit, 0x2000, 80), (Exit, 0x1000, 100)]),
        ];
        let trace = ingest::binary::encode(0, "", &blocks);
        for piece in [1, 3, 29, trace.len()] {
            let mut m = Monitor::new(None);
            for bytes in trace.chunks(piece) {
                m.feed(bytes).unwrap();
            }
            let s = m.snapshot(5);
            assert!(s.timed, "piece {piece}");
            assert_eq!(s.events, 5, "piece {piece}");
            let weights: Vec<u64> = s.top_overall.iter().map(|t| t.1).collect();
            assert_eq!(weights, [60, 30], "piece {piece}");
            assert_eq!(s.stacks.len(), 2, "piece {piece}");
            assert_eq!(s.stacks[1].1.len(), 1, "thread 8 is in one call");
            let calls: Vec<u64> = m.totals().iter().map(|t| t.calls).collect();
            assert_eq!(calls, [1, 1, 1], "piece {piece}");
        }
    }

    #[test]
    fn ended_threads_leave_the_stacks_after_one_refresh_and_are_counted() {
        let mut m = Monitor::new(None);
        let mut batch = String::from("E main 0 1\n");
        for tid in 2..489 {
            batch.push_str(&format!("E work {tid} {tid}\nX work {} {tid}\n", tid + 1));
        }
        m.feed(batch.as_bytes()).unwrap();
        let s = m.snapshot(5);
        assert_eq!(s.stacks.len(), 488, "ended threads are shown once");
        assert!(s.stacks[1..].iter().all(|(_, st)| st.is_empty()));
        assert_eq!(s.ended_threads, 0);
        let s = m.snapshot(5);
        assert_eq!(s.stacks, [(1, vec!["main".to_string()])]);
        assert_eq!(s.ended_threads, 487);
        // A thread id seen again is running again.
        m.feed(b"E work 900 7\n").unwrap();
        let s = m.snapshot(5);
        assert_eq!(s.stacks.len(), 2);
        assert_eq!(s.stacks[1], (7, vec!["work".to_string()]));
        assert_eq!(s.ended_threads, 486);
    }
}
