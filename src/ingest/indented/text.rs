//! The text of an indented line as the general (`str`) path reads it: the
//! line's parts, indentation widths and depths, numbers and their units.

use super::escape::unescaped_len;
use super::*;
use crate::ingest::funcs::{MAX_NAME, name_bound};
use crate::ingest::nanos_per;

/// A parsed line, numbers still as text so the file's precision can be found first.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Line<'a> {
    pub(super) name: &'a str,
    pub(super) self_time: &'a str,
    pub(super) self_unit: Option<&'a str>,
    pub(super) total: &'a str,
    pub(super) total_unit: Option<&'a str>,
    pub(super) calls: u64,
}

/// Columns of leading white space; a tab advances to the next multiple of 8.
pub(super) fn indent_width(ws: &str) -> usize {
    ws.chars()
        .fold(0, |w, c| if c == '\t' { (w / 8 + 1) * 8 } else { w + 1 })
}

/// Tracks the indentation of the open ancestors to turn widths into depths.
#[derive(Default)]
pub(super) struct Indents(pub(super) Vec<usize>);

impl Indents {
    pub(super) fn depth(&mut self, width: usize) -> Result<u32, String> {
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
pub(super) fn parse_line(body: &str) -> Result<Line<'_>, String> {
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
    check_name(body, name)?;
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

/// Refuses a line (`body`, from its first byte after the indentation)
/// whose name, written as `name`, reads as more than [`MAX_NAME`] bytes.
/// Neither the name nor the line is copied: the message shows the line's
/// first 60 characters.
pub(super) fn check_name(body: &str, name: &str) -> Result<(), String> {
    // Escapes only make a name shorter than it is written.
    if name.len() <= MAX_NAME {
        return Ok(());
    }
    let len = unescaped_len(name);
    if len <= MAX_NAME {
        return Ok(());
    }
    Err(format!(
        "expected {}, found `{}...`",
        name_bound(len),
        body.chars().take(60).collect::<String>()
    ))
}

/// Splits `1.2 ms` / `1.2ms` / `3 calls` / `7` into the number and its
/// unit; None when the unit is not one we know.
pub(super) fn split_unit(s: &str) -> Option<(&str, Option<&str>)> {
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

/// `v` (in `unit`, nanoseconds when it states none) as whole nanoseconds.
pub(super) fn in_nanos(v: &str, unit: Option<&str>) -> u64 {
    let scale = unit.and_then(nanos_per).unwrap_or(1.0);
    (v.parse::<f64>().unwrap_or(0.0) * scale).round() as u64
}

pub(super) fn is_number(s: &str) -> bool {
    let (int, frac) = s.split_once('.').unwrap_or((s, "0"));
    !int.is_empty()
        && !frac.is_empty()
        && int.len() <= 18
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

pub(super) fn decimals(s: &str) -> usize {
    s.split_once('.').map_or(0, |(_, f)| f.len())
}

/// `s` as an integer number of 10^-`decimals` units (saturating at
/// `u64::MAX`).
pub(super) fn fixed(s: &str, decimals: usize) -> u64 {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut digits = int.bytes().chain(frac.bytes());
    let scaled = digits.try_fold(0u64, |v, b| {
        v.checked_mul(10)?.checked_add((b - b'0') as u64)
    });
    scaled
        .and_then(|v| v.checked_mul(10u64.checked_pow((decimals - frac.len()) as u32)?))
        .unwrap_or(u64::MAX)
}
