//! Reading traces. Each trace format lives in its own file behind the
//! [`TraceFormat`] trait; [`guess`] picks one from the first lines. A format
//! turns bytes into a stream of [`Event`]s (entry/exit of an interned
//! function on a thread) or, for already-aggregated traces, into preorder
//! tree [`NodeSink::node`]s. The stream goes to a [`Sink`], which in this crate is
//! one of the call-tree builders in `calltree`; functions are interned into a
//! [`FuncTable`] that the `symbols` stage later turns into names.
//!
//! E/X, binary and indented traces are read as a stream of chunks parsed on
//! every core (`chunked`) and consumed in file order, so results never depend
//! on the thread count; a sink that can summarise chunks on the parsing threads
//! ([`EventSink::chunk_work`], the calling-context builder) gets those summaries
//! instead of the events.

pub mod binary;
mod chunked;
mod ex;
pub(crate) mod freestanding;
mod funcs;
pub mod guess;
pub mod indented;
mod input;
pub mod opened;
mod prefetch;
pub mod rules;
mod sink;
pub mod slice;
pub(crate) mod uftrace;
mod unit;
pub(crate) mod xray;

pub use binary::BinaryFormat;
use binary::{BinaryScan, BinaryScanned};
pub use ex::{AddrFormat, SymbolicFormat};
use ex::{TextScan, TextScanned};
pub use funcs::{FuncId, FuncKey, FuncTable};
pub(crate) use funcs::{MAX_NAME, name_bound};
pub use indented::IndentedFormat;
pub use input::Input;
pub use rules::RulesFormat;
pub use sink::{
    ChunkNode, ChunkWork, EventConsumer, EventSink, NodeChunk, NodeSink, Sink, SummaryOfItsOwn,
};
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

/// A chunk and a format's parser ready to read it, handed to a sink's
/// [`ChunkWork::scan`] so that the parser runs with the sink's own,
/// statically dispatched [`EventConsumer`]. Which format it is stays
/// inside `ingest`: a sink only calls [`ChunkScan::run`].
pub struct ChunkScan<'a>(Scan<'a>);

/// The formats whose parsers can feed a consumer as they read.
enum Scan<'a> {
    Text(TextScan<'a>),
    Binary(BinaryScan<'a>),
}

/// What a [`ChunkScan`] made of a chunk (opaque outside the reader).
pub struct ChunkScanned(Scanned);

enum Scanned {
    Text(TextScanned),
    Binary(BinaryScanned),
}

impl<'a> ChunkScan<'a> {
    /// Reads the chunk, feeding every event to `consumer` instead of
    /// storing it, and attaches `finish(consumer)` as the chunk's summary.
    /// When the consumer gives up, the chunk is read again with its events
    /// stored, for the sequential path.
    pub fn run<C: EventConsumer>(
        self,
        consumer: &mut C,
        finish: impl FnOnce(&mut C) -> Box<dyn Any + Send>,
    ) -> ChunkScanned {
        ChunkScanned(match self.0 {
            Scan::Text(s) => Scanned::Text(s.run(consumer, finish)),
            Scan::Binary(s) => Scanned::Binary(s.run(consumer, finish)),
        })
    }

    /// Reads the chunk storing its events, then attaches what `summarise`
    /// makes of them.
    pub fn then_summarise(
        self,
        summarise: impl FnOnce(&[Event]) -> Option<Box<dyn Any + Send>>,
    ) -> ChunkScanned {
        ChunkScanned(match self.0 {
            Scan::Text(s) => Scanned::Text(s.then_summarise(summarise)),
            Scan::Binary(s) => Scanned::Binary(s.then_summarise(summarise)),
        })
    }
}

impl<'a> From<TextScan<'a>> for ChunkScan<'a> {
    fn from(scan: TextScan<'a>) -> Self {
        ChunkScan(Scan::Text(scan))
    }
}

impl<'a> From<BinaryScan<'a>> for ChunkScan<'a> {
    fn from(scan: BinaryScan<'a>) -> Self {
        ChunkScan(Scan::Binary(scan))
    }
}

impl ChunkScanned {
    /// What an E/X text scan made of its chunk (None for another format's).
    fn text(self) -> Option<TextScanned> {
        match self.0 {
            Scanned::Text(s) => Some(s),
            Scanned::Binary(_) => None,
        }
    }

    /// What a binary scan made of its chunk (None for another format's).
    fn binary(self) -> Option<BinaryScanned> {
        match self.0 {
            Scanned::Binary(s) => Some(s),
            Scanned::Text(_) => None,
        }
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
    /// The trace's [`FuncKey::Addr`] keys are LLVM XRay function ids, which
    /// the binary's `xray_instr_map` turns into functions (`symbols`), not
    /// runtime addresses. Default is false.
    pub xray_ids: bool,
    /// Threads named by the function of their first entry (a freestanding
    /// buffer's exception threads: `SysTick_Handler`), as (index into
    /// `threads`, function), sorted; [`TraceMeta::name_threads_by_entry`]
    /// names them once functions have names, and until then
    /// `thread_names` holds their fallback (`exception 15`). Default is
    /// none.
    pub entry_named: Vec<(u32, FuncId)>,
}

impl TraceMeta {
    /// Names each thread of [`TraceMeta::entry_named`] by its function,
    /// when `name_of` gives that one a name (hex addresses are no name).
    pub fn name_threads_by_entry<'n>(&mut self, name_of: impl Fn(FuncId) -> Option<&'n str>) {
        for &(thread, func) in &self.entry_named {
            let name = name_of(func).filter(|n| !n.is_empty() && !n.starts_with("0x"));
            if let (Some(name), Some(slot)) = (name, self.thread_names.get_mut(thread as usize)) {
                *slot = name.to_string();
            }
        }
    }

    /// What the trace's format is made of, in messages ([`TraceFormat::piece`]):
    /// `record` for a binary trace, `line` for text.
    pub fn piece(&self) -> &'static str {
        format_by_name(self.format).map_or("line", |f| f.piece())
    }
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
    /// The target's clock rate in Hz (`--clock-hz`), overriding the one a
    /// freestanding buffer records: its cycle counts become nanoseconds.
    /// Default is none (the buffer's rate, else times in cycles).
    pub clock_hz: Option<u64>,
}

/// A trace format: recognises its own input and parses it into a [`Sink`].
///
/// Required: [`TraceFormat::name`], [`TraceFormat::sniff`],
/// [`TraceFormat::parse`]. Provided: [`TraceFormat::help`] (default: none;
/// every format in [`formats`] should give one, `--format`'s help shows
/// it), [`TraceFormat::magic`] (default: none, for text formats),
/// [`TraceFormat::piece`] (default: `line`) and
/// [`TraceFormat::recording_entry`] (default: none, for formats whose
/// traces are files).
pub trait TraceFormat: Sync {
    /// Short name used by `--format` and in messages.
    fn name(&self) -> &'static str;
    /// One line for `--format`'s help: what the format's input looks like.
    fn help(&self) -> &'static str {
        ""
    }
    /// The bytes every input of the format begins with, for formats that
    /// have such a magic (binary ones): an input forced to this format
    /// that lacks them, or forced to another that has them, is reported
    /// before it is read. None (the default) for text formats.
    fn magic(&self) -> Option<&'static [u8]> {
        None
    }
    /// For a format whose trace is a directory (a uftrace recording): the
    /// file of `dir` that is opened and sniffed as the trace, when `dir`
    /// is one of its recordings. None (the
    /// default) for formats whose traces are files.
    fn recording_entry(&self, _dir: &std::path::Path) -> Option<std::path::PathBuf> {
        None
    }
    /// What the format's input is made of, in messages: what a lenient
    /// read skips (`line` or `record`). Default is `line`.
    fn piece(&self) -> &'static str {
        "line"
    }
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

/// Every known format, in sniffing order (most specific first): a new
/// format is one line here.
const FORMATS: &[&dyn TraceFormat] = &[
    &freestanding::FreestandingFormat,
    &uftrace::UftraceFormat,
    &BinaryFormat,
    &xray::XRayFormat,
    &IndentedFormat,
    &AddrFormat,
    &SymbolicFormat,
];

/// Every known format, in sniffing order (most specific first).
pub fn formats() -> impl Iterator<Item = &'static dyn TraceFormat> + Clone {
    FORMATS.iter().copied()
}

/// Looks a format up by its `--format` name.
pub fn format_by_name(name: &str) -> Option<&'static dyn TraceFormat> {
    formats().find(|f| f.name() == name)
}

/// The `--format` names, in [`formats`]' order: what the CLI offers, each
/// with its [`TraceFormat::help`].
pub fn format_names() -> impl Iterator<Item = &'static str> {
    formats().map(|f| f.name())
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
    pub(crate) fn index(&mut self, tid: u64) -> u32 {
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
    pub(crate) fn into_ids(self) -> Vec<u64> {
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

    impl EventSink for Collect {
        fn events(&mut self, e: &[Event]) {
            self.events.extend_from_slice(e);
        }
    }

    impl NodeSink for Collect {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_are_the_registered_formats_each_with_its_help() {
        let names: Vec<_> = format_names().collect();
        let registered: Vec<_> = formats().map(|f| f.name()).collect();
        assert_eq!(names, registered);
        for f in formats() {
            assert!(!f.help().is_empty(), "{}", f.name());
            assert_eq!(format_by_name(f.name()).map(|g| g.name()), Some(f.name()));
        }
        let mut distinct = names.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
    }

    #[test]
    fn a_trace_is_made_of_the_pieces_its_format_says() {
        let meta = |format| TraceMeta {
            format,
            ..TraceMeta::default()
        };
        assert_eq!(meta(BinaryFormat.name()).piece(), "record");
        assert_eq!(meta(AddrFormat.name()).piece(), "line");
        assert_eq!(meta("rules").piece(), "line");
        // Only formats with a magic are read as records.
        for f in formats() {
            assert_eq!(f.piece() == "record", f.magic().is_some(), "{}", f.name());
        }
    }
}
