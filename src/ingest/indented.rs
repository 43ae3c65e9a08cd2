//! Indented self/total traces, the abstraction paper's format (fig. 1):
//! one call per line, `name (self / total)`, depth given by leading white
//! space (a tab advances to the next multiple of 8 columns). Numbers are
//! integers or decimals; decimals are kept exactly as fixed-point integers
//! with as many decimal places as the file's most precise number. A trailing
//! `xN` gives the number of calls a line stands for (calling-context trees).
//! `[thread N]` lines are the synthetic per-thread nodes that `calltrace
//! tree` prints for multi-threaded traces.
//!
//! Names are escaped so that any name reads back unchanged ([`escape_name`],
//! [`unescape_name`]): `\\` for a backslash, `\#` for a leading `#` (else
//! the line is a comment), `\xHH` for control characters (newline, tab,
//! NUL...) and for a space at either end, `\u{H}` for other white space
//! such as NBSP (which trimming would eat). A backslash not starting one of
//! these escapes stands for itself.
//!
//! Chunks of lines are parsed on every core into compact records (widths,
//! chunk-local names, numbers as digits and decimal places); the calling
//! thread turns widths into depths in file order and feeds the sink, which
//! scales the times it holds when the file's precision grows
//! ([`Sink::scale_times`]). Nothing but the sink's tree is kept, and
//! errors, line numbers and `--lenient` counts are those of one pass.

use std::borrow::Cow;
use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use part::{LineIn, Part};

mod line;
mod part;
use super::prefetch::{AHEAD, prefetch};
use super::{
    FuncTable, Input, NodeRecord, ParseOptions, Sink, TraceFormat, TraceMeta, Unit, chunked,
    nanos_per, skip_or_fail,
};
use crate::error::{Error, Result};

/// Indented `name (self / total)` trace.
pub struct IndentedFormat;

/// Most decimal places kept; more precise numbers are an error.
const MAX_DECIMALS: usize = 9;

impl TraceFormat for IndentedFormat {
    fn name(&self) -> &'static str {
        "indented"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        let mut lines = super::guess::meaningful_lines(head);
        lines
            .next()
            .is_some_and(|l| parse_line(&String::from_utf8_lossy(l)).is_ok())
    }

    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let mut merge = Merge {
            name: input.name(),
            opts,
            funcs,
            meta: TraceMeta {
                format: self.name(),
                timed: true,
                threads: vec![0],
                ..TraceMeta::default()
            },
            indents: Indents::default(),
            line: 0,
            failed: None,
            maps: Default::default(),
            units: Units::default(),
            own: None,
        };
        // A stream cannot be read twice (see `parse_whole`): read it whole.
        if input.is_stream() {
            let _ = &input[..];
        }
        let summarise = sink.takes_node_chunks();
        let chunks = input.chunks(chunked::chunk_size(opts));
        chunked::run_workers(
            input,
            chunks,
            opts,
            sink,
            || Reader::new(summarise),
            |w, bytes| {
                let mut out: Out = w.buffers.take();
                w.parser.read(bytes, &mut out);
                out
            },
            |chunk, out, sink, buffers| {
                let r = merge.chunk(&chunk.bytes, &out, sink);
                buffers.give(out);
                r
            },
        )?;
        if merge.units.restart {
            sink.clear_nodes();
            return parse_whole(input, opts, funcs, sink);
        }
        match merge.failed {
            Some(e) => Err(e),
            None => Ok(merge.units.finish(merge.meta)),
        }
    }
}

/// What a worker made of one chunk of lines: a compact record per call
/// line, with the indentation width still to be turned into a depth, and
/// numbers as (digits, decimal places) until the file's precision is known.
#[derive(Default)]
struct Parsed {
    recs: Vec<Rec>,
    /// Names of the chunk-local name ids, in order of first appearance.
    names: Vec<Name>,
    /// Messages of the lines that did not parse ([`Rec::ERROR`] records).
    errors: Vec<String>,
    /// Line ends in the chunk.
    lines: u64,
    /// Chunk line (0-based) of the first byte that is not UTF-8, if any.
    bad_utf8: Option<u64>,
}

impl Parsed {
    fn clear(&mut self) {
        self.recs.clear();
        self.names.clear();
        self.errors.clear();
        self.lines = 0;
        self.bad_utf8 = None;
    }
}

/// An unescaped name and, for `[thread N]`, the thread id.
#[derive(Clone)]
struct Name {
    text: String,
    thread: Option<u64>,
}

/// One line of a chunk.
#[derive(Debug, Clone, Copy)]
struct Rec {
    self_time: Number,
    total: Number,
    calls: u64,
    /// Chunk-local name id, or [`Rec::ERROR`] (then `calls` indexes
    /// [`Parsed::errors`]).
    name: u32,
    /// Columns of indentation.
    width: usize,
    /// Line within the chunk, 0-based.
    line: u64,
    /// [`Rec::TIME`] and [`Rec::CALLS`]: the units the line states.
    units: u8,
}

impl Rec {
    const ERROR: u32 = u32::MAX;
    /// A number carries a time unit.
    const TIME: u8 = 1;
    /// A number says `calls`.
    const CALLS: u8 = 2;
}

/// A number as its digits without the point (`u64::MAX` when they
/// overflow) and its decimal places; with its unit, its value in whole
/// nanoseconds (None: the digits give it, see [`Number::nanos`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Number {
    digits: u64,
    decimals: u8,
    nanos: Option<u64>,
}

/// Digits below this convert to `f64` exactly.
const EXACT_F64: u64 = 1 << 53;

impl Number {
    /// Reads a number already checked by [`is_number`], in `unit`.
    fn of(s: &str, unit: Option<&str>) -> Number {
        let frac = decimals(s);
        Number {
            digits: fixed(s, frac),
            decimals: frac as u8,
            nanos: Some(in_nanos(s, unit)),
        }
    }

    /// The value in whole nanoseconds, as [`in_nanos`] gives it: digits
    /// below 2^53 and powers of ten are exact doubles, so their quotient is
    /// the double nearest the decimal, as parsing the text gives.
    #[inline]
    fn nanos(self) -> u64 {
        self.nanos.unwrap_or_else(|| match self.decimals {
            0 => self.digits,
            d => (self.digits as f64 / POW10[d as usize] as f64).round() as u64,
        })
    }

    /// The number in units of 10^-`decimals` (at least its own places),
    /// saturating like [`fixed`].
    #[inline]
    fn fixed(self, decimals: u8) -> u64 {
        let scale = POW10[(decimals - self.decimals) as usize];
        self.digits.saturating_mul(scale)
    }
}

/// Powers of ten up to 10^[`MAX_DECIMALS`].
const POW10: [u64; MAX_DECIMALS + 1] = {
    let mut p = [1u64; MAX_DECIMALS + 1];
    let mut i = 1;
    while i <= MAX_DECIMALS {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// A parsing thread's state: names interned by their bytes (across
/// chunks), mapped to chunk-local ids per chunk.
struct Reader {
    /// Names by their first and last eight bytes and their length: a
    /// direct-mapped cache in front of `ids` that answers the usual line
    /// without hashing its name (longer names are compared too).
    cache: Box<[Slot; CACHE]>,
    ids: FxHashMap<Box<[u8]>, u32>,
    /// Each name's text as written, and as read.
    escaped: Vec<Box<[u8]>>,
    names: Vec<Name>,
    /// Chunk-local id of each of this reader's names, [`UNSET`] if unused so far.
    local: Vec<u32>,
    /// Summarise chunks into [`Part`]s (the sink takes [`NodeChunk`]s).
    summarise: bool,
    nodes: part::Nodes,
    /// The previous fast-path line's name (if up to 16 bytes) and its
    /// chunk-local id (in `id`; `len` 0 at a chunk's start): runs of one
    /// name skip the cache.
    last: Slot,
}

impl Reader {
    fn new(summarise: bool) -> Self {
        Reader {
            // Built on the heap: the table is too big for a thread's stack.
            cache: vec![Slot::default(); CACHE]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!("CACHE slots")),
            ids: FxHashMap::default(),
            escaped: Vec::new(),
            names: Vec::new(),
            local: Vec::new(),
            summarise,
            nodes: part::Nodes::default(),
            last: Slot::default(),
        }
    }
}

/// No id yet.
const UNSET: u32 = u32::MAX;

/// A [`Reader::cache`] entry: a name's first and last words, its length
/// (0: empty) and id.
#[derive(Clone, Copy, Default)]
struct Slot {
    words: (u64, u64),
    len: usize,
    id: u32,
}

/// Entries in [`Reader::cache`]: only those a trace's names use are
/// touched, so a big table costs no cache space and rarely collides.
const CACHE: usize = 1 << 14;

/// What a worker hands the calling thread for one chunk: a summary, or
/// (when the sink takes no summaries, or the chunk cannot be summarised)
/// its records. Both buffers are reused.
#[derive(Default)]
struct Out {
    summarised: bool,
    part: Part,
    parsed: Parsed,
}

/// One line as read.
enum Read {
    /// Blank or a comment.
    Skip,
    Line(LineIn),
    /// A line that does not parse: its indentation and the message.
    Bad(usize, String),
    /// Bytes that are not UTF-8.
    NotUtf8,
}

/// Takes the lines [`Reader::lines`] reads.
trait Each {
    /// Line `line` of the chunk (0-based); false to stop reading.
    fn line(&mut self, line: u64, read: Read) -> bool;
}

/// Lines into a [`Part`], until one it cannot stand for.
struct ToPart<'a> {
    part: &'a mut Part,
    nodes: part::Nodes,
    ok: bool,
}

impl Each for ToPart<'_> {
    #[inline(always)]
    fn line(&mut self, _: u64, read: Read) -> bool {
        self.ok = match read {
            Read::Skip => true,
            Read::Line(l) => self.part.line(&l, &mut self.nodes),
            Read::Bad(..) | Read::NotUtf8 => false,
        };
        self.ok
    }
}

/// Lines into records.
struct ToRecs {
    recs: Vec<Rec>,
    errors: Vec<String>,
}

impl Each for ToRecs {
    #[inline(always)]
    fn line(&mut self, line: u64, read: Read) -> bool {
        match read {
            Read::Skip | Read::NotUtf8 => {}
            Read::Line(l) => self.recs.push(Rec {
                self_time: l.self_time,
                total: l.total,
                calls: l.calls,
                name: l.name,
                width: l.width,
                line,
                units: l.units,
            }),
            Read::Bad(width, msg) => {
                self.recs.push(Rec {
                    self_time: Number::default(),
                    total: Number::default(),
                    calls: self.errors.len() as u64,
                    name: Rec::ERROR,
                    width,
                    line,
                    units: 0,
                });
                self.errors.push(msg);
            }
        }
        true
    }
}

impl Reader {
    /// Reads one chunk (whole lines) into `out`.
    fn read(&mut self, bytes: &[u8], out: &mut Out) {
        if self.summarise && self.summary(bytes, &mut out.part) {
            out.summarised = true;
            return;
        }
        out.summarised = false;
        self.chunk(bytes, &mut out.parsed);
    }

    /// Summarises a chunk; false when it cannot be (see [`part`]).
    fn summary(&mut self, bytes: &[u8], part: &mut Part) -> bool {
        part.clear();
        let mut names = std::mem::take(&mut part.names);
        let mut to = ToPart {
            part,
            nodes: std::mem::take(&mut self.nodes),
            ok: true,
        };
        to.nodes.reset();
        let lines = self.lines(bytes, &mut names, &mut to);
        to.part.flush();
        let ok = to.ok;
        self.nodes = to.nodes;
        part.names = names;
        part.lines = lines;
        ok
    }

    /// Parses one chunk (whole lines) into records.
    fn chunk(&mut self, bytes: &[u8], out: &mut Parsed) {
        out.clear();
        // ASCII (the usual trace) is checked several times faster than UTF-8.
        if !bytes.is_ascii()
            && let Err(e) = std::str::from_utf8(bytes)
        {
            let before = &bytes[..e.valid_up_to()];
            out.bad_utf8 = Some(memchr::memchr_iter(b'\n', before).count() as u64);
            return;
        }
        let mut to = ToRecs {
            recs: std::mem::take(&mut out.recs),
            errors: std::mem::take(&mut out.errors),
        };
        out.lines = self.lines(bytes, &mut out.names, &mut to);
        (out.recs, out.errors) = (to.recs, to.errors);
    }

    /// Reads the lines of `bytes` in order, handing each to `each` with
    /// its 0-based line in the chunk until `each` says stop; names get
    /// chunk-local ids in `names`. Returns the line ends read.
    #[inline(always)]
    fn lines(&mut self, bytes: &[u8], names: &mut Vec<Name>, each: &mut impl Each) -> u64 {
        self.local.iter_mut().for_each(|l| *l = UNSET);
        self.last = Slot::default();
        // The start of the previous fast-path line, and its name's
        // chunk-local id: the next line most often starts the same.
        let mut prefix = line::Prefix::default();
        let mut prefix_id = UNSET;
        let (mut pos, mut line) = (0, 0u64);
        loop {
            let padded;
            let win: &line::Window = match bytes.get(pos..pos + line::WINDOW) {
                Some(win) => win.try_into().expect("a window"),
                None => {
                    padded = line::pad(&bytes[pos..]);
                    &padded
                }
            };
            prefetch(bytes, pos + AHEAD);
            if let Some(f) = line::scan(win, &prefix) {
                let name = if f.hinted {
                    prefix_id
                } else {
                    prefix = line::Prefix::at(bytes, pos, &f);
                    prefix_id = self.intern_fast(win, &bytes[pos..], f.name, names);
                    prefix_id
                };
                let read = Read::Line(LineIn {
                    width: f.width,
                    name,
                    self_time: f.self_time,
                    total: f.total,
                    calls: f.calls,
                    units: f.units,
                    same_start: f.hinted,
                });
                if !each.line(line, read) {
                    return line;
                }
                pos += f.next;
                line += 1;
                continue;
            }
            let rest = &bytes[pos..];
            let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
            // The last piece: empty after a final line end, or a line without one.
            let last = end == rest.len();
            // The next fast-path line is not this one's sibling of the
            // same name (`LineIn::same_start`), whatever it starts with.
            prefix = line::Prefix::default();
            // (A long line ends with a line end, so it is never the last.)
            let (read, next) = self.other(rest, end, names);
            if !each.line(line, read) || last {
                return line;
            }
            pos += next;
            line += 1;
        }
    }

    /// The line at the start of `rest` (its line end at `end`) that the
    /// fast path left, and where the next line starts: a usual line too
    /// long for it ([`line::long`]), or else what the general path makes
    /// of the line. Kept out of [`Reader::lines`]' loop, whose short lines
    /// it would slow down.
    #[inline(never)]
    fn other(&mut self, rest: &[u8], end: usize, names: &mut Vec<Name>) -> (Read, usize) {
        let Some(f) = line::long(rest, end) else {
            return (self.slow(&rest[..end], names), end + 1);
        };
        let (start, stop) = f.name;
        let words = line::slice_words(&rest[start..stop]);
        let read = Read::Line(LineIn {
            width: f.width,
            name: self.intern_cached(rest, f.name, words, names),
            self_time: f.self_time,
            total: f.total,
            calls: f.calls,
            units: f.units,
            same_start: false,
        });
        (read, f.next)
    }

    /// The general path, by `str` operations: any white space, any number
    /// layout, and the error messages.
    #[cold]
    fn slow(&mut self, raw: &[u8], names: &mut Vec<Name>) -> Read {
        let Ok(raw) = std::str::from_utf8(raw) else {
            return Read::NotUtf8;
        };
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let body = raw.trim_start();
        if body.is_empty() || body.starts_with('#') {
            return Read::Skip;
        }
        let width = indent_width(&raw[..raw.len() - body.len()]);
        match parse_line(body.trim_end()) {
            Ok(l) => {
                let name = self.intern(l.name.as_bytes(), names);
                let units = [l.self_unit, l.total_unit]
                    .into_iter()
                    .flatten()
                    .fold(0, |u, unit| {
                        u | if unit == "calls" {
                            Rec::CALLS
                        } else {
                            Rec::TIME
                        }
                    });
                Read::Line(LineIn {
                    width,
                    name,
                    self_time: Number::of(l.self_time, l.self_unit),
                    total: Number::of(l.total, l.total_unit),
                    calls: l.calls,
                    units,
                    same_start: false,
                })
            }
            Err(msg) => Read::Bad(width, msg),
        }
    }

    /// The chunk-local id of the name at `start..end` of a fast-path line
    /// (which has more than 8 bytes after its name).
    #[inline(always)]
    fn intern_fast(
        &mut self,
        win: &line::Window,
        b: &[u8],
        (start, end): (usize, usize),
        names: &mut Vec<Name>,
    ) -> u32 {
        let len = end - start;
        let words = line::name_words(win, start, len);
        let last = self.last;
        if last.len == len && last.words == words && len <= 16 {
            return last.id;
        }
        let local = self.intern_cached(b, (start, end), words, names);
        self.last = Slot {
            words,
            len,
            id: local,
        };
        local
    }

    /// [`Reader::intern_fast`] through the cache.
    #[inline(always)]
    fn intern_cached(
        &mut self,
        b: &[u8],
        (start, end): (usize, usize),
        words: (u64, u64),
        names: &mut Vec<Name>,
    ) -> u32 {
        let len = end - start;
        let hash =
            (words.0 ^ words.1.rotate_left(29) ^ len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = (hash >> 50) as usize % CACHE;
        let hit = self.cache[slot];
        let id = if hit.len == len
            && hit.words == words
            && (len <= 16 || *self.escaped[hit.id as usize] == b[start..end])
        {
            hit.id
        } else {
            let id = self.id(&b[start..end]);
            self.cache[slot] = Slot { words, len, id };
            id
        };
        self.local_id(id, names)
    }

    /// The chunk-local id of the name written as `escaped`.
    #[inline]
    fn intern(&mut self, escaped: &[u8], names: &mut Vec<Name>) -> u32 {
        let id = self.id(escaped);
        self.local_id(id, names)
    }

    /// This reader's id of the name written as `escaped`.
    #[inline]
    fn id(&mut self, escaped: &[u8]) -> u32 {
        match self.ids.get(escaped) {
            Some(&id) => id,
            None => self.add(escaped),
        }
    }

    /// The chunk-local id of this reader's name `id`.
    #[inline(always)]
    fn local_id(&mut self, id: u32, names: &mut Vec<Name>) -> u32 {
        let local = &mut self.local[id as usize];
        if *local == UNSET {
            *local = names.len() as u32;
            names.push(self.names[id as usize].clone());
        }
        *local
    }

    #[cold]
    fn add(&mut self, escaped: &[u8]) -> u32 {
        let text = std::str::from_utf8(escaped).expect("names are read from UTF-8 lines");
        let text = unescape_name(text).into_owned();
        let id = self.names.len() as u32;
        self.names.push(Name {
            thread: thread_id(&text),
            text,
        });
        self.local.push(UNSET);
        self.escaped.push(escaped.into());
        self.ids.insert(escaped.into(), id);
        id
    }
}

/// The calling thread's side: turns widths into depths, interns names into
/// the [`FuncTable`] in file order and feeds the sink, scaling the times
/// already fed when a more precise number shows up.
struct Merge<'a> {
    name: &'a str,
    opts: &'a ParseOptions,
    funcs: &'a mut FuncTable,
    meta: TraceMeta,
    indents: Indents,
    /// Line ends before the current chunk.
    line: u64,
    /// The first error in strict mode: later chunks are still checked for
    /// UTF-8, which the whole file must be before any line counts.
    failed: Option<Error>,
    /// Global ids of the chunk's names, as a function and as a thread node.
    maps: (Vec<u32>, Vec<u32>),
    units: Units,
    /// Reads the chunks a summary could not stand for, record by record.
    own: Option<(Reader, Parsed)>,
}

/// The file's unit as far as read: nanoseconds from the first number with
/// a time unit on (earlier numbers then count as nanoseconds too), else
/// calls if a number says so, else numbers of unknown unit.
#[derive(Default)]
struct Units {
    time: bool,
    calls: bool,
    /// Some nodes were fed with values that differ from their nanoseconds
    /// (decimals, or digits beyond 2^53).
    inexact: bool,
    /// A time unit came after such nodes: the file is read again whole.
    restart: bool,
}

impl Units {
    /// Notes a line's units before it is fed; false when the file must be
    /// read again.
    #[inline]
    fn line(&mut self, r: &Rec) -> bool {
        if r.units & Rec::TIME != 0 && !self.time {
            if self.inexact {
                self.restart = true;
                return false;
            }
            self.time = true;
        }
        self.calls |= r.units & Rec::CALLS != 0;
        if !self.time {
            let exact = |n: Number| n.decimals == 0 && n.digits < EXACT_F64;
            self.inexact |= !(exact(r.self_time) && exact(r.total));
        }
        true
    }

    fn finish(&self, mut meta: TraceMeta) -> TraceMeta {
        meta.unit = if self.time {
            meta.decimals = 0;
            Unit::Nanos
        } else if self.calls {
            Unit::Calls
        } else {
            Unit::Number
        };
        meta
    }
}

impl Merge<'_> {
    /// Takes the next chunk (`bytes`, and what a worker made of it).
    fn chunk(&mut self, bytes: &[u8], out: &Out, sink: &mut dyn Sink) -> Result<()> {
        if !out.summarised {
            return self.records(&out.parsed, sink);
        }
        // Summarised chunks are UTF-8: after an error there is nothing to check.
        if self.failed.is_some() || self.units.restart || self.part(&out.part, sink) {
            self.line += out.part.lines;
            return Ok(());
        }
        let (reader, parsed) = self
            .own
            .get_or_insert_with(|| (Reader::new(false), Parsed::default()));
        reader.chunk(bytes, parsed);
        let parsed = std::mem::take(parsed);
        let r = self.records(&parsed, sink);
        if let Some(own) = self.own.as_mut() {
            own.1 = parsed;
        }
        r
    }

    /// Feeds a summarised chunk; false when its summary cannot stand for
    /// it here (then its records are fed instead).
    fn part(&mut self, p: &Part, sink: &mut dyn Sink) -> bool {
        if p.nodes.is_empty() {
            return true;
        }
        let mut indents = Indents(self.indents.0.clone());
        let Some(depths) = p.resolve(&mut indents) else {
            return false;
        };
        let units = &mut self.units;
        if p.nanos && !units.time && units.inexact {
            units.restart = true;
            return true;
        }
        if !p.nanos && units.time && !p.exact {
            return false;
        }
        self.indents = indents;
        units.time |= p.nanos;
        units.calls |= p.calls_unit;
        let factor = if units.time {
            1
        } else {
            units.inexact |= !p.exact;
            if p.decimals > self.meta.decimals {
                sink.scale_times(POW10[(p.decimals - self.meta.decimals) as usize]);
                self.meta.decimals = p.decimals;
            }
            POW10[(self.meta.decimals - p.decimals) as usize]
        };
        let chunk = p.node_chunk(depths, self.funcs, &mut self.maps, factor);
        sink.node_chunk(&chunk);
        true
    }

    /// Feeds a chunk's records.
    fn records(&mut self, parsed: &Parsed, sink: &mut dyn Sink) -> Result<()> {
        if let Some(line) = parsed.bad_utf8 {
            let line = self.line + line + 1;
            return Err(Error::parse(self.name, line, "expected UTF-8 text"));
        }
        if self.failed.is_none() && !self.units.restart {
            let (funcs, threads) = &mut self.maps;
            funcs.clear();
            funcs.resize(parsed.names.len(), UNSET);
            threads.clear();
            threads.resize(parsed.names.len(), UNSET);
            for r in &parsed.recs {
                match self.rec(r, parsed, sink) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        self.failed = Some(e);
                        break;
                    }
                }
            }
        }
        self.line += parsed.lines;
        Ok(())
    }

    /// Feeds one record; Ok(false) when the file must be read again.
    #[inline]
    fn rec(&mut self, r: &Rec, parsed: &Parsed, sink: &mut dyn Sink) -> Result<bool> {
        let lineno = self.line + r.line + 1;
        if r.name == Rec::ERROR {
            let msg = parsed.errors[r.calls as usize].clone();
            let err = Error::parse(self.name, lineno, msg);
            return skip_or_fail(&mut self.meta, self.opts, err).map(|()| true);
        }
        let depth = match self.indents.depth(r.width) {
            Ok(d) => d,
            Err(msg) => {
                let err = Error::parse(self.name, lineno, msg);
                return skip_or_fail(&mut self.meta, self.opts, err).map(|()| true);
            }
        };
        if !self.units.line(r) {
            return Ok(false);
        }
        let places = r.self_time.decimals.max(r.total.decimals);
        if !self.units.time && places > self.meta.decimals {
            sink.scale_times(POW10[(places - self.meta.decimals) as usize]);
            self.meta.decimals = places;
        }
        let n = r.name as usize;
        let name = &parsed.names[n];
        let func = match name.thread {
            Some(tid) if depth == 0 => {
                let f = &mut self.maps.1[n];
                if *f == UNSET {
                    *f = self.funcs.thread(tid);
                }
                *f
            }
            _ => {
                let f = &mut self.maps.0[n];
                if *f == UNSET {
                    *f = self.funcs.name(&name.text);
                }
                *f
            }
        };
        let d = self.meta.decimals;
        let value = |n: Number| {
            if self.units.time {
                n.nanos()
            } else {
                n.fixed(d)
            }
        };
        sink.node(NodeRecord {
            depth,
            func,
            self_time: value(r.self_time),
            total: value(r.total),
            calls: r.calls,
        });
        Ok(true)
    }
}

/// A parsed line, numbers still as text so the file's precision can be found first.
#[derive(Debug, PartialEq, Eq)]
struct Line<'a> {
    name: &'a str,
    self_time: &'a str,
    self_unit: Option<&'a str>,
    total: &'a str,
    total_unit: Option<&'a str>,
    calls: u64,
}

/// The whole input line by line in two passes, every row kept until the
/// file's unit and precision are known: for a file whose first time unit
/// shows up after numbers that the chunked reader could not convert
/// exactly (decimals, or beyond 2^53).
fn parse_whole(
    input: &Input,
    opts: &ParseOptions,
    funcs: &mut FuncTable,
    sink: &mut dyn Sink,
) -> Result<TraceMeta> {
    let mut meta = TraceMeta {
        format: IndentedFormat.name(),
        timed: true,
        ..TraceMeta::default()
    };
    let rows = read_rows(input, opts, &mut meta)?;
    meta.unit = file_unit(&rows);
    let decimals = match meta.unit {
        Unit::Nanos => 0,
        _ => rows
            .iter()
            .map(|r| decimals(r.line.self_time).max(decimals(r.line.total)))
            .max()
            .unwrap_or(0),
    };
    meta.decimals = decimals as u8;
    let value = |v: &str, unit: Option<&str>| match meta.unit {
        Unit::Nanos => in_nanos(v, unit),
        _ => fixed(v, decimals),
    };
    for r in &rows {
        let name = unescape_name(r.line.name);
        let func = match thread_id(&name) {
            Some(tid) if r.depth == 0 => funcs.thread(tid),
            _ => funcs.name(&name),
        };
        sink.node(NodeRecord {
            depth: r.depth,
            func,
            self_time: value(r.line.self_time, r.line.self_unit),
            total: value(r.line.total, r.line.total_unit),
            calls: r.line.calls,
        });
    }
    meta.threads = vec![0];
    Ok(meta)
}

struct Row<'a> {
    depth: u32,
    line: Line<'a>,
}

fn read_rows<'a>(
    input: &'a Input,
    opts: &ParseOptions,
    meta: &mut TraceMeta,
) -> Result<Vec<Row<'a>>> {
    let text = std::str::from_utf8(input).map_err(|e| {
        let line = input[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1;
        Error::parse(input.name(), line, "expected UTF-8 text")
    })?;
    let mut rows = Vec::new();
    let mut indents = Indents::default();
    // memchr finds line ends several times faster than `str::split`.
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]);
    for (i, end) in ends.enumerate() {
        let raw = &text[start..end];
        start = end + 1;
        let lineno = i as u64 + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let body = raw.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let width = indent_width(&raw[..raw.len() - body.len()]);
        let parsed = parse_line(body.trim_end()).and_then(|line| {
            let depth = indents.depth(width)?;
            Ok(Row { depth, line })
        });
        match parsed {
            Ok(row) => rows.push(row),
            Err(msg) => skip_or_fail(meta, opts, Error::parse(input.name(), lineno, msg))?,
        }
    }
    Ok(rows)
}

/// Columns of leading white space; a tab advances to the next multiple of 8.
fn indent_width(ws: &str) -> usize {
    ws.chars()
        .fold(0, |w, c| if c == '\t' { (w / 8 + 1) * 8 } else { w + 1 })
}

/// Tracks the indentation of the open ancestors to turn widths into depths.
#[derive(Default)]
struct Indents(Vec<usize>);

impl Indents {
    fn depth(&mut self, width: usize) -> Result<u32, String> {
        let mut popped = None;
        while let Some(&top) = self.0.last() {
            if top <= width {
                break;
            }
            popped = self.0.pop();
        }
        match self.0.last() {
            Some(&top) if top == width => {
                self.0.pop();
            }
            Some(_) | None if popped.is_some() && !self.0.is_empty() => {
                return Err(format!(
                    "expected an indentation of an enclosing line, found {width} columns"
                ));
            }
            _ => {}
        }
        self.0.push(width);
        Ok(self.0.len() as u32 - 1)
    }
}

/// Parses `name (self / total)` with an optional trailing `xN`.
fn parse_line(body: &str) -> Result<Line<'_>, String> {
    let expected = || {
        format!(
            "expected `name (self / total)`, found `{}`",
            body.chars().take(60).collect::<String>()
        )
    };
    let (rest, calls) = match body.rsplit_once(' ') {
        Some((rest, n))
            if n.len() > 1 && n.starts_with('x') && n[1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            (
                rest.trim_end(),
                n[1..].parse::<u64>().map_err(|_| expected())?,
            )
        }
        _ => (body, 1),
    };
    let inner = rest.strip_suffix(')').ok_or_else(expected)?;
    let open = inner.rfind('(').ok_or_else(expected)?;
    let name = inner[..open].trim_end();
    let (self_time, total) = inner[open + 1..].split_once('/').ok_or_else(expected)?;
    let (self_time, self_unit) = split_unit(self_time.trim()).ok_or_else(expected)?;
    let (total, total_unit) = split_unit(total.trim()).ok_or_else(expected)?;
    if name.is_empty() || !is_number(self_time) || !is_number(total) {
        return Err(expected());
    }
    if decimals(self_time).max(decimals(total)) > MAX_DECIMALS {
        return Err(format!(
            "expected at most {MAX_DECIMALS} decimal places, found `{self_time} / {total}`"
        ));
    }
    Ok(Line {
        name,
        self_time,
        self_unit,
        total,
        total_unit,
        calls,
    })
}

/// Splits `1.2 ms` / `1.2ms` / `3 calls` / `7` into the number and its
/// unit; None when the unit is not one we know.
fn split_unit(s: &str) -> Option<(&str, Option<&str>)> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = (&s[..end], s[end..].trim_start());
    match unit {
        "" => Some((num, None)),
        "calls" | "call" => Some((num, Some("calls"))),
        u => nanos_per(u).map(|_| (num, Some(u))),
    }
}

/// The unit of the whole file: nanoseconds when any number carries a time
/// unit, calls when they say `calls`, else numbers of unknown unit.
fn file_unit(rows: &[Row<'_>]) -> Unit {
    let units = || {
        rows.iter()
            .flat_map(|r| [r.line.self_unit, r.line.total_unit])
            .flatten()
    };
    if units().any(|u| nanos_per(u).is_some()) {
        Unit::Nanos
    } else if units().next().is_some() {
        Unit::Calls
    } else {
        Unit::Number
    }
}

/// `v` (in `unit`, nanoseconds when it states none) as whole nanoseconds.
fn in_nanos(v: &str, unit: Option<&str>) -> u64 {
    let scale = unit.and_then(nanos_per).unwrap_or(1.0);
    (v.parse::<f64>().unwrap_or(0.0) * scale).round() as u64
}

fn is_number(s: &str) -> bool {
    let (int, frac) = s.split_once('.').unwrap_or((s, "0"));
    !int.is_empty()
        && !frac.is_empty()
        && int.len() <= 18
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

fn decimals(s: &str) -> usize {
    s.split_once('.').map_or(0, |(_, f)| f.len())
}

/// `s` as an integer number of 10^-`decimals` units (saturating at
/// `u64::MAX`).
fn fixed(s: &str, decimals: usize) -> u64 {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut digits = int.bytes().chain(frac.bytes());
    let scaled = digits.try_fold(0u64, |v, b| {
        v.checked_mul(10)?.checked_add((b - b'0') as u64)
    });
    scaled
        .and_then(|v| v.checked_mul(10u64.checked_pow((decimals - frac.len()) as u32)?))
        .unwrap_or(u64::MAX)
}

/// `name` as written in an indented line: see the module docs.
pub fn escape_name(name: &str) -> Cow<'_, str> {
    let last = name.chars().count().saturating_sub(1);
    let plain = |(i, c): (usize, char)| match c {
        '\\' => false,
        '#' => i != 0,
        ' ' => i != 0 && i != last,
        c => !c.is_control() && !c.is_whitespace() || c == ' ',
    };
    // Fast path for the usual printable ASCII name, one test per byte.
    let b = name.as_bytes();
    let ascii_plain = b.iter().all(|&c| (b' '..0x7f).contains(&c) && c != b'\\')
        && !matches!(b.first(), Some(b' ' | b'#'))
        && b.last() != Some(&b' ');
    if ascii_plain || name.chars().enumerate().all(plain) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for (i, c) in name.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '#' if i == 0 => out.push_str("\\#"),
            c if plain((i, c)) => out.push(c),
            c if (c as u32) < 0x80 => write!(out, "\\x{:02x}", c as u32).expect("String"),
            c => write!(out, "\\u{{{:x}}}", c as u32).expect("String"),
        }
    }
    Cow::Owned(out)
}

/// Undoes [`escape_name`].
pub fn unescape_name(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let (c, used) = unescape_one(tail).unwrap_or(('\\', 0));
        out.push(c);
        rest = &tail[used..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The character escaped at the start of `tail` (after a backslash) and
/// how many bytes of `tail` the escape used.
fn unescape_one(tail: &str) -> Option<(char, usize)> {
    match tail.as_bytes().first()? {
        b'\\' => Some(('\\', 1)),
        b'#' => Some(('#', 1)),
        b'x' => {
            let hex = tail.get(1..3)?;
            let v = u8::from_str_radix(hex, 16).ok().filter(|v| *v < 0x80)?;
            Some((char::from(v), 3))
        }
        b'u' => {
            let body = tail.strip_prefix("u{")?;
            let end = body.find('}')?;
            let v = u32::from_str_radix(&body[..end], 16).ok()?;
            Some((char::from_u32(v)?, end + 3))
        }
        _ => None,
    }
}

/// The thread id of a `[thread N]` line.
fn thread_id(name: &str) -> Option<u64> {
    name.strip_prefix("[thread ")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests;
