//! Indented lines summarised on the parsing threads, for sinks that take
//! [`NodeChunk`]s (the calling-context tree). A worker turns its chunk's
//! lines into a small context tree: the indentation is followed on a
//! stack of the chunk's own open lines, and a line that climbs below all
//! of them hangs at a new *anchor*, whose depth only the lines before the
//! chunk tell. Lines with the same name under the same parent add up into
//! one node, so the calling thread only resolves the anchors (with the
//! indentation stack, which also checks them) and adds a few hundred
//! nodes per chunk.
//!
//! A chunk the summary cannot stand for exactly is read record by record
//! instead: a line that does not parse, an indentation error the chunk
//! shows by itself, a time unit after unit-less lines, or bytes that are
//! not UTF-8 (the worker gives up); an anchor whose indentation is wrong,
//! or numbers whose meaning depends on the file's unit so far (the
//! calling thread gives up).

use rustc_hash::FxHashMap;

use super::{Indents, Name, Number, POW10, Rec, UNSET};
use crate::ingest::{ChunkNode, FuncTable, NodeChunk};

/// What a worker made of a chunk's lines.
#[derive(Default)]
pub(super) struct Part {
    /// Nodes with chunk-local name ids.
    pub nodes: Vec<ChunkNode>,
    /// Indentation width of the lines that hang at each anchor.
    pub anchors: Vec<usize>,
    /// Open lines (width, node): the last anchor's line first.
    pub stack: Vec<(usize, u32)>,
    /// Names of the chunk-local name ids.
    pub names: Vec<Name>,
    /// Line ends in the chunk.
    pub lines: u64,
    /// Times are nanoseconds (the chunk's first line states a time unit);
    /// else fixed-point numbers with `decimals` places.
    pub nanos: bool,
    pub decimals: u8,
    /// Every number is an integer below 2^53 (its own nanoseconds).
    pub exact: bool,
    /// A number says `calls`.
    pub calls_unit: bool,
    /// The previous line's name.
    last_name: u32,
    /// Sums of the latest lines of one node, not yet added to it (runs
    /// of lines of one node add up in registers).
    pending: Pending,
}

/// Sums not yet added to node `node` (`UNSET`: none).
#[derive(Clone, Copy)]
struct Pending {
    node: u32,
    calls: u64,
    total: u64,
    self_time: u64,
}

impl Default for Pending {
    fn default() -> Self {
        Pending {
            node: UNSET,
            calls: 0,
            total: 0,
            self_time: 0,
        }
    }
}

impl Part {
    pub(super) fn clear(&mut self) {
        self.nodes.clear();
        self.anchors.clear();
        self.stack.clear();
        self.names.clear();
        self.lines = 0;
        self.nanos = false;
        self.decimals = 0;
        self.exact = true;
        self.calls_unit = false;
        self.last_name = UNSET;
        self.pending = Pending::default();
    }

    /// Adds the pending sums to their node.
    pub(super) fn flush(&mut self) {
        let p = std::mem::take(&mut self.pending);
        if let Some(n) = self.nodes.get_mut(p.node as usize) {
            n.calls = n.calls.saturating_add(p.calls);
            n.total = n.total.saturating_add(p.total);
            n.self_time = n.self_time.saturating_add(p.self_time);
        }
    }
}

/// log2 of the entries of the (parent, name) -> node cache.
const CACHE_BITS: u32 = 12;
const NO_KEY: u64 = u64::MAX;

/// A worker's lookup tables for [`Part`] nodes, reused across chunks.
pub(super) struct Nodes {
    index: FxHashMap<u64, u32>,
    /// A fixed-size array, so that indexing it by a hash needs no bounds check.
    cache: Box<[(u64, u32); 1 << CACHE_BITS]>,
}

impl Default for Nodes {
    fn default() -> Self {
        Nodes {
            index: FxHashMap::default(),
            cache: Box::new([(NO_KEY, 0); 1 << CACHE_BITS]),
        }
    }
}

impl Nodes {
    pub(super) fn reset(&mut self) {
        self.index.clear();
        self.cache.fill((NO_KEY, 0));
    }

    /// The node for `name` under `parent`, created if new.
    #[inline(always)]
    fn child(&mut self, nodes: &mut Vec<ChunkNode>, parent: u32, name: u32) -> u32 {
        let key = (parent as u64) << 32 | name as u64;
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CACHE_BITS)) as usize;
        if self.cache[slot].0 == key {
            return self.cache[slot].1;
        }
        let next = nodes.len() as u32;
        let id = *self.index.entry(key).or_insert(next);
        if id == next {
            nodes.push(ChunkNode {
                parent,
                func: name,
                calls: 0,
                total: 0,
                self_time: 0,
            });
        }
        self.cache[slot] = (key, id);
        id
    }
}

/// One line for [`Part::line`].
pub(super) struct LineIn {
    pub width: usize,
    pub name: u32,
    pub self_time: Number,
    pub total: Number,
    pub calls: u64,
    pub units: u8,
    /// The line starts like the one before it: the same indentation and name.
    pub same_start: bool,
}

impl Part {
    /// Adds a line; false when the summary cannot stand for the chunk.
    #[inline(always)]
    pub(super) fn line(&mut self, l: &LineIn, nodes: &mut Nodes) -> bool {
        // The usual run of calls of one function, with time units: the
        // previous line's node, whose sums are pending, and nanoseconds.
        if l.same_start && l.units == Rec::TIME && self.nanos && self.pending.node != UNSET {
            let p = &mut self.pending;
            p.calls = p.calls.saturating_add(l.calls);
            p.total = p.total.saturating_add(l.total.nanos());
            p.self_time = p.self_time.saturating_add(l.self_time.nanos());
            return true;
        }
        let time = l.units & Rec::TIME != 0;
        if self.nodes.is_empty() {
            self.nanos = time;
        } else if time && !self.nanos {
            return false;
        }
        self.calls_unit |= l.units & Rec::CALLS != 0;
        let (s, t) = if self.nanos {
            (l.self_time.nanos(), l.total.nanos())
        } else {
            self.fixed(l.self_time, l.total)
        };
        let node = match self.stack.last() {
            // A sibling of the previous line with its name: its node.
            Some(&(top, node)) if top == l.width && self.last_name == l.name => node,
            _ => {
                let Some(parent) = self.parent(l.width) else {
                    return false;
                };
                let node = nodes.child(&mut self.nodes, parent, l.name);
                self.stack.push((l.width, node));
                self.last_name = l.name;
                node
            }
        };
        if self.pending.node != node {
            self.flush();
            self.pending.node = node;
        }
        let p = &mut self.pending;
        p.calls = p.calls.saturating_add(l.calls);
        p.total = p.total.saturating_add(t);
        p.self_time = p.self_time.saturating_add(s);
        true
    }

    /// Both numbers in the chunk's fixed-point units, which grow with
    /// the most precise number so far (the sums kept scale with them).
    #[inline(always)]
    fn fixed(&mut self, s: Number, t: Number) -> (u64, u64) {
        let exact = |n: Number| n.decimals == 0 && n.digits < super::EXACT_F64;
        self.exact &= exact(s) && exact(t);
        let places = s.decimals.max(t.decimals);
        if places > self.decimals {
            self.flush();
            let f = POW10[(places - self.decimals) as usize];
            for n in &mut self.nodes {
                n.total = n.total.saturating_mul(f);
                n.self_time = n.self_time.saturating_mul(f);
            }
            self.decimals = places;
        }
        (s.fixed(self.decimals), t.fixed(self.decimals))
    }

    /// The parent of a line indented `width` columns, as [`Indents`]
    /// would find it, popping the lines it closes; None for an
    /// indentation error.
    #[inline(always)]
    fn parent(&mut self, width: usize) -> Option<u32> {
        let mut popped = false;
        while let Some(&(top, _)) = self.stack.last() {
            if top <= width {
                break;
            }
            self.stack.pop();
            popped = true;
        }
        match self.stack.last() {
            Some(&(top, _)) if top == width => {
                self.stack.pop();
                Some(match self.stack.last() {
                    Some(&(_, node)) => node,
                    None => ChunkNode::ANCHOR | (self.anchors.len() as u32 - 1),
                })
            }
            Some(_) if popped => None,
            Some(&(_, node)) => Some(node),
            None => {
                self.anchors.push(width);
                Some(ChunkNode::ANCHOR | (self.anchors.len() as u32 - 1))
            }
        }
    }

    /// The depth of each anchor on the indentation stack `indents` (the
    /// lines before the chunk), leaving it as the chunk leaves it; None
    /// when an anchor's indentation is wrong.
    pub(super) fn resolve(&self, indents: &mut Indents) -> Option<Vec<u32>> {
        // Each anchor's line closed the chunk's lines above the previous
        // one's, which are only pushed at the end.
        let mut depths = Vec::with_capacity(self.anchors.len());
        for &w in &self.anchors {
            depths.push(indents.depth(w).ok()?);
        }
        indents.0.extend(self.stack.iter().skip(1).map(|&(w, _)| w));
        Some(depths)
    }

    /// The chunk for the sink: global functions (`maps` caches them per
    /// local name, as a function and as a thread node), anchor depths and
    /// the factor to the file's precision.
    pub(super) fn node_chunk(
        &self,
        depths: Vec<u32>,
        funcs: &mut FuncTable,
        maps: &mut (Vec<u32>, Vec<u32>),
        factor: u64,
    ) -> NodeChunk {
        let (names, threads) = maps;
        names.clear();
        names.resize(self.names.len(), UNSET);
        threads.clear();
        threads.resize(self.names.len(), UNSET);
        // In order of first appearance, so functions are interned in it too.
        let nodes = self
            .nodes
            .iter()
            .map(|n| {
                let local = n.func as usize;
                let name = &self.names[local];
                let top = n.parent & ChunkNode::ANCHOR != 0
                    && depths[(n.parent & !ChunkNode::ANCHOR) as usize] == 0;
                let func = match name.thread {
                    Some(tid) if top => cached(&mut threads[local], || funcs.thread(tid)),
                    _ => cached(&mut names[local], || funcs.name(&name.text)),
                };
                ChunkNode { func, ..*n }
            })
            .collect();
        NodeChunk {
            nodes,
            anchors: depths,
            open: self.stack.iter().map(|&(_, n)| n).collect(),
            factor,
        }
    }
}

/// `*slot`, filled with `make()` when [`UNSET`].
fn cached(slot: &mut u32, make: impl FnOnce() -> u32) -> u32 {
    if *slot == UNSET {
        *slot = make();
    }
    *slot
}
