//! The table `calltrace compare` prints on stdout: per pattern, nodes
//! before and after each method with the share kept, then a summary of how
//! groups and distinguishing functions fared under each method.

use std::fmt::Write as _;

use crate::compare::{Report, Stage};
use crate::emit::format::{counted, percent};
use crate::error::escape_controls;

/// The stdout table: per pattern, nodes before and after each method
/// (with the share kept), then how groups and features fared.
pub fn table(report: &Report) -> String {
    let params = report.config.params();
    let mut heads = vec!["pattern".to_string(), "before".to_string()];
    heads.extend(Stage::methods().map(|s| {
        let spec = s.spec().expect("a method stage");
        match spec.shown_value(&params) {
            // As the flags take it and the plots show it: `threshold 90%`.
            Some(v) => format!("{} {}", s.name(), crate::abstraction::Share::constant(v)),
            None => s.name().to_string(),
        }
    }));
    let rows: Vec<Vec<String>> = report
        .patterns
        .iter()
        .map(|p| {
            let mut row = vec![
                escape_controls(&p.name).into_owned(),
                p.nodes_before.to_string(),
            ];
            row.extend(
                p.rates
                    .iter()
                    .map(|r| format!("{} ({})", r.nodes_after, percent(r.kept_ratio(), 1))),
            );
            row
        })
        .collect();
    let mut out = align(&heads, &rows);
    out.push('\n');
    out.push_str(&summary(report));
    out
}

/// Columns padded to their widest cell: the first left-aligned, the rest right.
fn align(heads: &[String], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..heads.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([heads[c].chars().count()])
                .max()
                .map_or(0, |w| w.min(u16::MAX as usize)) // fmt widths are u16
        })
        .collect();
    let mut out = String::new();
    for row in std::iter::once(heads).chain(rows.iter().map(Vec::as_slice)) {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            match c {
                0 => write!(line, "{cell:<w$}", w = widths[0]),
                _ => write!(line, "  {cell:>w$}", w = widths[c]),
            }
            .expect("write to String");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Groups and features per method, e.g. `merge: 12 groups (3 patterns changed group), 5/8 distinguishing functions kept`.
fn summary(report: &Report) -> String {
    let g = &report.groups;
    let total = report.features.len();
    let mut out = format!(
        "before: {} in {} of equal function sets, {}\n",
        counted(report.patterns.len(), "pattern", "patterns"),
        counted(g.count(Stage::BEFORE), "group", "groups"),
        counted(total, "distinguishing function", "distinguishing functions")
    );
    for s in Stage::methods() {
        let kept = report.features.iter().filter(|f| f.kept[s.index()]).count();
        let changed = match g.changed_count(s) {
            1 => "1 pattern changed group".to_string(),
            n => format!("{n} patterns changed group"),
        };
        writeln!(
            out,
            "{}: {} ({changed}), {kept}/{total} distinguishing {} kept{}",
            s.name(),
            counted(g.count(s), "group", "groups"),
            if total == 1 { "function" } else { "functions" },
            protection_cost(report, s)
        )
        .expect("write to String");
    }
    out
}

/// `; protecting them cost 12 extra nodes` with `--keep-features`.
fn protection_cost(report: &Report, s: Stage) -> String {
    let Some(unprotected) = &report.unprotected else {
        return String::new();
    };
    let m = s.index() - 1;
    let extra: i64 = report
        .patterns
        .iter()
        .zip(unprotected)
        .map(|(p, u)| p.rates[m].nodes_after as i64 - u[m] as i64)
        .sum();
    let nodes = if extra == 1 { "node" } else { "nodes" };
    format!("; protecting them cost {extra} extra {nodes} over all patterns")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_aligned_names_left_numbers_right() {
        let heads = ["pattern", "before"].map(String::from);
        let rows = vec![
            vec!["a".to_string(), "1051".to_string()],
            vec!["long-name".to_string(), "7".to_string()],
        ];
        assert_eq!(
            align(&heads, &rows),
            "pattern    before\na            1051\nlong-name       7\n"
        );
    }
}
