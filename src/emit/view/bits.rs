//! Sets of row numbers as base64 bitsets (bit `i` of byte `i / 8`, least
//! significant first; standard alphabet with padding), the compact form
//! in which `view.html` stores which nodes each state draws: a 300-row
//! table costs 52 characters per distinct set.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The set `rows` (each below `n`) as base64.
pub(crate) fn encode(rows: &[u32], n: usize) -> String {
    let mut bytes = vec![0u8; n.div_ceil(8)];
    for &r in rows {
        bytes[r as usize / 8] |= 1 << (r % 8);
    }
    base64(&bytes)
}

/// The set of indexes where `flags` is true, as base64.
pub(crate) fn of_flags(flags: &[bool]) -> String {
    let rows: Vec<u32> = (0..flags.len() as u32)
        .filter(|&i| flags[i as usize])
        .collect();
    encode(&rows, flags.len())
}

fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            match i <= chunk.len() {
                true => out.push(ALPHABET[(v >> (18 - 6 * i) & 63) as usize] as char),
                false => out.push('='),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(base64(b"M"), "TQ==");
        assert_eq!(base64(b""), "");
    }

    #[test]
    fn rows_become_bits_least_significant_first() {
        // Rows 0 and 9: bytes 0x01 0x02.
        assert_eq!(encode(&[0, 9], 16), base64(&[1, 2]));
        assert_eq!(of_flags(&[true, false, false]), base64(&[1]));
    }
}
