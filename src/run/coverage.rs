//! `calltrace coverage [BINARY] --trace T...` (or `coverage DIR`): which
//! functions the traces called, which none did, and which no trace can
//! show (see [`crate::coverage`]). A summary per source file (per module
//! with `--modules`) on stdout; on request the full list as CSV, the call
//! matrix (one column per pattern) and an lcov tracefile.

use std::path::PathBuf;

use super::Outcome;
use super::files::{CommandFiles, Files};
use crate::abstraction::modules::{ModuleSource, ModulesArg};
use crate::calltree::View;
use crate::compare::patterns::{self, Pattern};
use crate::coverage::{Collector, Coverage, Lookup, nothing_listed};
use crate::emit;
use crate::error::{Error, Result};
use crate::ingest::FuncTable;
use crate::pipeline::{self, InputOptions};
use crate::symbols::FuncInfo;

/// Options of `calltrace coverage`.
#[derive(Debug, Clone, PartialEq)]
pub struct CoverageOptions {
    /// How traces are read and named (`trace` is set per pattern).
    pub(crate) input: InputOptions,
    /// The traces: files, `NAME=PATH` or directories of patterns.
    /// Default is `trace.txt`.
    pub(crate) traces: Vec<String>,
    /// `--modules`: summarise per module. Default is none (per file).
    pub(crate) modules: Option<ModulesArg>,
    /// Where the function list goes. Default is none.
    pub(crate) csv: Option<PathBuf>,
    /// Where the call matrix goes. Default is none.
    pub(crate) matrix: Option<PathBuf>,
    /// Where the lcov tracefile goes. Default is none.
    pub(crate) lcov: Option<PathBuf>,
    /// Exit with status 3 when less than this share of the instrumented
    /// functions was called. Default is none.
    pub(crate) fail_under: Option<f64>,
}

impl Default for CoverageOptions {
    fn default() -> Self {
        CoverageOptions {
            input: InputOptions::default(),
            traces: vec!["trace.txt".to_string()],
            modules: None,
            csv: None,
            matrix: None,
            lcov: None,
            fail_under: None,
        }
    }
}

/// Runs `calltrace coverage`.
pub fn run(opts: &CoverageOptions) -> Result<Outcome> {
    let patterns = patterns::from_args(&opts.traces).map_err(|e| e.for_flag("TRACE"))?;
    let mut collector = Collector::default();
    let given =
        crate::symbols::given_segments(&opts.input.symbols).map_err(|e| e.for_flag("--object"))?;
    let look = Lookup {
        binary: opts.input.binary.as_deref(),
        search_path: &opts.input.symbols.search_path,
        debug_dirs: &opts.input.symbols.debug_dirs,
        style: opts.input.symbols.demangle,
        given: &given,
    };
    for p in &patterns {
        let mut input = opts.input.clone();
        input.trace = p.path.clone();
        let loaded = pipeline::load(&input, View::Contexts)?;
        super::warn_now(&loaded.warnings);
        collector.add(&p.name, &loaded, &look)?;
    }
    super::warn_now(&std::mem::take(&mut collector.warnings));
    let cov = collector.finish();
    if cov.entries.is_empty() {
        let paths: Vec<PathBuf> = patterns.iter().map(|p| p.path.clone()).collect();
        return Err(nothing_listed(&paths));
    }
    if opts.fail_under.is_some() {
        measured_something(&cov)?;
    }
    let modules = match &opts.modules {
        Some(arg) => Some(modules_of(&cov, arg)?),
        None => None,
    };
    let mut notes = Vec::new();
    let outputs: [(&Option<PathBuf>, Vec<u8>); 3] = [
        (&opts.csv, emit::coverage::csv(&cov, modules.as_deref())?),
        (&opts.matrix, emit::coverage::matrix(&cov)?),
        (&opts.lcov, emit::coverage::lcov(&cov)),
    ];
    for (path, bytes) in outputs {
        if let Some(path) = path {
            emit::write_atomic(path, &bytes)?;
            notes.push(format!("wrote {}", path.display()));
        }
    }
    let summary = emit::coverage::summary(&cov, modules.as_deref());
    emit::write_atomic("-".as_ref(), &summary)?;
    let totals = cov.totals();
    let outcome = Outcome {
        warnings: Vec::new(),
        notes,
    };
    match opts.fail_under {
        Some(share) if totals.share() < share => {
            // The outputs were written; say so before the failure.
            super::report(&outcome);
            Err(Error::Gate(format!(
                "{:.1}% of the instrumented functions were called, under --fail-under {}%",
                100.0 * totals.share(),
                100.0 * share
            )))
        }
        _ => Ok(outcome),
    }
}

/// Refuses a `--fail-under` gate over no instrumented function: it
/// measured nothing, so it can neither pass nor fail on a share.
fn measured_something(cov: &Coverage) -> Result<()> {
    let totals = cov.totals();
    if totals.instrumented > 0 {
        return Ok(());
    }
    let objects: Vec<String> = cov
        .objects
        .iter()
        .map(|o| o.display().to_string())
        .collect();
    let why = match cov.stripped.is_empty() {
        true => {
            "their code calls no entry hook (built without -finstrument-functions?)".to_string()
        }
        false => {
            let names: Vec<String> = cov
                .stripped
                .iter()
                .map(|o| o.display().to_string())
                .collect();
            format!(
                "{} {} stripped: without a symbol table its functions' calls to the entry hook cannot be found; give the unstripped build (same build-id) as BINARY or in --search-path DIR",
                names.join(", "),
                match names.len() {
                    1 => "is",
                    _ => "are",
                }
            )
        }
    };
    Err(Error::usage(
        "--fail-under",
        format!(
            "the gate measured nothing: none of the {} functions listed in {} is instrumented, so no share of them was called: {why}",
            cov.entries.len(),
            objects.join(", "),
        ),
    ))
}

/// The module of every entry, as `--modules ARG` assigns them.
fn modules_of(cov: &Coverage, arg: &ModulesArg) -> Result<Vec<String>> {
    let modules_flag = |e: Error| e.for_flag("--modules");
    let source = ModuleSource::from_arg(arg).map_err(modules_flag)?;
    let mut funcs = FuncTable::default();
    let ids: Vec<u32> = (0..cov.entries.len())
        .map(|i| funcs.addr(i as u64 + 1))
        .collect();
    let mut names = vec![FuncInfo::default(); funcs.len()];
    for (e, &id) in cov.entries.iter().zip(&ids) {
        names[id as usize] = e.info.clone();
    }
    let modules = source.assign(&funcs, &names).map_err(modules_flag)?;
    Ok(ids
        .iter()
        .map(|&id| modules.names[modules.of(id) as usize].clone())
        .collect())
}

impl CommandFiles for CoverageOptions {
    fn files(&self) -> Result<Files> {
        let patterns: Vec<Pattern> =
            patterns::from_args(&self.traces).map_err(|e| e.for_flag("TRACE"))?;
        let traces = patterns.into_iter().map(|p| ("--trace", p.path));
        let inputs = super::files::inputs_of(traces, &self.input, self.modules.as_ref());
        let outputs = [
            ("--csv", &self.csv),
            ("--matrix", &self.matrix),
            ("--lcov", &self.lcov),
        ]
        .into_iter()
        .filter_map(|(flag, p)| p.clone().map(|p| (flag, p)))
        .collect();
        Ok(Files { inputs, outputs })
    }
}
