//! Trace abstraction, the two methods of the abstraction paper (seed 003):
//! elimination by caller/callee time threshold ([`threshold`], method 1)
//! and merging of callees of the caller's module ([`merge`], method 2), run
//! alone or merge-then-threshold. Both only remove nodes, so the result is
//! the input's preorder with nodes filtered out ([`filter`]); what a removed
//! node weighed moves into the self time of its nearest kept ancestor, so
//! total = self + sum of children's totals keeps holding.
//!
//! Beyond the paper, every method is a [`pass::Pass`] (recursion folding,
//! the whole-trace threshold `--min-total`, the node budget `--max-nodes`),
//! composed by [`pipeline::Options`] and listed for `compare` in
//! [`registry`], whose methods [`shared`] runs with their common leading
//! passes done once; [`chains`] folds single-callee chains for drawings.

pub(crate) mod budget;
pub(crate) mod chains;
pub(crate) mod global;
pub(crate) mod merge;
pub(crate) mod modules;
pub(crate) mod pass;
pub(crate) mod pipeline;
pub(crate) mod prefix;
pub(crate) mod recursion;
pub(crate) mod registry;
pub(crate) mod share;
pub(crate) mod shared;
pub(crate) mod summary;
#[cfg(test)]
pub(crate) mod test_trees;
pub(crate) mod threshold;
pub(crate) mod trace;

pub(crate) use modules::{ModuleSource, Modules, NO_MODULE};
pub use modules::{ModuleTable, ModulesArg};
pub(crate) use pipeline::Options;
pub(crate) use share::{Share, ShareError};

use crate::calltree::{NodeId, Tree};

/// An abstracted tree and what the abstraction dropped.
#[derive(Debug, Clone)]
pub struct Abstracted {
    /// The remaining tree.
    pub tree: Tree,
    /// Weight of the subtrees eliminated by method 1 (merging drops no weight).
    pub eliminated: u64,
}

impl Abstracted {
    /// Share of `root_total` (the input's root total) that the kept nodes'
    /// own self weights (their own plus what was merged into them) account
    /// for: 1 for an empty tree.
    pub(crate) fn explained(&self, root_total: u64) -> f64 {
        if root_total == 0 {
            1.0
        } else {
            1.0 - self.eliminated as f64 / root_total as f64
        }
    }
}

/// How a removed node's weight reaches its nearest kept ancestor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Absorb {
    /// The whole subtree goes (method 1): its total is added to the ancestor's self.
    Subtree,
    /// Only the node goes (method 2): its self is added; its children move up.
    Node,
}

/// Keeps the nodes with `keep[n]` (the root always), in preorder.
pub(crate) fn filter(tree: &Tree, keep: &[bool], absorb: Absorb) -> Tree {
    let calls = tree.has_call_counts();
    // A kept node's calls are unchanged, so are their distributions.
    let dists = tree.dist.len() == tree.len();
    let mut out = tree.empty_like();
    out.reserve(survivors(tree, keep, absorb), calls);
    // The kept nodes on the current path: (end of its subtree in `tree`, id in `out`).
    let mut open: Vec<(NodeId, NodeId)> = Vec::new();
    let len = tree.len() as NodeId;
    let mut n: NodeId = 0;
    while n < len {
        close_ended(&mut out, &mut open, n);
        if n == 0 || keep[n as usize] {
            let (total, self_time) = (tree.total(n), tree.self_time(n));
            let id = out.push(tree.func(n), total, self_time, calls.then(|| tree.calls(n)));
            if dists {
                out.dist.push(tree.dist[n as usize].clone());
            }
            open.push((n + tree.size(n), id));
            n += 1;
            continue;
        }
        // A removed subtree is skipped whole: none of it survives.
        let (gained, next) = match absorb {
            Absorb::Subtree => (tree.total(n), n + tree.size(n)),
            Absorb::Node => (tree.self_time(n), n + 1),
        };
        let (_, kept_anc) = *open.last().expect("the root is kept");
        out.self_time[kept_anc as usize] += gained;
        n = next;
    }
    close_ended(&mut out, &mut open, len);
    out
}

/// Ends the kept nodes whose subtree in the input ends before node `n`:
/// their size in `out` is what was pushed since them.
fn close_ended(out: &mut Tree, open: &mut Vec<(NodeId, NodeId)>, n: NodeId) {
    while let Some(&(end, id)) = open.last() {
        if end > n {
            break;
        }
        open.pop();
        out.size[id as usize] = out.len() as u32 - id;
    }
}

/// How many nodes [`filter`] keeps.
fn survivors(tree: &Tree, keep: &[bool], absorb: Absorb) -> usize {
    if absorb == Absorb::Node {
        return 1 + keep.iter().skip(1).filter(|&&k| k).count();
    }
    let (mut count, mut n) = (1, 1);
    while n < tree.len() as NodeId {
        if keep[n as usize] {
            count += 1;
            n += 1;
        } else {
            n += tree.size(n);
        }
    }
    count
}

#[cfg(test)]
mod tests;
