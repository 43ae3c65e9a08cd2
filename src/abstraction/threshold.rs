//! Method 1: elimination by caller/callee relation. Starting at the root,
//! every kept node p keeps (1) all its *intermediate* children, nodes with
//! some node below them in another module than their own, then (2) its
//! other children by descending total (ties: earlier in the trace first),
//! stopping before a child once the kept children's totals reach
//! T x total(p). Children not kept go with their subtrees; their time moves
//! into p's self time. Top-level calls (children of the synthetic root or of
//! a thread node) are each a root of their thread's tree and always kept.

use super::pass::{Context, Param, Pass, keep_closed, protected_nodes};
use super::share::Share;
use super::{Absorb, Abstracted, Modules, filter};
use crate::calltree::{NodeId, Tree};
use crate::ingest::FuncTable;

/// Method 1 as a pass (`--threshold T`). Protected (`--keep`) nodes and
/// their ancestors survive besides what method 1 chooses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Threshold(pub Share);

impl Pass for Threshold {
    fn paper(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "threshold"
    }
    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![("threshold", Param::Share(self.0))]
    }
    fn apply(&self, tree: &Tree, cx: &Context) -> Abstracted {
        if !cx.protected.contains(&true) {
            return eliminate(tree, cx.funcs, cx.modules, self.0.get());
        }
        let inter = intermediate(tree, cx.modules);
        let mut keep = select(tree, cx.funcs, &inter, self.0.get()).keep;
        let prot = protected_nodes(tree, cx);
        keep.iter_mut().zip(&prot).for_each(|(k, p)| *k |= p);
        keep_closed(tree, cx.funcs, &mut keep)
    }
}

/// Runs method 1 with threshold `t` in [0, 1].
pub(crate) fn eliminate(tree: &Tree, funcs: &FuncTable, modules: &Modules, t: f64) -> Abstracted {
    let inter = intermediate(tree, modules);
    let sel = select(tree, funcs, &inter, t);
    Abstracted {
        tree: filter(tree, &sel.keep, Absorb::Subtree),
        eliminated: sel.eliminated,
    }
}

/// Which nodes method 1 keeps, before the tree is rebuilt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selection {
    /// Kept nodes (the root always).
    pub keep: Vec<bool>,
    /// Total weight of the removed subtrees.
    pub eliminated: u64,
}

impl Selection {
    /// Number of kept call nodes (synthetic nodes excluded).
    #[cfg(test)]
    pub fn kept_calls(&self, tree: &Tree, funcs: &FuncTable) -> usize {
        (0..tree.len() as NodeId)
            .filter(|&n| self.keep[n as usize] && !funcs.is_synthetic(tree.func(n)))
            .count()
    }
}

/// Chooses the nodes method 1 keeps, given the [`intermediate`] flags.
pub(crate) fn select(tree: &Tree, funcs: &FuncTable, inter: &[bool], t: f64) -> Selection {
    let mut keep = vec![false; tree.len()];
    keep[0] = true;
    let mut eliminated = 0;
    let mut others = Vec::new();
    for n in 0..tree.len() as NodeId {
        if !keep[n as usize] {
            continue;
        }
        if funcs.is_synthetic(tree.func(n)) {
            tree.children(n).for_each(|c| keep[c as usize] = true);
            continue;
        }
        choose(tree, n, inter, t, &mut others, &mut keep);
        eliminated += tree
            .children(n)
            .filter(|&c| !keep[c as usize])
            .map(|c| tree.total(c))
            .sum::<u64>();
    }
    Selection { keep, eliminated }
}

/// Marks in `keep` the children of `p` that method 1 keeps; `others` is
/// scratch space, reused from node to node.
fn choose(
    tree: &Tree,
    p: NodeId,
    inter: &[bool],
    t: f64,
    others: &mut Vec<NodeId>,
    keep: &mut [bool],
) {
    let mut acc = partition(tree, p, inter, others, |c| keep[c as usize] = true);
    let goal = t * tree.total(p) as f64;
    for &c in others.iter() {
        if acc as f64 >= goal {
            break;
        }
        acc += tree.total(c);
        keep[c as usize] = true;
    }
}

/// Splits the children of `p`: the intermediate ones (`inter`) go to
/// `kept`, the others into `others` by descending total (a stable sort:
/// equal totals stay in trace order). Returns the intermediate ones' total.
fn partition(
    tree: &Tree,
    p: NodeId,
    inter: &[bool],
    others: &mut Vec<NodeId>,
    mut kept: impl FnMut(NodeId),
) -> u64 {
    others.clear();
    let mut acc: u64 = 0;
    for c in tree.children(p) {
        if inter[c as usize] {
            kept(c);
            acc += tree.total(c);
        } else {
            others.push(c);
        }
    }
    others.sort_by_key(|&c| std::cmp::Reverse(tree.total(c)));
    acc
}

/// Method 1 at every threshold of `points` (ascending) at once: for every
/// node, the index of the first point at which [`select`] keeps it, or
/// `points.len()` when it keeps it at none. A child that `choose` keeps
/// at threshold t it keeps at every higher one (the kept children are a
/// prefix of one order, cut where their sum reaches t x total), and a node
/// is kept when its parent and its choice are, so a node's level is the
/// larger of its parent's and the first point its parent chooses it at.
/// A sweep then sorts each node's children once instead of once a point.
pub(crate) fn levels(tree: &Tree, funcs: &FuncTable, inter: &[bool], points: &[f64]) -> Vec<u16> {
    assert!(points.len() < u16::MAX as usize, "too many sweep points");
    let never = points.len() as u16;
    let mut level = vec![never; tree.len()];
    level[0] = 0;
    let mut others: Vec<NodeId> = Vec::new();
    for n in 0..tree.len() as NodeId {
        let l = level[n as usize];
        if l == never {
            continue;
        }
        if funcs.is_synthetic(tree.func(n)) {
            tree.children(n).for_each(|c| level[c as usize] = l);
            continue;
        }
        let mut acc = partition(tree, n, inter, &mut others, |c| level[c as usize] = l);
        let total = tree.total(n) as f64;
        for &c in &others {
            // The same comparison as `choose`: kept while the sum so far is below the goal.
            let first = points.partition_point(|&t| acc as f64 >= t * total);
            if first == points.len() {
                break;
            }
            level[c as usize] = l.max(first as u16);
            acc += tree.total(c);
        }
    }
    level
}

/// Kept call nodes (synthetic nodes excluded) at each of the `points.len()`
/// points, from [`levels`].
pub(crate) fn kept_calls_per_point(
    tree: &Tree,
    funcs: &FuncTable,
    levels: &[u16],
    points: usize,
) -> Vec<usize> {
    let mut at = vec![0usize; points + 1];
    for n in 0..tree.len() as NodeId {
        if !funcs.is_synthetic(tree.func(n)) {
            at[levels[n as usize] as usize] += 1;
        }
    }
    at.truncate(points);
    // A node kept from point i on counts at i and every later point.
    let mut sum = 0;
    for k in &mut at {
        sum += *k;
        *k = sum;
    }
    at
}

/// For every node: does some node strictly below it belong to another module?
pub(crate) fn intermediate(tree: &Tree, modules: &Modules) -> Vec<bool> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abstraction::test_trees::modules;
    use proptest::prelude::*;

    fn random_tree(rows: &[(u32, u8, u64)], threads: usize) -> (Tree, FuncTable) {
        crate::abstraction::test_trees::random_tree(rows, threads, false)
    }

    /// Ascending thresholds: on a grid of twentieths (exact ties with
    /// round totals) or anywhere in [0, 1], repeats allowed.
    fn arb_points() -> impl Strategy<Value = Vec<f64>> {
        let grid = prop::collection::vec((0u32..=20).prop_map(|k| k as f64 / 20.0), 1..25);
        let any = prop::collection::vec(0.0f64..=1.0, 1..25);
        prop_oneof![grid, any].prop_map(|mut p| {
            p.sort_by(f64::total_cmp);
            p
        })
    }

    const TABLES: [&str; 3] = [
        "f0,a\nf1,a\nf2,a\nf3,b\nf4,b\nf5,b\n",
        "*,one\n",
        "f0,m0\nf1,m1\nf2,m2\nf3,m3\nf4,m4\nf5,m5\n",
    ];

    proptest! {
        /// The one-pass sweep against `select` run at each point.
        #[test]
        fn levels_agree_with_selecting_at_every_point(
            rows in prop::collection::vec((0u32..4, 0u8..6, 0u64..12), 1..60),
            threads in 0usize..3,
            table in 0usize..3,
            points in arb_points(),
        ) {
            let (t, funcs) = random_tree(&rows, threads);
            let inter = intermediate(&t, &modules(&funcs, TABLES[table]));
            let levels = levels(&t, &funcs, &inter, &points);
            let mut counts = Vec::new();
            for (i, &p) in points.iter().enumerate() {
                let sel = select(&t, &funcs, &inter, p);
                let from_levels: Vec<bool> = levels.iter().map(|&l| (l as usize) <= i).collect();
                prop_assert_eq!(&from_levels, &sel.keep, "threshold {}", p);
                counts.push(sel.kept_calls(&t, &funcs));
            }
            prop_assert_eq!(kept_calls_per_point(&t, &funcs, &levels, points.len()), counts);
        }
    }

    #[test]
    fn a_child_at_the_exact_goal_is_left_out_from_that_threshold_on() {
        // main (total 20) calls a (10) then b (10): at 0.5 the goal is 10,
        // reached by a alone, so b is kept only above 0.5.
        let rows = [(0, 0, 0), (0, 1, 10), (1, 2, 10)];
        let (t, funcs) = random_tree(&rows, 0);
        let inter = intermediate(&t, &modules(&funcs, TABLES[1]));
        let points = [0.0, 0.5, 0.55, 1.0];
        assert_eq!(levels(&t, &funcs, &inter, &points), [0, 0, 1, 2]);
        assert_eq!(
            kept_calls_per_point(&t, &funcs, &levels(&t, &funcs, &inter, &points), 4),
            [1, 2, 3, 3]
        );
    }
}
