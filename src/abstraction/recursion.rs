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

/// No node (a missing parent, child or sibling).
const NONE: u32 = u32::MAX;

/// A tree under construction: nodes with children in insertion order,
/// linked as first child and next sibling (12 bytes a node, where a vector
/// of children per node cost 24 and an allocation).
#[derive(Debug, Default)]
pub(crate) struct Arena {
    func: Vec<FuncId>,
    parent: Vec<u32>,
    self_w: Vec<u64>,
    calls: Vec<u64>,
    first_kid: Vec<u32>,
    last_kid: Vec<u32>,
    next_sibling: Vec<u32>,
}

impl Arena {
    fn add(&mut self, parent: u32, func: FuncId) -> u32 {
        let id = self.func.len() as u32;
        self.func.push(func);
        self.parent.push(parent);
        self.self_w.push(0);
        self.calls.push(0);
        self.first_kid.push(NONE);
        self.last_kid.push(NONE);
        self.next_sibling.push(NONE);
        if parent != NONE {
            let p = parent as usize;
            match self.last_kid[p] {
                NONE => self.first_kid[p] = id,
                last => self.next_sibling[last as usize] = id,
            }
            self.last_kid[p] = id;
        }
        id
    }

    /// Nearest node on the path from `from` up (inclusive) calling `f`.
    fn on_path(&self, mut from: u32, f: FuncId) -> Option<u32> {
        while from != NONE {
            if self.func[from as usize] == f {
                return Some(from);
            }
            from = self.parent[from as usize];
        }
        None
    }

    /// The tree in preorder, totals recomputed as self + children's totals.
    fn into_tree(self, like: &Tree, counts: bool) -> Tree {
        // A node is added after its parent, so children come later.
        let mut total = self.self_w.clone();
        for n in (1..self.func.len()).rev() {
            let p = self.parent[n] as usize;
            total[p] += total[n];
        }
        let mut out = like.empty_like();
        out.reserve(self.func.len(), counts);
        let mut depths = Vec::with_capacity(self.func.len());
        let (mut n, mut d) = (0u32, 0u32);
        loop {
            let i = n as usize;
            out.push(
                self.func[i],
                total[i],
                self.self_w[i],
                counts.then_some(self.calls[i]),
            );
            depths.push(d);
            match self.following(n) {
                Some((next, up)) => (n, d) = (next, d + 1 - up),
                None => break,
            }
        }
        out.set_sizes_from_depths(&depths);
        out
    }

    /// The node after `n` in preorder, and how many levels up from `n`'s
    /// children it is (0 for `n`'s first child).
    fn following(&self, n: u32) -> Option<(u32, u32)> {
        if self.first_kid[n as usize] != NONE {
            return Some((self.first_kid[n as usize], 0));
        }
        let (mut a, mut up) = (n, 1);
        while a != 0 {
            if self.next_sibling[a as usize] != NONE {
                return Some((self.next_sibling[a as usize], up));
            }
            a = self.parent[a as usize];
            up += 1;
        }
        None
    }
}

/// Folds recursion in `tree`.
pub fn fold_recursion(tree: &Tree, funcs: &FuncTable) -> Tree {
    let counts = tree.has_call_counts();
    let mut a = Arena::default();
    a.add(NONE, tree.func(0));
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
    drop((index, map));
    a.into_tree(tree, counts)
}
