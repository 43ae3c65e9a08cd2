//! The indented `name (self / total)` text of a call tree, the abstraction
//! paper's format (fig. 1), which `calltrace` reads back unchanged: two
//! spaces per level, the synthetic root not printed, thread nodes printed as
//! `[thread N]`, and ` xN` after nodes that stand for N > 1 calls.

use std::fmt::Write;

use super::text::weight;
use crate::calltree::{NodeId, Tree};
use crate::symbols::FuncInfo;

/// Renders `tree` (every node below the root) as indented text.
pub fn indented(tree: &Tree, names: &[FuncInfo]) -> Vec<u8> {
    let mut out = String::new();
    let mut stack: Vec<(NodeId, usize)> = tree.children(0).map(|c| (c, 0)).collect();
    stack.reverse();
    while let Some((n, depth)) = stack.pop() {
        line(&mut out, tree, names, n, depth);
        let first = stack.len();
        stack.extend(tree.children(n).map(|c| (c, depth + 1)));
        stack[first..].reverse();
    }
    out.into_bytes()
}

fn line(out: &mut String, tree: &Tree, names: &[FuncInfo], n: NodeId, depth: usize) {
    let d = tree.decimals;
    for _ in 0..depth {
        out.push_str("  ");
    }
    let name = &names[tree.func(n) as usize].name;
    let _ = write!(
        out,
        "{name} ({} / {})",
        weight(tree.self_time(n), d),
        weight(tree.total(n), d)
    );
    if tree.calls(n) > 1 {
        let _ = write!(out, " x{}", tree.calls(n));
    }
    out.push('\n');
}
