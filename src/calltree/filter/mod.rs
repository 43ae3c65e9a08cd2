//! Cutting a built calling-context tree down to what a filter keeps
//! (`--exclude`, `--function`, `--tid`: a [`Slice`] without a time
//! range), so that a filtered read is one parallel pass and no naming
//! pass before it. The result is the tree a second pass through a
//! [`SliceSink`](crate::ingest::slice::SliceSink) with dense threads
//! builds, node for node:
//!
//! - `--exclude F` drops every context of `F` with its subtree; the
//!   caller's calls and total stay, and its self time grows by the
//!   dropped child's total (the time it no longer sees spent below it);
//! - `--function F` keeps the subtrees of the outermost contexts of `F`,
//!   moved up under their thread;
//! - `--tid` keeps the chosen threads, numbered from 0 in the order their
//!   first kept call comes (the slice's dense threads), and threads with
//!   nothing kept go.
//!
//! What the tree does not tell is refused ([`Refused`]) and the caller
//! reads the trace again through the filter: repairs that depend on which
//! frames are kept (unwound, unclosed or backwards calls; orphan exits
//! with `--tid`), an order of threads or of merged calls that depends on
//! when the first kept call came, per-call self times of a caller that
//! lost a child, and a per-function distribution of a function whose
//! calls are partly cut away.

use rustc_hash::FxHashMap;

use super::dist::CallDist;
use super::tree::{NodeId, Tree};
use super::{Built, RepairStats};
use crate::ingest::slice::Slice;
use crate::ingest::{FuncKey, FuncTable, TraceMeta};

#[cfg(test)]
mod tests;

/// Why a tree cannot be cut into what the filtered read would build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// A time range keeps calls by when they start, which the tree does not hold.
    TimeRange,
    /// The trace was repaired in a way that depends on which frames are
    /// kept (unwound, unclosed or backwards calls, orphan exits with `--tid`).
    Repairs,
    /// Several threads are kept and the order of their first kept calls
    /// is not that of their first calls.
    ThreadOrder,
    /// `--function` keeps calls from several callers, whose subtrees would
    /// merge in the order they were first entered, which the tree does not hold.
    Merging,
    /// Per-call self times are kept and a kept call lost a callee.
    SelfTimes,
    /// Per-call distributions are kept per function and a function has
    /// calls both kept and cut: a per-context build can be cut instead.
    MixedFunction,
}

/// A tree cut down to what a filter keeps.
#[derive(Debug, Clone)]
pub struct Cut {
    /// The tree, as the filtered read builds it.
    pub tree: Tree,
    /// The functions: those of the trace, then the kept threads' ones.
    pub funcs: FuncTable,
    /// The repairs the filtered read reports.
    pub repairs: RepairStats,
    /// The trace's index of each kept thread, by its index in the cut tree.
    pub threads: Vec<u32>,
}

impl Cut {
    /// Merges the per-context distributions into one per function, as a
    /// build keeping them by function ([`Keep::TotalByFunction`]) has
    /// them: what a cut of a per-context build gives when the
    /// per-function one was refused ([`Refused::MixedFunction`]).
    ///
    /// [`Keep::TotalByFunction`]: super::Keep::TotalByFunction
    pub fn dists_by_function(&mut self) {
        self.tree.func_dist = super::dist::per_function(&self.tree, self.funcs.len());
        self.tree.dist = Vec::new();
    }
}

/// One kept thread of the full tree.
struct Kept {
    /// Its index in the trace.
    index: u32,
    /// Its top-level kept calls (nodes of the full tree), in order.
    tops: Vec<NodeId>,
    /// Its first kept call is its first call.
    first_is_kept: bool,
}

/// Cuts `full` (a calling-context tree built from a whole trace) to what
/// `slice` keeps; `base` is the trace's functions before the tree added
/// its threads' ones.
pub fn cut(full: &Built, base: &FuncTable, slice: &Slice) -> Result<Cut, Refused> {
    if slice.range.is_some() {
        return Err(Refused::TimeRange);
    }
    let r = full.repairs;
    if r.unwound > 0 || r.unclosed > 0 || r.backwards > 0 {
        return Err(Refused::Repairs);
    }
    if r.orphan_exits > 0 && slice.threads.is_some() {
        return Err(Refused::Repairs);
    }
    let tree = &full.tree;
    let mut kept = Vec::new();
    for (root, index) in thread_roots(tree, &full.funcs, &full.meta)? {
        if !slice.keeps_thread(index) {
            continue;
        }
        let tops = tops(tree, root, slice)?;
        if tops.is_empty() {
            continue;
        }
        let first_is_kept = tops.first().copied() == tree.children(root).next();
        kept.push(Kept {
            index,
            tops,
            first_is_kept,
        });
    }
    let several = kept.len() > 1;
    if several && (r.orphan_exits > 0 || kept.iter().any(|k| !k.first_is_kept)) {
        return Err(Refused::ThreadOrder);
    }
    let mut cutter = Cutter::new(full, base.clone(), slice, &kept);
    for k in &kept {
        cutter.thread(k, several);
    }
    cutter.finish(r)
}

/// Each thread's root in `tree` with its index in the trace, in the
/// tree's order: its thread nodes, or the root for a one-thread tree.
fn thread_roots(
    tree: &Tree,
    funcs: &FuncTable,
    meta: &TraceMeta,
) -> Result<Vec<(NodeId, u32)>, Refused> {
    let children: Vec<NodeId> = tree.children(0).collect();
    let threaded = children.iter().any(|&c| funcs.is_synthetic(tree.func(c)));
    if !threaded {
        return Ok(match children.is_empty() {
            true => Vec::new(),
            false => vec![(0, 0)],
        });
    }
    let mut index: FxHashMap<u64, u32> = FxHashMap::default();
    for (i, &tid) in meta.threads.iter().enumerate() {
        if index.insert(tid, i as u32).is_some() {
            return Err(Refused::ThreadOrder);
        }
    }
    children
        .iter()
        .map(|&c| match funcs.key(tree.func(c)) {
            FuncKey::Thread(tid) => index.get(tid).map(|&i| (c, i)).ok_or(Refused::ThreadOrder),
            _ => Err(Refused::ThreadOrder),
        })
        .collect()
}

/// The kept calls of thread root `root` that become its top-level ones:
/// its calls not excluded, or with `--function` the outermost matching
/// calls not below an excluded one (which must then be siblings, so
/// that nothing merges).
fn tops(tree: &Tree, root: NodeId, slice: &Slice) -> Result<Vec<NodeId>, Refused> {
    if slice.function.is_none() {
        let keep = |&c: &NodeId| !slice.excludes(tree.func(c));
        return Ok(tree.children(root).filter(keep).collect());
    }
    let mut found = Vec::new();
    let mut parent_of_found = None;
    // Open nodes above `n`: (node, end of its subtree).
    let mut open: Vec<(NodeId, NodeId)> = vec![(root, root + tree.size(root))];
    let mut n = root + 1;
    while n < root + tree.size(root) {
        while open.last().is_some_and(|&(_, end)| n >= end) {
            open.pop();
        }
        let f = tree.func(n);
        if slice.excludes(f) {
            n += tree.size(n);
        } else if slice.matches(f) {
            let parent = open.last().map(|&(p, _)| p);
            if parent_of_found.is_some_and(|p| p != parent) {
                return Err(Refused::Merging);
            }
            parent_of_found = Some(parent);
            found.push(n);
            n += tree.size(n);
        } else {
            open.push((n, n + tree.size(n)));
            n += 1;
        }
    }
    Ok(found)
}

/// The cut tree being laid out, in preorder.
struct Cutter<'a> {
    full: &'a Built,
    slice: &'a Slice,
    tree: Tree,
    funcs: FuncTable,
    depths: Vec<u32>,
    /// Dense index of each trace thread kept.
    dense: FxHashMap<u32, u32>,
    /// Kept nodes of the full tree.
    kept_node: Vec<bool>,
    /// A kept call lost a callee.
    lost_child: bool,
    node_dists: bool,
}

impl<'a> Cutter<'a> {
    fn new(full: &'a Built, funcs: FuncTable, slice: &'a Slice, kept: &[Kept]) -> Self {
        let src = &full.tree;
        let mut tree = Tree {
            unit: src.unit,
            ..Tree::empty(src.timed, src.decimals)
        };
        let node_dists = !src.dist.is_empty();
        tree.push(FuncTable::ROOT, 0, 0, Some(0));
        if node_dists {
            tree.dist.push(CallDist::default());
        }
        // Dense threads are numbered by their first kept call, which is
        // their first call here: the trace's order.
        let mut order: Vec<u32> = kept.iter().map(|k| k.index).collect();
        order.sort_unstable();
        let dense = order
            .iter()
            .enumerate()
            .map(|(d, &i)| (i, d as u32))
            .collect();
        Cutter {
            full,
            slice,
            tree,
            funcs,
            depths: vec![0],
            dense,
            kept_node: vec![false; src.len()],
            lost_child: false,
            node_dists,
        }
    }

    /// Lays out kept thread `k`, under a thread node when `several`.
    fn thread(&mut self, k: &Kept, several: bool) {
        let mut depth = 1;
        if several {
            let dense = self.dense[&k.index];
            let meta = &self.full.meta;
            let tid = meta.threads.get(k.index as usize).copied();
            let func = self.funcs.thread(tid.unwrap_or(u64::from(dense)));
            self.tree.push(func, 0, 0, Some(0));
            if self.node_dists {
                self.tree.dist.push(CallDist::default());
            }
            self.depths.push(1);
            depth = 2;
        }
        for &top in &k.tops {
            self.subtree(top, depth);
        }
    }

    /// Copies the subtree of `top` at `depth`, leaving out excluded ones.
    fn subtree(&mut self, top: NodeId, depth: u32) {
        let src = &self.full.tree;
        let end = top + src.size(top);
        // Copied nodes above `n`: (end of its subtree, its copy).
        let mut open: Vec<(NodeId, NodeId)> = Vec::new();
        let mut n = top;
        while n < end {
            while open.last().is_some_and(|&(e, _)| n >= e) {
                open.pop();
            }
            if n != top && self.slice.excludes(src.func(n)) {
                let (_, parent) = *open.last().expect("a copied caller above");
                let own = &mut self.tree.self_time[parent as usize];
                *own = own.saturating_add(src.total(n));
                self.lost_child = true;
                n += src.size(n);
                continue;
            }
            let copy = self.copy(n);
            self.depths.push(depth + open.len() as u32);
            open.push((n + src.size(n), copy));
            n += 1;
        }
    }

    /// Appends node `n` of the full tree; returns its copy.
    fn copy(&mut self, n: NodeId) -> NodeId {
        let src = &self.full.tree;
        self.kept_node[n as usize] = true;
        let id = self.tree.push(
            src.func(n),
            src.total(n),
            src.self_time(n),
            Some(src.calls(n)),
        );
        if self.node_dists {
            let d = self.remapped(&src.dist[n as usize]);
            self.tree.dist.push(d);
        }
        id
    }

    /// `d` with the threads its calls ran on numbered as the cut tree's.
    fn remapped(&self, d: &CallDist) -> CallDist {
        let mut d = d.clone();
        for one in [&mut d.total, &mut d.self_time] {
            if one.count > 0 {
                let t = one.max_at.thread;
                one.max_at.thread = self.dense.get(&t).copied().unwrap_or(t);
            }
        }
        d
    }

    /// Sizes, weights and distributions of the laid-out tree.
    fn finish(mut self, r: RepairStats) -> Result<Cut, Refused> {
        let src = &self.full.tree;
        let self_dists = src.dist.iter().any(|d| d.self_time.count > 0);
        if self.lost_child && self_dists {
            return Err(Refused::SelfTimes);
        }
        self.tree.set_sizes_from_depths(&self.depths);
        finish_weights(&mut self.tree, &self.funcs);
        if !src.func_dist.is_empty() {
            self.tree.func_dist = self.func_dists()?;
        }
        let mut threads: Vec<(u32, u32)> = self.dense.iter().map(|(&i, &d)| (d, i)).collect();
        threads.sort_unstable();
        Ok(Cut {
            tree: self.tree,
            funcs: self.funcs,
            repairs: RepairStats {
                orphan_exits: r.orphan_exits,
                ..RepairStats::default()
            },
            threads: threads.into_iter().map(|(_, i)| i).collect(),
        })
    }

    /// The per-function distributions of the kept calls: each function's
    /// whole one when all its calls are kept, none when none is.
    fn func_dists(&self) -> Result<Vec<CallDist>, Refused> {
        let src = &self.full.tree;
        let mut kept = vec![false; src.func_dist.len()];
        let mut cut = vec![false; src.func_dist.len()];
        for n in 0..src.len() {
            let f = src.func(n as NodeId) as usize;
            let mark = match self.kept_node[n] {
                true => &mut kept,
                false => &mut cut,
            };
            if let Some(m) = mark.get_mut(f) {
                *m = true;
            }
        }
        // One per function of the cut tree, as the builder keeps them.
        let mut out = vec![CallDist::default(); self.funcs.len()];
        for (f, d) in src.func_dist.iter().enumerate().take(out.len()) {
            if d.total.count == 0 || !kept[f] {
                continue;
            }
            if cut[f] {
                return Err(Refused::MixedFunction);
            }
            out[f] = self.remapped(d);
        }
        Ok(out)
    }
}

/// Synthetic nodes (root, threads) weigh what their children weigh, with
/// no self time; in an untimed tree every call weighs 1, so a node weighs
/// its calls and those below it (as the builder lays out a tree).
fn finish_weights(tree: &mut Tree, funcs: &FuncTable) {
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
        tree.self_time[n as usize] = own;
    }
}
