//! Chain folding for drawings: a call node with negligible self time and
//! exactly one callee adds nothing to read, so it is drawn inside that
//! callee as `a → … → b`. The drawn node gets the chain's top total and the
//! chain's summed self time, so no time is lost; the hidden functions are
//! listed per drawn node for the label's tooltip. Only the drawing changes:
//! node counts and `--stats` describe the abstracted tree itself.

use crate::calltree::{NodeId, Tree};
use crate::ingest::{FuncId, FuncTable};

/// A tree with its chains folded, ready to draw.
#[derive(Debug, Clone)]
pub(crate) struct Folded {
    /// The drawn tree.
    pub tree: Tree,
    /// For each node of `tree`, the functions folded into it, top first.
    pub hidden: Vec<Vec<FuncId>>,
}

/// Folds every chain of nodes whose self weight is below `min_self`.
pub(crate) fn fold_chains(tree: &Tree, funcs: &FuncTable, min_self: u64) -> Folded {
    let is_call = |n: NodeId| !funcs.is_synthetic(tree.func(n));
    let hides = |n: NodeId| {
        let mut kids = tree.children(n);
        let only = matches!((kids.next(), kids.next()), (Some(_), None));
        is_call(n) && only && tree.self_time(n) < min_self
    };
    let parents = tree.parents();
    let hidden: Vec<bool> = (0..tree.len() as NodeId).map(hides).collect();
    let mut out = tree.empty_like();
    let mut folded_into = Vec::new();
    let mut drawn_as: Vec<NodeId> = vec![0; tree.len()];
    let mut depth: Vec<u32> = Vec::new();
    for n in 0..tree.len() as NodeId {
        let (i, p) = (n as usize, parents[n as usize]);
        if hidden[i] {
            drawn_as[i] = drawn_as[p as usize];
            continue;
        }
        let run = hidden_run_above(n, &parents, &hidden);
        let top = run.first().copied().unwrap_or(n);
        let self_w = tree.self_time(n) + run.iter().map(|&h| tree.self_time(h)).sum::<u64>();
        let calls = tree.has_call_counts().then(|| tree.calls(top));
        let id = out.push(tree.func(n), tree.total(top), self_w, calls);
        let parent_depth = if n == 0 {
            None
        } else {
            Some(depth[drawn_as[p as usize] as usize])
        };
        depth.push(parent_depth.map_or(0, |d| d + 1));
        drawn_as[i] = id;
        folded_into.push(run.iter().map(|&h| tree.func(h)).collect());
    }
    out.set_sizes_from_depths(&depth);
    Folded {
        tree: out,
        hidden: folded_into,
    }
}

/// The hidden nodes directly above `n`, top first.
fn hidden_run_above(n: NodeId, parents: &[NodeId], hidden: &[bool]) -> Vec<NodeId> {
    let mut run = Vec::new();
    let mut a = n;
    while a != 0 && hidden[parents[a as usize] as usize] {
        a = parents[a as usize];
        run.push(a);
    }
    run.reverse();
    run
}
