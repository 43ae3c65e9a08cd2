//! Turning an event stream into a call tree. Each thread has its own stack
//! of open calls. Entries push; an exit pops down to the nearest open frame
//! of the same function, so frames skipped by `longjmp`, exceptions or
//! coroutines are closed at that exit ("unwound"); an exit that matches no
//! open frame is ignored ("orphan"); frames still open at the end close at
//! the trace's last timestamp ("unclosed"). The counts are reported once.
//!
//! Two stores receive the calls: [`CallsBuilder`] keeps one node per call
//! (the paper's dynamic call tree), [`ContextsBuilder`] merges identical
//! call paths (calling-context tree) and so stays as small as the program's
//! distinct paths, whatever the trace length. Untimed traces weigh every call
//! 1: a node's total is then the number of calls in its subtree. The
//! calling-context tree can also be built chunk by chunk on the parsing
//! threads and merged in order (`partial`).

mod contexts;
mod func_dists;
mod partial;

pub use contexts::ContextsBuilder;

use std::any::Any;

use rustc_hash::FxHashMap;

use super::tree::{NodeId, Tree};
use crate::ingest::slice::Window;
use crate::ingest::{
    ChunkNode, ChunkWork, Event, EventKind, EventSink, FuncId, FuncTable, NodeChunk, NodeRecord,
    NodeSink, TraceMeta,
};

/// What the builder had to repair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RepairStats {
    /// Frames closed by the exit of a function further down the stack.
    pub unwound: u64,
    /// Exits that matched no open frame and were ignored.
    pub orphan_exits: u64,
    /// Frames still open at the end of the trace, closed at its last timestamp.
    pub unclosed: u64,
    /// Exits timed before their entry (timestamps going backwards); such a
    /// call weighs 0 rather than a negative or wrapped-around time.
    pub backwards: u64,
}

impl RepairStats {
    /// True when nothing had to be repaired.
    pub fn is_clean(&self) -> bool {
        *self == RepairStats::default()
    }
}

impl std::fmt::Display for RepairStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts = [
            (
                self.unwound,
                "frame(s) closed by the exit of a caller further down the stack (longjmp/exceptions)",
            ),
            (
                self.orphan_exits,
                "exit(s) without a matching entry ignored",
            ),
            (
                self.unclosed,
                "frame(s) still open at the end closed at the last timestamp",
            ),
            (
                self.backwards,
                "exit(s) timed before their entry (timestamps going backwards) weighed 0",
            ),
        ];
        let shown: Vec<String> = parts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
        f.write_str(&shown.join(", "))
    }
}

/// The node of an open frame whose call a time window hides
/// ([`ContextsBuilder::set_window`]): it started outside the window, so it
/// is not counted, and calls below it hang from the thread's root.
const HIDDEN: NodeId = NodeId::MAX - 1;

/// Marks the context of a hidden call that started before the window
/// when hidden callers are kept as paths
/// ([`ContextsBuilder::keep_hidden_paths`]): the store keys such a node
/// by its function with this bit, apart from the counted calls of the same
/// path; the tree shows it with its function and no call.
const SHADOW: FuncId = 1 << 31;

/// An open call on a thread's stack.
#[derive(Debug, Clone, Copy)]
struct Frame {
    node: NodeId,
    func: FuncId,
    start: u64,
    child_total: u64,
}

/// Where the stack machine puts calls.
trait Store {
    /// Opens a call of `func` under `parent` (None: a top-level call of `thread`).
    fn open(&mut self, thread: u32, parent: Option<NodeId>, func: FuncId) -> NodeId;
    /// Closes `node` with its total and self weight; the call started at
    /// `start` (the trace's own time).
    fn close(&mut self, thread: u32, node: NodeId, total: u64, self_time: u64, start: u64);
    /// Notes that a call of `node` (just opened) started at `time`.
    fn opened(&mut self, _node: NodeId, _time: u64) {}
}

/// Per-thread stacks with exit repair, generic over the store.
struct Stacks<S> {
    store: S,
    stacks: Vec<Vec<Frame>>,
    /// Per thread, how many frames of each function are open: an exit of a
    /// function with none open is an orphan at once, without searching a
    /// stack that may be 10^5 frames deep.
    open: Vec<Vec<u32>>,
    /// Time of each thread's first event, to order threads by start.
    first_time: Vec<u64>,
    /// What per-call start times count from, when set from outside
    /// (else: the earliest first event of any thread).
    origin: Option<u64>,
    /// Calls starting in `[start, end)` are kept, exits after `end` count
    /// at `end` ([`ContextsBuilder::set_window`]); None keeps every call.
    window: Option<Window>,
    /// With a window, calls that start before it are kept as uncounted
    /// path nodes ([`SHADOW`]) instead of hidden, so that the calls kept
    /// below them stay below them.
    paths: bool,
    last_time: u64,
    stats: RepairStats,
}

impl<S: Store> Stacks<S> {
    fn new(store: S) -> Self {
        Stacks {
            store,
            stacks: Vec::new(),
            open: Vec::new(),
            first_time: Vec::new(),
            origin: None,
            window: None,
            paths: false,
            last_time: 0,
            stats: RepairStats::default(),
        }
    }

    #[inline]
    fn event(&mut self, e: &Event) {
        let t = e.thread as usize;
        // With a window, a thread's first time is its first kept call's.
        let first = match self.window {
            Some(_) => u64::MAX,
            None => e.time,
        };
        self.touch(e.thread, first);
        self.last_time = self.last_time.max(e.time);
        match e.kind {
            EventKind::Enter => {
                if let Some(w) = self.window {
                    if !w.keeps(e.time) {
                        let node = match self.paths && e.time < w.start {
                            true => {
                                let parent = self.stacks[t].last().map(|f| f.node);
                                let node = self.store.open(e.thread, parent, e.func | SHADOW);
                                self.store.opened(node, e.time);
                                node
                            }
                            false => HIDDEN,
                        };
                        let hidden = Frame {
                            node,
                            func: e.func,
                            start: e.time,
                            child_total: 0,
                        };
                        self.push(e.thread, hidden);
                        return;
                    }
                    self.first_time[t] = self.first_time[t].min(e.time);
                }
                // Below a hidden frame: a top-level call.
                let parent = self.stacks[t].last().map(|f| f.node);
                let parent = parent.filter(|&n| n != HIDDEN);
                let node = self.store.open(e.thread, parent, e.func);
                if self.paths {
                    self.store.opened(node, e.time);
                }
                self.push(
                    e.thread,
                    Frame {
                        node,
                        func: e.func,
                        start: e.time,
                        child_total: 0,
                    },
                );
            }
            EventKind::Exit => self.exit(e.thread, e.func, e.time),
        }
    }

    /// Makes room for thread `t` and notes its first event's time.
    fn touch(&mut self, t: u32, time: u64) {
        let t = t as usize;
        if t >= self.stacks.len() {
            self.stacks.resize_with(t + 1, Vec::new);
            self.open.resize_with(t + 1, Vec::new);
            self.first_time.resize(t + 1, u64::MAX);
        }
        if self.first_time[t] == u64::MAX {
            self.first_time[t] = time;
        }
    }

    /// Pushes an open frame on `thread`'s stack.
    #[inline]
    fn push(&mut self, thread: u32, f: Frame) {
        let open = &mut self.open[thread as usize];
        let i = f.func as usize;
        if i >= open.len() {
            open.resize(i + 1, 0);
        }
        open[i] += 1;
        self.stacks[thread as usize].push(f);
    }

    /// Adds `child_total` to the top frame of `thread` (calls that closed
    /// below it) and returns that frame's node, if there is one.
    fn settle(&mut self, thread: u32, child_total: u64) -> Option<NodeId> {
        let top = self.stacks[thread as usize].last_mut()?;
        if top.node == HIDDEN {
            return None;
        }
        top.child_total = top.child_total.saturating_add(child_total);
        Some(top.node)
    }

    #[inline]
    fn exit(&mut self, thread: u32, func: FuncId, time: u64) {
        let stack = &self.stacks[thread as usize];
        if stack.last().is_some_and(|f| f.func == func) {
            // The usual exit: the function on top returns.
            self.pop(thread, time);
            return;
        }
        let none_open = self.open[thread as usize]
            .get(func as usize)
            .is_none_or(|&n| n == 0);
        let found = if none_open {
            None
        } else {
            stack.iter().rposition(|f| f.func == func)
        };
        let Some(pos) = found else {
            self.stats.orphan_exits += 1;
            return;
        };
        self.stats.unwound += (stack.len() - pos - 1) as u64;
        while self.stacks[thread as usize].len() > pos {
            self.pop(thread, time);
        }
    }

    #[inline]
    fn pop(&mut self, thread: u32, time: u64) {
        let Some(f) = self.stacks[thread as usize].pop() else {
            return;
        };
        self.open[thread as usize][f.func as usize] -= 1;
        if !self.counted(&f) {
            return;
        }
        let stack = &mut self.stacks[thread as usize];
        let time = self.window.map_or(time, |w| w.clamp(time));
        self.stats.backwards += u64::from(time < f.start);
        let total = time.saturating_sub(f.start);
        if let Some(parent) = stack.last_mut() {
            parent.child_total = parent.child_total.saturating_add(total);
        }
        self.store.close(
            thread,
            f.node,
            total,
            total.saturating_sub(f.child_total),
            f.start,
        );
    }

    /// Whether frame `f` is a call that started before the window (kept
    /// as a path node, or hidden): not counted.
    fn before_window(&self, f: &Frame) -> bool {
        self.window.is_some_and(|w| f.start < w.start)
    }

    /// Whether frame `f` is a call that counts (neither hidden nor before
    /// the window).
    fn counted(&self, f: &Frame) -> bool {
        f.node != HIDDEN && !self.before_window(f)
    }

    /// Thread indexes ordered by their first event's time (then trace order),
    /// so the main thread comes first even when workers flushed earlier.
    fn thread_order(&self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&t| (self.first_time.get(t).copied().unwrap_or(u64::MAX), t));
        order
    }

    /// The time per-call starts count from: the one set, else the
    /// earliest first event of any thread (threads' blocks need not come
    /// in time order).
    fn origin(&self) -> u64 {
        self.origin.unwrap_or_else(|| {
            let first = self.first_time.iter().copied().min();
            first.filter(|&t| t != u64::MAX).unwrap_or(0)
        })
    }

    /// Closes every frame still open at the last timestamp (a hidden one
    /// goes uncounted).
    fn close_all(&mut self) {
        for t in 0..self.stacks.len() {
            let shown = self.stacks[t].iter().filter(|f| self.counted(f)).count();
            self.stats.unclosed += shown as u64;
            while !self.stacks[t].is_empty() {
                self.pop(t as u32, self.last_time);
            }
        }
    }
}

/// Builds the one-node-per-call tree.
pub struct CallsBuilder {
    stacks: Stacks<CallsStore>,
    /// Depth of every node, for indented (node) input only.
    record_depths: Vec<u32>,
}

/// One preorder tree per thread; node 0 of each is the thread's placeholder root.
struct CallsStore {
    threads: Vec<Tree>,
    /// Self weights follow from totals (event input); indented input states them.
    derived_self: bool,
}

impl Default for CallsStore {
    fn default() -> Self {
        CallsStore {
            threads: Vec::new(),
            derived_self: true,
        }
    }
}

impl CallsStore {
    fn thread(&mut self, thread: u32) -> &mut Tree {
        let t = thread as usize;
        while self.threads.len() <= t {
            let mut tree = Tree {
                derived_self: self.derived_self,
                ..Tree::empty(false, 0)
            };
            tree.push(FuncTable::ROOT, 0, 0, None);
            self.threads.push(tree);
        }
        &mut self.threads[t]
    }
}

impl Store for CallsStore {
    #[inline]
    fn open(&mut self, thread: u32, _parent: Option<NodeId>, func: FuncId) -> NodeId {
        self.thread(thread).push(func, 0, 0, None)
    }

    #[inline]
    fn close(&mut self, thread: u32, node: NodeId, total: u64, self_time: u64, _start: u64) {
        let tree = &mut self.threads[thread as usize];
        let n = node as usize;
        tree.size[n] = (tree.len() - n) as u32;
        tree.total[n] = total;
        if !tree.derived_self {
            tree.self_time[n] = self_time;
        }
    }
}

impl Default for CallsBuilder {
    fn default() -> Self {
        CallsBuilder {
            stacks: Stacks::new(CallsStore::default()),
            record_depths: Vec::new(),
        }
    }
}

impl EventSink for CallsBuilder {
    fn events(&mut self, events: &[Event]) {
        for e in events {
            self.stacks.event(e);
        }
    }
}

impl NodeSink for CallsBuilder {
    fn node(&mut self, r: NodeRecord) {
        if self.record_depths.is_empty() {
            self.record_depths.push(0);
            self.stacks.store.derived_self = false;
        }
        let tree = self.stacks.store.thread(0);
        tree.push(
            r.func,
            r.total,
            r.self_time,
            (r.calls != 1).then_some(r.calls),
        );
        self.record_depths.push(r.depth + 1);
    }

    fn clear_nodes(&mut self) {
        *self = CallsBuilder::default();
    }

    fn scale_times(&mut self, factor: u64) {
        let tree = self.stacks.store.thread(0);
        scale(&mut tree.total, factor);
        scale(&mut tree.self_time, factor);
    }
}

/// Multiplies every time in `times` by `factor`, saturating.
fn scale(times: &mut [u64], factor: u64) {
    for t in times {
        *t = t.saturating_mul(factor);
    }
}

impl CallsBuilder {
    /// Finishes the tree: closes open frames, joins threads under the root.
    pub fn finish(mut self, meta: &TraceMeta, funcs: &mut FuncTable) -> (Tree, RepairStats) {
        self.stacks.close_all();
        let mut threads = std::mem::take(&mut self.stacks.store.threads);
        let mut tree = match threads.len() {
            0 => Tree::default(),
            1 => threads.pop().expect("one thread"),
            n => {
                let order = self.stacks.thread_order(n);
                join_threads(threads, &order, meta, funcs)
            }
        };
        if !self.record_depths.is_empty() {
            tree.set_sizes_from_depths(&self.record_depths);
        }
        tree.size[0] = tree.len() as u32;
        finish_weights(&mut tree, meta, funcs);
        (tree, self.stacks.stats)
    }
}

/// Puts each thread's tree under a synthetic thread node below one root.
fn join_threads(
    mut threads: Vec<Tree>,
    order: &[usize],
    meta: &TraceMeta,
    funcs: &mut FuncTable,
) -> Tree {
    let total: usize = threads.iter().map(Tree::len).sum::<usize>() + 1;
    let derived_self = threads.iter().all(|t| t.derived_self);
    let mut tree = Tree {
        derived_self,
        ..Tree::empty(false, 0)
    };
    tree.func.reserve(total);
    tree.size.reserve(total);
    tree.total.reserve(total);
    if !derived_self {
        tree.self_time.reserve(total);
    }
    tree.push(FuncTable::ROOT, 0, 0, None);
    for &i in order {
        let mut t = std::mem::take(&mut threads[i]);
        let tid = meta.threads.get(i).copied().unwrap_or(i as u64);
        t.func[0] = funcs.thread(tid);
        t.size[0] = t.len() as u32;
        tree.func.extend_from_slice(&t.func);
        tree.size.extend_from_slice(&t.size);
        tree.total.extend_from_slice(&t.total);
        tree.self_time.extend_from_slice(&t.self_time);
        if !t.calls.is_empty() {
            tree.calls.resize(tree.func.len() - t.len(), 1);
            tree.calls.extend_from_slice(&t.calls);
        } else if !tree.calls.is_empty() {
            tree.calls.resize(tree.func.len(), 1);
        }
    }
    tree
}

/// Sets timing flags, weighs untimed calls 1 each, and makes synthetic
/// nodes (root, threads) weigh what their children weigh, with no self time.
fn finish_weights(tree: &mut Tree, meta: &TraceMeta, funcs: &FuncTable) {
    tree.timed = meta.timed;
    tree.decimals = meta.decimals;
    tree.unit = meta.unit;
    weigh_untimed_and_synthetic(tree, funcs);
}

/// Weighs untimed calls 1 each (a node its calls and those below it) and
/// makes synthetic nodes (root, threads) weigh what their children weigh,
/// with no self time, as `tree.timed` says; the builder and the filter's
/// cut lay out a tree this way.
pub(crate) fn weigh_untimed_and_synthetic(tree: &mut Tree, funcs: &FuncTable) {
    for n in (0..tree.len() as NodeId).rev() {
        let synthetic = funcs.is_synthetic(tree.func(n));
        if tree.timed && !synthetic {
            continue;
        }
        let below = tree
            .children(n)
            .fold(0u64, |sum, c| sum.saturating_add(tree.total(c)));
        let own = if synthetic { 0 } else { tree.calls(n) };
        tree.total[n as usize] = own.saturating_add(below);
        if !tree.derived_self {
            tree.self_time[n as usize] = own;
        }
    }
}

#[cfg(test)]
mod tests;
