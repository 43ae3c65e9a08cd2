//! `calltrace abstract`: abstracts a trace's call tree with the passes the
//! flags ask for (the paper's merging and threshold methods, recursion
//! folding, the whole-trace threshold, the node budget), or with the
//! recommended readable pipeline when no method is given. Prints a one-line
//! summary; draws the result as DOT (`abstract.dot` unless another output
//! is asked for), optionally writes it as indented text that `calltrace`
//! reads back, and records the numbers as JSON.

use std::path::PathBuf;

use super::Outcome;
use super::files::{CommandFiles, Files};
use crate::abstraction::Options;
use crate::abstraction::pass::Param;
use crate::abstraction::pipeline::{Stats, percent};
use crate::abstraction::summary;
use crate::abstraction::trace::{Abstraction, abstract_trace};
use crate::calltree::{Keep, Stat};
use crate::emit;
use crate::emit::format::TimeUnit;
use crate::error::{Error, Result};
use crate::pipeline::InputOptions;

/// Where the DOT drawing goes when no output is named, as `graph` writes
/// `graph.dot`.
pub const DEFAULT_DOT: &str = "abstract.dot";

/// Options of `calltrace abstract`.
#[derive(Debug, Clone, PartialEq)]
pub struct AbstractOptions {
    /// Trace, binary and parsing options.
    pub(crate) input: InputOptions,
    /// What to abstract and how. Default is no method: the recommended pipeline.
    pub(crate) abstraction: Options,
    /// DOT of the abstracted tree. Default is [`DEFAULT_DOT`].
    pub(crate) dot: Option<PathBuf>,
    /// Indented text of the abstracted tree. Default is none.
    pub(crate) tree_out: Option<PathBuf>,
    /// JSON file of the numbers. Default is none.
    pub(crate) stats: Option<PathBuf>,
    /// Deepest call written to `tree_out`. Default is none (every call).
    pub(crate) max_depth: Option<u32>,
    /// Unit of the times in `tree_out`. Default is auto (per number).
    pub(crate) time_unit: TimeUnit,
    /// Per-call numbers after each line of `tree_out` (`--show`). Default is none.
    pub(crate) show: Vec<Stat>,
}

impl Default for AbstractOptions {
    fn default() -> Self {
        AbstractOptions {
            input: InputOptions::default(),
            abstraction: Options::default(),
            dot: Some(PathBuf::from(DEFAULT_DOT)),
            tree_out: None,
            stats: None,
            max_depth: None,
            time_unit: TimeUnit::Auto,
            show: Vec::new(),
        }
    }
}

/// Runs `calltrace abstract`.
pub fn run(opts: &AbstractOptions) -> Result<Outcome> {
    let mut input = opts.input.clone();
    input.per_call = (!opts.show.is_empty() && opts.tree_out.is_some()).then_some(Keep::Total);
    let a = abstract_trace(&input, &opts.abstraction).map_err(|e| e.for_flag("--modules"))?;
    super::warn_now(&a.loaded.warnings);
    let mut notes = a.notes.clone();
    // The summary goes to stdout unless an output does: then it must not
    // mix with the DOT, tree or JSON there.
    if writes_stdout(opts) {
        notes.insert(0, line(&a));
    } else {
        emit::write_atomic("-".as_ref(), format!("{}\n", line(&a)).as_bytes())?;
    }
    if let Some(path) = &opts.tree_out {
        if let Some(w) = super::tree::show_warning(&opts.show, &a.outcome.tree) {
            super::warn_now(&[w]);
        }
        let write = emit::tree::Options {
            max_depth: opts.max_depth,
            time_unit: opts.time_unit,
            show: opts.show.clone(),
            ..emit::tree::Options::default()
        };
        emit::write_atomic_with(path, |w| {
            let (tree, names) = (&a.outcome.tree, &a.loaded.names);
            emit::tree::write_indented_with(tree, names, &write, w)
        })?;
        notes.push(format!("wrote {}", path.display()));
    }
    if let Some(path) = &opts.dot {
        notes.push(write_dot(&a, path, opts)?);
    }
    if opts.dot.is_some() || opts.tree_out.is_some() {
        let tree = &a.outcome.tree;
        notes.extend(super::long_names_hint(
            opts.input.symbols.demangle,
            (0..tree.len() as crate::calltree::NodeId).map(|n| tree.func(n)),
            &a.loaded.names,
            "the kept functions' names",
        ));
    }
    if let Some(path) = &opts.stats {
        emit::write_atomic(path, &stats_json(&a.outcome.stats)?)?;
        notes.push(format!("wrote {}", path.display()));
    }
    let warnings = opts
        .tree_out
        .as_ref()
        .and_then(|_| emit::tree::depth_warning(&a.outcome.tree, opts.max_depth))
        .into_iter()
        .collect();
    Ok(Outcome { warnings, notes })
}

/// Whether `-o`, `--tree-out` or `--stats` is `-` (stdout).
fn writes_stdout(opts: &AbstractOptions) -> bool {
    [&opts.dot, &opts.tree_out, &opts.stats]
        .iter()
        .any(|p| p.as_deref() == Some(std::path::Path::new("-")))
}

/// The summary line: the paper's methods alone keep their historical form.
fn line(a: &Abstraction) -> String {
    let form = match a.recommended || !a.options.paper_only() {
        true => summary::Form::Kept,
        false => summary::Form::Paper,
    };
    summary::line(&a.outcome.stats, form)
}

fn write_dot(a: &Abstraction, path: &std::path::Path, opts: &AbstractOptions) -> Result<String> {
    let drawn = a.drawing();
    let funcs = &a.loaded.built.funcs;
    let title = format!("{} of {}", describe_options(a), opts.input.trace.display());
    let dot = emit::graph::tree_dot::tree_dot_chains(
        &drawn.tree,
        funcs,
        &a.loaded.names,
        &a.modules,
        &title,
        &drawn.hidden,
    );
    emit::write_atomic(path, &dot)?;
    let chains = drawn.hidden.iter().filter(|h| !h.is_empty()).count();
    let chain_note = if chains > 0 {
        format!(
            ", {} drawn as one node",
            super::counted(chains, "chain", "chains")
        )
    } else {
        String::new()
    };
    Ok(format!(
        "wrote {} ({} drawn{chain_note})",
        path.display(),
        super::counted(drawn.tree.call_nodes(funcs), "node", "nodes")
    ))
}

/// E.g. `merge + threshold 90%` or `merge + fold-recursion + min-total 0.1%`.
fn describe_options(a: &Abstraction) -> String {
    let o = &a.options;
    if o.paper_only() {
        return summary::describe(o.merge, o.threshold);
    }
    let mut parts = Vec::new();
    for s in &a.outcome.stats.passes {
        match s.params.first() {
            Some((_, Param::Share(share))) => {
                parts.push(format!("{} {}", s.name, percent(share.get(), 1)));
            }
            Some((_, v)) => parts.push(format!("{} {v}", s.name)),
            None => parts.push(s.name.clone()),
        }
    }
    parts.join(" + ")
}

fn stats_json(s: &Stats) -> Result<Vec<u8>> {
    let mut v = serde_json::to_vec_pretty(s)
        .map_err(|e| Error::usage("--stats", format!("could not encode the statistics: {e}")))?;
    v.push(b'\n');
    Ok(v)
}

impl CommandFiles for AbstractOptions {
    fn files(&self) -> Result<Files> {
        let modules = self.abstraction.modules.as_ref();
        let inputs = super::files::inputs_of(
            [("--trace", self.input.trace.clone())],
            &self.input,
            modules,
        );
        let mut outputs: Vec<_> = self.dot.iter().map(|d| ("--output", d.clone())).collect();
        outputs.extend(self.tree_out.iter().map(|t| ("--tree-out", t.clone())));
        outputs.extend(self.stats.iter().map(|t| ("--stats", t.clone())));
        Ok(Files { inputs, outputs })
    }
}
