//! The syntax of E/X lines that both sides of the reader share: an event
//! line's kind, function token and columns, numbers, and which comments
//! are headers.

use crate::ingest::EventKind;

/// The function token of an event line.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Token<'a> {
    Addr(&'a [u8]),
    Name(&'a [u8]),
}

impl Token<'_> {
    pub(super) fn is_addr(&self) -> bool {
        matches!(self, Token::Addr(_))
    }
}

/// Splits an event line into kind, function token and the remaining columns.
pub(super) fn split_event(line: &[u8]) -> Option<(EventKind, Token<'_>, &[u8])> {
    let kind = match line.first()? {
        b'E' => EventKind::Enter,
        b'X' => EventKind::Exit,
        _ => return None,
    };
    let rest = &line[1..];
    let glued = rest.first().is_some_and(|b| !b.is_ascii_whitespace());
    let rest = trim_start(rest);
    let end = first_blank(rest).unwrap_or(rest.len());
    let (tok, cols) = rest.split_at(end);
    if tok.is_empty() {
        return None;
    }
    let token = if glued || tok.starts_with(b"0x") || tok.starts_with(b"0X") {
        Token::Addr(tok)
    } else {
        Token::Name(tok)
    };
    Some((kind, token, cols))
}

/// Where the first ASCII whitespace byte of `s` is, found by memchr (a
/// name may be hundreds of megabytes).
fn first_blank(s: &[u8]) -> Option<usize> {
    let end = memchr::memchr3(b' ', b'\t', b'\r', s).unwrap_or(s.len());
    memchr::memchr2(b'\x0c', b'\n', &s[..end]).or((end < s.len()).then_some(end))
}

pub(super) fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

/// Parses a hex address with or without `0x`.
pub(crate) fn parse_hex(tok: &[u8]) -> Option<u64> {
    let digits = tok
        .strip_prefix(b"0x")
        .or_else(|| tok.strip_prefix(b"0X"))
        .unwrap_or(tok);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &b in digits {
        let d = (b as char).to_digit(16)?;
        v = (v << 4) | d as u64;
    }
    Some(v)
}

/// Parses an unsigned decimal integer.
pub(crate) fn parse_dec(tok: &[u8]) -> Option<u64> {
    if tok.is_empty() {
        return None;
    }
    tok.iter().try_fold(0u64, |v, &b| {
        let d = (b as char).to_digit(10)?;
        v.checked_mul(10)?.checked_add(d as u64)
    })
}

/// Whether a comment line (starting with `#`) is a `# base`, `# map`,
/// `# process` or `# dropped` header, the only comments that carry
/// information.
pub(super) fn is_header(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&line[1..]);
    matches!(
        text.split_whitespace().next(),
        Some("base" | "map" | "process" | "dropped")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_blank_finds_what_is_ascii_whitespace_finds() {
        let bytes = b" \t\n\x0c\r\x0bax\xa0\x85";
        for a in bytes {
            for b in bytes {
                for c in bytes {
                    let s = [*a, *b, *c];
                    let want = s.iter().position(|b| b.is_ascii_whitespace());
                    assert_eq!(first_blank(&s), want, "{s:?}");
                }
            }
        }
    }
}
