//! `calltrace stats [BINARY] --trace T`: the worst case and the spread of
//! every function's (or calling context's) calls. The trace is built in
//! the contexts view with per-call distributions kept
//! ([`crate::calltree::Dist`]): per function for function rows of
//! inclusive time, else per context, rolled up per function or per path
//! ([`crate::stats`]); the table goes to stdout, and on request the CSV,
//! one row's histogram on the terminal, and every row's buckets as CSV.

use std::path::PathBuf;

use super::Outcome;
use super::files::{CommandFiles, Files};
use crate::calltree::{Keep, View};
use crate::emit;
use crate::emit::format::TimeUnit;
use crate::emit::stats::TableOptions;
use crate::error::{Error, Result};
use crate::pipeline::{self, InputOptions, Loaded};
use crate::stats::{self, By, Row, Rows, Sort};
use crate::symbols::FuncPattern;

/// Options of `calltrace stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsOptions {
    /// Trace, binary and parsing options (`per_call` is set by the command).
    pub(crate) input: InputOptions,
    /// Rows per function or per calling context. Default is per function.
    pub(crate) by: By,
    /// Row order. Default is total time.
    pub(crate) sort: Sort,
    /// The distribution columns are of self time per call. Default is false.
    pub(crate) self_time: bool,
    /// Rows shown in the table. Default is 25.
    pub(crate) top: usize,
    /// Where the table goes, `-` for stdout. Default is `-`.
    pub(crate) output: PathBuf,
    /// Where every row goes as CSV. Default is none.
    pub(crate) csv: Option<PathBuf>,
    /// Draw this row's histogram (function name, or `main;a;b` path with
    /// `--by context`) instead of the table. Default is none.
    /// (A function pattern; with `--by context` its text is the path.)
    pub(crate) histogram: Option<FuncPattern>,
    /// Where every row's buckets go as CSV. Default is none.
    pub(crate) histogram_csv: Option<PathBuf>,
    /// Unit of the times shown. Default is auto.
    pub(crate) time_unit: TimeUnit,
}

impl Default for StatsOptions {
    fn default() -> Self {
        StatsOptions {
            input: InputOptions::default(),
            by: By::Function,
            sort: Sort::Total,
            self_time: false,
            top: TableOptions::default().top,
            output: PathBuf::from("-"),
            csv: None,
            histogram: None,
            histogram_csv: None,
            time_unit: TimeUnit::Auto,
        }
    }
}

/// Runs `calltrace stats`.
pub fn run(opts: &StatsOptions) -> Result<Outcome> {
    let mut input = opts.input.clone();
    input.per_call = Some(keep(opts));
    let loaded = pipeline::load(&input, View::Contexts)?;
    check_per_call(&loaded, opts)?;
    super::warn_now(&loaded.warnings);
    let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
    let mut rows = stats::rows(tree, funcs, &loaded.names, opts.by);
    stats::sort(&mut rows.rows, opts.sort, opts.self_time);
    let contexts = opts.by == By::Context;
    let mut notes = Vec::new();
    if opts.csv.is_some() || opts.histogram_csv.is_some() {
        check_paths(&rows, opts)?;
    }
    if let Some(path) = &opts.csv {
        emit::write_atomic(path, &emit::stats::csv(&rows, contexts, opts.self_time)?)?;
        notes.push(format!(
            "wrote {} ({} rows)",
            path.display(),
            rows.rows.len()
        ));
    }
    if let Some(path) = &opts.histogram_csv {
        let bytes = emit::stats::histogram_csv(&rows, contexts, opts.self_time)?;
        emit::write_atomic(path, &bytes)?;
        notes.push(format!("wrote {}", path.display()));
    }
    let shown = match &opts.histogram {
        Some(name) => {
            let r = row(&rows, name, opts)?;
            let units = (rows.unit, opts.time_unit);
            emit::stats::histogram(r, &rows.shown(r), opts.self_time, units)
        }
        None => {
            let meta = &loaded.built.meta;
            // A thread the trace or rules named (a TOPPERS task) by its name.
            let thread = |i: u32| {
                let name = meta.thread_names.get(i as usize).filter(|n| !n.is_empty());
                match (name, meta.threads.get(i as usize)) {
                    (Some(name), _) => name.clone(),
                    (None, Some(tid)) => format!("tid {tid}"),
                    (None, None) => format!("thread {i}"),
                }
            };
            let what = if contexts { "context" } else { "function" };
            let table = TableOptions {
                top: opts.top,
                self_time: opts.self_time,
                time_unit: opts.time_unit,
            };
            emit::stats::table(&rows, what, &table, &thread)
        }
    };
    emit::write_atomic(&opts.output, &shown)?;
    Ok(Outcome {
        warnings: Vec::new(),
        notes,
    })
}

/// The distributions the rows need: per function when rows are
/// functions of inclusive time (what the table, the histogram and the
/// CSVs then show is each function's merged distribution, which keeping
/// them per function gives for less: its cost follows the functions, not
/// the distinct call paths); per context for `--by context` or `--self`.
fn keep(opts: &StatsOptions) -> Keep {
    match (opts.by, opts.self_time) {
        (_, true) => Keep::TotalAndSelf,
        (By::Function, false) => Keep::TotalByFunction,
        (By::Context, false) => Keep::Total,
    }
}

/// Untimed traces and indented trees have no per-call times: refused,
/// saying why.
fn check_per_call(loaded: &Loaded, opts: &StatsOptions) -> Result<()> {
    let trace = opts.input.trace.display();
    if !loaded.built.meta.timed || !loaded.built.tree.unit.is_time() {
        return Err(Error::Input(format!(
            "{trace}: the trace has no timestamps, so calls have no durations; record it with a clock (CALLTRACE_CLOCK unset, or monotonic)"
        )));
    }
    if !crate::calltree::dist::kept(&loaded.built.tree) {
        return Err(Error::Input(format!(
            "{trace}: an indented tree sums many calls per line; per-call statistics need a trace of entries and exits"
        )));
    }
    Ok(())
}

/// The most bytes of context paths the CSVs write: each row's path
/// repeats its callers, so a deep recursion's paths grow with the square
/// of its depth (a 40,000-deep one's take 1.5 GiB).
const MAX_PATHS: u64 = 256 << 20;

/// Refuses CSVs whose context paths would pass [`MAX_PATHS`], naming the
/// flags that make them smaller.
fn check_paths(rows: &Rows, opts: &StatsOptions) -> Result<()> {
    let bytes = rows.path_bytes();
    if bytes <= MAX_PATHS {
        return Ok(());
    }
    let flag = match opts.csv.is_some() {
        true => "--csv",
        false => "--histogram-csv",
    };
    Err(Error::usage(
        flag,
        format!(
            "the rows' context paths would take {:.1} GiB (every path repeats its callers; the contexts are {} levels deep; at most {} MiB are written): give --by function, or --exclude GLOB to leave the deep recursion out",
            bytes as f64 / (1u64 << 30) as f64,
            rows.depth(),
            MAX_PATHS >> 20
        ),
    ))
}

/// The row `--histogram` names: the one function its pattern names (see
/// [`FuncPattern`]), or with `--by context` the printed path; else an
/// error listing rows like it.
fn row<'a>(rows: &'a Rows, pattern: &FuncPattern, opts: &StatsOptions) -> Result<&'a Row> {
    if opts.by == By::Function {
        let names = rows.rows.iter().map(|r| r.name.as_str()).enumerate();
        let i = pattern
            .pick_one(names)
            .map_err(|e| Error::usage("--histogram", e))?;
        return Ok(&rows.rows[i]);
    }
    let name = pattern.as_str();
    if let Some(r) = rows.find(name) {
        return Ok(r);
    }
    // Functions whose names are like it (a context's own function).
    let mut like: Vec<&str> = rows
        .rows
        .iter()
        .map(|r| r.name.as_str())
        .filter(|r| r.contains(name) || name.contains(r))
        .collect();
    like.sort_unstable();
    like.dedup();
    like.truncate(5);
    let hint = match like.is_empty() {
        true => "`calltrace stats --by context` lists them".to_string(),
        false => format!("similar: {}", like.join(", ")),
    };
    Err(Error::usage(
        "--histogram",
        format!(
            "no context (a `main;a;b` path; `\\;` for a `;` in a name) `{name}` in the trace; {hint}"
        ),
    ))
}

impl CommandFiles for StatsOptions {
    fn files(&self) -> Result<Files> {
        let mut outputs = vec![("--output", self.output.clone())];
        outputs.extend(self.csv.iter().map(|c| ("--csv", c.clone())));
        outputs.extend(
            self.histogram_csv
                .iter()
                .map(|c| ("--histogram-csv", c.clone())),
        );
        Ok(Files {
            inputs: super::files::input_files(&self.input),
            outputs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f` called from two contexts, 10 and 5 ns under `a`, 40 ns under `b`.
    const TWO_CONTEXTS: &str = "E main 0 1\nE a 10 1\nE f 20 1\nX f 30 1\nE f 40 1\nX f 45 1\nX a 50 1\nE b 100 1\nE f 110 1\nX f 150 1\nX b 160 1\nX main 200 1\n";

    fn loaded(path: &std::path::Path, keep: Keep) -> Loaded {
        let input = InputOptions {
            trace: path.to_path_buf(),
            per_call: Some(keep),
            ..InputOptions::default()
        };
        pipeline::load(&input, View::Contexts).unwrap()
    }

    fn function_rows(l: &Loaded) -> Rows {
        stats::rows(&l.built.tree, &l.built.funcs, &l.names, By::Function)
    }

    #[test]
    fn function_rows_keep_distributions_per_function_with_the_same_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two.txt");
        std::fs::write(&path, TWO_CONTEXTS).unwrap();
        let keep = keep(&StatsOptions::default());
        let by_function = loaded(&path, keep);
        check_per_call(&by_function, &StatsOptions::default()).unwrap();
        assert!(by_function.built.tree.dist.is_empty(), "kept per context");
        let by_context = loaded(&path, Keep::Total);
        assert_eq!(function_rows(&by_function), function_rows(&by_context));
        let rows = function_rows(&by_function);
        let f = rows.find("f").unwrap();
        let d = &f.dist.total;
        assert_eq!((d.count, d.min, d.max, d.max_at.start), (3, 5, 40, 110));
    }

    #[test]
    fn contexts_and_self_time_keep_what_they_show() {
        let mut opts = StatsOptions {
            by: By::Context,
            ..StatsOptions::default()
        };
        assert_eq!(keep(&opts), Keep::Total);
        opts.self_time = true;
        assert_eq!(keep(&opts), Keep::TotalAndSelf);
        opts.by = By::Function;
        assert_eq!(keep(&opts), Keep::TotalAndSelf);
    }
}
