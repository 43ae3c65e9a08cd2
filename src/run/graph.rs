//! `calltrace graph`: the call graph as DOT. By default the hot graph
//! (gprof2dot style: total and self shares, temperature colours, pruned to
//! what matters); `--style plain` draws pvtrace's graph. With no options it
//! reads `trace.txt` and writes `graph.dot`, like `pvtrace ./app`.

use std::path::PathBuf;

use super::Outcome;
use crate::abstraction::Share;
use crate::calltree::hot::{self, PruneOptions};
use crate::calltree::{CallGraph, View};
use crate::emit;
use crate::emit::format::TimeUnit;
use crate::error::{Error, Result};
use crate::ingest::FuncId;
use crate::pipeline::{self, InputOptions};
use crate::symbols::FuncInfo;

/// How the graph is drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Style {
    /// gprof2dot-style hot graph. Default.
    #[default]
    Hot,
    /// pvtrace's plain drawing: names and call counts.
    Plain,
}

/// Options of `calltrace graph`.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphOptions {
    /// Trace, binary and parsing options.
    pub(crate) input: InputOptions,
    /// Where the DOT goes, `-` for stdout. Default is `graph.dot`.
    pub(crate) output: PathBuf,
    /// Where the edge CSV goes, if anywhere. Default is none.
    pub(crate) csv: Option<PathBuf>,
    /// Hot or plain drawing. Default is hot.
    pub(crate) style: Style,
    /// Leave out functions under this share of the run. Default is
    /// [`DEFAULT_MIN_TOTAL`], 0.5%.
    pub(crate) min_total: Share,
    /// Leave out edges under this share of the run. Default is
    /// [`DEFAULT_MIN_EDGE`], 0.1%.
    pub(crate) min_edge: Share,
    /// Keep only the paths through this function. Default is none.
    pub(crate) focus: Option<String>,
    /// Keep only this function and what it calls. Default is none.
    pub(crate) root: Option<String>,
    /// Keep only functions at most this many calls below the start. Default is none.
    pub(crate) depth: Option<u32>,
    /// Unit of the times in the labels. Default is auto.
    pub(crate) time_unit: TimeUnit,
}

impl Default for GraphOptions {
    fn default() -> Self {
        GraphOptions {
            input: InputOptions::default(),
            output: PathBuf::from("graph.dot"),
            csv: None,
            style: Style::Hot,
            min_total: DEFAULT_MIN_TOTAL,
            min_edge: DEFAULT_MIN_EDGE,
            focus: None,
            root: None,
            depth: None,
            time_unit: TimeUnit::Auto,
        }
    }
}

/// `--min-total`'s default: functions under 0.5% of the run are left out.
pub const DEFAULT_MIN_TOTAL: Share = Share::constant(0.005);
/// `--min-edge`'s default: edges under 0.1% of the run are left out.
pub const DEFAULT_MIN_EDGE: Share = Share::constant(0.001);

/// Above this many drawn functions, say how to prune.
pub const PRUNE_HINT_NODES: usize = 500;

/// Runs `calltrace graph`.
pub fn run(opts: &GraphOptions) -> Result<Outcome> {
    // The calling-context tree yields the same edges as the call tree, in
    // memory bounded by distinct call paths.
    // Per-call times for the hot graph's tooltips (min, p99, max), per
    // function as they are shown: one per calling context would cost
    // time and memory by distinct call paths.
    let mut input = opts.input.clone();
    input.per_call = (opts.style == Style::Hot).then_some(crate::calltree::Keep::TotalByFunction);
    let loaded = pipeline::load(&input, View::Contexts)?;
    super::warn_now(&loaded.warnings);
    let (tree, funcs, names) = (&loaded.built.tree, &loaded.built.funcs, &loaded.names);
    let cg = CallGraph::from_tree(tree, funcs);
    let (dot, drawn) = match opts.style {
        Style::Plain => {
            let counts = (cg.graph.node_count(), cg.graph.edge_count());
            (emit::graph::dot::call_graph(&cg, names), counts)
        }
        Style::Hot => {
            let prune = PruneOptions {
                min_total: opts.min_total.percent(),
                min_edge: opts.min_edge.percent(),
                focus: find(names, "--focus", opts.focus.as_deref())?,
                root: find(names, "--root", opts.root.as_deref())?,
                depth: opts.depth,
            };
            let stats = hot::func_stats(tree, funcs);
            let tops = hot::top_level(tree, funcs);
            let pruned = hot::prune(&cg, &stats, tree.total(0), &tops, &prune);
            let dists = crate::calltree::dist::per_function(tree, funcs.len());
            let h = emit::graph::dot::Hot {
                cg: &cg,
                stats: &stats,
                pruned: &pruned,
                whole: tree.total(0),
                shown: opts.time_unit,
                dists: &dists,
                threads: &loaded.built.meta.threads,
            };
            (emit::graph::dot::hot_graph(&h, names), pruned.counts())
        }
    };
    let csv = match &opts.csv {
        Some(_) => Some(emit::graph::edges_csv::edges(&cg, names, tree.decimals)?),
        None => None,
    };
    emit::write_atomic(&opts.output, &dot)?;
    let mut notes = Vec::new();
    if opts.output.as_os_str() != "-" {
        notes.push(wrote(opts, &cg, drawn));
    }
    if drawn.0 > PRUNE_HINT_NODES {
        notes.push(format!(
            "{} functions drawn: dot is slow and the picture hard to read; prune with --min-total 2%, --focus FUNC, --root FUNC or --max-depth N",
            drawn.0
        ));
    }
    notes.extend(super::long_names_hint(
        opts.input.symbols.demangle,
        cg.graph.node_weights().copied(),
        names,
        "the trace's function names",
    ));
    if let (Some(path), Some(bytes)) = (&opts.csv, csv) {
        emit::write_atomic(path, &bytes)?;
        if path.as_os_str() != "-" {
            notes.push(format!("wrote {}", path.display()));
        }
    }
    Ok(Outcome {
        warnings: Vec::new(),
        notes,
    })
}

/// `wrote graph.dot (12 functions, 16 edges)`, saying what pruning left out.
fn wrote(opts: &GraphOptions, cg: &CallGraph, (nodes, edges): (usize, usize)) -> String {
    let all = cg.graph.node_count();
    let left_out = match all - nodes {
        0 => String::new(),
        n => format!(
            "; {n} of {} left out",
            super::counted(all, "function", "functions")
        ),
    };
    format!(
        "wrote {} ({}, {}{left_out})",
        opts.output.display(),
        super::counted(nodes, "function", "functions"),
        super::counted(edges, "edge", "edges")
    )
}

/// The function named `name` (for `flag`), or of which `name` is the
/// short form of exactly one (see [`short_matches`]), as its id.
pub(crate) fn find(names: &[FuncInfo], flag: &str, name: Option<&str>) -> Result<Option<FuncId>> {
    let Some(name) = name else {
        return Ok(None);
    };
    if let Some(id) = names.iter().position(|i| i.name == name) {
        return Ok(Some(id as FuncId));
    }
    // A short form of exactly one name is that name.
    let matches = short_matches(names, name);
    if let [id] = matches[..] {
        return Ok(Some(id as FuncId));
    }
    let near = near_names(names, &matches);
    let hint = match near.is_empty() {
        true => String::new(),
        false => format!("; did you mean {}?", near.join(", ")),
    };
    Err(Error::usage(
        flag,
        format!("expected the name of a function in the trace, found `{name}`{hint}"),
    ))
}

/// The ids of the functions whose name `name` is a short form of: the
/// name without its file suffix, parameters and templates (`--demangle
/// simple`), or the end of that after a `::` (`LZ4_read32` for
/// `LZ4_read32 [lz4.c]`, `init0` for `hb_ot_shape_plan_t::init0(...)`).
fn short_matches(names: &[FuncInfo], name: &str) -> Vec<usize> {
    // A namesake's suffix, if given, must be the function's own
    // (`BeginPtr [dfa.cc]` for `re2::BeginPtr(re2::StringPiece const&) [dfa.cc]`).
    let want = namesake_suffix(name);
    let base = want.map_or(name, |s| &name[..name.len() - s.len()]);
    let (own, scoped) = (crate::symbols::short_form(base), format!("::{base}"));
    let is_short_for = |full: &str| {
        let short = crate::symbols::short_form(full);
        (short == base || short.ends_with(&scoped) || short == own)
            && (want.is_none() || namesake_suffix(full) == want)
    };
    (0..names.len())
        .filter(|&i| is_short_for(&names[i].name))
        .collect()
}

/// The ` [a.c]` that tells a name's namesakes apart, if it has one.
fn namesake_suffix(name: &str) -> Option<&str> {
    name.rfind(" [")
        .filter(|_| name.ends_with(']'))
        .map(|i| &name[i..])
}

/// The names of the functions `matches` (see [`short_matches`]), quoted
/// for the shell, at most five, sorted.
fn near_names(names: &[FuncInfo], matches: &[usize]) -> Vec<String> {
    const SHOWN: usize = 5;
    let mut near: Vec<&str> = matches.iter().map(|&i| names[i].name.as_str()).collect();
    near.sort_unstable();
    near.dedup();
    let more = near.len().saturating_sub(SHOWN);
    let mut shown: Vec<String> = near
        .iter()
        .take(SHOWN)
        .map(|n| format!("'{}'", n.replace('\'', "'\\''")))
        .collect();
    if more > 0 {
        shown.push(format!("and {more} more"));
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_shares_are_the_pruning_defaults() {
        let prune = PruneOptions::default();
        assert_eq!(DEFAULT_MIN_TOTAL.percent(), prune.min_total);
        assert_eq!(DEFAULT_MIN_EDGE.percent(), prune.min_edge);
    }

    fn names(list: &[&str]) -> Vec<FuncInfo> {
        list.iter()
            .map(|n| FuncInfo {
                name: n.to_string(),
                ..FuncInfo::default()
            })
            .collect()
    }

    #[test]
    fn a_function_is_found_by_its_name_or_its_one_short_form() {
        let names = names(&[
            "main",
            "read32 [a.c]",
            "read32 [b.c]",
            "ns::Plan::init(int, char const*)",
            "it's",
            "re2::BeginPtr(re2::StringPiece const&) [dfa.cc]",
            "re2::BeginPtr(re2::StringPiece const&) [nfa.cc]",
        ]);
        let find = |name| find(&names, "--focus", Some(name));
        assert_eq!(find("main").unwrap(), Some(0));
        assert_eq!(find("read32 [b.c]").unwrap(), Some(2));
        assert_eq!(find("ns::Plan::init").unwrap(), Some(3));
        assert_eq!(find("Plan::init").unwrap(), Some(3));
        assert_eq!(find("init").unwrap(), Some(3));
        let err = find("read32").unwrap_err().to_string();
        assert!(
            err.contains("found `read32`; did you mean 'read32 [a.c]', 'read32 [b.c]'?"),
            "{err}"
        );
        let err = find("nothing").unwrap_err().to_string();
        assert!(err.ends_with("found `nothing`"), "{err}");
        assert_eq!(find("it's").unwrap(), Some(4));
        // A short form with the namesake's suffix.
        assert_eq!(find("BeginPtr [nfa.cc]").unwrap(), Some(6));
        assert_eq!(find("re2::BeginPtr [dfa.cc]").unwrap(), Some(5));
        assert!(find("BeginPtr [x.cc]").is_err());
        assert!(find("BeginPtr").is_err(), "two of them");
        assert!(!find("ain").unwrap_err().to_string().contains("did you"));
        assert_eq!(super::find(&names, "--root", None).unwrap(), None);
    }

    #[test]
    fn many_near_names_are_cut_to_five_quoted_for_the_shell() {
        let list: Vec<String> = (0..8).map(|i| format!("f [u{i}.c]")).collect();
        let mut with_quote = list.clone();
        with_quote.push("f [it's.c]".to_string());
        let refs: Vec<&str> = with_quote.iter().map(String::as_str).collect();
        let names = names(&refs);
        let near = near_names(&names, &short_matches(&names, "f"));
        assert_eq!(near.len(), 6, "{near:?}");
        assert_eq!(near[0], "'f [it'\\''s.c]'");
        assert_eq!(near[5], "and 4 more");
    }
}
