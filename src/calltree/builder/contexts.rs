//! The calling-context store and builder ([`ContextsBuilder`]): one node
//! per distinct call path, built from events, from indented nodes, or
//! from the partial trees of chunks summarised on the parsing threads.

use super::*;
use crate::calltree::dist::{At, CallDist, Keep, slot};

/// Builds the calling-context tree: one node per distinct call path.
pub struct ContextsBuilder {
    pub(super) stacks: Stacks<ContextStore>,
    /// Open context nodes by depth, for indented (node) input.
    open: Vec<NodeId>,
}

/// Arena of context nodes; children found through a (parent, func) map,
/// with a small direct-mapped cache in front: a program's hot call paths
/// are few, so almost every entry is answered without hashing.
pub(super) struct ContextStore {
    pub(super) func: Vec<FuncId>,
    pub(super) parent: Vec<NodeId>,
    pub(super) calls: Vec<u64>,
    pub(super) total: Vec<u64>,
    pub(super) self_time: Vec<u64>,
    pub(super) index: FxHashMap<u64, NodeId>,
    pub(super) cache: Vec<(u64, NodeId)>,
    pub(super) thread_roots: Vec<NodeId>,
    /// When each node's first call started (in the trace's order of calls).
    pub(super) first_start: Vec<u64>,
    /// Per-call distributions per node (per function when `keep` says
    /// so), when kept.
    pub(super) dist: Option<Vec<CallDist>>,
    /// Which ones.
    pub(super) keep: Keep,
}

/// log2 of the number of (parent, func) -> child cache entries.
const CACHE_BITS: u32 = 12;
/// A key no (parent, func) pair has: thread roots are never parents here
/// with function `u32::MAX`.
const NO_KEY: u64 = u64::MAX;

impl Default for ContextStore {
    fn default() -> Self {
        ContextStore {
            func: Vec::new(),
            parent: Vec::new(),
            calls: Vec::new(),
            total: Vec::new(),
            self_time: Vec::new(),
            index: FxHashMap::default(),
            cache: vec![(NO_KEY, 0); 1 << CACHE_BITS],
            thread_roots: Vec::new(),
            first_start: Vec::new(),
            dist: None,
            keep: Keep::Total,
        }
    }
}

impl ContextStore {
    pub(super) fn new_node(&mut self, parent: NodeId, func: FuncId) -> NodeId {
        let id = self.func.len() as NodeId;
        self.func.push(func);
        self.parent.push(parent);
        self.calls.push(0);
        self.total.push(0);
        self.self_time.push(0);
        self.first_start.push(u64::MAX);
        id
    }

    /// Notes that a call of `node` started at `time`: its first start, if
    /// no call of it came before.
    pub(super) fn first_call(&mut self, node: NodeId, time: u64) {
        let first = &mut self.first_start[node as usize];
        if *first == u64::MAX {
            *first = time;
        }
    }

    pub(super) fn thread_root(&mut self, thread: u32) -> NodeId {
        while self.thread_roots.len() <= thread as usize {
            let root = self.new_node(NodeId::MAX, FuncTable::ROOT);
            self.thread_roots.push(root);
        }
        self.thread_roots[thread as usize]
    }

    #[inline]
    pub(super) fn child(&mut self, parent: NodeId, func: FuncId) -> NodeId {
        let key = (parent as u64) << 32 | func as u64;
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CACHE_BITS)) as usize;
        if self.cache[slot].0 == key {
            return self.cache[slot].1;
        }
        let id = match self.index.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.new_node(parent, func);
                self.index.insert(key, id);
                id
            }
        };
        self.cache[slot] = (key, id);
        id
    }

    pub(super) fn add(&mut self, node: NodeId, calls: u64, total: u64, self_time: u64) {
        let n = node as usize;
        self.calls[n] = self.calls[n].saturating_add(calls);
        self.total[n] = self.total[n].saturating_add(total);
        self.self_time[n] = self.self_time[n].saturating_add(self_time);
    }
}

impl Store for ContextStore {
    #[inline]
    fn open(&mut self, thread: u32, parent: Option<NodeId>, func: FuncId) -> NodeId {
        let parent = match parent {
            Some(p) => p,
            None => self.thread_root(thread),
        };
        self.child(parent, func)
    }

    fn opened(&mut self, node: NodeId, time: u64) {
        self.first_call(node, time);
    }

    #[inline]
    fn close(&mut self, thread: u32, node: NodeId, total: u64, self_time: u64, start: u64) {
        self.add(node, 1, total, self_time);
        if let Some(d) = &mut self.dist {
            let by_func = self.keep.by_function();
            let one = slot(d, by_func, node, self.func[node as usize]);
            one.add(total, self_time, At { thread, start }, self.keep);
        }
    }
}

impl Default for ContextsBuilder {
    fn default() -> Self {
        ContextsBuilder {
            stacks: Stacks::new(ContextStore::default()),
            open: Vec::new(),
        }
    }
}

impl EventSink for ContextsBuilder {
    fn events(&mut self, events: &[Event]) {
        for e in events {
            self.stacks.event(e);
        }
    }

    fn chunk_work(&self) -> Option<Box<dyn ChunkWork>> {
        let store = &self.stacks.store;
        let dists = store.dist.is_some().then_some(store.keep);
        let window = self.stacks.window;
        let paths = self.stacks.paths;
        Some(Box::new(partial::ContextsWork::new(dists, window, paths)))
    }

    fn merge(&mut self, summary: Box<dyn Any + Send>, funcs: &[FuncId], threads: &[u32]) {
        let summary = summary
            .downcast::<partial::Summary>()
            .expect("a summary made by ContextsWork");
        self.merge_summary(*summary, funcs, threads);
    }
}

impl NodeSink for ContextsBuilder {
    fn node(&mut self, r: NodeRecord) {
        // A node of an indented trace stands for calls whose times are
        // summed already: no per-call distributions.
        self.stacks.store.dist = None;
        self.add_node(r);
    }

    fn takes_node_chunks(&self) -> bool {
        true
    }

    fn node_chunk(&mut self, chunk: &NodeChunk) {
        self.stacks.store.dist = None;
        let store = &mut self.stacks.store;
        let root = store.thread_root(0);
        let anchors: Vec<NodeId> = chunk
            .anchors
            .iter()
            .map(|&d| match d {
                0 => root,
                d => self.open.get(d as usize - 1).copied().unwrap_or(root),
            })
            .collect();
        let mut global: Vec<NodeId> = Vec::with_capacity(chunk.nodes.len());
        let f = chunk.factor;
        for n in &chunk.nodes {
            let parent = match n.parent {
                p if p & ChunkNode::ANCHOR != 0 => anchors[(p & !ChunkNode::ANCHOR) as usize],
                p => global[p as usize],
            };
            let id = store.child(parent, n.func);
            let (total, self_time) = (n.total.saturating_mul(f), n.self_time.saturating_mul(f));
            store.add(id, n.calls, total, self_time);
            global.push(id);
        }
        if let Some(&depth) = chunk.anchors.last() {
            self.open.truncate(depth as usize);
            self.open
                .extend(chunk.open.iter().map(|&i| global[i as usize]));
        }
    }

    fn clear_nodes(&mut self) {
        *self = ContextsBuilder::default();
    }

    fn scale_times(&mut self, factor: u64) {
        // Sums scale like their terms, saturation included.
        let store = &mut self.stacks.store;
        scale(&mut store.total, factor);
        scale(&mut store.self_time, factor);
    }
}

impl ContextsBuilder {
    /// A builder that also keeps each context's per-call distributions
    /// (of event input; indented input has no single calls).
    pub fn with_dists(keep: Keep) -> ContextsBuilder {
        let mut b = ContextsBuilder::default();
        b.stacks.store.dist = Some(Vec::new());
        b.stacks.store.keep = keep;
        b
    }

    /// Adds node `r` as [`NodeSink::node`] does, with `dist` merged into
    /// its context's distributions (which are then kept).
    pub(crate) fn node_with_dist(&mut self, r: NodeRecord, dist: &CallDist) {
        let store = &mut self.stacks.store;
        let mut dists = store.dist.take().unwrap_or_default();
        let id = self.add_node(r) as usize;
        dists.resize(self.stacks.store.func.len(), CallDist::default());
        dists[id].merge(dist);
        self.stacks.store.dist = Some(dists);
    }

    /// Adds node `r` of an already-built tree, in preorder; returns its context.
    fn add_node(&mut self, r: NodeRecord) -> NodeId {
        let store = &mut self.stacks.store;
        let root = store.thread_root(0);
        self.open.truncate(r.depth as usize);
        let parent = self.open.last().copied().unwrap_or(root);
        let id = store.child(parent, r.func);
        store.add(id, r.calls, r.total, r.self_time);
        self.open.push(id);
        id
    }

    /// Makes the per-call start times count from `time`.
    pub fn set_origin(&mut self, time: u64) {
        self.stacks.origin = Some(time);
    }

    /// Keeps only the calls that start in `window` (trace times), an
    /// exit after its end counting at the end: what a second pass through
    /// `--time-range` builds, but on every core (in the chunk summaries,
    /// and for a chunk whose events come one by one). Calls that start
    /// outside hide, and a kept call whose caller hides hangs from its
    /// thread's root; threads are ordered by their first kept call.
    pub fn set_window(&mut self, window: Window) {
        self.stacks.window = Some(window);
    }

    /// With a window, keeps each call that starts before it as a path node
    /// that counts nothing (the store keys it apart, with [`SHADOW`]), so
    /// that a kept call whose caller hides stays below that caller
    /// instead of hanging from its thread's root: what `--function` and
    /// `--exclude` need to be cut from the tree
    /// (`calltree::filter::cut_windowed`). The tree shows such a node
    /// with its function and no call.
    pub fn keep_hidden_paths(&mut self) {
        self.stacks.paths = true;
    }

    /// Whether a window is set ([`ContextsBuilder::set_window`]).
    pub fn windowed(&self) -> bool {
        self.stacks.window.is_some()
    }

    /// Finishes the calling-context tree and lays it out in preorder.
    pub fn finish(mut self, meta: &TraceMeta, funcs: &mut FuncTable) -> (Tree, RepairStats) {
        let open_at_end = self
            .stacks
            .stacks
            .iter()
            .flatten()
            .filter(|f| self.stacks.counted(f))
            .map(|f| f.node)
            .collect();
        self.stacks.close_all();
        let origin = self.stacks.origin();
        if let Some(dists) = &mut self.stacks.store.dist {
            for d in dists {
                for one in [&mut d.total, &mut d.self_time] {
                    one.max_at.start = one.max_at.start.saturating_sub(origin);
                }
            }
        }
        let func_dist = match self.stacks.store.keep.by_function() {
            true => self.stacks.store.dist.take(),
            false => None,
        };
        let store = &self.stacks.store;
        let mut tree = Tree::empty(false, 0);
        tree.push(FuncTable::ROOT, 0, 0, Some(0));
        tree.created.push(NodeId::MAX);
        // First starts, for a cut of a tree with path nodes to order
        // threads by their first call kept.
        let paths = self.stacks.paths;
        if paths {
            tree.first_start.push(u64::MAX);
        }
        let dists = store.dist.as_ref();
        if dists.is_some() {
            tree.dist.push(CallDist::default());
        }
        let kids = children_lists(store);
        let multi = store.thread_roots.len() > 1;
        let mut depths = vec![0u32];
        let order = match self.stacks.window {
            Some(_) => window_order(&self.stacks, &kids),
            None => self.stacks.thread_order(store.thread_roots.len()),
        };
        for i in order {
            let root = store.thread_roots[i];
            let base_depth = if multi {
                let tid = meta.threads.get(i).copied().unwrap_or(i as u64);
                tree.push(funcs.thread(tid), 0, 0, Some(0));
                tree.created.push(root);
                if paths {
                    tree.first_start.push(u64::MAX);
                }
                if dists.is_some() {
                    tree.dist.push(CallDist::default());
                }
                depths.push(1);
                2
            } else {
                1
            };
            preorder(
                store,
                &kids,
                root,
                base_depth,
                &mut tree,
                &mut depths,
                paths,
            );
        }
        tree.set_sizes_from_depths(&depths);
        finish_weights(&mut tree, meta, funcs);
        if let Some(mut d) = func_dist {
            // One per function, calls or not: kept, even with no call.
            d.resize(funcs.len().max(d.len()), CallDist::default());
            tree.func_dist = d;
        }
        tree.open_at_end = open_at_end;
        (tree, self.stacks.stats)
    }
}

/// With a time window, the threads in the order of their first kept
/// calls: by when they started (`first_time` holds it then), then by their
/// place in the file (their nodes' creation ranks, which are their ids),
/// as a read through the filter orders them.
fn window_order(
    stacks: &Stacks<ContextStore>,
    (start, list): &(Vec<u32>, Vec<NodeId>),
) -> Vec<usize> {
    let roots = &stacks.store.thread_roots;
    let kids = |n: NodeId| &list[start[n as usize] as usize..start[n as usize + 1] as usize];
    let first_call = |t: usize| match stacks.paths {
        false => kids(roots[t]).first().copied().unwrap_or(NodeId::MAX),
        // The first counted node below the path nodes.
        true => first_counted(&stacks.store, kids, roots[t]),
    };
    let mut order: Vec<usize> = (0..roots.len()).collect();
    order.sort_by_key(|&t| {
        let time = stacks.first_time.get(t).copied().unwrap_or(u64::MAX);
        (time, first_call(t))
    });
    order
}

/// The earliest created node below `root` that is not a path node
/// ([`SHADOW`]); `NodeId::MAX` if none.
fn first_counted<'a>(
    store: &ContextStore,
    kids: impl Fn(NodeId) -> &'a [NodeId],
    root: NodeId,
) -> NodeId {
    let mut first = NodeId::MAX;
    let mut todo = vec![root];
    while let Some(n) = todo.pop() {
        for &c in kids(n) {
            match store.func[c as usize] & SHADOW {
                0 => first = first.min(c),
                _ => todo.push(c),
            }
        }
    }
    first
}

/// Children of every context node in creation (= trace) order, as CSR.
fn children_lists(store: &ContextStore) -> (Vec<u32>, Vec<NodeId>) {
    let n = store.func.len();
    let mut start = vec![0u32; n + 1];
    for &p in &store.parent {
        if p != NodeId::MAX {
            start[p as usize + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut list = vec![0; start[n] as usize];
    for (id, &p) in store.parent.iter().enumerate() {
        if p != NodeId::MAX {
            list[fill[p as usize] as usize] = id as NodeId;
            fill[p as usize] += 1;
        }
    }
    (start, list)
}

/// Appends the subtree below context node `root` (exclusive) in preorder.
fn preorder(
    store: &ContextStore,
    (start, list): &(Vec<u32>, Vec<NodeId>),
    root: NodeId,
    base_depth: u32,
    tree: &mut Tree,
    depths: &mut Vec<u32>,
    with_firsts: bool,
) {
    let kids = |n: NodeId| &list[start[n as usize] as usize..start[n as usize + 1] as usize];
    let mut todo: Vec<(NodeId, u32)> = kids(root).iter().rev().map(|&c| (c, base_depth)).collect();
    while let Some((n, d)) = todo.pop() {
        let i = n as usize;
        tree.push(
            store.func[i] & !SHADOW,
            store.total[i],
            store.self_time[i],
            Some(store.calls[i]),
        );
        tree.created.push(n);
        if with_firsts {
            tree.first_start.push(store.first_start[i]);
        }
        if let Some(dists) = &store.dist {
            tree.dist.push(dists.get(i).cloned().unwrap_or_default());
        }
        depths.push(d);
        todo.extend(kids(n).iter().rev().map(|&c| (c, d + 1)));
    }
}
