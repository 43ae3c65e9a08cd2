//! Reading traces. Each trace format lives in its own file behind the
//! [`TraceFormat`] trait; [`guess`] picks one from the first lines. A format
//! turns bytes into a stream of [`Event`]s (entry/exit of an interned
//! function on a thread) or, for already-aggregated traces, into preorder
//! tree [`Sink::node`]s. The stream goes to a [`Sink`], which in this crate is
//! one of the call-tree builders in `calltree`; functions are interned into a
//! [`FuncTable`] that the `symbols` stage later turns into names.
//!
//! E/X, binary and indented traces are read as a stream of chunks parsed on
//! every core (`chunked`) and consumed in file order, so results never depend
//! on the thread count; a sink that can summarise chunks on the parsing threads
//! ([`Sink::chunk_work`], the calling-context builder) gets those summaries
//! instead of the events.

pub mod binary;
mod chunked;
mod ex;
mod funcs;
pub mod guess;
pub mod indented;
mod input;
pub mod opened;
mod prefetch;
pub mod rules;
mod unit;

pub use binary::{BinaryFormat, BinaryScan, BinaryScanned};
pub use ex::{AddrFormat, SymbolicFormat, TextScan, TextScanned};
pub use funcs::{FuncId, FuncKey, FuncTable};
pub use indented::IndentedFormat;
pub use input::Input;
pub use rules::RulesFormat;
pub use unit::{Unit, nanos_per};

use std::any::Any;

use crate::error::Result;

/// Whether an event enters or leaves a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The function was entered.
    Enter,
    /// The function returned.
    Exit,
}

/// One entry or exit, as read from a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// Timestamp in the trace's unit (nanoseconds for runtime traces); 0 when untimed.
    pub time: u64,
    /// The interned function.
    pub func: FuncId,
    /// Index of the thread in [`TraceMeta::threads`].
    pub thread: u32,
    /// Entry or exit.
    pub kind: EventKind,
}

/// Receives what a format reads, in trace order.
pub trait Sink {
    /// A batch of events in trace order.
    fn events(&mut self, events: &[Event]);
    /// One node of an already-built tree, in preorder. `depth` 0 is a top-level call.
    fn node(&mut self, node: NodeRecord);
    /// Multiplies the times of every node received so far by `factor`
    /// (saturating at `u64::MAX`): an indented trace's fixed-point
    /// precision grew ([`TraceMeta::decimals`]), so that nodes read earlier
    /// count in the same units as the later ones. Sinks that keep node
    /// times must do it; the default (for sinks that keep none) does nothing.
    fn scale_times(&mut self, _factor: u64) {}
    /// Forgets every node received so far: an indented trace is about to
    /// be read again from its start. Sinks that keep nodes must do it; the
    /// default (for sinks that keep none) does nothing.
    fn clear_nodes(&mut self) {}
    /// A worker that summarises chunks of events on a parsing thread, for
    /// sinks that can merge such summaries ([`Sink::merge`]); None (the
    /// default) when the sink only takes events.
    fn chunk_work(&self) -> Option<Box<dyn ChunkWork>> {
        None
    }
    /// Takes the summary a [`ChunkWork`] made of the next chunk, in trace
    /// order. Its events used chunk-local ids: function `i` is `funcs[i]`,
    /// thread `j` is `threads[j]`.
    fn merge(&mut self, _summary: Box<dyn Any + Send>, _funcs: &[FuncId], _threads: &[u32]) {}
    /// Whether the sink takes the lines of an indented trace as
    /// [`NodeChunk`]s summarised on the parsing threads
    /// ([`Sink::node_chunk`]) rather than one [`Sink::node`] per line.
    /// Default is false.
    fn takes_node_chunks(&self) -> bool {
        false
    }
    /// The next chunk of an indented trace's lines, in trace order, for
    /// sinks that take them ([`Sink::takes_node_chunks`]): what feeding
    /// its lines to [`Sink::node`] one by one would have added.
    fn node_chunk(&mut self, _chunk: &NodeChunk) {}
}

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

/// Summarises one chunk's events on a parsing thread (see [`Sink::chunk_work`]).
pub trait ChunkWork: Send {
    /// The summary of `events` (chunk-local function and thread ids, in
    /// trace order), or None when the chunk cannot be summarised without
    /// what came before it; its events are then passed to [`Sink::events`].
    fn summarise(&mut self, events: &[Event]) -> Option<Box<dyn Any + Send>>;

    /// Scans an E/X text chunk and summarises its events: `scan.run` with
    /// a statically dispatched [`EventConsumer`] summarises each event as
    /// the scanner reads it, without storing the chunk's events (one
    /// dynamic call per chunk, none per event). The default stores the
    /// events and calls [`ChunkWork::summarise`].
    fn scan_text(&mut self, scan: TextScan<'_>) -> TextScanned {
        scan.then_summarise(|events| self.summarise(events))
    }

    /// Decodes a chunk of binary blocks and summarises its events, the
    /// same way as [`ChunkWork::scan_text`]: `scan.run` with a statically
    /// dispatched [`EventConsumer`]. The default stores the events and
    /// calls [`ChunkWork::summarise`].
    fn scan_binary(&mut self, scan: BinaryScan<'_>) -> BinaryScanned {
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

impl EventConsumer for Vec<Event> {
    #[inline(always)]
    fn event(&mut self, e: Event) -> bool {
        self.push(e);
        true
    }
}

/// One line of an indented self/total trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeRecord {
    /// Depth below the (synthetic) root; 0 for top-level calls.
    pub depth: u32,
    /// The interned function.
    pub func: FuncId,
    /// Self time in fixed-point units (see [`TraceMeta::decimals`]).
    pub self_time: u64,
    /// Total time in fixed-point units.
    pub total: u64,
    /// Number of calls this node stands for (1 unless the line said `xN`).
    pub calls: u64,
}

/// What a format learned about the trace besides its events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceMeta {
    /// Name of the format that read the trace.
    pub format: &'static str,
    /// Runtime load address of the executable (`# base` header or binary header).
    pub base: Option<u64>,
    /// Executable path recorded by the runtime, if any.
    pub exe_path: Option<String>,
    /// Id of the traced process (a text trace's `# process PID PPID`), if
    /// recorded: where its perf map is (`/tmp/perf-PID.map`).
    pub pid: Option<u64>,
    /// Executable mappings of the loaded objects (executable, shared
    /// libraries, dlopen'ed objects) as recorded by the runtime, in trace
    /// order; empty for traces that record none (pvtrace's format).
    pub maps: Vec<Mapping>,
    /// True when events carry timestamps (or nodes carry self/total times).
    pub timed: bool,
    /// Decimal places of the fixed-point times (indented traces with decimals).
    pub decimals: u8,
    /// What the weights count: nanoseconds, calls (untimed), or unknown.
    pub unit: Unit,
    /// Thread ids in order of first appearance; events refer to them by index.
    pub threads: Vec<u64>,
    /// Lines skipped under `--lenient`.
    pub skipped_lines: u64,
    /// First skipped line's error, to show the user what kind of lines were skipped.
    pub first_skipped: Option<String>,
    /// Display names of the threads, by index into `threads` (`task 4`);
    /// empty, or an empty name, means the default `thread TID`.
    pub thread_names: Vec<String>,
    /// Counted problems the format wants reported once (lines no rule matched).
    pub warnings: Vec<String>,
}

/// One executable mapping of a loaded object, as the runtime saw it
/// (`dl_iterate_phdr`). Text traces write it as
/// `# map 0xSTART 0xEND 0xOFFSET BUILD_ID|- PATH` (PATH last: it may hold
/// spaces); binary traces as a map record (docs/binary-format.md).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mapping {
    /// Runtime address of the first byte of the mapping.
    pub start: u64,
    /// Runtime address one past the last byte.
    pub end: u64,
    /// File offset of `start` in the object (`p_offset` of its segment).
    pub offset: u64,
    /// Path of the object as the dynamic loader named it.
    pub path: String,
    /// GNU build-id as lower-case hex, when the object has one.
    pub build_id: Option<String>,
}

/// Adds a mapping record read in trace order: to `meta`, and to `funcs`,
/// where one that replaces another object's mapping in its range (loaded
/// where an unloaded one was) makes the addresses in it new functions from
/// here on.
pub(crate) fn add_mapping(meta: &mut TraceMeta, funcs: &mut FuncTable, map: Mapping) {
    funcs.mapping(&map);
    meta.maps.push(map);
}

/// How to read a trace. Default is strict parsing on every core.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Skip malformed lines (counting them) instead of failing. Default is false.
    pub lenient: bool,
    /// Parsing threads for E/X, binary and indented traces; 0 means one per core. Results are
    /// identical for every value. Default is 0.
    pub threads: usize,
    /// Size of the pieces big inputs are parsed in, in bytes; 0 means the
    /// built-in 2 MiB (tests force tiny chunks). Default is 0.
    pub chunk_bytes: usize,
}

/// A trace format: recognises its own input and parses it into a [`Sink`].
pub trait TraceFormat: Sync {
    /// Short name used by `--format` and in messages.
    fn name(&self) -> &'static str;
    /// Whether `head` (the first few KiB of the input) looks like this format.
    fn sniff(&self, head: &[u8]) -> bool;
    /// Parses the whole input.
    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta>;
}

/// Every known format, in sniffing order (most specific first).
pub fn formats() -> [&'static dyn TraceFormat; 4] {
    [&BinaryFormat, &IndentedFormat, &AddrFormat, &SymbolicFormat]
}

/// Looks a format up by its `--format` name.
pub fn format_by_name(name: &str) -> Option<&'static dyn TraceFormat> {
    formats().into_iter().find(|f| f.name() == name)
}

/// Size of the event batches formats hand to their sink.
pub(crate) const BATCH: usize = 8192;

/// Counts a skipped line under `--lenient`, or turns it into the error.
pub(crate) fn skip_or_fail(
    meta: &mut TraceMeta,
    opts: &ParseOptions,
    err: crate::error::Error,
) -> Result<()> {
    if !opts.lenient {
        return Err(err);
    }
    meta.skipped_lines += 1;
    if meta.first_skipped.is_none() {
        meta.first_skipped = Some(err.to_string());
    }
    Ok(())
}

/// The warning for `dropped` events a lossy runtime left out
/// (`CALLTRACE_LOSSY=1`: text `# dropped N` lines, binary 'D' records);
/// None when it dropped none.
pub(crate) fn dropped_warning(dropped: u64) -> Option<String> {
    (dropped > 0).then(|| {
        format!(
            "the runtime dropped {dropped} event(s) because the trace's reader fell behind \
             (CALLTRACE_LOSSY=1): calls around the gaps are repaired, and the time of a gap \
             counts toward the functions open across it"
        )
    })
}

/// Maps raw thread ids to dense indexes in order of first appearance.
#[derive(Debug, Default)]
pub(crate) struct ThreadIds {
    index: rustc_hash::FxHashMap<u64, u32>,
    ids: Vec<u64>,
    last: Option<(u64, u32)>,
}

impl ThreadIds {
    /// The dense index of thread `tid`, assigning the next one if new.
    #[inline]
    pub fn index(&mut self, tid: u64) -> u32 {
        if let Some((t, i)) = self.last
            && t == tid
        {
            return i;
        }
        let next = self.ids.len() as u32;
        let i = *self.index.entry(tid).or_insert(next);
        if i == next {
            self.ids.push(tid);
        }
        self.last = Some((tid, i));
        i
    }

    /// The ids in order of first appearance.
    pub fn into_ids(self) -> Vec<u64> {
        self.ids
    }
}

/// Helpers for the formats' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A sink that keeps every event and node it is given.
    #[derive(Default)]
    pub struct Collect {
        pub events: Vec<Event>,
        pub nodes: Vec<NodeRecord>,
    }

    impl Sink for Collect {
        fn events(&mut self, e: &[Event]) {
            self.events.extend_from_slice(e);
        }
        fn node(&mut self, n: NodeRecord) {
            self.nodes.push(n);
        }
        fn clear_nodes(&mut self) {
            self.nodes.clear();
        }
        fn scale_times(&mut self, factor: u64) {
            for n in &mut self.nodes {
                n.self_time = n.self_time.saturating_mul(factor);
                n.total = n.total.saturating_mul(factor);
            }
        }
    }

    /// Everything a parse with `opts` reports, as text: events, keys, meta or the error.
    pub fn outcome(format: &dyn TraceFormat, input: &Input, opts: &ParseOptions) -> String {
        let mut funcs = FuncTable::default();
        let mut sink = Collect::default();
        match format.parse(input, opts, &mut funcs, &mut sink) {
            Ok(meta) => format!("{:?}\n{:?}\n{meta:?}", sink.events, funcs.keys()),
            Err(e) => format!("error: {e}"),
        }
    }

    /// Parses `bytes` named `name` with `format`, collecting what it reads.
    pub fn parse(
        format: &dyn TraceFormat,
        name: &str,
        bytes: &[u8],
        lenient: bool,
    ) -> Result<(Collect, TraceMeta, FuncTable)> {
        let input = Input::from_bytes(name, bytes.to_vec());
        let mut funcs = FuncTable::default();
        let mut sink = Collect::default();
        let opts = ParseOptions {
            lenient,
            ..Default::default()
        };
        let meta = format.parse(&input, &opts, &mut funcs, &mut sink)?;
        Ok((sink, meta, funcs))
    }
}
