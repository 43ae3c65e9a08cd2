//! Method 1: elimination by caller/callee relation. Starting at the root,
//! every kept node p keeps (1) all its *intermediate* children, nodes with
//! some node below them in another module than their own, then (2) its
//! other children by descending total (ties: earlier in the trace first),
//! stopping before a child once the kept children's totals reach
//! T x total(p). Children not kept go with their subtrees; their time moves
//! into p's self time. Top-level calls (children of the synthetic root or of
//! a thread node) are each a root of their thread's tree and always kept.

use super::pass::{Context, Pass, keep_closed, protected_nodes};
use super::{Absorb, Abstracted, Modules, filter};
use crate::calltree::{NodeId, Tree};
use crate::ingest::FuncTable;

/// Method 1 as a pass (`--threshold T`). Protected (`--keep`) nodes and
/// their ancestors survive besides what method 1 chooses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold(pub f64);

impl Pass for Threshold {
    fn name(&self) -> &'static str {
        "threshold"
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        vec![("threshold", self.0.to_string())]
    }
    fn apply(&self, tree: &Tree, cx: &Context) -> Abstracted {
        if !cx.protected.contains(&true) {
            return eliminate(tree, cx.funcs, cx.modules, self.0);
        }
        let inter = intermediate(tree, cx.modules);
        let mut keep = select(tree, cx.funcs, &inter, self.0).keep;
        let prot = protected_nodes(tree, cx);
        keep.iter_mut().zip(&prot).for_each(|(k, p)| *k |= p);
        keep_closed(tree, cx.funcs, &mut keep)
    }
}

/// Runs method 1 with threshold `t` in [0, 1].
pub fn eliminate(tree: &Tree, funcs: &FuncTable, modules: &Modules, t: f64) -> Abstracted {
    let inter = intermediate(tree, modules);
    let sel = select(tree, funcs, &inter, t);
    Abstracted {
        tree: filter(tree, &sel.keep, Absorb::Subtree),
        eliminated: sel.eliminated,
    }
}

/// Which nodes method 1 keeps, before the tree is rebuilt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Kept nodes (the root always).
    pub keep: Vec<bool>,
    /// Total weight of the removed subtrees.
    pub eliminated: u64,
}

impl Selection {
    /// Number of kept call nodes (synthetic nodes excluded).
    pub fn kept_calls(&self, tree: &Tree, funcs: &FuncTable) -> usize {
        (0..tree.len() as NodeId)
            .filter(|&n| self.keep[n as usize] && !funcs.is_synthetic(tree.func(n)))
            .count()
    }
}

/// Chooses the nodes method 1 keeps, given the [`intermediate`] flags; a
/// threshold sweep computes those once and calls this per threshold.
pub fn select(tree: &Tree, funcs: &FuncTable, inter: &[bool], t: f64) -> Selection {
    let mut keep = vec![false; tree.len()];
    keep[0] = true;
    let mut eliminated = 0;
    for n in 0..tree.len() as NodeId {
        if !keep[n as usize] {
            continue;
        }
        if funcs.is_synthetic(tree.func(n)) {
            tree.children(n).for_each(|c| keep[c as usize] = true);
            continue;
        }
        for c in choose(tree, n, inter, t) {
            keep[c as usize] = true;
        }
        eliminated += tree
            .children(n)
            .filter(|&c| !keep[c as usize])
            .map(|c| tree.total(c))
            .sum::<u64>();
    }
    Selection { keep, eliminated }
}

/// The children of `p` that method 1 keeps.
fn choose(tree: &Tree, p: NodeId, inter: &[bool], t: f64) -> Vec<NodeId> {
    let (mut chosen, mut others): (Vec<NodeId>, Vec<NodeId>) =
        tree.children(p).partition(|&c| inter[c as usize]);
    let mut acc: u64 = chosen.iter().map(|&c| tree.total(c)).sum();
    // Stable sort: equal totals stay in trace order.
    others.sort_by_key(|&c| std::cmp::Reverse(tree.total(c)));
    let goal = t * tree.total(p) as f64;
    for c in others {
        if acc as f64 >= goal {
            break;
        }
        acc += tree.total(c);
        chosen.push(c);
    }
    chosen
}

/// For every node: does some node strictly below it belong to another module?
pub fn intermediate(tree: &Tree, modules: &Modules) -> Vec<bool> {
    // uniform[n]: the one module of n's whole subtree, or None when mixed.
    let mut uniform: Vec<Option<u32>> = vec![None; tree.len()];
    let mut inter = vec![false; tree.len()];
    for n in (0..tree.len() as NodeId).rev() {
        let m = modules.of(tree.func(n));
        let mixed_below = tree.children(n).any(|c| uniform[c as usize] != Some(m));
        inter[n as usize] = mixed_below;
        uniform[n as usize] = (!mixed_below).then_some(m);
    }
    inter
}
