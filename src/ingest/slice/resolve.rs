//! Turning a [`Filter`] into a [`Slice`] for one trace: `--tid` values into
//! thread indexes (by the id the trace recorded, or the name it or the
//! rules gave), `--function`/`--exclude` globs into per-function flags
//! (matched against the names as shown, and their short form). A value
//! that matches nothing is an error that lists what there is.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::{Filter, Slice};
use crate::error::{Error, Result};
use crate::ingest::{FuncTable, TraceMeta};

/// At most this many names are listed in an error.
const LISTED: usize = 12;

/// Resolves `filter` for a trace whose functions are `funcs`, shown as
/// `names[f]` = (shown name, short form), with threads as `meta` says and
/// its earliest event at `origin`.
pub fn resolve(
    filter: &Filter,
    funcs: &FuncTable,
    names: &[(&str, &str)],
    meta: &TraceMeta,
    origin: Option<u64>,
) -> Result<Slice> {
    let threads = match filter.tids.is_empty() {
        true => None,
        false => Some(threads(&filter.tids, meta)?),
    };
    let function = match filter.function.is_empty() {
        true => None,
        false => Some(functions("--function", &filter.function, funcs, names)?),
    };
    let exclude = match filter.exclude.is_empty() {
        true => Vec::new(),
        false => functions("--exclude", &filter.exclude, funcs, names)?,
    };
    Ok(Slice {
        threads,
        range: filter.range,
        origin,
        function,
        exclude,
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
            return Err(Error::usage(
                "--tid",
                format!(
                    "no thread `{value}` in the trace; its threads are {}",
                    thread_list(meta)
                ),
            ));
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

/// `hit[f]` for each function one of `globs` matches; every glob must
/// match some function.
fn functions(
    flag: &str,
    globs: &[String],
    funcs: &FuncTable,
    names: &[(&str, &str)],
) -> Result<Vec<bool>> {
    let set = glob_set(flag, globs)?;
    let mut used = vec![false; globs.len()];
    let mut hit = vec![false; names.len()];
    for (f, (shown, short)) in names.iter().enumerate() {
        if funcs.is_synthetic(f as u32) {
            continue;
        }
        for g in set.matches(shown).into_iter().chain(set.matches(short)) {
            used[g] = true;
            hit[f] = true;
        }
    }
    if let Some(g) = used.iter().position(|&u| !u) {
        return Err(Error::usage(
            flag,
            format!(
                "`{}` matches no function of the trace; it has {}",
                globs[g],
                function_list(funcs, names, &globs[g])
            ),
        ));
    }
    Ok(hit)
}

/// `*` and `?` are the only wildcards (as in `--keep` and module tables):
/// C++ names are full of brackets and braces.
fn glob_set(flag: &str, globs: &[String]) -> Result<GlobSet> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        let mut escaped = String::with_capacity(g.len());
        for c in g.chars() {
            match c {
                '*' | '?' => escaped.push(c),
                c => escaped.push_str(&globset::escape(c.encode_utf8(&mut [0; 4]))),
            }
        }
        let glob = GlobBuilder::new(&escaped)
            .backslash_escape(false)
            .build()
            .map_err(|e| Error::usage(flag, format!("expected a glob, found `{g}`: {e}")))?;
        b.add(glob);
    }
    b.build()
        .map_err(|e| Error::usage(flag, format!("expected globs: {e}")))
}

/// A few of the trace's function names for an error, those sharing the
/// glob's longest literal piece first.
fn function_list(funcs: &FuncTable, names: &[(&str, &str)], glob: &str) -> String {
    let piece = glob
        .split(['*', '?'])
        .max_by_key(|p| p.len())
        .unwrap_or("")
        .to_lowercase();
    let mut all: Vec<&str> = names
        .iter()
        .enumerate()
        .filter(|(f, _)| !funcs.is_synthetic(*f as u32))
        .map(|(_, (shown, _))| *shown)
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
