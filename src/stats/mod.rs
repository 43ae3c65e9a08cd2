//! `stats`'s numbers: the per-call distribution of every function (or
//! calling context) of a tree built with its distributions kept
//! ([`crate::calltree::Dist`]): calls, total, self, and the inclusive (or
//! self) time per call's minimum, mean, percentiles and maximum, with
//! where the maximum happened. Writes no files; `emit::stats` prints them.

pub(crate) mod contexts;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use crate::calltree::{CallDist, Dist, NodeId, Tree, dist, hot};
use crate::ingest::{FuncId, FuncTable};
use crate::symbols::FuncInfo;
use contexts::{ContextId, Contexts};

/// What rows stand for (`--by`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum By {
    /// One row per function, whatever its callers. Default.
    #[default]
    Function,
    /// One row per calling context: the path of names from the top
    /// (threads merged), `main;a;b`, kept as parent links ([`contexts`]).
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

/// Names a table shows at each end of a deeper context's path.
pub(crate) const SHOWN_NAMES: usize = 8;

/// One function's or context's statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The function's name, exactly as shown elsewhere (a context's own
    /// function with `--by context`).
    pub name: String,
    /// The calling context, with `--by context`: an id in [`Rows`]'
    /// contexts, whose path [`Rows::path`] writes.
    pub context: Option<ContextId>,
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

/// The rows of one trace, and the contexts their ids refer to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rows {
    /// The rows, as [`rows`] lists them until [`sort`]ed.
    pub rows: Vec<Row>,
    /// The calling contexts (empty by function).
    contexts: Contexts,
    /// The names the contexts' labels stand for.
    labels: Vec<String>,
    /// What the times count: nanoseconds, or a clock's cycles.
    pub unit: crate::ingest::Unit,
}

impl Rows {
    /// What a row is called in the outputs: a context's path (names
    /// joined by `;`, see [`contexts`]), or the function's name.
    pub fn path(&self, r: &Row) -> Cow<'_, str> {
        match r.context {
            Some(c) => Cow::Owned(self.contexts.path(c, |l| self.labels[l as usize].as_str())),
            None => Cow::Owned(r.name.clone()),
        }
    }

    /// What the table shows for a row: [`Rows::path`], with the middle
    /// of a deep context's path left out (`main;f;…(39990 more)…;f;f`).
    pub fn shown<'a>(&'a self, r: &'a Row) -> Cow<'a, str> {
        match r.context {
            Some(c) => Cow::Owned(
                self.contexts
                    .shown_path(c, SHOWN_NAMES, |l| self.labels[l as usize].as_str()),
            ),
            None => Cow::Borrowed(&r.name),
        }
    }

    /// The bytes the rows' paths take when every one is written (0 by
    /// function): what `--csv` of a deep recursion would hold.
    pub fn path_bytes(&self) -> u64 {
        let lens = self
            .contexts
            .path_lengths(|l| contexts::escaped_len(&self.labels[l as usize]));
        self.rows
            .iter()
            .filter_map(|r| r.context.map(|c| lens[c as usize]))
            .fold(0u64, u64::saturating_add)
    }

    /// The deepest context's depth (0 by function).
    pub fn depth(&self) -> u32 {
        self.contexts.depths().into_iter().max().unwrap_or(0)
    }

    /// The row called `name`: a function's exact name, or with contexts a
    /// printed path (`main;a;b`, with `\;` for a `;` inside a name).
    pub(crate) fn find(&self, name: &str) -> Option<&Row> {
        if self.contexts.len() == 0 {
            return self.rows.iter().find(|r| r.name == name);
        }
        let mut at = None;
        for step in contexts::split_path(name) {
            let label = self.labels.iter().position(|l| *l == step)? as u32;
            at = Some(self.contexts.find(at, label)?);
        }
        self.rows
            .iter()
            .find(|r| r.context.is_some() && r.context == at)
    }
}

#[cfg(test)]
impl Rows {
    /// Rows made by hand: each with the path of names of its context
    /// (empty for a function row).
    pub(crate) fn by_hand(rows: Vec<(&[&str], Row)>) -> Rows {
        let mut out = Rows {
            unit: crate::ingest::Unit::Nanos,
            ..Rows::default()
        };
        for (path, mut row) in rows {
            let mut at = None;
            for name in path {
                let label = match out.labels.iter().position(|l| l == name) {
                    Some(l) => l as u32,
                    None => {
                        out.labels.push(name.to_string());
                        out.labels.len() as u32 - 1
                    }
                };
                at = Some(out.contexts.child(at, label));
            }
            row.context = at;
            out.rows.push(row);
        }
        out
    }
}

/// The rows of `tree` (built with its distributions kept), named by
/// `names`: functions in name order (functions shown under one name are
/// one row), contexts in the order they were first called.
pub(crate) fn rows(tree: &Tree, funcs: &FuncTable, names: &[FuncInfo], by: By) -> Rows {
    let mut rows = match by {
        By::Function => function_rows(tree, funcs, names),
        By::Context => context_rows(tree, funcs, names),
    };
    rows.unit = tree.unit;
    rows
}

/// Adds one node's (or function's) weights to a row.
fn add(row: &mut Row, calls: u64, total: u64, self_time: u64, dist: &CallDist) {
    row.calls = row.calls.saturating_add(calls);
    row.total = row.total.saturating_add(total);
    row.self_time = row.self_time.saturating_add(self_time);
    row.dist.merge(dist);
}

fn empty_row(name: &str, context: Option<ContextId>) -> Row {
    Row {
        name: name.to_string(),
        context,
        calls: 0,
        total: 0,
        self_time: 0,
        dist: CallDist::default(),
    }
}

fn function_rows(tree: &Tree, funcs: &FuncTable, names: &[FuncInfo]) -> Rows {
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    // Totals count a recursive function's outermost calls only
    // (`hot::func_stats`); every call is in its distribution.
    let dists = dist::per_function(tree, funcs.len());
    for (f, s) in hot::func_stats(tree, funcs).iter().enumerate() {
        if s.calls == 0 || funcs.is_synthetic(f as u32) {
            continue;
        }
        let name = name_of(names, f as u32);
        let d = dists.get(f).cloned().unwrap_or_default();
        let row = rows.entry(name).or_insert_with(|| empty_row(name, None));
        add(row, s.calls, s.total, s.self_weight, &d);
    }
    Rows {
        rows: rows.into_values().collect(),
        ..Rows::default()
    }
}

fn context_rows(tree: &Tree, funcs: &FuncTable, names: &[FuncInfo]) -> Rows {
    let mut out = Rows::default();
    let mut label_of: HashMap<&str, u32> = HashMap::new();
    let mut by_context: Vec<Option<Row>> = Vec::new();
    for_each_context(tree, funcs, |parent, n| {
        let name = name_of(names, tree.func(n));
        let label = *label_of.entry(name).or_insert_with(|| {
            out.labels.push(name.to_string());
            out.labels.len() as u32 - 1
        });
        let c = out.contexts.child(parent, label);
        if by_context.len() <= c as usize {
            by_context.resize(c as usize + 1, None);
        }
        let row = by_context[c as usize].get_or_insert_with(|| empty_row(name, Some(c)));
        let d = tree.dist(n).unwrap_or_default();
        add(row, tree.calls(n), tree.total(n), tree.self_time(n), &d);
        c
    });
    out.rows = by_context.into_iter().flatten().collect();
    out
}

/// A function's name as shown, exactly (`#?` for an id without a name,
/// which the pipeline never leaves).
pub(crate) fn name_of(names: &[FuncInfo], f: FuncId) -> &str {
    names.get(f as usize).map_or("#?", |i| i.name.as_str())
}

/// Calls `visit(parent, node)` for every non-synthetic node in preorder,
/// with the context `visit` returned for the node's caller (None at the
/// top of a thread: threads are merged). Linear in the tree's size.
pub(crate) fn for_each_context(
    tree: &Tree,
    funcs: &FuncTable,
    mut visit: impl FnMut(Option<ContextId>, NodeId) -> ContextId,
) {
    // Open nodes: (end of subtree, its context; None for a thread).
    let mut open: Vec<(NodeId, Option<ContextId>)> = Vec::new();
    for n in 1..tree.len() as NodeId {
        while open.last().is_some_and(|&(end, _)| end <= n) {
            open.pop();
        }
        let parent = open.last().and_then(|&(_, c)| c);
        let f = tree.func(n);
        if funcs.is_synthetic(f) {
            // A thread: its calls start new paths.
            open.push((n + tree.size(n), None));
            continue;
        }
        let c = visit(parent, n);
        open.push((n + tree.size(n), Some(c)));
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
    rows.sort_by(|a, b| {
        key(b)
            .cmp(&key(a))
            .then_with(|| a.name.cmp(&b.name))
            .then(a.context.cmp(&b.context))
    });
}

#[cfg(test)]
mod tests;
