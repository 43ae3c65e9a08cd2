//! The node budget (`--max-nodes N`): keep the N heaviest call nodes by
//! total. A node's total is at least any descendant's, and ties go to the
//! earlier node in preorder (ancestors first), so the N heaviest are
//! ancestor-closed. Protected (`--keep`) nodes and their ancestors survive
//! and count against the budget; only they can make the result exceed it.

use super::Abstracted;
use super::pass::{Context, Param, Pass, keep_closed, protected_nodes};
use crate::calltree::{NodeId, Tree};

/// The `--max-nodes N` pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MaxNodes(pub usize);

impl Pass for MaxNodes {
    fn name(&self) -> &'static str {
        "max-nodes"
    }
    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![("max_nodes", Param::Count(self.0))]
    }
    fn apply(&self, tree: &Tree, cx: &Context) -> Abstracted {
        let mut keep = protected_nodes(tree, cx);
        let is_call = |n: NodeId| !cx.funcs.is_synthetic(tree.func(n));
        let used = (0..tree.len() as NodeId)
            .filter(|&n| keep[n as usize] && is_call(n))
            .count();
        let mut order: Vec<NodeId> = (0..tree.len() as NodeId)
            .filter(|&n| !keep[n as usize] && is_call(n))
            .collect();
        // Stable: equal totals keep preorder, ancestors before descendants.
        order.sort_by_key(|&n| std::cmp::Reverse(tree.total(n)));
        for &n in order.iter().take(self.0.saturating_sub(used)) {
            keep[n as usize] = true;
        }
        close_upwards(tree, &mut keep);
        keep_closed(tree, cx.funcs, &mut keep)
    }
}

/// Adds the ancestors of kept nodes (a no-op unless protection interfered).
fn close_upwards(tree: &Tree, keep: &mut [bool]) {
    for n in (0..tree.len() as NodeId).rev() {
        if tree.children(n).any(|c| keep[c as usize]) {
            keep[n as usize] = true;
        }
    }
}
