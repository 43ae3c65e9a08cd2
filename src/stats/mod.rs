//! `stats`'s numbers: the per-call distribution of every function (or
//! calling context) of a tree built with its distributions kept
//! ([`crate::calltree::Dist`]): calls, total, self, and the inclusive (or
//! self) time per call's minimum, mean, percentiles and maximum, with
//! where the maximum happened. Writes no files; `emit::stats` prints them.

use std::collections::BTreeMap;

use crate::calltree::{CallDist, Dist, NodeId, Tree};
use crate::ingest::FuncTable;
use crate::symbols::FuncInfo;

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
/// `names`, in name order.
pub(crate) fn rows(tree: &Tree, funcs: &FuncTable, names: &[FuncInfo], by: By) -> Vec<Row> {
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut add = |name: String, n: NodeId, outermost: bool| {
        let row = rows.entry(name.clone()).or_insert_with(|| Row {
            name,
            calls: 0,
            total: 0,
            self_time: 0,
            dist: CallDist::default(),
        });
        row.calls = row.calls.saturating_add(tree.calls(n));
        row.self_time = row.self_time.saturating_add(tree.self_time(n));
        if outermost {
            row.total = row.total.saturating_add(tree.total(n));
        }
        if let Some(d) = tree.dist(n) {
            row.dist.merge(&d);
        }
    };
    walk(tree, funcs, names, by, &mut add);
    rows.into_values().collect()
}

/// Calls `add(row name, node, outermost)` for every non-synthetic node:
/// `outermost` is false for a node whose row is already open above it
/// (recursion), so totals are not counted twice.
fn walk(
    tree: &Tree,
    funcs: &FuncTable,
    names: &[FuncInfo],
    by: By,
    add: &mut dyn FnMut(String, NodeId, bool),
) {
    // Open nodes: (end of subtree, length of `path` with it, its function).
    let mut open: Vec<(NodeId, usize, u32)> = Vec::new();
    let mut active = vec![0u32; funcs.len().max(names.len())];
    let mut path = String::new();
    for n in 1..tree.len() as NodeId {
        while open.last().is_some_and(|&(end, _, _)| end <= n) {
            let (_, _, f) = open.pop().expect("checked");
            active[f as usize] -= 1;
        }
        path.truncate(open.last().map_or(0, |&(_, len, _)| len));
        let f = tree.func(n);
        if funcs.is_synthetic(f) {
            // A thread: its calls start new paths.
            path.clear();
            open.push((n + tree.size(n), 0, f));
            active[f as usize] += 1;
            continue;
        }
        let name = name_of(names, f);
        let outermost = active[f as usize] == 0;
        if by == By::Context && !path.is_empty() {
            path.push(';');
        }
        if by == By::Context {
            path.push_str(&name);
        }
        open.push((n + tree.size(n), path.len(), f));
        active[f as usize] += 1;
        match by {
            By::Function => add(name, n, outermost),
            // A context is its own row: every node is outermost in it.
            By::Context => add(path.clone(), n, true),
        }
    }
}

/// The name of function `f`, with `;` (the path separator) shown as `:`.
fn name_of(names: &[FuncInfo], f: u32) -> String {
    match names.get(f as usize) {
        Some(i) => i.name.replace(';', ":"),
        None => format!("#{f}"),
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
