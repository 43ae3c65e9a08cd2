//! Graphviz DOT of the call graph (`calltrace graph`), written by hand like
//! the tree drawing of `tree_dot` (one DOT writer style in the crate).
//!
//! - The hot graph (default, gprof2dot style): one box per function
//!   labelled with its name, total % and self % of the run (with times in
//!   their unit) and calls, filled on a blue -> red temperature scale by
//!   total %; edges labelled with calls and the % of the caller's time,
//!   thicker and warmer for more time.
//! - The plain graph (`--style plain`), pvtrace's graph.dot: names, and
//!   edges labelled with call counts (and time), thicker for more calls.
//!
//! Node ids are synthetic (`n0`, `n1`...) and names go into escaped labels,
//! because C++ names are full of `<>":`. The one escaping rule is
//! [`super::dot_escape`]'s: `\` and `"` escaped, control characters,
//! newline included, shown as `\xNN`, so a name cannot add a line to a box
//! and forge its statistics.

use std::fmt::Write;

use super::dot_escape;
use crate::calltree::hot::{FuncStats, Pruned};
use crate::calltree::{CallDist, CallGraph};
use crate::emit::format::{TimeUnit, percentage, quantity, time};
use crate::symbols::FuncInfo;

/// Renders the plain (pvtrace-style) call graph as DOT.
pub fn call_graph(cg: &CallGraph, names: &[FuncInfo]) -> Vec<u8> {
    let g = &cg.graph;
    let max_calls = g.edge_weights().map(|w| w.calls).max().unwrap_or(1).max(1);
    let mut out = String::from("digraph {\n");
    out.push_str("  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3ff\", fontname=\"Helvetica\"];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for n in g.node_indices() {
        let info = &names[g[n] as usize];
        let _ = write!(
            out,
            "  n{} [label=\"{}\"",
            n.index(),
            dot_escape(&info.name)
        );
        tooltip(&mut out, info);
        out.push_str("];\n");
    }
    for e in g.edge_indices() {
        let (a, b) = g.edge_endpoints(e).expect("edge of this graph");
        let w = g[e];
        let label = if cg.timed {
            format!("{}\\n{}", w.calls, time(w.total, cg.unit, cg.decimals))
        } else {
            w.calls.to_string()
        };
        let _ = writeln!(
            out,
            "  n{} -> n{} [label=\"{label}\", penwidth={}];",
            a.index(),
            b.index(),
            pen_width(w.calls, max_calls)
        );
    }
    out.push_str("}\n\n");
    out.into_bytes()
}

/// What the hot graph is drawn from.
pub struct Hot<'a> {
    /// The call graph.
    pub cg: &'a CallGraph,
    /// Weights per function id.
    pub stats: &'a [FuncStats],
    /// What to draw.
    pub pruned: &'a Pruned,
    /// The whole run's weight (100%).
    pub whole: u64,
    /// Unit the times are shown in.
    pub shown: TimeUnit,
    /// Each function's calls by function id, for the tooltips; empty
    /// when the trace has no per-call times.
    pub dists: &'a [CallDist],
    /// Thread ids by index, to say where the slowest call ran.
    pub threads: &'a [u64],
}

/// Drawn when an edge's share passes 100%: the picture says why.
const RECURSION_LEGEND: &str = "  legend [shape=note, style=filled, fillcolor=\"#ffffee\", fontcolor=\"#222222\", \
     label=\"An edge's % is the callee's time summed over every call from the caller,\\l\
     as a share of the caller's total. Under recursion (a -> b -> a) the nested calls\\l\
     are counted again at each level, so an edge can pass 100%.\\l\"];\n";

/// Renders the hot call graph as DOT.
pub fn hot_graph(h: &Hot<'_>, names: &[FuncInfo]) -> Vec<u8> {
    let (g, cg) = (&h.cg.graph, h.cg);
    let pct = |v: u64| 100.0 * v as f64 / h.whole.max(1) as f64;
    let t = |v: u64| quantity(v, cg.unit, cg.decimals, h.shown);
    let mut out = String::from("digraph {\n");
    out.push_str("  graph [ranksep=0.25, fontname=\"Helvetica\", nodesep=0.125];\n");
    out.push_str("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10, fontcolor=\"#ffffff\"];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.5];\n");
    for n in g.node_indices().filter(|n| h.pruned.node[n.index()]) {
        let (info, s) = (&names[g[n] as usize], h.stats[g[n] as usize]);
        let share = pct(s.total);
        let _ = write!(
            out,
            "  n{} [label=\"{}\\ntotal {} ({})\\nself {} ({})\\n{}×\", fillcolor=\"{}\"",
            n.index(),
            dot_escape(&info.name),
            percentage(share, 2),
            t(s.total),
            percentage(pct(s.self_weight), 2),
            t(s.self_weight),
            s.calls,
            temperature(share / 100.0)
        );
        hot_tooltip(&mut out, info, h.dists.get(g[n] as usize), h);
        out.push_str("];\n");
    }
    let mut above_whole = false;
    for e in g.edge_indices().filter(|e| h.pruned.edge[e.index()]) {
        let (a, b) = g.edge_endpoints(e).expect("edge of this graph");
        let w = g[e];
        let caller = h.stats[g[a] as usize].total.max(1);
        above_whole |= a != b && w.total > caller;
        let share = w.total as f64 / h.whole.max(1) as f64;
        // A recursive call's time is already the caller's own: no share.
        let of_caller = match a == b {
            true => String::new(),
            false => format!(
                "{}\\n",
                percentage(100.0 * w.total as f64 / caller as f64, 2)
            ),
        };
        let _ = writeln!(
            out,
            "  n{} -> n{} [label=\"{of_caller}{}×\", color=\"{}\", fontcolor=\"{}\", penwidth={:.2}];",
            a.index(),
            b.index(),
            w.calls,
            temperature(share),
            temperature(share),
            (1.0 + 5.0 * share).min(6.0)
        );
    }
    if above_whole {
        out.push_str(RECURSION_LEGEND);
    }
    out.push_str("}\n");
    out.into_bytes()
}

/// The hot graph's tooltip: the function's `file:line` when DWARF gave
/// one, and its fastest, 99th-percentile and slowest call, with where the
/// slowest ran.
fn hot_tooltip(out: &mut String, info: &FuncInfo, dist: Option<&CallDist>, h: &Hot<'_>) {
    let calls = dist.map(|d| &d.total).filter(|d| d.count > 0);
    let Some(d) = calls.filter(|_| h.cg.unit.is_time()) else {
        return tooltip(out, info);
    };
    let t = |v: u64| quantity(v, h.cg.unit, h.cg.decimals, h.shown);
    let tid = h
        .threads
        .get(d.max_at.thread as usize)
        .copied()
        .unwrap_or(0);
    let mut lines: Vec<String> = location(info).into_iter().collect();
    lines.push(format!(
        "per call: min {}, p99 {}, max {}",
        t(d.min),
        t(d.quantile(0.99)),
        t(d.max)
    ));
    lines.push(format!("slowest: tid {tid} at +{}", t(d.max_at.start)));
    let escaped: Vec<String> = lines.iter().map(|l| dot_escape(l)).collect();
    // `\n` (backslash, n) is DOT's line break inside a string.
    let _ = write!(out, ", tooltip=\"{}\"", escaped.join("\\n"));
}

/// The function's `file:line` as a tooltip attribute, when DWARF gave one.
fn tooltip(out: &mut String, info: &FuncInfo) {
    if let Some(loc) = location(info) {
        let _ = write!(out, ", tooltip=\"{}\"", dot_escape(&loc));
    }
}

/// `file:line` of a function, when DWARF gave one.
pub fn location(info: &FuncInfo) -> Option<String> {
    let file = info.file.as_ref()?;
    Some(match info.line {
        Some(l) => format!("{file}:{l}"),
        None => file.clone(),
    })
}

/// Edge thickness from 1 to 4 on a log scale of the call count.
fn pen_width(calls: u64, max_calls: u64) -> String {
    let r = if max_calls <= 1 {
        0.0
    } else {
        (calls as f64).ln() / (max_calls as f64).ln()
    };
    format!("{:.2}", 1.0 + 3.0 * r)
}

/// gprof2dot's temperature scale: a dark blue for 0 to red for 1, in HSL
/// (hue 2/3 -> 0, saturation 0.8 -> 1, lightness 0.25 -> 0.5).
pub fn temperature(weight: f64) -> String {
    let w = weight.clamp(0.0, 1.0);
    let (h, s, l) = (2.0 / 3.0 * (1.0 - w), 0.8 + 0.2 * w, 0.25 + 0.25 * w);
    let (r, g, b) = hsl_to_rgb(h, s, l);
    let byte = |v: f64| (v * 255.0).round() as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (f64, f64, f64) {
    let q = if l < 0.5 {
        l * (1.0 + s)
    } else {
        l + s - l * s
    };
    let p = 2.0 * l - q;
    let channel = |t: f64| {
        let t = t.rem_euclid(1.0);
        if t < 1.0 / 6.0 {
            p + (q - p) * 6.0 * t
        } else if t < 0.5 {
            q
        } else if t < 2.0 / 3.0 {
            p + (q - p) * (2.0 / 3.0 - t) * 6.0
        } else {
            p
        }
    };
    (channel(h + 1.0 / 3.0), channel(h), channel(h - 1.0 / 3.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calltree::hot::{PruneOptions, func_stats, prune};
    use crate::calltree::{CallGraph, CallsBuilder, View};
    use crate::ingest::{Event, EventKind, EventSink, FuncTable, TraceMeta};

    #[test]
    fn names_are_quoted_and_escaped() {
        let mut funcs = FuncTable::default();
        let a = funcs.name("main");
        let b = funcs.name("ns::Box<int>::operator\"\"_q(char const*)");
        let mut builder = CallsBuilder::default();
        let ev = |kind, func| Event {
            time: 0,
            func,
            thread: 0,
            kind,
        };
        builder.events(&[
            ev(EventKind::Enter, a),
            ev(EventKind::Enter, b),
            ev(EventKind::Exit, b),
            ev(EventKind::Exit, a),
        ]);
        let (tree, _) = builder.finish(&TraceMeta::default(), &mut funcs);
        let names = crate::symbols::names_without_binary(&funcs);
        let dot =
            String::from_utf8(call_graph(&CallGraph::from_tree(&tree, &funcs), &names)).unwrap();
        assert!(
            dot.contains(r#"n1 [label="ns::Box<int>::operator\"\"_q(char const*)"]"#),
            "{dot}"
        );
        assert!(
            dot.contains(r#"n0 -> n1 [label="1", penwidth=1.00]"#),
            "{dot}"
        );
    }

    #[test]
    fn decimal_totals_keep_their_decimal_point() {
        let text = b"main (1 / 3.5)\n  f (2.25 / 2.5)\n".to_vec();
        let input = crate::ingest::Input::from_bytes("t", text);
        let format = crate::ingest::IndentedFormat;
        let built =
            crate::calltree::build(&input, &format, &Default::default(), View::Contexts).unwrap();
        let names = crate::symbols::names_without_binary(&built.funcs);
        let cg = CallGraph::from_tree(&built.tree, &built.funcs);
        let dot = String::from_utf8(call_graph(&cg, &names)).unwrap();
        assert!(dot.contains(r#"n0 -> n1 [label="1\n2.5""#), "{dot}");
    }

    #[test]
    fn hot_labels_show_shares_units_and_calls() {
        let text = b"main (2 ms / 10 ms)\n  f (6 ms / 8 ms) x4\n    g (2 ms / 2 ms)\n".to_vec();
        let input = crate::ingest::Input::from_bytes("t", text);
        let format = crate::ingest::IndentedFormat;
        let b =
            crate::calltree::build(&input, &format, &Default::default(), View::Contexts).unwrap();
        let names = crate::symbols::names_without_binary(&b.funcs);
        let cg = CallGraph::from_tree(&b.tree, &b.funcs);
        let stats = func_stats(&b.tree, &b.funcs);
        let pruned = prune(&cg, &stats, b.tree.total(0), &[], &PruneOptions::default());
        let h = Hot {
            cg: &cg,
            stats: &stats,
            pruned: &pruned,
            whole: b.tree.total(0),
            shown: TimeUnit::Auto,
            dists: &[],
            threads: &[],
        };
        let dot = String::from_utf8(hot_graph(&h, &names)).unwrap();
        assert!(
            dot.contains(
                r#"n1 [label="f\ntotal 80.00% (8.00 ms)\nself 60.00% (6.00 ms)\n4×", fillcolor=""#
            ),
            "{dot}"
        );
        // f -> g: 2 of f's 8 ms.
        assert!(dot.contains(r#"n1 -> n2 [label="25.00%\n1×""#), "{dot}");
        assert!(dot.contains(&format!("fillcolor=\"{}\"", temperature(1.0))));
    }

    #[test]
    fn temperature_runs_from_blue_to_red() {
        assert_eq!(temperature(1.0), "#ff0000");
        assert_eq!(temperature(0.0), "#0d0d73");
        assert_eq!(temperature(7.0), temperature(1.0), "clamped");
    }
}
