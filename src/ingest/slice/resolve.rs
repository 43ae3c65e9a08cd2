//! Turning a [`Filter`] into a [`Slice`] for one trace: `--tid` values into
//! thread indexes (by the id the trace recorded, or the name it or the
//! rules gave); `--function`/`--exclude` come marked per function by the
//! caller ([`Marked`]), which matches them by the one rule of function
//! patterns. A value that matches nothing is an error that lists what
//! there is.

use super::{Filter, Slice};
use crate::error::{Error, Result};
use crate::ingest::{FuncTable, TraceMeta};

/// At most this many names are listed in an error.
const LISTED: usize = 12;

/// Which functions `--function` and `--exclude` name, one flag per
/// function id: matched by the caller, which knows the functions' names
/// and the one rule by which the user names them (`symbols::FuncPattern`).
#[derive(Debug, Default)]
pub struct Marked {
    /// `--function`: None when the flag is not given.
    pub function: Option<Vec<bool>>,
    /// `--exclude`: empty when the flag is not given.
    pub exclude: Vec<bool>,
}

/// Resolves `filter` for a trace whose threads are as `meta` says, whose
/// functions `marked` marks, and whose earliest event is at `origin`. A
/// `--tid` value that names no thread is an [`Error::Value`]: the caller
/// names the flag.
pub fn resolve<P>(
    filter: &Filter<P>,
    marked: Marked,
    meta: &TraceMeta,
    origin: Option<u64>,
) -> Result<Slice> {
    let threads = match filter.tids.is_empty() {
        true => None,
        false => Some(threads(&filter.tids, meta)?),
    };
    Ok(Slice {
        threads,
        range: filter.range,
        origin,
        function: marked.function,
        exclude: marked.exclude,
    })
}

/// `keep[i]` for each thread index `--tid` names.
fn threads(values: &[String], meta: &TraceMeta) -> Result<Vec<bool>> {
    let mut keep = vec![false; meta.threads.len()];
    for value in values.iter().flat_map(|v| v.split(',')) {
        let value = value.trim();
        let id = value.parse::<u64>().ok();
        let mut found = false;
        for (i, &tid) in meta.threads.iter().enumerate() {
            let name = meta.thread_names.get(i).map_or("", String::as_str);
            let shown = value.strip_prefix('[').and_then(|v| v.strip_suffix(']'));
            if id == Some(tid) || (!name.is_empty() && (name == value || Some(name) == shown)) {
                keep[i] = true;
                found = true;
            }
        }
        if !found {
            return Err(Error::value(format!(
                "no thread `{value}` in the trace; its threads are {}",
                thread_list(meta)
            )));
        }
    }
    Ok(keep)
}

/// The trace's threads for an error: `101, 102 (task1)`.
fn thread_list(meta: &TraceMeta) -> String {
    if meta.threads.is_empty() {
        return "none (it has no events)".to_string();
    }
    let mut shown: Vec<String> = meta
        .threads
        .iter()
        .enumerate()
        .take(LISTED)
        .map(
            |(i, tid)| match meta.thread_names.get(i).filter(|n| !n.is_empty()) {
                Some(name) => format!("{tid} ({name})"),
                None => tid.to_string(),
            },
        )
        .collect();
    if meta.threads.len() > LISTED {
        shown.push(format!("... ({} in all)", meta.threads.len()));
    }
    shown.join(", ")
}

/// A few of the trace's function names (`names[f]`: as shown, or the
/// short forms a pattern matches) for an error, those sharing the glob's
/// longest literal piece first, each once.
pub fn function_list(funcs: &FuncTable, names: &[&str], glob: &str) -> String {
    let piece = glob
        .split(['*', '?'])
        .max_by_key(|p| p.len())
        .unwrap_or("")
        .to_lowercase();
    let mut all: Vec<&str> = names
        .iter()
        .enumerate()
        .filter(|(f, _)| !funcs.is_synthetic(*f as u32))
        .map(|(_, shown)| *shown)
        .collect();
    if all.is_empty() {
        return "no functions".to_string();
    }
    all.sort_by_key(|n| (!n.to_lowercase().contains(&piece), *n));
    all.dedup();
    let count = all.len();
    let mut shown: Vec<String> = all.into_iter().take(LISTED).map(String::from).collect();
    if count > LISTED {
        shown.push(format!("... ({count} in all)"));
    }
    format!("functions such as {}", shown.join(", "))
}
