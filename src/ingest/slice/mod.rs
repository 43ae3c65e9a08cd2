//! Filters that cut a trace down before the tree is built (`--tid`,
//! `--time-range`, `--function`, `--exclude`, with uftrace's semantics): a
//! [`Filter`] is what the command line asked for, a [`Slice`] the same
//! resolved against one trace's threads and functions (`resolve`), and a
//! [`SliceSink`] sits between a format and the real sink (a tree builder, a
//! streaming exporter), passing on only the events the slice keeps. It
//! matches entries and exits per thread itself, with the builder's rules
//! (an exit closes the nearest open frame of its function, exits without
//! one are dropped), so the sink behind it only ever sees balanced events.

mod range;
mod resolve;
#[cfg(test)]
mod tests;

pub use range::{TimeRange, Window, show as show_time};
pub use resolve::{Marked, function_list, resolve};

use super::{Event, EventKind, EventSink, FuncId, NodeRecord, NodeSink, Sink};

/// What to keep of a trace, as given on the command line. Default is
/// everything (no filter). `P` is how a function is named: the command
/// line parses it once (`symbols::FuncPattern`), which ingest may not
/// import, so the slice leaves the functions to its caller ([`Marked`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter<P = String> {
    /// `--tid`: thread ids or names to keep; empty keeps every thread.
    pub tids: Vec<String>,
    /// `--time-range`: calls starting in this range, relative to the
    /// trace's first event. Default is none (all of the trace).
    pub range: Option<TimeRange>,
    /// `--function` patterns: keep only calls made while a matching
    /// function is on the stack. Default is none.
    pub function: Vec<P>,
    /// `--exclude` patterns: drop matching functions and their subtrees.
    /// Default is none.
    pub exclude: Vec<P>,
}

impl<P> Default for Filter<P> {
    fn default() -> Self {
        Filter {
            tids: Vec::new(),
            range: None,
            function: Vec::new(),
            exclude: Vec::new(),
        }
    }
}

impl<P> Filter<P> {
    /// True when the filter keeps everything.
    pub fn is_empty(&self) -> bool {
        self.tids.is_empty() && !self.needs_events()
    }

    /// True when the filter needs entries and exits (an indented tree
    /// cannot be cut by time or function).
    pub fn needs_events(&self) -> bool {
        self.range.is_some() || !self.function.is_empty() || !self.exclude.is_empty()
    }
}

/// A [`Filter`] resolved against one trace: thread indexes and function ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slice {
    /// `threads[i]`: keep thread index `i`; None keeps every thread.
    pub threads: Option<Vec<bool>>,
    /// Kept start times, relative to `origin`.
    pub range: Option<TimeRange>,
    /// Time of the trace's earliest event, where the range's times count
    /// from; None: the first event in trace order.
    pub origin: Option<u64>,
    /// `function[f]`: `f` roots kept calls; None keeps calls of any function.
    pub function: Option<Vec<bool>>,
    /// `exclude[f]`: `f` is dropped with its subtree.
    pub exclude: Vec<bool>,
}

impl Slice {
    /// Whether thread index `thread` is kept (`--tid`).
    pub fn keeps_thread(&self, thread: u32) -> bool {
        self.threads
            .as_ref()
            .is_none_or(|t| t.get(thread as usize).copied().unwrap_or(false))
    }

    /// Whether `func` is dropped with its subtree (`--exclude`).
    pub fn excludes(&self, func: FuncId) -> bool {
        self.exclude.get(func as usize).copied().unwrap_or(false)
    }

    /// Whether `func` roots kept calls (`--function`).
    pub fn matches(&self, func: FuncId) -> bool {
        self.function
            .as_ref()
            .is_some_and(|m| m.get(func as usize).copied().unwrap_or(false))
    }

    /// Whether the slice cuts by function (`--function`, or an
    /// `--exclude` that matched something).
    pub fn cuts_functions(&self) -> bool {
        self.function.is_some() || self.exclude.contains(&true)
    }
}

/// What a [`SliceSink`] saw, for the checks after the pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SliceStats {
    /// Where the range's times count from (the slice's origin, else the
    /// first event's time).
    pub first_time: Option<u64>,
    /// Latest time of any event.
    pub last_time: u64,
    /// Entries passed on.
    pub kept_calls: u64,
    /// Calls passed on that were still open at the end, closed here.
    pub unclosed: u64,
    /// Exits of kept threads that matched no open call, dropped here.
    pub orphan_exits: u64,
    /// The format gave tree nodes (an indented trace), not events.
    pub got_nodes: bool,
    /// With [`SliceSink::dense_threads`]: the thread index in the trace of
    /// each thread the sink behind saw, by its index there.
    pub threads: Vec<u32>,
}

/// An open call on one thread, as the slice sees it.
#[derive(Debug, Clone, Copy)]
struct Frame {
    func: FuncId,
    /// Its entry was passed on.
    kept: bool,
    /// An `--exclude` function.
    excluded: bool,
    /// A `--function` function.
    matched: bool,
}

/// One thread's open calls, with counts that make the common questions cheap.
#[derive(Debug, Default)]
struct Stack {
    frames: Vec<Frame>,
    /// Open frames per function: an exit of a function with none open is
    /// an orphan at once, without searching the stack.
    open: Vec<u32>,
    /// Open `--exclude` frames.
    excluded: u32,
    /// Open `--function` frames.
    matched: u32,
}

impl Stack {
    fn push(&mut self, f: Frame) {
        let i = f.func as usize;
        if i >= self.open.len() {
            self.open.resize(i + 1, 0);
        }
        self.open[i] += 1;
        self.excluded += u32::from(f.excluded);
        self.matched += u32::from(f.matched);
        self.frames.push(f);
    }

    fn pop(&mut self) -> Option<Frame> {
        let f = self.frames.pop()?;
        self.open[f.func as usize] -= 1;
        self.excluded -= u32::from(f.excluded);
        self.matched -= u32::from(f.matched);
        Some(f)
    }

    /// Index of the frame an exit of `func` closes, if one is open.
    fn find(&self, func: FuncId) -> Option<usize> {
        if self.frames.last().is_some_and(|f| f.func == func) {
            return Some(self.frames.len() - 1);
        }
        if self.open.get(func as usize).is_none_or(|&n| n == 0) {
            return None;
        }
        self.frames.iter().rposition(|f| f.func == func)
    }
}

/// Passes on to `inner` the events `slice` keeps (see the module doc).
/// It takes events one by one (no chunk summaries), so a build through it
/// is sequential.
pub struct SliceSink<'a> {
    slice: &'a Slice,
    inner: &'a mut dyn Sink,
    stacks: Vec<Stack>,
    /// The range in trace time, once the first event fixed its origin.
    window: Option<Window>,
    stats: SliceStats,
    out: Vec<Event>,
    /// With [`SliceSink::dense_threads`]: each trace thread's index in
    /// what is passed on (`u32::MAX` before its first event passed on).
    dense: Option<Vec<u32>>,
}

impl<'a> SliceSink<'a> {
    /// A sink passing on to `inner` what `slice` keeps.
    pub fn new(slice: &'a Slice, inner: &'a mut dyn Sink) -> SliceSink<'a> {
        SliceSink {
            slice,
            inner,
            stacks: Vec::new(),
            window: None,
            stats: SliceStats::default(),
            out: Vec::new(),
            dense: None,
        }
    }

    /// Numbers the threads passed on 0, 1, ... in the order their first
    /// event is, so that threads with nothing kept leave no trace behind
    /// ([`SliceStats::threads`] says which they were).
    pub fn dense_threads(mut self) -> Self {
        self.dense = Some(Vec::new());
        self
    }

    /// Closes the calls passed on that are still open (at the trace's last
    /// time, or the range's end if earlier) and says what was seen.
    pub fn finish(mut self) -> SliceStats {
        let time = self.clamp(self.stats.last_time);
        for t in 0..self.stacks.len() {
            while let Some(f) = self.stacks[t].pop() {
                if f.kept {
                    self.stats.unclosed += 1;
                    self.forward(exit(f.func, t as u32, time));
                }
            }
        }
        self.flush();
        self.stats
    }

    fn event(&mut self, e: &Event) {
        let origin = self.slice.origin.unwrap_or(e.time);
        let first = *self.stats.first_time.get_or_insert(origin);
        if self.window.is_none() {
            self.window = self.slice.range.map(|r| r.window(first));
        }
        self.stats.last_time = self.stats.last_time.max(e.time);
        if !self.slice.keeps_thread(e.thread) {
            return;
        }
        let t = e.thread as usize;
        if t >= self.stacks.len() {
            self.stacks.resize_with(t + 1, Stack::default);
        }
        match e.kind {
            EventKind::Enter => self.enter(e),
            EventKind::Exit => self.exit(e),
        }
    }

    fn enter(&mut self, e: &Event) {
        let stack = &self.stacks[e.thread as usize];
        let excluded = self.slice.excludes(e.func);
        let matched = self.slice.matches(e.func);
        let rooted = self.slice.function.is_none() || stack.matched > 0 || matched;
        let kept = stack.excluded == 0 && !excluded && rooted && self.in_window(e.time);
        self.stacks[e.thread as usize].push(Frame {
            func: e.func,
            kept,
            excluded,
            matched,
        });
        if kept {
            self.stats.kept_calls += 1;
            self.forward(*e);
        }
    }

    /// Closes the nearest open frame of the function, and those above it.
    /// When that frame was passed on, its exit goes on as it is (the sink
    /// behind unwinds the kept frames above it itself); otherwise each
    /// kept frame above it gets an exit of its own.
    fn exit(&mut self, e: &Event) {
        let stack = &mut self.stacks[e.thread as usize];
        let Some(pos) = stack.find(e.func) else {
            self.stats.orphan_exits += 1;
            return;
        };
        let time = self.clamp(e.time);
        let stack = &mut self.stacks[e.thread as usize];
        let whole = stack.frames[pos].kept;
        while self.stacks[e.thread as usize].frames.len() > pos {
            let f = self.stacks[e.thread as usize]
                .pop()
                .expect("a frame above pos");
            if f.kept && !whole {
                self.forward(exit(f.func, e.thread, time));
            }
        }
        if whole {
            self.forward(Event { time, ..*e });
        }
    }

    /// Queues `e` for the sink behind, on its thread there.
    fn forward(&mut self, mut e: Event) {
        e.thread = self.thread_behind(e.thread);
        self.out.push(e);
    }

    fn thread_behind(&mut self, thread: u32) -> u32 {
        let Some(dense) = &mut self.dense else {
            return thread;
        };
        let t = thread as usize;
        if t >= dense.len() {
            dense.resize(t + 1, u32::MAX);
        }
        if dense[t] == u32::MAX {
            dense[t] = self.stats.threads.len() as u32;
            self.stats.threads.push(thread);
        }
        dense[t]
    }

    fn in_window(&self, time: u64) -> bool {
        self.window.is_none_or(|w| w.keeps(time))
    }

    /// Exits after the range's end are passed on at its end.
    fn clamp(&self, time: u64) -> u64 {
        self.window.map_or(time, |w| w.clamp(time))
    }

    fn flush(&mut self) {
        if !self.out.is_empty() {
            self.inner.events(&self.out);
            self.out.clear();
        }
    }
}

fn exit(func: FuncId, thread: u32, time: u64) -> Event {
    Event {
        time,
        func,
        thread,
        kind: EventKind::Exit,
    }
}

impl EventSink for SliceSink<'_> {
    fn events(&mut self, events: &[Event]) {
        for e in events {
            self.event(e);
        }
        self.flush();
    }
}

/// An indented trace is one thread's finished tree: it can be kept or
/// dropped whole by `--tid` (its one thread is index 0), nothing else.
impl NodeSink for SliceSink<'_> {
    fn node(&mut self, node: NodeRecord) {
        self.stats.got_nodes = true;
        if self.slice.keeps_thread(0) && self.slice.range.is_none() && self.is_whole() {
            self.thread_behind(0);
            self.inner.node(node);
        }
    }
    fn scale_times(&mut self, factor: u64) {
        self.inner.scale_times(factor)
    }
    fn clear_nodes(&mut self) {
        self.inner.clear_nodes()
    }
}

impl SliceSink<'_> {
    /// True when the slice keeps every function.
    fn is_whole(&self) -> bool {
        !self.slice.cuts_functions()
    }
}
