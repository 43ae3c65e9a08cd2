//! What the hot call graph (`calltrace graph`, gprof2dot style) shows: each
//! function's calls, self weight and total weight (a recursive function's
//! nested calls are not counted twice), and which functions and edges stay
//! after pruning: below a share of the whole run (`--min-total`,
//! `--min-edge`), outside the paths through a function (`--focus`), not
//! below a function (`--root`), or too many calls down (`--depth`).

use std::collections::VecDeque;

use petgraph::Direction;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use super::graph::CallGraph;
use super::tree::{NodeId, Tree};
use crate::ingest::{FuncId, FuncTable};

/// One function's weights over the whole tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FuncStats {
    /// Number of calls.
    pub calls: u64,
    /// Sum of its self weights.
    pub self_weight: u64,
    /// Sum of the total weights of its outermost calls.
    pub total: u64,
}

/// Weights of every function, indexed by function id.
pub fn func_stats(tree: &Tree, funcs: &FuncTable) -> Vec<FuncStats> {
    let mut stats = vec![FuncStats::default(); funcs.len()];
    let mut active = vec![0u32; funcs.len()];
    let mut open: Vec<(NodeId, FuncId)> = Vec::new();
    for n in 1..tree.len() as NodeId {
        while let Some(&(end, f)) = open.last() {
            if end > n {
                break;
            }
            active[f as usize] -= 1;
            open.pop();
        }
        let f = tree.func(n);
        open.push((n + tree.size(n), f));
        let s = &mut stats[f as usize];
        if !funcs.is_synthetic(f) {
            s.calls = s.calls.saturating_add(tree.calls(n));
            s.self_weight = s.self_weight.saturating_add(tree.self_time(n));
            if active[f as usize] == 0 {
                s.total = s.total.saturating_add(tree.total(n));
            }
        }
        active[f as usize] += 1;
    }
    stats
}

/// The one pruning of a call graph by weight: `graph`'s hot graph, the
/// `view` page's and `diff`'s union graph. Default keeps functions with at
/// least 0.5% of the total and edges with at least 0.1% (gprof2dot's
/// defaults): [`Prune::DEFAULT`], the one place they are set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prune {
    /// Leave out functions under this share (a fraction) of the total.
    /// Default is 0.005.
    pub min_total: f64,
    /// Leave out edges under this share (a fraction) of the total.
    /// Default is 0.001.
    pub min_edge: f64,
}

impl Prune {
    /// The defaults: 0.5% and 0.1%.
    pub const DEFAULT: Prune = Prune {
        min_total: 0.005,
        min_edge: 0.001,
    };
}

impl Default for Prune {
    fn default() -> Self {
        Prune::DEFAULT
    }
}

/// A share as a percentage, rounded to 1e-9 as `Share::percent` does, so
/// that `5%` compares as 5.
fn percent(share: f64) -> f64 {
    (share * 100.0 * 1e9).round() / 1e9
}

/// How to prune the hot graph: [`Prune`]'s shares, of the total (of the
/// root or focus function's, when given), and where to start.
#[derive(Debug, Clone, PartialEq)]
pub struct PruneOptions {
    /// Leave out functions and edges under these shares. Default is
    /// [`Prune::DEFAULT`].
    pub shares: Prune,
    /// Keep only the paths through this function. Default is none.
    pub focus: Option<FuncId>,
    /// Keep only this function and what it calls. Default is none.
    pub root: Option<FuncId>,
    /// Keep only functions at most this many calls from the start (root,
    /// focus, or the top-level functions). Default is none.
    pub depth: Option<u32>,
}

impl Default for PruneOptions {
    fn default() -> Self {
        PruneOptions {
            shares: Prune::DEFAULT,
            focus: None,
            root: None,
            depth: None,
        }
    }
}

/// Which nodes and edges of a [`CallGraph`] the hot graph draws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// By node index.
    pub node: Vec<bool>,
    /// By edge index.
    pub edge: Vec<bool>,
}

impl Pruned {
    /// Number of kept nodes and edges.
    pub fn counts(&self) -> (usize, usize) {
        let c = |v: &[bool]| v.iter().filter(|&&k| k).count();
        (c(&self.node), c(&self.edge))
    }
}

/// Prunes `cg` (whose run weighs `whole`) by `opts`; `tops` are the
/// functions called at the top of a thread, where `--depth` starts
/// without `--root` or `--focus`. With a root or focus function the
/// percentages are of its total, not the run's: a function of 0.01% of
/// the run is drawn with its callers and callees, not as an empty graph.
pub fn prune(
    cg: &CallGraph,
    stats: &[FuncStats],
    whole: u64,
    tops: &[FuncId],
    opts: &PruneOptions,
) -> Pruned {
    let g = &cg.graph;
    let base = match opts.focus.or(opts.root) {
        Some(f) => stats.get(f as usize).map_or(whole, |s| s.total),
        None => whole,
    };
    let pct = |v: u64| 100.0 * v as f64 / base.max(1) as f64;
    let (min_total, min_edge) = (
        percent(opts.shares.min_total),
        percent(opts.shares.min_edge),
    );
    let mut node: Vec<bool> = g
        .node_indices()
        .map(|n| pct(stats[g[n] as usize].total) >= min_total)
        .collect();
    let mut edge: Vec<bool> = g
        .edge_references()
        .map(|e| {
            pct(e.weight().total) >= min_edge
                && node[e.source().index()]
                && node[e.target().index()]
        })
        .collect();
    let index_of = |f: FuncId| g.node_indices().find(|&n| g[n] == f);
    let starts: Vec<NodeIndex> = match (opts.focus.or(opts.root), opts.depth) {
        (Some(f), _) => index_of(f).into_iter().collect(),
        (None, Some(_)) => tops.iter().filter_map(|&f| index_of(f)).collect(),
        (None, None) => return Pruned { node, edge },
    };
    let down = reach(cg, &edge, &starts, Direction::Outgoing, opts.depth);
    let up = match opts.focus {
        Some(_) => reach(cg, &edge, &starts, Direction::Incoming, opts.depth),
        None => vec![false; node.len()],
    };
    for e in g.edge_references() {
        let (a, b) = (e.source().index(), e.target().index());
        edge[e.id().index()] &= (down[a] && down[b]) || (up[a] && up[b]);
    }
    for (i, keep) in node.iter_mut().enumerate() {
        *keep &= down[i] || up[i];
    }
    Pruned { node, edge }
}

/// Nodes reachable from `starts` over kept edges in direction `dir`,
/// within `depth` steps when given.
fn reach(
    cg: &CallGraph,
    edge: &[bool],
    starts: &[NodeIndex],
    dir: Direction,
    depth: Option<u32>,
) -> Vec<bool> {
    let g = &cg.graph;
    let mut seen = vec![false; g.node_count()];
    let mut queue: VecDeque<(NodeIndex, u32)> = VecDeque::new();
    for &s in starts {
        seen[s.index()] = true;
        queue.push_back((s, 0));
    }
    while let Some((n, d)) = queue.pop_front() {
        if depth.is_some_and(|max| d >= max) {
            continue;
        }
        for e in g.edges_directed(n, dir) {
            let next = if dir == Direction::Outgoing {
                e.target()
            } else {
                e.source()
            };
            if edge[e.id().index()] && !seen[next.index()] {
                seen[next.index()] = true;
                queue.push_back((next, d + 1));
            }
        }
    }
    seen
}

/// Functions called at the top of a thread (children of the root or of a
/// thread node), in tree order.
pub fn top_level(tree: &Tree, funcs: &FuncTable) -> Vec<FuncId> {
    let mut tops = Vec::new();
    for c in tree.children(0) {
        match funcs.is_synthetic(tree.func(c)) {
            true => tops.extend(tree.children(c).map(|g| tree.func(g))),
            false => tops.push(tree.func(c)),
        }
    }
    tops.sort_unstable();
    tops.dedup();
    tops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calltree::{View, build};
    use crate::ingest::{Input, guess};

    /// main -> a -> (b -> c, fact -> fact -> fact), main -> d (tiny).
    const TRACE: &str = "E main 0\nE a 0\nE b 10\nE c 20\nX c 60\nX b 70\nE fact 70\nE fact 71\nE fact 72\nX fact 80\nX fact 85\nX fact 90\nX a 95\nE d 95\nX d 95\nX main 1000\n";

    fn setup() -> (Tree, FuncTable, CallGraph, Vec<FuncStats>) {
        let input = Input::from_bytes("t", TRACE.as_bytes().to_vec());
        let format = guess::detect(&input, None).unwrap();
        let b = build(&input, format, &Default::default(), View::Contexts).unwrap();
        let cg = CallGraph::from_tree(&b.tree, &b.funcs);
        let stats = func_stats(&b.tree, &b.funcs);
        (b.tree, b.funcs, cg, stats)
    }

    fn kept(cg: &CallGraph, funcs: &FuncTable, p: &Pruned) -> Vec<String> {
        let names = crate::symbols::names_without_binary(funcs);
        let g = &cg.graph;
        g.node_indices()
            .filter(|n| p.node[n.index()])
            .map(|n| names[g[n] as usize].name.clone())
            .collect()
    }

    /// The functions of the test trace that `o` keeps, in node order.
    fn run(o: PruneOptions) -> Vec<String> {
        let (tree, funcs, cg, stats) = setup();
        let tops = top_level(&tree, &funcs);
        kept(&cg, &funcs, &prune(&cg, &stats, tree.total(0), &tops, &o))
    }

    fn id(funcs: &FuncTable, name: &str) -> FuncId {
        let names = crate::symbols::names_without_binary(funcs);
        names.iter().position(|i| i.name == name).unwrap() as FuncId
    }

    #[test]
    fn recursion_is_not_counted_twice() {
        let (_, funcs, _, stats) = setup();
        let fact = stats[id(&funcs, "fact") as usize];
        assert_eq!((fact.calls, fact.total, fact.self_weight), (3, 20, 20));
        assert_eq!(stats[id(&funcs, "main") as usize].total, 1000);
    }

    #[test]
    fn thresholds_focus_root_and_depth_prune() {
        let (_, funcs, _, _) = setup();
        assert_eq!(
            run(PruneOptions::default()),
            ["main", "a", "b", "c", "fact"]
        );
        let none = PruneOptions {
            shares: Prune {
                min_total: 0.0,
                min_edge: 0.0,
            },
            ..Default::default()
        };
        assert_eq!(run(none.clone()).len(), 6, "d weighs 0");
        let min5 = PruneOptions {
            shares: Prune {
                min_total: 0.03,
                ..none.shares
            },
            ..none.clone()
        };
        assert_eq!(run(min5), ["main", "a", "b", "c"]);
        let focus = PruneOptions {
            focus: Some(id(&funcs, "b")),
            ..none.clone()
        };
        assert_eq!(run(focus), ["main", "a", "b", "c"]);
        let root = PruneOptions {
            root: Some(id(&funcs, "a")),
            depth: Some(1),
            ..none.clone()
        };
        assert_eq!(run(root), ["a", "b", "fact"]);
        let depth = PruneOptions {
            depth: Some(1),
            ..none
        };
        assert_eq!(run(depth), ["main", "a", "d"]);
    }

    /// With `--focus` or `--root` the thresholds are shares of that
    /// function's total: `fact` (2% of the run) under a 3% threshold is
    /// drawn with its callers, not as an empty graph.
    #[test]
    fn a_cold_focus_is_drawn_with_its_callers_and_callees() {
        let (_, funcs, _, _) = setup();
        let cold = PruneOptions {
            shares: Prune {
                min_total: 0.03,
                ..Prune::DEFAULT
            },
            focus: Some(id(&funcs, "fact")),
            ..Default::default()
        };
        assert_eq!(run(cold), ["main", "a", "fact"]);
        // b is 6% of the run; its callee c two thirds of b.
        let root = PruneOptions {
            shares: Prune {
                min_total: 0.5,
                ..Prune::DEFAULT
            },
            root: Some(id(&funcs, "b")),
            ..Default::default()
        };
        assert_eq!(run(root), ["b", "c"]);
        let too_high = PruneOptions {
            shares: Prune {
                min_total: 0.7,
                ..Prune::DEFAULT
            },
            root: Some(id(&funcs, "b")),
            ..Default::default()
        };
        assert_eq!(run(too_high), ["b"]);
    }
}
