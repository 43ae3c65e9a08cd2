//! Indented self/total traces, the abstraction paper's format (fig. 1):
//! one call per line, `name (self / total)`, depth given by leading white
//! space (a tab advances to the next multiple of 8 columns). Numbers are
//! integers or decimals; decimals are kept exactly as fixed-point integers
//! with as many decimal places as the file's most precise number. A trailing
//! `xN` gives the number of calls a line stands for (calling-context trees).
//! `[thread N]` lines are the synthetic per-thread nodes that `calltrace
//! tree` prints for multi-threaded traces.

use super::{
    FuncTable, Input, NodeRecord, ParseOptions, Sink, TraceFormat, TraceMeta, skip_or_fail,
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
        let decimals = rows
            .iter()
            .map(|r| decimals(r.line.self_time).max(decimals(r.line.total)))
            .max()
            .unwrap_or(0);
        meta.decimals = decimals as u8;
        for r in &rows {
            let func = match thread_id(r.line.name) {
                Some(tid) if r.depth == 0 => funcs.thread(tid),
                _ => funcs.name(r.line.name),
            };
            sink.node(NodeRecord {
                depth: r.depth,
                func,
                self_time: fixed(r.line.self_time, decimals),
                total: fixed(r.line.total, decimals),
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
    total: &'a str,
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
    let (self_time, total) = (self_time.trim(), total.trim());
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
        total,
        calls,
    })
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
}
