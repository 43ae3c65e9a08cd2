//! `calltrace view`: one self-contained `view.html` that draws what
//! `abstract` and `graph` draw, with their flags as controls. The trace
//! (or each trace of a directory of test patterns) is read once as a
//! calling-context tree; `emit::view` then runs the abstraction passes and
//! the hot-graph pruning for every setting the page offers and writes the
//! page, which only picks and draws.

use std::path::PathBuf;

use super::Outcome;
use super::files::{CommandFiles, Files, inputs_of};
use crate::abstraction::ModulesArg;
use crate::calltree::{Keep, View};
use crate::emit;
use crate::emit::view::{Data, GraphGrid, Pattern, TreeGrid};
use crate::error::{Error, Result};
use crate::pipeline::{InputOptions, Loaded, load};
use crate::symbols::FuncPattern;
use rayon::prelude::*;

/// Where the page goes when no output is named.
pub const DEFAULT_OUTPUT: &str = "view.html";

/// Options of `calltrace view`.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewOptions {
    /// Trace, binary and parsing options (the trace is ignored when
    /// `patterns` is given). Default is `trace.txt`, no binary.
    pub(crate) input: InputOptions,
    /// A directory of test patterns, one trace per pattern, as `compare`
    /// takes. Default is none: the one trace of `input`.
    pub(crate) patterns: Option<PathBuf>,
    /// `--modules` for `abstract`'s states. Default is `auto`.
    pub(crate) modules: ModulesArg,
    /// `--keep` globs the page can turn on. Default is none.
    pub(crate) keep: Vec<FuncPattern>,
    /// `--focus` functions the page offers for `graph`. Default is none.
    pub(crate) focus: Vec<FuncPattern>,
    /// `--root` functions the page offers for `graph`. Default is none.
    pub(crate) root: Vec<FuncPattern>,
    /// The page. Default is [`DEFAULT_OUTPUT`].
    pub(crate) output: PathBuf,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            input: InputOptions::default(),
            patterns: None,
            modules: ModulesArg::Auto,
            keep: Vec::new(),
            focus: Vec::new(),
            root: Vec::new(),
            output: PathBuf::from(DEFAULT_OUTPUT),
        }
    }
}

impl CommandFiles for ViewOptions {
    fn files(&self) -> Result<Files> {
        // The traces drawn: `--trace`'s, or every one in the patterns' DIR.
        let flag = match self.patterns {
            Some(_) => "DIR",
            None => "--trace",
        };
        let traces = traces(self)?.into_iter().map(|(_, t)| (flag, t));
        let inputs = inputs_of(traces, &self.input, Some(&self.modules));
        Ok(Files {
            inputs,
            outputs: vec![("--output", self.output.clone())],
        })
    }
}

/// Runs `calltrace view`.
pub fn run(opts: &ViewOptions) -> Result<Outcome> {
    let trees = TreeGrid::new(&opts.modules, &opts.keep);
    let graphs = GraphGrid::new(&opts.focus, &opts.root);
    // Patterns on every core; collected in name order, so the page is
    // the same for any number of threads.
    let drawn: Vec<Result<(Pattern, Vec<String>)>> = traces(opts)?
        .par_iter()
        .map(|(name, trace)| {
            let mut input = opts.input.clone();
            input.trace = trace.clone();
            input.per_call = Some(Keep::Total);
            let loaded = load(&input, View::Contexts)?;
            check_picks(&opts.focus, "--focus", &loaded)?;
            check_picks(&opts.root, "--root", &loaded)?;
            let shown = trace.display().to_string();
            let p = emit::view::pattern(name, &shown, &loaded, &trees, &graphs)
                .map_err(|e| e.for_flag("--modules"))?;
            Ok((p, loaded.warnings))
        })
        .collect();
    let mut patterns = Vec::new();
    for d in drawn {
        let (p, warnings) = d?;
        super::warn_now(&warnings);
        patterns.push(p);
    }
    let data = Data {
        binary: opts.input.binary.as_ref().map(|b| b.display().to_string()),
        tree_grid: trees,
        graph_grid: graphs,
        patterns,
    };
    let page = emit::view::page(&data)?;
    emit::write_atomic(&opts.output, &page)?;
    let note = format!(
        "wrote {} ({}, {} bytes)",
        opts.output.display(),
        super::counted(data.patterns.len(), "trace", "traces"),
        page.len()
    );
    Ok(Outcome {
        warnings: Vec::new(),
        notes: vec![note],
    })
}

/// Refuses a `--focus`/`--root` pattern that names no function of
/// `loaded` (or several), by its flag, before the page's states are
/// computed from it.
fn check_picks(patterns: &[FuncPattern], flag: &str, loaded: &Loaded) -> Result<()> {
    for p in patterns {
        p.pick_function(&loaded.names)
            .map_err(|e| Error::usage(flag, e))?;
    }
    Ok(())
}

/// The traces to draw: `(pattern name, path)`.
fn traces(opts: &ViewOptions) -> Result<Vec<(String, PathBuf)>> {
    let Some(dir) = &opts.patterns else {
        let t = &opts.input.trace;
        let name = t
            .file_stem()
            .map_or("trace".into(), |s| s.to_string_lossy().into_owned());
        return Ok(vec![(name, t.clone())]);
    };
    let arg = dir.display().to_string();
    let found = crate::compare::patterns::from_args(&[arg]).map_err(|e| e.for_flag("DIR"))?;
    Ok(found.into_iter().map(|p| (p.name, p.path)).collect())
}
