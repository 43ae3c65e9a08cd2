//! `diff`'s table on stdout: the rows that changed most, with the
//! direction stated, in columns a terminal shows.

use std::fmt::Write as _;

use crate::diff::{Change, Diff, Row};
use crate::emit::format::{TimeUnit, counted, quantity};
use crate::error::escape_controls;

/// The table: a line saying what is compared and which way, then up to
/// `top` rows that changed (rows that are `same` only when nothing
/// changed), then how many more there are.
pub fn table(d: &Diff, top: usize, shown: TimeUnit) -> Vec<u8> {
    let mut out = String::new();
    let _ = writeln!(out, "{}", heading(d));
    if d.timed() && !d.time_tested() {
        let _ = writeln!(
            out,
            "one run on a side: changes in time cannot be told from noise, so rows whose time alone changed are `untested`, not findings (call counts are exact); give each side a directory of 5 runs to test them"
        );
    }
    let changed: Vec<&Row> = d.rows.iter().filter(|r| r.change != Change::Same).collect();
    if changed.is_empty() {
        let _ = writeln!(
            out,
            "no change beyond --min-change and the noise between runs: {} the same",
            counted(d.rows.len(), "row is", "rows are")
        );
        return out.into_bytes();
    }
    let q = |v: u64| quantity(v, d.unit, d.decimals, shown);
    let mut lines = vec![[
        "Δ self".to_string(),
        "self base → new".to_string(),
        "calls base → new".to_string(),
        "change".to_string(),
        "function".to_string(),
    ]];
    for r in changed.iter().take(top) {
        lines.push([
            signed(r.delta_self(), &q),
            format!("{} → {}", q(r.base.self_weight), q(r.new.self_weight)),
            format!("{} → {}", r.base.calls, r.new.calls),
            r.change.label().to_string(),
            escape_controls(&d.shown_path(r)).into_owned(),
        ]);
    }
    write_columns(&mut out, &lines);
    if changed.len() > top {
        let _ = writeln!(
            out,
            "... and {} more (--top N shows more, --csv FILE has every row)",
            changed.len() - top
        );
    }
    let same = d.rows.len() - changed.len();
    if same > 0 {
        let _ = writeln!(out, "{} unchanged", counted(same, "row", "rows"));
    }
    out.into_bytes()
}

/// What is compared, which way the signs go, and the totals.
fn heading(d: &Diff) -> String {
    let q = |v: u64| quantity(v, d.unit, d.decimals, TimeUnit::Auto);
    let runs = |n: usize| match n {
        1 => "1 run".to_string(),
        n => format!("{n} runs (medians)"),
    };
    let what = if d.timed() { "self time" } else { "calls" };
    format!(
        "base → new; + means new spends more. base: {}, total {}; new: {}, total {}; sorted by Δ {what}",
        runs(d.runs.0),
        q(d.base_total),
        runs(d.runs.1),
        q(d.new_total)
    )
}

/// A signed difference with its unit: `+1.20 ms`, `-40 calls`, `0`.
fn signed(v: i128, q: &dyn Fn(u64) -> String) -> String {
    let mag = v.unsigned_abs().min(u64::MAX as u128) as u64;
    match v.signum() {
        1 => format!("+{}", q(mag)),
        -1 => format!("-{}", q(mag)),
        _ => q(0),
    }
}

/// Left-aligned columns two spaces apart; the last column is not padded.
fn write_columns(out: &mut String, lines: &[[String; 5]]) {
    let width = |i: usize| {
        lines
            .iter()
            .map(|l| l[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..4).map(width).collect();
    for l in lines {
        for (i, cell) in l.iter().enumerate() {
            if i < 4 {
                let pad = widths[i] - cell.chars().count();
                let _ = write!(out, "{cell}{}  ", " ".repeat(pad));
            } else {
                let _ = writeln!(out, "{cell}");
            }
        }
    }
}
