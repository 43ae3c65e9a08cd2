//! `tree --root FUNC` and `tree --focus FUNC`: which lines of the indented
//! tree are printed, with the meaning `graph` gives the same flags. `--root`
//! keeps every call of FUNC with what it calls; `--focus` keeps its callers
//! too (the paths through FUNC). With `--max-depth N` the start counts as
//! level 1, as in `graph`: what FUNC calls down to N-1 calls below it and,
//! with `--focus`, its callers up to N-1 calls above it.
//!
//! The mask is computed in one preorder pass with a stack as deep as the
//! tree: a node's distance from the nearest FUNC call above it is known on
//! entry, its distance to the nearest FUNC call below it when its subtree
//! closes. Thread nodes are kept when anything under them is, and count
//! as no call.

use crate::calltree::{NodeId, Tree};
use crate::ingest::FuncId;

/// What `--root` or `--focus` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Only {
    /// The function the printed tree starts from.
    pub func: FuncId,
    /// Keep FUNC's callers too (`--focus`), not only what it calls (`--root`).
    pub callers: bool,
    /// At most this many calls away from a call of FUNC (`--max-depth N`
    /// is N-1 steps); none for any distance.
    pub steps: Option<u32>,
}

/// A node whose subtree is still open during the walk.
struct Open {
    node: NodeId,
    /// Exclusive end of its subtree.
    end: NodeId,
    /// Calls from the nearest FUNC call above it (itself: 0).
    under: Option<u32>,
    /// Calls to the nearest FUNC call below it (itself: 0), so far.
    down: Option<u32>,
    /// Whether anything below it is kept, so far.
    any: bool,
}

/// Which nodes of `tree` (by id) `only` keeps; `is_thread` tells the
/// synthetic thread nodes. The root (node 0) is never kept.
pub fn mask(tree: &Tree, only: &Only, is_thread: impl Fn(NodeId) -> bool) -> Vec<bool> {
    let within = |d: Option<u32>| d.is_some_and(|d| only.steps.is_none_or(|s| d <= s));
    let mut keep = vec![false; tree.len()];
    let mut open: Vec<Open> = Vec::new();
    for n in 1..tree.len() as NodeId {
        while open.last().is_some_and(|o| o.end <= n) {
            close(&mut open, &mut keep, only, &is_thread);
        }
        let is_func = tree.func(n) == only.func && !is_thread(n);
        let under = match is_func {
            true => Some(0),
            false => open.last().and_then(|o| o.under).map(|d| d + 1),
        };
        keep[n as usize] = within(under);
        open.push(Open {
            node: n,
            end: n + tree.size(n),
            under,
            down: is_func.then_some(0),
            any: false,
        });
    }
    while !open.is_empty() {
        close(&mut open, &mut keep, only, &is_thread);
    }
    keep
}

/// Closes the innermost open node: decides whether it is kept as a caller
/// (or as a thread over kept calls) and tells its parent.
fn close(open: &mut Vec<Open>, keep: &mut [bool], only: &Only, is_thread: impl Fn(NodeId) -> bool) {
    let Some(o) = open.pop() else { return };
    let thread = is_thread(o.node);
    let n = o.node as usize;
    let caller = only.callers && o.down.is_some_and(|d| only.steps.is_none_or(|s| d <= s));
    keep[n] = match thread {
        true => o.any,
        false => keep[n] || caller,
    };
    if let Some(p) = open.last_mut() {
        p.any |= keep[n] || o.any;
        if !thread {
            let via = o.down.map(|d| d + 1);
            p.down = match (p.down, via) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree of `name` lines indented two spaces a level, and its names
    /// (index 0 is the root).
    fn parse(text: &str) -> (Tree, Vec<String>) {
        let mut names = vec!["<root>".to_string()];
        let mut tree = Tree::empty(true, 0);
        tree.push(0, 0, 0, None);
        let mut depths = vec![0u32];
        for line in text.lines() {
            let name = line.trim_start().to_string();
            depths.push(((line.len() - name.len()) / 2 + 1) as u32);
            let id = names.iter().position(|n| *n == name).unwrap_or(names.len());
            if id == names.len() {
                names.push(name);
            }
            tree.push(id as FuncId, 1, 1, None);
        }
        tree.set_sizes_from_depths(&depths);
        (tree, names)
    }

    /// Names of the kept nodes, indented by kept ancestors.
    fn kept(text: &str, func: &str, callers: bool, steps: Option<u32>) -> String {
        let (tree, names) = parse(text);
        let func = names.iter().position(|n| n == func).unwrap() as FuncId;
        let only = Only {
            func,
            callers,
            steps,
        };
        let keep = mask(&tree, &only, |n| {
            names[tree.func(n) as usize].starts_with('[')
        });
        let mut out = String::new();
        super::super::walk_kept(&tree, Some(&keep), |n, depth| {
            out += &format!("{}{}\n", "  ".repeat(depth), names[tree.func(n) as usize]);
        });
        out
    }

    const TREE: &str = "main\n  a\n    f\n      g\n        h\n      k\n  b\n    c\n";

    #[test]
    fn root_keeps_each_call_of_func_with_what_it_calls() {
        assert_eq!(kept(TREE, "f", false, None), "f\n  g\n    h\n  k\n");
        assert_eq!(kept(TREE, "f", false, Some(1)), "f\n  g\n  k\n");
    }

    #[test]
    fn focus_keeps_the_callers_too() {
        assert_eq!(
            kept(TREE, "f", true, None),
            "main\n  a\n    f\n      g\n        h\n      k\n"
        );
        // Two levels from f both ways: a above it, g and k below.
        assert_eq!(kept(TREE, "f", true, Some(1)), "a\n  f\n    g\n    k\n");
    }

    #[test]
    fn thread_nodes_stay_over_what_they_hold() {
        let text = "[thread 1]\n  f\n    g\n[thread 2]\n  g\n";
        assert_eq!(kept(text, "f", false, None), "[thread 1]\n  f\n    g\n");
        assert_eq!(
            kept(text, "g", true, None),
            "[thread 1]\n  f\n    g\n[thread 2]\n  g\n"
        );
    }
}
