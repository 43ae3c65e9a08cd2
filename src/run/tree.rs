//! `calltrace tree`: the call tree as indented `name (self / total)` text,
//! which `calltrace tree` reads back to the same tree.

use std::path::PathBuf;

use super::Outcome;
use crate::calltree::{Keep, Stat, Tree, View};
use crate::emit;
use crate::emit::format::TimeUnit;
use crate::error::Result;
use crate::pipeline::{self, InputOptions};

/// Options of `calltrace tree`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeOptions {
    /// Trace, binary and parsing options.
    pub(crate) input: InputOptions,
    /// One node per call, or per distinct call path. Default is calls.
    pub(crate) view: View,
    /// Where the text goes, `-` for stdout. Default is `-`.
    pub(crate) output: PathBuf,
    /// Leave out calls deeper than this (top-level calls are depth 1).
    /// Default is none (every call).
    pub(crate) max_depth: Option<u32>,
    /// Unit times are shown in. Default is auto (per number).
    pub(crate) time_unit: TimeUnit,
    /// Per-call numbers shown after each line (`--show`). Default is none.
    pub(crate) show: Vec<Stat>,
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            input: InputOptions::default(),
            view: View::Calls,
            output: PathBuf::from("-"),
            max_depth: None,
            time_unit: TimeUnit::Auto,
            show: Vec::new(),
        }
    }
}

/// Runs `calltrace tree`.
pub fn run(opts: &TreeOptions) -> Result<Outcome> {
    let mut input = opts.input.clone();
    input.per_call = (!opts.show.is_empty()).then_some(Keep::Total);
    let loaded = pipeline::load(&input, opts.view)?;
    let (tree, names) = (&loaded.built.tree, &loaded.names);
    super::warn_now(&loaded.warnings);
    let mut warnings: Vec<String> = emit::tree::depth_warning(tree, opts.max_depth)
        .into_iter()
        .collect();
    warnings.extend(show_warning(&opts.show, tree));
    let write = emit::tree::Options {
        max_depth: opts.max_depth,
        time_unit: opts.time_unit,
        show: opts.show.clone(),
    };
    emit::write_atomic_with(&opts.output, |out| {
        emit::tree::write_indented_with(tree, names, &write, out)
    })?;
    Ok(Outcome {
        warnings,
        notes: wrote(opts, tree.len() - 1),
    })
}

/// Why `--show` prints nothing: the trace has no per-call times (untimed,
/// or an indented tree whose lines sum many calls).
pub(crate) fn show_warning(show: &[Stat], tree: &Tree) -> Option<String> {
    if show.is_empty() {
        return None;
    }
    if !tree.unit.is_time() {
        return Some(
            "--show: the trace has no timestamps, so calls have no durations to show".into(),
        );
    }
    (!tree.has_dists()).then(|| {
        "--show: this tree has no per-call times (an indented tree sums many calls per line, and --fold-recursion merges calls)".to_string()
    })
}

/// `wrote tree.txt (contexts view, 1234 lines)` for a file, nothing for
/// standard output; `nodes`, the lines without --max-depth.
fn wrote(opts: &TreeOptions, nodes: usize) -> Vec<String> {
    if opts.output.as_os_str() == "-" {
        return Vec::new();
    }
    let lines = match opts.max_depth {
        None => format!(", {nodes} lines"),
        Some(d) => format!(", at most {d} deep"),
    };
    vec![format!(
        "wrote {} ({} view{lines})",
        opts.output.display(),
        opts.view.name()
    )]
}
