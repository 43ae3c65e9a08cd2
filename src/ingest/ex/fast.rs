//! The fast E/X scanner that worker threads run on whole chunks: one pass
//! over the bytes, parsing while scanning, for the lines our runtime and
//! `instrument.c` write (`E0x401136`, `E0x401136 1234`, `E0x401136 1234 77`,
//! with `\n` or `\r\n`, blank lines and comments other than the `# base`
//! and `# map` headers).
//! Functions and threads get chunk-local ids, which the in-order consumer
//! (`seq`) maps to global ones in event order. Anything else, including
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

use super::super::chunked::LocalEvents;
use super::super::funcs::NameIndex;
use super::super::prefetch::{AHEAD, prefetch};
use super::super::{Event, EventConsumer, EventKind};
use super::digits::{
    WINDOW, any_non_digit, below_bang, dec, eight, four, hex, hex_key, u128_at, window, word,
    word_at,
};
use super::seq::is_header;

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
pub(crate) struct Scanner {
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
    /// and first and last words ([`Scanner::long_name`]).
    long_slots: Box<[u32; LONG_SLOTS]>,
    /// The predicted shape of the columns after the next symbolic line's name.
    tail_shape: Option<Shape>,
    /// The shapes of symbolic lines for `tail_shape`, by name length.
    name_shapes: Option<Box<NameShapes>>,
    /// The last thread id [`Scanner::thread`] looked up, and its local index.
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

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
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

impl Scanner {
    /// A scanner for E/X lines with function names (`symbolic`) or
    /// addresses: the chunks it reads have either, never both.
    pub fn new(symbolic: bool) -> Self {
        Scanner {
            symbolic,
            ..Scanner::default()
        }
    }
}

/// Where the fields of a line `[EX]0x<hex>[ <time>[ <tid>]][\r]\n` are,
/// as offsets from its first byte, and the masks reading them takes:
/// worked out once for a run of lines of the same shape rather than for
/// every line. Only shapes whose line fits a window's first 64 bytes are
/// kept (up to 15 hex digits, 16 timestamp digits, 8 thread id digits).
#[derive(Clone, Copy, Default)]
struct Shape {
    /// Columns after the address: 0 (`instrument.c`), 1 (timestamp) or 2
    /// (timestamp and thread id).
    cols: u8,
    /// The byte after the address: a space, or the line end without columns.
    sp1: usize,
    /// The space after the timestamp (two columns only).
    sp2: usize,
    /// The two bytes ending with the line end, masked, and what they must be
    /// (`\r\n`, or a digit and `\n`).
    end: (usize, u16, u16),
    /// Masks keeping the address digits of the words at 3 and 11.
    key_mask: (u64, u64),
    /// For lines read from a window that starts after the line does (the
    /// columns after a symbolic line's name): the timestamp's 16 bytes
    /// shift left by this to end at the top byte...
    time_shift: u32,
    /// ...and get these `0`s shifted in below them.
    time_pad: u128,
    /// Where the two words ending at the timestamp's end start: the
    /// timestamp, left-padded with `0`s to 16 digits, is the first masked
    /// and padded with `time_hi`, then the second with `time_lo`. Two
    /// loads at fixed offsets instead of a 16-byte load and a shift by a
    /// variable count.
    time_at: (usize, usize),
    /// (keep mask, `0` padding) of the word at `time_at.0`...
    time_hi: (u64, u64),
    /// ...and of the word at `time_at.1`.
    time_lo: (u64, u64),
    /// The same for the thread id, in 8 bytes.
    tid_mask: u64,
    tid_shift: u32,
    tid_pad: u64,
}

/// The low `n` (0 to 8) bytes of a u64 set.
fn low_bytes(n: usize) -> u64 {
    if n >= 8 { u64::MAX } else { (1 << (8 * n)) - 1 }
}

impl Shape {
    /// The shape of the event line `line` (without its `\n`), if it is one
    /// that fits.
    fn of(line: &[u8]) -> Option<Shape> {
        let (body, cr) = match line.strip_suffix(b"\r") {
            Some(body) => (body, true),
            None => (line, false),
        };
        let mut fields = body.split(|&c| c == b' ');
        let a = fields.next()?;
        let t = fields.next();
        let th = fields.next();
        if fields.next().is_some() || a.len() < 4 {
            return None;
        }
        Shape::fields(a.len() - 3, t, th, cr).filter(Shape::words_fit)
    }

    /// Whether the timestamp's words start within the line (see
    /// [`Shape::time_at`]).
    fn words_fit(&self) -> bool {
        self.time_at.0 < 64 && self.time_at.1 < 64
    }

    /// The shape of the columns after a symbolic line's name (`tail`: from
    /// the name's end to the line end, without the `\n`), as if the line
    /// were an address line with a zero-digit address: offsets are from
    /// three bytes before the name's end.
    fn of_tail(tail: &[u8]) -> Option<Shape> {
        let (body, cr) = match tail.strip_suffix(b"\r") {
            Some(body) => (body, true),
            None => (tail, false),
        };
        if body.is_empty() {
            return Shape::fields(0, None, None, cr);
        }
        let mut fields = body.strip_prefix(b" ")?.split(|&c| c == b' ');
        let t = fields.next();
        let th = fields.next();
        if fields.next().is_some() {
            return None;
        }
        Shape::fields(0, t, th, cr)
    }

    /// The shape of a symbolic line whose name has `len` bytes (1 to 15)
    /// and whose columns after it have the shape `tail` (see
    /// [`Shape::of_tail`]), if the line fits a window's first 64 bytes: its
    /// separators are where an address line's with `len - 1` digits are,
    /// and its key masks keep the `len` bytes of the name, which starts a
    /// byte earlier, at 2.
    fn with_name(tail: &Shape, len: usize) -> Option<Shape> {
        let shift = len.checked_sub(1)?;
        if len > 15 || tail.end.0 + shift + 1 >= 64 {
            return None;
        }
        Some(Shape {
            sp1: tail.sp1 + shift,
            sp2: tail.sp2 + shift,
            time_at: (
                tail.time_at.0.wrapping_add(shift),
                tail.time_at.1.wrapping_add(shift),
            ),
            end: (tail.end.0 + shift, tail.end.1, tail.end.2),
            key_mask: (low_bytes(len), low_bytes(len.saturating_sub(8))),
            ..*tail
        })
        .filter(Shape::words_fit)
    }

    /// The shape of a line with `hex` address digits, columns `t` and `th`
    /// and a `\r` before its `\n` if `cr`.
    fn fields(hex: usize, t: Option<&[u8]>, th: Option<&[u8]>, cr: bool) -> Option<Shape> {
        let time = t.map_or(0, <[u8]>::len);
        let tid = th.map_or(0, <[u8]>::len);
        if hex > 15
            || time > 16
            || tid > 8
            || (t.is_some() && time == 0)
            || (th.is_some() && tid == 0)
        {
            return None;
        }
        let cols = t.is_some() as u8 + th.is_some() as u8;
        let sp1 = 3 + hex;
        let sp2 = sp1 + 1 + time;
        // The byte after the last field.
        let after = match cols {
            0 => sp1,
            1 => sp2,
            _ => sp2 + 1 + tid,
        };
        let end = if cr {
            (after, u16::MAX, u16::from_le_bytes(*b"\r\n"))
        } else {
            (after - 1, 0xff00, u16::from_le_bytes([0, b'\n']))
        };
        let zeros = u64::from_le_bytes([b'0'; 8]);
        // The timestamp's words: its last 8 digits (fewer, `0`-padded) end
        // at sp2, and the ones before them (if any) 8 bytes earlier. For a
        // symbolic line's columns these offsets may be "negative" (wrapped)
        // until `with_name` adds the name's length; `words_fit` tells.
        let (hi_digits, lo_digits) = (time.saturating_sub(8), time.min(8));
        let time_at = match time {
            0 => (0, 0),
            1..=8 => (sp2.wrapping_sub(8), sp2.wrapping_sub(8)),
            _ => (sp2.wrapping_sub(16), sp2.wrapping_sub(8)),
        };
        let time_hi = (!low_bytes(8 - hi_digits), zeros & low_bytes(8 - hi_digits));
        let time_lo = (!low_bytes(8 - lo_digits), zeros & low_bytes(8 - lo_digits));
        // Masks for absent columns are never used; keep their shifts in range.
        let (time, tid) = (time.max(1), tid.max(1));
        Some(Shape {
            cols,
            sp1,
            sp2,
            end,
            key_mask: (low_bytes(hex), low_bytes(hex.saturating_sub(8))),
            time_shift: 8 * (16 - time) as u32,
            time_pad: u128::from_le_bytes([b'0'; 16]) & ((1u128 << (8 * (16 - time))) - 1),
            time_at,
            time_hi,
            time_lo,
            tid_mask: low_bytes(tid),
            tid_shift: 8 * (8 - tid) as u32,
            tid_pad: zeros & low_bytes(8 - tid),
        })
    }
}

/// The shape of a symbolic line for each name length (1 to 15 bytes),
/// from the shape of the columns after its name.
#[derive(Default)]
struct NameShapes {
    /// Indexed by the name's length; only those `fits` has are meant.
    by_len: [Shape; 16],
    /// Bit `n` set: a line whose name has `n` bytes has the shape
    /// `by_len[n]` (it fits a window's first 64 bytes).
    fits: u32,
    /// The columns `by_len` was worked out for; None: not yet.
    cols: Option<u8>,
}

impl NameShapes {
    /// The shapes of lines with `COLS` columns after the name, shaped as
    /// `tail` ([`Shape::of_tail`]); none when there is no such tail.
    fn new<const COLS: u8>(tail: Option<&Shape>) -> Self {
        let mut shapes = NameShapes {
            by_len: [Shape::default(); 16],
            fits: 0,
            cols: Some(COLS),
        };
        for len in 1..16 {
            if let Some(sh) = tail
                .filter(|t| t.cols == COLS)
                .and_then(|t| Shape::with_name(t, len))
            {
                shapes.by_len[len] = sh;
                shapes.fits |= 1 << len;
            }
        }
        shapes
    }
}

/// Four `0` digits as a little-endian word.
const ZEROS4: u32 = u32::from_le_bytes(*b"0000");

/// The cache entry of [`Scanner::time_high`] for a timestamp whose first 8
/// digits are `high` and next 4 are `mid` (the low half of the word): None
/// when any is not a digit.
#[cold]
fn time_high(high: u64, mid: u64) -> Option<(u64, u64, u64)> {
    if any_non_digit(high) | any_non_digit(mid | u64::from(ZEROS4) << 32) {
        return None;
    }
    let value = eight(high) * 100_000_000 + eight(mid << 32) * 10_000;
    Some((high, mid, value))
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
/// [`ChunkWork::scan_text`](super::super::ChunkWork::scan_text) so that it
/// can run the scanner with its own (statically dispatched) consumer.
pub struct TextScan<'a> {
    scanner: &'a mut Scanner,
    bytes: &'a [u8],
    out: FastChunk,
}

/// What [`TextScan`] made of a chunk (opaque outside the E/X reader).
pub struct TextScanned(pub(crate) Option<FastChunk>);

impl<'a> TextScan<'a> {
    /// `bytes` to be scanned by `scanner` into `out`'s buffers.
    pub(crate) fn new(scanner: &'a mut Scanner, bytes: &'a [u8], out: FastChunk) -> Self {
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

impl Scanner {
    /// Scans a chunk, reusing `out`'s buffers; None when the chunk has a
    /// line the scanner does not take.
    pub fn scan(&mut self, b: &[u8], mut out: FastChunk) -> Option<FastChunk> {
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

    /// Reads the run of lines of shape `sh` (with `COLS` columns) that
    /// starts at `i`, handing their events to `consumer`: where the run
    /// ends and how many lines it had.
    #[inline(always)]
    fn run<const COLS: u8, C: EventConsumer>(
        &mut self,
        sh: &Shape,
        b: &[u8],
        mut i: usize,
        local: &mut LocalEvents,
        consumer: &mut C,
    ) -> Result<(usize, u64), Stop> {
        // Without a thread column every event is thread 0's, which the
        // chunk's first event line has already given a local index.
        let thread0 = if COLS < 2 {
            self.thread(0, &mut local.tids)
        } else {
            0
        };
        let mut lines = 0;
        // The last line start with a whole window after it: one compare a
        // line, which also spares `window` its own bounds check.
        let Some(last) = b.len().checked_sub(WINDOW) else {
            return Ok((i, 0));
        };
        while i <= last
            && let Some(win) = window(b, i)
            && let Some((e, next)) = self.predicted::<COLS>(sh, win, b, i, thread0, local)
        {
            prefetch(b, i + AHEAD);
            // An entry whose exit is the next line, a leaf call, goes to
            // the consumer as one: most calls are leaves.
            if e.kind == EventKind::Enter
                && next <= last
                && let Some(win) = window(b, next)
                && let Some((x, after)) = self.predicted::<COLS>(sh, win, b, next, thread0, local)
            {
                if !take_two::<COLS, C>(consumer, e, x) {
                    return Err(Stop::Consumer);
                }
                lines += 2;
                i = after;
                continue;
            }
            if !take_one::<COLS, C>(consumer, e) {
                return Err(Stop::Consumer);
            }
            lines += 1;
            i = next;
        }
        Ok((i, lines))
    }

    /// The line at `i` (whose window is `win`) if it has the shape `sh`
    /// (with `COLS` columns): its event and where the next line starts.
    /// None when the prediction does not hold (or the line is not an
    /// event), which the general path then sorts out. `thread0` is the
    /// local index of thread 0, for lines without a thread column.
    #[inline(always)]
    fn predicted<const COLS: u8>(
        &mut self,
        sh: &Shape,
        win: &[u8; WINDOW],
        b: &[u8],
        i: usize,
        thread0: u32,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize)> {
        // One branch for all the checks (`&`, not `&&`): entries and exits
        // alternate irregularly, so a branch on the letter would mispredict.
        // The letter and `0x` (`0X` too: `| 0x20` lowers the `X`) as one word.
        let head = u32::from_le_bytes([win[0], win[1], win[2], 0]) | 0x0020_0000;
        let enter = head == u32::from_le_bytes(*b"E0x\0");
        let ok =
            (enter | (head == u32::from_le_bytes(*b"X0x\0"))) & Self::tail_fits::<COLS>(sh, win);
        if !ok {
            return None;
        }
        let key = (
            word_at(win, 3) & sh.key_mask.0,
            word_at(win, 11) & sh.key_mask.1,
        );
        let func = match self.known(key) {
            Some(id) => id,
            None => self.miss(b, i + 3, key, &mut local.addrs)?,
        };
        let (time, thread) = self.tail::<COLS, true>(sh, win, thread0, &mut local.tids)?;
        let e = Event {
            time,
            func,
            thread,
            kind: kind(enter),
        };
        Some((e, i + sh.end.0 + 2))
    }

    /// Whether the separators and the line end of `win` are where `sh`
    /// (with `COLS` columns) puts them.
    #[inline(always)]
    fn tail_fits<const COLS: u8>(sh: &Shape, win: &[u8; WINDOW]) -> bool {
        // One mask for both bytes, so that they are read as one u16.
        let e = sh.end.0 & 63;
        let end = u16::from_le_bytes([win[e], win[e + 1]]);
        (COLS == 0 || win[sh.sp1 & 63] == b' ')
            & (COLS < 2 || win[sh.sp2 & 63] == b' ')
            & (end & sh.end.1 == sh.end.2)
    }

    /// The timestamp and local thread of a line of shape `sh` (with `COLS`
    /// columns) whose separators [`Scanner::tail_fits`] checked; None when
    /// a column has something else than digits. `WORDS`: `win` starts at
    /// the line, so the timestamp is read as two words
    /// ([`Shape::time_at`]); else as 16 bytes after `sh.sp1`, shifted.
    #[inline(always)]
    fn tail<const COLS: u8, const WORDS: bool>(
        &mut self,
        sh: &Shape,
        win: &[u8; WINDOW],
        thread0: u32,
        tids: &mut Vec<u64>,
    ) -> Option<(u64, u32)> {
        let time = if COLS == 0 {
            0
        } else {
            // The timestamp as 16 digits whichever its length: its first
            // 8 and its last 8.
            let (high, low) = if WORDS {
                (
                    (word_at(win, sh.time_at.0) & sh.time_hi.0) | sh.time_hi.1,
                    (word_at(win, sh.time_at.1) & sh.time_lo.0) | sh.time_lo.1,
                )
            } else {
                let t = (u128_at(win, sh.sp1 + 1) << sh.time_shift) | sh.time_pad;
                (t as u64, (t >> 64) as u64)
            };
            let (mid, last) = (low & 0xffff_ffff, (low >> 32) as u32);
            if (high != self.time_high.0) | (mid != self.time_high.1) {
                self.time_high = time_high(high, mid)?;
            }
            if any_non_digit(u64::from(last) | u64::from(ZEROS4) << 32) {
                return None;
            }
            self.time_high.2 + four(last)
        };
        let thread = if COLS < 2 {
            thread0
        } else {
            let text = word_at(win, sh.sp2 + 1) & sh.tid_mask;
            if text != self.tid.text {
                self.new_tid(sh, text, tids)?;
            }
            self.tid.local
        };
        Some((time, thread))
    }

    /// Reads the thread id text `text` of a predicted line (another
    /// thread's, the cache says) into the cache.
    #[cold]
    fn new_tid(&mut self, sh: &Shape, text: u64, tids: &mut Vec<u64>) -> Option<()> {
        let digits = (text << sh.tid_shift) | sh.tid_pad;
        if any_non_digit(digits) {
            return None;
        }
        let local = self.thread(eight(digits), tids);
        self.tid = TidCache { text, local };
        Some(())
    }

    /// Reads the event line `b[i..end]` (`end` is its line end):
    /// `[EX]0x<hex>[ <dec>[ <dec>]]`, optionally followed by `\r`, and
    /// which of the two columns it has. Fields are read from `b` as a whole
    /// (8 bytes at a time) and then checked to end within the line.
    fn event_line(
        &mut self,
        b: &[u8],
        i: usize,
        end: usize,
        local: &mut LocalEvents,
    ) -> Option<(Event, (bool, bool))> {
        let kind = if b[i] == b'E' {
            EventKind::Enter
        } else {
            EventKind::Exit
        };
        let glued = b.get(i + 1) == Some(&b'0') && matches!(b.get(i + 2), Some(b'x' | b'X'));
        // A chunk has either addresses or names (local ids index one of
        // the two lists), and a trace of addresses no names at all.
        let (func, mut j) = match (self.symbolic, glued) {
            (false, true) => self.func(b, i + 3, &mut local.addrs)?,
            (true, false) if b.get(i + 1) == Some(&b' ') => {
                self.name(b, i + 2, end, &mut local.names)?
            }
            _ => return None,
        };
        let (mut time, mut tid) = (None, None);
        if b.get(j) == Some(&b' ') {
            let (t, k) = dec(b, j + 1)?;
            time = Some(t);
            j = k;
            if b.get(j) == Some(&b' ') {
                let (t, k) = dec(b, j + 1)?;
                tid = Some(t);
                j = k;
            }
        }
        if !matches!(b.get(j..end)?, [] | [b'\r']) {
            return None;
        }
        let e = Event {
            time: time.unwrap_or(0),
            func,
            thread: self.thread(tid.unwrap_or(0), &mut local.tids),
            kind,
        };
        Some((e, (time.is_some(), tid.is_some())))
    }

    /// The chunk-local id of the function name that starts at `j` (and
    /// ends before a space or the line end at `end`), and where it ends.
    /// Names that the line parser would read otherwise (`0x...` tokens,
    /// control bytes) are left to it.
    fn name(
        &mut self,
        b: &[u8],
        j: usize,
        end: usize,
        names: &mut Vec<String>,
    ) -> Option<(u32, usize)> {
        let line = b.get(j..end)?;
        let len = line.iter().position(|&c| c <= b' ').unwrap_or(line.len());
        let name = &line[..len];
        if name.is_empty()
            || name.starts_with(b"0x")
            || name.starts_with(b"0X")
            || !matches!(line.get(len), None | Some(b' ' | b'\r'))
        {
            return None;
        }
        Some((self.name_id(name, names), j + len))
    }

    /// The chunk-local id of function name `name`.
    fn name_id(&mut self, name: &[u8], names: &mut Vec<String>) -> u32 {
        // Names are kept as text (invalid UTF-8 replaced), and found by it.
        let text = String::from_utf8_lossy(name);
        if let Some(id) = self.name_index.find(name, |id| names[id as usize] == *text) {
            return id;
        }
        let id = names.len() as u32;
        names.push(text.into_owned());
        self.name_index.insert(NameIndex::hash(name), id);
        id
    }

    /// Reads the run of symbolic event lines with `COLS` columns that
    /// starts at `i`, as [`Scanner::run`] does for address lines.
    #[inline(always)]
    fn run_names<const COLS: u8, C: EventConsumer>(
        &mut self,
        b: &[u8],
        i: usize,
        local: &mut LocalEvents,
        consumer: &mut C,
    ) -> Result<(usize, u64), Stop> {
        let thread0 = if COLS < 2 {
            self.thread(0, &mut local.tids)
        } else {
            0
        };
        // The predicted columns after the name, and the whole line's shape
        // for each name length (a `Shape` is about a hundred bytes): kept
        // across runs, worked out again when a line gives new columns.
        let mut shapes = self.name_shapes.take().unwrap_or_default();
        if shapes.cols != Some(COLS) {
            *shapes = NameShapes::new::<COLS>(self.tail_shape.as_ref());
        }
        let run = self.run_shaped::<COLS, C>(&mut shapes, b, i, thread0, local, consumer);
        self.name_shapes = Some(shapes);
        run
    }

    /// [`Scanner::run_names`] with the shapes of its lines.
    #[inline(always)]
    fn run_shaped<const COLS: u8, C: EventConsumer>(
        &mut self,
        shapes: &mut NameShapes,
        b: &[u8],
        mut i: usize,
        thread0: u32,
        local: &mut LocalEvents,
        consumer: &mut C,
    ) -> Result<(usize, u64), Stop> {
        let mut lines = 0;
        let mut tail = self.tail_shape;
        // The last line's name length, text and id: the next line most
        // often has a name of the same length (the same name, for a leaf's
        // exit), and is tried at that shape first, so that where it ends
        // is known before it is read, as for address lines.
        let mut last: Option<(usize, (u64, u64), u32)> = None;
        // Where the last line's name starts, its length and id, when it
        // was a long one: a leaf's exit repeats it.
        let mut last_long: Option<(usize, usize, u32)> = None;
        loop {
            let (e, next) = if let Some((len, key, id)) = &mut last
                && let Some(line) =
                    self.same_length::<COLS>(&shapes.by_len[*len], key, id, b, i, thread0, local)
            {
                line
            } else if let Some((e, next, len, key)) =
                self.any_name::<COLS>(shapes, b, i, thread0, local)
            {
                last = Some((len, key, e.func));
                last_long = None;
                (e, next)
            } else {
                last = None;
                let Some((e, next, new_shape, long)) =
                    self.named::<COLS>(b, i, thread0, &tail, local)
                else {
                    break;
                };
                if new_shape {
                    tail = self.tail_shape;
                    *shapes = NameShapes::new::<COLS>(tail.as_ref());
                }
                last_long = long.map(|len| (i + 2, len, e.func));
                (e, next)
            };
            prefetch(b, i + AHEAD);
            // A leaf's exit line is the next one, with its entry's name.
            if e.kind == EventKind::Enter
                && let Some((len, key, id)) = &mut last
                && let Some((x, after)) =
                    self.same_length::<COLS>(&shapes.by_len[*len], key, id, b, next, thread0, local)
            {
                if !take_two::<COLS, C>(consumer, e, x) {
                    return Err(Stop::Consumer);
                }
                lines += 2;
                i = after;
                continue;
            }
            if e.kind == EventKind::Enter
                && let Some(name) = last_long
                && let Some((x, after, new_shape)) =
                    self.same_long::<COLS>(b, next, name, thread0, &tail, local)
            {
                if new_shape {
                    tail = self.tail_shape;
                    *shapes = NameShapes::new::<COLS>(tail.as_ref());
                }
                if !take_two::<COLS, C>(consumer, e, x) {
                    return Err(Stop::Consumer);
                }
                lines += 2;
                i = after;
                continue;
            }
            if !take_one::<COLS, C>(consumer, e) {
                return Err(Stop::Consumer);
            }
            lines += 1;
            i = next;
        }
        Ok((i, lines))
    }

    /// The symbolic line at `i` if its name has 1 to 15 bytes and the
    /// columns after it are where `shapes` puts them for a name of that
    /// length: its event and where the next line starts. The name's
    /// length comes from the window's words, without a byte loop, so that
    /// where the line ends is known a few instructions after it is
    /// loaded. None when it does not hold, which [`Scanner::named`] then
    /// sorts out.
    #[inline(always)]
    fn any_name<const COLS: u8>(
        &mut self,
        shapes: &NameShapes,
        b: &[u8],
        i: usize,
        thread0: u32,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize, usize, (u64, u64))> {
        let win = window(b, i)?;
        let head = u16::from_le_bytes([win[0], win[1]]);
        let enter = head == u16::from_le_bytes(*b"E ");
        let (w0, w1) = (word_at(win, 2), word_at(win, 10));
        let n0 = below_bang(w0);
        let len = if n0 < 8 { n0 } else { 8 + below_bang(w1) };
        let sh = &shapes.by_len[len & 15];
        // `0x...` is an address token to the line parser.
        let hex_prefix = (w0 as u16 | 0x2000) == u16::from_le_bytes(*b"0x");
        let ok = (enter | (head == u16::from_le_bytes(*b"X ")))
            & (shapes.fits >> len & 1 == 1)
            & !hex_prefix
            & Self::tail_fits::<COLS>(sh, win);
        if !ok {
            return None;
        }
        let key = (w0 & sh.key_mask.0, w1 & sh.key_mask.1);
        let func = match self.known(key) {
            Some(id) => id,
            None => self.new_name(key, &win[2..2 + len], &mut local.names),
        };
        let (time, thread) = self.tail::<COLS, true>(sh, win, thread0, &mut local.tids)?;
        let e = Event {
            time,
            func,
            thread,
            kind: kind(enter),
        };
        Some((e, i + sh.end.0 + 2, len, key))
    }

    /// The symbolic line at `i` if it has the shape `sh` (with `COLS`
    /// columns) of the last line, whose name text and id are `key` and
    /// `id` (updated when this line has another name of the same length):
    /// its event and where the next line starts. None when it has not,
    /// which [`Scanner::named`] then sorts out.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn same_length<const COLS: u8>(
        &mut self,
        sh: &Shape,
        key: &mut (u64, u64),
        id: &mut u32,
        b: &[u8],
        i: usize,
        thread0: u32,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize)> {
        let win = window(b, i)?;
        let head = u16::from_le_bytes([win[0], win[1]]);
        let enter = head == u16::from_le_bytes(*b"E ");
        let ok = (enter | (head == u16::from_le_bytes(*b"X "))) & Self::tail_fits::<COLS>(sh, win);
        if !ok {
            return None;
        }
        let text = (
            word_at(win, 2) & sh.key_mask.0,
            word_at(win, 10) & sh.key_mask.1,
        );
        if text != *key {
            *id = self.other_name(b, i + 2, (text, sh.sp1 - 2), local)?;
            *key = text;
        }
        let (time, thread) = self.tail::<COLS, true>(sh, win, thread0, &mut local.tids)?;
        let e = Event {
            time,
            func: *id,
            thread,
            kind: kind(enter),
        };
        Some((e, i + sh.end.0 + 2))
    }

    /// The local id of the name at `j` whose text, read at the predicted
    /// length, is `predicted`; None unless that is the whole name (no byte
    /// below `!` in it, so not a shorter one padded with NULs) and not an
    /// address.
    #[cold]
    fn other_name(
        &mut self,
        b: &[u8],
        j: usize,
        predicted: NameText,
        local: &mut LocalEvents,
    ) -> Option<u32> {
        let (key, len) = hex_key(b, j)?;
        if (key, len) != predicted || (key.0 as u16 | 0x2000) == u16::from_le_bytes(*b"0x") {
            return None;
        }
        Some(match self.known(key) {
            Some(id) => id,
            None => self.new_name(key, &b[j..j + len], &mut local.names),
        })
    }

    /// The local id of the name `name` (text `key`) that the cache does not
    /// have, cached.
    #[cold]
    fn new_name(&mut self, key: (u64, u64), name: &[u8], names: &mut Vec<String>) -> u32 {
        let id = self.name_id(name, names);
        self.remember(key, id)
    }

    /// The symbolic event line at `i` with exactly `COLS` columns
    /// (`E main 120 1`, single spaces): its event, where the next line
    /// starts, whether its columns had a new shape and, for a name of 16
    /// bytes or more, its length. Names of up to 15
    /// bytes are cached by their text, like addresses; longer ones (C++
    /// names, mangled or not) by their length and end words
    /// ([`Scanner::long_name`]). None for anything else, which the general
    /// path then sorts out.
    #[inline(always)]
    fn named<const COLS: u8>(
        &mut self,
        b: &[u8],
        i: usize,
        thread0: u32,
        shape: &Option<Shape>,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize, bool, Option<usize>)> {
        let win = window(b, i)?;
        let enter = win[0] == b'E';
        if !((enter | (win[0] == b'X')) & (win[1] == b' ')) {
            return None;
        }
        let (func, len) = match hex_key(b, i + 2) {
            Some((key, len)) => {
                // `0x...` is an address token to the line parser.
                if (key.0 as u16 | 0x2000) == u16::from_le_bytes(*b"0x") {
                    return None;
                }
                let func = match self.known(key) {
                    Some(id) => id,
                    None => self.new_name(key, &win[2..2 + len], &mut local.names),
                };
                (func, len)
            }
            None => self.long_name(b, i + 2, &mut local.names)?,
        };
        let (e, next, new_shape) =
            self.after_name::<COLS>(b, i + 2 + len, func, kind(enter), thread0, shape, local)?;
        Some((e, next, new_shape, (len > 15).then_some(len)))
    }

    /// The exit line at `i` if its name is the `len` bytes at `at`, the
    /// name of the entry before it, whose local id is `func` (a leaf call
    /// of a function with a long name): its event, where the next line
    /// starts and whether its columns had a new shape. The name is
    /// compared in place, so that it needs no length or cache lookup.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn same_long<const COLS: u8>(
        &mut self,
        b: &[u8],
        i: usize,
        (at, len, func): (usize, usize, u32),
        thread0: u32,
        shape: &Option<Shape>,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize, bool)> {
        let j = i + 2;
        if b.get(i..j)? != b"X " || b.get(j..j + len)? != &b[at..at + len] {
            return None;
        }
        // A longer name fails the columns' checks after it.
        self.after_name::<COLS>(b, j + len, func, EventKind::Exit, thread0, shape, local)
    }

    /// The event of a symbolic line of function `func` and kind `kind`
    /// whose name ends at `j`, from the columns after it, read where the
    /// last line had them (`shape`) or else one by one: the event, where
    /// the next line starts and whether the columns had a new shape.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn after_name<const COLS: u8>(
        &mut self,
        b: &[u8],
        j: usize,
        func: u32,
        kind: EventKind,
        thread0: u32,
        shape: &Option<Shape>,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize, bool)> {
        if let Some(sh) = shape
            && sh.cols == COLS
        {
            let win = window(b, j - 3)?;
            if Self::tail_fits::<COLS>(sh, win)
                && let Some((time, thread)) =
                    self.tail::<COLS, false>(sh, win, thread0, &mut local.tids)
            {
                let e = Event {
                    time,
                    func,
                    thread,
                    kind,
                };
                return Some((e, j - 3 + sh.end.0 + 2, false));
            }
        }
        let (mut time, mut thread, mut k) = (0, thread0, j);
        if COLS > 0 {
            if b[k] != b' ' {
                return None;
            }
            (time, k) = dec(b, k + 1)?;
        }
        if COLS > 1 {
            if b[k] != b' ' {
                return None;
            }
            let (tid, after) = dec(b, k + 1)?;
            thread = self.thread(tid, &mut local.tids);
            k = after;
        }
        let next = match (b[k], b.get(k + 1)) {
            (b'\n', _) => k + 1,
            (b'\r', Some(b'\n')) => k + 2,
            _ => return None,
        };
        self.tail_shape = Shape::of_tail(&b[j..next - 1]);
        let e = Event {
            time,
            func,
            thread,
            kind,
        };
        Some((e, next, true))
    }

    /// The local id and length of the name of 16 bytes or more that starts
    /// at `j` (it ends at the first byte below `!`), if it ends within
    /// [`LONG_NAME`] bytes and before the chunk does. The cache slot of its
    /// length and first and last words holds the id it had last; the name
    /// is compared with that id's whole text, so a slot that another name
    /// took, or that a chunk before left, is only a miss.
    #[inline(always)]
    fn long_name(&mut self, b: &[u8], j: usize, names: &mut Vec<String>) -> Option<(u32, usize)> {
        let head = word(b, j)?;
        if below_bang(head) < 8 || (head as u16 | 0x2000) == u16::from_le_bytes(*b"0x") {
            return None;
        }
        // Words at fixed offsets, so that their loads do not wait for the
        // words before them.
        let mut at = 8;
        let len = loop {
            let n = below_bang(word(b, j + at)?);
            if n < 8 {
                break at + n;
            }
            at += 8;
            if at > LONG_NAME {
                return None;
            }
        };
        let name = &b[j..j + len];
        let last = word(b, j + len - 8)?;
        let slot = ((head ^ last.rotate_left(23) ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            >> 55) as usize
            % LONG_SLOTS;
        let id = self.long_slots[slot];
        if names
            .get(id as usize)
            .is_some_and(|known| known.as_bytes() == name)
        {
            return Some((id, len));
        }
        Some((self.new_long_name(slot, name, names), len))
    }

    /// The local id of the long name `name` that cache slot `slot` did not
    /// have, cached there.
    #[cold]
    fn new_long_name(&mut self, slot: usize, name: &[u8], names: &mut Vec<String>) -> u32 {
        let id = self.name_id(name, names);
        self.long_slots[slot] = id;
        id
    }

    /// The chunk-local id of the address whose hex digits start at `j`, and
    /// where they end. The digits' text is the cache key, so a known
    /// address costs two loads and a compare instead of a hex conversion.
    fn func(&mut self, b: &[u8], j: usize, addrs: &mut Vec<u64>) -> Option<(u32, usize)> {
        let Some((key, len)) = hex_key(b, j) else {
            // Near the chunk end or 16 digits: no caching.
            let (addr, end) = hex(b, j)?;
            return Some((self.local_addr(addr, addrs), end));
        };
        let id = self.lookup(key).or_else(|| self.miss(b, j, key, addrs))?;
        Some((id, j + len))
    }

    /// The cache slot of the address text `key`.
    #[inline(always)]
    fn slot(key: (u64, u64)) -> usize {
        ((key.0 ^ key.1.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize % SLOTS
    }

    /// The local id of the address or name text `key` of a predicted line,
    /// when the last line had it (a leaf's exit follows its entry, and
    /// needs no lookup) or the cache has it. Misses go to a cold function
    /// with plain arguments, which then calls [`Scanner::remember`]: a
    /// closure for them made the compiler build its captures on the stack
    /// for every line.
    #[inline(always)]
    fn known(&mut self, key: (u64, u64)) -> Option<u32> {
        if key == self.last_key.0 {
            return Some(self.last_key.1);
        }
        let id = self.lookup(key)?;
        self.last_key = (key, id);
        Some(id)
    }

    /// Caches the text `key` under local id `id`, as the last line's too.
    fn remember(&mut self, key: (u64, u64), id: u32) -> u32 {
        self.slots[Self::slot(key)] = Slot { key, id };
        self.last_key = (key, id);
        id
    }

    /// The local id of the address text `key`, if the cache has it.
    #[inline(always)]
    fn lookup(&self, key: (u64, u64)) -> Option<u32> {
        let slot = &self.slots[Self::slot(key)];
        (slot.key == key).then_some(slot.id)
    }

    /// Converts and checks the address text `key` (at `j`) that the cache
    /// does not have, and caches it under a new local id.
    #[cold]
    fn miss(&mut self, b: &[u8], j: usize, key: (u64, u64), addrs: &mut Vec<u64>) -> Option<u32> {
        let len = key_len(key);
        let (addr, end) = hex(b, j)?;
        if end != j + len {
            return None;
        }
        // A colliding address may have evicted this one: it keeps its id.
        let id = self.local_addr(addr, addrs);
        Some(self.remember(key, id))
    }

    /// The chunk-local id of address `addr`.
    fn local_addr(&mut self, addr: u64, addrs: &mut Vec<u64>) -> u32 {
        let next = addrs.len() as u32;
        let id = *self.addr_index.entry(addr).or_insert(next);
        if id == next {
            addrs.push(addr);
        }
        id
    }

    /// The chunk-local index of thread `tid`.
    fn thread(&mut self, tid: u64, tids: &mut Vec<u64>) -> u32 {
        if let Some((last, i)) = self.last_thread
            && last == tid
        {
            return i;
        }
        let next = tids.len() as u32;
        let i = *self.tid_index.entry(tid).or_insert(next);
        if i == next {
            tids.push(tid);
        }
        self.last_thread = Some((tid, i));
        i
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
mod tests {
    use super::*;

    fn scan(text: &str) -> Option<FastChunk> {
        Scanner::default().scan(text.as_bytes(), FastChunk::default())
    }

    #[test]
    fn reads_runtime_lines_with_local_ids() {
        let c = scan("# calltrace 1 text\nE0x10 5 7\r\nE0x20 6 9\n\nX0x20 8 9\nX0x10 9 7").unwrap();
        let events = c.local.events;
        let addrs: Vec<u64> = events
            .iter()
            .map(|e| c.local.addrs[e.func as usize])
            .collect();
        assert_eq!(addrs, [0x10, 0x20, 0x20, 0x10]);
        assert_eq!(c.local.tids, [7, 9]);
        assert_eq!(c.columns, Some((true, true, 1)));
        assert_eq!(c.lines, 5);
        let e = &events[2];
        assert_eq!((e.kind, e.thread, e.time), (EventKind::Exit, 1, 8));
    }

    #[test]
    fn gives_up_on_anything_unusual() {
        for text in [
            "# base 0x1000\nE0x10\n",
            "# map 0x1000 0x2000 0x0 - /bin/x\nE0x10\n",
            "E0x10 5\nE0x20\n",
            " E0x10\n",
            "E 0x10\n",
            "E0x10  5\n",
            "E0x10 5 6 7\n",
            "E0x10 5x\n",
            "E main\n",
            "E0x\n",
            "E0x10 99999999999999999999\n",
        ] {
            assert!(scan(text).is_none(), "{text:?}");
        }
        assert!(scan("# note\n\r\nE0x10\nX0X10\r").is_some());
    }

    #[test]
    fn an_address_keeps_one_local_id_whatever_the_cache_evicted() {
        // More addresses than cache slots: some evict others.
        let n = 3 * SLOTS;
        let mut text = String::new();
        for _ in 0..2 {
            for a in 0..n {
                text.push_str(&format!("E0x{:x}\n", 0x5555_0000_0000u64 + 16 * a as u64));
            }
        }
        let c = scan(&text).unwrap();
        assert_eq!(c.local.addrs.len(), n);
        let ids: Vec<u32> = c.local.events.iter().map(|e| e.func).collect();
        assert_eq!(ids[..n], ids[n..]);
    }

    #[test]
    fn reads_untimed_and_timestamp_only_lines() {
        for (text, time) in [
            ("E0x10\nE0x20\r\nX0x20\nX0x10\n", 0),
            ("E0x10 5\nE0x20 5\r\nX0x20 5\nX0x10 5\n", 5),
        ] {
            let text = text.repeat(50);
            let c = scan(&text).unwrap();
            assert_eq!(c.local.events.len(), 200);
            assert_eq!(c.local.addrs, [0x10, 0x20]);
            assert_eq!(c.local.tids, [0]);
            assert!(
                c.local
                    .events
                    .iter()
                    .all(|e| e.time == time && e.thread == 0)
            );
            assert_eq!(c.columns, Some((time > 0, false, 0)));
        }
    }

    #[test]
    fn predicted_timestamps_read_right_across_their_cached_leading_digits() {
        // 16-digit timestamps stepping over 4-, 8- and 12-digit borders, so
        // the cached leading digits change now and then; in every shape.
        let mut times = Vec::new();
        for base in [9_990u64, 99_999_990, 999_999_999_990, 1_234_567_899_999_990] {
            times.extend((0..40u64).map(|k| base + k));
        }
        for (symbolic, line) in [(false, "E0x10"), (false, "E0x401136"), (true, "E main")] {
            for tid in ["", " 7"] {
                let text: String = times.iter().map(|t| format!("{line} {t}{tid}\n")).collect();
                let c = Scanner::new(symbolic)
                    .scan(text.as_bytes(), FastChunk::default())
                    .unwrap();
                let got: Vec<u64> = c.local.events.iter().map(|e| e.time).collect();
                assert_eq!(got, times, "{line}{tid}");
            }
        }
        // A byte that is not a digit, in any place of a timestamp of a run
        // of predicted lines (and of the cached digits), is not taken.
        let line = "E0x10 1234567890123456\n";
        let good = line.repeat(30);
        for at in 0..16 {
            for bad in [b'/', b':', b'a', b' '] {
                let mut text = good.clone().into_bytes();
                // The timestamp of the 21st line.
                text[20 * line.len() + "E0x10 ".len() + at] = bad;
                assert!(
                    scan(std::str::from_utf8(&text).unwrap()).is_none(),
                    "{at} {bad}"
                );
            }
        }
    }

    #[test]
    fn lines_of_real_addresses_have_a_shape_whatever_their_timestamps_length() {
        // Timestamps are read as two words ending at their end, which must
        // start within the line: true from five address digits on.
        for len in 1..=16 {
            let time = "9".repeat(len);
            for line in [
                format!("E0x40113 {time}"),
                format!("X0x55d4c3a2b1c9 {time} 77\r"),
            ] {
                let sh = Shape::of(line.as_bytes());
                assert!(sh.is_some_and(|sh| sh.words_fit()), "{line}");
            }
        }
        // Where they cannot, the line has no shape (and is read field by field).
        assert!(Shape::of(b"E0x1 123456789").is_none());
        // A symbolic line's columns get a shape once its name is long enough.
        let tail = Shape::of_tail(b" 1234567890 7").unwrap();
        assert!(Shape::with_name(&tail, 1).is_none());
        assert!(Shape::with_name(&tail, 3).is_some());
    }

    #[test]
    fn a_reused_scanner_forgets_the_last_chunks_ids() {
        // Local ids are per chunk: the address of the last line of one chunk
        // must be looked up again in the next, where its id differs.
        for (symbolic, a, b, c, d) in [
            (false, "0x10", "0x20", "0x30", "0x40"),
            (true, "fa", "fb", "fc", "fd"),
        ] {
            let mut scanner = Scanner::new(symbolic);
            let sep = if symbolic { " " } else { "" };
            let line = |k: &str, f: &str| format!("{k}{sep}{f}\n");
            // `b` is the third address of the first chunk, the second of the
            // next (whose first line the general path reads).
            // A long comment at the end: predicted lines need 80 bytes ahead.
            let pad = format!("#{}\n", "-".repeat(100));
            let one = [
                line("E", a),
                line("E", c),
                line("E", b),
                line("X", b),
                pad.clone(),
            ]
            .concat();
            let two = [line("E", d), line("X", b), line("X", d), pad].concat();
            let first = scanner.scan(one.as_bytes(), FastChunk::default()).unwrap();
            let ids: Vec<u32> = first.local.events.iter().map(|e| e.func).collect();
            assert_eq!(ids, [0, 1, 2, 2], "symbolic {symbolic}");
            let second = scanner.scan(two.as_bytes(), FastChunk::default()).unwrap();
            let ids: Vec<u32> = second.local.events.iter().map(|e| e.func).collect();
            assert_eq!(ids, [0, 1, 0], "symbolic {symbolic}");
        }
    }

    #[test]
    fn reads_symbolic_lines_with_local_names() {
        let text = "E main 1 7\nE deflate 2 7\r\nX deflate 3 9\nX main 4 7\n".repeat(40);
        let c = Scanner::new(true)
            .scan(text.as_bytes(), FastChunk::default())
            .unwrap();
        assert_eq!(c.local.names, ["main", "deflate"]);
        assert!(c.local.addrs.is_empty());
        assert_eq!(c.local.tids, [7, 9]);
        let e = &c.local.events[2];
        assert_eq!(
            (e.kind, e.func, e.thread, e.time),
            (EventKind::Exit, 1, 1, 3)
        );
        // Addresses in a symbolic chunk, names in an address one: the line
        // parser reads the chunk.
        let mixed = Scanner::new(true).scan(b"E main 1 7\nE0x40 2 7\n", FastChunk::default());
        assert!(mixed.is_none());
        assert!(scan("E main 1 7\n").is_none());
    }

    #[test]
    fn symbolic_lines_with_names_of_one_length_are_read_at_the_predicted_shape() {
        // `deflate`, `inflate` and `zcalloc` have one length: after the
        // first line, each is read where the last line's shape puts it.
        let text = "E deflate 1 7\nX deflate 2 7\nE inflate 3 7\nX inflate 14 7\n\
                    E zcalloc 15 7\nX zcalloc 16 8\n"
            .repeat(20);
        let c = Scanner::new(true)
            .scan(text.as_bytes(), FastChunk::default())
            .unwrap();
        assert_eq!(c.local.names, ["deflate", "inflate", "zcalloc"]);
        assert_eq!(c.local.tids, [7, 8]);
        let got: Vec<_> = c.local.events[6..12]
            .iter()
            .map(|e| (e.kind, e.func, e.time, e.thread))
            .collect();
        use EventKind::{Enter, Exit};
        assert_eq!(
            got,
            [
                (Enter, 0, 1, 0),
                (Exit, 0, 2, 0),
                (Enter, 1, 3, 0),
                (Exit, 1, 14, 0),
                (Enter, 2, 15, 0),
                (Exit, 2, 16, 1)
            ]
        );
        // A line that fits the shape without being a name of that length:
        // the line parser reads the chunk (and reports the line).
        for odd in ["E defla e 3 7\n", "E 0x12345 3 7\n", "E defl\0te 3 7\n"] {
            let text = format!(
                "{}{odd}{}",
                "E deflate 1 7\n".repeat(8),
                "X deflate 2 7\n".repeat(8)
            );
            let c = Scanner::new(true).scan(text.as_bytes(), FastChunk::default());
            assert!(c.is_none(), "{odd:?}");
        }
    }

    #[test]
    fn long_symbolic_names_read_as_written() {
        // C++ names: 16 to 40 bytes, two of one length with the same first
        // and last words (one cache slot), one longer than the scanner
        // reads itself, leaf calls and calls with callees, `\r\n` too.
        use EventKind::{Enter, Exit};
        let pair = [
            "_ZNSt6vectorIiSaIiEE9push_backERKi",
            "_ZNSt6vectorIjSaIiEE9push_backERKi",
        ];
        let mut names: Vec<String> = pair.iter().map(|n| n.to_string()).collect();
        names.extend((16..=40).map(|n| format!("_ZN{}", "q".repeat(n - 3))));
        names.push("main".into());
        names.push(format!("_Z{}", "x".repeat(5000)));
        let (mut text, mut want) = (String::new(), Vec::new());
        let mut t = 1000;
        let mut line = |text: &mut String, kind, name: usize, cr: bool| {
            t += 3;
            let (letter, nl) = (
                if kind == Enter { 'E' } else { 'X' },
                if cr { "\r\n" } else { "\n" },
            );
            *text += &format!("{letter} {} {t} 7{nl}", names[name]);
            want.push((kind, names[name].clone(), t));
        };
        for round in 0..3 {
            for k in 0..names.len() {
                let cr = round == 1 && k % 3 == 0;
                // A leaf call, then a call of the next name inside this one.
                line(&mut text, Enter, k, cr);
                line(&mut text, Exit, k, cr);
                line(&mut text, Enter, k, false);
                line(&mut text, Enter, (k + 1) % names.len(), false);
                line(&mut text, Exit, (k + 1) % names.len(), cr);
                line(&mut text, Exit, k, false);
            }
            // An exit right after an entry of another name of its length.
            line(&mut text, Enter, 0, false);
            line(&mut text, Exit, 1, false);
        }
        let c = Scanner::new(true)
            .scan(text.as_bytes(), FastChunk::default())
            .unwrap();
        let got: Vec<_> = c
            .local
            .events
            .iter()
            .map(|e| (e.kind, c.local.names[e.func as usize].clone(), e.time))
            .collect();
        assert_eq!(got, want);
        assert_eq!(c.local.names.len(), names.len());
        // A control byte inside a long name: the line parser's to judge.
        let nul = format!("E {}\0x 1 7\nX {}\0x 2 7\n", pair[0], pair[0]);
        assert!(
            Scanner::new(true)
                .scan(nul.as_bytes(), FastChunk::default())
                .is_none()
        );
        // Untimed lines with long names.
        let untimed = format!(
            "E {}\nX {}\nE {}\nX {}\n",
            pair[0], pair[0], pair[1], pair[1]
        )
        .repeat(20);
        let c = Scanner::new(true)
            .scan(untimed.as_bytes(), FastChunk::default())
            .unwrap();
        let funcs: Vec<u32> = c.local.events.iter().map(|e| e.func).collect();
        assert_eq!(funcs, [0, 0, 1, 1].repeat(20));
        assert_eq!(c.local.names, pair);
    }

    #[test]
    fn symbolic_lines_with_names_of_every_length_read_as_written() {
        // Names of 1 to 17 bytes, each line's name of another length than
        // the last line's: each line's shape comes from its name's length
        // (16 and 17 bytes: the line-by-line way).
        use EventKind::{Enter, Exit};
        let names: Vec<String> = (1..=17)
            .map(|n| "abcdefghijklmnopq"[..n].to_string())
            .collect();
        let (mut text, mut want) = (String::new(), Vec::new());
        for round in 0..3 {
            for (k, name) in names.iter().enumerate() {
                let t = 100 + 40 * round + 2 * k as u64;
                text += &format!("E {name} {t} 7\nX {name} {} 7\n", t + 1);
                want.extend([(Enter, k as u32, t), (Exit, k as u32, t + 1)]);
            }
        }
        let c = Scanner::new(true)
            .scan(text.as_bytes(), FastChunk::default())
            .unwrap();
        assert_eq!(c.local.names, names);
        let got: Vec<_> = c
            .local
            .events
            .iter()
            .map(|e| (e.kind, e.func, e.time))
            .collect();
        assert_eq!(got, want);
        assert_eq!(c.lines, 6 * 17);
    }

    /// Counts the events it is fed; gives up at the `limit`-th.
    struct Upto {
        seen: usize,
        limit: usize,
    }

    impl EventConsumer for Upto {
        fn event(&mut self, _: Event) -> bool {
            self.seen += 1;
            self.seen < self.limit
        }
    }

    /// What `run` gives for `text` with a consumer giving up at `limit`.
    fn run(text: &str, limit: usize) -> (Option<FastChunk>, usize) {
        let mut scanner = Scanner::default();
        let scan = TextScan::new(&mut scanner, text.as_bytes(), FastChunk::default());
        let mut consumer = Upto { seen: 0, limit };
        let done = scan.run(&mut consumer, |c| Box::new(c.seen));
        (done.0, consumer.seen)
    }

    #[test]
    fn fused_scans_summarise_or_fall_back_to_stored_events() {
        let text = "E0x10 5 7\nE0x20 6 7\nX0x20 8 7\nX0x10 9 7\n";
        let (chunk, seen) = run(text, usize::MAX);
        let chunk = chunk.unwrap();
        assert_eq!(seen, 4);
        assert!(chunk.local.events.is_empty());
        let summary = chunk.local.summary.unwrap().downcast::<usize>().unwrap();
        assert_eq!((*summary, chunk.lines), (4, 4));
        // Given up: the chunk's events are stored for the sequential path.
        let (chunk, seen) = run(text, 2);
        let chunk = chunk.unwrap();
        assert_eq!(seen, 2);
        assert!(chunk.local.summary.is_none());
        assert_eq!(chunk.local.events.len(), 4);
        // A line the scanner does not take: the line parser reads the chunk.
        assert!(run("E0x10 5 7\nE main 6 7\n", usize::MAX).0.is_none());
    }
}
