//! `calltrace compare`: the abstraction paper's evaluation on your own test
//! patterns in one run. Every trace is a pattern; [`crate::compare::compare`]
//! analyses them in parallel (a progress bar on stderr when it is a
//! terminal), then the tables (`rates.csv`, `sweep.csv`, `groups.csv`,
//! `features.csv`) and figures (`sweep.svg`, `rates.svg`) are rendered in
//! memory and only then written, each atomically, into the output
//! directory; a bad trace therefore leaves no output behind. A short table
//! of node counts goes to stdout.

use std::path::{Path, PathBuf};

use super::files::{CommandFiles, Files, inputs_of};
use super::{Outcome, counted};
use crate::abstraction::ModuleSource;
use crate::compare::{Config, Report};
use crate::emit::{self, compare};
use crate::error::{Error, Result};

/// Options of `calltrace compare`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareOptions {
    /// `TRACE` arguments: files, `NAME=PATH` or directories (the program,
    /// when the first argument was one, is `config.input.binary`).
    /// Default is none.
    pub(crate) traces: Vec<String>,
    /// `--modules` value: CSV path, `auto`, `auto:file`, `auto:dir` or
    /// `auto:prefix`. Default is none: `auto`, picked per pattern, as
    /// `abstract` does.
    pub(crate) modules: Option<crate::abstraction::ModulesArg>,
    /// Where the files go. Default is `compare-out`.
    pub(crate) out_dir: PathBuf,
    /// Everything else every pattern is analysed with (its `modules` come
    /// from the field above). Default is [`Config::default`].
    pub(crate) config: Config,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            traces: Vec::new(),
            modules: None,
            out_dir: PathBuf::from(DEFAULT_OUT_DIR),
            config: Config::default(),
        }
    }
}

/// Default output directory.
pub const DEFAULT_OUT_DIR: &str = "compare-out";

/// Said when no module table was given.
const AUTO_MODULES_NOTE: &str = "no --modules given: using --modules auto, which picks \
     source files, directories or name prefixes for each pattern \
     (give a CSV table for the same modules in every pattern)";

/// Runs `calltrace compare`.
pub fn run(opts: &CompareOptions) -> Result<Outcome> {
    if let Some(b) = opts
        .config
        .input
        .binary
        .as_deref()
        .filter(|b| crate::pipeline::is_trace_file(b))
    {
        return Err(Error::usage(
            "--binary",
            format!(
                "{} is a trace, not the traced program; give it as a TRACE argument",
                b.display()
            ),
        ));
    }
    let mut skipped = Vec::new();
    let patterns = crate::compare::patterns::from_args_noting(traces(opts)?, &mut skipped)
        .map_err(|e| e.for_flag("TRACE"))?;
    let config = config(opts)?;
    let bar = crate::progress::patterns(patterns.len() as u64, opts.config.input.quiet);
    let result = crate::compare::compare(&patterns, &config, &|| bar.inc(1));
    bar.finish_and_clear();
    let report = result.map_err(|e| e.for_flag("--modules"))?;
    let files = compare::render(&report)?;
    write_all(&opts.out_dir, &files)?;
    super::warn_now(&warnings(&report));
    emit::write_atomic(Path::new("-"), compare::table::table(&report).as_bytes())?;
    let mut notes = Vec::new();
    if !skipped.is_empty() {
        let shown: Vec<String> = skipped.iter().map(|p| p.display().to_string()).collect();
        notes.push(format!(
            "left out (no trace format reads them): {}",
            shown.join(", ")
        ));
    }
    if opts.modules.is_none() {
        notes.push(AUTO_MODULES_NOTE.to_string());
    }
    notes.push(written(&opts.out_dir, &files));
    Ok(Outcome {
        warnings: Vec::new(),
        notes,
    })
}

fn config(opts: &CompareOptions) -> Result<Config> {
    Ok(Config {
        modules: match &opts.modules {
            Some(m) => ModuleSource::from_arg(m).map_err(|e| e.for_flag("--modules"))?,
            None => ModuleSource::Auto,
        },
        given: crate::symbols::given_segments(&opts.config.input.symbols)
            .map_err(|e| e.for_flag("--object"))?,
        ..opts.config.clone()
    })
}

/// The traces, refused when there are none (all that was given was the
/// program: `[BINARY]` is split off by the command line).
fn traces(opts: &CompareOptions) -> Result<&[String]> {
    match opts.traces.is_empty() {
        true => Err(Error::usage(
            "TRACE",
            "expected at least one trace after the program (BINARY)",
        )),
        false => Ok(&opts.traces),
    }
}

impl CommandFiles for CompareOptions {
    fn files(&self) -> Result<Files> {
        let patterns =
            crate::compare::patterns::from_args(traces(self)?).map_err(|e| e.for_flag("TRACE"))?;
        let traces = patterns.into_iter().map(|p| ("TRACE", p.path));
        let inputs = inputs_of(traces, &self.config.input, self.modules.as_ref());
        // Every file compare may write (protection.csv only with some
        // options; checked always).
        let outputs = compare::OUTPUTS
            .iter()
            .map(|o| ("--out-dir", self.out_dir.join(o.name)))
            .collect();
        Ok(Files { inputs, outputs })
    }
}

fn write_all(dir: &Path, files: &[(&str, Vec<u8>)]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let set: Vec<_> = files
        .iter()
        .map(|(n, b)| (dir.join(n), b.clone()))
        .collect();
    emit::write_atomic_set(&set) // all or nothing
}

fn written(dir: &Path, files: &[(&str, Vec<u8>)]) -> String {
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    format!(
        "wrote {} to {}: {}",
        counted(files.len(), "file", "files"),
        dir.display(),
        names.join(" ")
    )
}

/// Load warnings, each message once, naming the patterns it concerns.
fn warnings(report: &Report) -> Vec<String> {
    let mut by_msg: Vec<(&str, Vec<&str>)> = Vec::new();
    for p in &report.patterns {
        for w in &p.warnings {
            match by_msg.iter_mut().find(|(m, _)| m == w) {
                Some((_, names)) => names.push(&p.name),
                None => by_msg.push((w, vec![&p.name])),
            }
        }
    }
    let all = report.patterns.len();
    by_msg
        .into_iter()
        .map(|(msg, names)| match names[..] {
            [one] => format!("{one}: {msg}"),
            _ if names.len() == all => format!("{msg} (all {all} patterns)"),
            _ => format!(
                "{msg} ({}: {})",
                counted(names.len(), "pattern", "patterns"),
                short_list(&names)
            ),
        })
        .collect()
}

/// `a, b, c, d, e and 3 more`.
fn short_list(names: &[&str]) -> String {
    const SHOWN: usize = 5;
    match names.len() {
        n if n <= SHOWN => names.join(", "),
        n => format!("{} and {} more", names[..SHOWN].join(", "), n - SHOWN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_pattern_lists_are_shortened() {
        assert_eq!(short_list(&["a", "b"]), "a, b");
        let many = ["a", "b", "c", "d", "e", "f", "g"];
        assert_eq!(short_list(&many), "a, b, c, d, e and 2 more");
    }
}
