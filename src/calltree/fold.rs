//! Folding identical call paths of any tree (e.g. an abstracted call tree)
//! into a calling-context tree: siblings with the same function merge,
//! adding their calls, totals and self times. Drawings use it so that a
//! tree of 10^5 calls becomes a picture of its distinct paths.

use super::builder::ContextsBuilder;
use super::tree::{NodeId, Tree};
use crate::ingest::{FuncTable, NodeRecord, NodeSink, TraceMeta};

/// Merges identical call paths of `tree`.
pub fn fold_paths(tree: &Tree, funcs: &FuncTable) -> Tree {
    let mut b = ContextsBuilder::default();
    let depths = tree.depths();
    let kept = tree.dist.len() == tree.len();
    for n in 1..tree.len() as NodeId {
        let r = NodeRecord {
            depth: depths[n as usize] - 1,
            func: tree.func(n),
            self_time: tree.self_time(n),
            total: tree.total(n),
            calls: tree.calls(n),
        };
        // Kept distributions merge with the paths.
        match kept {
            true => b.node_with_dist(r, &tree.dist[n as usize]),
            false => b.node(r),
        }
    }
    // The nodes carry their weights already (an abstracted tree's self
    // includes what merged nodes gave it): the builder keeps them, as it
    // does for times, instead of weighing an untimed tree's calls again.
    let meta = TraceMeta {
        timed: true,
        decimals: tree.decimals,
        unit: tree.unit,
        ..TraceMeta::default()
    };
    let (mut folded, _) = b.finish(&meta, &mut funcs.clone());
    folded.timed = tree.timed;
    folded.func_dist = tree.func_dist.clone();
    folded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_paths_merge_with_summed_weights() {
        let mut funcs = FuncTable::default();
        let (m, f, g) = (funcs.name("m"), funcs.name("f"), funcs.name("g"));
        let mut t = Tree::empty(true, 0);
        for (func, total, s) in [(0, 30, 0), (m, 30, 5), (f, 10, 6), (g, 4, 4), (f, 15, 15)] {
            t.push(func, total, s, None);
        }
        t.set_sizes_from_depths(&[0, 1, 2, 3, 2]);
        let folded = fold_paths(&t, &funcs);
        assert_eq!(folded.len(), 4);
        assert_eq!(
            (
                folded.func(2),
                folded.calls(2),
                folded.total(2),
                folded.self_time(2)
            ),
            (f, 2, 25, 21)
        );
        assert_eq!(folded.func(3), g);
    }
}
