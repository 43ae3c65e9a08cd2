//! Graphviz DOT of the call graph (`calltrace graph`), the successor of
//! pvtrace's graph.dot: one box per function, one arrow per calling pair
//! labelled with the number of calls (and the time spent in them when the
//! trace is timed), thicker for more calls. Node ids are synthetic (`n0`,
//! `n1`...) and names go into escaped labels, because dot-writer quotes and
//! escapes nothing and C++ names are full of `<>":`.

use dot_writer::{Attributes, DotWriter};

use super::text::{dot_escape, time};
use crate::calltree::CallGraph;
use crate::symbols::FuncInfo;

/// Renders the call graph as DOT.
pub fn call_graph(cg: &CallGraph, names: &[FuncInfo]) -> Vec<u8> {
    let g = &cg.graph;
    let max_calls = g.edge_weights().map(|w| w.calls).max().unwrap_or(1).max(1);
    let mut bytes = Vec::new();
    {
        let mut writer = DotWriter::from(&mut bytes);
        writer.set_pretty_print(true);
        let mut digraph = writer.digraph();
        digraph
            .node_attributes()
            .set("shape", "box", false)
            .set("style", "rounded,filled", true)
            .set("fillcolor", "#eef3ff", true)
            .set("fontname", "Helvetica", true);
        digraph
            .edge_attributes()
            .set("fontname", "Helvetica", true)
            .set("fontsize", "10", false);
        for n in g.node_indices() {
            let info = &names[g[n] as usize];
            let mut node = digraph.node_named(format!("n{}", n.index()));
            node.set("label", &dot_escape(&info.name), true);
            if let Some(loc) = location(info) {
                node.set("tooltip", &dot_escape(&loc), true);
            }
        }
        for e in g.edge_indices() {
            let (a, b) = g.edge_endpoints(e).expect("edge of this graph");
            let w = g[e];
            let label = if cg.timed {
                format!("{}\\n{}", w.calls, time(w.total, cg.unit, cg.decimals))
            } else {
                w.calls.to_string()
            };
            digraph
                .edge(format!("n{}", a.index()), format!("n{}", b.index()))
                .attributes()
                .set("label", &label, true)
                .set("penwidth", &pen_width(w.calls, max_calls), false);
        }
    }
    bytes.push(b'\n');
    bytes
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calltree::{CallGraph, CallsBuilder};
    use crate::ingest::{Event, EventKind, FuncTable, Sink, TraceMeta};

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
        let built = crate::calltree::build(
            &input,
            &format,
            &Default::default(),
            crate::calltree::View::Contexts,
        )
        .unwrap();
        let names = crate::symbols::names_without_binary(&built.funcs);
        let cg = CallGraph::from_tree(&built.tree, &built.funcs);
        let dot = String::from_utf8(call_graph(&cg, &names)).unwrap();
        assert!(dot.contains(r#"n0 -> n1 [label="1\n2.5""#), "{dot}");
    }
}
