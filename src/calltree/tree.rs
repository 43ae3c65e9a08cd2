//! The weighted call tree, stored in preorder as parallel arrays (struct of
//! arrays): function, subtree size, total and self weight per node, plus an
//! optional call count (calling-context trees merge many calls into one
//! node). Node 0 is the synthetic root; multi-threaded traces put one
//! synthetic thread node under it per thread. Children of `n` are found by
//! skipping subtrees (`n + 1`, then `+ size`), so a node costs 24 bytes (16
//! when self times are derived from totals, as for event traces) and
//! no pointers: what lets the one-node-per-call view hold 10^8 calls.
//!
//! Weights are integers: nanoseconds for timed traces, the number of calls in
//! the subtree for untimed ones, fixed-point units for decimal indented input.

use super::dist::CallDist;
use crate::ingest::{FuncId, FuncTable, Unit};

/// Index of a node in a [`Tree`].
pub type NodeId = u32;

/// A call tree in preorder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    pub(crate) func: Vec<FuncId>,
    pub(crate) size: Vec<u32>,
    pub(crate) total: Vec<u64>,
    /// Self weights; unused (empty) when `derived_self` is set.
    pub(crate) self_time: Vec<u64>,
    /// Self weight is total minus the children's totals and not stored
    /// (the one-node-per-call view of an event trace: 16 bytes a node).
    pub(crate) derived_self: bool,
    /// Calls per node; empty means one call per node.
    pub(crate) calls: Vec<u64>,
    /// Per-call distributions per node, when they were kept (see
    /// [`Tree::dist`]); empty otherwise.
    pub(crate) dist: Vec<CallDist>,
    /// Per-call distributions per function id, when they were kept by
    /// function ([`super::Keep::TotalByFunction`]); empty otherwise.
    pub(crate) func_dist: Vec<CallDist>,
    /// When each node was first entered, as a rank (smaller: earlier),
    /// in a calling-context tree as its builder made it; empty otherwise
    /// (a transformed tree). What cutting the tree down to a filter
    /// orders merged calls and threads by (`calltree::filter`). Not
    /// what the tree shows: a tree cut from another has none, the same
    /// tree built directly has them.
    pub(crate) created: Vec<NodeId>,
    /// The creation ranks of the calls still open at the end of the
    /// trace (closed there), one per call, when the calling-context
    /// builder made the tree; what a cut counts its unclosed calls by.
    pub(crate) open_at_end: Vec<NodeId>,
    /// When each node's first call started, in a calling-context tree
    /// built through a time window with path nodes (what a cut orders
    /// threads by, `calltree::filter::cut_windowed`); empty otherwise.
    pub(crate) first_start: Vec<u64>,
    /// Whether weights are times (otherwise call counts).
    pub timed: bool,
    /// Decimal places of the fixed-point weights.
    pub decimals: u8,
    /// What the weights count (nanoseconds, calls, or unknown).
    pub unit: Unit,
}

impl Default for Tree {
    fn default() -> Self {
        let mut t = Tree::empty(false, 0);
        t.push(FuncTable::ROOT, 0, 0, None);
        t.size[0] = 1;
        t
    }
}

impl Tree {
    /// Replaces every node's function `f` by `to(f)`.
    pub fn rename_funcs(&mut self, to: impl Fn(FuncId) -> FuncId) {
        for f in &mut self.func {
            *f = to(*f);
        }
        // Distributions kept by function merge as their functions do.
        let old = std::mem::take(&mut self.func_dist);
        for (f, d) in old.iter().enumerate() {
            super::dist::slot(&mut self.func_dist, true, 0, to(f as FuncId)).merge(d);
        }
    }

    /// A tree with no nodes at all (not even the root); for builders.
    pub(crate) fn empty(timed: bool, decimals: u8) -> Tree {
        Tree {
            func: Vec::new(),
            size: Vec::new(),
            total: Vec::new(),
            self_time: Vec::new(),
            derived_self: false,
            calls: Vec::new(),
            dist: Vec::new(),
            func_dist: Vec::new(),
            created: Vec::new(),
            open_at_end: Vec::new(),
            first_start: Vec::new(),
            timed,
            decimals,
            unit: Unit::Calls,
        }
    }

    /// Appends a node (size set later by the builder); returns its id.
    pub(crate) fn push(
        &mut self,
        func: FuncId,
        total: u64,
        self_time: u64,
        calls: Option<u64>,
    ) -> NodeId {
        let id = self.func.len() as NodeId;
        self.func.push(func);
        self.size.push(1);
        self.total.push(total);
        if !self.derived_self {
            self.self_time.push(self_time);
        }
        if let Some(c) = calls {
            self.calls.resize(id as usize, 1);
            self.calls.push(c);
        } else if !self.calls.is_empty() {
            self.calls.push(1);
        }
        id
    }

    /// Makes room for `n` more nodes (with call counts when `calls`), so a
    /// transformation that knows its output's size never regrows it.
    pub(crate) fn reserve(&mut self, n: usize, calls: bool) {
        self.func.reserve(n);
        self.size.reserve(n);
        self.total.reserve(n);
        if !self.derived_self {
            self.self_time.reserve(n);
        }
        if calls {
            self.calls.reserve(n);
        }
    }

    /// Number of nodes, synthetic ones included.
    pub fn len(&self) -> usize {
        self.func.len()
    }

    /// True when the tree has only its root.
    pub fn is_empty(&self) -> bool {
        self.func.len() <= 1
    }

    /// The function of node `n`.
    pub fn func(&self, n: NodeId) -> FuncId {
        self.func[n as usize]
    }

    /// Total (inclusive) weight of `n`.
    pub fn total(&self, n: NodeId) -> u64 {
        self.total[n as usize]
    }

    /// Self (exclusive) weight of `n`.
    pub fn self_time(&self, n: NodeId) -> u64 {
        if self.derived_self {
            let below: u64 = self.children(n).map(|c| self.total(c)).sum();
            return self.total(n).saturating_sub(below);
        }
        self.self_time[n as usize]
    }

    /// How many calls node `n` stands for.
    pub fn calls(&self, n: NodeId) -> u64 {
        self.calls.get(n as usize).copied().unwrap_or(1)
    }

    /// True when every node carries its per-call distributions (a tree
    /// built with them kept, or a one-node-per-call tree, where each node
    /// is its one call).
    pub fn has_dists(&self) -> bool {
        self.dist.len() == self.len() || !self.has_call_counts()
    }

    /// The per-call distributions of node `n`: kept ones, or the node's
    /// one call in the one-node-per-call view (where it ran is then not
    /// known). None when the tree kept none.
    pub fn dist(&self, n: NodeId) -> Option<std::borrow::Cow<'_, CallDist>> {
        if self.dist.len() == self.len() {
            return Some(std::borrow::Cow::Borrowed(&self.dist[n as usize]));
        }
        (!self.has_call_counts())
            .then(|| std::borrow::Cow::Owned(CallDist::single(self.total(n), self.self_time(n))))
    }

    /// True when nodes carry call counts (calling-context view).
    pub fn has_call_counts(&self) -> bool {
        !self.calls.is_empty()
    }

    /// Number of nodes in the subtree of `n`, `n` included.
    pub fn size(&self, n: NodeId) -> u32 {
        self.size[n as usize]
    }

    /// The children of `n` in trace order.
    pub fn children(&self, n: NodeId) -> Children<'_> {
        Children {
            tree: self,
            next: n + 1,
            end: n + self.size(n),
        }
    }

    /// Parent of every node (the root is its own parent).
    pub fn parents(&self) -> Vec<NodeId> {
        let mut parent = vec![0; self.len()];
        for n in 0..self.len() as NodeId {
            for c in self.children(n) {
                parent[c as usize] = n;
            }
        }
        parent
    }

    /// Depth of every node below the root (root 0).
    pub fn depths(&self) -> Vec<u32> {
        let mut depth = vec![0u32; self.len()];
        for n in 0..self.len() as NodeId {
            for c in self.children(n) {
                depth[c as usize] = depth[n as usize] + 1;
            }
        }
        depth
    }

    /// Number of call nodes (synthetic root and thread nodes excluded).
    pub fn call_nodes(&self, funcs: &FuncTable) -> usize {
        self.func
            .iter()
            .filter(|&&f| !funcs.is_synthetic(f))
            .count()
    }

    /// A copy with the same metadata and no nodes; for tree transformations.
    pub(crate) fn empty_like(&self) -> Tree {
        Tree {
            unit: self.unit,
            ..Tree::empty(self.timed, self.decimals)
        }
    }

    /// Recomputes subtree sizes from per-node depths (preorder); used by builders.
    pub(crate) fn set_sizes_from_depths(&mut self, depth: &[u32]) {
        let mut stack: Vec<usize> = Vec::new();
        for i in 0..self.len() {
            while let Some(&top) = stack.last() {
                if depth[top] < depth[i] {
                    break;
                }
                stack.pop();
                self.size[top] = (i - top) as u32;
            }
            stack.push(i);
        }
        let n = self.len();
        for top in stack {
            self.size[top] = (n - top) as u32;
        }
    }
}

/// Iterator over the children of a node.
pub struct Children<'a> {
    tree: &'a Tree,
    next: NodeId,
    end: NodeId,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let c = self.next;
        self.next += self.tree.size(c);
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// root -> a -> (b, c), root -> d
    fn sample() -> Tree {
        let mut t = Tree::empty(true, 0);
        for f in [0, 1, 2, 3, 4] {
            t.push(f, 10, 1, None);
        }
        t.set_sizes_from_depths(&[0, 1, 2, 2, 1]);
        t
    }

    #[test]
    fn renaming_functions_merges_their_distributions() {
        let mut t = sample();
        let at = super::super::At::default();
        t.func_dist = vec![CallDist::default(); 4];
        for (f, v) in [(1, 5), (2, 7), (3, 9)] {
            t.func_dist[f].total.add(v, at);
        }
        // 3 becomes 1 (two functions of one name), 2 becomes 4.
        t.rename_funcs(|f| [0, 1, 4, 1, 4][f as usize]);
        let counts: Vec<u64> = t.func_dist.iter().map(|d| d.total.count).collect();
        assert_eq!(counts, [0, 2, 0, 0, 1]);
        assert_eq!((t.func_dist[1].total.min, t.func_dist[1].total.max), (5, 9));
        assert_eq!(t.func_dist[4].total.max, 7);
    }

    #[test]
    fn children_skip_subtrees() {
        let t = sample();
        assert_eq!(t.children(0).collect::<Vec<_>>(), [1, 4]);
        assert_eq!(t.children(1).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(t.children(2).count(), 0);
        assert_eq!(t.parents(), [0, 0, 1, 1, 0]);
        assert_eq!(t.depths(), [0, 1, 2, 2, 1]);
    }

    #[test]
    fn derived_self_is_total_minus_children() {
        let mut t = Tree {
            derived_self: true,
            ..Tree::empty(true, 0)
        };
        for (f, total) in [(0, 10), (1, 10), (2, 3), (3, 4), (4, 0)] {
            t.push(f, total, 99, None);
        }
        t.set_sizes_from_depths(&[0, 1, 2, 2, 1]);
        assert!(t.self_time.is_empty(), "nothing stored");
        assert_eq!(
            (0..5).map(|n| t.self_time(n)).collect::<Vec<_>>(),
            [0, 3, 3, 4, 0]
        );
    }

    #[test]
    fn call_counts_default_to_one() {
        let mut t = sample();
        assert_eq!(t.calls(3), 1);
        t.push(5, 1, 1, Some(7));
        assert_eq!((t.calls(2), t.calls(5)), (1, 7));
        assert!(t.has_call_counts());
    }
}
