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

use super::ex::digits;
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
        };
        // A stream cannot be read twice (see `parse_whole`): read it whole.
        if input.is_stream() {
            let _ = &input[..];
        }
        let chunks = input.chunks(chunked::chunk_size(opts));
        chunked::run_workers(
            input,
            chunks,
            opts,
            sink,
            Reader::default,
            |w, bytes| {
                let mut out: Parsed = w.buffers.take();
                w.parser.chunk(bytes, &mut out);
                out
            },
            |_, parsed, sink, buffers| {
                let r = merge.chunk(&parsed, sink);
                buffers.give(parsed);
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
#[derive(Default)]
struct Reader {
    /// Names of up to 16 bytes by their text held in two words and their
    /// length: a direct-mapped cache in front of `ids` that answers the
    /// usual line without hashing or comparing its name.
    cache: Vec<Slot>,
    ids: FxHashMap<Box<[u8]>, u32>,
    names: Vec<Name>,
    /// Chunk-local id of each of this reader's names, [`UNSET`] if unused so far.
    local: Vec<u32>,
}

/// No id yet.
const UNSET: u32 = u32::MAX;

/// A [`Reader::cache`] entry: a name's words, its length (0: empty) and id.
#[derive(Clone, Copy, Default)]
struct Slot {
    words: (u64, u64),
    len: usize,
    id: u32,
}

/// Entries in [`Reader::cache`].
const CACHE: usize = 256;

impl Reader {
    /// Parses one chunk (whole lines) into `out`.
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
        self.local.iter_mut().for_each(|l| *l = UNSET);
        let mut start = 0;
        let mut line = 0u64;
        for end in memchr::memchr_iter(b'\n', bytes) {
            self.line(&bytes[start..end], line, out);
            start = end + 1;
            line += 1;
        }
        // The last piece: empty after a final line end, or a line without one.
        self.line(&bytes[start..], line, out);
        out.lines = line;
    }

    /// Parses one line (without its `\n`) of valid UTF-8.
    #[inline]
    fn line(&mut self, raw: &[u8], line: u64, out: &mut Parsed) {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let width = leading_spaces(raw);
        match raw.get(width) {
            None | Some(b'#') => {}
            Some(b'\t'..=b'\r' | 0x80..) => self.slow(raw, line, out),
            Some(_) => match fast_line(&raw[width..]) {
                Some(f) => {
                    let name = self.intern_line(&raw[width..], f.name.len(), out);
                    out.recs.push(Rec {
                        self_time: f.self_time,
                        total: f.total,
                        calls: f.calls,
                        name,
                        width,
                        line,
                        units: 0,
                    });
                }
                None => self.slow(raw, line, out),
            },
        }
    }

    /// The general path, by `str` operations: any white space, any number
    /// layout, and the error messages.
    #[cold]
    fn slow(&mut self, raw: &[u8], line: u64, out: &mut Parsed) {
        let raw = std::str::from_utf8(raw).expect("the chunk was checked as UTF-8");
        let body = raw.trim_start();
        if body.is_empty() || body.starts_with('#') {
            return;
        }
        let width = indent_width(&raw[..raw.len() - body.len()]);
        match parse_line(body.trim_end()) {
            Ok(l) => {
                let name = self.intern(l.name.as_bytes(), out);
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
                out.recs.push(Rec {
                    self_time: Number::of(l.self_time, l.self_unit),
                    total: Number::of(l.total, l.total_unit),
                    calls: l.calls,
                    name,
                    width,
                    line,
                    units,
                });
            }
            Err(msg) => {
                out.recs.push(Rec {
                    self_time: Number::default(),
                    total: Number::default(),
                    calls: out.errors.len() as u64,
                    name: Rec::ERROR,
                    width,
                    line,
                    units: 0,
                });
                out.errors.push(msg);
            }
        }
    }

    /// The chunk-local id of the name that is the first `len` bytes of a
    /// [`fast_line`] (which has at least 8 more bytes after its name).
    #[inline]
    fn intern_line(&mut self, body: &[u8], len: usize, out: &mut Parsed) -> u32 {
        if len > 16 {
            return self.intern(&body[..len], out);
        }
        let first = digits::word(body, 0).expect("8 bytes after the name");
        let words = if len < 8 {
            (first & ((1 << (8 * len)) - 1), 0)
        } else {
            let last = digits::word(body, len - 8).expect("within the line");
            (first, last)
        };
        let hash =
            (words.0 ^ words.1.rotate_left(29) ^ len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        if self.cache.is_empty() {
            self.cache = vec![Slot::default(); CACHE];
        }
        let slot = (hash >> 56) as usize % CACHE;
        let hit = self.cache[slot];
        let id = if hit.len == len && hit.words == words {
            hit.id
        } else {
            let id = self.id(&body[..len]);
            self.cache[slot] = Slot { words, len, id };
            id
        };
        self.local_id(id, out)
    }

    /// The chunk-local id of the name written as `escaped`.
    #[inline]
    fn intern(&mut self, escaped: &[u8], out: &mut Parsed) -> u32 {
        let id = self.id(escaped);
        self.local_id(id, out)
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
    #[inline]
    fn local_id(&mut self, id: u32, out: &mut Parsed) -> u32 {
        let local = &mut self.local[id as usize];
        if *local == UNSET {
            *local = out.names.len() as u32;
            out.names.push(self.names[id as usize].clone());
        }
        *local
    }

    #[cold]
    fn add(&mut self, escaped: &[u8]) -> u32 {
        let text = std::str::from_utf8(escaped).expect("the chunk was checked as UTF-8");
        let text = unescape_name(text).into_owned();
        let id = self.names.len() as u32;
        self.names.push(Name {
            thread: thread_id(&text),
            text,
        });
        self.local.push(UNSET);
        self.ids.insert(escaped.into(), id);
        id
    }
}

/// A line read by [`fast_line`].
struct Fast<'a> {
    name: &'a [u8],
    self_time: Number,
    total: Number,
    calls: u64,
}

/// The usual line after its indentation, `name (S / T)` or
/// `name (S / T) xN` with single spaces, read from its end without
/// allocating; None for anything else (the general path then reads it).
#[inline]
fn fast_line(body: &[u8]) -> Option<Fast<'_>> {
    let (mut end, calls) = match body.last()? {
        b')' => (body.len() - 1, 1),
        b'0'..=b'9' => {
            let digits = trailing_digits(body);
            let at = body.len() - digits;
            if digits > 19 || at < 3 || body[at - 2..at] != *b" x" || body[at - 3] != b')' {
                return None;
            }
            (at - 3, dec(&body[at..]))
        }
        _ => return None,
    };
    let total = number_before(body, &mut end)?;
    if end < 3 || body[end - 3..end] != *b" / " {
        return None;
    }
    end -= 3;
    let self_time = number_before(body, &mut end)?;
    if end < 3 || body[end - 2..end] != *b" (" {
        return None;
    }
    let name = &body[..end - 2];
    match name.last()? {
        b'\t'..=b'\r' | b' ' | 0x80.. => None,
        _ => Some(Fast {
            name,
            self_time,
            total,
            calls,
        }),
    }
}

/// Number of ASCII digits at the end of `s`.
#[inline]
fn trailing_digits(s: &[u8]) -> usize {
    s.iter().rev().take_while(|b| b.is_ascii_digit()).count()
}

/// The decimal value of ASCII digits (wrapping; callers keep to 19 digits).
#[inline]
fn dec(digits: &[u8]) -> u64 {
    digits.iter().fold(0u64, |v, &b| {
        v.wrapping_mul(10).wrapping_add((b - b'0') as u64)
    })
}

/// Columns of leading spaces of `s`, eight bytes at a time.
#[inline]
fn leading_spaces(s: &[u8]) -> usize {
    let mut i = 0;
    while let Some(w) = digits::word(s, i) {
        let other = w ^ 0x2020_2020_2020_2020;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + s[i..].iter().take_while(|&&b| b == b' ').count()
}

/// The digits that end at `s[..end]`: how many, and their value (exact
/// up to 19 digits, wrapped beyond), eight bytes at a time.
#[inline]
fn digits_before(s: &[u8], end: usize) -> (usize, u64) {
    let (mut n, mut value, mut scale) = (0, 0u64, 1u64);
    while end - n >= 8 {
        let w = digits::word(s, end - n - 8).expect("8 bytes");
        // Non-digit flags without carries between bytes, counted from the top.
        let t = w ^ 0x3030_3030_3030_3030;
        let flags = ((t & 0x7f7f_7f7f_7f7f_7f7f).wrapping_add(0x7676_7676_7676_7676) | t)
            & 0x8080_8080_8080_8080;
        let k = (flags.leading_zeros() / 8) as usize;
        if k == 0 {
            return (n, value);
        }
        let part = digits::eight(w & (u64::MAX << (64 - 8 * k)));
        value = value.wrapping_add(part.wrapping_mul(scale));
        n += k;
        if k < 8 {
            return (n, value);
        }
        scale = scale.wrapping_mul(100_000_000);
    }
    let k = trailing_digits(&s[..end - n]);
    let part = dec(&s[end - n - k..end - n]);
    (n + k, value.wrapping_add(part.wrapping_mul(scale)))
}

/// Reads the number that ends at `s[..*end]` (digits with an optional
/// decimal part, as [`is_number`] and [`MAX_DECIMALS`] allow) and moves
/// `end` to its start.
#[inline]
fn number_before(s: &[u8], end: &mut usize) -> Option<Number> {
    let (last, last_value) = digits_before(s, *end);
    let at = *end - last;
    let (int, int_value, frac, frac_value) = if last > 0 && at > 0 && s[at - 1] == b'.' {
        let (int, value) = digits_before(s, at - 1);
        (int, value, last, last_value)
    } else {
        (last, last_value, 0, 0)
    };
    if int == 0 || int > 15 || frac > MAX_DECIMALS {
        return None;
    }
    *end = if frac > 0 { at - 1 - int } else { at };
    // Up to 27 digits: the integer part fits in a u64, the whole may not.
    let digits = int_value
        .checked_mul(POW10[frac])
        .and_then(|v| v.checked_add(frac_value))
        .filter(|&v| v < EXACT_F64)?;
    Some(Number {
        digits,
        decimals: frac as u8,
        nanos: None,
    })
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
    fn chunk(&mut self, parsed: &Parsed, sink: &mut dyn Sink) -> Result<()> {
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
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(Vec<NodeRecord>, TraceMeta)> {
        let (sink, meta, _) =
            crate::ingest::testing::parse(&IndentedFormat, "fig1.txt", text.as_bytes(), false)?;
        Ok((sink.nodes, meta))
    }

    #[test]
    fn reads_paper_figure_1() {
        let fig1 = "Main (3000 / 10000)\n  funcA (1500 / 4000)\n    funcC (1300 / 1300)\n    funcD (1200 / 1200)\n  funcB (1700 / 3000)\n    funcE (800 / 1300)\n      funcF (500 / 500)\n";
        let (nodes, meta) = parse(fig1).unwrap();
        let depths: Vec<_> = nodes.iter().map(|n| n.depth).collect();
        assert_eq!(depths, [0, 1, 2, 2, 1, 2, 3]);
        assert_eq!((nodes[4].self_time, nodes[4].total), (1700, 3000));
        assert_eq!(meta.decimals, 0);
    }

    #[test]
    fn decimals_tabs_and_call_counts() {
        let (nodes, meta) = parse("main (1.5 / 10)\n\tf(int) (2.25 / 8.5) x3\n").unwrap();
        assert_eq!(meta.decimals, 2);
        assert_eq!((nodes[0].self_time, nodes[0].total), (150, 1000));
        assert_eq!(
            (nodes[1].depth, nodes[1].self_time, nodes[1].calls),
            (1, 225, 3)
        );
    }

    #[test]
    fn fixed_point_scales_to_the_file_precision_and_saturates() {
        assert_eq!(fixed("1.5", 3), 1500);
        assert_eq!(fixed("12", 2), 1200);
        assert_eq!(fixed("0.007", 3), 7);
        assert_eq!(fixed("999999999999999999", 9), u64::MAX);
        assert_eq!(fixed("18446744073709551615", 0), u64::MAX);
        assert_eq!(fixed("18446744073709551616", 0), u64::MAX);
    }

    #[test]
    fn bad_lines_and_bad_dedent_are_located() {
        let err = parse("a (1 / 2)\n  b (1 / x)\n").unwrap_err().to_string();
        assert!(
            err.starts_with("fig1.txt:2: expected `name (self / total)`"),
            "{err}"
        );
        let err = parse("a (1 / 2)\n    b (1 / 1)\n  c (1 / 1)\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("fig1.txt:3: expected an indentation of an enclosing line"),
            "{err}"
        );
    }

    #[test]
    fn awkward_names_are_escaped_and_read_back() {
        let names = [
            "#hash",
            "f x3",
            "g (a / b)",
            "nb\u{a0}",
            "\u{a0}lead",
            "new\nline",
            "tab\there",
            "nul\0",
            " spaced ",
            "back\\slash",
            "\\x41",
            "operator()(int) const",
        ];
        let mut text = String::new();
        for (i, n) in names.iter().enumerate() {
            text.push_str(&format!("{} (1 / 1) x{}\n", escape_name(n), i + 2));
        }
        let (sink, _, funcs) =
            crate::ingest::testing::parse(&IndentedFormat, "t", text.as_bytes(), false).unwrap();
        let got: Vec<&str> = sink
            .nodes
            .iter()
            .map(|n| match &funcs.keys()[n.func as usize] {
                crate::ingest::FuncKey::Name(s) => &**s,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, names, "{text}");
        let calls: Vec<u64> = sink.nodes.iter().map(|n| n.calls).collect();
        assert_eq!(calls, (2..2 + names.len() as u64).collect::<Vec<_>>());
        assert!(!text.contains('\u{a0}') && text.lines().count() == names.len());
    }

    #[test]
    fn plain_names_are_written_as_they_are() {
        for n in ["main", "f(int, char*)", "ns::a<b>::c", "a#b", "[thread 3]"] {
            assert!(matches!(escape_name(n), Cow::Borrowed(_)), "{n}");
        }
        assert_eq!(
            unescape_name("a\\qb\\x4"),
            "a\\qb\\x4",
            "unknown escapes stand for themselves"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn any_name_round_trips(name in "\\PC{1,12}|[ #\\\\x()/\u{a0}\n\t0-9]{1,12}") {
            let line = format!("  {} (3 / 4) x2", escape_name(&name));
            let parsed = parse_line(line.trim_start()).map_err(proptest::test_runner::TestCaseError::fail)?;
            proptest::prop_assert_eq!(unescape_name(parsed.name), name.as_str());
            proptest::prop_assert_eq!(parsed.calls, 2);
        }
    }

    /// The line-by-line, two-pass parser this reader replaced: every row
    /// kept, the precision found, then the nodes fed. The reference.
    fn sequential(input: &Input, lenient: bool) -> String {
        let opts = ParseOptions {
            lenient,
            ..Default::default()
        };
        let mut funcs = FuncTable::default();
        let mut sink = crate::ingest::testing::Collect::default();
        let result = parse_whole(input, &opts, &mut funcs, &mut sink);
        shown(result, &sink, &funcs)
    }

    /// Nodes, keys and meta, or the error, as text.
    fn shown(
        result: Result<TraceMeta>,
        sink: &crate::ingest::testing::Collect,
        funcs: &FuncTable,
    ) -> String {
        match result {
            Ok(meta) => format!("{:?}\n{:?}\n{meta:?}", sink.nodes, funcs.keys()),
            Err(e) => format!("error: {e}"),
        }
    }

    /// What the chunked reader reports with `threads` and `chunk` bytes.
    fn chunked(input: &Input, lenient: bool, threads: usize, chunk: usize) -> String {
        let opts = ParseOptions {
            lenient,
            threads,
            chunk_bytes: chunk,
        };
        let mut funcs = FuncTable::default();
        let mut sink = crate::ingest::testing::Collect::default();
        let result = IndentedFormat.parse(input, &opts, &mut funcs, &mut sink);
        shown(result, &sink, &funcs)
    }

    /// Hands a stream out a few bytes per read.
    struct Trickle(std::io::Cursor<Vec<u8>>);
    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(5);
            self.0.read(&mut buf[..n])
        }
    }

    #[test]
    fn chunks_and_threads_read_like_one_sequential_pass() {
        let good = "main (3 / 10)\n  f (1 / 4) x2\n    g (3 / 3)\n  h (2 / 3)\r\n    g (1 / 1)\n";
        let cases = [
            good.repeat(20),
            // the precision grows late, also past saturating numbers
            format!("{}  k (0.5 / 1.25)\n{}", good.repeat(15), good.repeat(3)),
            format!("a (999999999999999999 / 999999999999999999)\n{good}  b (1.000000001 / 2)\n"),
            "a (18446744073.709551615 / 1.5)\n b (0.0 / 12345678901234567.123456789)\n".to_string(),
            // errors, as a line and as an indentation
            format!("{}  f (1 / x)\n{}", good.repeat(10), good.repeat(10)),
            format!(
                "{}    deep (1 / 1)\n   odd (1 / 1)\n{}",
                good.repeat(10),
                good
            ),
            format!("{}  f (1 / 1.1234567891)\n{good}", good.repeat(5)),
            format!("{good}f (1 / 2) x99999999999999999999\n{good}"),
            // tabs, NBSP, odd spacing, comments, blank lines, no final line end
            format!(
                "{good}\tt (1 / 1)\n\u{a0}n (1 / 1)\n# c\n\n   \n{good}x ( 1 /2 )  x3\ny (1 / 2)"
            ),
            format!("{good}e\\x20 (1 / 1)\n  \\#h (1 / 1)\ns p (2 / 2) x4\nend\u{a0} (1 / 1)\n"),
            // synthetic thread nodes: only at depth 0
            format!("[thread 7] (0 / 10)\n{good}  [thread 8] (1 / 1)\n[thread 8] (0 / 1)\n"),
            // units: throughout, a time unit late after integers only (no
            // reread) or after decimals (read again whole), calls
            format!("main (1.5 us / 2 ms)\n  f (700ns / 1.9985 ms) x2\n{good}"),
            format!(
                "{}  k (1 ms / 2.5 ms)\n{}  j (1.5 / 2)\n",
                good.repeat(12),
                good
            ),
            format!("a (0.5 / 1)\n{}  k (1 us / 2 us)\n{good}", good.repeat(12)),
            format!(
                "{}  k (1 calls / 2.5 calls)\n{good}  q (1 min / 2 min)\n",
                good.repeat(9)
            ),
            // not UTF-8: fatal wherever it is, before any line error
            format!(
                "{}  f (1 / x)\n{}g\u{ff} (1 / 1)\n",
                good.repeat(4),
                good.repeat(8)
            ),
        ];
        for (i, text) in cases.iter().enumerate() {
            let mut bytes = text.clone().into_bytes();
            if i == cases.len() - 1 {
                let at = bytes.len() - 10;
                bytes[at] = 0xff;
            }
            for lenient in [false, true] {
                let whole = Input::from_bytes("t.txt", bytes.clone());
                let reference = sequential(&whole, lenient);
                for threads in 1..=8 {
                    for chunk in [1, 7, 64, 0] {
                        assert_eq!(
                            chunked(&whole, lenient, threads, chunk),
                            reference,
                            "case {i} lenient {lenient} threads {threads} chunk {chunk}"
                        );
                    }
                }
                let reader = Trickle(std::io::Cursor::new(bytes.clone()));
                let stream = Input::from_reader("t.txt", Box::new(reader)).unwrap();
                assert_eq!(chunked(&stream, lenient, 2, 10), reference, "stream {i}");
            }
        }
    }

    #[test]
    fn the_reference_sees_what_the_cases_are_about() {
        let whole = |s: &str| Input::from_bytes("t.txt", s.as_bytes().to_vec());
        let late = sequential(&whole("a (1 / 2)\n b (0.25 / 0.5)\n"), false);
        assert!(late.contains("self_time: 100, total: 200"), "{late}");
        let bad = sequential(
            &Input::from_bytes("t.txt", b"a (1 / x)\n\xff".to_vec()),
            false,
        );
        assert!(bad.starts_with("error: t.txt:2: expected UTF-8"), "{bad}");
    }

    #[test]
    fn the_fast_path_reads_what_the_general_path_reads() {
        fn read(line: &str) -> (Option<Read<'_>>, Option<Read<'_>>) {
            let fast = fast_line(line.as_bytes()).map(|f| {
                let name = std::str::from_utf8(f.name).unwrap();
                (name, value(f.self_time), value(f.total), f.calls)
            });
            let slow = parse_line(line).ok().map(|l| {
                (
                    l.name,
                    value(Number::of(l.self_time, l.self_unit)),
                    value(Number::of(l.total, l.total_unit)),
                    l.calls,
                )
            });
            (fast, slow)
        }
        type Read<'a> = (&'a str, Value, Value, u64);
        type Value = (u64, u8, u64);
        fn value(n: Number) -> Value {
            (n.digits, n.decimals, n.nanos())
        }
        for line in [
            "f (1 / 2)",
            "f (1.5 / 2) x3",
            "a b (0.000000001 / 999999.999999999) x9999999999999999999",
            "f() const (12 / 34)",
        ] {
            let (fast, slow) = read(line);
            assert!(fast.is_some(), "{line}");
            assert_eq!(fast, slow, "{line}");
        }
        // Left to the general path, which accepts some and rejects others.
        for line in [
            "f (1 / 2) x18446744073709551615",
            "g (1 / 2)x3",
            "g (1 / 2)  x3",
            "g (1. / 2)",
            "g (.1 / 2)",
            "g (1 /2)",
            "g(1 / 2)",
            " (1 / 2)",
            "g (1 / 2.1234567890)",
            "g (1234567890123456789 / 2)",
            "g (9007199254740992 / 2)",
            "g (1 ms / 2 ms)",
        ] {
            assert_eq!(read(line).0, None, "{line}");
        }
    }

    #[test]
    fn spaces_and_digits_are_counted_across_words() {
        for n in 0..40 {
            let line = format!("{}f (1 / 1)", " ".repeat(n));
            assert_eq!(leading_spaces(line.as_bytes()), n);
            assert_eq!(leading_spaces(&line.as_bytes()[..n]), n);
            let digits = "1234567890".repeat(4);
            let text = format!("x{}", &digits[..n]);
            let value = digits[..n.min(19)].parse::<u64>().unwrap_or(0);
            let (count, got) = digits_before(text.as_bytes(), text.len());
            assert_eq!(count, n);
            if n <= 19 {
                assert_eq!(got, value, "{n}");
            }
        }
    }

    #[test]
    fn the_trees_scale_times_read_before_the_precision_grew() {
        use crate::calltree::{CallsBuilder, ContextsBuilder};
        let text = "a (1 / 3)\n  b (2 / 2)\na (1 / 999999999999999999)\n  b (0.5 / 0.75)\n";
        let input = Input::from_bytes("t.txt", text.as_bytes().to_vec());
        let opts = ParseOptions::default();
        let mut funcs = FuncTable::default();
        let mut calls = CallsBuilder::default();
        let meta = IndentedFormat
            .parse(&input, &opts, &mut funcs, &mut calls)
            .unwrap();
        let (tree, _) = calls.finish(&meta, &mut funcs);
        assert_eq!(tree.total, [u64::MAX, 300, 200, u64::MAX, 75]);
        assert_eq!(tree.self_time, [0, 100, 200, 100, 50]);
        let mut funcs = FuncTable::default();
        let mut ctx = ContextsBuilder::default();
        let meta = IndentedFormat
            .parse(&input, &opts, &mut funcs, &mut ctx)
            .unwrap();
        let (tree, _) = ctx.finish(&meta, &mut funcs);
        assert_eq!(tree.total, [u64::MAX, u64::MAX, 275]);
        assert_eq!(tree.self_time, [0, 200, 250]);
    }

    /// A line of an indented trace: mostly usual ones, some odd or wrong.
    fn line_strategy() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let number = prop_oneof![
            (0u64..100_000).prop_map(|n| n.to_string()),
            (0u64..100_000, 1usize..4).prop_map(|(n, d)| format!("{}.{:0d$}", n / 1000, n % 1000)),
        ];
        let usual = (
            0usize..5,
            prop::sample::select(vec!["main", "f", "g(int)", "[thread 2]", "a\\x20b"]),
            number.clone(),
            number,
            prop::option::of(1u64..5),
            prop::bool::ANY,
        )
            .prop_map(|(depth, name, s, t, n, crlf)| {
                let calls = n.map(|n| format!(" x{n}")).unwrap_or_default();
                let end = if crlf { "\r\n" } else { "\n" };
                format!("{}{name} ({s} / {t}){calls}{end}", "  ".repeat(depth))
            });
        let odd = prop::sample::select(vec![
            "\n",
            "# note\n",
            "\tt (1 / 1)\n",
            "   o (1 / 1)\n",
            "w (1 / x)\n",
            "  w ( 1 /2 )  x2 \n",
            "w (1 / 0.0000000001)\n",
            "u (1 us / 2.5 ms)\n",
            "c (1 calls / 2 calls)\n",
        ])
        .prop_map(str::to_string);
        prop_oneof![20 => usual, 1 => odd]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn chunked_parsing_matches_one_sequential_pass(
            lines in proptest::collection::vec(line_strategy(), 1..120),
            chunk in 1usize..300,
            threads in 1usize..5,
            lenient in proptest::bool::ANY,
        ) {
            let input = Input::from_bytes("t.txt", lines.concat().into_bytes());
            let reference = sequential(&input, lenient);
            proptest::prop_assert_eq!(&chunked(&input, lenient, threads, chunk), &reference);
        }
    }
}
