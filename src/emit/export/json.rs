//! The call tree as JSON (serde), for scripts: `{"unit": "ns", "view":
//! "contexts", "children": [...]}` where every node has `name`, `file`,
//! `line`, `calls`, `self`, `total` and `children`. Thread nodes of
//! multi-threaded traces are nodes named `[thread N]` with no file. Nodes
//! are serialized straight from the tree, never copied into a JSON value.
//! Escaping is JSON's (serde_json): `"`, `\` and control characters are
//! escaped (`\n`, `\u0000`), so every name reads back exactly; invalid
//! UTF-8 was replaced by U+FFFD when the trace was read.

use std::io::{self, Write};

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::{Exported, Exporter};
use crate::calltree::{NodeId, Tree};
use crate::symbols::FuncInfo;

/// `--to json`.
pub struct Json;

impl Exporter for Json {
    fn name(&self) -> &'static str {
        "json"
    }
    fn about(&self) -> &'static str {
        "the call tree as JSON: name, file, line, calls, self, total, children"
    }
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut out = io::BufWriter::new(out);
        let top = Document { t };
        serde_json::to_writer(&mut out, &top).map_err(io::Error::other)?;
        out.write_all(b"\n")?;
        out.flush()
    }
}

struct Document<'a> {
    t: &'a Exported<'a>,
}

struct Node<'a> {
    tree: &'a Tree,
    names: &'a [FuncInfo],
    n: NodeId,
}

struct Children<'a>(Node<'a>);

impl Serialize for Document<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let tree = self.t.tree;
        let view = if tree.has_call_counts() {
            "contexts"
        } else {
            "calls"
        };
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("unit", tree.unit.suffix())?;
        m.serialize_entry("view", view)?;
        let root = Node {
            tree,
            names: self.t.names,
            n: 0,
        };
        m.serialize_entry("children", &Children(root))?;
        m.end()
    }
}

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (tree, n) = (self.tree, self.n);
        let info = &self.names[tree.func(n) as usize];
        let mut m = s.serialize_map(Some(7))?;
        m.serialize_entry("name", &info.name)?;
        m.serialize_entry("file", &info.file)?;
        m.serialize_entry("line", &info.line)?;
        m.serialize_entry("calls", &tree.calls(n))?;
        m.serialize_entry("self", &tree.self_time(n))?;
        m.serialize_entry("total", &tree.total(n))?;
        m.serialize_entry("children", &Children(Node { ..*self }))?;
        m.end()
    }
}

impl Serialize for Children<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Node { tree, names, n } = self.0;
        let mut seq = s.serialize_seq(None)?;
        for c in tree.children(n) {
            seq.serialize_element(&Node { tree, names, n: c })?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{TRACE, export};
    use super::*;

    #[test]
    fn nodes_have_the_documented_fields() {
        let v: serde_json::Value = serde_json::from_slice(&export(&Json, TRACE)).unwrap();
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
