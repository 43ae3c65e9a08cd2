//! Random call trees and module tables for the abstraction passes' property
//! tests (`threshold.rs`, `shared.rs`): test code only.

use crate::abstraction::{ModuleSource, ModuleTable, Modules};
use crate::calltree::{NodeId, Tree};
use crate::ingest::FuncTable;

/// A random tree: `threads` synthetic thread nodes (none: calls hang below
/// the root), each over a share of `rows` given as (levels up from the last
/// node's child, function 0..6, self weight). With `one_top`, every row
/// after a share's first hangs below that first node. Small self weights
/// give equal totals, which `choose` orders by trace order.
pub(crate) fn random_tree(
    rows: &[(u32, u8, u64)],
    threads: usize,
    one_top: bool,
) -> (Tree, FuncTable) {
    let mut funcs = FuncTable::default();
    let mut t = Tree::empty(true, 0);
    t.push(FuncTable::ROOT, 0, 0, None);
    let mut depths = vec![0];
    let share = rows.len().div_ceil(threads.max(1));
    for (i, chunk) in rows.chunks(share).enumerate() {
        let base: u32 = if threads == 0 { 1 } else { 2 };
        if threads > 0 {
            t.push(funcs.thread(i as u64), 0, 0, None);
            depths.push(1);
        }
        let floor = base + u32::from(one_top);
        let mut depth = base;
        for (j, &(up, f, s)) in chunk.iter().enumerate() {
            depth = if j == 0 {
                base
            } else {
                (depth + 1).saturating_sub(up).max(floor)
            };
            t.push(funcs.name(&format!("f{f}")), s, s, None);
            depths.push(depth);
        }
    }
    t.set_sizes_from_depths(&depths);
    for n in (0..t.len() as NodeId).rev() {
        let below: u64 = t.children(n).map(|c| t.total(c)).sum();
        t.total[n as usize] += below;
    }
    (t, funcs)
}

/// The modules of `funcs` from a module table's text (`NAME,MODULE` lines).
pub(crate) fn modules(funcs: &FuncTable, table: &str) -> Modules {
    let names = crate::symbols::names_without_binary(funcs);
    ModuleSource::Table(ModuleTable::parse("m.csv", table).unwrap())
        .assign(funcs, &names)
        .unwrap()
}
