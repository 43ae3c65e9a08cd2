//! The fast E/X scanner that worker threads run on whole chunks: one pass
//! over the bytes, parsing while scanning, for the lines our runtime and
//! `instrument.c` write (`E0x401136`, `E0x401136 1234`, `E0x401136 1234 77`,
//! with `\n` or `\r\n`, blank lines and comments other than the `# base`
//! and `# map` headers).
//! Functions and threads get chunk-local ids, which the in-order consumer
//! (`inorder`) maps to global ones in event order. Anything else, including
//! every malformed line, makes the scanner give the chunk up, and the
//! consumer parses it line by line with the full rules and messages.
//!
//! Each line's start depends on where the previous one ended, and finding
//! that end by scanning the fields would make every line wait for the one
//! before. But successive lines of the runtime's output almost always have
//! the same shape (address, timestamp and thread id of the same lengths),
//! so the scanner predicts the next line's field boundaries from the last
//! line, checks the three separators and the digits where predicted, and
//! only reads a line field by field when the prediction fails.
//!
//! Each event goes to an [`EventConsumer`] as soon as it is read: a `Vec`
//! that stores the chunk's events, or, through [`TextScan`], a sink's
//! chunk summariser, compiled into the scanning loop so that the events
//! are never stored and read back. An entry whose exit is the next line
//! (a leaf call, most calls) goes to it as one ([`EventConsumer::leaf`]).

use std::any::Any;

use rustc_hash::FxHashMap;

use super::super::chunked::{ChunkParser, LocalEvents};
use super::super::funcs::NameIndex;
use super::super::prefetch::{AHEAD, prefetch};
use super::super::{ChunkWork, Event, EventConsumer, EventKind};
use super::digits::{
    WINDOW, any_non_digit, below_bang, dec, eight, four, hex, hex_key, u128_at, window, word,
    word_at,
};
use super::syntax::is_header;
use shape::{NameShapes, Shape, ZEROS4};

mod addrs;
mod ids;
mod names;
mod shape;

/// What the scanner read from one chunk.
#[derive(Default)]
pub(crate) struct FastChunk {
    /// The events, with chunk-local ids.
    pub local: LocalEvents,
    /// (timestamp column, thread column, 0-based line in the chunk) of the
    /// chunk's first event line; every event line of the chunk has these columns.
    pub columns: Option<(bool, bool, u64)>,
    /// Number of line ends in the chunk.
    pub lines: u64,
}

const SLOTS: usize = 1024;

/// Slots of the cache of names of 16 bytes or more (by their length and
/// first and last words).
const LONG_SLOTS: usize = 512;

/// The longest name the scanner reads itself; longer ones go to the line
/// parser.
const LONG_NAME: usize = 4096;

/// One entry of the direct-mapped cache from address text to local id.
/// The cache is emptied for every chunk; an empty slot's all-zero key
/// matches no address text (its first byte is a digit).
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The hex digits as read (up to 15 bytes, zero-padded).
    key: (u64, u64),
    id: u32,
}

/// The chunk's last thread id text (zero-padded, so it tells its length
/// too) and that thread's local index; 0 before the first.
#[derive(Clone, Copy, Default)]
struct TidCache {
    text: u64,
    local: u32,
}

/// A worker's scanner; its buffers live across chunks.
pub(crate) struct Parser {
    /// A fixed-size array, so that indexing it by a hash needs no bounds check.
    slots: Box<[Slot; SLOTS]>,
    tid: TidCache,
    /// The predicted shape of the next line, once a line had one.
    shape: Option<Shape>,
    tid_index: FxHashMap<u64, u32>,
    /// The chunk's local id of each address read so far: an address whose
    /// cache slot another one took keeps its id (summarisers tell frames
    /// apart by id).
    addr_index: FxHashMap<u64, u32>,
    /// Reading a symbolic trace: event lines carry function names.
    symbolic: bool,
    /// The chunk's local id of each function name read so far (the names
    /// are the chunk's `names`).
    name_index: NameIndex,
    /// The local id of a name of 16 bytes or more, by a hash of its length
    /// and first and last words ([`Parser::long_name`]).
    long_slots: Box<[u32; LONG_SLOTS]>,
    /// The predicted shape of the columns after the next symbolic line's name.
    tail_shape: Option<Shape>,
    /// The shapes of symbolic lines for `tail_shape`, by name length.
    name_shapes: Option<Box<NameShapes>>,
    /// The last thread id [`Parser::thread`] looked up, and its local index.
    last_thread: Option<(u64, u32)>,
    /// The first 12 of a predicted line's 16 timestamp digits (text of the
    /// first 8 and of the next 4, checked to be digits, and the value they
    /// stand for): consecutive timestamps nearly always share them, so only
    /// the last 4 digits are usually converted.
    time_high: (u64, u64, u64),
    /// The address (or name) text of the last predicted line and its local
    /// id: a leaf's exit line repeats its entry's, and skips the lookup.
    last_key: ((u64, u64), u32),
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            slots: Box::new([Slot::default(); SLOTS]),
            tid: TidCache::default(),
            shape: None,
            tid_index: FxHashMap::default(),
            addr_index: FxHashMap::default(),
            symbolic: false,
            name_index: NameIndex::default(),
            long_slots: Box::new([u32::MAX; LONG_SLOTS]),
            tail_shape: None,
            name_shapes: None,
            last_thread: None,
            time_high: (u64::from_le_bytes(*b"00000000"), u64::from(ZEROS4), 0),
            last_key: ((u64::MAX, u64::MAX), 0),
        }
    }
}

impl Parser {
    /// A scanner for E/X lines with function names (`symbolic`) or
    /// addresses: the chunks it reads have either, never both.
    pub(crate) fn new(symbolic: bool) -> Self {
        Parser {
            symbolic,
            ..Parser::default()
        }
    }
}

impl ChunkParser for Parser {
    type Buffer = FastChunk;
    /// None when the chunk has a line the scanner does not take: the chunk
    /// is then parsed line by line in order.
    type Parsed = Option<FastChunk>;

    fn parse(
        &mut self,
        bytes: &[u8],
        out: FastChunk,
        work: Option<&mut dyn ChunkWork>,
    ) -> Option<FastChunk> {
        match work {
            // Only a text scan gives a text result back; anything else
            // would leave the chunk to the line parser.
            Some(work) => work
                .scan(TextScan::new(self, bytes, out).into())
                .text()
                .and_then(|scanned| scanned.0),
            None => self.scan(bytes, out),
        }
    }
}

/// A name's text as a cache key (zero-padded) and its length.
type NameText = ((u64, u64), usize);

/// The kind of an event line whose letter is `E` (`enter`) or `X`.
#[inline(always)]
fn kind(enter: bool) -> EventKind {
    if enter {
        EventKind::Enter
    } else {
        EventKind::Exit
    }
}

/// Hands an event of a line with `COLS` columns to `consumer`: without
/// columns, as an untimed one.
#[inline(always)]
fn take_one<const COLS: u8, C: EventConsumer>(consumer: &mut C, e: Event) -> bool {
    if COLS == 0 {
        consumer.untimed_event(e)
    } else {
        consumer.event(e)
    }
}

/// Hands two events read one after the other to `consumer` (with `COLS`
/// columns): as one leaf call when the second is the first one's exit.
#[inline(always)]
fn take_two<const COLS: u8, C: EventConsumer>(consumer: &mut C, e: Event, x: Event) -> bool {
    let leaf = e.kind == EventKind::Enter
        && x.kind == EventKind::Exit
        && x.func == e.func
        && x.thread == e.thread;
    match (leaf, COLS) {
        (true, 0) => consumer.untimed_leaf(e),
        (true, _) => consumer.leaf(e, x.time),
        (false, _) => take_one::<COLS, C>(consumer, e) && take_one::<COLS, C>(consumer, x),
    }
}

/// Why a scan stopped before the chunk's end.
enum Stop {
    /// A line the scanner does not take: the chunk goes to the line parser.
    Line,
    /// The event consumer gave the chunk up.
    Consumer,
}

/// A chunk of E/X text and a scanner for it, handed to a sink's
/// [`ChunkWork::scan`](super::super::ChunkWork::scan) so that it
/// can run the scanner with its own (statically dispatched) consumer.
pub struct TextScan<'a> {
    scanner: &'a mut Parser,
    bytes: &'a [u8],
    out: FastChunk,
}

/// What [`TextScan`] made of a chunk (opaque outside the E/X reader).
pub struct TextScanned(pub(crate) Option<FastChunk>);

impl<'a> TextScan<'a> {
    /// `bytes` to be scanned by `scanner` into `out`'s buffers.
    pub(crate) fn new(scanner: &'a mut Parser, bytes: &'a [u8], out: FastChunk) -> Self {
        TextScan {
            scanner,
            bytes,
            out,
        }
    }

    /// Scans the chunk, feeding every event to `consumer` instead of
    /// storing it, and attaches `finish(consumer)` as the chunk's summary.
    /// When the consumer gives up, the chunk is scanned again with its
    /// events stored, for the sequential path (rare: exits that depend on
    /// the stack below the chunk).
    pub fn run<C: EventConsumer>(
        self,
        consumer: &mut C,
        finish: impl FnOnce(&mut C) -> Box<dyn Any + Send>,
    ) -> TextScanned {
        match self.scanner.scan_with(self.bytes, self.out, consumer) {
            Ok(mut chunk) => {
                chunk.local.summary = Some(finish(consumer));
                TextScanned(Some(chunk))
            }
            Err(Stop::Line) => TextScanned(None),
            Err(Stop::Consumer) => TextScanned(self.scanner.scan(self.bytes, FastChunk::default())),
        }
    }

    /// Scans the chunk storing its events, then attaches what `summarise`
    /// makes of them.
    pub fn then_summarise(
        self,
        summarise: impl FnOnce(&[Event]) -> Option<Box<dyn Any + Send>>,
    ) -> TextScanned {
        let mut chunk = self.scanner.scan(self.bytes, self.out);
        if let Some(c) = chunk.as_mut() {
            c.local.summary = summarise(&c.local.events);
        }
        TextScanned(chunk)
    }
}

impl Parser {
    /// Scans a chunk, reusing `out`'s buffers; None when the chunk has a
    /// line the scanner does not take.
    pub(crate) fn scan(&mut self, b: &[u8], mut out: FastChunk) -> Option<FastChunk> {
        let mut events = std::mem::take(&mut out.local.events);
        events.clear();
        let mut chunk = self.scan_with(b, out, &mut events).ok()?;
        chunk.local.events = events;
        Some(chunk)
    }

    /// Scans a chunk, reusing `out`'s buffers (but not its events), and
    /// hands each event to `consumer`.
    #[inline(always)]
    fn scan_with<C: EventConsumer>(
        &mut self,
        b: &[u8],
        mut out: FastChunk,
        consumer: &mut C,
    ) -> Result<FastChunk, Stop> {
        self.slots.fill(Slot::default());
        self.tid = TidCache::default();
        self.tid_index.clear();
        self.last_thread = None;
        self.addr_index.clear();
        self.last_key = ((u64::MAX, u64::MAX), 0);
        self.name_index.clear();
        out.local.clear();
        out.columns = None;
        let mut lines = 0u64;
        let mut i = 0;
        while i < b.len() {
            // Runs of lines of the predicted shape, once the chunk's first
            // event line said the trace has the shape's columns.
            if self.symbolic
                && let Some((t, th, _)) = out.columns
            {
                let (next, n) = match (t, th) {
                    (false, _) => self.run_names::<0, C>(b, i, &mut out.local, consumer)?,
                    (true, false) => self.run_names::<1, C>(b, i, &mut out.local, consumer)?,
                    (true, true) => self.run_names::<2, C>(b, i, &mut out.local, consumer)?,
                };
                lines += n;
                i = next;
                if i >= b.len() {
                    break;
                }
            } else if let (Some(sh), Some((t, th, _))) = (self.shape, out.columns)
                && sh.cols == t as u8 + th as u8
            {
                let (next, n) = match sh.cols {
                    0 => self.run::<0, C>(&sh, b, i, &mut out.local, consumer)?,
                    1 => self.run::<1, C>(&sh, b, i, &mut out.local, consumer)?,
                    _ => self.run::<2, C>(&sh, b, i, &mut out.local, consumer)?,
                };
                lines += n;
                i = next;
                if i >= b.len() {
                    break;
                }
            }
            let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
            if !matches!(b[i], b'E' | b'X') {
                if !skippable(&b[i..end]) {
                    return Err(Stop::Line);
                }
            } else {
                let (e, cols) = self
                    .event_line(b, i, end, &mut out.local)
                    .ok_or(Stop::Line)?;
                match out.columns {
                    Some((t, th, _)) if (t, th) != cols => return Err(Stop::Line),
                    Some(_) => {}
                    None => out.columns = Some((cols.0, cols.1, lines)),
                }
                if !consumer.event(e) {
                    return Err(Stop::Consumer);
                }
                if !self.symbolic {
                    self.shape = Shape::of(&b[i..end]).or(self.shape);
                }
            }
            i = end + 1;
            lines += 1;
        }
        // The last line of a chunk may end it without a line end.
        if b.last().is_some_and(|&c| c != b'\n') {
            lines -= 1;
        }
        out.lines = lines;
        Ok(out)
    }
}

/// The length of a cache key's text: its nonzero bytes.
fn key_len(key: (u64, u64)) -> usize {
    let bytes = |w: u64| 8 - w.leading_zeros() as usize / 8;
    if key.1 == 0 {
        bytes(key.0)
    } else {
        8 + bytes(key.1)
    }
}

/// Whether a line that is not an event (without its `\n`) is a blank line
/// or a comment other than the `# base` and `# map` headers.
fn skippable(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.is_empty() || (line[0] == b'#' && !is_header(line))
}

#[cfg(test)]
mod tests;
