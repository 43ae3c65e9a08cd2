//! `diff`'s union graph: the functions and caller -> callee edges of both
//! sides in one graph, pruned like `graph` prunes, on the larger side.

use super::{Diff, Profile, Row, median};

/// How the union graph is pruned: as `graph` prunes, by shares of the
/// larger side's total on both sides.
pub(crate) use crate::calltree::hot::Prune;

/// An edge on both sides (medians over each side's runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// Index of the caller in [`Union::nodes`].
    pub from: usize,
    /// Index of the callee.
    pub to: usize,
    /// Calls on the base side, and the callee's total over them.
    pub base: (u64, u64),
    /// The same on the new side.
    pub new: (u64, u64),
}

/// The union graph: function rows kept by the pruning, and their edges.
#[derive(Debug, Clone, PartialEq)]
pub struct Union<'d> {
    /// The kept rows, in the diff's order.
    pub nodes: Vec<&'d Row>,
    /// The kept edges, sorted by caller and callee.
    pub edges: Vec<Edge>,
    /// Functions left out.
    pub left_out: usize,
}

/// The union of both sides' graphs for a diff by function (`d`'s rows),
/// from the runs' edges.
pub(crate) fn union<'d>(d: &'d Diff, base: &[Profile], new: &[Profile], prune: Prune) -> Union<'d> {
    let whole = d.base_total.max(d.new_total).max(1) as f64;
    let keep = |v: u64| v as f64 >= prune.min_total * whole;
    let nodes: Vec<&Row> = d
        .rows
        .iter()
        .filter(|r| keep(r.base.total.max(r.new.total)))
        .collect();
    let index = |id: u32| nodes.iter().position(|r| r.id == id);
    let mut keys: Vec<&(u32, u32)> = base
        .iter()
        .chain(new)
        .flat_map(|p| p.edges.keys())
        .collect();
    keys.sort();
    keys.dedup();
    let side = |runs: &[Profile], k: &(u32, u32)| {
        let w = |p: &Profile| p.edges.get(k).copied().unwrap_or_default();
        (
            median(runs.iter().map(|p| w(p).calls)),
            median(runs.iter().map(|p| w(p).total)),
        )
    };
    let edges = keys
        .into_iter()
        .filter_map(|k| {
            let (from, to) = (index(k.0)?, index(k.1)?);
            let (b, n) = (side(base, k), side(new, k));
            (b.1.max(n.1) as f64 >= prune.min_edge * whole).then_some(Edge {
                from,
                to,
                base: b,
                new: n,
            })
        })
        .collect();
    Union {
        left_out: d.rows.len() - nodes.len(),
        nodes,
        edges,
    }
}
