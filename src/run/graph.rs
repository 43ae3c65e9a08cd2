//! `calltrace graph`: the call graph as DOT. By default the hot graph
//! (gprof2dot style: total and self shares, temperature colours, pruned to
//! what matters); `--style plain` draws pvtrace's graph. With no options it
//! reads `trace.txt` and writes `graph.dot`, like `pvtrace ./app`.

use std::path::PathBuf;

use super::Outcome;
use super::files::{CommandFiles, Files};
use crate::abstraction::Share;
use crate::calltree::hot::{self, Prune, PruneOptions};
use crate::calltree::{CallGraph, View};
use crate::emit;
use crate::emit::format::TimeUnit;
use crate::error::Result;
use crate::pipeline::{self, InputOptions};
use crate::symbols::FuncPattern;

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
    pub(crate) focus: Option<FuncPattern>,
    /// Keep only this function and what it calls. Default is none.
    pub(crate) root: Option<FuncPattern>,
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
pub const DEFAULT_MIN_TOTAL: Share = Share::constant(Prune::DEFAULT.min_total);
/// `--min-edge`'s default: edges under 0.1% of the run are left out.
pub const DEFAULT_MIN_EDGE: Share = Share::constant(Prune::DEFAULT.min_edge);

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
                shares: Prune {
                    min_total: opts.min_total.get(),
                    min_edge: opts.min_edge.get(),
                },
                focus: super::function(names, "--focus", opts.focus.as_ref())?,
                root: super::function(names, "--root", opts.root.as_ref())?,
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

impl CommandFiles for GraphOptions {
    fn files(&self) -> Result<Files> {
        let mut outputs = vec![("--output", self.output.clone())];
        outputs.extend(self.csv.iter().map(|c| ("--csv", c.clone())));
        Ok(Files {
            inputs: super::files::input_files(&self.input),
            outputs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_shares_are_the_pruning_defaults() {
        let prune = PruneOptions::default().shares;
        assert_eq!(DEFAULT_MIN_TOTAL.get(), prune.min_total);
        assert_eq!(DEFAULT_MIN_EDGE.get(), prune.min_edge);
    }
}
