//! One run as `diff` sees it: the weight of every function (or calling
//! context), keyed by names rather than by addresses or ids, so that the
//! runs of two different builds of a program line up.

use std::collections::{BTreeMap, HashMap};

use crate::calltree::{CallGraph, Tree, hot};
use crate::ingest::{FuncId, FuncTable, Unit};
use crate::stats::contexts::Contexts;
use crate::stats::{for_each_context, name_of};
use crate::symbols::FuncInfo;

/// What rows stand for (`--by`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum By {
    /// One row per function: its calling contexts rolled up. Default.
    #[default]
    Function,
    /// One row per calling context (path of names from the top), as a
    /// context of the [`Catalog`].
    Context,
}

/// What identifies a function across runs and builds: its name, exactly
/// as every output shows it, and the file name of its source, without
/// its directory (a rebuild elsewhere must still match; two static
/// functions of one name in different files must not).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// The function's name.
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

/// The names of every run compared, shared by their profiles: function
/// keys, and calling contexts as parent links over them
/// ([`crate::stats::contexts`]), so that a deep recursion's contexts take
/// memory in proportion to its tree.
#[derive(Debug, Clone, Default)]
pub(crate) struct Catalog {
    keys: Vec<Key>,
    ids: HashMap<Key, u32>,
    /// Calling contexts whose labels are key ids.
    pub contexts: Contexts,
}

impl Catalog {
    /// The id of `key`, added on first use.
    pub(crate) fn key_id(&mut self, key: Key) -> u32 {
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = self.keys.len() as u32;
        self.ids.insert(key.clone(), id);
        self.keys.push(key);
        id
    }

    /// The key of id `id`.
    pub(crate) fn key(&self, id: u32) -> &Key {
        &self.keys[id as usize]
    }

    /// Every key's name, by key id.
    pub(crate) fn names(&self) -> Vec<String> {
        self.keys.iter().map(|k| k.name.clone()).collect()
    }
}

#[cfg(test)]
impl Catalog {
    /// The context of the path of `names` (keys without a file), added
    /// on first use.
    pub(crate) fn context_of(&mut self, names: &[&str]) -> u32 {
        let mut at = None;
        for name in names {
            let label = self.key_id(Key {
                name: name.to_string(),
                file: String::new(),
            });
            at = Some(self.contexts.child(at, label));
        }
        at.expect("a path of one name or more")
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
    /// What rows are: key ids or context ids of the [`Catalog`].
    pub by: By,
    /// Weights by row id.
    pub rows: BTreeMap<u32, Stats>,
    /// The source file of each key id as the debug information names it.
    pub files: HashMap<u32, String>,
    /// Caller -> callee edges between key ids (function rows only).
    pub edges: BTreeMap<(u32, u32), EdgeWeight>,
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
    /// The profile of a calling-context `tree` whose functions are named
    /// by `names`; its keys and contexts go to `cat`.
    pub(crate) fn new(
        tree: &Tree,
        funcs: &FuncTable,
        names: &[FuncInfo],
        by: By,
        cat: &mut Catalog,
    ) -> Profile {
        let mut p = Profile {
            unit: tree.unit,
            decimals: tree.decimals,
            total: tree.total(0),
            by,
            ..Profile::default()
        };
        // Each function's key id, on first use.
        let mut ids: Vec<Option<u32>> = vec![None; funcs.len()];
        let mut id_of = |cat: &mut Catalog, p: &mut Profile, f: FuncId| -> u32 {
            if let Some(id) = ids[f as usize] {
                return id;
            }
            let info = names.get(f as usize);
            let id = cat.key_id(key(name_of(names, f).to_string(), info));
            if let Some(file) = info.and_then(|i| i.file.clone()) {
                p.files.entry(id).or_insert(file);
            }
            ids[f as usize] = Some(id);
            id
        };
        match by {
            By::Function => p.add_functions(tree, funcs, cat, &mut id_of),
            By::Context => for_each_context(tree, funcs, |parent, n| {
                let label = id_of(cat, &mut p, tree.func(n));
                let c = cat.contexts.child(parent, label);
                let stats = Stats {
                    calls: tree.calls(n),
                    self_weight: tree.self_time(n),
                    total: tree.total(n),
                };
                p.rows.entry(c).or_default().add(stats);
                c
            }),
        }
        p
    }

    fn add_functions(
        &mut self,
        tree: &Tree,
        funcs: &FuncTable,
        cat: &mut Catalog,
        id_of: &mut impl FnMut(&mut Catalog, &mut Profile, FuncId) -> u32,
    ) {
        let cg = CallGraph::from_tree(tree, funcs);
        let g = &cg.graph;
        for e in g.edge_indices() {
            let (a, b) = g.edge_endpoints(e).expect("edge of this graph");
            let (from, to) = (id_of(cat, self, g[a]), id_of(cat, self, g[b]));
            let w = self.edges.entry((from, to)).or_default();
            w.calls = w.calls.saturating_add(g[e].calls);
            w.total = w.total.saturating_add(g[e].total);
        }
        for (f, s) in hot::func_stats(tree, funcs).into_iter().enumerate() {
            if s.calls == 0 || funcs.is_synthetic(f as u32) {
                continue;
            }
            let id = id_of(cat, self, f as FuncId);
            let stats = Stats {
                calls: s.calls,
                self_weight: s.self_weight,
                total: s.total,
            };
            self.rows.entry(id).or_default().add(stats);
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
