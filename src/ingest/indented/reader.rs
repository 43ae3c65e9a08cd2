//! The worker side of an indented parse: a [`Parser`] per parsing thread
//! reads a chunk's lines into compact records, or summarises them into a
//! [`Part`] for sinks that take node chunks.

use rustc_hash::FxHashMap;

use super::*;
use crate::ingest::ChunkWork;
use crate::ingest::chunked::ChunkParser;
use crate::ingest::funcs::MAX_NAME;
use crate::ingest::prefetch::{AHEAD, prefetch};

/// A parsing thread's state: names interned by their bytes (across
/// chunks), mapped to chunk-local ids per chunk.
pub(super) struct Parser {
    /// Names by their first and last eight bytes and their length: a
    /// direct-mapped cache in front of `ids` that answers the usual line
    /// without hashing its name (longer names are compared too).
    pub(super) cache: Box<[Slot; CACHE]>,
    pub(super) ids: FxHashMap<Box<[u8]>, u32>,
    /// Each name's text as written, and as read.
    pub(super) escaped: Vec<Box<[u8]>>,
    pub(super) names: Vec<Name>,
    /// Chunk-local id of each of this reader's names, [`UNSET`] if unused so far.
    pub(super) local: Vec<u32>,
    /// Summarise chunks into [`Part`]s (the sink takes [`NodeChunk`]s).
    pub(super) summarise: bool,
    pub(super) nodes: part::Nodes,
    /// The previous fast-path line's name (if up to 16 bytes) and its
    /// chunk-local id (in `id`; `len` 0 at a chunk's start): runs of one
    /// name skip the cache.
    pub(super) last: Slot,
}

impl Parser {
    pub(super) fn new(summarise: bool) -> Self {
        Parser {
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

impl ChunkParser for Parser {
    type Buffer = Out;
    type Parsed = Out;

    fn parse(&mut self, bytes: &[u8], mut out: Out, _: Option<&mut dyn ChunkWork>) -> Out {
        self.read(bytes, &mut out);
        out
    }
}

/// No id yet.
pub(super) const UNSET: u32 = u32::MAX;

/// A [`Parser::cache`] entry: a name's first and last words, its length
/// (0: empty) and id.
#[derive(Clone, Copy, Default)]
pub(super) struct Slot {
    pub(super) words: (u64, u64),
    pub(super) len: usize,
    pub(super) id: u32,
}

/// Entries in [`Parser::cache`]: only those a trace's names use are
/// touched, so a big table costs no cache space and rarely collides.
pub(super) const CACHE: usize = 1 << 14;

/// What a worker hands the calling thread for one chunk: a summary, or
/// (when the sink takes no summaries, or the chunk cannot be summarised)
/// its records. Both buffers are reused.
#[derive(Default)]
pub(super) struct Out {
    pub(super) summarised: bool,
    pub(super) part: Part,
    pub(super) parsed: Parsed,
}

/// One line as read.
pub(super) enum Read {
    /// Blank or a comment.
    Skip,
    Line(LineIn),
    /// A line that does not parse: its indentation and the message.
    Bad(usize, String),
    /// Bytes that are not UTF-8.
    NotUtf8,
}

/// Takes the lines [`Parser::lines`] reads.
pub(super) trait Each {
    /// Line `line` of the chunk (0-based); false to stop reading.
    fn line(&mut self, line: u64, read: Read) -> bool;
}

/// Lines into a [`Part`], until one it cannot stand for.
pub(super) struct ToPart<'a> {
    pub(super) part: &'a mut Part,
    pub(super) nodes: part::Nodes,
    pub(super) ok: bool,
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
pub(super) struct ToRecs {
    pub(super) recs: Vec<Rec>,
    pub(super) errors: Vec<String>,
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

impl Parser {
    /// Reads one chunk (whole lines) into `out`.
    pub(super) fn read(&mut self, bytes: &[u8], out: &mut Out) {
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
    pub(super) fn chunk(&mut self, bytes: &[u8], out: &mut Parsed) {
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
    /// of the line. Kept out of [`Parser::lines`]' loop, whose short lines
    /// it would slow down.
    #[inline(never)]
    fn other(&mut self, rest: &[u8], end: usize, names: &mut Vec<Name>) -> (Read, usize) {
        let Some(f) = line::long(rest, end) else {
            return (self.slow(&rest[..end], names), end + 1);
        };
        let (start, stop) = f.name;
        if stop - start > MAX_NAME
            && let Some(bad) = long_name(&rest[start..end], stop - start, f.width)
        {
            return (bad, f.next);
        }
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

    /// [`Parser::intern_fast`] through the cache.
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

/// A line read by [`line::long`] (`body`, from its name on) whose name of
/// `len` bytes as written is refused as over [`MAX_NAME`], as the general
/// path refuses it (see [`check_name`]); None if it is not.
#[cold]
fn long_name(body: &[u8], len: usize, width: usize) -> Option<Read> {
    // (that path reads ASCII lines only)
    let text = std::str::from_utf8(body).ok()?;
    check_name(text, &text[..len])
        .err()
        .map(|msg| Read::Bad(width, msg))
}
