//! What `stats` prints: the table on stdout (one row per function or
//! context: calls, total, self, then min, mean, p50, p90, p99 and max of a
//! call, and where the slowest call ran), the CSV (`--csv`), a
//! terminal histogram of one row's calls in power-of-two buckets
//! (`--histogram`, as bcc's `funclatency` draws) and every row's
//! log buckets as CSV (`--histogram-csv`). Names are shown with control
//! characters escaped; CSV quoting is the csv crate's.

use std::fmt::Write as _;

use crate::calltree::Dist;
use crate::emit::format::{TimeUnit, counted, quantity};
use crate::error::{Error, Result, escape_controls};
use crate::ingest::Unit;
use crate::stats::{Row, Rows};

/// How the table is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableOptions {
    /// Rows shown; the rest are counted. Default is 25.
    pub top: usize,
    /// The distribution columns are of self time per call. Default is false.
    pub self_time: bool,
    /// Unit of the times. Default is auto.
    pub time_unit: TimeUnit,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            top: 25,
            self_time: false,
            time_unit: TimeUnit::Auto,
        }
    }
}

/// The column headings of the table.
const HEADINGS: [&str; 11] = [
    "calls", "total", "self", "min", "mean", "p50", "p90", "p99", "max", "max at", "",
];

/// The table: a heading line, up to `top` rows (already sorted), then how
/// many more there are. `thread(i)` names thread index `i` (its id).
pub fn table(
    all: &Rows,
    what: &str,
    opts: &TableOptions,
    thread: &dyn Fn(u32) -> String,
) -> Vec<u8> {
    let rows = &all.rows;
    let q = |v: u64| quantity(v, all.unit, 0, opts.time_unit);
    let per_call = if opts.self_time { "self time" } else { "time" };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}; min..max are {per_call} per call (percentiles within 1%); max at = thread and start of the slowest call",
        counted(rows.len(), what, &format!("{what}s"))
    );
    let mut lines: Vec<Vec<String>> = vec![HEADINGS.iter().map(|h| h.to_string()).collect()];
    lines[0][10] = what.to_string();
    for r in rows.iter().take(opts.top) {
        let d = r.shown(opts.self_time);
        lines.push(vec![
            r.calls.to_string(),
            q(r.total),
            q(r.self_time),
            q(d.min),
            q(d.mean()),
            q(d.quantile(0.5)),
            q(d.quantile(0.9)),
            q(d.quantile(0.99)),
            q(d.max),
            format!("{} +{}", thread(d.max_at.thread), q(d.max_at.start)),
            escape_controls(&all.shown(r)).into_owned(),
        ]);
    }
    write_columns(&mut out, &lines);
    if rows.len() > opts.top {
        let _ = writeln!(
            out,
            "... and {} more (--top N shows more, --csv FILE has every row)",
            rows.len() - opts.top
        );
    }
    out.into_bytes()
}

/// Right-aligned number columns two spaces apart; the last (the name) is
/// left-aligned and not padded.
fn write_columns(out: &mut String, lines: &[Vec<String>]) {
    let cols = lines.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for l in lines {
        let mut line = String::new();
        for (i, cell) in l.iter().enumerate() {
            if i + 1 == cols {
                line.push_str(cell);
            } else {
                let pad = widths[i] - cell.chars().count();
                let _ = write!(line, "{}{cell}  ", " ".repeat(pad));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// `[path,]function,calls,total_ns,self_ns,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,max_ns`:
/// every row; `path` (the `main;a;b` context) leads when `contexts`. Names
/// are kept exactly; a path escapes a `;` or `\` inside a name with `\`.
pub fn csv(rows: &Rows, contexts: bool, self_time: bool) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head = vec!["function".to_string()];
    if contexts {
        head.insert(0, "path".to_string());
    }
    head.push("calls".to_string());
    let columns = ["total", "self", "min", "mean", "p50", "p90", "p99", "max"];
    head.extend(columns.map(|c| format!("{c}_{}", rows.unit.suffix())));
    w.write_record(&head).map_err(fail)?;
    for r in &rows.rows {
        let d = r.shown(self_time);
        let mut rec = vec![r.name.clone()];
        if contexts {
            rec.insert(0, rows.path(r).into_owned());
        }
        rec.extend(
            [
                r.calls,
                r.total,
                r.self_time,
                d.min,
                d.mean(),
                d.quantile(0.5),
                d.quantile(0.9),
                d.quantile(0.99),
                d.max,
            ]
            .map(|v| v.to_string()),
        );
        w.write_record(&rec).map_err(fail)?;
    }
    finish(w)
}

/// The CSV's bytes.
fn finish(w: csv::Writer<Vec<u8>>) -> Result<Vec<u8>> {
    w.into_inner()
        .map_err(|e| Error::Input(format!("cannot write CSV: {e}")))
}

fn fail(e: csv::Error) -> Error {
    Error::Input(format!("cannot write CSV: {e}"))
}

/// `[path,]function,low_ns,high_ns,count`: every row's non-empty log
/// buckets (values `low_ns..=high_ns`; 64 buckets per power of two, one
/// per value below 128), whose counts sum to the row's calls.
pub fn histogram_csv(rows: &Rows, contexts: bool, self_time: bool) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let u = rows.unit.suffix();
    let mut head = vec![
        "function".to_string(),
        format!("low_{u}"),
        format!("high_{u}"),
        "count".to_string(),
    ];
    if contexts {
        head.insert(0, "path".to_string());
    }
    w.write_record(&head).map_err(fail)?;
    for r in &rows.rows {
        let path = contexts.then(|| rows.path(r));
        for (low, high, n) in r.shown(self_time).buckets() {
            let mut rec = vec![r.name.clone()];
            if let Some(p) = &path {
                rec.insert(0, p.to_string());
            }
            rec.extend([low, high, n].map(|v| v.to_string()));
            w.write_record(&rec).map_err(fail)?;
        }
    }
    finish(w)
}

/// Width of the longest bar of the terminal histogram.
const BAR: usize = 40;

/// `row` (called `name`: its function or path)'s calls drawn as
/// `funclatency` does: one line per power of two from the fastest call's
/// to the slowest's, with its count and a bar.
pub fn histogram(
    row: &Row,
    name: &str,
    self_time: bool,
    (unit, time_unit): (Unit, TimeUnit),
) -> Vec<u8> {
    let d = row.shown(self_time);
    let q = |v: u64| quantity(v, unit, 0, time_unit);
    let mut out = String::new();
    let what = if self_time { "self time" } else { "time" };
    let _ = writeln!(
        out,
        "{}: {what} per call, {}; min {}, p50 {}, p99 {}, max {}",
        escape_controls(name),
        counted(d.count as usize, "call", "calls"),
        q(d.min),
        q(d.quantile(0.5)),
        q(d.quantile(0.99)),
        q(d.max)
    );
    let octaves = octaves(d);
    let most = octaves.iter().map(|o| o.2).max().unwrap_or(1).max(1);
    let ranges: Vec<String> = octaves
        .iter()
        .map(|&(low, high, _)| format!("{} -> {}", q(low), q(high)))
        .collect();
    let width = ranges.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let count_width = octaves
        .iter()
        .map(|o| o.2.to_string().len())
        .max()
        .unwrap_or(1);
    let _ = writeln!(
        out,
        "{:>width$} : {:<count_width$}  distribution",
        "range", "count"
    );
    for ((_, _, n), range) in octaves.iter().zip(&ranges) {
        let bar = (*n as u128 * BAR as u128).div_ceil(most as u128) as usize;
        let _ = writeln!(
            out,
            "{range:>width$} : {n:<count_width$}  |{:<BAR$}|",
            "*".repeat(bar)
        );
    }
    out.into_bytes()
}

/// The calls of `d` per power of two: `(low, high, count)` for every
/// power of two from the minimum's to the maximum's, empty ones included.
fn octaves(d: &Dist) -> Vec<(u64, u64, u64)> {
    if d.count == 0 {
        return Vec::new();
    }
    let octave = |v: u64| if v == 0 { 0 } else { v.ilog2() + 1 };
    let (first, last) = (octave(d.min), octave(d.max));
    let mut counts = vec![0u64; (last - first + 1) as usize];
    for (low, _, n) in d.buckets() {
        counts[(octave(low) - first) as usize] += n;
    }
    (first..=last)
        .zip(counts)
        .map(|(o, n)| match o {
            0 => (0, 0, n),
            o => {
                let low = 1u64 << (o - 1);
                (low, low + (low - 1), n)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
