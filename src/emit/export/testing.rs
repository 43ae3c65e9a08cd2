//! A small named tree, and its export in every shape, for the exporters'
//! unit tests.

use super::{Exported, Shape, StreamExporter};
use crate::calltree::{self, Built, View};
use crate::ingest::{self, Input};
use crate::symbols::{self, FuncInfo};

/// main calls f twice (f calls g once each time) and g once.
pub const TRACE: &str = "E main 0\nE f 10\nE g 12\nX g 15\nX f 20\nE f 22\nE g 23\nX g 24\nX f 30\nE g 31\nX g 34\nX main 40\n";

/// `TRACE` (or `text`) built in `view`, with names.
pub fn built(text: &str, view: View) -> (Built, Vec<FuncInfo>) {
    let input = Input::from_bytes("t.trace", text.as_bytes().to_vec());
    let format = ingest::guess::detect(&input, None).unwrap();
    let built = calltree::build(&input, format, &Default::default(), view).unwrap();
    let names = symbols::names_without_binary(&built.funcs);
    (built, names)
}

/// The export of `b` named by `names`, with the defaults every test uses.
pub fn exported<'a>(b: &'a Built, names: &'a [FuncInfo], title: &'a str) -> Exported<'a> {
    Exported {
        tree: &b.tree,
        funcs: &b.funcs,
        names,
        title,
        max_depth: None,
        command: "./app",
        meta: &b.meta,
        show: &[],
        linkage: None,
    }
}

/// The one-file format `shape` written from `text`'s tree in its view.
pub fn export(shape: Shape, text: &str) -> Vec<u8> {
    let (b, names) = built(text, shape.view());
    let mut out = Vec::new();
    let t = exported(&b, &names, "t.trace");
    match shape {
        Shape::Tree(e) => e.write(&t, &mut out).unwrap(),
        Shape::Stream(e) => super::write_tree(e, &t, &mut out).unwrap(),
        Shape::Dataset(e) => panic!("--to {} writes a directory", e.name()),
    }
    out
}

/// `text` streamed from its events through `exporter`'s sink, as
/// `export` writes it.
pub fn streamed(exporter: &dyn StreamExporter, text: &str) -> Vec<u8> {
    let (b, names) = built(text, View::Calls);
    let input = Input::from_bytes("t", text.as_bytes().to_vec());
    let format = ingest::guess::detect(&input, None).unwrap();
    let mut funcs = b.funcs.clone();
    let mut out = Vec::new();
    let mut sink = exporter.sink(&names, &b.funcs, &b.meta.threads, b.meta.timed, &mut out);
    format
        .parse(&input, &Default::default(), &mut funcs, &mut *sink)
        .unwrap();
    sink.finish().unwrap();
    out
}
