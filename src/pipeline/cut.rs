//! A filtered read in one pass: the whole trace built into a
//! calling-context tree on every core (the chunk summaries of an
//! unfiltered read), named, the filter resolved against the functions and
//! threads it found, and the tree cut down ([`calltree::filter`]) to what
//! a second pass through the filter builds. No naming pass comes first:
//! the names come with the build. Where the cut refuses (a time range,
//! the calls view, an indented trace, repairs or an order the tree does
//! not tell: see [`calltree::filter`]) the trace is read the two-pass way
//! ([`super::scan`], [`super::scanned::Scanned::build`]), which gives the
//! same tree.
//!
//! `CALLTRACE_FILTER_PASSES=2` in the environment forces the two-pass
//! way; the tests compare the two with it.

use super::names::{self, Named};
use super::opened::{Opened, Reads};
use super::scanned::{finish_filtered, keep_threads, scan_opened, slice_of};
use super::{InputOptions, Loaded};
use crate::calltree::filter::{self, Refused};
use crate::calltree::{self, Built, Keep, View};
use crate::error::Result;
use crate::ingest::slice::Slice;
use crate::ingest::{
    ChunkWork, Event, EventSink, FuncId, FuncTable, NodeChunk, NodeRecord, NodeSink, TraceMeta,
};

/// Environment variable that forces filtered reads to take two passes.
const PASSES_VAR: &str = "CALLTRACE_FILTER_PASSES";

/// The tree in `view` of what the filter of `opts` keeps, named: in one
/// pass where the cut gives it, else in two.
pub(super) fn load(opts: &InputOptions, view: View) -> Result<Loaded> {
    let opened = Opened::open(opts, Reads::Again)?;
    let one = view == View::Contexts && opts.filter.range.is_none() && !two_passes_forced();
    if one && let Some(loaded) = one_pass(&opened, view)? {
        return Ok(loaded);
    }
    scan_opened(opened)?.build(view)
}

fn two_passes_forced() -> bool {
    std::env::var_os(PASSES_VAR).is_some_and(|v| v == "2")
}

/// The whole trace built and cut; None when the cut refused or the trace
/// is an indented one.
fn one_pass(opened: &Opened<'_>, view: View) -> Result<Option<Loaded>> {
    let opts = opened.opts;
    let Some((mut full, base)) = read_whole(opened, view, opts.per_call)? else {
        return Ok(None);
    };
    let named = names::name(opts, &base, &mut full.meta)?;
    let slice = slice_of(opts, &base, &named.names, &full.meta, None)?;
    let (cut, full) = match filter::cut(&full, &base, &slice) {
        Ok(cut) => (cut, full),
        // The calls of a function are partly cut away: cut a build that
        // keeps distributions per context, then merge them per function.
        Err(Refused::MixedFunction) => match per_context(opened, view, &base, &named, &slice)? {
            Some(both) => both,
            None => return Ok(None),
        },
        Err(_) => return Ok(None),
    };
    let mut meta = full.meta;
    keep_threads(&mut meta, &cut.threads);
    let built = Built {
        tree: cut.tree,
        funcs: cut.funcs,
        meta,
        repairs: cut.repairs,
    };
    Ok(Some(finish_filtered(built, named, view)))
}

/// The cut of a build keeping per-context distributions, merged per
/// function, and that build.
fn per_context(
    opened: &Opened<'_>,
    view: View,
    base: &FuncTable,
    named: &Named,
    slice: &Slice,
) -> Result<Option<(filter::Cut, Built)>> {
    let Some((mut full, _)) = read_whole(opened, view, Some(Keep::Total))? else {
        return Ok(None);
    };
    let names = &named.names;
    full.meta
        .name_threads_by_entry(|f| names.get(f as usize).map(|n| n.name.as_str()));
    Ok(filter::cut(&full, base, slice).ok().map(|mut cut| {
        cut.dists_by_function();
        (cut, full)
    }))
}

/// The whole trace in `view`, keeping `per_call`, with its functions
/// before the tree added its threads'; None for an indented trace.
fn read_whole(
    opened: &Opened<'_>,
    view: View,
    per_call: Option<Keep>,
) -> Result<Option<(Built, FuncTable)>> {
    let mut funcs = FuncTable::default();
    let mut watched = Watched {
        builder: calltree::Builder::for_view(view, per_call),
        nodes: false,
    };
    let meta: TraceMeta = opened.read("reading", &mut funcs, &mut watched)?;
    if watched.nodes {
        return Ok(None);
    }
    let base = funcs.clone();
    Ok(Some((watched.builder.finish(funcs, meta), base)))
}

/// A builder that notes whether the format gave it tree nodes (an
/// indented trace, which only the two-pass read filters).
struct Watched {
    builder: calltree::Builder,
    nodes: bool,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::slice::Filter;
    use crate::symbols::FuncPattern;

    /// `tests/data/CASE/trace.txt` read with `filter` (`--tid` values,
    /// `--function` and `--exclude` patterns).
    fn opts(case: &str, tids: &[&str], function: &[&str], exclude: &[&str]) -> InputOptions {
        let patterns = |p: &[&str]| p.iter().map(|p| FuncPattern::parse(p).unwrap()).collect();
        InputOptions {
            trace: [env!("CARGO_MANIFEST_DIR"), "tests/data", case, "trace.txt"]
                .iter()
                .collect(),
            quiet: true,
            per_call: Some(Keep::TotalByFunction),
            filter: Filter {
                tids: tids.iter().map(|t| t.to_string()).collect(),
                range: None,
                function: patterns(function),
                exclude: patterns(exclude),
            },
            ..InputOptions::default()
        }
    }

    /// The one-pass read, None where it refused.
    fn one(opts: &InputOptions) -> Option<Loaded> {
        let opened = Opened::open(opts, Reads::Again).unwrap();
        one_pass(&opened, View::Contexts).unwrap()
    }

    #[test]
    fn usual_filters_take_one_pass_and_give_the_two_pass_tree() {
        let cases: [(&[&str], &[&str], &[&str]); 6] = [
            (&[], &[], &["fib"]),
            (&["2"], &[], &[]),
            (&["1"], &["fib"], &["operator*"]),
            (&["2"], &["path*"], &[]),
            // path\to\leaf from two callers on thread 1: merged.
            (&["1"], &["path*"], &[]),
            (&["1", "2"], &[], &["parse*", "worker"]),
        ];
        for (tids, function, exclude) in cases {
            let opts = opts("symbolic", tids, function, exclude);
            let got =
                one(&opts).unwrap_or_else(|| panic!("refused {tids:?} {function:?} {exclude:?}"));
            let mut want = scan_opened(Opened::open(&opts, Reads::Again).unwrap())
                .unwrap()
                .build(View::Contexts)
                .unwrap();
            // How the builder ranked its nodes is no part of the tree shown.
            want.built.tree.created = Vec::new();
            want.built.tree.open_at_end = Vec::new();
            assert_eq!(got.built.tree, want.built.tree, "{:?}", opts.filter);
            assert_eq!(got.built.funcs.keys(), want.built.funcs.keys());
            assert_eq!(got.built.meta.threads, want.built.meta.threads);
            assert_eq!(got.built.repairs, want.built.repairs);
            assert_eq!(got.warnings, want.warnings);
            let names = |l: &Loaded| l.names.iter().map(|n| n.name.clone()).collect::<Vec<_>>();
            assert_eq!(names(&got), names(&want));
        }
    }

    #[test]
    fn a_repaired_trace_is_left_to_the_two_passes() {
        assert!(one(&opts("repair", &[], &[], &["d"])).is_none());
        let two = load(&opts("repair", &[], &[], &["d"]), View::Contexts).unwrap();
        assert!(two.warnings.iter().any(|w| w.contains("still open")));
    }
}
