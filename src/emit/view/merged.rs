//! What `--merge-modules` merged into each drawn node, so the page can
//! expand a merged node into its functions without merging anything
//! itself. Method 2 runs first in every pipeline, on the trace's contexts
//! tree: a node it removes is absorbed by its nearest kept ancestor
//! (`abstraction::merge::survivors`). Walking that tree once, each kept
//! node is named by its path of kept functions (the merged tree's context,
//! paths that became equal being one, as the pass folds them) and each
//! absorbed call is added to its owner's list, per function: calls, total
//! (counted once where the function is nested in itself) and self. A drawn
//! node is then looked up by its path of functions, hidden chain members
//! included; the later passes (threshold, min-total, max-nodes) only remove
//! nodes, so a kept node's path is unchanged. A node whose path
//! `--fold-recursion` changed is not found and lists nothing.

use std::collections::HashMap;

use crate::abstraction::chains::Folded;
use crate::abstraction::merge::survivors;
use crate::abstraction::pass::Context;
use crate::calltree::{NodeId, Tree};
use crate::ingest::FuncId;

/// One merged function of a node: function, calls, total, self.
pub(crate) type Member = (FuncId, u64, u64, u64);

/// Per kept node of the merged tree, what was merged into it.
#[derive(Debug, Default)]
pub(crate) struct MergedIn {
    /// (parent path, function) to path id; the root is path 0.
    paths: HashMap<(u32, FuncId), u32>,
    /// Per path id, its members, largest total first.
    members: HashMap<u32, Vec<Member>>,
}

impl MergedIn {
    /// What method 2 merges into each node of `tree` under `cx`.
    pub(crate) fn new(tree: &Tree, cx: &Context) -> MergedIn {
        let kept = survivors(tree, cx.funcs, cx.modules, cx.protected);
        let parents = tree.parents();
        let mut out = MergedIn::default();
        let mut path = vec![0u32; tree.len()];
        let mut sums: HashMap<(u32, FuncId), (u64, u64, u64)> = HashMap::new();
        // Absorbed calls open on the current path: (end of subtree, key).
        let mut open: Vec<(NodeId, (u32, FuncId))> = Vec::new();
        let mut nesting: HashMap<(u32, FuncId), u32> = HashMap::new();
        for n in 1..tree.len() as NodeId {
            while let Some(&(end, key)) = open.last() {
                if end > n {
                    break;
                }
                open.pop();
                *nesting.entry(key).or_default() -= 1;
            }
            let (f, owner) = (tree.func(n), path[parents[n as usize] as usize]);
            if kept[n as usize] {
                let next = out.paths.len() as u32 + 1;
                path[n as usize] = *out.paths.entry((owner, f)).or_insert(next);
                continue;
            }
            path[n as usize] = owner;
            let key = (owner, f);
            let depth = nesting.entry(key).or_default();
            let sum = sums.entry(key).or_default();
            sum.0 += tree.calls(n);
            sum.1 += if *depth == 0 { tree.total(n) } else { 0 };
            sum.2 += tree.self_time(n);
            *depth += 1;
            open.push((n + tree.size(n), key));
        }
        for ((p, f), (calls, total, self_time)) in sums {
            out.members
                .entry(p)
                .or_default()
                .push((f, calls, total, self_time));
        }
        for list in out.members.values_mut() {
            list.sort_unstable_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        }
        out
    }

    /// Per node of the drawing `d`, the functions merged into it (into
    /// any member of its chain), largest total first.
    pub(crate) fn of_drawing(&self, d: &Folded) -> Vec<Vec<Member>> {
        let t = &d.tree;
        let parents = t.parents();
        let mut at: Vec<Option<u32>> = vec![None; t.len()];
        at[0] = Some(0);
        let mut out = vec![Vec::new(); t.len()];
        for n in 1..t.len() as NodeId {
            let hidden = d.hidden.get(n as usize).map(Vec::as_slice).unwrap_or(&[]);
            let mut p = at[parents[n as usize] as usize];
            let mut list: Vec<Member> = Vec::new();
            for &f in hidden.iter().chain([t.func(n)].iter()) {
                p = p.and_then(|p| self.paths.get(&(p, f)).copied());
                if let Some(m) = p.and_then(|p| self.members.get(&p)) {
                    add(&mut list, m);
                }
            }
            at[n as usize] = p;
            out[n as usize] = list;
        }
        out
    }
}

/// Adds `more` into `list`, function by function, keeping the order.
fn add(list: &mut Vec<Member>, more: &[Member]) {
    if list.is_empty() {
        list.extend_from_slice(more);
        return;
    }
    for m in more {
        match list.iter_mut().find(|x| x.0 == m.0) {
            Some(x) => (x.1, x.2, x.3) = (x.1 + m.1, x.2 + m.2, x.3 + m.3),
            None => list.push(*m),
        }
    }
    list.sort_unstable_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abstraction::Absorb;
    use crate::abstraction::test_trees::modules;
    use crate::ingest::FuncTable;

    /// `a` calls `b` (which calls itself, then `c`) and `b` again; `a` and
    /// `b` are one module, `c` another.
    fn tree() -> (Tree, FuncTable) {
        let mut funcs = FuncTable::default();
        let mut t = Tree::empty(true, 0);
        t.push(FuncTable::ROOT, 0, 0, None);
        let rows = [("a", 1), ("b", 2), ("b", 3), ("c", 4), ("b", 5)];
        for (name, own) in rows {
            t.push(funcs.name(name), own, own, Some(1));
        }
        t.set_sizes_from_depths(&[0, 1, 2, 3, 4, 2]);
        for n in (0..t.len() as NodeId).rev() {
            let below: u64 = t.children(n).map(|c| t.total(c)).sum();
            t.total[n as usize] += below;
        }
        (t, funcs)
    }

    #[test]
    fn a_kept_node_lists_each_merged_function_once_with_its_nested_total_once() {
        let (t, mut funcs) = tree();
        let b = funcs.name("b");
        let m = modules(&funcs, "a,one\nb,one\nc,two\n");
        let protected = vec![false; funcs.len()];
        let cx = Context {
            funcs: &funcs,
            modules: &m,
            protected: &protected,
        };
        let kept = survivors(&t, &funcs, &m, &protected);
        let merged = crate::abstraction::filter(&t, &kept, Absorb::Node);
        let d = Folded {
            hidden: vec![Vec::new(); merged.len()],
            tree: merged,
        };
        let lists = MergedIn::new(&t, &cx).of_drawing(&d);
        // Node 1 is `a`, node 2 `c`: b's calls 3, total 9 + 5 (the inner
        // call inside the outer one's 9), self 2 + 3 + 5.
        assert_eq!(lists[1], vec![(b, 3, 14, 10)]);
        assert!(lists[2].is_empty(), "{:?}", lists[2]);
        // The absorbed time is the time merging added to `a`'s self.
        assert_eq!(d.tree.self_time(1) - 1, 10);
    }
}
