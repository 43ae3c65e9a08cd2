//! The common front half of every command: open the trace, pick its format,
//! build the tree in the requested view, and name its functions (against
//! the binary when one is given). Everything it had to repair or could not
//! resolve comes back as counted warnings, printed once by the binary.

use std::path::{Path, PathBuf};

use crate::calltree::{self, Built, View};
use crate::error::Result;
use crate::ingest::{self, Input, ParseOptions};
use crate::symbols::{self, FuncInfo, ResolveStats};

/// Where the trace and the binary are and how to read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputOptions {
    /// The trace file, `-` for stdin. Default is `trace.txt`.
    pub trace: PathBuf,
    /// The traced executable; without it addresses stay hex. Default is none.
    pub binary: Option<PathBuf>,
    /// Forced format name; None sniffs it. Default is none.
    pub format: Option<String>,
    /// Skip malformed lines instead of failing. Default is false.
    pub parse: ParseOptions,
    /// Rules file that reads the trace as a log (`--rules`). Default is none.
    pub rules: Option<PathBuf>,
}

impl Default for InputOptions {
    fn default() -> Self {
        InputOptions {
            trace: PathBuf::from("trace.txt"),
            binary: None,
            format: None,
            parse: ParseOptions::default(),
            rules: None,
        }
    }
}

/// A trace turned into a named tree.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The tree, its functions and what the format reported.
    pub built: Built,
    /// Names of `built.funcs`, indexed by function id.
    pub names: Vec<FuncInfo>,
    /// How symbol resolution went, when a binary was given.
    pub resolve: Option<ResolveStats>,
    /// Counted problems worth one line each on stderr.
    pub warnings: Vec<String>,
}

/// Reads, builds and names a trace.
pub fn load(opts: &InputOptions, view: View) -> Result<Loaded> {
    let input = Input::open(&opts.trace)?;
    let rules = opts
        .rules
        .as_deref()
        .map(ingest::RulesFormat::load)
        .transpose()?;
    let format: &dyn ingest::TraceFormat = match &rules {
        Some(r) => r,
        None => ingest::guess::detect(&input, opts.format.as_deref())?,
    };
    let built = calltree::build(&input, format, &opts.parse, view)?;
    let (mut names, resolve) = match &opts.binary {
        Some(bin) if built.funcs.has_addresses() => {
            let (names, stats) = symbols::resolve(&built.funcs, bin, built.meta.base)?;
            (names, Some(stats))
        }
        _ => (symbols::names_without_binary(&built.funcs), None),
    };
    name_threads(&built, &mut names);
    let warnings = warnings(&built, resolve.as_ref(), opts.binary.as_deref());
    Ok(Loaded {
        built,
        names,
        resolve,
        warnings,
    })
}

/// Shows threads the format named (`[task 4]`) by that name.
fn name_threads(built: &Built, names: &mut [FuncInfo]) {
    let meta = &built.meta;
    for (i, key) in built.funcs.keys().iter().enumerate() {
        if let ingest::FuncKey::Thread(tid) = key
            && let Some(ix) = meta.threads.iter().position(|t| t == tid)
            && let Some(name) = meta.thread_names.get(ix).filter(|n| !n.is_empty())
        {
            names[i].name = format!("[{name}]");
        }
    }
}

fn warnings(built: &Built, resolve: Option<&ResolveStats>, binary: Option<&Path>) -> Vec<String> {
    let mut w = built.meta.warnings.clone();
    if built.meta.skipped_lines > 0 {
        let first = built.meta.first_skipped.as_deref().unwrap_or("");
        w.push(format!(
            "skipped {} malformed line(s) (--lenient); first: {first}",
            built.meta.skipped_lines
        ));
    }
    if !built.repairs.is_clean() {
        w.push(format!("repaired unbalanced trace: {}", built.repairs));
    }
    if let Some(r) = resolve.filter(|r| r.unresolved > 0) {
        w.push(format!(
            "{} of {} address(es) did not resolve to a function and keep their hex name",
            r.unresolved, r.addresses
        ));
    }
    if binary.is_none() && built.funcs.has_addresses() {
        let hint = match &built.meta.exe_path {
            Some(p) => format!(" (the trace was recorded from {p})"),
            None => String::new(),
        };
        w.push(format!("no binary given: functions are shown as addresses; pass the traced executable to name them{hint}"));
    }
    w
}
