//! `calltrace tree`: the call tree as indented `name (self / total)` text,
//! which `calltrace tree` reads back to the same tree.

use std::path::PathBuf;

use super::Outcome;
use super::files::{CommandFiles, Files};
use crate::calltree::{Keep, Stat, Tree, View};
use crate::emit;
use crate::emit::format::TimeUnit;
use crate::error::Result;
use crate::pipeline::{self, InputOptions};
use crate::symbols::FuncPattern;

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
    /// Print only the calls of this function and what they call (`--root`),
    /// as `graph --root` draws. Default is none.
    pub(crate) root: Option<FuncPattern>,
    /// Print only the paths through this function: its callers and what
    /// it calls (`--focus`), as `graph --focus` draws. Default is none.
    pub(crate) focus: Option<FuncPattern>,
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
            root: None,
            focus: None,
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
    let write = emit::tree::Options {
        max_depth: opts.max_depth,
        time_unit: opts.time_unit,
        show: opts.show.clone(),
        kept: kept(opts, &loaded)?,
    };
    let lines = emit::tree::lines(tree, &write);
    // Said before the output, which may take long to write.
    let mut now: Vec<String> = emit::tree::depth_warning_with(tree, &write)
        .into_iter()
        .collect();
    now.extend(huge_warning(opts, lines));
    super::warn_now(&now);
    let warnings: Vec<String> = show_warning(&opts.show, tree).into_iter().collect();
    emit::write_atomic_with(&opts.output, |out| {
        emit::tree::write_indented_with(tree, names, &write, out)
    })?;
    Ok(Outcome {
        warnings,
        notes: wrote(opts, lines),
    })
}

/// The nodes `--root` or `--focus` keeps (with `--max-depth` counted
/// from FUNC), or none without them.
fn kept(opts: &TreeOptions, loaded: &pipeline::Loaded) -> Result<Option<Vec<bool>>> {
    let names = &loaded.names;
    let (func, callers) = match (&opts.focus, &opts.root) {
        (Some(f), _) => (super::function(names, "--focus", Some(f))?, true),
        (None, Some(r)) => (super::function(names, "--root", Some(r))?, false),
        (None, None) => return Ok(None),
    };
    let Some(func) = func else { return Ok(None) };
    let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
    let only = emit::tree::Only {
        func,
        callers,
        steps: opts.max_depth.map(|d| d - 1),
    };
    let is_thread = |n| funcs.is_synthetic(tree.func(n));
    Ok(Some(emit::tree::mask(tree, &only, is_thread)))
}

/// Past [`emit::tree::HUGE_CALLS_LINES`] lines of the calls view, the
/// contexts view that says the same in far fewer.
fn huge_warning(opts: &TreeOptions, lines: u64) -> Option<String> {
    (opts.view == View::Calls && lines > emit::tree::HUGE_CALLS_LINES).then(|| {
        format!(
            "the per-call tree has {:.1} M lines (one per call); --view contexts merges \
             identical call paths into one line with an xN count, and --max-depth N, \
             --root FUNC or --focus FUNC print a part",
            lines as f64 / 1e6
        )
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
/// standard output.
fn wrote(opts: &TreeOptions, lines: u64) -> Vec<String> {
    if opts.output.as_os_str() == "-" {
        return Vec::new();
    }
    let lines = match opts.max_depth {
        None => format!(", {lines} lines"),
        Some(d) => format!(", {lines} lines, at most {d} deep"),
    };
    vec![format!(
        "wrote {} ({} view{lines})",
        opts.output.display(),
        opts.view.name()
    )]
}

impl CommandFiles for TreeOptions {
    fn files(&self) -> Result<Files> {
        Ok(Files {
            inputs: super::files::input_files(&self.input),
            outputs: vec![("--output", self.output.clone())],
        })
    }
}
