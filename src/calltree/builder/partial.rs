//! Building the calling-context tree on the parsing threads. A worker turns
//! one chunk's events into a [`Summary`]: a small context tree whose
//! top-level calls hang below *anchors*, stand-ins for whatever each
//! thread's stack was when the chunk began. An exit that matches no frame
//! opened in the chunk (the stack fix-up at chunk borders) is recorded, in
//! order, with the anchor it leaves, and later entries hang below a fresh
//! anchor. Merging in file order then replays only those exits on the real
//! stacks, which tells every anchor's node, and adds each summary node to
//! the global tree once: the per-event work is all done in parallel.
//!
//! When the effect of an exit depends on the stack below the chunk (an
//! exit matching no frame of the chunk while some are open: `longjmp`
//! across the border, or an orphan exit), the summary is abandoned and the
//! chunk's events go through the ordinary sequential path instead.

use std::any::Any;

use rustc_hash::FxHashMap;

use super::{ContextsBuilder, Frame, NodeId};
use crate::ingest::{ChunkWork, Event, EventKind, FuncId};

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
    anchors: Vec<Anchor>,
    threads: Vec<LocalThread>,
    last_time: u64,
    unwound: u64,
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
}

/// A parsing thread's summariser; its lookup tables are reused across chunks.
pub(super) struct ContextsWork {
    index: FxHashMap<u64, u32>,
    cache: Vec<(u64, u32)>,
}

impl Default for ContextsWork {
    fn default() -> Self {
        ContextsWork {
            index: FxHashMap::default(),
            cache: vec![(NO_KEY, 0); 1 << CACHE_BITS],
        }
    }
}

impl ChunkWork for ContextsWork {
    fn summarise(&mut self, events: &[Event]) -> Option<Box<dyn Any + Send>> {
        self.index.clear();
        self.cache.fill((NO_KEY, 0));
        let mut s = Summary::default();
        for e in events {
            s.event(e, self)?;
        }
        s.last_time = events.iter().map(|e| e.time).max().unwrap_or(0);
        Some(Box::new(s))
    }
}

impl Summary {
    #[inline(always)]
    fn event(&mut self, e: &Event, work: &mut ContextsWork) -> Option<()> {
        let t = e.thread as usize;
        if t >= self.threads.len() {
            self.new_threads(t);
        }
        let th = &mut self.threads[t];
        if th.first_time == u64::MAX {
            th.first_time = e.time;
        }
        match e.kind {
            EventKind::Enter => {
                let parent = th.stack.last().map_or(ANCHOR | th.anchor, |f| f.node);
                let node = child(&mut self.nodes, parent, e.func, work);
                th.stack.push(Frame {
                    node,
                    func: e.func,
                    start: e.time,
                    child_total: 0,
                });
            }
            // The usual exit: the function on top of the stack returns.
            EventKind::Exit if th.stack.last().is_some_and(|f| f.func == e.func) => {
                pop(th, &mut self.anchors, &mut self.nodes, e.time);
            }
            EventKind::Exit => self.exit(t, e.func, e.time)?,
        }
        Some(())
    }

    #[cold]
    fn new_threads(&mut self, t: usize) {
        while self.threads.len() <= t {
            let thread = self.threads.len() as u32;
            self.anchors.push(Anchor {
                thread,
                child_total: 0,
            });
            self.threads.push(LocalThread {
                first_time: u64::MAX,
                anchor: self.anchors.len() as u32 - 1,
                exits: Vec::new(),
                stack: Vec::new(),
            });
        }
    }

    /// An exit below the top frame: pops frames of the chunk, or records an
    /// exit that goes below it; None when which of the two depends on the
    /// stack below.
    fn exit(&mut self, t: usize, func: FuncId, time: u64) -> Option<()> {
        let th = &mut self.threads[t];
        match th.stack.iter().rposition(|f| f.func == func) {
            Some(pos) => {
                self.unwound += (th.stack.len() - pos - 1) as u64;
                while th.stack.len() > pos {
                    pop(th, &mut self.anchors, &mut self.nodes, time);
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

/// Closes the top frame of `th` at `time`.
#[inline(always)]
fn pop(th: &mut LocalThread, anchors: &mut [Anchor], nodes: &mut [Node], time: u64) {
    let Some(f) = th.stack.pop() else { return };
    let total = time.saturating_sub(f.start);
    match th.stack.last_mut() {
        Some(parent) => parent.child_total += total,
        None => anchors[th.anchor as usize].child_total += total,
    }
    let n = &mut nodes[f.node as usize];
    n.calls += 1;
    n.total += total;
    n.self_time += total.saturating_sub(f.child_total);
}

/// The summary node for `func` called from `parent`, created if new.
#[inline(always)]
fn child(nodes: &mut Vec<Node>, parent: u32, func: FuncId, work: &mut ContextsWork) -> u32 {
    let key = (parent as u64) << 32 | func as u64;
    let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CACHE_BITS)) as usize;
    if work.cache[slot].0 == key {
        return work.cache[slot].1;
    }
    let next = nodes.len() as u32;
    let id = *work.index.entry(key).or_insert(next);
    if id == next {
        nodes.push(Node {
            func,
            parent,
            calls: 0,
            total: 0,
            self_time: 0,
        });
    }
    work.cache[slot] = (key, id);
    id
}

impl ContextsBuilder {
    /// Merges the next chunk's summary; `funcs` and `threads` map its local ids.
    pub(super) fn merge_summary(&mut self, s: Summary, funcs: &[FuncId], threads: &[u32]) {
        let anchors = self.resolve_anchors(&s, funcs, threads);
        let st = &mut self.stacks;
        st.last_time = st.last_time.max(s.last_time);
        st.stats.unwound += s.unwound;
        let mut global: Vec<NodeId> = Vec::with_capacity(s.nodes.len());
        for n in &s.nodes {
            let p = n.parent;
            let parent = if p & ANCHOR == 0 {
                global[p as usize]
            } else {
                let a = (p & !ANCHOR) as usize;
                match anchors[a] {
                    Some(node) => node,
                    None => st.store.thread_root(threads[s.anchors[a].thread as usize]),
                }
            };
            let id = st.store.child(parent, funcs[n.func as usize]);
            st.store.add(id, n.calls, n.total, n.self_time);
            global.push(id);
        }
        for (lt, th) in s.threads.iter().enumerate() {
            let stack = &mut st.stacks[threads[lt] as usize];
            stack.extend(th.stack.iter().map(|f| Frame {
                node: global[f.node as usize],
                func: funcs[f.func as usize],
                ..*f
            }));
        }
    }

    /// Replays each thread's exits below the chunk on the real stacks and
    /// returns every anchor's node (None: the thread's stack was empty, so
    /// calls below it are top-level).
    fn resolve_anchors(
        &mut self,
        s: &Summary,
        funcs: &[FuncId],
        threads: &[u32],
    ) -> Vec<Option<NodeId>> {
        let st = &mut self.stacks;
        let mut nodes = vec![None; s.anchors.len()];
        for (lt, th) in s.threads.iter().enumerate() {
            let g = threads[lt];
            st.touch(g, th.first_time);
            for &(a, func, time) in &th.exits {
                nodes[a as usize] = st.settle(g, s.anchors[a as usize].child_total);
                st.exit(g, funcs[func as usize], time);
            }
            nodes[th.anchor as usize] = st.settle(g, s.anchors[th.anchor as usize].child_total);
        }
        nodes
    }
}
