//! Building the calling-context tree on the parsing threads. A worker turns
//! one chunk's events into a [`Summary`]: a small context tree whose
//! top-level calls hang below *anchors*, stand-ins for whatever each
//! thread's stack was when the chunk began. An exit that matches no frame
//! opened in the chunk (the stack fix-up at chunk borders) is recorded, in
//! order, with the anchor it leaves, and later entries hang below a fresh
//! anchor. Merging in file order then replays only those exits on the real
//! stacks, which tells every anchor's node, and adds each summary node to
//! the global tree once: the per-event work is all done in parallel. For
//! E/X text and binary traces the summary is built as the parser reads the events
//! ([`ChunkWork::scan`]), without storing them. A loop calling one leaf
//! again and again costs a summary only the sums of a run ([`LeafRun`]).
//!
//! When the effect of an exit depends on the stack below the chunk (an
//! exit matching no frame of the chunk while some are open: `longjmp`
//! across the border, or an orphan exit), the summary is abandoned and the
//! chunk's events go through the ordinary sequential path instead.

use std::any::Any;

use rustc_hash::FxHashMap;

use super::func_dists::{Drained, FuncDists};
use super::{ContextsBuilder, Frame, HIDDEN, NodeId, SHADOW};
use crate::calltree::dist::{At, CallDist, Keep, slot};
use crate::ingest::slice::Window;
use crate::ingest::{ChunkScan, ChunkScanned, ChunkWork, Event, EventConsumer, EventKind, FuncId};

mod merge;
mod run;
mod work;

use run::LeafRun;
pub(super) use work::ContextsWork;
use work::child;

/// Marks a summary node's parent as an anchor index rather than a node.
const ANCHOR: u32 = 1 << 31;
/// log2 of the entries of the (parent, func) -> child cache.
const CACHE_BITS: u32 = 10;
const NO_KEY: u64 = u64::MAX;

/// A chunk's calling-context tree relative to its threads' unknown stacks.
/// Function and thread ids are the chunk's local ones.
#[derive(Default)]
pub(super) struct Summary {
    nodes: Vec<Node>,
    /// When each node's first call started (the one that made it).
    firsts: Vec<u64>,
    /// Per-call distributions, when the builder keeps them; the calls'
    /// threads are local and their starts absolute until merged.
    kept: Kept,
    anchors: Vec<Anchor>,
    threads: Vec<LocalThread>,
    last_time: u64,
    unwound: u64,
    /// The leaf calls being repeated, added to their node when the run ends.
    run: LeafRun,
}

/// The per-call distributions a summary keeps.
#[derive(Default)]
enum Kept {
    /// None.
    #[default]
    Nothing,
    /// By summary node: inclusive time, and self time with
    /// [`Keep::TotalAndSelf`].
    ByNode(Vec<CallDist>, Keep),
    /// By local function, while the chunk is read (the parsing thread's
    /// accumulators, given back to it when the chunk ends).
    ByFunction(FuncDists),
    /// By local function, as the chunk's end handed them on.
    Drained(Drained),
}

impl Kept {
    /// Adds a call at summary node `node` of function `func`. `F`: the
    /// summary keeps distributions by function (what the hot graph asks
    /// for), known when the scan loop is compiled: one predicted compare
    /// per call instead of a jump through a table.
    #[inline(always)]
    fn add<const F: bool>(
        &mut self,
        node: u32,
        func: FuncId,
        (total, self_time): (u64, u64),
        at: At,
    ) {
        if F {
            if let Kept::ByFunction(f) = self {
                f.add(func, total, at);
            }
            return;
        }
        if let Kept::ByNode(d, keep) = self {
            slot(d, false, node, func).add(total, self_time, at, *keep);
        }
    }

    /// Whether calls are kept by function (see [`Kept::add`]).
    fn by_function(&self) -> bool {
        matches!(self, Kept::ByFunction(_))
    }
}

/// A node of a summary, with what its calls in the chunk added up to.
#[derive(Clone, Copy)]
struct Node {
    func: FuncId,
    /// A summary node, or `ANCHOR | anchor`.
    parent: u32,
    calls: u64,
    total: u64,
    self_time: u64,
}

/// What stood below a thread's first frames of the chunk (or below those
/// opened after an exit that went below the chunk).
#[derive(Default, Clone, Copy)]
struct Anchor {
    /// Local thread.
    thread: u32,
    /// Total time of the calls that closed directly below it.
    child_total: u64,
}

/// One thread's part of a summary.
struct LocalThread {
    first_time: u64,
    /// The current anchor.
    anchor: u32,
    /// Exits that went below the chunk: (anchor left, function, time).
    exits: Vec<(u32, FuncId, u64)>,
    /// Frames opened in the chunk and still open at its end (summary nodes).
    stack: Vec<Frame>,
    /// Exits timed before their entry.
    backwards: u64,
    /// With a time window, the anchor that stands for the thread's root
    /// (never settled): the parent of a kept call whose caller is hidden.
    root_anchor: Option<u32>,
    /// With a time window, the start of the chunk's first kept call of
    /// the thread (`u64::MAX`: none), which orders threads as their first
    /// event does without one.
    first_kept: u64,
}

/// An exit at `time`, at the window's end if later (with `W`).
#[inline(always)]
fn clamp<const W: bool>(time: u64, window: Window) -> u64 {
    if W { window.clamp(time) } else { time }
}

impl Summary {
    /// The total time of each local function's calls (the sum of its
    /// nodes'), by local function.
    fn sums_by_function(&self) -> Vec<u64> {
        let mut sums = Vec::new();
        for n in self.nodes.iter().filter(|n| n.func & SHADOW == 0) {
            let f = n.func as usize;
            if f >= sums.len() {
                sums.resize(f + 1, 0);
            }
            sums[f] = n.total.saturating_add(sums[f]);
        }
        sums
    }

    /// Adds the events of a chunk; `W` and `F` as in [`Summary::event`].
    fn events<const W: bool, const F: bool>(
        &mut self,
        events: &[Event],
        work: &mut ContextsWork,
        window: Window,
    ) -> Option<()> {
        for e in events {
            self.event::<true, W, F>(e, work, window)?;
        }
        Some(())
    }

    /// Adds an event; `TIMED` false leaves out the time arithmetic, which
    /// changes nothing when every time is 0. With `W`, a call starting
    /// outside `window` is hidden: its frame only matches its exit, and
    /// calls below it hang from the thread's root; a kept call's exit
    /// after the window's end counts at that end. `F`: the summary keeps
    /// distributions by function ([`Kept::add`]).
    #[inline(always)]
    fn event<const TIMED: bool, const W: bool, const F: bool>(
        &mut self,
        e: &Event,
        work: &mut ContextsWork,
        window: Window,
    ) -> Option<()> {
        self.end_run();
        if TIMED {
            self.last_time = self.last_time.max(e.time);
        }
        let t = e.thread as usize;
        let th = match self.threads.get_mut(t) {
            Some(th) => th,
            None => new_thread(&mut self.threads, &mut self.anchors, t, e.time)?,
        };
        match e.kind {
            EventKind::Enter => {
                let node = if W && !window.keeps(e.time) {
                    match work.paths && e.time < window.start {
                        // A path node: below a path node or the anchor.
                        true => {
                            let parent = parent_of::<W>(th, &mut self.anchors, t);
                            child(&mut self.nodes, parent, e.func | SHADOW, e.time, work)
                        }
                        false => HIDDEN,
                    }
                } else {
                    if W {
                        th.first_kept = th.first_kept.min(e.time);
                    }
                    let parent = parent_of::<W>(th, &mut self.anchors, t);
                    child(&mut self.nodes, parent, e.func, e.time, work)
                };
                th.stack.push(Frame {
                    node,
                    func: e.func,
                    start: e.time,
                    child_total: 0,
                });
            }
            // The usual exit: the function on top of the stack returns.
            EventKind::Exit if th.stack.last().is_some_and(|f| f.func == e.func) => {
                if TIMED {
                    pop::<W, F>(
                        th,
                        &mut self.anchors,
                        &mut self.nodes,
                        &mut self.kept,
                        t,
                        (clamp::<W>(e.time, window), window.start),
                    );
                } else {
                    pop_untimed(th, &mut self.nodes);
                }
            }
            EventKind::Exit => {
                self.exit::<W, F>(t, e.func, (clamp::<W>(e.time, window), window.start))?
            }
        }
        Some(())
    }

    /// A leaf call: the entry `e` and its exit at `exit`, as
    /// [`Summary::event`] takes the two (a frame pushed and popped at once),
    /// without the frame.
    #[inline(always)]
    fn leaf<const TIMED: bool, const W: bool, const F: bool>(
        &mut self,
        e: &Event,
        exit: u64,
        work: &mut ContextsWork,
        window: Window,
    ) -> Option<()> {
        if TIMED {
            self.last_time = self.last_time.max(e.time).max(exit);
        }
        let key = LeafRun::key(e.thread, e.func);
        if self.run.key == key {
            self.run_leaf::<TIMED, W, F>(e, exit, window);
            return Some(());
        }
        if self.run.calls != 0 {
            self.flush_run();
        }
        let t = e.thread as usize;
        let th = match self.threads.get_mut(t) {
            Some(th) => th,
            None => new_thread(&mut self.threads, &mut self.anchors, t, e.time)?,
        };
        if W && !window.keeps(e.time) {
            return Some(());
        }
        if W {
            th.first_kept = th.first_kept.min(e.time);
        }
        let exit = clamp::<W>(exit, window);
        let parent = parent_of::<W>(th, &mut self.anchors, t);
        let node = child(&mut self.nodes, parent, e.func, e.time, work);
        let n = &mut self.nodes[node as usize];
        n.calls += 1;
        if TIMED {
            th.backwards += u64::from(exit < e.time);
            let total = exit.saturating_sub(e.time);
            add_below(th, &mut self.anchors, total);
            n.total = n.total.saturating_add(total);
            // Its frame would have no time below it.
            n.self_time = n.self_time.saturating_add(total);
            let at = At {
                thread: t as u32,
                start: e.time,
            };
            self.kept.add::<F>(node, e.func, (total, total), at);
        }
        (self.run.key, self.run.node) = (key, node);
        Some(())
    }

    /// An exit below the top frame: pops frames of the chunk, or records an
    /// exit that goes below it; None when which of the two depends on the
    /// stack below.
    fn exit<const W: bool, const F: bool>(
        &mut self,
        t: usize,
        func: FuncId,
        (time, window_start): (u64, u64),
    ) -> Option<()> {
        let th = &mut self.threads[t];
        match th.stack.iter().rposition(|f| f.func == func) {
            Some(pos) => {
                self.unwound += (th.stack.len() - pos - 1) as u64;
                while th.stack.len() > pos {
                    pop::<W, F>(
                        th,
                        &mut self.anchors,
                        &mut self.nodes,
                        &mut self.kept,
                        t,
                        (time, window_start),
                    );
                }
            }
            None if th.stack.is_empty() => {
                th.exits.push((th.anchor, func, time));
                self.anchors.push(Anchor {
                    thread: t as u32,
                    child_total: 0,
                });
                th.anchor = self.anchors.len() as u32 - 1;
            }
            None => return None,
        }
        Some(())
    }
}

/// Adds local thread `t` of a summary, whose first event is at `time`.
/// Local thread ids are given in order of first appearance, so a thread
/// not seen yet is normally the next one; None if not (a binary block
/// without events), and the chunk takes the sequential path.
#[cold]
fn new_thread<'a>(
    threads: &'a mut Vec<LocalThread>,
    anchors: &mut Vec<Anchor>,
    t: usize,
    time: u64,
) -> Option<&'a mut LocalThread> {
    if t != threads.len() {
        return None;
    }
    anchors.push(Anchor {
        thread: t as u32,
        child_total: 0,
    });
    threads.push(LocalThread {
        first_time: time,
        anchor: anchors.len() as u32 - 1,
        exits: Vec::new(),
        stack: Vec::new(),
        backwards: 0,
        root_anchor: None,
        first_kept: u64::MAX,
    });
    threads.last_mut()
}

/// The parent of a call entered now on local thread `t`: the frame on top,
/// or the anchor below the chunk; with `W`, the thread's root when the
/// frame on top is hidden (a call that started before the window).
#[inline(always)]
fn parent_of<const W: bool>(th: &mut LocalThread, anchors: &mut Vec<Anchor>, t: usize) -> u32 {
    match th.stack.last() {
        Some(f) if W && f.node == HIDDEN => ANCHOR | root_anchor(th, anchors, t),
        Some(f) => f.node,
        None => ANCHOR | th.anchor,
    }
}

/// The anchor standing for local thread `t`'s root, made on first use.
#[cold]
fn root_anchor(th: &mut LocalThread, anchors: &mut Vec<Anchor>, t: usize) -> u32 {
    *th.root_anchor.get_or_insert_with(|| {
        anchors.push(Anchor {
            thread: t as u32,
            child_total: 0,
        });
        anchors.len() as u32 - 1
    })
}

/// Adds `total`, the time of calls that closed, to what stands below
/// them on `th`: the frame on top, or the anchor below the chunk.
#[inline(always)]
fn add_below(th: &mut LocalThread, anchors: &mut [Anchor], total: u64) {
    let below = match th.stack.last_mut() {
        Some(parent) => &mut parent.child_total,
        None => &mut anchors[th.anchor as usize].child_total,
    };
    *below = below.saturating_add(total);
}

/// Closes the top frame of `th` at `time`; with `W`, a hidden frame, or
/// one that started before `window_start` (a path node), is only taken off.
#[inline(always)]
fn pop<const W: bool, const F: bool>(
    th: &mut LocalThread,
    anchors: &mut [Anchor],
    nodes: &mut [Node],
    kept: &mut Kept,
    t: usize,
    (time, window_start): (u64, u64),
) {
    let Some(f) = th.stack.pop() else { return };
    // Hidden, or a path node of a call before the window: not counted.
    if W && (f.node == HIDDEN || f.start < window_start) {
        return;
    }
    th.backwards += u64::from(time < f.start);
    let total = time.saturating_sub(f.start);
    add_below(th, anchors, total);
    let n = &mut nodes[f.node as usize];
    n.calls += 1;
    n.total = n.total.saturating_add(total);
    let self_time = total.saturating_sub(f.child_total);
    n.self_time = n.self_time.saturating_add(self_time);
    let at = At {
        thread: t as u32,
        start: f.start,
    };
    kept.add::<F>(f.node, f.func, (total, self_time), at);
}

/// [`pop`] when every time is 0: only the call is counted (every sum
/// it would add to is 0 plus 0).
#[inline(always)]
fn pop_untimed(th: &mut LocalThread, nodes: &mut [Node]) {
    if let Some(f) = th.stack.pop()
        && f.node != HIDDEN
    {
        nodes[f.node as usize].calls += 1;
    }
}

#[cfg(test)]
mod tests;
