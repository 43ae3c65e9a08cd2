//! The indented `name (self / total)` text of a call tree, the abstraction
//! paper's format (fig. 1), which `calltrace` reads back unchanged: two
//! spaces per level, the synthetic root not printed, thread nodes printed as
//! `[thread N]`, and ` xN` after nodes that stand for N > 1 calls.

use std::io::{self, Write};

use super::text::weight;
use crate::calltree::{NodeId, Tree};
use crate::symbols::FuncInfo;

/// Renders `tree` (every node below the root) as indented text.
pub fn indented(tree: &Tree, names: &[FuncInfo]) -> Vec<u8> {
    let mut out = Vec::new();
    write_indented(tree, names, &mut out).expect("writing to memory");
    out
}

/// Writes `tree` as indented text to `out` as it goes, so a tree of 10^8
/// calls never exists as text in memory. The tree is stored in preorder,
/// so this is one pass with a stack as deep as the tree.
pub fn write_indented(tree: &Tree, names: &[FuncInfo], out: &mut dyn Write) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    // Ends (exclusive) of the subtrees the current node is in; its depth
    // is how many there are.
    let mut open: Vec<NodeId> = Vec::new();
    for n in 1..tree.len() as NodeId {
        while open.last().is_some_and(|&end| end <= n) {
            open.pop();
        }
        line(&mut out, tree, names, n, open.len())?;
        open.push(n + tree.size(n));
    }
    out.flush()
}

fn line(
    out: &mut impl Write,
    tree: &Tree,
    names: &[FuncInfo],
    n: NodeId,
    depth: usize,
) -> io::Result<()> {
    let d = tree.decimals;
    for _ in 0..depth {
        out.write_all(b"  ")?;
    }
    let name = &names[tree.func(n) as usize].name;
    write!(
        out,
        "{name} ({} / {})",
        weight(tree.self_time(n), d),
        weight(tree.total(n), d)
    )?;
    if tree.calls(n) > 1 {
        write!(out, " x{}", tree.calls(n))?;
    }
    out.write_all(b"\n")
}
