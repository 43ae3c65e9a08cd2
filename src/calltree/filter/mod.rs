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
//!   moved up under their thread, where those of one function merge
//!   (calls, totals, self times and distributions summed), children in
//!   the order they were first entered (the tree's creation ranks);
//! - `--tid` keeps the chosen threads, numbered from 0 in the order their
//!   first kept call comes (the slice's dense threads), and threads with
//!   nothing kept go.
//!
//! What the tree does not tell is refused ([`Refused`]) and the caller
//! reads the trace again through the filter: repairs that depend on which
//! frames are kept (unwound or backwards calls; orphan exits with
//! `--tid`), an order of several threads that depends on when their
//! first kept call came, per-call self times of a caller that lost a
//! child, and a per-function distribution of a function whose calls are
//! partly cut away.

use rustc_hash::FxHashMap;

use super::dist::CallDist;
use super::tree::{NodeId, Tree};
use super::{Built, RepairStats};
use crate::ingest::slice::Slice;
use crate::ingest::{FuncId, FuncKey, FuncTable, TraceMeta};

#[cfg(test)]
mod tests;

/// Why a tree cannot be cut into what the filtered read would build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// A time range keeps calls by when they start, which the tree does not hold.
    TimeRange,
    /// The tree is not one a calling-context builder made (it has no
    /// creation ranks).
    NotBuilt,
    /// The trace was repaired in a way that depends on which frames are
    /// kept (unwound or backwards calls, orphan exits with `--tid`).
    Repairs,
    /// Several threads are kept and the order of their first kept calls
    /// may not be that of their first calls.
    ThreadOrder,
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
    /// them: a filtered read keeps them per context, since a per-function
    /// one cannot be cut where a function runs both inside and outside
    /// what is cut ([`Refused::MixedFunction`]).
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
    /// Its kept calls that become top-level ones (nodes of the full tree).
    tops: Vec<NodeId>,
    /// Creation rank of its first kept call.
    first: NodeId,
    /// The node of that call.
    first_node: NodeId,
    /// Its first kept call is its first call.
    first_is_kept: bool,
}

/// Cuts `full` (a calling-context tree built from a whole trace) to what
/// `slice` keeps; `base` is the trace's functions before the tree added
/// its threads' ones.
pub fn cut(full: &Built, base: &FuncTable, slice: &Slice) -> Result<Cut, Refused> {
    cut_ordered(full, base, slice, Layout::Trace)
}

/// [`cut`] of a tree whose threads are laid out in the order of their
/// first kept calls already (a build through a time window,
/// [`ContextsBuilder::set_window`](super::ContextsBuilder::set_window)), so
/// that the order needs no check.
pub fn cut_in_order(full: &Built, base: &FuncTable, slice: &Slice) -> Result<Cut, Refused> {
    cut_ordered(full, base, slice, Layout::Window)
}

/// [`cut_in_order`] of a tree built through a time window whose hidden
/// callers were kept as path nodes (calls that started before the window,
/// with no call counted: [`ContextsBuilder::keep_hidden_paths`]), so that
/// `--function` and `--exclude` can be cut from it too. A kept call is
/// then below a matching or excluded function when a path node or a kept
/// call above it is of one; the kept calls of a thread that become
/// top-level ones merge by function, as those below a hidden caller do in
/// the filtered read. Kept threads are laid out by their first calls
/// kept, whose starts the tree holds.
///
/// [`ContextsBuilder::keep_hidden_paths`]: super::ContextsBuilder::keep_hidden_paths
pub fn cut_windowed(full: &Built, base: &FuncTable, slice: &Slice) -> Result<Cut, Refused> {
    cut_ordered(full, base, slice, Layout::Paths)
}

/// How the tree to cut laid its threads out, and what it holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// By their first calls: several kept threads are checked.
    Trace,
    /// By their first kept calls (built through a time window).
    Window,
    /// The same, with path nodes above the calls kept.
    Paths,
}

fn cut_ordered(
    full: &Built,
    base: &FuncTable,
    slice: &Slice,
    layout: Layout,
) -> Result<Cut, Refused> {
    if slice.range.is_some() {
        return Err(Refused::TimeRange);
    }
    let tree = &full.tree;
    if tree.created.len() != tree.len() {
        return Err(Refused::NotBuilt);
    }
    let r = full.repairs;
    if r.unwound > 0 || r.backwards > 0 {
        return Err(Refused::Repairs);
    }
    if r.orphan_exits > 0 && slice.threads.is_some() {
        return Err(Refused::Repairs);
    }
    let mut kept = Vec::new();
    for (root, index) in thread_roots(tree, &full.funcs, &full.meta)? {
        if slice.keeps_thread(index) {
            kept.extend(kept_thread(tree, root, index, slice, layout));
        }
    }
    if kept.len() > 1 {
        match layout {
            Layout::Trace => check_thread_order(&kept, r)?,
            Layout::Window => {}
            Layout::Paths => order_by_first_kept(&mut kept, tree)?,
        }
    }
    let mut cutter = Cutter::new(full, base.clone(), slice, &kept);
    for k in &kept {
        cutter.thread(k);
    }
    cutter.finish(r)
}

/// Thread `index` with root `root`, None when the filter keeps nothing of it.
fn kept_thread(
    tree: &Tree,
    root: NodeId,
    index: u32,
    slice: &Slice,
    layout: Layout,
) -> Option<Kept> {
    let tops = match layout {
        Layout::Paths => tops_below_paths(tree, root, slice),
        _ => tops(tree, root, slice),
    };
    let rank = |n: NodeId| tree.created[n as usize];
    let first_node = tops.iter().copied().min_by_key(|&n| rank(n))?;
    let first = rank(first_node);
    let first_is_kept = tree.children(root).next().map(rank) == Some(first);
    Some(Kept {
        index,
        tops,
        first,
        first_node,
        first_is_kept,
    })
}

/// Several threads kept are laid out in the order of their first kept
/// calls' times (then of those calls in the file), and numbered in the
/// second order. The tree knows neither time, only those of the threads'
/// first events, and orders threads by them (then by the trace's index):
/// the two agree when each thread's first event is its first kept call
/// and the file order is the trace's.
fn check_thread_order(kept: &[Kept], r: RepairStats) -> Result<(), Refused> {
    if r.orphan_exits > 0 || kept.iter().any(|k| !k.first_is_kept) {
        return Err(Refused::ThreadOrder);
    }
    let mut by_index: Vec<&Kept> = kept.iter().collect();
    by_index.sort_by_key(|k| k.index);
    if by_index.windows(2).any(|w| w[0].first > w[1].first) {
        return Err(Refused::ThreadOrder);
    }
    Ok(())
}

/// Kept threads of a tree with path nodes in the order the filtered read
/// lays them out: by when their first call kept started (the tree's
/// first starts), then by where it is in the file (its creation rank).
/// The tree is laid out by the threads' first calls in the window, which
/// the cut may have dropped.
fn order_by_first_kept(kept: &mut [Kept], tree: &Tree) -> Result<(), Refused> {
    if tree.first_start.len() != tree.len() {
        return Err(Refused::ThreadOrder);
    }
    kept.sort_by_key(|k| (tree.first_start[k.first_node as usize], k.first));
    Ok(())
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
/// calls not below an excluded one.
fn tops(tree: &Tree, root: NodeId, slice: &Slice) -> Vec<NodeId> {
    if slice.function.is_none() {
        let keep = |&c: &NodeId| !slice.excludes(tree.func(c));
        return tree.children(root).filter(keep).collect();
    }
    let mut found = Vec::new();
    let end = root + tree.size(root);
    let mut n = root + 1;
    while n < end {
        let f = tree.func(n);
        if slice.excludes(f) {
            n += tree.size(n);
        } else if slice.matches(f) {
            found.push(n);
            n += tree.size(n);
        } else {
            n += 1;
        }
    }
    found
}

/// [`tops`] of a tree with path nodes (no calls: callers that started
/// before the window): the outermost counted calls not below an excluded
/// function, and with `--function` below or of a matching one, path
/// nodes included.
fn tops_below_paths(tree: &Tree, root: NodeId, slice: &Slice) -> Vec<NodeId> {
    let mut found = Vec::new();
    // Everything below a matching path node before this is rooted.
    let mut rooted_end = 0;
    let mut n = root + 1;
    let end = root + tree.size(root);
    while n < end {
        let f = tree.func(n);
        let rooted = slice.function.is_none() || n < rooted_end || slice.matches(f);
        if slice.excludes(f) {
            n += tree.size(n);
        } else if tree.calls(n) == 0 {
            if rooted && n >= rooted_end {
                rooted_end = n + tree.size(n);
            }
            n += 1;
        } else if rooted {
            found.push(n);
            n += tree.size(n);
        } else {
            n += 1;
        }
    }
    found
}

/// The cut tree being laid out, in preorder. A node of it stands for
/// one or more nodes of the full tree ("parts": one, unless `--function`
/// merged calls from several callers).
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
    /// More than one thread is kept: each gets a thread node.
    several: bool,
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
        // Kept threads are numbered in the order of their first kept calls.
        let mut order: Vec<(NodeId, u32)> = kept.iter().map(|k| (k.first, k.index)).collect();
        order.sort_unstable();
        let dense = order
            .iter()
            .enumerate()
            .map(|(d, &(_, i))| (i, d as u32))
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
            several: kept.len() > 1,
        }
    }

    /// Lays out kept thread `k`, under a thread node when several are kept.
    fn thread(&mut self, k: &Kept) {
        let mut depth = 1;
        if self.several {
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
        let groups = self.group(k.tops.clone());
        self.lay_out(groups, depth);
    }

    /// Lays out `groups` (each the parts of one node) at `depth` with
    /// everything kept below them, in preorder, without recursion.
    fn lay_out(&mut self, groups: Vec<Vec<NodeId>>, depth: u32) {
        let mut todo: Vec<(Vec<NodeId>, u32)> =
            groups.into_iter().rev().map(|g| (g, depth)).collect();
        while let Some((parts, d)) = todo.pop() {
            let copy = self.copy(&parts);
            self.depths.push(d);
            let kids = self.kept_children(&parts, copy);
            let groups = match parts.len() {
                1 => kids.into_iter().map(|c| vec![c]).collect(),
                _ => self.group(kids),
            };
            todo.extend(groups.into_iter().rev().map(|g| (g, d + 1)));
        }
    }

    /// `nodes` grouped by function, each group where its first-created
    /// node was (the order in which the filtered read creates them).
    fn group(&self, nodes: Vec<NodeId>) -> Vec<Vec<NodeId>> {
        let src = &self.full.tree;
        let mut at: FxHashMap<FuncId, usize> = FxHashMap::default();
        let mut groups: Vec<(NodeId, Vec<NodeId>)> = Vec::new();
        for n in nodes {
            let rank = src.created[n as usize];
            match at.get(&src.func(n)) {
                Some(&i) => {
                    groups[i].0 = groups[i].0.min(rank);
                    groups[i].1.push(n);
                }
                None => {
                    at.insert(src.func(n), groups.len());
                    groups.push((rank, vec![n]));
                }
            }
        }
        groups.sort_unstable_by_key(|g| g.0);
        groups.into_iter().map(|g| g.1).collect()
    }

    /// The children of `parts` kept; the time of those cut goes to the
    /// self time of `copy`, their caller's node.
    fn kept_children(&mut self, parts: &[NodeId], copy: NodeId) -> Vec<NodeId> {
        let src = &self.full.tree;
        let mut kids = Vec::new();
        for &p in parts {
            for c in src.children(p) {
                if !self.slice.excludes(src.func(c)) {
                    kids.push(c);
                    continue;
                }
                let own = &mut self.tree.self_time[copy as usize];
                *own = own.saturating_add(src.total(c));
                self.lost_child = true;
            }
        }
        kids
    }

    /// Appends one node standing for `parts` (calls, times and
    /// distributions summed); returns it.
    fn copy(&mut self, parts: &[NodeId]) -> NodeId {
        let src = &self.full.tree;
        let (mut calls, mut total, mut own) = (0u64, 0u64, 0u64);
        let mut dist = CallDist::default();
        for &p in parts {
            self.kept_node[p as usize] = true;
            calls = calls.saturating_add(src.calls(p));
            total = total.saturating_add(src.total(p));
            own = own.saturating_add(src.self_time(p));
            if self.node_dists {
                dist.merge(&self.remapped(&src.dist[p as usize]));
            }
        }
        let id = self.tree.push(src.func(parts[0]), total, own, Some(calls));
        if self.node_dists {
            self.tree.dist.push(dist);
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
        super::builder::weigh_untimed_and_synthetic(&mut self.tree, &self.funcs);
        if !src.func_dist.is_empty() {
            self.tree.func_dist = self.func_dists()?;
        }
        let mut threads: Vec<(u32, u32)> = self.dense.iter().map(|(&i, &d)| (d, i)).collect();
        threads.sort_unstable();
        let unclosed = self.unclosed();
        Ok(Cut {
            tree: self.tree,
            funcs: self.funcs,
            repairs: RepairStats {
                orphan_exits: r.orphan_exits,
                unclosed,
                ..RepairStats::default()
            },
            threads: threads.into_iter().map(|(_, i)| i).collect(),
        })
    }

    /// The calls open at the end of the trace that are kept (the filtered
    /// read closes and counts those).
    fn unclosed(&self) -> u64 {
        let src = &self.full.tree;
        if src.open_at_end.is_empty() {
            return 0;
        }
        let open: FxHashMap<NodeId, u64> =
            src.open_at_end
                .iter()
                .fold(FxHashMap::default(), |mut m, &rank| {
                    *m.entry(rank).or_default() += 1;
                    m
                });
        (0..src.len())
            .filter(|&n| self.kept_node[n])
            .filter_map(|n| open.get(&src.created[n]))
            .sum()
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
