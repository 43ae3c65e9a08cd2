//! Reading an indented trace whole, in two passes: for a file whose first
//! time unit shows up after numbers that the chunked reader could not
//! convert exactly.

use super::*;
use crate::ingest::{NodeRecord, nanos_per, skip_or_fail};

/// The whole input line by line in two passes, every row kept until the
/// file's unit and precision are known: for a file whose first time unit
/// shows up after numbers that the chunked reader could not convert
/// exactly (decimals, or beyond 2^53).
pub(super) fn parse_whole(
    input: &Input,
    opts: &ParseOptions,
    funcs: &mut FuncTable,
    sink: &mut dyn Sink,
) -> Result<TraceMeta> {
    let mut meta = TraceMeta {
        format: IndentedFormat.name(),
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

pub(super) struct Row<'a> {
    depth: u32,
    line: Line<'a>,
}

pub(super) fn read_rows<'a>(
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

/// The unit of the whole file: nanoseconds when any number carries a time
/// unit, calls when they say `calls`, else numbers of unknown unit.
pub(super) fn file_unit(rows: &[Row<'_>]) -> Unit {
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
