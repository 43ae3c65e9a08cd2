//! The callgrind profile format, for KCachegrind and callgrind_annotate:
//! per function its self cost at the line DWARF gives it (`fl=`/`fn=`),
//! and per callee a `cfn=` / `calls=` pair with the inclusive cost of those
//! calls. The one event is the trace's unit (`ns`, or `calls` when
//! untimed). Names and files are compressed with `(id)` as callgrind does.
//! As in the call graph, the inclusive cost of a recursive call is counted
//! at every level.
//!
//! Escaping: the format is line based and a name or file runs to the end
//! of its line, so in function names, source file names and the `cmd:`
//! line (the trace's path) every control character, newline and carriage
//! return included, is shown as `\xNN` ([`crate::error::escape_controls`]);
//! nothing else needs escaping. Invalid UTF-8 was replaced by U+FFFD when
//! the trace was read.

use std::collections::HashMap;
use std::io::{self, Write};

use petgraph::Direction::Outgoing;
use petgraph::visit::EdgeRef;

use super::{Exported, Exporter, TreeExporter};
use crate::calltree::{CallGraph, NodeId};
use crate::error::escape_controls;
use crate::ingest::FuncId;
use crate::symbols::FuncInfo;

/// `--to callgrind`.
pub(super) struct Callgrind;

impl Exporter for Callgrind {
    fn name(&self) -> &'static str {
        "callgrind"
    }
    fn about(&self) -> &'static str {
        "callgrind profile for KCachegrind and callgrind_annotate (file:line from DWARF)"
    }
}

impl TreeExporter for Callgrind {
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut w = Writer {
            out: io::BufWriter::new(out),
            names: t.names,
            files: HashMap::new(),
            fns: HashMap::new(),
        };
        let tree = t.tree;
        let mut self_cost = vec![0u64; t.funcs.len()];
        for n in 1..tree.len() as NodeId {
            let cost = &mut self_cost[tree.func(n) as usize];
            *cost = cost.saturating_add(tree.self_time(n));
        }
        let cg = CallGraph::from_tree(tree, t.funcs);
        let g = &cg.graph;
        writeln!(w.out, "# callgrind format\nversion: 1\ncreator: calltrace")?;
        // One line: a control character in the path must not start another.
        let cmd = escape_controls(t.command);
        writeln!(w.out, "cmd: {cmd}\npositions: line")?;
        writeln!(w.out, "events: {}", tree.unit.suffix())?;
        let summary = self_cost.iter().fold(0u64, |s, &c| s.saturating_add(c));
        writeln!(w.out, "summary: {summary}\n")?;
        for n in g.node_indices() {
            let f = g[n];
            w.file("fl", f)?;
            w.func("fn", f)?;
            writeln!(
                w.out,
                "{} {}",
                line(&t.names[f as usize]),
                self_cost[f as usize]
            )?;
            // petgraph lists a node's edges newest first: restore trace order.
            let mut out_edges: Vec<_> = g.edges_directed(n, Outgoing).collect();
            out_edges.sort_by_key(|e| e.id().index());
            for e in out_edges {
                let callee = g[e.target()];
                let s = e.weight();
                w.file("cfi", callee)?;
                w.func("cfn", callee)?;
                let callee_line = line(&t.names[callee as usize]);
                writeln!(w.out, "calls={} {callee_line}", s.calls)?;
                writeln!(w.out, "{} {}", line(&t.names[f as usize]), s.total)?;
            }
            writeln!(w.out)?;
        }
        w.out.flush()
    }
}

/// The function's DWARF line, 0 when unknown.
fn line(info: &FuncInfo) -> u32 {
    info.line.unwrap_or(0)
}

/// Writes `fl=`/`fn=` specifications with name compression.
struct Writer<'a, W: Write> {
    out: W,
    names: &'a [FuncInfo],
    files: HashMap<String, usize>,
    fns: HashMap<FuncId, usize>,
}

impl<W: Write> Writer<'_, W> {
    fn file(&mut self, key: &str, f: FuncId) -> io::Result<()> {
        let file = self.names[f as usize].file.as_deref().unwrap_or("???");
        let next = self.files.len() + 1;
        match self.files.get(file) {
            Some(id) => writeln!(self.out, "{key}=({id})"),
            None => {
                self.files.insert(file.to_string(), next);
                writeln!(self.out, "{key}=({next}) {}", escape_controls(file))
            }
        }
    }

    fn func(&mut self, key: &str, f: FuncId) -> io::Result<()> {
        let next = self.fns.len() + 1;
        match self.fns.get(&f) {
            Some(id) => writeln!(self.out, "{key}=({id})"),
            None => {
                self.fns.insert(f, next);
                let name = escape_controls(&self.names[f as usize].name);
                writeln!(self.out, "{key}=({next}) {name}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Shape;
    use super::super::testing::{TRACE, export};
    use super::*;

    #[test]
    fn a_line_break_in_a_file_or_the_title_injects_no_line() {
        let (b, mut names) = super::super::testing::built(TRACE, Callgrind.view());
        for n in &mut names {
            n.file = Some("a.c\nfn=(2) renamed".into());
        }
        let t = Exported {
            tree: &b.tree,
            funcs: &b.funcs,
            names: &names,
            title: "t\rfn=(1) inj",
            max_depth: None,
            command: "t\rfn=(1) inj",
            meta: &b.meta,
            show: &[],
            linkage: None,
        };
        let mut out = Vec::new();
        Callgrind.write(&t, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("cmd: t\\x0dfn=(1) inj\n"), "{out}");
        assert!(out.contains("fl=(1) a.c\\x0afn=(2) renamed\n"), "{out}");
        assert!(
            !out.contains("\nfn=(2) renamed") && !out.contains('\r'),
            "{out}"
        );
    }

    #[test]
    fn self_costs_and_inclusive_call_costs() {
        let out = String::from_utf8(export(Shape::Tree(&Callgrind), TRACE)).unwrap();
        assert!(out.starts_with("# callgrind format\n"), "{out}");
        assert!(out.contains("events: ns\nsummary: 40\n"), "{out}");
        // main: self 19, calls f twice (18 ns), g once (3 ns).
        assert!(
            out.contains("fl=(1) ???\nfn=(1) main\n0 19\ncfi=(1)\ncfn=(2) f\ncalls=2 0\n0 18\n"),
            "{out}"
        );
        assert!(out.contains("cfn=(3) g\ncalls=1 0\n0 3\n"), "{out}");
        assert!(out.contains("fn=(3)\n0 7\n"), "g's self cost: {out}");
    }
}
