//! A filtered read in one pass: the whole trace built into a
//! calling-context tree on every core (the chunk summaries of an
//! unfiltered read), named, the filter resolved against the functions and
//! threads it found, and the tree cut down ([`calltree::filter`]) to what
//! a second pass through the filter builds. No naming pass comes first:
//! the names come with the build. Where the cut refuses (a time range,
//! the calls view, repairs or an order the tree does not tell: see
//! [`calltree::filter`]; an indented trace) the trace is read the two-pass way
//! ([`super::scan`], [`super::scanned::Scanned::build`]), which gives the
//! same tree; after a refused cut only its second pass is left, since the
//! read found what the first would.
//!
//! `--time-range` keeps calls by when they start, which a built tree does
//! not hold, so it keeps the naming first pass (which finds where the
//! range counts from); but alone or with `--tid`, its second pass builds
//! on every core too, the window applied as the chunks are summarised
//! ([`Scanned::build_windowed`]). With `--function` or `--exclude` it
//! reads the two-pass way.
//!
//! `CALLTRACE_FILTER_PASSES=2` in the environment forces the two-pass
//! way; the tests compare the two with it.

use super::names::{self, Named};
use super::opened::{Opened, Reads};
use super::scanned::{Scanned, Watched, finish_filtered, keep_threads, scan_opened, slice_of};
use super::{InputOptions, Loaded};
use crate::calltree::filter;
use crate::calltree::{self, Built, Keep, View};
use crate::error::Result;
use crate::ingest::slice::Slice;
use crate::ingest::{FuncTable, TraceMeta};

/// Environment variable that forces filtered reads to take two passes.
const PASSES_VAR: &str = "CALLTRACE_FILTER_PASSES";

/// The tree in `view` of what the filter of `opts` keeps, named: in one
/// pass where the cut gives it, else in two.
pub(super) fn load(opts: &InputOptions, view: View) -> Result<Loaded> {
    let opened = Opened::open(opts, Reads::Again)?;
    let f = &opts.filter;
    let contexts = view == View::Contexts && !two_passes_forced();
    // A time range, alone or with other filters: built through the window.
    if contexts && f.range.is_some() {
        return scan_opened(opened)?.build_windowed(view);
    }
    let one = contexts && f.range.is_none();
    if !one {
        return scan_opened(opened)?.build(view);
    }
    match one_pass(&opened, view)? {
        OnePass::Cut(loaded) => Ok(loaded),
        // What the first pass would find is known: only the second is left.
        OnePass::Refused(r) => {
            Scanned::after_build(opened, r.funcs, r.meta, r.named, r.slice).build(view)
        }
    }
}

fn two_passes_forced() -> bool {
    std::env::var_os(PASSES_VAR).is_some_and(|v| v == "2")
}

/// What a read of the whole trace came to.
enum OnePass {
    /// The tree cut down.
    Cut(Loaded),
    /// The cut refused, or the trace is an indented one (which only the
    /// filtered read cuts): what the read found, for a second pass.
    Refused(Found),
}

/// What a naming first pass finds, found by a read that built the tree.
struct Found {
    funcs: FuncTable,
    meta: TraceMeta,
    named: Named,
    slice: Slice,
}

/// The whole trace built, named, and cut down to the filter.
fn one_pass(opened: &Opened<'_>, view: View) -> Result<OnePass> {
    let opts = opened.opts;
    // Per-function distributions cannot lose the calls a cut drops: keep
    // them per context, cut, then merge them per function (one read, even
    // when a function runs both inside and outside what is cut).
    let by_function = opts.per_call == Some(Keep::TotalByFunction);
    let keep = match by_function {
        true => Some(Keep::Total),
        false => opts.per_call,
    };
    let (mut full, base, nodes) = read_whole(opened, view, keep)?;
    let named = names::name(opts, &base, &mut full.meta)?;
    let slice = slice_of(opts, &base, &named.names, &full.meta, None)?;
    let cut = match nodes {
        true => None,
        false => filter::cut(&full, &base, &slice).ok().map(|mut cut| {
            if by_function {
                cut.dists_by_function();
            }
            cut
        }),
    };
    let Some(cut) = cut else {
        let (funcs, meta) = (base, full.meta);
        return Ok(OnePass::Refused(Found {
            funcs,
            meta,
            named,
            slice,
        }));
    };
    let mut meta = full.meta;
    keep_threads(&mut meta, &cut.threads);
    let built = Built {
        tree: cut.tree,
        funcs: cut.funcs,
        meta,
        repairs: cut.repairs,
    };
    Ok(OnePass::Cut(finish_filtered(built, named, view)))
}

/// The whole trace in `view`, keeping `per_call`, with its functions
/// before the tree added its threads', and whether it is an indented trace.
fn read_whole(
    opened: &Opened<'_>,
    view: View,
    per_call: Option<Keep>,
) -> Result<(Built, FuncTable, bool)> {
    let mut funcs = FuncTable::default();
    let mut watched = Watched {
        builder: calltree::Builder::for_view(view, per_call),
        nodes: false,
    };
    let meta: TraceMeta = opened.read("reading", &mut funcs, &mut watched)?;
    let base = funcs.clone();
    Ok((watched.builder.finish(funcs, meta), base, watched.nodes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::slice::Filter;
    use crate::symbols::FuncPattern;

    /// `tests/data/CASE/trace.txt` read with `filter` (`--tid` values,
    /// `--function` and `--exclude` patterns).
    fn opts(case: &str, tids: &[&str], function: &[&str], exclude: &[&str]) -> InputOptions {
        let trace = [env!("CARGO_MANIFEST_DIR"), "tests/data", case, "trace.txt"];
        opts_at(trace.iter().collect(), tids, function, exclude)
    }

    /// The trace at `trace` read with the filter.
    fn opts_at(
        trace: std::path::PathBuf,
        tids: &[&str],
        function: &[&str],
        exclude: &[&str],
    ) -> InputOptions {
        let patterns = |p: &[&str]| p.iter().map(|p| FuncPattern::parse(p).unwrap()).collect();
        InputOptions {
            trace,
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

    /// The two-pass read, without the ranks the builder gave its nodes
    /// (no part of the tree shown).
    fn two_passes(opts: &InputOptions) -> Loaded {
        let mut want = scan_opened(Opened::open(opts, Reads::Again).unwrap())
            .unwrap()
            .build(View::Contexts)
            .unwrap();
        want.built.tree.created = Vec::new();
        want.built.tree.open_at_end = Vec::new();
        want
    }

    /// The one-pass read, None where it refused.
    fn one(opts: &InputOptions) -> Option<Loaded> {
        let opened = Opened::open(opts, Reads::Again).unwrap();
        match one_pass(&opened, View::Contexts).unwrap() {
            OnePass::Cut(loaded) => Some(loaded),
            _ => None,
        }
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
            let want = two_passes(&opts);
            assert_eq!(got.built.tree, want.built.tree, "{:?}", opts.filter);
            assert_eq!(got.built.funcs.keys(), want.built.funcs.keys());
            assert_eq!(got.built.meta.threads, want.built.meta.threads);
            assert_eq!(got.built.repairs, want.built.repairs);
            assert_eq!(got.warnings, want.warnings);
            let names = |l: &Loaded| l.names.iter().map(|n| n.name.clone()).collect::<Vec<_>>();
            assert_eq!(names(&got), names(&want));
        }
    }

    /// A timed trace the cut refuses (b is unwound) whose earliest event
    /// (v, excluded) is not its second thread's first: what start times
    /// count from is found by the second pass alone.
    const UNWOUND: &str = "E main 10 1\nE a 20 1\nE b 30 1\nX a 40 1\nE w 9 2\nX w 12 2\n\
                           E v 2 2\nX v 4 2\nE a 45 1\nX a 60 1\nX main 70 1\n";

    #[test]
    fn a_refused_cut_reads_only_the_second_pass_and_gives_its_tree() {
        let dir = tempfile::tempdir().unwrap();
        let unwound = dir.path().join("unwound.txt");
        std::fs::write(&unwound, UNWOUND).unwrap();
        let repair = opts("repair", &[], &[], &["d"]);
        for opts in [repair, opts_at(unwound, &[], &[], &["v"])] {
            let opened = Opened::open(&opts, Reads::Again).unwrap();
            let OnePass::Refused(_) = one_pass(&opened, View::Contexts).unwrap() else {
                panic!("{} was cut", opts.trace.display());
            };
            let got = load(&opts, View::Contexts).unwrap();
            let want = two_passes(&opts);
            let mut got_tree = got.built.tree.clone();
            got_tree.created = Vec::new();
            got_tree.open_at_end = Vec::new();
            assert_eq!(got_tree, want.built.tree, "{}", opts.trace.display());
            assert_eq!(got.built.repairs, want.built.repairs);
            assert_eq!(got.warnings, want.warnings);
            assert!(got.warnings.iter().any(|w| w.contains("repaired")));
        }
    }

    #[test]
    fn a_time_range_alone_or_with_threads_is_built_on_every_core_as_the_two_passes_build_it() {
        // Two threads, each with calls before, in and after the window; a
        // call still open at its end, and one hidden caller whose callee
        // in the window hangs from the thread; `a` runs on both threads.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        let trace = "E main 0 1\nE a 10 1\nX a 20 1\nE w 25 2\nE b 30 1\nE c 35 2\n\
                     X c 50 2\nE a 55 1\nX a 70 1\nX b 90 1\nE d 95 2\nX d 99 2\n\
                     E a 100 2\nX a 110 2\nX w 120 2\nE a 130 1\nX a 140 1\nX main 150 1\n";
        std::fs::write(&path, trace).unwrap();
        // Every thread, then each alone (`--tid`: distributions then kept
        // per context and merged by function after the cut); thread 2
        // starts no call in the last window.
        let ranges = ["28ns..100ns", "..60ns", "32ns..", "40ns..60ns"];
        for (tids, ranges) in [
            (&[][..], &ranges[..]),
            (&["1"], &ranges),
            (&["2"], &ranges[..3]),
        ] {
            for range in ranges {
                let mut opts = opts_at(path.clone(), tids, &[], &[]);
                opts.filter.range = Some(range.parse().unwrap());
                let scanned = scan_opened(Opened::open(&opts, Reads::Again).unwrap()).unwrap();
                let got = scanned.windowed(View::Contexts).unwrap();
                let at = (range, tids);
                let got = got.unwrap_or_else(|| panic!("{at:?} was not built on every core"));
                let want = two_passes(&opts);
                let mut tree = got.tree;
                tree.created = Vec::new();
                tree.open_at_end = Vec::new();
                assert!(!tree.func_dist.is_empty(), "{at:?}");
                assert_eq!(tree, want.built.tree, "{at:?}");
                assert_eq!(got.meta.threads, want.built.meta.threads, "{at:?}");
                assert_eq!(got.repairs, want.built.repairs, "{at:?}");
            }
        }
        // Unwound frames depend on what is kept: left to the two passes.
        std::fs::write(&path, UNWOUND).unwrap();
        let mut opts = opts_at(path, &[], &[], &[]);
        opts.filter.range = Some("..50ns".parse().unwrap());
        let scanned = scan_opened(Opened::open(&opts, Reads::Again).unwrap()).unwrap();
        assert!(scanned.windowed(View::Contexts).unwrap().is_none());
    }

    #[test]
    fn an_indented_trace_gets_the_two_pass_answer() {
        let opts = opts("decimals", &[], &["funcA"], &[]);
        let got = load(&opts, View::Contexts).unwrap_err().to_string();
        let want = scan_opened(Opened::open(&opts, Reads::Again).unwrap())
            .unwrap()
            .build(View::Contexts)
            .unwrap_err()
            .to_string();
        assert_eq!(got, want);
        assert!(got.contains("is an indented tree"), "{got}");
    }
}
