//! The call tree as JSON (serde), for scripts: `{"unit": "ns", "view":
//! "contexts", "children": [...]}` where every node has `name`, `file`,
//! `line`, `calls`, `self`, `total` and `children`. Thread nodes of
//! multi-threaded traces are nodes named `[thread N]` with no file. Nodes
//! are written straight from the tree in preorder, never copied into a
//! JSON value, and without recursion (any depth). Escaping is JSON's
//! (serde_json): `"`, `\` and control characters are escaped (`\n`,
//! `\u0000`), so every name reads back exactly; invalid UTF-8 was replaced
//! by U+FFFD when the trace was read. With `--show max,p99` each node also
//! has `max` (with `max_thread` and `max_start` in the contexts view),
//! `p99`, ...: numbers of one call's inclusive time.

use std::io::{self, Write};

use super::{Exported, Exporter, TreeExporter};
use crate::calltree::{NodeId, Stat};

/// `--to json`.
pub(super) struct Json;

impl Exporter for Json {
    fn name(&self) -> &'static str {
        "json"
    }
    fn about(&self) -> &'static str {
        "the call tree as JSON: name, file, line, calls, self, total, children"
    }
}

impl TreeExporter for Json {
    fn shows_per_call(&self) -> bool {
        true
    }
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut out = io::BufWriter::new(out);
        write_document(t, &mut out)?;
        out.write_all(b"\n")?;
        out.flush()
    }
}

/// Writes the document without recursion (a 100k-deep recursion
/// overflowed the stack when serde walked the nesting): each node's fields
/// up to `"children":[`, and the closing `]}` when its subtree ends.
fn write_document(t: &Exported<'_>, out: &mut impl Write) -> io::Result<()> {
    let tree = t.tree;
    let view = match tree.has_call_counts() {
        true => "contexts",
        false => "calls",
    };
    write!(out, "{{\"unit\":")?;
    string(out, tree.unit.suffix())?;
    write!(out, ",\"view\":\"{view}\",\"children\":[")?;
    // End of each open subtree; whether the next node opens a list.
    let mut open: Vec<NodeId> = Vec::new();
    let mut first = true;
    for n in 1..tree.len() as NodeId {
        while open.last().is_some_and(|&end| end <= n) {
            open.pop();
            out.write_all(b"]}")?;
            first = false;
        }
        if !first {
            out.write_all(b",")?;
        }
        node_head(out, t, n)?;
        open.push(n + tree.size(n));
        first = true;
    }
    for _ in open {
        out.write_all(b"]}")?;
    }
    out.write_all(b"]}")
}

/// `{"name":...,"total":...,"children":[` of node `n`.
fn node_head(out: &mut impl Write, t: &Exported<'_>, n: NodeId) -> io::Result<()> {
    let tree = t.tree;
    let info = &t.names[tree.func(n) as usize];
    out.write_all(b"{\"name\":")?;
    string(out, &info.name)?;
    out.write_all(b",\"file\":")?;
    serde_json::to_writer(&mut *out, &info.file).map_err(io::Error::other)?;
    out.write_all(b",\"line\":")?;
    serde_json::to_writer(&mut *out, &info.line).map_err(io::Error::other)?;
    write!(
        out,
        ",\"calls\":{},\"self\":{},\"total\":{}",
        tree.calls(n),
        tree.self_time(n),
        tree.total(n)
    )?;
    shown(out, t, n)?;
    out.write_all(b",\"children\":[")
}

/// `,"max":…,"max_thread":…,"max_start":…,"p99":…` of node `n`
/// (`--show`): each asked-for number of a call's inclusive time, and for
/// `max`, where the slowest call ran (its thread id and start after the
/// trace's first event) when the tree kept it. Nothing for nodes without
/// calls (threads) or trees without per-call times.
fn shown(out: &mut impl Write, t: &Exported<'_>, n: NodeId) -> io::Result<()> {
    let tree = t.tree;
    if t.show.is_empty() || !tree.unit.is_time() {
        return Ok(());
    }
    let Some(d) = tree.dist(n).filter(|d| d.total.count > 0) else {
        return Ok(());
    };
    let kept = tree.has_call_counts();
    for s in t.show {
        write!(out, ",\"{}\":{}", s.name(), s.of(&d.total))?;
        if *s == Stat::Max && kept {
            let at = d.total.max_at;
            let tid = t.meta.threads.get(at.thread as usize).copied().unwrap_or(0);
            write!(out, ",\"max_thread\":{tid},\"max_start\":{}", at.start)?;
        }
    }
    Ok(())
}

/// A JSON string, escaped by serde_json.
fn string(out: &mut impl Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(out, s).map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::super::Shape;
    use super::super::testing::{TRACE, export};
    use super::*;

    #[test]
    fn nodes_have_the_documented_fields() {
        let v: serde_json::Value =
            serde_json::from_slice(&export(Shape::Tree(&Json), TRACE)).unwrap();
        assert_eq!((&v["unit"], &v["view"]), (&"ns".into(), &"contexts".into()));
        let main = &v["children"][0];
        assert_eq!(main["name"], "main");
        assert_eq!((&main["self"], &main["total"]), (&19.into(), &40.into()));
        let f = &main["children"][0];
        assert_eq!(
            (&f["name"], &f["calls"], &f["total"]),
            (&"f".into(), &2.into(), &18.into())
        );
        assert_eq!(f["children"][0]["name"], "g");
        assert!(f["file"].is_null() && f["line"].is_null());
        let mut keys: Vec<_> = f.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(
            keys,
            ["calls", "children", "file", "line", "name", "self", "total"]
        );
    }
}
