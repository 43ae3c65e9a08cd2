//! The call tree stage: builds a weighted [`Tree`] from a parsed trace
//! (`builder`), in one of two [`View`]s, and derives the caller/callee
//! [`CallGraph`] that `calltrace graph` draws (`graph`). Functions are named
//! by the `symbols` stage; this stage works on [`FuncId`]s only.
//!
//! [`FuncId`]: crate::ingest::FuncId

mod builder;
mod fold;
pub mod graph;
pub mod hot;
mod tree;

pub use builder::{CallsBuilder, ContextsBuilder, RepairStats};
pub use fold::fold_paths;
pub use graph::{CallGraph, EdgeStats};
pub use tree::{Children, NodeId, Tree};

use crate::error::Result;
use crate::ingest::{FuncTable, Input, ParseOptions, TraceFormat, TraceMeta};

/// Which tree to build.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum View {
    /// One node per call: the paper's dynamic call tree. Default.
    #[default]
    Calls,
    /// One node per distinct call path, with call counts (calling-context tree).
    Contexts,
}

impl View {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            View::Calls => "calls",
            View::Contexts => "contexts",
        }
    }
}

/// A parsed trace as a tree, with its interned functions.
#[derive(Debug, Clone)]
pub struct Built {
    /// The tree.
    pub tree: Tree,
    /// Functions the tree's nodes refer to.
    pub funcs: FuncTable,
    /// What the format reported.
    pub meta: TraceMeta,
    /// Repairs of unbalanced entries and exits.
    pub repairs: RepairStats,
}

/// Parses `input` with `format` straight into a tree of the given view.
pub fn build(
    input: &Input,
    format: &dyn TraceFormat,
    opts: &ParseOptions,
    view: View,
) -> Result<Built> {
    let mut funcs = FuncTable::default();
    let (tree, meta, repairs) = match view {
        View::Calls => {
            let mut b = CallsBuilder::default();
            let meta = format.parse(input, opts, &mut funcs, &mut b)?;
            let (tree, repairs) = b.finish(&meta, &mut funcs);
            (tree, meta, repairs)
        }
        View::Contexts => {
            let mut b = ContextsBuilder::default();
            let meta = format.parse(input, opts, &mut funcs, &mut b)?;
            let (tree, repairs) = b.finish(&meta, &mut funcs);
            (tree, meta, repairs)
        }
    };
    Ok(Built {
        tree,
        funcs,
        meta,
        repairs,
    })
}
