//! The one entry point from a trace to its abstraction, shared by every
//! command that takes abstraction flags: pick the effective [`Options`]
//! (the recommended pipeline when no method is given), build the tree in
//! the view the pipeline needs (a contexts pipeline never builds the
//! one-node-per-call tree), assign modules, protect `--keep` functions, run
//! the passes, and prepare the drawing (identical paths once, chains
//! folded).

use super::chains::{self, Folded};
use super::modules::{ModuleSource, Modules};
use super::pass::Context;
use super::pipeline::{self, Options, Outcome, Parameters};
use super::share::Share;
use crate::calltree::{Tree, fold_paths};
use crate::error::Result;
use crate::ingest::FuncTable;
use crate::pipeline::{InputOptions, Loaded, load};
use crate::symbols::{FuncInfo, FuncPattern};

/// A trace and its abstraction.
#[derive(Debug)]
pub(crate) struct Abstraction {
    /// The loaded trace.
    pub loaded: Loaded,
    /// Every function's module.
    pub modules: Modules,
    /// The options that ran (the recommended ones when none were given).
    pub options: Options,
    /// Whether the recommended pipeline ran because no method was given.
    pub recommended: bool,
    /// The abstracted tree and its numbers.
    pub outcome: Outcome,
    /// Lines worth telling the user (stderr).
    pub notes: Vec<String>,
}

/// Loads `input` and abstracts it as `opts` asks. A modules value that
/// cannot be used (a table that cannot be read, `auto:file` without
/// source files) is an [`Error::Value`](crate::error::Error::Value): the
/// command names its flag.
pub(crate) fn abstract_trace(input: &InputOptions, opts: &Options) -> Result<Abstraction> {
    let recommended = opts.no_method();
    let options = if recommended {
        opts.recommended()
    } else {
        opts.clone()
    };
    let source = match &options.modules {
        Some(m) => ModuleSource::from_arg(m)?,
        None => ModuleSource::Single,
    };
    let mut loaded = load(input, options.view())?;
    let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
    let modules = source.assign(funcs, &loaded.names)?;
    let protected = protect(&options.keep, funcs, &loaded.names);
    let (mut notes, mut warnings) = (Vec::new(), Vec::new());
    if recommended {
        notes.push(describe_recommended(&options, &modules));
    }
    if let (ModuleSource::Table(_), Some(src)) = (&source, &options.modules)
        && modules.assigned() == 0
    {
        warnings.push(format!(
            "--modules {src}: no function of the trace is in the table, so all are one module, `(unassigned)`, and merging folds each top-level call's whole subtree into it"
        ));
    }
    if !options.keep.is_empty() && !protected.contains(&true) {
        warnings.push(format!(
            "--keep {}: no function matches",
            options
                .keep
                .iter()
                .map(FuncPattern::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let cx = Context {
        funcs,
        modules: &modules,
        protected: &protected,
    };
    let params = parameters(&options, &modules, recommended);
    let outcome = pipeline::run(tree, &cx, &options.passes(), params);
    if let Some(n) = options.max_nodes.filter(|&n| outcome.stats.nodes_after > n) {
        notes.push(format!(
            "--keep needs {} nodes, more than --max-nodes {n}: the kept functions win",
            outcome.stats.nodes_after
        ));
    }
    loaded.warnings.extend(warnings);
    Ok(Abstraction {
        modules,
        options,
        recommended,
        outcome,
        notes,
        loaded,
    })
}

impl Abstraction {
    /// The tree to draw: identical call paths once, chains folded when asked.
    pub(crate) fn drawing(&self) -> Folded {
        drawing(&self.outcome.tree, &self.loaded.built.funcs, &self.options)
    }
}

/// The drawing steps after the passes, for the effective options `o`
/// (`abstract` and `view` both draw through here): identical call paths
/// once, then chains folded when `o.chains` asks.
pub(crate) fn drawing(tree: &Tree, funcs: &FuncTable, o: &Options) -> Folded {
    let folded;
    let paths = if tree.has_call_counts() {
        tree
    } else {
        folded = fold_paths(tree, funcs);
        &folded
    };
    let min_self = if o.chains == Some(true) {
        o.chain_min_self(paths.total(0))
    } else {
        0
    };
    chains::fold_chains(paths, funcs, min_self)
}

fn describe_recommended(o: &Options, m: &Modules) -> String {
    let modules = match (&m.picked, &o.modules) {
        (Some(p), _) => format!("modules: auto picked {p}"),
        (None, Some(src)) => format!("modules from {src}"),
        (None, None) => "one module".into(),
    };
    let chains = match o.chains {
        Some(false) => "every node of a chain drawn (--no-fold-chains)",
        _ => "chains drawn as one node",
    };
    format!(
        "no method given: using the recommended pipeline: --view {}, --merge-modules ({modules}), --fold-recursion, --min-total {}, {chains}",
        o.view().name(),
        pipeline::percent(
            o.min_total.unwrap_or(pipeline::RECOMMENDED_MIN_TOTAL).get(),
            1
        )
    )
}

fn parameters(o: &Options, m: &Modules, recommended: bool) -> Parameters {
    let modules = match (&o.modules, &m.picked) {
        (Some(_), Some(p)) => format!("auto: picked {p}"),
        (Some(src), None) => src.to_string(),
        (None, _) => "(one module)".into(),
    };
    Parameters {
        view: o.view().name(),
        modules,
        merge: o.merge,
        fold_recursion: o.fold_recursion,
        threshold: o.threshold.map(Share::get),
        min_total: o.min_total.map(Share::get),
        max_nodes: o.max_nodes,
        keep: o.keep.iter().map(|p| p.as_str().to_string()).collect(),
        chains: o.chains == Some(true),
        recommended,
    }
}

/// `protected[f]` for every function one of the `--keep` patterns matches.
pub(crate) fn protect(keep: &[FuncPattern], funcs: &FuncTable, names: &[FuncInfo]) -> Vec<bool> {
    FuncPattern::mark(keep, funcs, names).0
}
