//! One run as `diff` sees it: the weight of every function (or calling
//! context), keyed by names rather than by addresses or ids, so that the
//! runs of two different builds of a program line up.

use std::collections::BTreeMap;

use crate::calltree::{CallGraph, Tree, hot};
use crate::ingest::{FuncTable, Unit};
use crate::symbols::{FuncInfo, name_in_path};

/// What rows stand for (`--by`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum By {
    /// One row per function: its calling contexts rolled up. Default.
    #[default]
    Function,
    /// One row per calling context (path of names from the top).
    Context,
}

/// What identifies a row across runs and builds: the function's name (or
/// the context's `main;a;b` path) and the file name of its source, without
/// its directory (a rebuild elsewhere must still match; two static
/// functions of one name in different files must not).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// The function's name, or the context's path of names joined by `;`.
    pub name: String,
    /// The source file's name without directories; empty when unknown.
    pub file: String,
}

/// The weights of one row in one run, in the tree's unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Number of calls.
    pub calls: u64,
    /// Self (exclusive) weight.
    pub self_weight: u64,
    /// Total (inclusive) weight; a recursive function's inner calls are
    /// not counted twice.
    pub total: u64,
}

impl Stats {
    fn add(&mut self, o: Stats) {
        self.calls = self.calls.saturating_add(o.calls);
        self.self_weight = self.self_weight.saturating_add(o.self_weight);
        self.total = self.total.saturating_add(o.total);
    }
}

/// One run: every row's weights, and what the weights count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Profile {
    /// What the weights count.
    pub unit: Unit,
    /// Decimal places of fixed-point weights (indented traces).
    pub decimals: u8,
    /// The run's whole weight (the root's total).
    pub total: u64,
    /// Weights by row.
    pub rows: BTreeMap<Key, Stats>,
    /// The source file of each row as the debug information names it.
    pub files: BTreeMap<Key, String>,
    /// Caller -> callee edges between function rows (function rows only).
    pub edges: BTreeMap<(Key, Key), EdgeWeight>,
}

/// The weight of a caller -> callee edge in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct EdgeWeight {
    /// Calls from caller to callee.
    pub calls: u64,
    /// The callee's total weight over those calls.
    pub total: u64,
}

impl Profile {
    /// The profile of a calling-context `tree` whose functions are named by `names`.
    pub(crate) fn new(tree: &Tree, funcs: &FuncTable, names: &[FuncInfo], by: By) -> Profile {
        let mut p = Profile {
            unit: tree.unit,
            decimals: tree.decimals,
            total: tree.total(0),
            ..Profile::default()
        };
        match by {
            By::Function => p.add_functions(tree, funcs, names),
            By::Context => p.add_contexts(tree, funcs, names),
        }
        p
    }

    fn add(&mut self, name: String, info: Option<&FuncInfo>, stats: Stats) {
        let file = info.and_then(|i| i.file.as_deref());
        let key = key(name, info);
        if let Some(f) = file {
            self.files
                .entry(key.clone())
                .or_insert_with(|| f.to_string());
        }
        self.rows.entry(key).or_default().add(stats);
    }

    fn add_functions(&mut self, tree: &Tree, funcs: &FuncTable, names: &[FuncInfo]) {
        let cg = CallGraph::from_tree(tree, funcs);
        let g = &cg.graph;
        for e in g.edge_indices() {
            let (a, b) = g.edge_endpoints(e).expect("edge of this graph");
            let (fa, fb) = (g[a], g[b]);
            let from = key(name_in_path(names, fa), names.get(fa as usize));
            let to = key(name_in_path(names, fb), names.get(fb as usize));
            let w = self.edges.entry((from, to)).or_default();
            w.calls = w.calls.saturating_add(g[e].calls);
            w.total = w.total.saturating_add(g[e].total);
        }
        for (f, s) in hot::func_stats(tree, funcs).into_iter().enumerate() {
            if s.calls == 0 || funcs.is_synthetic(f as u32) {
                continue;
            }
            let info = names.get(f);
            let stats = Stats {
                calls: s.calls,
                self_weight: s.self_weight,
                total: s.total,
            };
            self.add(name_in_path(names, f as u32), info, stats);
        }
    }

    fn add_contexts(&mut self, tree: &Tree, funcs: &FuncTable, names: &[FuncInfo]) {
        // The path of the node open at each depth, as a length of `path`.
        let mut open: Vec<(u32, usize)> = Vec::new();
        let mut path = String::new();
        for n in 1..tree.len() as u32 {
            while open.last().is_some_and(|&(end, _)| end <= n) {
                open.pop();
            }
            let start = open.last().map_or(0, |&(_, len)| len);
            path.truncate(start);
            let f = tree.func(n);
            if funcs.is_synthetic(f) {
                // A thread: its calls start new paths.
                open.push((n + tree.size(n), 0));
                path.clear();
                continue;
            }
            if !path.is_empty() {
                path.push(';');
            }
            path.push_str(&name_in_path(names, f));
            open.push((n + tree.size(n), path.len()));
            let stats = Stats {
                calls: tree.calls(n),
                self_weight: tree.self_time(n),
                total: tree.total(n),
            };
            self.add(path.clone(), names.get(f as usize), stats);
        }
    }
}

/// The key of a function named `name`.
fn key(name: String, info: Option<&FuncInfo>) -> Key {
    let file = info.and_then(|i| i.file.as_deref());
    Key {
        name,
        file: file.map(base_name).unwrap_or_default().to_string(),
    }
}

/// The last component of a path.
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
