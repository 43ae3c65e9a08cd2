//! `diff -o diff.dot`: both sides in one graph, in the hot graph's style.
//! A function's fill runs from blue (new spends less self time) through
//! white to red (new spends more), scaled to the largest change shown
//! (white for changes within `--min-change` and the noise, labelled
//! `within noise`, and for `untested` ones);
//! functions only the new side calls are outlined, functions only the base
//! side calls are dashed and grey. Labels read
//! `12.1 ms → 15.3 ms (+26%) · 40 → 80 calls` (total time, then calls).

use std::fmt::Write as _;

use crate::diff::{Change, Diff, Row, Union};
use crate::emit::format::{TimeUnit, quantity};
use crate::emit::graph::dot_escape;

/// Renders the union graph `u` of `d` as DOT.
pub fn dot(d: &Diff, u: &Union<'_>, shown: TimeUnit) -> Vec<u8> {
    let q = |v: u64| quantity(v, d.unit, d.decimals, shown);
    let biggest = u
        .nodes
        .iter()
        .map(|r| r.delta_self().unsigned_abs())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let mut out = String::from("digraph {\n");
    out.push_str("  graph [ranksep=0.25, fontname=\"Helvetica\", nodesep=0.125, fontsize=10, labelloc=t, labeljust=l];\n");
    out.push_str(
        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n",
    );
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.5];\n");
    let _ = writeln!(out, "  label=\"{}\";", legend(d));
    for (i, r) in u.nodes.iter().enumerate() {
        let _ = write!(out, "  n{i} [label=\"{}\"", node_label(r, &q));
        match r.change {
            Change::Removed => out.push_str(
                ", style=\"rounded,filled,dashed\", fillcolor=\"#eeeeee\", color=\"#999999\", fontcolor=\"#777777\"",
            ),
            change => {
                // A change within the noise, or untested, is no finding: white.
                let t = match change.is_finding() {
                    false => 0.0,
                    true => r.delta_self() as f64 / biggest,
                };
                let _ = write!(out, ", fillcolor=\"{}\"", diverging(t));
                if t.abs() > 0.6 {
                    out.push_str(", fontcolor=\"#ffffff\"");
                }
                if change == Change::Added {
                    out.push_str(", penwidth=3, color=\"#000000\"");
                }
            }
        }
        if let Some(file) = &r.file {
            let _ = write!(out, ", tooltip=\"{}\"", dot_escape(file));
        }
        out.push_str("];\n");
    }
    for e in &u.edges {
        let style = match (e.base.0, e.new.0) {
            (_, 0) => ", style=dashed, color=\"#999999\", fontcolor=\"#777777\"",
            (0, _) => ", penwidth=2",
            _ => "",
        };
        let _ = writeln!(
            out,
            "  n{} -> n{} [label=\"{} → {}×\"{style}];",
            e.from, e.to, e.base.0, e.new.0
        );
    }
    out.push_str("}\n");
    out.into_bytes()
}

/// What the picture shows, at its top.
fn legend(d: &Diff) -> String {
    let what = if d.timed() { "self time" } else { "calls" };
    format!(
        "base → new. Fill: red = new spends more {what}, blue = less, white = no change. Bold outline: only in new. Dashed grey: only in base.\\l"
    )
}

/// `name\n12.1 ms → 15.3 ms (+26%) · 40 → 80 calls\nself … · change`.
fn node_label(r: &Row, q: &dyn Fn(u64) -> String) -> String {
    let pct = match r.base.total {
        0 => String::new(),
        b => format!(" ({:+.0}%)", 100.0 * r.delta_total() as f64 / b as f64),
    };
    format!(
        "{}\\n{} → {}{pct} · {} → {} calls\\nself {} → {} · {}",
        dot_escape(&r.key.name),
        q(r.base.total),
        q(r.new.total),
        r.base.calls,
        r.new.calls,
        q(r.base.self_weight),
        q(r.new.self_weight),
        change_label(r)
    )
}

/// The change as a node says it: a row that is `same` but whose numbers
/// moved is `within noise` (or within `--min-change`).
pub(super) fn change_label(r: &Row) -> &'static str {
    let moved = r.delta_self() != 0 || r.delta_total() != 0 || r.base.calls != r.new.calls;
    match (r.change, moved) {
        (Change::Same, true) => "within noise",
        (c, _) => c.label(),
    }
}

/// A diverging colour for `t` in [-1, 1]: blue, white at 0, red.
pub fn diverging(t: f64) -> String {
    let t = if t.is_finite() {
        t.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    // From white towards ColorBrewer's RdBu ends (#b2182b, #2166ac).
    let (r, g, b) = if t >= 0.0 {
        (0xb2, 0x18, 0x2b)
    } else {
        (0x21, 0x66, 0xac)
    };
    let mix = |end: u8| (255.0 + (end as f64 - 255.0) * t.abs()).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b))
}
