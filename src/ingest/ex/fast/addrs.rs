//! Scanning lines of addresses: runs of lines of the predicted shape, and
//! a line field by field when the prediction fails.

use super::shape::*;
use super::*;

/// The shortest and longest two lines of a leaf call [`repeats`] compares.
const REPEAT_MIN: usize = 16;
const REPEAT_MAX: usize = 64;

/// Whether the `len` bytes at `i` are the `len` bytes before them
/// (`len` within [`REPEAT_MIN`]`..=`[`REPEAT_MAX`], `i + len` within `b`):
/// their first and last 16 bytes, and with more than 32 the 16 after the
/// first and before the last.
#[inline(always)]
fn repeats(b: &[u8], i: usize, len: usize) -> bool {
    let at = |k: usize| {
        b.get(k..k + 16)
            .and_then(|s| s.first_chunk::<16>())
            .map(|s| u128::from_le_bytes(*s))
    };
    let same = |k: usize| matches!((at(i - len + k), at(i + k)), (Some(x), Some(y)) if x == y);
    let tail = len - 16;
    same(0) & same(tail) & (len <= 32 || (same(16) & same(tail - 16)))
}

impl Parser {
    /// Reads the run of lines of shape `sh` (with `COLS` columns) that
    /// starts at `i`, handing their events to `consumer`: where the run
    /// ends and how many lines it had.
    #[inline(always)]
    pub(super) fn run<const COLS: u8, C: EventConsumer>(
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
        // Without columns, a leaf call's two lines are the same bytes each
        // time a loop calls it again (the commonest shape of a trace):
        // after a leaf call, `repeat` holds the length of its two lines
        // and its entry (None: no such call, or lines of a length out of
        // range), and the same bytes again are the same call, taken
        // without reading them.
        let mut repeat = None;
        while i <= last {
            if COLS == 0
                && let Some((len, e)) = repeat
                && repeats(b, i, len)
            {
                prefetch(b, i + AHEAD);
                if !consumer.untimed_leaf(e) {
                    return Err(Stop::Consumer);
                }
                lines += 2;
                i += len;
                continue;
            }
            let Some(win) = window(b, i) else { break };
            let Some((e, next)) = self.predicted::<COLS>(sh, win, b, i, thread0, local) else {
                break;
            };
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
                if COLS == 0 {
                    let leaf = x.kind == EventKind::Exit && x.func == e.func;
                    let len = after - i;
                    repeat = (leaf && (REPEAT_MIN..=REPEAT_MAX).contains(&len)).then_some((len, e));
                }
                lines += 2;
                i = after;
                continue;
            }
            if !take_one::<COLS, C>(consumer, e) {
                return Err(Stop::Consumer);
            }
            repeat = None;
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
    pub(super) fn predicted<const COLS: u8>(
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
    pub(super) fn tail_fits<const COLS: u8>(sh: &Shape, win: &[u8; WINDOW]) -> bool {
        // One mask for both bytes, so that they are read as one u16.
        let e = sh.end.0 & 63;
        let end = u16::from_le_bytes([win[e], win[e + 1]]);
        (COLS == 0 || win[sh.sp1 & 63] == b' ')
            & (COLS < 2 || win[sh.sp2 & 63] == b' ')
            & (end & sh.end.1 == sh.end.2)
    }

    /// The timestamp and local thread of a line of shape `sh` (with `COLS`
    /// columns) whose separators [`Parser::tail_fits`] checked; None when
    /// a column has something else than digits. `WORDS`: `win` starts at
    /// the line, so the timestamp is read as two words
    /// ([`Shape::time_at`]); else as 16 bytes after `sh.sp1`, shifted.
    #[inline(always)]
    pub(super) fn tail<const COLS: u8, const WORDS: bool>(
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
    pub(super) fn new_tid(&mut self, sh: &Shape, text: u64, tids: &mut Vec<u64>) -> Option<()> {
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
    pub(super) fn event_line(
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
}
