//! Method 2: merging callees of the caller's module. From the root down, a
//! child of the same module as its parent disappears into the parent: its
//! children take its place (same order) and its self time is added to the
//! parent's. Equivalently, a node survives exactly when its module differs
//! from its original parent's; synthetic nodes and top-level calls always
//! survive.

use super::{Absorb, Modules, filter};
use crate::calltree::{NodeId, Tree};
use crate::ingest::FuncTable;

/// Runs method 2.
pub fn merge(tree: &Tree, funcs: &FuncTable, modules: &Modules) -> Tree {
    let parents = tree.parents();
    let keep: Vec<bool> = (0..tree.len() as NodeId)
        .map(|n| {
            let p = parents[n as usize];
            n == 0
                || funcs.is_synthetic(tree.func(n))
                || modules.of(tree.func(n)) != modules.of(tree.func(p))
        })
        .collect();
    filter(tree, &keep, Absorb::Node)
}
