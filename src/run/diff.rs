//! `calltrace diff BASE NEW`: what changed between two runs, or two sets
//! of repeated runs, of a program, and why (see [`crate::diff`]). Each side
//! is a trace file or a directory of traces; binaries come from the traces
//! (or `--search-path`), so the sides may be different builds. Writes a
//! table on stdout and, on request, CSV, JSON and a union graph as DOT.

use std::path::{Path, PathBuf};

use super::Outcome;
use super::files::{CommandFiles, Files};
use crate::calltree::View;
use crate::diff::{self, By, Diff, DiffOptions, Profile};
use crate::emit;
use crate::emit::text::TimeUnit;
use crate::error::{Error, Result};
use crate::pipeline::{self, InputOptions};
use crate::symbols::Demangle;

/// Options of `calltrace diff`.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffCommand {
    /// The base side: a trace, or a directory of traces of repeated runs.
    pub base: PathBuf,
    /// The new side, likewise.
    pub new: PathBuf,
    /// How each trace is read and named (its `trace` and `binary` are
    /// set per trace; names are always simple, to match across builds).
    pub input: InputOptions,
    /// Rows per function or per calling context. Default is function.
    pub by: By,
    /// What counts as a change, and the base side's scaling.
    pub diff: DiffOptions,
    /// Exit with status 3 when a row's self time grew by more than this
    /// share of the base total. Default is none.
    pub fail_above: Option<f64>,
    /// Rows shown on stdout. Default is 20.
    pub top: usize,
    /// Where the CSV goes. Default is none.
    pub csv: Option<PathBuf>,
    /// Where the JSON goes. Default is none.
    pub json: Option<PathBuf>,
    /// Where the union graph's DOT goes. Default is none.
    pub dot: Option<PathBuf>,
    /// Unit of the times shown. Default is auto.
    pub time_unit: TimeUnit,
}

impl Default for DiffCommand {
    fn default() -> Self {
        DiffCommand {
            base: PathBuf::new(),
            new: PathBuf::new(),
            input: InputOptions::default(),
            by: By::Function,
            diff: DiffOptions::default(),
            fail_above: None,
            top: 20,
            csv: None,
            json: None,
            dot: None,
            time_unit: TimeUnit::Auto,
        }
    }
}

/// Runs `calltrace diff`.
pub fn run(opts: &DiffCommand) -> Result<Outcome> {
    let base = load_side(opts, &opts.base)?;
    let new = load_side(opts, &opts.new)?;
    let d = diff::diff(&base.profiles, &new.profiles, &opts.diff);
    let mut notes = Vec::new();
    if let Some(path) = &opts.csv {
        emit::write_atomic(path, &emit::diff::csv(&d, opts.by)?)?;
        notes.push(format!("wrote {}", path.display()));
    }
    if let Some(path) = &opts.json {
        emit::write_atomic(path, &emit::diff::json(&d, opts.by, &opts.diff))?;
        notes.push(format!("wrote {}", path.display()));
    }
    let table = emit::diff::table(&d, opts.top, opts.time_unit);
    emit::write_atomic("-".as_ref(), &table)?;
    let outcome = Outcome {
        warnings: Vec::new(),
        notes,
    };
    match opts.fail_above.and_then(|share| gate(&d, share)) {
        Some(failed) => {
            // The outputs were written; say so before the failure.
            for n in &outcome.notes {
                eprintln!("calltrace: {}", crate::escape_controls(n));
            }
            Err(Error::Gate(failed))
        }
        None => Ok(outcome),
    }
}

/// The message of a failed `--fail-above`, naming the worst rows.
fn gate(d: &Diff, share: f64) -> Option<String> {
    let grown = d.grown_above(share);
    let worst = grown.first()?;
    let pct = |v: i128| 100.0 * v as f64 / d.base_total.max(1) as f64;
    Some(format!(
        "{} grew by more than --fail-above {}% of the base total; the most: {} (+{:.1}%, {})",
        emit::text::counted(grown.len(), "function", "functions"),
        share * 100.0,
        worst.key.name,
        pct(worst.delta_self()),
        worst.change.label()
    ))
}

/// The profiles of one side's runs.
struct Side {
    profiles: Vec<Profile>,
}

fn load_side(opts: &DiffCommand, path: &Path) -> Result<Side> {
    let mut side = Side {
        profiles: Vec::new(),
    };
    for trace in side_traces(path)? {
        let mut input = opts.input.clone();
        input.trace = trace;
        input.symbols.demangle = Demangle::Simple;
        let loaded = pipeline::load(&input, View::Contexts)?;
        // Said now, before the table (as every command does).
        super::warn_now(&loaded.warnings);
        let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
        side.profiles
            .push(Profile::new(tree, funcs, &loaded.names, opts.by));
    }
    Ok(side)
}

/// The traces of a side: the file itself, or the traces in a directory
/// (as `compare` finds them), in name order.
fn side_traces(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let arg = path.to_string_lossy().into_owned();
    let patterns = crate::report::patterns::from_args(&[arg])?;
    Ok(patterns.into_iter().map(|p| p.path).collect())
}

impl CommandFiles for DiffCommand {
    fn files(&self) -> Result<Files> {
        let mut inputs = Vec::new();
        for (flag, side) in [("BASE", &self.base), ("NEW", &self.new)] {
            if !side.exists() {
                return Err(Error::usage(
                    flag,
                    format!("{} does not exist", side.display()),
                ));
            }
            inputs.extend(side_traces(side)?.into_iter().map(|t| (flag, t)));
        }
        inputs.extend(self.input.rules.iter().map(|r| ("--rules", r.clone())));
        let outputs = [
            ("--csv", &self.csv),
            ("--json", &self.json),
            ("--output", &self.dot),
        ]
        .into_iter()
        .filter_map(|(flag, p)| p.clone().map(|p| (flag, p)))
        .collect();
        Ok(Files { inputs, outputs })
    }
}
