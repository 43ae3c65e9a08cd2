//! Merging a chunk's [`Summary`] into the builder, in file order: each
//! thread's exits below the chunk replayed on the real stacks tell every
//! anchor's node, then each summary node is added to the global tree once,
//! and the frames still open are pushed.

use super::*;

impl ContextsBuilder {
    /// Merges the next chunk's summary; `funcs` and `threads` map its local ids.
    pub(in crate::calltree::builder) fn merge_summary(
        &mut self,
        mut s: Summary,
        funcs: &[FuncId],
        threads: &[u32],
    ) {
        let anchors = self.resolve_anchors(&s, funcs, threads);
        let st = &mut self.stacks;
        st.last_time = st.last_time.max(s.last_time);
        st.stats.unwound += s.unwound;
        st.stats.backwards += s.threads.iter().map(|t| t.backwards).sum::<u64>();
        let mut global: Vec<NodeId> = Vec::with_capacity(s.nodes.len());
        let mut kept = std::mem::take(&mut s.kept);
        for (i, n) in s.nodes.iter().enumerate() {
            let p = n.parent;
            let parent = if p & ANCHOR == 0 {
                global[p as usize]
            } else {
                let a = (p & !ANCHOR) as usize;
                match anchors[a] {
                    Some(node) => node,
                    None => st.store.thread_root(threads[s.anchors[a].thread as usize]),
                }
            };
            // A path node keeps its mark (`SHADOW`) in the store's key.
            let func = funcs[(n.func & !SHADOW) as usize] | (n.func & SHADOW);
            let id = st.store.child(parent, func);
            if st.paths {
                st.store
                    .first_call(id, s.firsts.get(i).copied().unwrap_or(u64::MAX));
            }
            st.store.add(id, n.calls, n.total, n.self_time);
            if let (Kept::ByNode(local, _), Some(store)) = (&mut kept, &mut st.store.dist)
                && let Some(d) = local.get_mut(i)
            {
                merge_local(store, id, d, threads);
            }
            global.push(id);
        }
        if let (Kept::Drained(local), Some(store)) = (&mut kept, &mut st.store.dist) {
            local.map_threads(threads);
            for (f, head, buckets) in local.iter() {
                let one = &mut slot(store, true, 0, funcs[f as usize]).total;
                one.merge_counts(head, buckets.iter().copied());
            }
        }
        for (lt, th) in s.threads.iter().enumerate() {
            for f in &th.stack {
                let frame = Frame {
                    node: match f.node {
                        HIDDEN => HIDDEN,
                        n => global[n as usize],
                    },
                    func: funcs[f.func as usize],
                    ..*f
                };
                st.push(threads[lt], frame);
            }
        }
    }

    /// Replays each thread's exits below the chunk on the real stacks and
    /// returns every anchor's node (None: the thread's stack was empty, so
    /// calls below it are top-level).
    fn resolve_anchors(
        &mut self,
        s: &Summary,
        funcs: &[FuncId],
        threads: &[u32],
    ) -> Vec<Option<NodeId>> {
        let st = &mut self.stacks;
        let mut nodes = vec![None; s.anchors.len()];
        for (lt, th) in s.threads.iter().enumerate() {
            let g = threads[lt];
            // With a window, threads are ordered by their first kept call,
            // as the filtered read orders them.
            let first = match st.window {
                Some(_) => th.first_kept,
                None => th.first_time,
            };
            st.touch(g, first);
            for &(a, func, time) in &th.exits {
                nodes[a as usize] = st.settle(g, s.anchors[a as usize].child_total);
                st.exit(g, funcs[func as usize], time);
            }
            nodes[th.anchor as usize] = st.settle(g, s.anchors[th.anchor as usize].child_total);
        }
        nodes
    }
}

/// Merges a summary's distribution `d` (local threads, mapped by
/// `threads`) into the kept one of global node `node`.
fn merge_local(kept: &mut Vec<CallDist>, node: NodeId, d: &mut CallDist, threads: &[u32]) {
    if d.total.count == 0 {
        return;
    }
    for one in [&mut d.total, &mut d.self_time] {
        if one.count > 0 {
            one.max_at.thread = threads[one.max_at.thread as usize];
        }
    }
    slot(kept, false, node, 0).merge(d);
}
