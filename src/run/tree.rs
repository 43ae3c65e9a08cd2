//! `calltrace tree`: the call tree as indented `name (self / total)` text,
//! which `calltrace tree` reads back to the same tree.

use std::path::PathBuf;

use super::Outcome;
use crate::calltree::View;
use crate::emit;
use crate::emit::format::TimeUnit;
use crate::error::Result;
use crate::pipeline::{self, InputOptions};

/// Options of `calltrace tree`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeOptions {
    /// Trace, binary and parsing options.
    pub input: InputOptions,
    /// One node per call, or per distinct call path. Default is calls.
    pub view: View,
    /// Where the text goes, `-` for stdout. Default is `-`.
    pub output: PathBuf,
    /// Leave out calls deeper than this (top-level calls are depth 1).
    /// Default is none (every call).
    pub max_depth: Option<u32>,
    /// Unit times are shown in. Default is auto (per number).
    pub time_unit: TimeUnit,
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            input: InputOptions::default(),
            view: View::Calls,
            output: PathBuf::from("-"),
            max_depth: None,
            time_unit: TimeUnit::Auto,
        }
    }
}

/// Runs `calltrace tree`.
pub fn run(opts: &TreeOptions) -> Result<Outcome> {
    let loaded = pipeline::load(&opts.input, opts.view)?;
    let (tree, names) = (&loaded.built.tree, &loaded.names);
    super::warn_now(&loaded.warnings);
    let warnings = emit::tree::depth_warning(tree, opts.max_depth)
        .into_iter()
        .collect();
    emit::write_atomic_with(&opts.output, |out| {
        emit::tree::write_indented_in(tree, names, opts.max_depth, opts.time_unit, out)
    })?;
    Ok(Outcome {
        warnings,
        notes: wrote(opts, tree.len() - 1),
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
