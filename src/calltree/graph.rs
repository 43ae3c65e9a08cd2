//! The caller -> callee graph that pvtrace drew: one node per function, one
//! edge per calling pair, weighted by the number of calls and the total time
//! spent in them. Derived from either tree view (the calling-context tree
//! gives the same graph as the call tree, much faster). Nodes and edges are
//! numbered in order of first appearance in the trace, so output never
//! depends on hashing. Calls at the top of a thread have no caller and add
//! no edge; recursive calls add a self-loop.

use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::FxHashMap;

use super::tree::{NodeId, Tree};
use crate::ingest::{FuncId, FuncTable, Unit};

/// Weight of one caller -> callee edge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EdgeStats {
    /// Number of calls from caller to callee.
    pub calls: u64,
    /// Sum of the callee's total weight over those calls.
    pub total: u64,
}

/// The call graph, with functions as nodes.
#[derive(Debug, Clone)]
pub struct CallGraph {
    /// Nodes carry function ids; edges carry call counts and time.
    pub graph: DiGraph<FuncId, EdgeStats>,
    /// Whether edge totals are times.
    pub timed: bool,
    /// What edge totals count.
    pub unit: Unit,
    /// Decimal places of the fixed-point totals (indented input with decimals).
    pub decimals: u8,
}

impl CallGraph {
    /// Aggregates a tree into the call graph.
    pub fn from_tree(tree: &Tree, funcs: &FuncTable) -> CallGraph {
        let mut graph = DiGraph::new();
        let mut nodes: FxHashMap<FuncId, NodeIndex> = FxHashMap::default();
        let mut edges = FxHashMap::default();
        let mut stack: Vec<(NodeId, Option<NodeIndex>)> = vec![(0, None)];
        // Iterative preorder keeps first-appearance order for nodes and edges.
        while let Some((n, caller)) = stack.pop() {
            let func = tree.func(n);
            let me = (!funcs.is_synthetic(func))
                .then(|| *nodes.entry(func).or_insert_with(|| graph.add_node(func)));
            if let (Some(from), Some(to)) = (caller, me) {
                let e = *edges
                    .entry((from, to))
                    .or_insert_with(|| graph.add_edge(from, to, EdgeStats::default()));
                let w = &mut graph[e];
                w.calls = w.calls.saturating_add(tree.calls(n));
                w.total = w.total.saturating_add(tree.total(n));
            }
            let kids: Vec<NodeId> = tree.children(n).collect();
            stack.extend(kids.into_iter().rev().map(|c| (c, me)));
        }
        CallGraph {
            graph,
            timed: tree.timed,
            unit: tree.unit,
            decimals: tree.decimals,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_sum_calls_and_skip_the_root() {
        let mut funcs = FuncTable::default();
        let (main, f, g) = (funcs.name("main"), funcs.name("f"), funcs.name("g"));
        let mut t = Tree::empty(true, 0);
        for (func, total) in [(0, 100), (main, 100), (f, 30), (g, 10), (f, 20), (g, 5)] {
            t.push(func, total, 0, None);
        }
        t.set_sizes_from_depths(&[0, 1, 2, 3, 2, 1]);
        let cg = CallGraph::from_tree(&t, &funcs);
        let g = &cg.graph;
        assert_eq!(g.node_weights().copied().collect::<Vec<_>>(), [main, f, 3]);
        let edges: Vec<_> = g
            .edge_indices()
            .map(|e| {
                let (a, b) = g.edge_endpoints(e).unwrap();
                (g[a], g[b], g[e].calls, g[e].total)
            })
            .collect();
        assert_eq!(
            edges,
            [(main, f, 2, 50), (f, 3, 1, 10)],
            "top-level g adds no edge"
        );
    }
}
