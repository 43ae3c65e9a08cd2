//! Reading numbers from trace text eight bytes at a time (SWAR: SIMD
//! within a register): finding where a run of digits ends with a few bit
//! tricks on one `u64`, converting eight ASCII digits with three
//! multiplications, and byte-at-a-time fallbacks for the odd cases (near a
//! chunk's end, very long numbers). Used by the fast E/X scanner.

/// Value of each byte as a hex digit, 16 or more when it is not one.
static HEX: [u8; 256] = {
    let mut t = [255u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The text of the token at `j` (bytes up to the first byte below `!`,
/// zero-padded) and its length, when it ends within 15 bytes.
#[inline(always)]
pub(super) fn hex_key(b: &[u8], j: usize) -> Option<((u64, u64), usize)> {
    let (w0, w1) = (word(b, j)?, word(b, j + 8)?);
    let len = match (below_bang(w0), below_bang(w1)) {
        (0, _) => return None,
        (n @ 1..=7, _) => n,
        (8, n @ 0..=7) => 8 + n,
        _ => return None,
    };
    let key = if len < 8 {
        (w0 & ((1 << (8 * len)) - 1), 0)
    } else {
        (w0, w1 & ((1u64 << (8 * (len - 8))) - 1))
    };
    Some((key, len))
}

/// Bytes of `w` (lowest first) before the first one below `!` (space,
/// line end, tab, NUL...); 8 when there is none.
#[inline(always)]
pub(super) fn below_bang(w: u64) -> usize {
    // Flags bytes below 0x21; borrows only disturb bytes after the first.
    let flags = w.wrapping_sub(0x2121_2121_2121_2121) & !w & 0x8080_8080_8080_8080;
    (flags.trailing_zeros() / 8) as usize
}

/// 1 to 16 hex digits at `j`.
#[inline(always)]
pub(super) fn hex(b: &[u8], mut j: usize) -> Option<(u64, usize)> {
    let start = j;
    let mut v = 0u64;
    while let Some(&c) = b.get(j) {
        let d = HEX[c as usize];
        if d >= 16 {
            break;
        }
        v = (v << 4) | d as u64;
        j += 1;
    }
    (1..=16).contains(&(j - start)).then_some((v, j))
}

/// 1 to 19 decimal digits at `j` (19 cannot overflow a u64).
#[inline(always)]
pub(super) fn dec(b: &[u8], j: usize) -> Option<(u64, usize)> {
    let Some(w) = word(b, j) else {
        return dec_slow(b, j);
    };
    let n = digits(w);
    if n == 0 {
        return None;
    }
    if n < 8 {
        return Some((eight(w << (64 - 8 * n)), j + n));
    }
    let Some(w2) = word(b, j + 8) else {
        return dec_slow(b, j);
    };
    let n2 = digits(w2);
    if n2 == 8 {
        return dec_slow(b, j);
    }
    let high = eight(w);
    let low = if n2 == 0 {
        0
    } else {
        eight(w2 << (64 - 8 * n2))
    };
    Some((high * POW10[n2] + low, j + 8 + n2))
}

const POW10: [u64; 9] = [
    1,
    10,
    100,
    1000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The 8 bytes at `j`, little-endian, if there are 8.
#[inline(always)]
pub(crate) fn word(b: &[u8], j: usize) -> Option<u64> {
    let bytes = b.get(j..j + 8)?;
    Some(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
}

/// How many of the 8 bytes of `w` (lowest first) are decimal digits before
/// the first byte that is not.
#[inline(always)]
pub(crate) fn digits(w: u64) -> usize {
    let t = w ^ 0x3030_3030_3030_3030;
    // A byte's high bit ends up set iff it is not 0..=9 after the xor; a
    // carry only ever spills into the bytes after the first such byte.
    let flags = (t.wrapping_add(0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080;
    (flags.trailing_zeros() / 8) as usize
}

/// Whether any of the 8 bytes of `w` is not a decimal digit.
#[inline(always)]
pub(crate) fn any_non_digit(w: u64) -> bool {
    // The flags of `digits`, all at once: carries cannot hide a flag.
    let t = w ^ 0x3030_3030_3030_3030;
    (t.wrapping_add(0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080 != 0
}

/// The value of 8 ASCII digits (first digit in the lowest byte; bytes below
/// the number shifted in as zeros count as leading zeros). Each step joins
/// neighbouring groups with one multiplication: digits into pairs, pairs
/// into fours, fours into the eight-digit value.
#[inline(always)]
pub(crate) fn eight(w: u64) -> u64 {
    let w = ((w & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(10 << 8 | 1)) >> 8;
    let w = ((w & 0x00ff_00ff_00ff_00ff).wrapping_mul(100 << 16 | 1)) >> 16;
    ((w & 0x0000_ffff_0000_ffff).wrapping_mul(10_000 << 32 | 1)) >> 32
}

/// The value of 4 ASCII digits (first digit in the lowest byte), checked
/// by the caller: digits into pairs, pairs into the four-digit value, as
/// in [`eight`].
#[inline(always)]
pub(crate) fn four(w: u32) -> u64 {
    let w = (w & 0x0f0f_0f0f).wrapping_mul(10 << 8 | 1) >> 8;
    u64::from((w & 0x00ff_00ff).wrapping_mul(100 << 16 | 1) >> 16)
}

/// Bytes of a window ([`window`]): what a predicted line may span (under
/// 64 bytes, see `fast::Shape`) plus room to read 16 bytes at any offset
/// below 64.
pub(super) const WINDOW: usize = 80;

/// The [`WINDOW`] bytes at `i`, if there are that many.
#[inline(always)]
pub(super) fn window(b: &[u8], i: usize) -> Option<&[u8; WINDOW]> {
    b.get(i..)?.first_chunk()
}

/// The 8 bytes at offset `o` (below 64) of a window, little-endian.
#[inline(always)]
pub(super) fn word_at(win: &[u8; WINDOW], o: usize) -> u64 {
    // Offsets come from a `Shape`, which keeps them below 64; the mask
    // only lets the compiler see it, so the load needs no bounds check.
    let o = o & 63;
    u64::from_le_bytes(win[o..o + 8].try_into().expect("8 bytes"))
}

/// The 16 bytes at offset `o` (below 64) of a window, little-endian.
#[inline(always)]
pub(super) fn u128_at(win: &[u8; WINDOW], o: usize) -> u128 {
    let o = o & 63;
    u128::from_le_bytes(win[o..o + 16].try_into().expect("16 bytes"))
}

/// [`dec`] one byte at a time, near the end of a chunk and for long numbers.
fn dec_slow(b: &[u8], mut j: usize) -> Option<(u64, usize)> {
    let start = j;
    let mut v = 0u64;
    while let Some(&c) = b.get(j) {
        let d = c.wrapping_sub(b'0');
        if d >= 10 {
            break;
        }
        if j - start == 19 {
            return None;
        }
        v = v * 10 + d as u64;
        j += 1;
    }
    (j > start).then_some((v, j))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_of_every_length_parse_like_the_slow_path() {
        let mut n = 0u64;
        for len in 1..=19 {
            n = n * 10 + (len % 10);
            for tail in ["", " 1", "\n", "x"] {
                let text = format!("{n}{tail}");
                let b = text.as_bytes();
                assert_eq!(dec(b, 0), dec_slow(b, 0), "{text}");
                let padded = format!("{text}            ");
                assert_eq!(dec(padded.as_bytes(), 0), dec_slow(b, 0), "{text}");
            }
        }
        assert_eq!(dec(b"99999999999999999999 ", 0), None);
    }

    #[test]
    fn four_digits_convert() {
        for n in [0u64, 7, 42, 999, 1000, 4096, 9999] {
            let w = u32::from_le_bytes(format!("{n:04}").as_bytes().try_into().unwrap());
            assert_eq!(four(w), n);
        }
    }

    #[test]
    fn eight_digits_convert_with_leading_zeros() {
        for text in ["00000000", "12345678", "99999999", "00000001", "10000000"] {
            let w = u64::from_le_bytes(text.as_bytes().try_into().unwrap());
            assert!(!any_non_digit(w));
            assert_eq!(eight(w), text.parse::<u64>().unwrap());
        }
        // Five digits with three zero bytes shifted in below them.
        let w = u64::from_le_bytes(*b"42017   ") << 24;
        assert_eq!(eight(w), 42017);
        assert!(any_non_digit(u64::from_le_bytes(*b"1234 678")));
        assert!(any_non_digit(u64::from_le_bytes(*b"1234567/")));
        assert!(any_non_digit(u64::from_le_bytes(*b":2345678")));
    }
}
