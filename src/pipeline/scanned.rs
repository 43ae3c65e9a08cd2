//! Two passes over a trace: a first that builds nothing but names the
//! functions and threads and finds the earliest time ([`scan`]), then a
//! second into a tree ([`Scanned::build`], what `load` does through the
//! filters) or into any sink ([`Scanned::replay`], the streamed exports
//! and a dataset's calls). Both second passes go through the filters
//! (`--tid`, `--time-range`, `--function`, `--exclude`) the same way: the
//! filter resolved once, after the first pass, into a [`Slice`].

use super::names::{self, Named};
use super::opened::{Earliest, Opened, Reads};
use super::{InputOptions, Loaded};
use crate::calltree::{self, Built, View};
use crate::error::{Error, Result};
use crate::ingest::slice::{self, Slice, SliceSink, SliceStats};
use crate::ingest::{
    self, ChunkWork, Event, EventSink, FuncId, FuncTable, NodeChunk, NodeRecord, NodeSink, Sink,
    TraceMeta,
};
use crate::symbols::{self, FuncInfo, FuncPattern};

/// A trace read once without building anything: its functions, named, and
/// what the format reported, ready for a second pass.
pub(crate) struct Scanned<'o> {
    opened: Opened<'o>,
    /// Functions in first-appearance order.
    pub funcs: FuncTable,
    /// What the format reported.
    pub meta: TraceMeta,
    /// Counted problems worth one line each on stderr.
    pub warnings: Vec<String>,
    /// Names of `funcs`, and how resolving them went.
    named: Named,
    /// Time of the earliest event, if any, when the first pass found it.
    start: Start,
    /// The filter resolved for this trace; None when it keeps everything.
    slice: Option<Slice>,
}

/// What start times count from in a tree built by a second pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// The earliest event's time (None: no events), found by the first pass.
    Known(Option<u64>),
    /// Not known yet: there was no naming first pass ([`Scanned::after_build`]),
    /// so the second pass finds it.
    InSecondPass,
}

/// How a second pass numbers threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Threads {
    /// As the trace does (thread `i` is `meta.threads[i]`).
    AsTrace,
    /// The threads a filter kept numbered from 0, as a filtered tree numbers them.
    Dense,
}

/// Reads and names a trace, discarding its events, and resolves the
/// filter for it. A pipe is read whole into memory first: it cannot be
/// read the second time a [`Scanned`] is for.
pub(crate) fn scan(opts: &InputOptions) -> Result<Scanned<'_>> {
    scan_opened(Opened::open(opts, Reads::Again)?)
}

/// [`scan`] of a trace opened to be read again.
pub(super) fn scan_opened(opened: Opened<'_>) -> Result<Scanned<'_>> {
    let opts = opened.opts;
    let mut funcs = FuncTable::default();
    let mut earliest = Earliest::default();
    let mut meta = opened.read("pass 1/2", &mut funcs, &mut earliest)?;
    let named = names::name(opts, &funcs, &mut meta)?;
    let slice = match opts.filter.is_empty() {
        true => None,
        false => Some(slice_of(opts, &funcs, &named.names, &meta, earliest.0)?),
    };
    let built = Built {
        tree: Default::default(),
        funcs,
        meta,
        repairs: Default::default(),
    };
    let warnings = names::warnings(&built, &named);
    Ok(Scanned {
        opened,
        funcs: built.funcs,
        meta: built.meta,
        warnings,
        named,
        start: Start::Known(earliest.0),
        slice,
    })
}

impl<'o> Scanned<'o> {
    /// What a first pass would have found, taken from a read that built
    /// the whole tree (`cut.rs`): its functions `funcs` named `named`, what
    /// the format reported and the filter resolved. The earliest event's
    /// time is found by the second pass.
    pub(super) fn after_build(
        opened: Opened<'o>,
        funcs: FuncTable,
        meta: TraceMeta,
        named: Named,
        slice: Slice,
    ) -> Scanned<'o> {
        Scanned {
            opened,
            funcs,
            meta,
            warnings: Vec::new(),
            named,
            start: Start::InSecondPass,
            slice: Some(slice),
        }
    }

    /// Names of [`Scanned::funcs`], by function id.
    pub(crate) fn names(&self) -> &[FuncInfo] {
        &self.named.names
    }

    /// Reads the trace again into `sink`, through the filter if there is
    /// one, with threads numbered as `threads` says; function ids are those
    /// of the first pass.
    pub(crate) fn replay(&self, sink: &mut dyn Sink, threads: Threads) -> Result<()> {
        let mut funcs = self.funcs.clone();
        self.second_pass(&mut funcs, sink, threads)?;
        Ok(())
    }

    /// The tree in `view`, built by a second pass through the filter (the
    /// kept threads numbered from 0), named.
    pub(crate) fn build(self, view: View) -> Result<Loaded> {
        self.build_with(view, None)
    }

    /// [`Scanned::build`], the same pass also feeding `also` what the
    /// filter keeps, as [`Scanned::replay`] with dense threads would.
    pub(crate) fn build_feeding(self, view: View, also: &mut dyn Sink) -> Result<Loaded> {
        self.build_with(view, Some(also))
    }

    fn build_with(mut self, view: View, also: Option<&mut dyn Sink>) -> Result<Loaded> {
        let opts = self.opened.opts;
        let mut builder = calltree::Builder::for_view(view, opts.per_call);
        // Start times count from the trace's earliest event, kept or not.
        if let Start::Known(Some(t)) = self.start {
            builder.set_origin(t);
        }
        let mut funcs = std::mem::take(&mut self.funcs);
        let (mut meta, stats, earliest) = match also {
            None => self.second_pass(&mut funcs, &mut builder, Threads::Dense)?,
            Some(also) => {
                let mut both = Tee(&mut builder, also);
                self.second_pass(&mut funcs, &mut both, Threads::Dense)?
            }
        };
        // The origin is only used when the tree is laid out.
        if let (Start::InSecondPass, Some(t)) = (self.start, earliest) {
            builder.set_origin(t);
        }
        let names = &self.named.names;
        meta.name_threads_by_entry(|f| names.get(f as usize).map(|n| n.name.as_str()));
        if let Some(stats) = &stats {
            keep_threads(&mut meta, &stats.threads);
        }
        let mut built = builder.finish(funcs, meta);
        if let Some(stats) = &stats {
            built.repairs.unclosed += stats.unclosed;
            built.repairs.orphan_exits += stats.orphan_exits;
        }
        Ok(finish_filtered(built, self.named, view))
    }

    /// [`Scanned::build`] of a filter that is a time range, alone or with
    /// `--tid`, with the second pass on every core: the window applied as
    /// the chunks are summarised ([`calltree::Builder::set_window`]), then
    /// the threads not asked for or with no call in it dropped and the
    /// others numbered by their first kept call
    /// ([`calltree::filter::cut`]), which gives the tree the
    /// filtered read builds. What the window cannot tell goes the
    /// sequential way (unwound, orphan or backwards calls, which depend
    /// on the frames kept; an
    /// untimed or indented trace, or no call in the range, which that way
    /// refuses with its message).
    pub(super) fn build_windowed(self, view: View) -> Result<Loaded> {
        match self.windowed(view)? {
            Some(built) => Ok(finish_filtered(built, self.named, view)),
            None => self.build(view),
        }
    }

    /// [`Scanned::build_windowed`]'s parallel way, the tree before it is
    /// named; None where it cannot.
    pub(super) fn windowed(&self, view: View) -> Result<Option<Built>> {
        let opts = self.opened.opts;
        let (Some(slice), Start::Known(Some(origin))) = (&self.slice, self.start) else {
            return Ok(None);
        };
        let Some(range) = slice.range else {
            return Ok(None);
        };
        if !self.meta.timed || self.meta.unit != ingest::Unit::Nanos {
            return Ok(None);
        }
        // Per-function distributions are kept by function when every
        // thread is: the window already left out the calls they must not
        // count, and the cut below only drops threads without a kept
        // call. With `--tid` the cut drops threads' calls, so they are
        // kept per context and merged by function after it, as a one-pass
        // filtered read does.
        // So do `--function` and `--exclude`, cut from a tree that keeps
        // the callers before the window as path nodes.
        let by_functions = slice.cuts_functions();
        let merge_after_cut = opts.per_call == Some(calltree::Keep::TotalByFunction)
            && (slice.threads.is_some() || by_functions);
        let keep = match merge_after_cut {
            true => Some(calltree::Keep::Total),
            false => opts.per_call,
        };
        let mut builder = calltree::Builder::for_view(view, keep);
        builder.set_origin(origin);
        builder.set_window(range.window(origin));
        if by_functions {
            builder.keep_hidden_paths();
        }
        let mut watched = Watched {
            builder,
            nodes: false,
        };
        let mut funcs = self.funcs.clone();
        let mut meta = self.opened.read("pass 2/2", &mut funcs, &mut watched)?;
        if watched.nodes || !watched.builder.windowed() {
            return Ok(None);
        }
        let names = &self.named.names;
        meta.name_threads_by_entry(|f| names.get(f as usize).map(|n| n.name.as_str()));
        let full = watched.builder.finish(funcs, meta);
        // Kept calls left open close at the last time (or the window's
        // end), as the filtered read closes them; other repairs depend on
        // the frames kept.
        let r = full.repairs;
        if r.unwound > 0 || r.orphan_exits > 0 || r.backwards > 0 {
            return Ok(None);
        }
        // The window is applied: what is left to cut is the threads and
        // the functions.
        let unranged = Slice {
            range: None,
            ..slice.clone()
        };
        let cut = match by_functions {
            true => calltree::filter::cut_windowed(&full, &self.funcs, &unranged),
            false => calltree::filter::cut_in_order(&full, &self.funcs, &unranged),
        };
        let Ok(mut cut) = cut else {
            return Ok(None);
        };
        if cut.threads.is_empty() {
            return Ok(None);
        }
        if merge_after_cut {
            cut.dists_by_function();
        }
        let mut meta = full.meta;
        keep_threads(&mut meta, &cut.threads);
        Ok(Some(Built {
            tree: cut.tree,
            funcs: cut.funcs,
            meta,
            repairs: cut.repairs,
        }))
    }

    /// The second pass into `sink` through the filter, if any: what the
    /// format reported, what the filter kept, and the earliest event's
    /// time when the events went through the filter.
    fn second_pass(
        &self,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
        threads: Threads,
    ) -> Result<(TraceMeta, Option<SliceStats>, Option<u64>)> {
        let Some(slice) = &self.slice else {
            let meta = self.opened.read("pass 2/2", funcs, sink)?;
            return Ok((meta, None, None));
        };
        let mut sliced = SliceSink::new(slice, sink);
        if threads == Threads::Dense {
            sliced = sliced.dense_threads();
        }
        let mut through = Through {
            inner: &mut sliced,
            earliest: Earliest::default(),
        };
        let meta = self.opened.read("pass 2/2", funcs, &mut through)?;
        let earliest = through.earliest.0;
        let stats = sliced.finish();
        check_slice(self.opened.opts, &stats, &meta)?;
        Ok((meta, Some(stats), earliest))
    }
}

/// Passes everything to a sink that takes events one by one (a
/// [`SliceSink`]), noting the earliest event's time on the way.
struct Through<'a, 's> {
    inner: &'a mut SliceSink<'s>,
    earliest: Earliest,
}

impl EventSink for Through<'_, '_> {
    fn events(&mut self, events: &[Event]) {
        self.earliest.events(events);
        self.inner.events(events)
    }
}

impl NodeSink for Through<'_, '_> {
    fn node(&mut self, node: NodeRecord) {
        self.inner.node(node)
    }
    fn scale_times(&mut self, factor: u64) {
        self.inner.scale_times(factor)
    }
    fn clear_nodes(&mut self) {
        self.inner.clear_nodes()
    }
}

/// Feeds two sinks the same events or nodes (no chunk summaries: behind
/// a [`SliceSink`], events come in order).
struct Tee<'a, 'b>(&'a mut dyn Sink, &'b mut dyn Sink);

impl EventSink for Tee<'_, '_> {
    fn events(&mut self, events: &[Event]) {
        self.0.events(events);
        self.1.events(events);
    }
}

impl NodeSink for Tee<'_, '_> {
    fn node(&mut self, node: NodeRecord) {
        self.0.node(node);
        self.1.node(node);
    }
    fn scale_times(&mut self, factor: u64) {
        self.0.scale_times(factor);
        self.1.scale_times(factor);
    }
    fn clear_nodes(&mut self) {
        self.0.clear_nodes();
        self.1.clear_nodes();
    }
}

/// A filtered tree named by the names of the trace's functions: its
/// threads' functions, added after those named, get theirs.
pub(super) fn finish_filtered(built: Built, mut named: Named, view: View) -> Loaded {
    let plain = symbols::names_without_binary(&built.funcs);
    named
        .names
        .extend(plain.into_iter().skip(named.names.len()));
    names::name_threads(&built.funcs, &built.meta, &mut named.names);
    Loaded::finish(built, named, view)
}

/// Leaves in `meta` the threads a dense [`SliceSink`] passed on, in its
/// order (`kept[i]` is the trace's index of its thread `i`).
pub(super) fn keep_threads(meta: &mut TraceMeta, kept: &[u32]) {
    meta.threads = pick(&meta.threads, kept);
    if !meta.thread_names.is_empty() {
        meta.thread_names = pick(&meta.thread_names, kept);
    }
}

/// `all[i]` for each `i` of `kept`.
fn pick<T: Clone>(all: &[T], kept: &[u32]) -> Vec<T> {
    kept.iter()
        .filter_map(|&i| all.get(i as usize).cloned())
        .collect()
}

/// The filter of `opts` resolved for a trace whose functions `funcs` are
/// named `names`, and whose earliest event is at `origin`.
pub(super) fn slice_of(
    opts: &InputOptions,
    funcs: &FuncTable,
    names: &[FuncInfo],
    meta: &TraceMeta,
    origin: Option<u64>,
) -> Result<Slice> {
    let f = &opts.filter;
    let marked = slice::Marked {
        function: match f.function.is_empty() {
            true => None,
            false => Some(mark("--function", &f.function, funcs, names)?),
        },
        exclude: mark("--exclude", &f.exclude, funcs, names)?,
    };
    slice::resolve(f, marked, meta, origin).map_err(|e| e.for_flag("--tid"))
}

/// `hit[f]` for each function one of `patterns` matches, by the rule of
/// [`FuncPattern`]; a pattern that matches no function is an error.
fn mark(
    flag: &str,
    patterns: &[FuncPattern],
    funcs: &FuncTable,
    names: &[FuncInfo],
) -> Result<Vec<bool>> {
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let (hit, unused) = FuncPattern::mark(patterns, funcs, names);
    if let Some(p) = unused.first() {
        // Short forms (what a pattern can be): a C++ name in full is often
        // hundreds of characters of template and parameter lists.
        let short: Vec<String> = names.iter().map(|n| symbols::short_form(&n.name)).collect();
        let shown: Vec<&str> = short.iter().map(String::as_str).collect();
        return Err(Error::usage(
            flag,
            format!(
                "`{}` matches no function of the trace; it has {}",
                p.as_str(),
                slice::function_list(funcs, &shown, p.as_str())
            ),
        ));
    }
    Ok(hit)
}

/// Refuses what the filter could not do to the trace: cut an indented
/// tree, cut an untimed trace by time, or keep anything of a time range
/// in which no call starts.
fn check_slice(opts: &InputOptions, stats: &SliceStats, meta: &TraceMeta) -> Result<()> {
    let file = opts.trace.display();
    let f = &opts.filter;
    if stats.got_nodes && f.needs_events() {
        return Err(Error::Input(format!(
            "--function, --exclude and --time-range need a trace of entries and exits; {file} is an indented tree"
        )));
    }
    let Some(range) = f.range else {
        return Ok(());
    };
    if !meta.timed || meta.unit != ingest::Unit::Nanos {
        return Err(Error::usage(
            "--time-range",
            format!("{file} has no timestamps in nanoseconds, so it cannot be cut by time"),
        ));
    }
    if stats.kept_calls == 0 {
        let length = stats
            .last_time
            .saturating_sub(stats.first_time.unwrap_or(stats.last_time));
        return Err(Error::usage(
            "--time-range",
            format!(
                "no call starts in {range}{}; {file} lasts {}",
                match f.tids.is_empty() && f.function.is_empty() {
                    true => "",
                    false => " (on the threads and functions kept)",
                },
                slice::show_time(length)
            ),
        ));
    }
    Ok(())
}

/// A builder that notes whether the format gave it tree nodes (an
/// indented trace, which only the filtered second pass cuts).
pub(super) struct Watched {
    pub builder: calltree::Builder,
    pub nodes: bool,
}

impl EventSink for Watched {
    fn events(&mut self, events: &[Event]) {
        self.builder.events(events)
    }
    fn chunk_work(&self) -> Option<Box<dyn ChunkWork>> {
        self.builder.chunk_work()
    }
    fn merge(&mut self, summary: Box<dyn std::any::Any + Send>, funcs: &[FuncId], threads: &[u32]) {
        self.builder.merge(summary, funcs, threads)
    }
}

impl NodeSink for Watched {
    fn node(&mut self, node: NodeRecord) {
        self.nodes = true;
        self.builder.node(node)
    }
    fn scale_times(&mut self, factor: u64) {
        self.builder.scale_times(factor)
    }
    fn clear_nodes(&mut self) {
        self.builder.clear_nodes()
    }
    fn takes_node_chunks(&self) -> bool {
        self.builder.takes_node_chunks()
    }
    fn node_chunk(&mut self, chunk: &NodeChunk) {
        self.nodes = true;
        self.builder.node_chunk(chunk)
    }
}
