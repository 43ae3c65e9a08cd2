//! The fast path of the indented reader: the usual line,
//! `<spaces>name (S[ U] / T[ U])[ xN]` with single spaces, a time unit
//! `ns`, `us`, `ms` or `s` or none, and `\n` or `\r\n` at its end, read
//! in one pass from its first byte, eight bytes at a time: the
//! indentation, the name up to the `(` that opens the numbers, both
//! numbers (digits, point and unit found with bit tricks on one word,
//! converted with the SWAR helpers of the E/X scanner), the call count
//! and the line end. The line end falls out of the parse, so lines are
//! not searched for `\n` first. A line that starts with the same bytes
//! as the last one (indentation, name and ` (`: a run of calls of one
//! function) is read from its `(` on, see [`Prefix`]. Anything else (tabs,
//! other white space, non-ASCII bytes, odd spacing, long numbers,
//! comments, blank lines, errors) is left to the general `str` path, which
//! reads every line the same way; the fast path only takes lines it reads
//! exactly as that path does.

use super::super::ex::digits::{digits, eight};
use super::{EXACT_F64, MAX_DECIMALS, Number, POW10, Rec};

/// What [`scan`] read from one line; positions are from its start.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fast {
    /// Columns of indentation.
    pub width: usize,
    /// Where the name starts and ends.
    pub name: (usize, usize),
    pub self_time: Number,
    pub total: Number,
    pub calls: u64,
    /// [`Rec::TIME`] when a number carries a time unit.
    pub units: u8,
    /// Where the next line starts.
    pub next: usize,
    /// The name is the hint's (see [`scan`]).
    pub hinted: bool,
}

/// What the fast path reads of a line: its bytes from its start, in a
/// window of fixed size, so that reading a word at a masked offset needs
/// no bounds check. A line whose `(` is past [`PAREN_BEFORE`] takes the
/// general path; every offset [`scan`] reads then stays below [`SPAN`]
/// (the longest tail, two numbers of 25 digits with units and a call
/// count of 19, ends before byte 170).
pub(super) type Window = [u8; WINDOW];
const SPAN: usize = 256;
pub(super) const WINDOW: usize = SPAN + 8;
const PAREN_BEFORE: usize = 64;

/// The word at offset `o` (below [`SPAN`]) of a window.
#[inline(always)]
pub(super) fn word(win: &Window, o: usize) -> u64 {
    let o = o & (SPAN - 1);
    u64::from_le_bytes(win[o..o + 8].try_into().expect("8 bytes"))
}

/// The byte at offset `o` (below [`SPAN`]) of a window.
#[inline(always)]
fn byte(win: &Window, o: usize) -> u8 {
    win[o & (SPAN - 1)]
}

/// Nanoseconds per unit: none (the number's own nanoseconds), `ns`, `us`,
/// `ms`, `s`, as doubles and as a power of ten.
const SCALE: [f64; 5] = [1.0, 1.0, 1e3, 1e6, 1e9];
const SCALE_EXP: [u8; 5] = [0, 0, 3, 6, 9];

/// Powers of ten as doubles, for [`nanos`].
const POW10F: [f64; MAX_DECIMALS + 1] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/// Below this, a decimal's double is close enough to it that rounding the
/// double's product with a unit gives the exact product when that is a
/// whole number (the double is within 2^-12 of it).
const EXACT_NANOS: u64 = 1 << 40;

/// The start of the last line read by [`scan`]: its indentation and name
/// then ` (`. The next line most often starts with the same bytes (a run
/// of calls of one function), and is then known to have that indentation
/// and name without reading them. The last line's bytes are compared
/// where they are, in the chunk: nothing is copied for a line that starts
/// otherwise, most lines of a program with few repeated calls.
#[derive(Clone, Copy, Default)]
pub(super) struct Prefix<'a> {
    /// The last line's first bytes (None: no hint).
    line: Option<&'a [u8; HINT]>,
    /// Bytes up to and with the `(` (at most [`PAREN_BEFORE`]).
    len: usize,
    /// The indentation.
    width: usize,
}

/// Bytes of the last line a [`Prefix`] keeps: its longest prefix and room
/// to read a word at any offset below it.
const HINT: usize = PAREN_BEFORE + 8;

impl<'a> Prefix<'a> {
    /// The prefix of the line at the start of `win`, read by [`scan`] as `f`.
    #[cfg(test)]
    pub fn of(win: &'a Window, f: &Fast) -> Prefix<'a> {
        Prefix {
            line: win.first_chunk(),
            len: f.name.1 + 2,
            width: f.width,
        }
    }

    /// The prefix of the line at `pos` in `bytes`, read by [`scan`] as
    /// `f`; no hint when the chunk ends within [`HINT`] bytes of it.
    #[inline(always)]
    pub(super) fn at(bytes: &'a [u8], pos: usize, f: &Fast) -> Prefix<'a> {
        Prefix {
            line: bytes.get(pos..).and_then(<[u8]>::first_chunk),
            len: f.name.1 + 2,
            width: f.width,
        }
    }

    /// Whether the line at the start of `win` begins with this prefix:
    /// the whole words before its last 8 bytes, and the word ending at it.
    #[inline(always)]
    fn starts(&self, win: &Window) -> bool {
        let Some(last) = self.line else {
            return false;
        };
        let word_of_last = |o: usize| {
            let o = o & (PAREN_BEFORE - 1);
            u64::from_le_bytes(last[o..o + 8].try_into().expect("8 bytes"))
        };
        let len = self.len;
        if len <= 8 {
            let care = if len == 8 {
                u64::MAX
            } else {
                (1 << (8 * len)) - 1
            };
            return (word(win, 0) ^ word_of_last(0)) & care == 0;
        }
        let mut diff = word(win, len - 8) ^ word_of_last(len - 8);
        let mut k = 0;
        while k + 8 < len {
            diff |= word(win, k) ^ word_of_last(k);
            k += 8;
        }
        diff == 0
    }
}

/// The line at the start of `win`, if it is a usual one (see the module
/// docs). A line that starts with `prev` is read from its `(` on; it has
/// `prev`'s indentation and name (and `hinted` says so).
#[inline(always)]
pub(super) fn scan(win: &Window, prev: &Prefix) -> Option<Fast> {
    if prev.starts(win)
        && let Some((self_time, total, calls, units, next)) = tail(win, prev.len - 1)
    {
        return Some(Fast {
            width: prev.width,
            name: (prev.width, prev.len - 2),
            self_time,
            total,
            calls,
            units,
            next,
            hinted: true,
        });
    }
    let mut i = 0;
    loop {
        let other = word(win, i) ^ 0x2020_2020_2020_2020;
        if other != 0 {
            i += (other.trailing_zeros() / 8) as usize;
            break;
        }
        i += 8;
        if i >= PAREN_BEFORE {
            return None;
        }
    }
    match byte(win, i) {
        b'#' | 0..=b' ' | 0x80.. => return None,
        _ => {}
    }
    let mut open = i + 1;
    loop {
        open = paren(win, open)?;
        if let Some((self_time, total, calls, units, next)) = tail(win, open) {
            let end = open - 1;
            if byte(win, end) != b' ' {
                open += 1;
                continue;
            }
            match byte(win, end - 1) {
                b'\t'..=b'\r' | b' ' => return None,
                _ => {}
            }
            return Some(Fast {
                width: i,
                name: (i, end),
                self_time,
                total,
                calls,
                units,
                next,
                hinted: false,
            });
        }
        open += 1;
    }
}

/// A usual line that [`scan`] leaves because its `(` is past
/// [`PAREN_BEFORE`]: a long name (C++ names, with their parameter lists)
/// or a deep indentation. `rest` starts with the line, whose `\n` is at
/// `end`. The numbers follow the line's last `(` (as the general path
/// reads it), and are read as [`scan`] reads them; the name is then
/// everything between the indentation and the ` (` before them. Lines
/// with other than ASCII bytes are left to the general path.
pub(super) fn long(rest: &[u8], end: usize) -> Option<Fast> {
    let line = rest.get(..end)?;
    if !ascii(line) {
        return None;
    }
    let width = spaces(line);
    match line.get(width)? {
        b'#' | 0..=b' ' => return None,
        _ => {}
    }
    let open = memchr::memrchr(b'(', line)?;
    if open < width + 2 || line[open - 1] != b' ' {
        return None;
    }
    if let b'\t'..=b'\r' | b' ' = line[open - 2] {
        return None;
    }
    let padded;
    let win: &Window = match rest.get(open..open + WINDOW) {
        Some(win) => win.try_into().expect("a window"),
        None => {
            padded = pad(&rest[open..]);
            &padded
        }
    };
    let (self_time, total, calls, units, next) = tail(win, 0)?;
    (open + next == end + 1).then_some(Fast {
        width,
        name: (width, open - 1),
        self_time,
        total,
        calls,
        units,
        next: open + next,
        hinted: false,
    })
}

/// Whether `line` has only ASCII bytes: 16 at a time, the last 16 read
/// overlapping the ones before (`<[u8]>::is_ascii` reads a long line's
/// last bytes one by one).
fn ascii(line: &[u8]) -> bool {
    let Some(last) = line.last_chunk::<16>() else {
        return line.is_ascii();
    };
    let (blocks, _) = line.as_chunks::<16>();
    let high = blocks.iter().fold(u128::from_le_bytes(*last), |acc, b| {
        acc | u128::from_le_bytes(*b)
    });
    high & 0x8080_8080_8080_8080_8080_8080_8080_8080 == 0
}

/// The spaces `line` starts with, eight at a time.
fn spaces(line: &[u8]) -> usize {
    let mut n = 0;
    while let Some(w) = line.get(n..n + 8) {
        let other = u64::from_le_bytes(w.try_into().expect("8 bytes")) ^ 0x2020_2020_2020_2020;
        if other != 0 {
            return n + (other.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + line[n..].iter().take_while(|&&c| c == b' ').count()
}

/// The last bytes of a chunk in a zero-padded window.
#[cold]
pub(super) fn pad(rest: &[u8]) -> Window {
    let mut win = [0; WINDOW];
    let n = rest.len().min(WINDOW);
    win[..n].copy_from_slice(&rest[..n]);
    win
}

/// [`name_words`] of the name `name`, read from a slice.
pub(super) fn slice_words(name: &[u8]) -> (u64, u64) {
    let mut first = [0; 8];
    let n = name.len().min(8);
    first[..n].copy_from_slice(&name[..n]);
    let last = match name.len().checked_sub(8) {
        Some(k) => u64::from_le_bytes(name[k..].try_into().expect("8 bytes")),
        None => 0,
    };
    (u64::from_le_bytes(first), last)
}

/// The name of `len` bytes at `i` as its first and last words (the last
/// zero below 8 bytes): all of it up to 16 bytes.
#[inline(always)]
pub(super) fn name_words(win: &Window, i: usize, len: usize) -> (u64, u64) {
    let first = word(win, i);
    if len < 8 {
        (first & ((1 << (8 * len)) - 1), 0)
    } else {
        (first, word(win, i + len - 8))
    }
}

/// High bits of the bytes of `w` equal to `byte`; exact up to the first
/// such byte (borrows only disturb the bytes above it).
#[inline(always)]
fn eq_flags(w: u64, byte: u8) -> u64 {
    let x = w ^ (0x0101_0101_0101_0101 * byte as u64);
    x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080
}

/// The first `(` at or after `j`, before the line end and
/// [`PAREN_BEFORE`], in a name of ASCII bytes.
#[inline(always)]
fn paren(win: &Window, mut j: usize) -> Option<usize> {
    loop {
        if j >= PAREN_BEFORE {
            return None;
        }
        let w = word(win, j);
        let stop = eq_flags(w, b'(') | eq_flags(w, b'\n') | (w & 0x8080_8080_8080_8080);
        if stop != 0 {
            let at = j + (stop.trailing_zeros() / 8) as usize;
            return (byte(win, at) == b'(' && at < PAREN_BEFORE).then_some(at);
        }
        j += 8;
    }
}

/// The numbers, call count and line end after the `(` at `open`:
/// (self, total, calls, units, start of the next line).
#[inline(always)]
fn tail(win: &Window, open: usize) -> Option<(Number, Number, u64, u8, usize)> {
    let start = open + 1;
    let (mut self_time, j) = number(win, start)?;
    let (self_unit, j) = unit(win, j, b'/')?;
    if self_unit != 0 {
        self_time.nanos = Some(nanos(self_time, self_unit));
    }
    // A leaf's total is its self time, often written the same.
    let len = j - 3 - start;
    let (total, total_unit, j) = if same_text(win, start, j, len) {
        (self_time, self_unit, j + len + 1)
    } else {
        let (mut total, j) = number(win, j)?;
        let (total_unit, j) = unit(win, j, b')')?;
        if total_unit != 0 {
            total.nanos = Some(nanos(total, total_unit));
        }
        (total, total_unit, j)
    };
    let (calls, next) = line_end(win, j)?;
    let units = if self_unit | total_unit != 0 {
        Rec::TIME
    } else {
        0
    };
    Some((self_time, total, calls, units, next))
}

/// Whether the `len` bytes at `a` are those at `c`, followed by `)`.
#[inline(always)]
fn same_text(win: &Window, a: usize, c: usize, len: usize) -> bool {
    let mask = if len >= 8 {
        u64::MAX
    } else {
        (1 << (8 * len)) - 1
    };
    len <= 8 && (word(win, a) ^ word(win, c)) & mask == 0 && byte(win, c + len) == b')'
}

/// `n` in unit `unit` (an index into [`SCALE`]) as whole nanoseconds,
/// as parsing its text as a double, scaling and rounding it gives
/// ([`super::in_nanos`]).
#[inline(always)]
pub(super) fn nanos(n: Number, unit: usize) -> u64 {
    // Whole nanoseconds, the usual case: the digits themselves, without
    // the table lookups and the multiplication on the way of the value.
    if unit == 1 && n.decimals == 0 && n.digits < EXACT_NANOS {
        return n.digits;
    }
    // A whole number of nanoseconds: the product, unless it is huge.
    if let Some(places) = SCALE_EXP[unit].checked_sub(n.decimals)
        && let Some(v) = n.digits.checked_mul(POW10[places as usize])
        && v < EXACT_NANOS
    {
        return v;
    }
    nanos_f64(n, unit)
}

/// [`nanos`] by doubles: digits below 2^53 and powers of ten are exact
/// doubles, so their quotient is the double nearest the decimal, as
/// parsing its text gives.
#[cold]
fn nanos_f64(n: Number, unit: usize) -> u64 {
    (n.digits as f64 / POW10F[n.decimals as usize] * SCALE[unit]).round() as u64
}

/// A number at `j`: up to 15 integer digits and [`MAX_DECIMALS`]
/// decimals, below 2^53 as digits, and where it ends.
#[inline(always)]
fn number(win: &Window, j: usize) -> Option<(Number, usize)> {
    let w = word(win, j);
    let int = digits(w);
    if int == 0 {
        return None;
    }
    if int < 7 {
        // The usual number: it and the byte after it are in `w`.
        let rest = w >> (8 * int);
        let dot = rest & 0xff == b'.' as u64;
        let frac = if dot { digits(rest >> 8) } else { 0 };
        let len = int + dot as usize + frac;
        if len < 8 && frac > 0 || !dot {
            let low = (1u64 << (8 * int)) - 1;
            let joined = (w & low) | ((w >> 8) & !low);
            let n = int + frac;
            let number = Number {
                digits: if n <= 4 {
                    four((joined << (32 - 8 * n)) as u32)
                } else {
                    eight(joined << (64 - 8 * n))
                },
                decimals: frac as u8,
                nanos: None,
            };
            return Some((number, j + len));
        }
    }
    long_number(win, j)
}

/// The value of 4 ASCII digits, first digit in the lowest byte (zero
/// bytes below count as leading zeros): [`eight`] with one step less.
#[inline(always)]
fn four(w: u32) -> u64 {
    let w = ((w & 0x0f0f_0f0f).wrapping_mul(10 << 8 | 1)) >> 8;
    (((w & 0x00ff_00ff).wrapping_mul(100 << 16 | 1)) >> 16) as u64
}

/// [`number`] one byte at a time.
#[cold]
fn long_number(b: &[u8], j: usize) -> Option<(Number, usize)> {
    let run = |from: usize| {
        let n = b
            .get(from..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        Some((n, from + n))
    };
    let (int, mut end) = run(j)?;
    let mut frac = 0;
    if b.get(end) == Some(&b'.') {
        (frac, end) = run(end + 1)?;
        if frac == 0 {
            return None;
        }
    }
    if int == 0 || int > 15 || frac > MAX_DECIMALS {
        return None;
    }
    let digits = b[j..end]
        .iter()
        .filter(|c| c.is_ascii_digit())
        .try_fold(0u64, |v, &c| {
            v.checked_mul(10)?.checked_add((c - b'0') as u64)
        })
        .filter(|&v| v < EXACT_F64)?;
    let number = Number {
        digits,
        decimals: frac as u8,
        nanos: None,
    };
    Some((number, end))
}

/// After a number at `j`: an optional unit (` ns`, ` us`, ` ms`, ` s`),
/// then ` / ` (`sep` is `/`) or `)`. The unit's index into [`SCALE`] (0:
/// none) and where the separator ends.
#[inline(always)]
fn unit(win: &Window, j: usize, sep: u8) -> Option<(usize, usize)> {
    let w = word(win, j);
    // The separator with the space before it, as bytes from the lowest.
    let (tail, tail_len, tail_mask) = match sep {
        b'/' => (0x20_2f20u64, 3, 0xff_ffffu64),
        _ => (b')' as u64, 1, 0xff),
    };
    // ` ns`, ` us` or ` ms` then the separator: what `calltrace tree`
    // writes below a second, so it is tried first.
    let u = PREFIX_UNIT[(w >> 8) as u8 as usize];
    if w & 0xff00ff == 0x73_0020 && (w >> 24) & tail_mask == tail && u != 0 {
        return Some((u as usize, j + 3 + tail_len));
    }
    if w & tail_mask == tail {
        return Some((0, j + tail_len));
    }
    // ` s` then the separator.
    if w & 0xffff == 0x7320 && (w >> 16) & tail_mask == tail {
        return Some((4, j + 2 + tail_len));
    }
    None
}

/// The [`SCALE`] index of a unit `Xs` by its first letter `X`; 0 for none.
static PREFIX_UNIT: [u8; 256] = {
    let mut t = [0; 256];
    t[b'n' as usize] = 1;
    t[b'u' as usize] = 2;
    t[b'm' as usize] = 3;
    t
};

/// After the `)` at `j - 1`: `\n`, `\r\n`, or ` xN` (up to 19 digits)
/// then one of those. The call count and the start of the next line.
#[inline(always)]
fn line_end(win: &Window, j: usize) -> Option<(u64, usize)> {
    match byte(win, j) {
        b'\n' => Some((1, j + 1)),
        b'\r' if byte(win, j + 1) == b'\n' => Some((1, j + 2)),
        b' ' if byte(win, j + 1) == b'x' => {
            let from = j + 2;
            let digits = win[from..].iter().take(20);
            let n = digits.take_while(|c| c.is_ascii_digit()).count();
            if n == 0 || n > 19 {
                return None;
            }
            let calls = win[from..from + n].iter().fold(0u64, |v, &c| {
                v.wrapping_mul(10).wrapping_add((c - b'0') as u64)
            });
            match (byte(win, from + n), byte(win, from + n + 1)) {
                (b'\n', _) => Some((calls, from + n + 1)),
                (b'\r', b'\n') => Some((calls, from + n + 2)),
                _ => None,
            }
        }
        _ => None,
    }
}
