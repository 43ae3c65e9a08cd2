//! The common front half of every command: open the trace, pick its format,
//! build the tree in the requested view, and name its functions (through
//! the objects the trace recorded, or against the binary: the one given,
//! else the executable the trace names when that file exists). Everything it had to repair or could not
//! resolve comes back as counted warnings, printed once by the binary.

use std::path::PathBuf;

use crate::calltree::{self, Built, View};
use crate::error::Result;
use crate::ingest::{self, Input, ParseOptions};
use crate::symbols::{self, FuncInfo, ResolveStats, SymbolOptions};

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
    /// Where the trace's objects are and how names are shown. Default is
    /// `nm -C` names, no search path.
    pub symbols: SymbolOptions,
}

impl Default for InputOptions {
    fn default() -> Self {
        InputOptions {
            trace: PathBuf::from("trace.txt"),
            binary: None,
            format: None,
            parse: ParseOptions::default(),
            rules: None,
            symbols: SymbolOptions::default(),
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
    let binary = opts
        .binary
        .clone()
        .or_else(|| recorded_binary(&built, opts));
    let resolvable = binary.is_some() || !built.meta.maps.is_empty();
    let (mut names, resolve) = if resolvable && built.funcs.has_addresses() {
        let (names, stats) =
            symbols::resolve(&built.funcs, &built.meta, binary.as_deref(), &opts.symbols)?;
        (names, Some(stats))
    } else {
        (symbols::names_without_binary(&built.funcs), None)
    };
    name_threads(&built, &mut names);
    let warnings = warnings(&built, resolve.as_ref(), resolvable);
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

/// The executable the trace was recorded from (or its copy in the search
/// path), when that file exists.
fn recorded_binary(built: &Built, opts: &InputOptions) -> Option<PathBuf> {
    let path = built.meta.exe_path.as_deref()?;
    symbols::locate(path, &opts.symbols.search_path)
}

/// Calls made to each function, by id (synthetic nodes count none).
fn calls_per_func(built: &Built) -> Vec<u64> {
    let mut calls = vec![0; built.funcs.len()];
    let tree = &built.tree;
    for n in 0..tree.len() as u32 {
        let f = tree.func(n);
        if !built.funcs.is_synthetic(f) {
            calls[f as usize] += tree.calls(n);
        }
    }
    calls
}

fn warnings(built: &Built, resolve: Option<&ResolveStats>, resolvable: bool) -> Vec<String> {
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
    if let Some(r) = resolve {
        w.extend(r.warnings.iter().cloned());
    }
    let calls = match resolve {
        Some(_) => calls_per_func(built),
        None => Vec::new(),
    };
    let called = |ids: &[usize]| ids.iter().filter(|&&f| calls[f] > 0).count();
    let some: u64 = resolve.map_or(0, |r| r.outside.iter().map(|&f| calls[f]).sum());
    if let Some(r) = resolve.filter(|_| some > 0) {
        let all: u64 = calls.iter().sum();
        w.push(format!(
            "{some} of {all} call(s) ({} function(s)) are at addresses outside the binary, in shared libraries, \
             and keep hex names: record the trace with calltrace's runtime (`calltrace runtime`), \
             which records the loaded libraries, to name them",
            called(&r.outside)
        ));
    }
    if let Some(r) = resolve.filter(|r| called(&r.hex) > 0) {
        w.push(format!(
            "{} of {} address(es) did not resolve to a function and keep their hex name",
            called(&r.hex),
            r.addresses
        ));
    }
    if !resolvable && built.funcs.has_addresses() {
        let hint = match &built.meta.exe_path {
            Some(p) => format!(" (the trace was recorded from {p})"),
            None => String::new(),
        };
        w.push(format!("no binary given: functions are shown as addresses; pass the traced executable to name them{hint}"));
    }
    w
}
