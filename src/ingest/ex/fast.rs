//! The fast E/X scanner that worker threads run on whole chunks: one pass
//! over the bytes, parsing while scanning, for the lines our runtime and
//! `instrument.c` write (`E0x401136`, `E0x401136 1234`, `E0x401136 1234 77`,
//! with `\n` or `\r\n`, blank lines and comments other than `# base`).
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

use rustc_hash::FxHashMap;

use super::super::chunked::LocalEvents;
use super::super::{Event, EventKind};
use super::digits::{dec, digits_exactly, hex, hex_key, word};
use super::seq::is_base_header;

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

/// One entry of the direct-mapped cache from address text to local id.
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The hex digits as read (up to 15 bytes, zero-padded).
    key: (u64, u64),
    /// Chunk the local id belongs to.
    stamp: u32,
    id: u32,
}

/// A worker's scanner; its caches live across chunks.
pub(crate) struct Scanner {
    slots: Vec<Slot>,
    stamp: u32,
    /// The last thread id's text (zero-padded), length and value.
    tid_text: (u64, usize, u64),
    /// The predicted shape of the next line.
    shape: Shape,
    tid_index: FxHashMap<u64, u32>,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
            slots: vec![Slot::default(); SLOTS],
            stamp: 0,
            tid_text: (0, 0, 0),
            shape: Shape::default(),
            tid_index: FxHashMap::default(),
        }
    }
}

/// Lengths of the fields of a line `[EX]0x<hex> <time> <tid>[\r]\n`.
#[derive(Clone, Copy, Default)]
struct Shape {
    hex: usize,
    time: usize,
    tid: usize,
    cr: bool,
}

impl Shape {
    /// The shape of the three-column line `line` (without its `\n`), if it is one.
    fn of(line: &[u8]) -> Option<Shape> {
        let (body, cr) = match line.strip_suffix(b"\r") {
            Some(body) => (body, true),
            None => (line, false),
        };
        let mut fields = body.split(|&c| c == b' ');
        let (a, t, th) = (fields.next()?, fields.next()?, fields.next()?);
        if fields.next().is_some() || a.len() < 4 {
            return None;
        }
        Some(Shape {
            hex: a.len() - 3,
            time: t.len(),
            tid: th.len(),
            cr,
        })
    }
}

/// One event line's fields.
struct Line {
    kind: EventKind,
    func: u32,
    time: Option<u64>,
    tid: Option<u64>,
}

impl Scanner {
    /// Scans a chunk, reusing `out`'s buffers; None when the chunk has a
    /// line the scanner does not take.
    pub fn scan(&mut self, b: &[u8], mut out: FastChunk) -> Option<FastChunk> {
        self.next_stamp();
        self.tid_index.clear();
        out.local.clear();
        out.columns = None;
        let mut events = std::mem::take(&mut out.local.events);
        let mut lines = 0u64;
        let mut last_tid = (u64::MAX, 0u32);
        let mut i = 0;
        while i < b.len() {
            let (line, next) = match self.predicted(b, i, &mut out.local.addrs) {
                Some(found) => found,
                None => {
                    let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                    if !matches!(b[i], b'E' | b'X') {
                        if !skippable(&b[i..end]) {
                            return None;
                        }
                        i = end + 1;
                        lines += 1;
                        continue;
                    }
                    let line = self.event_line(b, i, end, &mut out.local.addrs)?;
                    if let Some(shape) = Shape::of(&b[i..end]) {
                        self.shape = shape;
                    }
                    (line, end + 1)
                }
            };
            i = next;
            let cols = (line.time.is_some(), line.tid.is_some());
            match out.columns {
                Some((t, th, _)) if (t, th) != cols => return None,
                Some(_) => {}
                None => out.columns = Some((cols.0, cols.1, lines)),
            }
            let tid = line.tid.unwrap_or(0);
            if tid != last_tid.0 {
                last_tid = (tid, self.thread(tid, &mut out.local.tids));
            }
            events.push(Event {
                time: line.time.unwrap_or(0),
                func: line.func,
                thread: last_tid.1,
                kind: line.kind,
            });
            lines += 1;
        }
        // The last line of a chunk may end it without a line end.
        if b.last().is_some_and(|&c| c != b'\n') {
            lines -= 1;
        }
        out.local.events = events;
        out.lines = lines;
        Some(out)
    }

    /// The line at `i` if it has the predicted shape: its fields and where
    /// the next line starts. None when the prediction does not hold (or the
    /// line is not an event), which [`Scanner::event_line`] then sorts out.
    #[inline(always)]
    fn predicted(&mut self, b: &[u8], i: usize, addrs: &mut Vec<u64>) -> Option<(Line, usize)> {
        let sh = self.shape;
        let sp1 = i + 3 + sh.hex;
        let sp2 = sp1 + 1 + sh.time;
        let nl = sp2 + 1 + sh.tid + sh.cr as usize;
        let line = b.get(i..=nl)?;
        // One branch for all the checks (`&`, not `&&`): entries and exits
        // alternate irregularly, so a branch on the letter would mispredict.
        let enter = line[0] == b'E';
        let ok = (enter | (line[0] == b'X'))
            & (line[1] == b'0')
            & (line[2] | 0x20 == b'x')
            & (line[sp1 - i] == b' ')
            & (line[sp2 - i] == b' ')
            & (line[nl - i] == b'\n')
            & (!sh.cr | (line[nl - i - 1] == b'\r'));
        if !ok {
            return None;
        }
        let kind = if enter {
            EventKind::Enter
        } else {
            EventKind::Exit
        };
        let func = self.func_of_len(b, i + 3, sh.hex, addrs)?;
        let time = digits_exactly(b, sp1 + 1, sh.time)?;
        let tid = self.tid_of_len(b, sp2 + 1, sh.tid)?;
        let line = Line {
            kind,
            func,
            time: Some(time),
            tid: Some(tid),
        };
        Some((line, nl + 1))
    }

    /// The thread id of `len` digits at `j`; the previous line's text is
    /// compared before converting.
    #[inline(always)]
    fn tid_of_len(&mut self, b: &[u8], j: usize, len: usize) -> Option<u64> {
        let w = word(b, j)?;
        if (1..8).contains(&len) {
            let text = w & ((1 << (8 * len)) - 1);
            if (text, len) == (self.tid_text.0, self.tid_text.1) {
                return Some(self.tid_text.2);
            }
            let tid = digits_exactly(b, j, len)?;
            self.tid_text = (text, len, tid);
            return Some(tid);
        }
        digits_exactly(b, j, len)
    }

    /// Like [`Scanner::func`] for a token of known length `len` at `j`.
    #[inline(always)]
    fn func_of_len(&mut self, b: &[u8], j: usize, len: usize, addrs: &mut Vec<u64>) -> Option<u32> {
        if !(1..16).contains(&len) {
            return None;
        }
        let (w0, w1) = (word(b, j)?, word(b, j + 8)?);
        let key = if len < 8 {
            (w0 & ((1 << (8 * len)) - 1), 0)
        } else {
            (w0, w1 & ((1u64 << (8 * (len - 8))) - 1))
        };
        let (id, end) = self.intern(b, j, key, len, addrs)?;
        (end == j + len).then_some(id)
    }

    fn next_stamp(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.iter_mut().for_each(|s| s.stamp = 0);
            self.stamp = 1;
        }
    }

    /// Reads the event line `b[i..end]` (`end` is its line end):
    /// `[EX]0x<hex>[ <dec>[ <dec>]]`, optionally followed by `\r`. Fields
    /// are read from `b` as a whole (8 bytes at a time) and then checked to
    /// end within the line.
    #[inline(always)]
    fn event_line(&mut self, b: &[u8], i: usize, end: usize, addrs: &mut Vec<u64>) -> Option<Line> {
        let kind = if b[i] == b'E' {
            EventKind::Enter
        } else {
            EventKind::Exit
        };
        if b.get(i + 1) != Some(&b'0') || !matches!(b.get(i + 2), Some(b'x' | b'X')) {
            return None;
        }
        let (func, mut j) = self.func(b, i + 3, addrs)?;
        let mut line = Line {
            kind,
            func,
            time: None,
            tid: None,
        };
        if b.get(j) == Some(&b' ') {
            let (t, k) = dec(b, j + 1)?;
            line.time = Some(t);
            j = k;
            if b.get(j) == Some(&b' ') {
                let (t, k) = self.tid(b, j + 1, end)?;
                line.tid = Some(t);
                j = k;
            }
        }
        match b.get(j..end)? {
            [] | [b'\r'] => Some(line),
            _ => None,
        }
    }

    /// The thread id at `j`, the last field of the line ending at `end`.
    /// Consecutive lines mostly repeat it, so its text is compared with the
    /// previous line's before converting it.
    #[inline(always)]
    fn tid(&mut self, b: &[u8], j: usize, end: usize) -> Option<(u64, usize)> {
        let stop = if end > j && b[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        let len = stop.saturating_sub(j);
        let text = match word(b, j) {
            Some(w) if (1..8).contains(&len) => w & ((1 << (8 * len)) - 1),
            _ => return dec(b, j),
        };
        if (text, len) == (self.tid_text.0, self.tid_text.1) {
            return Some((self.tid_text.2, stop));
        }
        let (tid, k) = dec(b, j)?;
        if k == stop {
            self.tid_text = (text, len, tid);
        }
        Some((tid, k))
    }

    /// The chunk-local id of the address whose hex digits start at `j`, and
    /// where they end. The digits' text is the cache key, so a known
    /// address costs two loads and a compare instead of a hex conversion.
    #[inline(always)]
    fn func(&mut self, b: &[u8], j: usize, addrs: &mut Vec<u64>) -> Option<(u32, usize)> {
        let Some((key, len)) = hex_key(b, j) else {
            // Near the chunk end or 16 digits: no caching; a fresh local id
            // is still correct (the consumer maps it to the same global id).
            let (addr, end) = hex(b, j)?;
            addrs.push(addr);
            return Some((addrs.len() as u32 - 1, end));
        };
        self.intern(b, j, key, len, addrs)
    }

    /// Looks the address text `key` (`len` bytes at `j`) up in the cache,
    /// converting and checking it on a miss.
    #[inline(always)]
    fn intern(
        &mut self,
        b: &[u8],
        j: usize,
        key: (u64, u64),
        len: usize,
        addrs: &mut Vec<u64>,
    ) -> Option<(u32, usize)> {
        let h = ((key.0 ^ key.1.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54)
            as usize
            % SLOTS;
        let slot = &mut self.slots[h];
        if slot.key == key && slot.stamp == self.stamp {
            return Some((slot.id, j + len));
        }
        let (addr, end) = hex(b, j)?;
        if end != j + len {
            return None;
        }
        // A colliding address evicts this one; seen again, it gets a second
        // local id, which the consumer maps to the same global id.
        let id = addrs.len() as u32;
        addrs.push(addr);
        *slot = Slot {
            key,
            stamp: self.stamp,
            id,
        };
        Some((id, end))
    }

    /// The chunk-local index of thread `tid`.
    fn thread(&mut self, tid: u64, tids: &mut Vec<u64>) -> u32 {
        let next = tids.len() as u32;
        let i = *self.tid_index.entry(tid).or_insert(next);
        if i == next {
            tids.push(tid);
        }
        i
    }
}

/// Whether a line that is not an event (without its `\n`) is a blank line
/// or a comment other than `# base`.
fn skippable(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.is_empty() || (line[0] == b'#' && !is_base_header(line))
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
}
