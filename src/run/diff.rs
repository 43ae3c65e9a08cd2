//! `calltrace diff BASE NEW`: what changed between two runs, or two sets
//! of repeated runs, of a program, and why (see [`crate::diff`]). Each side
//! is a trace file or a directory of traces; binaries come from the traces
//! (or `--search-path`), so the sides may be different builds. Writes a
//! table on stdout and, on request, CSV, JSON and a union graph as DOT.

use std::path::{Path, PathBuf};

use super::Outcome;
use super::files::{CommandFiles, Files};
use crate::calltree::View;
use crate::diff::{self, By, Catalog, ChangeRule, Diff, Profile};
use crate::emit;
use crate::emit::format::TimeUnit;
use crate::error::{Error, Result};
use crate::pipeline::{self, InputOptions};
use crate::symbols::Demangle;

/// Options of `calltrace diff`.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffOptions {
    /// The base side: a trace, or a directory of traces of repeated runs.
    pub(crate) base: PathBuf,
    /// The new side, likewise.
    pub(crate) new: PathBuf,
    /// How each trace is read and named (its `trace` and `binary` are
    /// set per trace; names are always simple, to match across builds).
    pub(crate) input: InputOptions,
    /// Rows per function or per calling context. Default is function.
    pub(crate) by: By,
    /// What counts as a change, and the base side's scaling. Default is
    /// [`ChangeRule::default`].
    pub(crate) diff: ChangeRule,
    /// Exit with status 3 when a row's self time grew by more than this
    /// share of the base total. Default is none.
    pub(crate) fail_above: Option<f64>,
    /// Rows shown on stdout. Default is 20.
    pub(crate) top: usize,
    /// Where the CSV goes. Default is none.
    pub(crate) csv: Option<PathBuf>,
    /// Where the JSON goes. Default is none.
    pub(crate) json: Option<PathBuf>,
    /// Where the union graph's DOT goes. Default is none.
    pub(crate) dot: Option<PathBuf>,
    /// How the union graph is pruned. Default is 0.5% and 0.1%, as `graph`.
    pub(crate) prune: diff::Prune,
    /// Where the differential flame graph goes (widths from new). Default is none.
    pub(crate) flamegraph: Option<PathBuf>,
    /// Where the negated one goes (widths from base). Default is none.
    pub(crate) flamegraph_removed: Option<PathBuf>,
    /// Unit of the times shown. Default is auto.
    pub(crate) time_unit: TimeUnit,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            base: PathBuf::new(),
            new: PathBuf::new(),
            input: InputOptions::default(),
            by: By::Function,
            diff: ChangeRule::default(),
            fail_above: None,
            top: 20,
            csv: None,
            json: None,
            dot: None,
            prune: diff::Prune::default(),
            flamegraph: None,
            flamegraph_removed: None,
            time_unit: TimeUnit::Auto,
        }
    }
}

/// Runs `calltrace diff`.
pub fn run(opts: &DiffOptions) -> Result<Outcome> {
    let mut cat = Catalog::default();
    let base = load_side(opts, &opts.base, &mut cat)?;
    let new = load_side(opts, &opts.new, &mut cat)?;
    same_units(&base, &new)?;
    let d = diff::diff(base.rows(opts.by), new.rows(opts.by), &cat, &opts.diff);
    let mut notes = Vec::new();
    if opts.by == By::Context && (opts.csv.is_some() || opts.json.is_some()) {
        check_paths(&d, opts)?;
    }
    if let Some(path) = &opts.dot {
        let by_function;
        let functions = match opts.by {
            By::Function => &d,
            By::Context => {
                by_function = diff::diff(&base.functions, &new.functions, &cat, &opts.diff);
                &by_function
            }
        };
        let u = diff::union(functions, &base.functions, &new.functions, opts.prune);
        emit::write_atomic(path, &emit::diff::dot(functions, &u, opts.time_unit))?;
        notes.push(format!(
            "wrote {} ({} of {} functions drawn)",
            path.display(),
            u.nodes.len(),
            functions.rows.len()
        ));
    }
    flamegraphs(opts, (&base, &new), &cat, &d, &mut notes)?;
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
            super::report(&outcome);
            Err(Error::Gate(failed))
        }
        None => Ok(outcome),
    }
}

/// Writes the differential flame graphs asked for, from a diff by context.
fn flamegraphs(
    opts: &DiffOptions,
    (base, new): (&Side, &Side),
    cat: &Catalog,
    d: &Diff,
    notes: &mut Vec<String>,
) -> Result<()> {
    let wanted = [
        (&opts.flamegraph, emit::diff::Widths::New, "--flamegraph"),
        (
            &opts.flamegraph_removed,
            emit::diff::Widths::Base,
            "--flamegraph-removed",
        ),
    ];
    if wanted.iter().all(|(p, _, _)| p.is_none()) {
        return Ok(());
    }
    let by_context;
    let contexts = match opts.by {
        By::Context => d,
        By::Function => {
            by_context = diff::diff(base.contexts(), new.contexts(), cat, &opts.diff);
            &by_context
        }
    };
    let title = format!(
        "calltrace diff: {} → {}",
        opts.base.display(),
        opts.new.display()
    );
    for (path, widths, flag) in wanted {
        let Some(path) = path else { continue };
        let mut svg = Vec::new();
        let drawn = emit::diff::flamegraph(contexts, widths, &title, &mut svg)
            .map_err(|e| Error::usage(flag, e.to_string()))?;
        emit::write_atomic(path, &svg)?;
        notes.push(match drawn.cut_at {
            None => format!("wrote {}", path.display()),
            Some(depth) => format!(
                "wrote {}: its stacks end at depth {depth} of {} (every stack repeats its whole path, and at most {} MiB of them are drawn); deeper calls are drawn in their caller at that depth",
                path.display(),
                contexts.depth(),
                emit::diff::MAX_STACKS >> 20
            ),
        });
    }
    Ok(())
}

/// The most bytes of context paths `--csv` and `--json` write: each row's
/// path repeats its callers, so a deep recursion's paths grow with the
/// square of its depth (a 40,000-deep one's take 1.5 GiB).
const MAX_PATHS: u64 = 256 << 20;

/// Refuses a CSV or JSON by context whose paths would pass [`MAX_PATHS`],
/// naming the flags that make them smaller.
fn check_paths(d: &Diff, opts: &DiffOptions) -> Result<()> {
    let bytes = d.path_bytes();
    if bytes <= MAX_PATHS {
        return Ok(());
    }
    let flag = match opts.csv.is_some() {
        true => "--csv",
        false => "--json",
    };
    Err(Error::usage(
        flag,
        format!(
            "the rows' context paths would take {:.1} GiB (every path repeats its callers; the contexts are {} levels deep; at most {} MiB are written): give --by function, or --exclude GLOB to leave the deep recursion out",
            bytes as f64 / (1u64 << 30) as f64,
            d.depth(),
            MAX_PATHS >> 20
        ),
    ))
}

/// Refuses to compare runs that count different things: a timed run's
/// nanoseconds are no call counts, and the other way round.
fn same_units(base: &Side, new: &Side) -> Result<()> {
    let runs = || base.units.iter().chain(&new.units);
    let Some((first, unit)) = runs().next() else {
        return Ok(());
    };
    let Some((other, o_unit)) = runs().find(|(_, u)| u != unit) else {
        return Ok(());
    };
    let what = |u: &crate::ingest::Unit| match u {
        crate::ingest::Unit::Nanos => "times (ns)",
        crate::ingest::Unit::Calls => "calls (it has no timestamps)",
        crate::ingest::Unit::Number => "weights of an unknown unit",
        crate::ingest::Unit::Cycles => "cycles (its clock rate is unknown: --clock-hz)",
    };
    Err(Error::usage(
        "BASE/NEW",
        format!(
            "{} counts {} but {} counts {}: runs compared must count the same thing; record both with the same clock (or both untimed, to compare calls)",
            first.display(),
            what(unit),
            other.display(),
            what(o_unit)
        ),
    ))
}

/// The message of a failed `--fail-above`, naming the worst rows.
fn gate(d: &Diff, share: f64) -> Option<String> {
    let grown = d.grown_above(share);
    let worst = grown.first()?;
    let pct = |v: i128| 100.0 * v as f64 / d.base_total.max(1) as f64;
    let untested = match d.timed() && !d.time_tested() {
        true => "; with one run on a side, changes in time are untested and still count here",
        false => "",
    };
    Some(format!(
        "{} grew by more than --fail-above {}% of the base total; the most: {} (+{:.1}%, {}){untested}",
        emit::format::counted(grown.len(), "row", "rows"),
        share * 100.0,
        d.path(worst),
        pct(worst.delta_self()),
        worst.change.label()
    ))
}

/// The profiles of one side's runs: by function (for the graph), and by
/// context when rows are contexts or a flame graph is drawn.
struct Side {
    functions: Vec<Profile>,
    contexts: Option<Vec<Profile>>,
    /// Each run's trace and what its weights count.
    units: Vec<(PathBuf, crate::ingest::Unit)>,
}

impl Side {
    /// The profiles rows come from.
    fn rows(&self, by: By) -> &[Profile] {
        match by {
            By::Function => &self.functions,
            By::Context => self.contexts(),
        }
    }

    /// The profiles by context (none unless they were asked for).
    fn contexts(&self) -> &[Profile] {
        self.contexts.as_deref().unwrap_or_default()
    }
}

/// One side's runs; their warnings, each naming its trace, are said now.
fn load_side(opts: &DiffOptions, path: &Path, cat: &mut Catalog) -> Result<Side> {
    let mut side = Side {
        functions: Vec::new(),
        contexts: opts.wants_contexts().then(Vec::new),
        units: Vec::new(),
    };
    for trace in side_traces(path)? {
        let mut input = opts.input.clone();
        input.trace = trace.clone();
        input.symbols.demangle = Demangle::Simple;
        let loaded = pipeline::load(&input, View::Contexts)?;
        // Said now, before the table (as every command does).
        let shown = trace.display();
        let named: Vec<String> = loaded
            .warnings
            .iter()
            .map(|w| format!("{shown}: {w}"))
            .collect();
        super::warn_now(&named);
        let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
        let names = &loaded.names;
        side.units.push((trace, tree.unit));
        side.functions
            .push(Profile::new(tree, funcs, names, By::Function, cat));
        if let Some(contexts) = &mut side.contexts {
            contexts.push(Profile::new(tree, funcs, names, By::Context, cat));
        }
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
    let patterns = crate::compare::patterns::from_args(&[arg]).map_err(|e| e.for_flag("TRACE"))?;
    Ok(patterns.into_iter().map(|p| p.path).collect())
}

impl DiffOptions {
    /// Whether the runs are needed by context: for rows or a flame graph.
    fn wants_contexts(&self) -> bool {
        self.by == By::Context || self.flamegraph.is_some() || self.flamegraph_removed.is_some()
    }
}

impl CommandFiles for DiffOptions {
    fn files(&self) -> Result<Files> {
        let mut traces = Vec::new();
        for (flag, side) in [("BASE", &self.base), ("NEW", &self.new)] {
            if !side.exists() {
                return Err(Error::usage(
                    flag,
                    format!("{} does not exist", side.display()),
                ));
            }
            traces.extend(side_traces(side)?.into_iter().map(|t| (flag, t)));
        }
        let inputs = super::files::inputs_of(traces, &self.input, None);
        let outputs = [
            ("--csv", &self.csv),
            ("--json", &self.json),
            ("--output", &self.dot),
            ("--flamegraph", &self.flamegraph),
            ("--flamegraph-removed", &self.flamegraph_removed),
        ]
        .into_iter()
        .filter_map(|(flag, p)| p.clone().map(|p| (flag, p)))
        .collect();
        Ok(Files { inputs, outputs })
    }
}
