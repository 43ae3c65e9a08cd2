//! Graphviz DOT of an (abstracted) call tree, for `calltrace abstract -o`.
//! Identical call paths are drawn once (`xN` calls, total and self time);
//! each node is filled with its module's colour (a legend lists them), and
//! nodes holding more of the total time get thicker borders and bold names.
//! The top-level call sits at the top, or at the left when some level of
//! the tree is wider than [`WIDE_LEVEL`] nodes (a picture dozens of boxes
//! wide cannot be read on a screen; one that long can be scrolled); thread
//! nodes are drawn as ellipses.
//! A node that stands for a folded chain (see `abstraction::chains`) is
//! labelled `a → … → b`, the whole chain in its tooltip.
//! Names, titles and tooltips are escaped by the DOT rule of
//! [`super::dot_escape`]: control characters, newline included, as
//! `\xNN`, so a name cannot add a line to a box.

use std::fmt::Write;

use super::dot_escape;
use crate::abstraction::{Modules, NO_MODULE};
use crate::calltree::{NodeId, Tree};
use crate::emit::format::time;
use crate::ingest::{FuncId, FuncTable};
use crate::symbols::FuncInfo;

/// Pastel fills (ColorBrewer Set3, then Pastel1 and Pastel2 without the
/// one they share), given to the modules a drawing shows in module order,
/// so that up to 28 modules get colours of their own; cycled past that.
const PALETTE: [&str; 28] = [
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
    "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f", "#fbb4ae", "#b3cde3", "#decbe4", "#fed9a6",
    "#ffffcc", "#e5d8bd", "#fddaec", "#f2f2f2", "#b3e2cd", "#fdcdac", "#cbd5e8", "#f4cae4",
    "#e6f5c9", "#fff2ae", "#f1e2cc", "#cccccc",
];

/// Above this many nodes at one depth the tree is drawn left to right.
pub const WIDE_LEVEL: usize = 12;

/// `TB`, or `LR` for a tree with more than [`WIDE_LEVEL`] nodes at one
/// depth (RE2's abstraction: 64 nodes at depth 3, 18,000 pixels wide top
/// to bottom, 4,200 left to right).
fn rank_direction(tree: &Tree) -> &'static str {
    let mut at_depth: Vec<usize> = Vec::new();
    for d in tree.depths().into_iter().skip(1) {
        let d = d as usize;
        if at_depth.len() <= d {
            at_depth.resize(d + 1, 0);
        }
        at_depth[d] += 1;
    }
    match at_depth.iter().any(|&k| k > WIDE_LEVEL) {
        true => "LR",
        false => "TB",
    }
}

/// Renders `tree` (already path-folded) as DOT.
pub fn tree_dot(
    tree: &Tree,
    funcs: &FuncTable,
    names: &[FuncInfo],
    modules: &Modules,
    title: &str,
) -> Vec<u8> {
    tree_dot_chains(tree, funcs, names, modules, title, &[])
}

/// Renders `tree` as DOT, `hidden[n]` naming the functions folded into node
/// `n` (top first; missing or empty: none).
pub fn tree_dot_chains(
    tree: &Tree,
    funcs: &FuncTable,
    names: &[FuncInfo],
    modules: &Modules,
    title: &str,
    hidden: &[Vec<FuncId>],
) -> Vec<u8> {
    let mut out = String::new();
    out.push_str("digraph calltree {\n");
    let _ = writeln!(
        out,
        "  graph [rankdir={}, ranksep=0.3, nodesep=0.2, labelloc=t, fontname=\"Helvetica\", label=\"{}\"];",
        rank_direction(tree),
        dot_escape(title)
    );
    out.push_str(
        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n",
    );
    out.push_str("  edge [arrowsize=0.6, color=\"#555555\"];\n");
    let root_total = tree.total(0).max(1);
    let mut used = vec![false; modules.names.len()];
    for n in 1..tree.len() as NodeId {
        let module = modules.of(tree.func(n));
        if module != NO_MODULE {
            used[module as usize] = true;
        }
    }
    let fills = fills(&used);
    for n in 1..tree.len() as NodeId {
        let chain = hidden.get(n as usize).map_or(&[][..], Vec::as_slice);
        node(
            &mut out,
            tree,
            (funcs, names, modules, &fills),
            n,
            root_total,
            chain,
        );
    }
    let parents = tree.parents();
    for n in 1..tree.len() as NodeId {
        let p = parents[n as usize];
        if p != 0 {
            let _ = writeln!(out, "  n{p} -> n{n};");
        }
    }
    legend(&mut out, modules, &used, &fills);
    out.push_str("}\n");
    out.into_bytes()
}

fn node(
    out: &mut String,
    tree: &Tree,
    (funcs, names, modules, fills): (&FuncTable, &[FuncInfo], &Modules, &[&'static str]),
    n: NodeId,
    root_total: u64,
    chain: &[FuncId],
) {
    let own = &names[tree.func(n) as usize].name;
    let name_of = |f: FuncId| names[f as usize].name.as_str();
    let (name, tooltip) = match chain {
        [] => (dot_escape(own), String::new()),
        [a] => (
            dot_escape(&format!("{} → {own}", name_of(*a))),
            String::new(),
        ),
        [a, ..] => {
            let all: Vec<&str> = chain
                .iter()
                .map(|&f| name_of(f))
                .chain([own.as_str()])
                .collect();
            let label = format!("{} → … → {own}", name_of(*a));
            let tip = format!(", tooltip=\"{}\"", dot_escape(&all.join(" → ")));
            (dot_escape(&label), tip)
        }
    };
    if funcs.is_synthetic(tree.func(n)) {
        let _ = writeln!(
            out,
            "  n{n} [label=\"{name}\", shape=ellipse, style=filled, fillcolor=\"#ffffff\"];"
        );
        return;
    }
    let t = |v| time(v, tree.unit, tree.decimals);
    let share = tree.total(n) as f64 / root_total as f64;
    let label = format!(
        "{name}\\nx{}  total {}  self {}",
        tree.calls(n),
        t(tree.total(n)),
        t(tree.self_time(n))
    );
    let fill = color(fills, modules.of(tree.func(n)));
    let pen = 1.0 + 4.0 * share;
    let font = if share >= 0.1 {
        ", fontname=\"Helvetica-Bold\""
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "  n{n} [label=\"{label}\", fillcolor=\"{fill}\", penwidth={pen:.2}{font}{tooltip}];"
    );
}

/// Each module's fill: the drawn ones (`used`) take the palette's colours
/// in module order.
fn fills(used: &[bool]) -> Vec<&'static str> {
    let mut next = 0;
    used.iter()
        .map(|&u| {
            if !u {
                return "#ffffff";
            }
            next += 1;
            PALETTE[(next - 1) % PALETTE.len()]
        })
        .collect()
}

fn color(fills: &[&'static str], module: u32) -> &'static str {
    fills.get(module as usize).copied().unwrap_or("#ffffff")
}

/// Module names as the legend shows them: paths (`auto:file`, `auto:dir`)
/// cut to their last components, as few as keep them all apart
/// (`enc/encode.c` for `/root/.cargo/.../brotli/enc/encode.c`), and one
/// more where the last says nothing alone (`c++/12` for the standard
/// library's `/usr/include/c++/12`); other names as they are. The full
/// path is the legend entry's tooltip.
pub(crate) fn short_paths(names: &[&str]) -> Vec<String> {
    let parts: Vec<Vec<&str>> = names
        .iter()
        .map(|n| match n.starts_with('/') {
            true => n.split('/').filter(|p| !p.is_empty()).collect(),
            false => vec![*n],
        })
        .collect();
    let most = parts.iter().map(Vec::len).max().unwrap_or(1);
    let tail = |p: &[&str], k: usize| p[p.len().saturating_sub(k)..].join("/");
    let cut = (1..=most)
        .find(|&k| {
            let mut seen: Vec<String> = parts.iter().map(|p| tail(p, k)).collect();
            seen.sort_unstable();
            seen.windows(2).all(|w| w[0] != w[1])
        })
        .unwrap_or(most);
    names
        .iter()
        .zip(&parts)
        .map(|(n, p)| {
            // A version number (`12`, `14.1.0`) names no module.
            let bare = p
                .last()
                .is_some_and(|l| !l.chars().any(|c| c.is_alphabetic()));
            let k = cut + usize::from(bare);
            match p.len() > k {
                true => format!(".../{}", tail(p, k)),
                false => n.to_string(),
            }
        })
        .collect()
}

fn legend(out: &mut String, modules: &Modules, used: &[bool], fills: &[&'static str]) {
    let shown: Vec<usize> = (0..used.len()).filter(|&m| used[m]).collect();
    if shown.len() < 2 {
        return;
    }
    out.push_str("  subgraph cluster_legend {\n    label=\"modules\"; fontsize=10; style=dashed; color=\"#999999\";\n");
    let full: Vec<&str> = shown.iter().map(|&m| modules.names[m].as_str()).collect();
    for (&m, label) in shown.iter().zip(short_paths(&full)) {
        let name = &modules.names[m];
        let tooltip = match label == *name {
            true => String::new(),
            false => format!(", tooltip=\"{}\"", dot_escape(name)),
        };
        let _ = writeln!(
            out,
            "    legend{m} [label=\"{}\"{tooltip}, fillcolor=\"{}\"];",
            dot_escape(&label),
            color(fills, m as u32)
        );
    }
    for pair in shown.windows(2) {
        let _ = writeln!(
            out,
            "    legend{} -> legend{} [style=invis];",
            pair[0], pair[1]
        );
    }
    out.push_str("  }\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_paths_keep_the_last_components_that_tell_them_apart() {
        let names = [
            "/root/.cargo/x/brotli/enc/encode.c",
            "/root/.cargo/x/brotli/dec/decode.c",
            "/tmp/drv/driver.c",
            "(unassigned)",
        ];
        assert_eq!(
            short_paths(&names),
            [
                ".../encode.c",
                ".../decode.c",
                ".../driver.c",
                "(unassigned)"
            ]
        );
        let clash = ["/a/enc/port.h", "/a/dec/port.h", "/b/x.c"];
        assert_eq!(
            short_paths(&clash),
            [".../enc/port.h", ".../dec/port.h", "/b/x.c"]
        );
        assert_eq!(short_paths(&["/x.c", "core"]), ["/x.c", "core"]);
        let std = ["/usr/include/c++/12", "/src/re2/re2.cc"];
        assert_eq!(short_paths(&std), [".../c++/12", ".../re2.cc"]);
    }
}
