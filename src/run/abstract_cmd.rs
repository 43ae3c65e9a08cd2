//! `calltrace abstract`: the abstraction paper's two methods on a trace's
//! call tree: same-module merging (`--merge-modules`), caller/callee
//! threshold elimination (`--threshold`), or merge then threshold. Prints a
//! one-line summary; optionally draws the result as DOT and writes it as
//! indented text that `calltrace` reads back.

use std::path::PathBuf;

use super::Outcome;
use crate::abstraction::{self, Method, ModuleSource, Summary};
use crate::calltree::{View, fold_paths};
use crate::emit;
use crate::error::Result;
use crate::pipeline::{self, InputOptions};

/// Options of `calltrace abstract`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AbstractOptions {
    /// Trace, binary and parsing options.
    pub input: InputOptions,
    /// `--modules` value: CSV path, `auto:file` or `auto:dir`. Default is one module.
    pub modules: Option<String>,
    /// Which methods to run. Default is none: threshold 0.9 is used then.
    pub method: Method,
    /// Tree view to abstract. Default is calls (one node per call, as in the paper).
    pub view: View,
    /// DOT of the abstracted tree. Default is none.
    pub dot: Option<PathBuf>,
    /// Indented text of the abstracted tree. Default is none.
    pub tree_out: Option<PathBuf>,
}

/// The paper's threshold, used when no method is chosen.
pub const DEFAULT_THRESHOLD: f64 = 0.9;

/// Runs `calltrace abstract`.
pub fn run(opts: &AbstractOptions) -> Result<Outcome> {
    let source = match &opts.modules {
        Some(m) => ModuleSource::from_arg(m)?,
        None => ModuleSource::Single,
    };
    let mut method = opts.method;
    let mut notes = Vec::new();
    if method.threshold.is_none() && !method.merge {
        method.threshold = Some(DEFAULT_THRESHOLD);
        notes.push(format!("no method chosen: using --threshold {DEFAULT_THRESHOLD} (pass --threshold and/or --merge-modules)"));
    }
    let loaded = pipeline::load(&opts.input, opts.view)?;
    let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
    let modules = source.assign(funcs, &loaded.names)?;
    let out = abstraction::apply(tree, funcs, &modules, method);
    let summary = Summary::of(tree, &out, funcs);
    println!("{}", summary_line(method, &summary));
    if let Some(path) = &opts.tree_out {
        emit::write_atomic(path, &emit::tree::indented(&out.tree, &loaded.names))?;
        notes.push(format!("wrote {}", path.display()));
    }
    if let Some(path) = &opts.dot {
        let folded = fold_paths(&out.tree, funcs);
        let title = format!("{} of {}", describe(method), opts.input.trace.display());
        emit::write_atomic(
            path,
            &emit::tree_dot::tree_dot(&folded, funcs, &loaded.names, &modules, &title),
        )?;
        notes.push(format!(
            "wrote {} ({} distinct call paths drawn)",
            path.display(),
            folded.call_nodes(funcs)
        ));
    }
    Ok(Outcome {
        warnings: loaded.warnings,
        notes,
    })
}

/// E.g. `merge + threshold 90%`.
fn describe(m: Method) -> String {
    let th = m
        .threshold
        .map(|t| format!("threshold {}%", fmt_percent(t)));
    match (m.merge, th) {
        (true, Some(th)) => format!("merge + {th}"),
        (true, None) => "merge".to_string(),
        (false, Some(th)) => th,
        (false, None) => "no abstraction".to_string(),
    }
}

fn fmt_percent(t: f64) -> String {
    let s = format!("{:.2}", t * 100.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The one-line summary printed on stdout.
pub fn summary_line(method: Method, s: &Summary) -> String {
    format!(
        "{}: {} nodes -> {} nodes (kept {:.2}%, eliminated {:.2}%); kept nodes' self times explain {:.2}% of the root's total",
        describe(method),
        s.nodes_before,
        s.nodes_after,
        100.0 * s.kept_ratio(),
        100.0 * (1.0 - s.kept_ratio()),
        100.0 * s.time_explained
    )
}
