//! Line shapes: where the fields of a run of lines of one shape are, worked
//! out once for the run, for the predicted path of the scanner.

use super::*;

/// Where the fields of a line `[EX]0x<hex>[ <time>[ <tid>]][\r]\n` are,
/// as offsets from its first byte, and the masks reading them takes:
/// worked out once for a run of lines of the same shape rather than for
/// every line. Only shapes whose line fits a window's first 64 bytes are
/// kept (up to 15 hex digits, 16 timestamp digits, 8 thread id digits).
#[derive(Clone, Copy, Default)]
pub(super) struct Shape {
    /// Columns after the address: 0 (`instrument.c`), 1 (timestamp) or 2
    /// (timestamp and thread id).
    pub(super) cols: u8,
    /// The byte after the address: a space, or the line end without columns.
    pub(super) sp1: usize,
    /// The space after the timestamp (two columns only).
    pub(super) sp2: usize,
    /// The two bytes ending with the line end, masked, and what they must be
    /// (`\r\n`, or a digit and `\n`).
    pub(super) end: (usize, u16, u16),
    /// Masks keeping the address digits of the words at 3 and 11.
    pub(super) key_mask: (u64, u64),
    /// For lines read from a window that starts after the line does (the
    /// columns after a symbolic line's name): the timestamp's 16 bytes
    /// shift left by this to end at the top byte...
    pub(super) time_shift: u32,
    /// ...and get these `0`s shifted in below them.
    pub(super) time_pad: u128,
    /// Where the two words ending at the timestamp's end start: the
    /// timestamp, left-padded with `0`s to 16 digits, is the first masked
    /// and padded with `time_hi`, then the second with `time_lo`. Two
    /// loads at fixed offsets instead of a 16-byte load and a shift by a
    /// variable count.
    pub(super) time_at: (usize, usize),
    /// (keep mask, `0` padding) of the word at `time_at.0`...
    pub(super) time_hi: (u64, u64),
    /// ...and of the word at `time_at.1`.
    pub(super) time_lo: (u64, u64),
    /// The same for the thread id, in 8 bytes.
    pub(super) tid_mask: u64,
    pub(super) tid_shift: u32,
    pub(super) tid_pad: u64,
}

/// The low `n` (0 to 8) bytes of a u64 set.
pub(super) fn low_bytes(n: usize) -> u64 {
    if n >= 8 { u64::MAX } else { (1 << (8 * n)) - 1 }
}

impl Shape {
    /// The shape of the event line `line` (without its `\n`), if it is one
    /// that fits.
    pub(super) fn of(line: &[u8]) -> Option<Shape> {
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
    pub(super) fn words_fit(&self) -> bool {
        self.time_at.0 < 64 && self.time_at.1 < 64
    }

    /// The shape of the columns after a symbolic line's name (`tail`: from
    /// the name's end to the line end, without the `\n`), as if the line
    /// were an address line with a zero-digit address: offsets are from
    /// three bytes before the name's end.
    pub(super) fn of_tail(tail: &[u8]) -> Option<Shape> {
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
    pub(super) fn with_name(tail: &Shape, len: usize) -> Option<Shape> {
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
    pub(super) fn fields(
        hex: usize,
        t: Option<&[u8]>,
        th: Option<&[u8]>,
        cr: bool,
    ) -> Option<Shape> {
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
pub(super) struct NameShapes {
    /// Indexed by the name's length; only those `fits` has are meant.
    pub(super) by_len: [Shape; 16],
    /// Bit `n` set: a line whose name has `n` bytes has the shape
    /// `by_len[n]` (it fits a window's first 64 bytes).
    pub(super) fits: u32,
    /// The columns `by_len` was worked out for; None: not yet.
    pub(super) cols: Option<u8>,
}

impl NameShapes {
    /// The shapes of lines with `COLS` columns after the name, shaped as
    /// `tail` ([`Shape::of_tail`]); none when there is no such tail.
    pub(super) fn new<const COLS: u8>(tail: Option<&Shape>) -> Self {
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
pub(super) const ZEROS4: u32 = u32::from_le_bytes(*b"0000");

/// The cache entry of [`Parser::time_high`] for a timestamp whose first 8
/// digits are `high` and next 4 are `mid` (the low half of the word): None
/// when any is not a digit.
#[cold]
pub(super) fn time_high(high: u64, mid: u64) -> Option<(u64, u64, u64)> {
    if any_non_digit(high) | any_non_digit(mid | u64::from(ZEROS4) << 32) {
        return None;
    }
    let value = eight(high) * 100_000_000 + eight(mid << 32) * 10_000;
    Some((high, mid, value))
}
