//! `calltrace live`: a trace followed while the program writes it (seed
//! 001's real-time view of a running system). `follow` reads the growing
//! file or FIFO on its own thread; [`Monitor`] parses each batch of lines
//! with the trace's own format (sniffed from the first event line), keeps
//! every thread's current stack and the self time of each function over the
//! last interval and overall, and counts events and the events a lossy
//! runtime reported dropped; `screen` draws a [`Snapshot`] with ratatui.
//! A thread whose outermost call has returned has ended: it is shown once
//! with no open call, then only counted, so that a program that started
//! hundreds of short threads still shows the ones running.

pub mod follow;
pub mod screen;

use std::path::PathBuf;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::ingest::{self, Event, EventKind, FuncId, FuncTable, Input, NodeRecord, ParseOptions};
use crate::symbols::{self, FuncInfo};

/// One thread as the view sees it.
#[derive(Debug, Default)]
struct ThreadState {
    stack: Vec<FuncId>,
    last_time: Option<u64>,
    /// A snapshot showed it with no open call: the next one drops it.
    shown_ended: bool,
}

/// The state of a followed trace.
pub struct Monitor {
    binary: Option<PathBuf>,
    format: Option<&'static dyn ingest::TraceFormat>,
    /// Comment lines before the first event (`# base`), given to every later batch.
    header: Vec<u8>,
    /// Bytes received before the format could be told.
    pending: Vec<u8>,
    funcs: FuncTable,
    names: Vec<FuncInfo>,
    /// Search path and demangling style.
    symbols: symbols::SymbolOptions,
    /// What the trace said about the loaded objects, for naming.
    objects: ingest::TraceMeta,
    timed: bool,
    threads: FxHashMap<u64, ThreadState>,
    /// Threads dropped from the view because they ended.
    ended: rustc_hash::FxHashSet<u64>,
    self_all: FxHashMap<FuncId, u64>,
    self_now: FxHashMap<FuncId, u64>,
    last_interval: Vec<(FuncId, u64)>,
    events: u64,
    events_now: u64,
    /// Recent intervals: seconds and events, for the rate.
    recent: std::collections::VecDeque<(f64, u64)>,
    dropped: u64,
    skipped: u64,
    problem: Option<String>,
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

impl Monitor {
    /// A monitor naming functions from `binary` when given.
    pub fn new(binary: Option<PathBuf>) -> Monitor {
        Monitor {
            binary,
            format: None,
            header: Vec::new(),
            pending: Vec::new(),
            funcs: FuncTable::default(),
            names: Vec::new(),
            symbols: symbols::SymbolOptions::default(),
            objects: ingest::TraceMeta::default(),
            timed: false,
            threads: FxHashMap::default(),
            ended: Default::default(),
            self_all: FxHashMap::default(),
            self_now: FxHashMap::default(),
            last_interval: Vec::new(),
            events: 0,
            events_now: 0,
            recent: Default::default(),
            dropped: 0,
            skipped: 0,
            problem: None,
        }
    }

    /// Reads a batch of complete lines.
    pub fn feed(&mut self, lines: &[u8]) -> Result<()> {
        self.dropped += dropped_markers(lines);
        let format = match self.format {
            Some(f) => f,
            None => {
                self.pending.extend_from_slice(lines);
                match self.sniff()? {
                    Some(f) => f,
                    None => return Ok(()),
                }
            }
        };
        let batch = match self.pending.is_empty() {
            true => [self.header.as_slice(), lines].concat(),
            false => std::mem::take(&mut self.pending),
        };
        self.parse(format, batch)
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

    fn sniff(&mut self) -> Result<Option<&'static dyn ingest::TraceFormat>> {
        // Past a long header of `# map` lines, as the sniffer reads files.
        let header = ingest::guess::header_len(&self.pending).min(ingest::guess::HEADER_BOUND);
        let head = &self.pending[..self.pending.len().min(header + ingest::guess::HEAD)];
        if head.starts_with(ingest::binary::MAGIC) {
            return Err(Error::Input(
                "live follows text traces; run the program without CALLTRACE_FORMAT=binary".into(),
            ));
        }
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
        self.header = self.pending[..header_len].to_vec();
        self.format = Some(format);
        Ok(Some(format))
    }

    fn parse(&mut self, format: &dyn ingest::TraceFormat, batch: Vec<u8>) -> Result<()> {
        let input = Input::from_bytes("trace", batch);
        let opts = ParseOptions {
            lenient: true,
            threads: 1,
            ..ParseOptions::default()
        };
        let mut sink = Collect::default();
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
        for e in sink.0 {
            let tid = meta.threads.get(e.thread as usize).copied().unwrap_or(0);
            self.event(tid, e);
        }
        Ok(())
    }

    fn event(&mut self, tid: u64, e: Event) {
        self.events += 1;
        self.events_now += 1;
        // A thread id the system gave again, or a thread that went on.
        self.ended.remove(&tid);
        let th = self.threads.entry(tid).or_default();
        th.shown_ended = false;
        if let (Some(&top), Some(last), true) = (th.stack.last(), th.last_time, self.timed) {
            let dt = e.time.saturating_sub(last);
            *self.self_all.entry(top).or_default() += dt;
            *self.self_now.entry(top).or_default() += dt;
        }
        th.last_time = Some(e.time);
        match e.kind {
            EventKind::Enter => {
                th.stack.push(e.func);
                if !self.timed {
                    *self.self_all.entry(e.func).or_default() += 1;
                    *self.self_now.entry(e.func).or_default() += 1;
                }
            }
            EventKind::Exit => {
                if let Some(i) = th.stack.iter().rposition(|&f| f == e.func) {
                    th.stack.truncate(i);
                }
            }
        }
    }

    /// Ends an interval of `secs` seconds: its figures become the "last
    /// interval" ones. The runtime writes events in blocks, so an interval
    /// that received none keeps the previous one's table, and the rate is
    /// taken over the last [`RATE_WINDOW`] intervals.
    pub fn end_interval(&mut self, secs: f64) {
        if !self.self_now.is_empty() {
            self.last_interval = sorted(&self.self_now);
            self.self_now.clear();
        }
        self.recent.push_back((secs, self.events_now));
        if self.recent.len() > RATE_WINDOW {
            self.recent.pop_front();
        }
        self.events_now = 0;
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
        for t in self.threads.values_mut() {
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
            .threads
            .iter()
            .map(|(&tid, t)| (tid, t.stack.iter().map(|&f| self.name(f)).collect()))
            .collect();
        stacks.sort();
        Snapshot {
            timed: self.timed,
            top_interval: named(&self.last_interval),
            top_overall: named(&sorted(&self.self_all)),
            stacks,
            ended_threads: self.ended.len(),
            rate: self.rate(),
            events: self.events,
            dropped: self.dropped,
            skipped: self.skipped,
            problem: self.problem.clone(),
        }
    }

    /// Forgets the threads a snapshot already showed as ended (their
    /// outermost call returned, nothing since).
    fn drop_ended(&mut self) {
        let ended: Vec<u64> = self
            .threads
            .iter()
            .filter(|(_, t)| t.shown_ended && t.stack.is_empty())
            .map(|(&tid, _)| tid)
            .collect();
        for tid in ended {
            self.threads.remove(&tid);
            self.ended.insert(tid);
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
fn sorted(weights: &FxHashMap<FuncId, u64>) -> Vec<(FuncId, u64)> {
    let mut v: Vec<_> = weights
        .iter()
        .map(|(&f, &w)| (f, w))
        .filter(|&(_, w)| w > 0)
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// Sum of the `# dropped N` lines a lossy runtime writes.
fn dropped_markers(lines: &[u8]) -> u64 {
    lines
        .split(|&b| b == b'\n')
        .filter_map(|l| l.strip_prefix(b"# dropped "))
        .filter_map(|n| {
            std::str::from_utf8(n)
                .ok()?
                .trim()
                .split(' ')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum()
}

/// Keeps the events of one batch.
#[derive(Default)]
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
    fn untimed_traces_count_calls_and_binary_traces_are_refused() {
        let mut m = Monitor::new(None);
        m.feed(b"E f\nX f\nE f\nX f\nE g\n").unwrap();
        let s = m.snapshot(5);
        assert!(!s.timed);
        assert_eq!(s.top_overall[0], ("f".to_string(), 2, 2.0 / 3.0));
        let mut m = Monitor::new(None);
        let err = m.feed(b"CALLTRC\0\x01\0\x01\0").unwrap_err().to_string();
        assert!(err.contains("text traces"), "{err}");
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
