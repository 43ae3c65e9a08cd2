//! The call tree stage: builds a weighted [`Tree`] from a parsed trace
//! (`builder`), in one of two [`View`]s, and derives the caller/callee
//! [`CallGraph`] that `calltrace graph` draws (`graph`). Functions are named
//! by the `symbols` stage; this stage works on [`FuncId`]s only.
//!
//! [`FuncId`]: crate::ingest::FuncId

mod builder;
pub mod dist;
pub mod filter;
mod fold;
pub mod graph;
pub mod hot;
mod tree;

pub use builder::{CallsBuilder, ContextsBuilder, RepairStats};
pub use dist::{At, CallDist, Dist, Keep, Stat};
pub use fold::fold_paths;
pub use graph::{CallGraph, EdgeStats};
pub use tree::{Children, NodeId, Tree};

use std::any::Any;

use crate::error::Result;
use crate::ingest::slice::Window;
use crate::ingest::{
    ChunkWork, Event, EventSink, FuncId, FuncTable, Input, NodeChunk, NodeRecord, NodeSink,
    ParseOptions, Sink, TraceFormat, TraceMeta,
};

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
    build_with(input, format, opts, Builder::new(view))
}

/// Parses `input` with `format` into `builder` and finishes the tree.
pub fn build_with(
    input: &Input,
    format: &dyn TraceFormat,
    opts: &ParseOptions,
    mut builder: Builder,
) -> Result<Built> {
    let mut funcs = FuncTable::default();
    let meta = format.parse(input, opts, &mut funcs, &mut builder)?;
    Ok(builder.finish(funcs, meta))
}

/// The builder of either view, as one [`Sink`]: what a caller that feeds
/// the events itself (through a filter, or a second pass) builds with.
// One builder per read, moved a few times: the variants' sizes do not
// matter, and boxing one would add an indirection to every event.
#[allow(clippy::large_enum_variant)]
pub enum Builder {
    /// One node per call.
    Calls(CallsBuilder),
    /// One node per distinct call path.
    Contexts(ContextsBuilder),
}

impl Builder {
    /// An empty builder of `view`.
    pub fn new(view: View) -> Builder {
        match view {
            View::Calls => Builder::Calls(CallsBuilder::default()),
            View::Contexts => Builder::Contexts(ContextsBuilder::default()),
        }
    }

    /// An empty builder of `view` that keeps each node's per-call
    /// distributions ([`Tree::dist`]): the contexts view keeps them per
    /// path, and the calls view has them anyway (a node is a call).
    pub fn with_dists(view: View, keep: Keep) -> Builder {
        match view {
            View::Calls => Builder::Calls(CallsBuilder::default()),
            View::Contexts => Builder::Contexts(ContextsBuilder::with_dists(keep)),
        }
    }

    /// An empty builder of `view`, keeping per-call distributions when
    /// `per_call` says which.
    pub fn for_view(view: View, per_call: Option<Keep>) -> Builder {
        match per_call {
            Some(keep) => Builder::with_dists(view, keep),
            None => Builder::new(view),
        }
    }

    /// Makes the per-call start times count from `time` (by default, from
    /// the earliest event the builder gets).
    pub fn set_origin(&mut self, time: u64) {
        if let Builder::Contexts(b) = self {
            b.set_origin(time);
        }
    }

    /// Keeps only the calls that start in `window`, on every core
    /// ([`ContextsBuilder::set_window`]); the calls view has no window.
    pub fn set_window(&mut self, window: Window) {
        if let Builder::Contexts(b) = self {
            b.set_window(window);
        }
    }

    /// With a window, keeps the calls before it as path nodes
    /// ([`ContextsBuilder::keep_hidden_paths`]), for `--function` and
    /// `--exclude` to be cut from the tree ([`filter::cut_windowed`]).
    pub fn keep_hidden_paths(&mut self) {
        if let Builder::Contexts(b) = self {
            b.keep_hidden_paths();
        }
    }

    /// Whether the tree is built through a window: false for the calls
    /// view, which has none.
    pub fn windowed(&self) -> bool {
        matches!(self, Builder::Contexts(b) if b.windowed())
    }

    /// Closes what is open and lays the tree out; `funcs` gains the
    /// synthetic thread functions.
    pub fn finish(self, mut funcs: FuncTable, meta: TraceMeta) -> Built {
        let (tree, repairs) = match self {
            Builder::Calls(b) => b.finish(&meta, &mut funcs),
            Builder::Contexts(b) => b.finish(&meta, &mut funcs),
        };
        Built {
            tree,
            funcs,
            meta,
            repairs,
        }
    }

    fn sink(&mut self) -> &mut dyn Sink {
        match self {
            Builder::Calls(b) => b,
            Builder::Contexts(b) => b,
        }
    }
}

impl EventSink for Builder {
    fn events(&mut self, events: &[Event]) {
        self.sink().events(events)
    }
    fn chunk_work(&self) -> Option<Box<dyn ChunkWork>> {
        match self {
            Builder::Calls(b) => b.chunk_work(),
            Builder::Contexts(b) => b.chunk_work(),
        }
    }
    fn merge(&mut self, summary: Box<dyn Any + Send>, funcs: &[FuncId], threads: &[u32]) {
        self.sink().merge(summary, funcs, threads)
    }
}

impl NodeSink for Builder {
    fn node(&mut self, node: NodeRecord) {
        self.sink().node(node)
    }
    fn scale_times(&mut self, factor: u64) {
        self.sink().scale_times(factor)
    }
    fn clear_nodes(&mut self) {
        self.sink().clear_nodes()
    }
    fn takes_node_chunks(&self) -> bool {
        match self {
            Builder::Calls(b) => b.takes_node_chunks(),
            Builder::Contexts(b) => b.takes_node_chunks(),
        }
    }
    fn node_chunk(&mut self, chunk: &NodeChunk) {
        self.sink().node_chunk(chunk)
    }
}
