//! `calltrace graph`: the call graph as DOT. By default the hot graph
//! (gprof2dot style: total and self shares, temperature colours, pruned to
//! what matters); `--style plain` draws pvtrace's graph. With no options it
//! reads `trace.txt` and writes `graph.dot`, like `pvtrace ./app`.

use std::path::PathBuf;

use super::Outcome;
use crate::calltree::hot::{self, PruneOptions};
use crate::calltree::{CallGraph, View};
use crate::emit;
use crate::emit::text::TimeUnit;
use crate::error::{Error, Result};
use crate::ingest::FuncId;
use crate::pipeline::{self, InputOptions};
use crate::symbols::{Demangle, FuncInfo};

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
    pub input: InputOptions,
    /// Where the DOT goes, `-` for stdout. Default is `graph.dot`.
    pub output: PathBuf,
    /// Where the edge CSV goes, if anywhere. Default is none.
    pub csv: Option<PathBuf>,
    /// Hot or plain drawing. Default is hot.
    pub style: Style,
    /// Leave out functions under this % of the run. Default is 0.5.
    pub min_total: f64,
    /// Leave out edges under this % of the run. Default is 0.1.
    pub min_edge: f64,
    /// Keep only the paths through this function. Default is none.
    pub focus: Option<String>,
    /// Keep only this function and what it calls. Default is none.
    pub root: Option<String>,
    /// Keep only functions at most this many calls below the start. Default is none.
    pub depth: Option<u32>,
    /// Unit of the times in the labels. Default is auto.
    pub time_unit: TimeUnit,
}

impl Default for GraphOptions {
    fn default() -> Self {
        let prune = PruneOptions::default();
        GraphOptions {
            input: InputOptions::default(),
            output: PathBuf::from("graph.dot"),
            csv: None,
            style: Style::Hot,
            min_total: prune.min_total,
            min_edge: prune.min_edge,
            focus: None,
            root: None,
            depth: None,
            time_unit: TimeUnit::Auto,
        }
    }
}

/// Above this many drawn functions, say how to prune.
pub const PRUNE_HINT_NODES: usize = 500;

/// Runs `calltrace graph`.
pub fn run(opts: &GraphOptions) -> Result<Outcome> {
    // The calling-context tree yields the same edges as the call tree, in
    // memory bounded by distinct call paths.
    let loaded = pipeline::load(&opts.input, View::Contexts)?;
    let (tree, funcs, names) = (&loaded.built.tree, &loaded.built.funcs, &loaded.names);
    let cg = CallGraph::from_tree(tree, funcs);
    let (dot, drawn) = match opts.style {
        Style::Plain => {
            let counts = (cg.graph.node_count(), cg.graph.edge_count());
            (emit::dot::call_graph(&cg, names), counts)
        }
        Style::Hot => {
            let prune = PruneOptions {
                min_total: opts.min_total,
                min_edge: opts.min_edge,
                focus: find(names, "--focus", opts.focus.as_deref())?,
                root: find(names, "--root", opts.root.as_deref())?,
                depth: opts.depth,
            };
            let stats = hot::func_stats(tree, funcs);
            let tops = hot::top_level(tree, funcs);
            let pruned = hot::prune(&cg, &stats, tree.total(0), &tops, &prune);
            let h = emit::dot::Hot {
                cg: &cg,
                stats: &stats,
                pruned: &pruned,
                whole: tree.total(0),
                shown: opts.time_unit,
            };
            (emit::dot::hot_graph(&h, names), pruned.counts())
        }
    };
    let csv = match &opts.csv {
        Some(_) => Some(emit::edges_csv::edges(&cg, names, tree.decimals)?),
        None => None,
    };
    emit::write_atomic(&opts.output, &dot)?;
    let mut notes = Vec::new();
    if opts.output.as_os_str() != "-" {
        notes.push(wrote(opts, &cg, drawn));
    }
    if drawn.0 > PRUNE_HINT_NODES {
        notes.push(format!(
            "{} functions drawn: dot is slow and the picture hard to read; prune with --min-total 2, --focus FUNC, --root FUNC or --depth N",
            drawn.0
        ));
    }
    notes.extend(long_names_hint(opts, &cg, names));
    if let (Some(path), Some(bytes)) = (&opts.csv, csv) {
        emit::write_atomic(path, &bytes)?;
        if path.as_os_str() != "-" {
            notes.push(format!("wrote {}", path.display()));
        }
    }
    Ok(Outcome {
        warnings: loaded.warnings,
        notes,
    })
}

/// Names longer than this make boxes wider than a screen.
const LONG_NAME: usize = 100;

/// A hint to shorten C++ names when full ones make the graph too wide to
/// read (optimised C++ with the standard library: names of 100 to 300
/// characters, a picture several screens wide).
fn long_names_hint(opts: &GraphOptions, cg: &CallGraph, names: &[FuncInfo]) -> Option<String> {
    if opts.input.symbols.demangle != Demangle::Full {
        return None;
    }
    let long = |&&f: &&FuncId| {
        names
            .get(f as usize)
            .is_some_and(|i| i.name.len() > LONG_NAME)
    };
    let n = cg.graph.node_weights().filter(long).count();
    (n > 0).then(|| {
        format!(
            "{n} of the trace's function names are over {LONG_NAME} characters; --demangle simple draws them without templates and parameters"
        )
    })
}

/// `wrote graph.dot (12 functions, 16 edges)`, saying what pruning left out.
fn wrote(opts: &GraphOptions, cg: &CallGraph, (nodes, edges): (usize, usize)) -> String {
    let all = cg.graph.node_count();
    let left_out = match all - nodes {
        0 => String::new(),
        n => format!("; {n} of {all} functions left out"),
    };
    format!(
        "wrote {} ({nodes} functions, {edges} edges{left_out})",
        opts.output.display()
    )
}

/// The function named `name` (for `flag`), as its id.
fn find(names: &[FuncInfo], flag: &str, name: Option<&str>) -> Result<Option<FuncId>> {
    let Some(name) = name else {
        return Ok(None);
    };
    match names.iter().position(|i| i.name == name) {
        Some(id) => Ok(Some(id as FuncId)),
        None => Err(Error::usage(
            flag,
            format!("expected the name of a function in the trace, found `{name}`"),
        )),
    }
}
