//! `stats`'s numbers: the per-call distribution of every function (or
//! calling context) of a tree built with its distributions kept
//! ([`crate::calltree::Dist`]): calls, total, self, and the inclusive (or
//! self) time per call's minimum, mean, percentiles and maximum, with
//! where the maximum happened. Writes no files; `emit::stats` prints them.

use std::collections::BTreeMap;

use crate::calltree::{CallDist, Dist, NodeId, Tree, dist, hot};
use crate::ingest::FuncTable;
use crate::symbols::{FuncInfo, name_in_path};

/// What rows stand for (`--by`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum By {
    /// One row per function, whatever its callers. Default.
    #[default]
    Function,
    /// One row per calling context: the path of names from the top
    /// (threads merged), `main;a;b`.
    Context,
}

/// What rows are ordered by (`--sort`), largest first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Sort {
    /// Total time (a recursive function's nested calls counted once). Default.
    #[default]
    Total,
    /// Self time.
    Self_,
    /// The slowest call.
    Max,
    /// The 99th percentile of a call.
    P99,
    /// Number of calls.
    Calls,
}

/// One function's or context's statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The function's name, or the context's path of names joined by `;`.
    pub name: String,
    /// Number of calls.
    pub calls: u64,
    /// Total (inclusive) time; a recursive function's nested calls are
    /// not counted twice.
    pub total: u64,
    /// Self time.
    pub self_time: u64,
    /// Inclusive and self time per call.
    pub dist: CallDist,
}

impl Row {
    /// The distribution the percentile columns show: self time per call
    /// with `self_time`, else inclusive time per call.
    pub fn shown(&self, self_time: bool) -> &Dist {
        match self_time {
            true => &self.dist.self_time,
            false => &self.dist.total,
        }
    }
}

/// The rows of `tree` (built with its distributions kept), named by
/// `names`, in name order. Functions shown under one name are one row.
pub(crate) fn rows(tree: &Tree, funcs: &FuncTable, names: &[FuncInfo], by: By) -> Vec<Row> {
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut add = |name: String, calls: u64, total: u64, self_time: u64, dist: &CallDist| {
        let row = rows.entry(name.clone()).or_insert_with(|| Row {
            name,
            calls: 0,
            total: 0,
            self_time: 0,
            dist: CallDist::default(),
        });
        row.calls = row.calls.saturating_add(calls);
        row.total = row.total.saturating_add(total);
        row.self_time = row.self_time.saturating_add(self_time);
        row.dist.merge(dist);
    };
    match by {
        By::Function => {
            // Totals count a recursive function's outermost calls only
            // (`hot::func_stats`); every call is in its distribution.
            let dists = dist::per_function(tree, funcs.len());
            for (f, s) in hot::func_stats(tree, funcs).iter().enumerate() {
                if s.calls == 0 || funcs.is_synthetic(f as u32) {
                    continue;
                }
                let d = dists.get(f).cloned().unwrap_or_default();
                add(
                    name_in_path(names, f as u32),
                    s.calls,
                    s.total,
                    s.self_weight,
                    &d,
                );
            }
        }
        By::Context => for_each_path(tree, funcs, names, |path, n| {
            let d = tree.dist(n).unwrap_or_default();
            add(
                path.to_string(),
                tree.calls(n),
                tree.total(n),
                tree.self_time(n),
                &d,
            );
        }),
    }
    rows.into_values().collect()
}

/// Calls `visit(path, node)` for every non-synthetic node, with its path
/// of names from the top of its thread joined by `;` (`main;a;b`).
fn for_each_path(
    tree: &Tree,
    funcs: &FuncTable,
    names: &[FuncInfo],
    mut visit: impl FnMut(&str, NodeId),
) {
    // Open nodes: (end of subtree, length of `path` with it).
    let mut open: Vec<(NodeId, usize)> = Vec::new();
    let mut path = String::new();
    for n in 1..tree.len() as NodeId {
        while open.last().is_some_and(|&(end, _)| end <= n) {
            open.pop();
        }
        path.truncate(open.last().map_or(0, |&(_, len)| len));
        let f = tree.func(n);
        if funcs.is_synthetic(f) {
            // A thread: its calls start new paths.
            path.clear();
            open.push((n + tree.size(n), 0));
            continue;
        }
        if !path.is_empty() {
            path.push(';');
        }
        path.push_str(&name_in_path(names, f));
        open.push((n + tree.size(n), path.len()));
        visit(&path, n);
    }
}

/// Orders `rows` by `sort`, largest first, then by name; the percentile
/// and maximum are of self time when `self_time`.
pub(crate) fn sort(rows: &mut [Row], sort: Sort, self_time: bool) {
    let key = |r: &Row| match sort {
        Sort::Total => r.total,
        Sort::Self_ => r.self_time,
        Sort::Max => r.shown(self_time).max,
        Sort::P99 => r.shown(self_time).quantile(0.99),
        Sort::Calls => r.calls,
    };
    rows.sort_by(|a, b| key(b).cmp(&key(a)).then_with(|| a.name.cmp(&b.name)));
}

/// The row called `name`, or None.
pub(crate) fn find<'a>(rows: &'a [Row], name: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.name == name)
}

#[cfg(test)]
mod tests;
