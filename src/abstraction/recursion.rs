//! Recursion folding: a call to a function already on its call path joins
//! that ancestor's node (its self time is added there, its callees hang
//! below the ancestor), so `f -> g -> f -> g` becomes one `f -> g`. On a
//! calling-context tree, siblings that become equal paths merge; totals are
//! then recomputed from the self times, so a recursive function's total is
//! counted once. The folded weight is the receiving node's own time.

use rustc_hash::FxHashMap;

use super::Abstracted;
use super::pass::{Context, Param, Pass};
use crate::calltree::{CallDist, NodeId, Tree};
use crate::ingest::{FuncId, FuncTable};

/// The `--fold-recursion` pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FoldRecursion;

impl Pass for FoldRecursion {
    fn name(&self) -> &'static str {
        "fold-recursion"
    }
    fn params(&self) -> Vec<(&'static str, Param)> {
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
    /// Calls per node; empty unless the tree has call counts.
    calls: Vec<u64>,
    /// Depth below the root (0).
    depth: Vec<u32>,
    counts: bool,
    /// Per-call distributions, when the input kept them: a node's are
    /// those of the calls that made it (not of the calls that joined it,
    /// which its calls include), as its call count is.
    dist: Option<Vec<CallDist>>,
    first_kid: Vec<u32>,
    last_kid: Vec<u32>,
    next_sibling: Vec<u32>,
}

impl Arena {
    fn new(counts: bool) -> Arena {
        Arena {
            counts,
            ..Arena::default()
        }
    }

    fn add(&mut self, parent: u32, func: FuncId) -> u32 {
        let id = self.func.len() as u32;
        self.func.push(func);
        self.parent.push(parent);
        self.depth
            .push(self.depth.get(parent as usize).map_or(0, |d| d + 1));
        self.self_w.push(0);
        if self.counts {
            self.calls.push(0);
        }
        if let Some(d) = &mut self.dist {
            d.push(CallDist::default());
        }
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

    /// The tree in preorder, totals recomputed as self + children's totals.
    fn into_tree(mut self, like: &Tree) -> Tree {
        self.last_kid = Vec::new(); // only needed while adding
        let mut out = like.empty_like();
        out.reserve(self.func.len(), self.counts);
        // The output ids of the current path; a node's size is known when it ends.
        let mut open: Vec<NodeId> = Vec::new();
        let mut n = 0u32;
        loop {
            let i = n as usize;
            let calls = self.counts.then(|| self.calls[i]);
            open.push(out.push(self.func[i], 0, self.self_w[i], calls));
            if let Some(d) = &mut self.dist {
                out.dist.push(std::mem::take(&mut d[i]));
            }
            let Some((next, up)) = self.following(n) else {
                break;
            };
            for _ in 0..up {
                end_node(&mut out, open.pop());
            }
            n = next;
        }
        while let Some(id) = open.pop() {
            end_node(&mut out, Some(id));
        }
        sum_totals(&mut out);
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

/// The folded path of the input node being visited: its arena nodes by
/// depth, and where each function is on it. A function is on a folded path
/// at most once (that is what folding means), so `depth_of[f]` names its
/// only place; entries past the path's length, or overwritten by another
/// function, are stale and fail the check in [`Path::find`].
struct Path {
    nodes: Vec<u32>,
    len: usize,
    depth_of: Vec<u32>,
}

/// What [`Path::enter`] changed, for [`Path::leave`] to restore.
#[derive(Clone, Copy)]
struct Undo {
    depth: u32,
    node: u32,
    func: FuncId,
    func_depth: u32,
    len: usize,
}

impl Path {
    fn new(funcs: usize) -> Path {
        Path {
            nodes: Vec::new(),
            len: 0,
            depth_of: vec![NONE; funcs],
        }
    }

    /// Makes arena node `node` the end of the path.
    fn enter(&mut self, a: &Arena, node: u32) -> Undo {
        let (d, f) = (a.depth[node as usize], a.func[node as usize]);
        if self.nodes.len() <= d as usize {
            self.nodes.resize(d as usize + 1, NONE);
        }
        let undo = Undo {
            depth: d,
            node: self.nodes[d as usize],
            func: f,
            func_depth: self.depth_of[f as usize],
            len: self.len,
        };
        self.nodes[d as usize] = node;
        self.depth_of[f as usize] = d;
        self.len = d as usize + 1;
        undo
    }

    fn leave(&mut self, u: Undo) {
        self.nodes[u.depth as usize] = u.node;
        self.depth_of[u.func as usize] = u.func_depth;
        self.len = u.len;
    }

    /// The node of the path calling `f`, if any.
    fn find(&self, a: &Arena, f: FuncId) -> Option<u32> {
        let d = *self.depth_of.get(f as usize)? as usize;
        let node = *self.nodes.get(d)?;
        (d < self.len && node != NONE && a.func[node as usize] == f).then_some(node)
    }
}

/// Sets the size of node `id` of `out`, which ends here.
fn end_node(out: &mut Tree, id: Option<NodeId>) {
    let id = id.expect("a node on the path");
    out.size[id as usize] = out.len() as u32 - id;
}

/// Sets every node's total to its self plus its children's totals.
fn sum_totals(out: &mut Tree) {
    for n in (0..out.len() as NodeId).rev() {
        let below = out
            .children(n)
            .fold(0u64, |s, c| s.saturating_add(out.total(c)));
        out.total[n as usize] = out.self_time[n as usize].saturating_add(below);
    }
}

/// Folds recursion in `tree`. The tree is walked in preorder; [`Path`]
/// holds the folded path of the node being visited, so that finding the
/// ancestor a call joins costs O(1), not the depth (a 200k-deep chain of
/// distinct functions took minutes when each call walked its path).
pub(crate) fn fold_recursion(tree: &Tree, funcs: &FuncTable) -> Tree {
    let counts = tree.has_call_counts();
    let mut a = Arena::new(counts);
    let dists = counts && tree.dist.len() == tree.len();
    if dists {
        a.dist = Some(Vec::new());
    }
    a.add(NONE, tree.func(0));
    a.self_w[0] = tree.self_time(0);
    if counts {
        a.calls[0] = tree.calls(0);
    }
    let mut index: FxHashMap<(u32, FuncId), u32> = FxHashMap::default();
    let mut map = vec![0u32; tree.len()];
    let mut path = Path::new(funcs.len());
    // (end of the input subtree, what entering it changed)
    let mut open: Vec<(NodeId, Undo)> = Vec::new();
    for n in 0..tree.len() as NodeId {
        while let Some(&(end, undo)) = open.last() {
            if end > n {
                break;
            }
            path.leave(undo);
            open.pop();
        }
        let p = map[n as usize];
        open.push((n + tree.size(n), path.enter(&a, p)));
        for c in tree.children(n) {
            let f = tree.func(c);
            let joined = (!funcs.is_synthetic(f)).then(|| path.find(&a, f)).flatten();
            let target = match joined {
                Some(anc) => anc,
                None if counts => *index.entry((p, f)).or_insert_with(|| a.add(p, f)),
                None => a.add(p, f),
            };
            if joined.is_none() && counts {
                a.calls[target as usize] = a.calls[target as usize].saturating_add(tree.calls(c));
                if let Some(d) = &mut a.dist {
                    d[target as usize].merge(&tree.dist[c as usize]);
                }
            }
            a.self_w[target as usize] = a.self_w[target as usize].saturating_add(tree.self_time(c));
            map[c as usize] = target;
        }
    }
    drop((index, map));
    a.into_tree(tree)
}
