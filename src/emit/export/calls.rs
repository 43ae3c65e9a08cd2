//! The calls of a trace as they happen, for the exporters that write them
//! one by one (chrome, tlv) instead of from a built tree.
//!
//! [`CallStream`] follows the event stream with per-thread stacks and the
//! tree builders' repairs: an exit closes the frames above its function's
//! nearest frame (each at the exit's time), an exit without entry is
//! dropped, and [`CallStream::finish`] closes what is still open at its
//! thread's last time, in time order. An untimed trace gets one unit per
//! event as its clock. [`Layout`] places the nodes of a tree (indented
//! traces, abstracted trees), which have no timestamps: calls one after
//! another inside their caller, each as long as its total.

use crate::ingest::{Event, EventKind, FuncId, FuncKey, FuncTable};

/// Flushes `out` unless writing already failed, then returns the first
/// error a streaming writer met (they keep writing into `error` rather
/// than stop mid-event).
pub(crate) fn flushed(
    out: &mut impl std::io::Write,
    error: &mut Option<std::io::Error>,
) -> std::io::Result<()> {
    if error.is_none()
        && let Err(e) = out.flush()
    {
        *error = Some(e);
    }
    error.take().map_or(Ok(()), Err)
}

/// Receives the calls a [`CallStream`] follows.
pub(super) trait CallWriter {
    /// A call starts. Default: nothing.
    fn enter(&mut self, _func: FuncId, _tid: u64, _time: u64) {}
    /// A call that started at `start` ends at `end`.
    fn leave(&mut self, func: FuncId, tid: u64, start: u64, end: u64);
}

/// Per-thread stacks over a trace's events.
pub(super) struct CallStream<'a> {
    /// Thread ids by event thread index.
    threads: &'a [u64],
    timed: bool,
    /// Open frames (function, start) per thread index.
    stacks: Vec<Vec<(FuncId, u64)>>,
    /// Last time seen per thread index, to close what is left open.
    last: Vec<u64>,
    /// Event counter: the clock of untimed traces.
    tick: u64,
}

impl<'a> CallStream<'a> {
    /// Follows events whose thread `i` is `threads[i]`; `timed` says whether
    /// their times are a clock.
    pub(super) fn new(threads: &'a [u64], timed: bool) -> CallStream<'a> {
        CallStream {
            threads,
            timed,
            stacks: Vec::new(),
            last: Vec::new(),
            tick: 0,
        }
    }

    /// Feeds a batch of events, telling `w` of every call that starts or ends.
    pub(super) fn events(&mut self, events: &[Event], w: &mut impl CallWriter) {
        for e in events {
            let time = if self.timed {
                e.time
            } else {
                self.tick += 1;
                self.tick
            };
            match e.kind {
                EventKind::Enter => self.enter(e.thread as usize, e.func, time, w),
                EventKind::Exit => self.exit(e.thread as usize, e.func, time, w),
            }
        }
    }

    fn enter(&mut self, thread: usize, func: FuncId, time: u64, w: &mut impl CallWriter) {
        if self.stacks.len() <= thread {
            self.stacks.resize_with(thread + 1, Vec::new);
            self.last.resize(thread + 1, 0);
        }
        self.stacks[thread].push((func, time));
        self.last[thread] = time;
        w.enter(func, self.tid_of(thread), time);
    }

    fn exit(&mut self, thread: usize, func: FuncId, time: u64, w: &mut impl CallWriter) {
        let Some(stack) = self.stacks.get(thread) else {
            return;
        };
        let Some(at) = stack.iter().rposition(|&(f, _)| f == func) else {
            return; // an exit with no entry
        };
        self.last[thread] = time;
        let tid = self.tid_of(thread);
        while self.stacks[thread].len() > at {
            let (f, start) = self.stacks[thread].pop().expect("checked length");
            w.leave(f, tid, start, time);
        }
    }

    /// The thread id of event thread index `thread`.
    fn tid_of(&self, thread: usize) -> u64 {
        self.threads.get(thread).copied().unwrap_or(thread as u64)
    }

    /// Closes every frame still open at its thread's last time, in time
    /// order (ties by thread, inner frames first).
    pub(super) fn finish(&mut self, w: &mut impl CallWriter) {
        let mut left = Vec::new();
        for thread in 0..self.stacks.len() {
            let end = self.last[thread];
            while let Some((f, start)) = self.stacks[thread].pop() {
                left.push((end, thread, f, start));
            }
        }
        left.sort_by_key(|&(end, thread, _, _)| (end, thread));
        for (end, thread, f, start) in left {
            w.leave(f, self.tid_of(thread), start, end);
        }
    }
}

/// Places the nodes of a tree, given in preorder, on a timeline.
pub(super) struct Layout<'a> {
    funcs: &'a FuncTable,
    /// Next start per depth.
    cursor: Vec<u64>,
    /// The thread of the nodes being placed.
    tid: u64,
}

impl<'a> Layout<'a> {
    /// A layout whose first nodes belong to thread `tid`.
    pub(super) fn new(funcs: &'a FuncTable, tid: u64) -> Layout<'a> {
        Layout {
            funcs,
            cursor: Vec::new(),
            tid,
        }
    }

    /// Places a node at `depth` below the root (1 = top-level call) inside
    /// its caller, after its earlier siblings: (thread id, start, end), or
    /// None for a synthetic node (a thread node switches the thread).
    pub(super) fn place(
        &mut self,
        depth: u32,
        func: FuncId,
        total: u64,
    ) -> Option<(u64, u64, u64)> {
        if self.funcs.is_synthetic(func) {
            if let FuncKey::Thread(tid) = self.funcs.key(func) {
                self.tid = *tid;
            }
            self.cursor.clear();
            return None;
        }
        let d = depth as usize;
        self.cursor.truncate(d + 1);
        self.cursor
            .resize(d + 1, self.cursor.last().copied().unwrap_or(0));
        let start = self.cursor[d];
        self.cursor[d] = start + total;
        self.cursor.push(start);
        Some((self.tid, start, start + total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every call as (func, tid, start, end), and entries as (func, tid, time).
    #[derive(Default)]
    struct Record {
        entered: Vec<(FuncId, u64, u64)>,
        left: Vec<(FuncId, u64, u64, u64)>,
    }

    impl CallWriter for Record {
        fn enter(&mut self, func: FuncId, tid: u64, time: u64) {
            self.entered.push((func, tid, time));
        }
        fn leave(&mut self, func: FuncId, tid: u64, start: u64, end: u64) {
            self.left.push((func, tid, start, end));
        }
    }

    fn ev(kind: EventKind, func: FuncId, thread: u32, time: u64) -> Event {
        Event {
            time,
            func,
            thread,
            kind,
        }
    }

    #[test]
    fn exits_repair_like_the_tree_builders_and_leftovers_close_in_time_order() {
        use EventKind::{Enter as E, Exit as X};
        let events = [
            ev(E, 1, 0, 0),
            ev(E, 2, 0, 5),
            ev(E, 3, 0, 6),
            ev(X, 2, 0, 9),  // closes 3, then 2
            ev(X, 9, 0, 10), // no entry: dropped
            ev(E, 4, 1, 20),
            ev(E, 5, 0, 30),
        ];
        let mut s = CallStream::new(&[7, 8], true);
        let mut r = Record::default();
        s.events(&events, &mut r);
        s.finish(&mut r);
        assert_eq!(r.entered.len(), 5);
        assert_eq!(
            r.left,
            [
                (3, 7, 6, 9),
                (2, 7, 5, 9),
                (4, 8, 20, 20),
                (5, 7, 30, 30),
                (1, 7, 0, 30)
            ]
        );
    }

    #[test]
    fn untimed_traces_count_events_as_their_clock() {
        use EventKind::{Enter as E, Exit as X};
        let mut s = CallStream::new(&[], false);
        let mut r = Record::default();
        s.events(&[ev(E, 1, 0, 0), ev(E, 2, 0, 0), ev(X, 2, 0, 0)], &mut r);
        assert_eq!(r.left, [(2, 0, 2, 3)]);
    }

    #[test]
    fn tree_nodes_are_placed_inside_their_callers() {
        let mut funcs = FuncTable::default();
        let (main, f, g) = (funcs.name("main"), funcs.name("f"), funcs.name("g"));
        let mut l = Layout::new(&funcs, 3);
        assert_eq!(l.place(1, main, 10), Some((3, 0, 10)));
        assert_eq!(l.place(2, f, 4), Some((3, 0, 4)));
        assert_eq!(l.place(3, g, 2), Some((3, 0, 2)));
        assert_eq!(l.place(2, g, 5), Some((3, 4, 9)));
        assert_eq!(l.place(1, main, 1), Some((3, 10, 11)));
    }
}
