//! What `calltrace diff` writes: the CSV and JSON rows (one shape, the
//! same names: [`columns`]), and the table on stdout.

mod dot;
pub(crate) mod flame;
mod table;

pub use dot::{diverging, dot};
pub use flame::{Drawn, MAX_STACKS, Widths, flamegraph};
pub use table::table;

use serde_json::{Map, Value, json};

use crate::diff::{By, ChangeRule, Diff, Normalize, Row, per_call};
use crate::error::{Error, Result};

/// The columns of the CSV (and the fields of each JSON row), in order.
/// Weights carry their unit: `_ns`, or `_calls` for untimed traces
/// (`_units` for indented traces of unknown unit). Per-context rows end
/// with their `path`: the names from the top joined by `;`, with a `;` or
/// `\` inside a name written `\;` or `\\`. The `function` column is the
/// name exactly, as in every other output.
pub fn columns(d: &Diff, by: By) -> Vec<String> {
    let u = d.unit.suffix();
    let mut c: Vec<String> = ["function", "file", "calls_base", "calls_new"]
        .map(String::from)
        .into();
    for w in [
        "self_base",
        "self_new",
        "total_base",
        "total_new",
        "delta_self",
        "delta_total",
        "per_call_base",
        "per_call_new",
    ] {
        c.push(format!("{w}_{u}"));
    }
    c.push("change".into());
    if by == By::Context {
        c.push("path".into());
    }
    c
}

/// One row's values, in [`columns`]' order; None is an empty cell.
fn values(d: &Diff, r: &Row, by: By) -> Vec<Value> {
    let opt = |v: Option<u64>| v.map_or(Value::Null, Value::from);
    let int = |v: i128| Value::from(v.clamp(i64::MIN as i128, i64::MAX as i128) as i64);
    let mut v = vec![
        Value::from(r.function()),
        r.file.as_deref().map_or(Value::Null, Value::from),
        Value::from(r.base.calls),
        Value::from(r.new.calls),
        Value::from(r.base.self_weight),
        Value::from(r.new.self_weight),
        Value::from(r.base.total),
        Value::from(r.new.total),
        int(r.delta_self()),
        int(r.delta_total()),
        opt(per_call(r.base)),
        opt(per_call(r.new)),
        Value::from(r.change.label()),
    ];
    if by == By::Context {
        v.push(Value::from(d.path(r)));
    }
    v
}

/// The CSV: a header of [`columns`], then one line per row, sorted as the
/// diff sorts them (largest |delta_self| first).
pub fn csv(d: &Diff, by: By) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let fail = |e: csv::Error| Error::Input(format!("cannot write CSV: {e}"));
    w.write_record(columns(d, by)).map_err(fail)?;
    for r in &d.rows {
        let cells = values(d, r, by).into_iter().map(|v| match v {
            Value::Null => String::new(),
            Value::String(s) => s,
            other => other.to_string(),
        });
        w.write_record(cells).map_err(fail)?;
    }
    w.into_inner()
        .map_err(|e| Error::Input(format!("cannot write CSV: {e}")))
}

/// The JSON: what was compared and how (`time_tested`: false when a side
/// has one run, so changes in time were not tested against noise and
/// rows whose time alone changed are `untested`; false for untimed runs
/// too), then the rows as objects with the CSV's column names.
pub fn json(d: &Diff, by: By, opts: &ChangeRule) -> Vec<u8> {
    let cols = columns(d, by);
    let rows: Vec<Value> = d
        .rows
        .iter()
        .map(|r| {
            let obj: Map<String, Value> = cols.iter().cloned().zip(values(d, r, by)).collect();
            Value::Object(obj)
        })
        .collect();
    let doc = json!({
        "unit": d.unit.suffix(),
        "by": match by { By::Function => "function", By::Context => "context" },
        "min_change": opts.min_change,
        "normalize": match opts.normalize { Normalize::None => "none", Normalize::Total => "total" },
        "time_tested": d.time_tested(),
        "base": { "runs": d.runs.0, "total": d.base_total },
        "new": { "runs": d.runs.1, "total": d.new_total },
        "rows": rows,
    });
    let mut out = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests;
