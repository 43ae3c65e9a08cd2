//! What `calltrace abstract` draws for every setting of the page's
//! controls, computed once when `view.html` is written: the real passes
//! (`abstraction::pipeline`) and the real drawing steps (identical paths
//! once, chains folded as `abstraction::trace` does) run for each point of
//! the grid below, and each drawn node is interned in one shared node
//! table (same parent, function, chain and numbers: same row). A state is
//! then only the set of rows it draws. The page picks a set and draws it;
//! it never abstracts anything itself.

use std::collections::HashMap;

use serde::Serialize;

use super::bits;
use super::merged::{Member, MergedIn};
use crate::abstraction::ModulesArg;
use crate::abstraction::chains::Folded;
use crate::abstraction::pass::Context;
use crate::abstraction::pipeline::{self, Parameters};
use crate::abstraction::trace::{drawing, protect};
use crate::abstraction::{Modules, NO_MODULE, Options, Share};
use crate::calltree::{NodeId, View};
use crate::emit::format::time;
use crate::error::{Result, escape_controls};
use crate::ingest::FuncId;
use crate::pipeline::Loaded;
use crate::symbols::FuncPattern;

/// `--min-total` values the page offers besides none.
pub(crate) const MIN_TOTALS: [&str; 4] = ["0.1%", "0.5%", "1%", "5%"];
/// `--max-nodes` values the page offers besides none.
pub(crate) const MAX_NODES: [usize; 3] = [50, 100, 300];

/// The abstraction settings the page can reach, each list's first entry
/// being "flag not given".
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TreeGrid {
    /// `--threshold` steps: none, then the points `compare` sweeps.
    pub threshold: Vec<Option<String>>,
    /// `--min-total` values.
    pub min_total: Vec<Option<String>>,
    /// `--max-nodes` values.
    pub max_nodes: Vec<Option<usize>>,
    /// `--keep` globs given to `view` (the page turns them on or off together).
    pub keep: Vec<FuncPattern>,
    /// `--modules` given to `view` (`auto` when none was).
    pub modules: ModulesArg,
}

impl TreeGrid {
    /// The grid for `modules` and `keep`, with `compare`'s default sweep.
    pub(crate) fn new(modules: &ModulesArg, keep: &[FuncPattern]) -> TreeGrid {
        let sweep = crate::compare::Sweep::default().points();
        TreeGrid {
            threshold: std::iter::once(None)
                .chain(sweep.iter().map(|p| Some(format!("{p}"))))
                .collect(),
            min_total: std::iter::once(None)
                .chain(MIN_TOTALS.iter().map(|s| Some(s.to_string())))
                .collect(),
            max_nodes: std::iter::once(None)
                .chain(MAX_NODES.iter().map(|&n| Some(n)))
                .collect(),
            keep: keep.to_vec(),
            modules: modules.clone(),
        }
    }

    /// Every state's options, `keep` varying fastest, then max-nodes,
    /// min-total, fold, merge and threshold: the order the page indexes.
    fn states(&self) -> Vec<Options> {
        let keeps: &[bool] = if self.keep.is_empty() {
            &[false]
        } else {
            &[false, true]
        };
        let mut out = Vec::new();
        for th in &self.threshold {
            for merge in [false, true] {
                for fold in [false, true] {
                    for mt in &self.min_total {
                        for mn in &self.max_nodes {
                            for &k in keeps {
                                let o = Options {
                                    modules: Some(self.modules.clone()),
                                    merge,
                                    view: Some(View::Contexts),
                                    fold_recursion: fold,
                                    threshold: th.as_deref().and_then(|s| s.parse::<Share>().ok()),
                                    min_total: mt.as_deref().and_then(|s| s.parse::<Share>().ok()),
                                    max_nodes: *mn,
                                    keep: if k { self.keep.clone() } else { Vec::new() },
                                    chains: None,
                                };
                                out.push(o);
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// One drawn node: `[parent row or -1, function, title, second label
/// line, module or -1, total, self, chain tooltip, index into `merged` or
/// -1]`.
pub(crate) type Row = (i64, FuncId, String, String, i64, u64, u64, String, i64);

/// The shared node table and the states over it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TreeData {
    /// The drawn nodes of every state.
    pub nodes: Vec<Row>,
    /// Module names, indexed by a row's module.
    pub modules: Vec<String>,
    /// Per state, in the order of [`TreeGrid::states`] (threshold,
    /// merge, fold, min-total, max-nodes, keep; the last varying fastest),
    /// an index into `lists`.
    pub states: Vec<u32>,
    /// Distinct sets of rows, as base64 bitsets over `nodes`.
    pub lists: Vec<String>,
    /// Distinct lists of the functions `--merge-modules` merged into a
    /// node: per function, the function and its label line (calls,
    /// total, self), largest total first.
    pub merged: Vec<Vec<(FuncId, String)>>,
}

type Key = (i64, FuncId, Vec<FuncId>, u64, u64, u64, i64);

/// Interns drawn nodes and sets of them.
#[derive(Default)]
struct Interner {
    rows: Vec<Row>,
    index: HashMap<Key, u32>,
    lists: Vec<Vec<u32>>,
    list_index: HashMap<Vec<u32>, u32>,
    merged: Vec<Vec<(FuncId, String)>>,
    merged_index: HashMap<Vec<Member>, i64>,
}

/// Runs every state of `grid` on `loaded` (a contexts tree).
pub(crate) fn compute(loaded: &Loaded, modules: &Modules, grid: &TreeGrid) -> Result<TreeData> {
    let funcs = &loaded.built.funcs;
    let keep = protect(&grid.keep, funcs, &loaded.names);
    let none = vec![false; keep.len()];
    let cx = |protected| Context {
        funcs,
        modules,
        protected,
    };
    // What merging absorbs depends only on the protected functions.
    let tree = &loaded.built.tree;
    let absorbed = [
        MergedIn::new(tree, &cx(&none)),
        MergedIn::new(tree, &cx(&keep)),
    ];
    let mut int = Interner::default();
    let mut states = Vec::new();
    for opts in grid.states() {
        let o = effective(&opts);
        let kept = !o.keep.is_empty();
        let drawn = draw(loaded, &cx(if kept { &keep } else { &none }), &o);
        let merged = match o.merge {
            true => absorbed[kept as usize].of_drawing(&drawn),
            false => Vec::new(),
        };
        let rows = int.rows_of(&drawn, &merged, loaded, modules);
        states.push(int.list(rows));
    }
    let n = int.rows.len();
    Ok(TreeData {
        nodes: int.rows,
        modules: modules.names.clone(),
        states,
        lists: int.lists.iter().map(|l| bits::encode(l, n)).collect(),
        merged: int.merged,
    })
}

/// The options `abstract` runs for `opts`: the recommended pipeline when
/// no method is set.
fn effective(opts: &Options) -> Options {
    match opts.no_method() {
        true => opts.recommended(),
        false => opts.clone(),
    }
}

/// What `calltrace abstract` draws for the effective options `o`: the
/// passes, then the drawing steps.
fn draw(loaded: &Loaded, cx: &Context, o: &Options) -> Folded {
    let out = pipeline::run(&loaded.built.tree, cx, &o.passes(), Parameters::default());
    drawing(&out.tree, cx.funcs, o)
}

impl Interner {
    /// The rows of every drawn node of `d` (the synthetic root left out);
    /// `merged[n]` lists what merging put into node `n` (empty when not
    /// merged).
    fn rows_of(
        &mut self,
        d: &Folded,
        merged: &[Vec<Member>],
        loaded: &Loaded,
        modules: &Modules,
    ) -> Vec<u32> {
        let t = &d.tree;
        let parents = t.parents();
        let mut row_of: Vec<i64> = vec![-1; t.len()];
        let mut out = Vec::with_capacity(t.len());
        for n in 1..t.len() as NodeId {
            let parent = row_of[parents[n as usize] as usize];
            let hidden = d.hidden.get(n as usize).cloned().unwrap_or_default();
            let key = (
                parent,
                t.func(n),
                hidden,
                t.calls(n),
                t.total(n),
                t.self_time(n),
                self.merged_list(merged.get(n as usize), t),
            );
            let id = match self.index.get(&key) {
                Some(&id) => id,
                None => self.add(key, d, n, loaded, modules),
            };
            row_of[n as usize] = id as i64;
            out.push(id);
        }
        out.sort_unstable();
        out
    }

    fn add(&mut self, key: Key, d: &Folded, n: NodeId, loaded: &Loaded, modules: &Modules) -> u32 {
        let (t, names, funcs) = (&d.tree, &loaded.names, &loaded.built.funcs);
        // Names as the DOT shows them: control characters as `\xNN`.
        let name = |f: FuncId| escape_controls(&names[f as usize].name).into_owned();
        let own = name(key.1);
        let (title, tip) = match key.2.as_slice() {
            [] => (own.clone(), String::new()),
            [a] => (format!("{} → {own}", name(*a)), String::new()),
            [a, ..] => {
                let all: Vec<String> = key
                    .2
                    .iter()
                    .map(|&f| name(f))
                    .chain([own.clone()])
                    .collect();
                (format!("{} → … → {own}", name(*a)), all.join(" → "))
            }
        };
        let line = match funcs.is_synthetic(key.1) {
            true => String::new(),
            false => {
                let tm = |v| time(v, t.unit, t.decimals);
                format!("x{}  total {}  self {}", key.3, tm(key.4), tm(key.5))
            }
        };
        let m = modules.of(t.func(n));
        let module = if m == NO_MODULE { -1 } else { m as i64 };
        let id = self.rows.len() as u32;
        self.rows
            .push((key.0, key.1, title, line, module, key.4, key.5, tip, key.6));
        self.index.insert(key, id);
        id
    }

    /// The index of `members` in the merged lists (-1 for none), each
    /// function labelled as the DOT labels a node.
    fn merged_list(&mut self, members: Option<&Vec<Member>>, t: &crate::calltree::Tree) -> i64 {
        let Some(members) = members.filter(|m| !m.is_empty()) else {
            return -1;
        };
        if let Some(&i) = self.merged_index.get(members) {
            return i;
        }
        let tm = |v| time(v, t.unit, t.decimals);
        let labelled = members
            .iter()
            .map(|&(f, calls, total, own)| {
                (
                    f,
                    format!("x{calls}  total {}  self {}", tm(total), tm(own)),
                )
            })
            .collect();
        let i = self.merged.len() as i64;
        self.merged.push(labelled);
        self.merged_index.insert(members.clone(), i);
        i
    }

    fn list(&mut self, rows: Vec<u32>) -> u32 {
        if let Some(&i) = self.list_index.get(&rows) {
            return i;
        }
        let i = self.lists.len() as u32;
        self.lists.push(rows.clone());
        self.list_index.insert(rows, i);
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index `view.js` computes (`treeRows`) for a setting.
    fn index(
        g: &TreeGrid,
        (t, m, f, mt, mn, k): (usize, usize, usize, usize, usize, usize),
    ) -> usize {
        let keeps = if g.keep.is_empty() { 1 } else { 2 };
        ((((t * 2 + m) * 2 + f) * g.min_total.len() + mt) * g.max_nodes.len() + mn) * keeps + k
    }

    #[test]
    fn states_are_in_the_order_the_page_indexes_them() {
        let g = TreeGrid::new(&ModulesArg::Auto, &["fax_*".parse().unwrap()]);
        let states = g.states();
        assert_eq!(states.len(), 22 * 2 * 2 * 5 * 4 * 2);
        let o = &states[index(&g, (19, 1, 0, 2, 1, 1))];
        assert_eq!(o.threshold, Some(Share::constant(0.9)));
        assert!(o.merge && !o.fold_recursion);
        assert_eq!(o.min_total, Some(Share::constant(0.005)));
        assert_eq!((o.max_nodes, o.keep.len()), (Some(50), 1));
        assert!(
            states[0].no_method(),
            "no control touched: the recommended pipeline"
        );
        assert_eq!(g.threshold[19].as_deref(), Some("0.9"));
    }
}
