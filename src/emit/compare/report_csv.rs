//! The tables of `calltrace compare` as CSV: `rates.csv`, `sweep.csv`,
//! `groups.csv` and `features.csv`, rendered from a [`Report`] into memory.
//! Headers are fixed; rows come sorted by pattern, then method (in the
//! order of the method registry; `before` first where it appears), then threshold
//! or function; floats have exactly six decimals. The same report therefore
//! always gives the same bytes, however many threads computed it.
//! Escaping is RFC 4180's (the `csv` crate), names kept exactly, as in
//! [`crate::emit::graph::edges_csv`].

use crate::compare::{Report, Stage, groups};
use crate::emit::format::fixed;
use crate::error::{Error, Result};

/// Header of `rates.csv`.
pub const RATES_HEADER: [&str; 8] = [
    "pattern",
    "method",
    "threshold",
    "nodes_before",
    "nodes_after",
    "kept_ratio",
    "eliminated_ratio",
    "time_explained",
];
/// Header of `sweep.csv`.
pub const SWEEP_HEADER: [&str; 5] = [
    "pattern",
    "method",
    "threshold",
    "nodes_after",
    "kept_ratio",
];
/// Header of `groups.csv`.
pub const GROUPS_HEADER: [&str; 4] = ["pattern", "stage", "group", "changed"];
/// Header of `protection.csv`.
pub const PROTECTION_HEADER: [&str; 5] = [
    "pattern",
    "method",
    "nodes_unprotected",
    "nodes_protected",
    "extra_nodes",
];
/// Header of `features.csv`.
pub const FEATURES_HEADER: [&str; 4] = ["pattern", "function", "stage", "kept"];

/// `rates.csv`: one row per pattern and method; threshold empty for
/// `merge`, the whole-trace threshold for the `global` methods.
pub fn rates(report: &Report) -> Result<Vec<u8>> {
    let mut rows = Vec::new();
    for p in &report.patterns {
        for r in &p.rates {
            let kept = r.kept_ratio();
            rows.push(vec![
                p.name.clone(),
                r.stage.name().to_string(),
                r.threshold.map(fixed).unwrap_or_default(),
                r.nodes_before.to_string(),
                r.nodes_after.to_string(),
                fixed(kept),
                fixed(1.0 - kept),
                fixed(r.time_explained),
            ]);
        }
    }
    table(&RATES_HEADER, rows)
}

/// `sweep.csv`: method 1, then merge+threshold, at every sweep point.
pub fn sweep(report: &Report) -> Result<Vec<u8>> {
    let rows = report
        .patterns
        .iter()
        .flat_map(|p| {
            p.sweep.iter().map(|s| {
                vec![
                    p.name.clone(),
                    s.stage.name().to_string(),
                    fixed(s.threshold),
                    s.nodes_after.to_string(),
                    fixed(s.kept_ratio),
                ]
            })
        })
        .collect();
    table(&SWEEP_HEADER, rows)
}

/// `groups.csv`: each pattern's group at every stage, and whether its
/// group partners differ from those before abstraction.
pub fn groups(report: &Report) -> Result<Vec<u8>> {
    let g = &report.groups;
    let mut rows = Vec::new();
    for (i, p) in report.patterns.iter().enumerate() {
        for s in Stage::all() {
            rows.push(vec![
                p.name.clone(),
                s.name().to_string(),
                groups::label(g.number[i][s.index()]),
                g.changed[i][s.index()].to_string(),
            ]);
        }
    }
    table(&GROUPS_HEADER, rows)
}

/// `protection.csv` (with `--keep-features`): per pattern and method, the
/// nodes kept without and with the distinguishing functions protected.
pub fn protection(report: &Report) -> Result<Vec<u8>> {
    let mut rows = Vec::new();
    let Some(unprotected) = &report.unprotected else {
        return table(&PROTECTION_HEADER, rows);
    };
    for (p, before) in report.patterns.iter().zip(unprotected) {
        for (r, &plain) in p.rates.iter().zip(before) {
            rows.push(vec![
                p.name.clone(),
                r.stage.name().to_string(),
                plain.to_string(),
                r.nodes_after.to_string(),
                (r.nodes_after as i64 - plain as i64).to_string(),
            ]);
        }
    }
    table(&PROTECTION_HEADER, rows)
}

/// `features.csv`: every distinguishing function at every stage.
pub fn features(report: &Report) -> Result<Vec<u8>> {
    let mut rows = Vec::new();
    for f in &report.features {
        for s in Stage::all() {
            rows.push(vec![
                report.patterns[f.pattern].name.clone(),
                f.function.clone(),
                s.name().to_string(),
                f.kept[s.index()].to_string(),
            ]);
        }
    }
    table(&FEATURES_HEADER, rows)
}

fn table(header: &[&str], rows: Vec<Vec<String>>) -> Result<Vec<u8>> {
    let err = |e: csv::Error| Error::Input(format!("cannot write CSV: {e}"));
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header).map_err(err)?;
    for row in rows {
        w.write_record(&row).map_err(err)?;
    }
    w.into_inner()
        .map_err(|e| Error::Input(format!("cannot write CSV: {e}")))
}
