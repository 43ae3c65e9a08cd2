//! Escaping names so that any name reads back unchanged from an indented
//! line (see the module docs of [`super`]).

use std::borrow::Cow;
use std::fmt::Write as _;

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

/// The length in bytes of [`unescape_name`]`(s)`, without building it.
pub(super) fn unescaped_len(s: &str) -> usize {
    let mut len = 0;
    let mut rest = s;
    while let Some(i) = memchr::memchr(b'\\', rest.as_bytes()) {
        let tail = &rest[i + 1..];
        let (c, used) = unescape_one(tail).unwrap_or(('\\', 0));
        len += i + c.len_utf8();
        rest = &tail[used..];
    }
    len + rest.len()
}

/// The character escaped at the start of `tail` (after a backslash) and
/// how many bytes of `tail` the escape used.
pub(super) fn unescape_one(tail: &str) -> Option<(char, usize)> {
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
pub(super) fn thread_id(name: &str) -> Option<u64> {
    name.strip_prefix("[thread ")?
        .strip_suffix(']')?
        .parse()
        .ok()
}
