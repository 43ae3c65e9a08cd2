//! What `calltrace graph` draws for every setting of the page's controls:
//! the real pruning (`calltree::hot::prune`) runs for each point of the
//! grid below when `view.html` is written. Nodes are the call graph's
//! functions and edges its edges, labelled once as the DOT labels them;
//! a state is the set of nodes and the set of edges it keeps.

use std::collections::HashMap;

use serde::Serialize;

use super::bits;
use crate::abstraction::Share;
use crate::calltree::hot::{self, PruneOptions};
use crate::calltree::{CallDist, CallGraph};
use crate::emit::format::{TimeUnit, percentage, quantity};
use crate::emit::graph::dot::temperature;
use crate::error::Result;
use crate::ingest::FuncId;
use crate::pipeline::Loaded;
use crate::symbols::FuncPattern;

/// `--min-total` values the page offers; `0.5%` is `graph`'s default.
pub(crate) const MIN_TOTALS: [&str; 7] = ["0%", "0.1%", "0.5%", "1%", "2%", "5%", "10%"];
/// `--min-edge` values the page offers; `0.1%` is `graph`'s default.
pub(crate) const MIN_EDGES: [&str; 5] = ["0%", "0.1%", "0.5%", "1%", "5%"];

/// The pruning settings the page can reach.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GraphGrid {
    /// `--min-total` values.
    pub min_total: Vec<String>,
    /// Index of the default in `min_total`.
    pub min_total_default: usize,
    /// `--min-edge` values.
    pub min_edge: Vec<String>,
    /// Index of the default in `min_edge`.
    pub min_edge_default: usize,
    /// `--focus` functions given to `view`; the page adds "none".
    pub focus: Vec<FuncPattern>,
    /// `--root` functions given to `view`; the page adds "none".
    pub root: Vec<FuncPattern>,
}

impl GraphGrid {
    /// The grid for the `--focus` and `--root` names given to `view`.
    pub(crate) fn new(focus: &[FuncPattern], root: &[FuncPattern]) -> GraphGrid {
        let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        GraphGrid {
            min_total: own(&MIN_TOTALS),
            min_total_default: 2,
            min_edge: own(&MIN_EDGES),
            min_edge_default: 1,
            focus: focus.to_vec(),
            root: root.to_vec(),
        }
    }
}

/// One drawn function: `[function, label lines after the name, fill,
/// total, self]`.
pub(crate) type Node = (FuncId, String, String, u64, u64);
/// One edge: `[from node, to node, label, colour, pen width]`.
pub(crate) type Edge = (u32, u32, String, String, f64);

/// The graph's nodes and edges and the states over them.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GraphData {
    /// Every function of the call graph.
    pub nodes: Vec<Node>,
    /// Every edge.
    pub edges: Vec<Edge>,
    /// Per state (min-total, min-edge, focus, root; the last varying
    /// fastest; focus and root 0 is none), an index into `lists`.
    pub states: Vec<u32>,
    /// Distinct `[nodes, edges]` sets as base64 bitsets.
    pub lists: Vec<(String, String)>,
}

/// Prunes the call graph of `loaded` for every state of `grid`.
pub(crate) fn compute(loaded: &Loaded, grid: &GraphGrid) -> Result<GraphData> {
    let (tree, funcs, names) = (&loaded.built.tree, &loaded.built.funcs, &loaded.names);
    let cg = CallGraph::from_tree(tree, funcs);
    let stats = hot::func_stats(tree, funcs);
    let tops = hot::top_level(tree, funcs);
    // The command checked the patterns against this trace already
    // (naming their flags); a failure here says which pattern it was.
    let find = |p: &FuncPattern| {
        p.pick_function(names)
            .map(Some)
            .map_err(|e| crate::error::Error::Input(format!("{}: {e}", p.as_str())))
    };
    let mut focus: Vec<Option<FuncId>> = vec![None];
    for f in &grid.focus {
        focus.push(find(f)?);
    }
    let mut root: Vec<Option<FuncId>> = vec![None];
    for r in &grid.root {
        root.push(find(r)?);
    }
    let share = |s: &str| s.parse::<Share>().map(Share::get).unwrap_or(0.0);
    let (mut states, mut lists, mut seen) = (Vec::new(), Vec::new(), HashMap::new());
    for mt in &grid.min_total {
        for me in &grid.min_edge {
            for fo in &focus {
                for ro in &root {
                    let opts = PruneOptions {
                        shares: hot::Prune {
                            min_total: share(mt),
                            min_edge: share(me),
                        },
                        focus: *fo,
                        root: *ro,
                        depth: None,
                    };
                    let p = hot::prune(&cg, &stats, tree.total(0), &tops, &opts);
                    let set = (bits::of_flags(&p.node), bits::of_flags(&p.edge));
                    let next = lists.len() as u32;
                    let id = *seen.entry(set.clone()).or_insert(next);
                    if id == next {
                        lists.push(set);
                    }
                    states.push(id);
                }
            }
        }
    }
    Ok(GraphData {
        nodes: nodes(&cg, &stats, tree.total(0)),
        edges: edges(&cg, &stats, tree.total(0)),
        states,
        lists,
    })
}

fn nodes(cg: &CallGraph, stats: &[hot::FuncStats], whole: u64) -> Vec<Node> {
    let g = &cg.graph;
    let pct = |v: u64| 100.0 * v as f64 / whole.max(1) as f64;
    let t = |v: u64| quantity(v, cg.unit, cg.decimals, TimeUnit::Auto);
    g.node_indices()
        .map(|n| {
            let s = stats[g[n] as usize];
            let label = format!(
                "total {} ({})\nself {} ({})\n{}×",
                percentage(pct(s.total), 2),
                t(s.total),
                percentage(pct(s.self_weight), 2),
                t(s.self_weight),
                s.calls
            );
            (
                g[n],
                label,
                temperature(pct(s.total) / 100.0),
                s.total,
                s.self_weight,
            )
        })
        .collect()
}

fn edges(cg: &CallGraph, stats: &[hot::FuncStats], whole: u64) -> Vec<Edge> {
    let g = &cg.graph;
    g.edge_indices()
        .filter_map(|e| g.edge_endpoints(e).map(|ab| (e, ab)))
        .map(|(e, (a, b))| {
            let w = g[e];
            let caller = stats[g[a] as usize].total.max(1);
            let share = w.total as f64 / whole.max(1) as f64;
            let label = match a == b {
                true => format!("{}×", w.calls),
                false => format!(
                    "{}\n{}×",
                    percentage(100.0 * w.total as f64 / caller as f64, 2),
                    w.calls
                ),
            };
            let pen = ((1.0 + 5.0 * share).min(6.0) * 100.0).round() / 100.0;
            (
                a.index() as u32,
                b.index() as u32,
                label,
                temperature(share),
                pen,
            )
        })
        .collect()
}

/// Per-call numbers of a function: `min X, p99 Y, max Z`, when the trace
/// has times.
pub(crate) fn per_call(d: Option<&CallDist>, cg_unit: crate::ingest::Unit, decimals: u8) -> String {
    let Some(d) = d
        .map(|d| &d.total)
        .filter(|d| d.count > 0 && cg_unit.is_time())
    else {
        return String::new();
    };
    let t = |v: u64| quantity(v, cg_unit, decimals, TimeUnit::Auto);
    format!(
        "min {}, p99 {}, max {}",
        t(d.min),
        t(d.quantile(0.99)),
        t(d.max)
    )
}
