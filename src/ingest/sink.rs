//! What formats feed: the [`Sink`] traits (events, or the nodes of an
//! already-built tree), the summaries of indented chunks ([`NodeChunk`]),
//! and the chunk summarisers a sink can run on the parsing threads
//! ([`ChunkWork`], fed event by event through an [`EventConsumer`]).

use std::any::Any;

use super::{ChunkScan, ChunkScanned, Event, EventKind, FuncId, NodeRecord};

/// Receives the events a format reads, in trace order.
///
/// Required: [`EventSink::events`]. Provided: [`EventSink::chunk_work`]
/// (default: no chunk summaries) and [`EventSink::merge`] (default: does
/// nothing; only called for sinks whose `chunk_work` gives workers).
pub trait EventSink {
    /// A batch of events in trace order. Required.
    fn events(&mut self, events: &[Event]);
    /// A worker that summarises chunks of events on a parsing thread, for
    /// sinks that can merge such summaries ([`EventSink::merge`]); None (the
    /// default) when the sink only takes events.
    fn chunk_work(&self) -> Option<Box<dyn ChunkWork>> {
        None
    }
    /// Takes the summary a [`ChunkWork`] made of the next chunk, in trace
    /// order. Its events used chunk-local ids: function `i` is `funcs[i]`,
    /// thread `j` is `threads[j]`. Provided (does nothing): a sink that
    /// gives chunk workers must take their summaries here.
    fn merge(&mut self, _summary: Box<dyn Any + Send>, _funcs: &[FuncId], _threads: &[u32]) {}
}

/// Receives the nodes of an already-built tree (an indented trace), in
/// preorder.
///
/// Required: [`NodeSink::node`]. Provided: [`NodeSink::scale_times`] and
/// [`NodeSink::clear_nodes`] (default: do nothing, for sinks that keep no
/// nodes), [`NodeSink::takes_node_chunks`] (default: false) and
/// [`NodeSink::node_chunk`] (default: does nothing; only called for sinks
/// that take node chunks).
pub trait NodeSink {
    /// One node of an already-built tree, in preorder. `depth` 0 is a
    /// top-level call. Required.
    fn node(&mut self, node: NodeRecord);
    /// Multiplies the times of every node received so far by `factor`
    /// (saturating at `u64::MAX`): an indented trace's fixed-point
    /// precision grew ([`TraceMeta::decimals`](super::TraceMeta::decimals)), so that nodes read earlier
    /// count in the same units as the later ones. Sinks that keep node
    /// times must do it; the default (for sinks that keep none) does nothing.
    fn scale_times(&mut self, _factor: u64) {}
    /// Forgets every node received so far: an indented trace is about to
    /// be read again from its start. Sinks that keep nodes must do it; the
    /// default (for sinks that keep none) does nothing.
    fn clear_nodes(&mut self) {}
    /// Whether the sink takes the lines of an indented trace as
    /// [`NodeChunk`]s summarised on the parsing threads
    /// ([`NodeSink::node_chunk`]) rather than one [`NodeSink::node`] per line.
    /// Default is false.
    fn takes_node_chunks(&self) -> bool {
        false
    }
    /// The next chunk of an indented trace's lines, in trace order, for
    /// sinks that take them ([`NodeSink::takes_node_chunks`]): what feeding
    /// its lines to [`NodeSink::node`] one by one would have added.
    fn node_chunk(&mut self, _chunk: &NodeChunk) {}
}

/// What a format parses into: every sink takes both events and nodes
/// (a format gives one or the other). Implemented for every type that
/// implements [`EventSink`] and [`NodeSink`]; formats take `&mut dyn Sink`.
pub trait Sink: EventSink + NodeSink {}

impl<T: EventSink + NodeSink + ?Sized> Sink for T {}

/// The lines of a chunk of an indented trace as a small context tree:
/// each node stands for the lines with the same path from the chunk's
/// *anchors*, the places in the tree above the chunk where its lines
/// climbing below their predecessors hang. Merging the chunk in order
/// means resolving each anchor to a node of the tree so far and adding
/// the nodes' sums there; nothing per line is left to do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeChunk {
    /// Nodes in order of first appearance: a node's parent comes before it.
    pub nodes: Vec<ChunkNode>,
    /// Depth of the lines that hang at each anchor, in trace order (never
    /// growing): anchor `a`'s parent is the line open at depth `depth - 1`
    /// when the chunk begins (the root for depth 0).
    pub anchors: Vec<u32>,
    /// The nodes of the lines still open at the chunk's end, by depth,
    /// from the last anchor's depth up.
    pub open: Vec<u32>,
    /// Multiply the nodes' times by this (saturating) to put them in the
    /// trace's fixed-point units so far.
    pub factor: u64,
}

/// A node of a [`NodeChunk`]: the sums of its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkNode {
    /// The index of an earlier node, or [`ChunkNode::ANCHOR`] | the anchor index.
    pub parent: u32,
    /// The interned function.
    pub func: FuncId,
    /// Number of calls the lines stand for.
    pub calls: u64,
    /// Sum of the lines' total times (saturating).
    pub total: u64,
    /// Sum of the lines' self times (saturating).
    pub self_time: u64,
}

impl ChunkNode {
    /// Marks [`ChunkNode::parent`] as an anchor index.
    pub const ANCHOR: u32 = 1 << 31;
}

/// Summarises one chunk's events on a parsing thread (see [`EventSink::chunk_work`]).
pub trait ChunkWork: Send {
    /// The summary of `events` (chunk-local function and thread ids, in
    /// trace order), or None when the chunk cannot be summarised without
    /// what came before it; its events are then passed to [`EventSink::events`].
    fn summarise(&mut self, events: &[Event]) -> Option<Box<dyn Any + Send>>;

    /// Reads a chunk with the format's parser and summarises its events:
    /// `scan.run` with a statically dispatched [`EventConsumer`] summarises
    /// each event as the parser reads it, without storing the chunk's
    /// events (one dynamic call per chunk, none per event). The default
    /// stores the events and calls [`ChunkWork::summarise`].
    fn scan(&mut self, scan: ChunkScan<'_>) -> ChunkScanned {
        scan.then_summarise(|events| self.summarise(events))
    }
}

/// Takes a chunk's events (chunk-local ids) one by one, as they are read.
pub trait EventConsumer {
    /// The next event; false when the consumer gives the chunk up (the
    /// reader then stops feeding it).
    fn event(&mut self, e: Event) -> bool;

    /// The next event of a chunk without timestamps (every time is 0):
    /// the same as [`EventConsumer::event`], which a consumer may make
    /// cheaper by leaving out its time arithmetic.
    #[inline(always)]
    fn untimed_event(&mut self, e: Event) -> bool {
        self.event(e)
    }

    /// An entry `enter` directly followed by its exit, on the same thread,
    /// at `exit_time` (a leaf call): the same as the two events, which a
    /// consumer may take at once.
    #[inline(always)]
    fn leaf(&mut self, enter: Event, exit_time: u64) -> bool {
        self.event(enter)
            && self.event(Event {
                time: exit_time,
                kind: EventKind::Exit,
                ..enter
            })
    }

    /// [`EventConsumer::leaf`] in a chunk without timestamps.
    #[inline(always)]
    fn untimed_leaf(&mut self, enter: Event) -> bool {
        self.untimed_event(enter)
            && self.untimed_event(Event {
                kind: EventKind::Exit,
                ..enter
            })
    }
}

/// The [`ChunkWork`] of a sink `S` whose summary of a chunk is another
/// `S`, fed the chunk's events as they are read (a count, an earliest
/// time): the sink's [`EventSink::merge`] takes a `Box<S>` and adds it up.
pub struct SummaryOfItsOwn<S>(std::marker::PhantomData<fn() -> S>);

impl<S> Default for SummaryOfItsOwn<S> {
    fn default() -> Self {
        SummaryOfItsOwn(std::marker::PhantomData)
    }
}

impl<S> ChunkWork for SummaryOfItsOwn<S>
where
    S: Default + EventSink + EventConsumer + Send + 'static,
{
    fn summarise(&mut self, events: &[Event]) -> Option<Box<dyn Any + Send>> {
        let mut chunk = S::default();
        chunk.events(events);
        Some(Box::new(chunk))
    }
    fn scan(&mut self, scan: ChunkScan<'_>) -> ChunkScanned {
        scan.run(&mut S::default(), |chunk| Box::new(std::mem::take(chunk)))
    }
}

impl EventConsumer for Vec<Event> {
    #[inline(always)]
    fn event(&mut self, e: Event) -> bool {
        self.push(e);
        true
    }
}
