//! What `calltrace coverage` writes: the summary on stdout, the function
//! list and call matrix as CSV, and an lcov tracefile (`SF`/`FN`/`FNDA`/
//! `FNF`/`FNH` records) for genhtml, Codecov or SonarQube.

use std::fmt::Write as _;

use std::collections::BTreeMap;

use crate::coverage::{Counts, Coverage, Entry, Status};
use crate::emit::graph::tree_dot::short_paths;
use crate::error::{Error, Result, escape_controls};

/// The group of functions without a source file.
const NO_FILE: &str = "(no source file)";

/// The summary: one line per source file (per module when `modules` is
/// given, one name per entry), then the totals. Files are shown as the
/// legend of `abstract`'s drawings shows them, cut to as few trailing
/// components as keep them apart (`.../lz/lz_encoder.c`), in path order,
/// with the functions without a source file last.
pub fn summary(cov: &Coverage, modules: Option<&[String]>) -> Vec<u8> {
    let what = if modules.is_some() { "module" } else { "file" };
    let mut groups: BTreeMap<Option<&str>, Counts> = BTreeMap::new();
    for (i, e) in cov.entries.iter().enumerate() {
        let group = match modules {
            Some(m) => Some(m[i].as_str()),
            None => e.info.file.as_deref(),
        };
        groups.entry(group).or_default().add(e.status);
    }
    // Files without a name last (None sorts first).
    let mut groups: Vec<(Option<&str>, Counts)> = groups.into_iter().collect();
    let unnamed = groups.first().is_some_and(|g| g.0.is_none());
    groups.rotate_left(usize::from(unnamed));
    let named: Vec<&str> = groups.iter().filter_map(|g| g.0).collect();
    let mut shown = match modules {
        Some(_) => named.iter().map(|n| n.to_string()).collect(),
        None => short_paths(&named),
    }
    .into_iter();
    let mut rows: Vec<[String; 6]> = vec![[
        what.to_string(),
        "instrumented".into(),
        "called".into(),
        "never called".into(),
        "not instrumented".into(),
        "called %".into(),
    ]];
    let row = |name: &str, c: &Counts| {
        [
            escape_controls(name).into_owned(),
            c.instrumented.to_string(),
            c.called.to_string(),
            c.never_called.to_string(),
            c.not_instrumented.to_string(),
            percent(c),
        ]
    };
    for (name, c) in &groups {
        let label = match name {
            Some(_) => shown.next().unwrap_or_default(),
            None => NO_FILE.to_string(),
        };
        rows.push(row(&label, c));
    }
    rows.push(row("all", &cov.totals()));
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} in {}, {}; called % is called / instrumented",
        crate::emit::format::counted(cov.entries.len(), "function", "functions"),
        crate::emit::format::counted(cov.objects.len(), "object", "objects"),
        crate::emit::format::counted(cov.patterns.len(), "pattern", "patterns"),
    );
    for r in &rows {
        let _ = write!(out, "{:<w$}", r[0], w = widths[0]);
        for i in 1..6 {
            let _ = write!(out, "  {:>w$}", r[i], w = widths[i]);
        }
        out.push('\n');
    }
    out.into_bytes()
}

fn percent(c: &Counts) -> String {
    match c.instrumented {
        0 => "-".to_string(),
        _ => format!("{:.1}", 100.0 * c.share()),
    }
}

fn csv_writer() -> csv::Writer<Vec<u8>> {
    csv::Writer::from_writer(Vec::new())
}

fn finish(w: csv::Writer<Vec<u8>>) -> Result<Vec<u8>> {
    w.into_inner()
        .map_err(|e| Error::Input(format!("cannot write CSV: {e}")))
}

fn fail(e: csv::Error) -> Error {
    Error::Input(format!("cannot write CSV: {e}"))
}

/// `function,file,line,module,calls,status`, one row per function.
pub fn csv(cov: &Coverage, modules: Option<&[String]>) -> Result<Vec<u8>> {
    let mut w = csv_writer();
    w.write_record(["function", "file", "line", "module", "calls", "status"])
        .map_err(fail)?;
    for (i, e) in cov.entries.iter().enumerate() {
        let module = modules.map(|m| m[i].as_str()).unwrap_or("");
        w.write_record([
            e.info.name.as_str(),
            e.info.file.as_deref().unwrap_or(""),
            &e.info.line.map(|l| l.to_string()).unwrap_or_default(),
            module,
            &e.total_calls().to_string(),
            e.status.label(),
        ])
        .map_err(fail)?;
    }
    finish(w)
}

/// `function,file,line,PATTERN...`: each instrumented function's calls in
/// each pattern (which tests exercise which function; a function that is
/// not instrumented has no row, since no pattern could show it).
pub fn matrix(cov: &Coverage) -> Result<Vec<u8>> {
    let mut w = csv_writer();
    let mut header = vec!["function".to_string(), "file".into(), "line".into()];
    header.extend(cov.patterns.iter().cloned());
    w.write_record(&header).map_err(fail)?;
    for e in cov
        .entries
        .iter()
        .filter(|e| e.status != Status::NotInstrumented)
    {
        let mut rec = vec![
            e.info.name.clone(),
            e.info.file.clone().unwrap_or_default(),
            e.info.line.map(|l| l.to_string()).unwrap_or_default(),
        ];
        rec.extend(e.calls.iter().map(u64::to_string));
        w.write_record(&rec).map_err(fail)?;
    }
    finish(w)
}

/// An lcov tracefile of function coverage: per source file, `FN` (line and
/// name) and `FNDA` (calls and name) for every instrumented function,
/// then `FNF`/`FNH`, and a `DA` record for each function's first line
/// (reached as often as the function was called) with `LF`/`LH`. Functions that are not instrumented are left out
/// (nothing can measure them), and so are functions without a source file.
/// Names and paths are written as they are, except that a line break in
/// one (which would end the record) is shown as `\x0a`.
pub fn lcov(cov: &Coverage) -> Vec<u8> {
    let mut files: BTreeMap<&str, Vec<&Entry>> = Default::default();
    for e in &cov.entries {
        if let (Some(file), true) = (&e.info.file, e.status != Status::NotInstrumented) {
            files.entry(file.as_str()).or_default().push(e);
        }
    }
    let mut out = String::from("TN:\n");
    for (file, entries) in files {
        let _ = writeln!(out, "SF:{}", escape_controls(file));
        for e in &entries {
            let _ = writeln!(
                out,
                "FN:{},{}",
                e.info.line.unwrap_or(0),
                escape_controls(&e.info.name)
            );
        }
        for e in &entries {
            let _ = writeln!(
                out,
                "FNDA:{},{}",
                e.total_calls(),
                escape_controls(&e.info.name)
            );
        }
        let hit = entries
            .iter()
            .filter(|e| e.status == Status::Called)
            .count();
        let _ = writeln!(out, "FNF:{}\nFNH:{hit}", entries.len());
        // Each function's first line ran as often as it was called: line
        // records, without which genhtml finds no data.
        let mut lines: BTreeMap<u32, u64> = Default::default();
        for e in entries.iter().filter(|e| e.info.line.is_some()) {
            let n = lines.entry(e.info.line.unwrap_or(0)).or_default();
            *n = n.saturating_add(e.total_calls());
        }
        for (line, n) in &lines {
            let _ = writeln!(out, "DA:{line},{n}");
        }
        let lines_hit = lines.values().filter(|&&n| n > 0).count();
        let _ = writeln!(out, "LF:{}\nLH:{lines_hit}\nend_of_record", lines.len());
    }
    out.into_bytes()
}
