//! Indented self/total traces, the abstraction paper's format (fig. 1):
//! one call per line, `name (self / total)`, depth given by leading white
//! space (a tab advances to the next multiple of 8 columns). Numbers are
//! integers or decimals; decimals are kept exactly as fixed-point integers
//! with as many decimal places as the file's most precise number. A trailing
//! `xN` gives the number of calls a line stands for (calling-context trees).
//! `[thread N]` lines are the synthetic per-thread nodes that `calltrace
//! tree` prints for multi-threaded traces.
//!
//! Names are escaped so that any name reads back unchanged ([`escape_name`],
//! [`unescape_name`]): `\\` for a backslash, `\#` for a leading `#` (else
//! the line is a comment), `\xHH` for control characters (newline, tab,
//! NUL...) and for a space at either end, `\u{H}` for other white space
//! such as NBSP (which trimming would eat). A backslash not starting one of
//! these escapes stands for itself.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::{
    FuncTable, Input, NodeRecord, ParseOptions, Sink, TraceFormat, TraceMeta, Unit, nanos_per,
    skip_or_fail,
};
use crate::error::{Error, Result};

/// Indented `name (self / total)` trace.
pub struct IndentedFormat;

/// Most decimal places kept; more precise numbers are an error.
const MAX_DECIMALS: usize = 9;

impl TraceFormat for IndentedFormat {
    fn name(&self) -> &'static str {
        "indented"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        let mut lines = super::guess::meaningful_lines(head);
        lines
            .next()
            .is_some_and(|l| parse_line(&String::from_utf8_lossy(l)).is_ok())
    }

    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let mut meta = TraceMeta {
            format: self.name(),
            timed: true,
            ..TraceMeta::default()
        };
        let rows = read_rows(input, opts, &mut meta)?;
        meta.unit = file_unit(&rows);
        let decimals = match meta.unit {
            Unit::Nanos => 0,
            _ => rows
                .iter()
                .map(|r| decimals(r.line.self_time).max(decimals(r.line.total)))
                .max()
                .unwrap_or(0),
        };
        meta.decimals = decimals as u8;
        let value = |v: &str, unit: Option<&str>| match meta.unit {
            Unit::Nanos => in_nanos(v, unit),
            _ => fixed(v, decimals),
        };
        for r in &rows {
            let name = unescape_name(r.line.name);
            let func = match thread_id(&name) {
                Some(tid) if r.depth == 0 => funcs.thread(tid),
                _ => funcs.name(&name),
            };
            sink.node(NodeRecord {
                depth: r.depth,
                func,
                self_time: value(r.line.self_time, r.line.self_unit),
                total: value(r.line.total, r.line.total_unit),
                calls: r.line.calls,
            });
        }
        meta.threads = vec![0];
        Ok(meta)
    }
}

/// A parsed line, numbers still as text so the file's precision can be found first.
#[derive(Debug, PartialEq, Eq)]
struct Line<'a> {
    name: &'a str,
    self_time: &'a str,
    self_unit: Option<&'a str>,
    total: &'a str,
    total_unit: Option<&'a str>,
    calls: u64,
}

struct Row<'a> {
    depth: u32,
    line: Line<'a>,
}

fn read_rows<'a>(
    input: &'a Input,
    opts: &ParseOptions,
    meta: &mut TraceMeta,
) -> Result<Vec<Row<'a>>> {
    let text = std::str::from_utf8(input).map_err(|e| {
        let line = input[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1;
        Error::parse(input.name(), line, "expected UTF-8 text")
    })?;
    let mut rows = Vec::new();
    let mut indents = Indents::default();
    // memchr finds line ends several times faster than `str::split`.
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]);
    for (i, end) in ends.enumerate() {
        let raw = &text[start..end];
        start = end + 1;
        let lineno = i as u64 + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let body = raw.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let width = indent_width(&raw[..raw.len() - body.len()]);
        let parsed = parse_line(body.trim_end()).and_then(|line| {
            let depth = indents.depth(width)?;
            Ok(Row { depth, line })
        });
        match parsed {
            Ok(row) => rows.push(row),
            Err(msg) => skip_or_fail(meta, opts, Error::parse(input.name(), lineno, msg))?,
        }
    }
    Ok(rows)
}

/// Columns of leading white space; a tab advances to the next multiple of 8.
fn indent_width(ws: &str) -> usize {
    ws.chars()
        .fold(0, |w, c| if c == '\t' { (w / 8 + 1) * 8 } else { w + 1 })
}

/// Tracks the indentation of the open ancestors to turn widths into depths.
#[derive(Default)]
struct Indents(Vec<usize>);

impl Indents {
    fn depth(&mut self, width: usize) -> Result<u32, String> {
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
fn parse_line(body: &str) -> Result<Line<'_>, String> {
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

/// Splits `1.2 ms` / `1.2ms` / `3 calls` / `7` into the number and its
/// unit; None when the unit is not one we know.
fn split_unit(s: &str) -> Option<(&str, Option<&str>)> {
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

/// The unit of the whole file: nanoseconds when any number carries a time
/// unit, calls when they say `calls`, else numbers of unknown unit.
fn file_unit(rows: &[Row<'_>]) -> Unit {
    let units = || {
        rows.iter()
            .flat_map(|r| [r.line.self_unit, r.line.total_unit])
            .flatten()
    };
    if units().any(|u| nanos_per(u).is_some()) {
        Unit::Nanos
    } else if units().next().is_some() {
        Unit::Calls
    } else {
        Unit::Number
    }
}

/// `v` (in `unit`, nanoseconds when it states none) as whole nanoseconds.
fn in_nanos(v: &str, unit: Option<&str>) -> u64 {
    let scale = unit.and_then(nanos_per).unwrap_or(1.0);
    (v.parse::<f64>().unwrap_or(0.0) * scale).round() as u64
}

fn is_number(s: &str) -> bool {
    let (int, frac) = s.split_once('.').unwrap_or((s, "0"));
    !int.is_empty()
        && !frac.is_empty()
        && int.len() <= 18
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

fn decimals(s: &str) -> usize {
    s.split_once('.').map_or(0, |(_, f)| f.len())
}

/// `s` as an integer number of 10^-`decimals` units (saturating at
/// `u64::MAX`).
fn fixed(s: &str, decimals: usize) -> u64 {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut digits = int.bytes().chain(frac.bytes());
    let scaled = digits.try_fold(0u64, |v, b| {
        v.checked_mul(10)?.checked_add((b - b'0') as u64)
    });
    scaled
        .and_then(|v| v.checked_mul(10u64.checked_pow((decimals - frac.len()) as u32)?))
        .unwrap_or(u64::MAX)
}

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

/// The character escaped at the start of `tail` (after a backslash) and
/// how many bytes of `tail` the escape used.
fn unescape_one(tail: &str) -> Option<(char, usize)> {
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
fn thread_id(name: &str) -> Option<u64> {
    name.strip_prefix("[thread ")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(Vec<NodeRecord>, TraceMeta)> {
        let (sink, meta, _) =
            crate::ingest::testing::parse(&IndentedFormat, "fig1.txt", text.as_bytes(), false)?;
        Ok((sink.nodes, meta))
    }

    #[test]
    fn reads_paper_figure_1() {
        let fig1 = "Main (3000 / 10000)\n  funcA (1500 / 4000)\n    funcC (1300 / 1300)\n    funcD (1200 / 1200)\n  funcB (1700 / 3000)\n    funcE (800 / 1300)\n      funcF (500 / 500)\n";
        let (nodes, meta) = parse(fig1).unwrap();
        let depths: Vec<_> = nodes.iter().map(|n| n.depth).collect();
        assert_eq!(depths, [0, 1, 2, 2, 1, 2, 3]);
        assert_eq!((nodes[4].self_time, nodes[4].total), (1700, 3000));
        assert_eq!(meta.decimals, 0);
    }

    #[test]
    fn decimals_tabs_and_call_counts() {
        let (nodes, meta) = parse("main (1.5 / 10)\n\tf(int) (2.25 / 8.5) x3\n").unwrap();
        assert_eq!(meta.decimals, 2);
        assert_eq!((nodes[0].self_time, nodes[0].total), (150, 1000));
        assert_eq!(
            (nodes[1].depth, nodes[1].self_time, nodes[1].calls),
            (1, 225, 3)
        );
    }

    #[test]
    fn fixed_point_scales_to_the_file_precision_and_saturates() {
        assert_eq!(fixed("1.5", 3), 1500);
        assert_eq!(fixed("12", 2), 1200);
        assert_eq!(fixed("0.007", 3), 7);
        assert_eq!(fixed("999999999999999999", 9), u64::MAX);
        assert_eq!(fixed("18446744073709551615", 0), u64::MAX);
        assert_eq!(fixed("18446744073709551616", 0), u64::MAX);
    }

    #[test]
    fn numbers_may_carry_units() {
        let (nodes, meta) = parse("main (1.5 us / 2 ms)\n  f (700ns / 1.9985 ms) x2\n").unwrap();
        assert_eq!(meta.unit, Unit::Nanos);
        assert_eq!((nodes[0].self_time, nodes[0].total), (1_500, 2_000_000));
        assert_eq!((nodes[1].self_time, nodes[1].total), (700, 1_998_500));
        let (nodes, meta) = parse("main (1 calls / 3 calls)\n").unwrap();
        assert_eq!((meta.unit, nodes[0].total), (Unit::Calls, 3));
        assert_eq!(parse("main (1 / 3)\n").unwrap().1.unit, Unit::Number);
        let err = parse("main (1 min / 3 min)\n").unwrap_err().to_string();
        assert!(err.contains("expected `name (self / total)`"), "{err}");
    }

    #[test]
    fn bad_lines_and_bad_dedent_are_located() {
        let err = parse("a (1 / 2)\n  b (1 / x)\n").unwrap_err().to_string();
        assert!(
            err.starts_with("fig1.txt:2: expected `name (self / total)`"),
            "{err}"
        );
        let err = parse("a (1 / 2)\n    b (1 / 1)\n  c (1 / 1)\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("fig1.txt:3: expected an indentation of an enclosing line"),
            "{err}"
        );
    }

    #[test]
    fn awkward_names_are_escaped_and_read_back() {
        let names = [
            "#hash",
            "f x3",
            "g (a / b)",
            "nb\u{a0}",
            "\u{a0}lead",
            "new\nline",
            "tab\there",
            "nul\0",
            " spaced ",
            "back\\slash",
            "\\x41",
            "operator()(int) const",
        ];
        let mut text = String::new();
        for (i, n) in names.iter().enumerate() {
            text.push_str(&format!("{} (1 / 1) x{}\n", escape_name(n), i + 2));
        }
        let (sink, _, funcs) =
            crate::ingest::testing::parse(&IndentedFormat, "t", text.as_bytes(), false).unwrap();
        let got: Vec<&str> = sink
            .nodes
            .iter()
            .map(|n| match &funcs.keys()[n.func as usize] {
                crate::ingest::FuncKey::Name(s) => &**s,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, names, "{text}");
        let calls: Vec<u64> = sink.nodes.iter().map(|n| n.calls).collect();
        assert_eq!(calls, (2..2 + names.len() as u64).collect::<Vec<_>>());
        assert!(!text.contains('\u{a0}') && text.lines().count() == names.len());
    }

    #[test]
    fn plain_names_are_written_as_they_are() {
        for n in ["main", "f(int, char*)", "ns::a<b>::c", "a#b", "[thread 3]"] {
            assert!(matches!(escape_name(n), Cow::Borrowed(_)), "{n}");
        }
        assert_eq!(
            unescape_name("a\\qb\\x4"),
            "a\\qb\\x4",
            "unknown escapes stand for themselves"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn any_name_round_trips(name in "\\PC{1,12}|[ #\\\\x()/\u{a0}\n\t0-9]{1,12}") {
            let line = format!("  {} (3 / 4) x2", escape_name(&name));
            let parsed = parse_line(line.trim_start()).map_err(proptest::test_runner::TestCaseError::fail)?;
            proptest::prop_assert_eq!(unescape_name(parsed.name), name.as_str());
            proptest::prop_assert_eq!(parsed.calls, 2);
        }
    }
}
