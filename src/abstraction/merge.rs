//! Method 2: merging callees of the caller's module. From the root down, a
//! child of the same module as its parent disappears into the parent: its
//! children take its place (same order) and its self time is added to the
//! parent's. Equivalently, a node survives exactly when its module differs
//! from its original parent's; synthetic nodes and top-level calls always
//! survive.

use super::pass::{Context, Param, Pass};
use super::{Absorb, Abstracted, Modules, filter};
use crate::calltree::{NodeId, Tree, fold_paths};
use crate::ingest::FuncTable;

/// Method 2 as a pass. On a calling-context tree, paths that become equal
/// once merged nodes are gone are folded into one, so the result is the
/// contexts of the merged call tree. Protected (`--keep`) functions are
/// never merged away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Merge;

impl Pass for Merge {
    fn paper(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "merge"
    }
    fn params(&self) -> Vec<(&'static str, Param)> {
        Vec::new()
    }
    fn apply(&self, tree: &Tree, cx: &Context) -> Abstracted {
        let merged = merge_keeping(tree, cx.funcs, cx.modules, cx.protected);
        let tree = if merged.has_call_counts() {
            fold_paths(&merged, cx.funcs)
        } else {
            merged
        };
        Abstracted {
            tree,
            eliminated: 0,
        }
    }
}

/// Runs method 2.
pub(crate) fn merge(tree: &Tree, funcs: &FuncTable, modules: &Modules) -> Tree {
    merge_keeping(tree, funcs, modules, &[])
}

/// Runs method 2, leaving the calls of functions with `protected[f]` in place.
pub(crate) fn merge_keeping(
    tree: &Tree,
    funcs: &FuncTable,
    modules: &Modules,
    protected: &[bool],
) -> Tree {
    filter(
        tree,
        &survivors(tree, funcs, modules, protected),
        Absorb::Node,
    )
}

/// Which nodes of `tree` method 2 keeps (`keep[n]`); the others are merged
/// into their nearest kept ancestor. `calltrace view` reads it to list
/// what each drawn node absorbed.
pub(crate) fn survivors(
    tree: &Tree,
    funcs: &FuncTable,
    modules: &Modules,
    protected: &[bool],
) -> Vec<bool> {
    let mut keep = vec![false; tree.len()];
    keep[0] = true;
    for p in 0..tree.len() as NodeId {
        let caller = modules.of(tree.func(p));
        for c in tree.children(p) {
            let f = tree.func(c);
            keep[c as usize] = funcs.is_synthetic(f)
                || modules.of(f) != caller
                || protected.get(f as usize).copied() == Some(true);
        }
    }
    keep
}
