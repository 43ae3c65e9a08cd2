//! Recursion folding: a call to a function already on its call path joins
//! that ancestor's node (its self time is added there, its callees hang
//! below the ancestor), so `f -> g -> f -> g` becomes one `f -> g`. On a
//! calling-context tree, siblings that become equal paths merge; totals are
//! then recomputed from the self times, so a recursive function's total is
//! counted once. The folded weight is the receiving node's own time.

use rustc_hash::FxHashMap;

use super::Abstracted;
use super::pass::{Context, Pass};
use crate::calltree::{NodeId, Tree};
use crate::ingest::{FuncId, FuncTable};

/// The `--fold-recursion` pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FoldRecursion;

impl Pass for FoldRecursion {
    fn name(&self) -> &'static str {
        "fold-recursion"
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    fn apply(&self, tree: &Tree, cx: &Context) -> Abstracted {
        Abstracted {
            tree: fold_recursion(tree, cx.funcs),
            eliminated: 0,
        }
    }
}

/// A tree under construction: nodes with children in insertion order.
#[derive(Debug, Default)]
pub(crate) struct Arena {
    func: Vec<FuncId>,
    parent: Vec<u32>,
    self_w: Vec<u64>,
    calls: Vec<u64>,
    kids: Vec<Vec<u32>>,
}

impl Arena {
    fn add(&mut self, parent: u32, func: FuncId) -> u32 {
        let id = self.func.len() as u32;
        self.func.push(func);
        self.parent.push(parent);
        self.self_w.push(0);
        self.calls.push(0);
        self.kids.push(Vec::new());
        if parent != u32::MAX {
            self.kids[parent as usize].push(id);
        }
        id
    }

    /// Nearest node on the path from `from` up (inclusive) calling `f`.
    fn on_path(&self, mut from: u32, f: FuncId) -> Option<u32> {
        while from != u32::MAX {
            if self.func[from as usize] == f {
                return Some(from);
            }
            from = self.parent[from as usize];
        }
        None
    }

    /// The tree in preorder, totals recomputed as self + children's totals.
    fn into_tree(self, like: &Tree, counts: bool) -> Tree {
        let mut total = self.self_w.clone();
        for n in (1..self.func.len()).rev() {
            let p = self.parent[n] as usize;
            total[p] += total[n];
        }
        let mut out = like.empty_like();
        let mut depths = Vec::with_capacity(self.func.len());
        let mut stack = vec![(0u32, 0u32)];
        while let Some((n, d)) = stack.pop() {
            let i = n as usize;
            out.push(
                self.func[i],
                total[i],
                self.self_w[i],
                counts.then_some(self.calls[i]),
            );
            depths.push(d);
            stack.extend(self.kids[i].iter().rev().map(|&c| (c, d + 1)));
        }
        out.set_sizes_from_depths(&depths);
        out
    }
}

/// Folds recursion in `tree`.
pub fn fold_recursion(tree: &Tree, funcs: &FuncTable) -> Tree {
    let counts = tree.has_call_counts();
    let mut a = Arena::default();
    a.add(u32::MAX, tree.func(0));
    a.self_w[0] = tree.self_time(0);
    a.calls[0] = tree.calls(0);
    let mut index: FxHashMap<(u32, FuncId), u32> = FxHashMap::default();
    let mut map = vec![0u32; tree.len()];
    for n in 0..tree.len() as NodeId {
        for c in tree.children(n) {
            let (p, f) = (map[n as usize], tree.func(c));
            let joined = (!funcs.is_synthetic(f)).then(|| a.on_path(p, f)).flatten();
            let target = match joined {
                Some(anc) => anc,
                None if counts => *index.entry((p, f)).or_insert_with(|| a.add(p, f)),
                None => a.add(p, f),
            };
            if joined.is_none() {
                a.calls[target as usize] += tree.calls(c);
            }
            a.self_w[target as usize] += tree.self_time(c);
            map[c as usize] = target;
        }
    }
    a.into_tree(tree, counts)
}
