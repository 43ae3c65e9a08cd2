//! A parsing thread's summariser ([`ContextsWork`]): the lookup tables it
//! reuses from chunk to chunk, the chunk loop over stored events, the
//! consumer a format's parser feeds as it reads ([`Building`]), and the
//! lookup of a summary node by (parent, function).

use super::*;

/// A parsing thread's summariser; its lookup tables are reused across chunks.
pub(in crate::calltree::builder) struct ContextsWork {
    /// Which per-call distributions summaries keep, if any.
    dists: Option<Keep>,
    /// The accumulators of distributions kept by function, between chunks.
    by_function: Option<FuncDists>,
    index: FxHashMap<u64, u32>,
    /// A fixed-size array, so that indexing it by a hash needs no bounds check.
    cache: Box<[(u64, u32); 1 << CACHE_BITS]>,
    /// The latest (parent, func) looked up and its node.
    last: (u64, u32),
    /// Calls starting in `[start, end)` are kept, the others hidden
    /// ([`ContextsBuilder::set_window`]); None keeps every call.
    window: Option<Window>,
    /// Calls before the window are path nodes
    /// ([`ContextsBuilder::keep_hidden_paths`]).
    pub(super) paths: bool,
    /// The start of each node's first call, in the summary being built.
    firsts: Vec<u64>,
}

impl Default for ContextsWork {
    fn default() -> Self {
        ContextsWork {
            dists: None,
            by_function: None,
            index: FxHashMap::default(),
            cache: Box::new([(NO_KEY, 0); 1 << CACHE_BITS]),
            last: (NO_KEY, 0),
            window: None,
            paths: false,
            firsts: Vec::new(),
        }
    }
}

impl ContextsWork {
    /// A summariser whose summaries keep the per-call distributions
    /// `dists` of the calls starting in `window` (None: of every call).
    pub(in crate::calltree::builder) fn new(
        dists: Option<Keep>,
        window: Option<Window>,
        paths: bool,
    ) -> ContextsWork {
        ContextsWork {
            dists,
            window,
            paths,
            ..ContextsWork::default()
        }
    }

    /// An empty summary, keeping distributions if asked to.
    fn summary(&mut self) -> Summary {
        let kept = match self.dists {
            None => Kept::Nothing,
            Some(Keep::TotalByFunction) => {
                Kept::ByFunction(self.by_function.take().unwrap_or_default())
            }
            Some(keep) => Kept::ByNode(Vec::new(), keep),
        };
        Summary {
            kept,
            ..Summary::default()
        }
    }

    /// Ends summary `s`: hands on what its accumulators hold and keeps
    /// them for the next chunk.
    pub(super) fn finish(&mut self, mut s: Summary) -> Summary {
        s.end_run();
        s.firsts = std::mem::take(&mut self.firsts);
        if s.kept.by_function() {
            let sums = s.sums_by_function();
            let Kept::ByFunction(f) = &mut s.kept else {
                return s;
            };
            let drained = Kept::Drained(f.drain(&sums));
            if let Kept::ByFunction(f) = std::mem::replace(&mut s.kept, drained) {
                self.by_function = Some(f);
            }
        }
        s
    }

    /// Empties the lookup tables for a new chunk.
    fn reset(&mut self) {
        self.firsts.clear();
        self.index.clear();
        self.cache.fill((NO_KEY, 0));
        self.last = (NO_KEY, 0);
    }
}

impl ChunkWork for ContextsWork {
    fn summarise(&mut self, events: &[Event]) -> Option<Box<dyn Any + Send>> {
        self.reset();
        let mut s = self.summary();
        match (self.window, s.kept.by_function()) {
            (Some(w), false) => s.events::<true, false>(events, self, w)?,
            (Some(w), true) => s.events::<true, true>(events, self, w)?,
            (None, false) => s.events::<false, false>(events, self, Window::ALL)?,
            (None, true) => s.events::<false, true>(events, self, Window::ALL)?,
        }
        Some(Box::new(self.finish(s)))
    }

    /// Builds the summary while the format's parser reads the chunk: no
    /// event is stored and read back.
    fn scan(&mut self, scan: ChunkScan<'_>) -> ChunkScanned {
        self.reset();
        let summary = self.summary();
        let (window, by_function) = (self.window, summary.kept.by_function());
        match (window, by_function) {
            (Some(w), false) => scan.run(
                &mut Building::<true, false>::new(summary, w, self),
                Building::finish,
            ),
            (Some(w), true) => scan.run(
                &mut Building::<true, true>::new(summary, w, self),
                Building::finish,
            ),
            (None, false) => scan.run(
                &mut Building::<false, false>::new(summary, Window::ALL, self),
                Building::finish,
            ),
            (None, true) => scan.run(
                &mut Building::<false, true>::new(summary, Window::ALL, self),
                Building::finish,
            ),
        }
    }
}

/// A summary being built from events as they are read; `W`: only calls
/// starting in `window` are kept.
struct Building<'a, const W: bool, const F: bool> {
    summary: Summary,
    window: Window,
    work: &'a mut ContextsWork,
}

impl<'a, const W: bool, const F: bool> Building<'a, W, F> {
    fn new(summary: Summary, window: Window, work: &'a mut ContextsWork) -> Self {
        Building {
            summary,
            window,
            work,
        }
    }

    /// The summary, handed on.
    fn finish(&mut self) -> Box<dyn Any + Send> {
        let s = std::mem::take(&mut self.summary);
        Box::new(self.work.finish(s))
    }
}

impl<const W: bool, const F: bool> EventConsumer for Building<'_, W, F> {
    #[inline(always)]
    fn event(&mut self, e: Event) -> bool {
        self.summary
            .event::<true, W, F>(&e, self.work, self.window)
            .is_some()
    }

    #[inline(always)]
    fn untimed_event(&mut self, e: Event) -> bool {
        self.summary
            .event::<false, W, F>(&e, self.work, self.window)
            .is_some()
    }

    #[inline(always)]
    fn leaf(&mut self, enter: Event, exit_time: u64) -> bool {
        self.summary
            .leaf::<true, W, F>(&enter, exit_time, self.work, self.window)
            .is_some()
    }

    #[inline(always)]
    fn untimed_leaf(&mut self, enter: Event) -> bool {
        self.summary
            .leaf::<false, W, F>(&enter, 0, self.work, self.window)
            .is_some()
    }
}

/// The summary node for `func` called from `parent`, created if new.
#[inline(always)]
pub(super) fn child(
    nodes: &mut Vec<Node>,
    parent: u32,
    func: FuncId,
    time: u64,
    work: &mut ContextsWork,
) -> u32 {
    let key = (parent as u64) << 32 | func as u64;
    // A loop calling one function enters the same node again and again.
    if work.last.0 == key {
        return work.last.1;
    }
    let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CACHE_BITS)) as usize;
    if work.cache[slot].0 == key {
        work.last = work.cache[slot];
        return work.cache[slot].1;
    }
    child_not_cached(nodes, (parent, func), time, (key, slot), work)
}

/// [`child`] of a (parent, func) the caches do not hold: found in the
/// index, or made (noting its first call's start).
#[cold]
#[inline(never)]
fn child_not_cached(
    nodes: &mut Vec<Node>,
    (parent, func): (u32, FuncId),
    time: u64,
    (key, slot): (u64, usize),
    work: &mut ContextsWork,
) -> u32 {
    let next = nodes.len() as u32;
    let id = *work.index.entry(key).or_insert(next);
    if id == next {
        nodes.push(Node {
            func,
            parent,
            calls: 0,
            total: 0,
            self_time: 0,
        });
        work.firsts.push(time);
    }
    work.cache[slot] = (key, id);
    work.last = (key, id);
    id
}
