//! The common front half of every command: open the trace, pick its format,
//! build the tree in the requested view, and name its functions (through
//! the objects the trace recorded, or against the binary: the one given,
//! else the executable the trace names when that file exists). Everything
//! it had to repair or could not resolve comes back as counted warnings,
//! which the commands print before their output.
//!
//! Every read starts with one prologue, [`opened::Opened::open`] (BINARY
//! checked, the trace opened, its format picked), and reads through
//! [`opened::Opened::read`] (progress bar, the cut-off-line hint); the
//! entry points are short compositions of it:
//!
//! - [`load`]: one pass into a tree, named afterwards (`binary.rs` finds
//!   the program, `names.rs` names functions and threads);
//! - with filters, [`load`] builds the whole calling-context tree in
//!   one parallel pass and cuts it down to what the filter keeps
//!   (`cut.rs`, [`crate::calltree::filter`]); where the cut cannot tell
//!   (a time range, the calls view, repairs that depend on the kept
//!   frames, ...) it is [`scan`] (a first pass that names the functions
//!   and resolves the filter) then [`scanned::Scanned::build`] (the tree
//!   from a second pass through the filter), which the cut equals;
//! - [`scan`] then [`scanned::Scanned::replay`]: the second pass into any
//!   sink, through the same filter (the streamed exports, a dataset's
//!   calls);
//! - [`load_then_read`]: [`load`] without filters, then the same opened
//!   trace read again into any sink (`info`'s event counts).

mod binary;
mod cut;
mod names;
mod opened;
mod scanned;

use std::path::PathBuf;

use crate::calltree::{self, Built, View};
use crate::error::Result;
use crate::ingest::slice::Filter;
use crate::ingest::{FuncTable, ParseOptions, Sink};
use crate::symbols::{FuncInfo, FuncPattern, ResolveStats, SymbolOptions};
use names::Named;
use opened::{Opened, Reads};

pub(crate) use binary::{check_binary, is_trace_file, program};
pub(crate) use scanned::{Threads, scan};

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
    /// No progress bar, even on a terminal. Default is false.
    pub quiet: bool,
    /// Keep each node's per-call distributions (min, max and where,
    /// percentiles: [`calltree::Dist`]) in the contexts view: of
    /// inclusive time, or of self time too; or of inclusive time per
    /// function only ([`calltree::Keep::TotalByFunction`]), for commands
    /// that show no per-context numbers. Default is none.
    pub per_call: Option<calltree::Keep>,
    /// Threads, time range and functions to keep (`--tid`, `--time-range`,
    /// `--function`, `--exclude`). Default is everything.
    pub filter: Filter<FuncPattern>,
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
            quiet: false,
            per_call: None,
            filter: Filter::default(),
        }
    }
}

/// A trace turned into a named tree.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    /// The tree, its functions and what the format reported.
    pub built: Built,
    /// Names of `built.funcs`, indexed by function id.
    pub names: Vec<FuncInfo>,
    /// How symbol resolution went, when a binary was given.
    pub resolve: Option<ResolveStats>,
    /// Counted problems worth one line each on stderr.
    pub warnings: Vec<String>,
}

/// Reads, builds and names a trace: in one pass, or through the filters
/// (`cut.rs`: one pass cut down, else two).
pub(crate) fn load(opts: &InputOptions, view: View) -> Result<Loaded> {
    if !opts.filter.is_empty() {
        return cut::load(opts, view);
    }
    let opened = Opened::open(opts, Reads::Once)?;
    build_named(&opened, view, "reading")
}

/// [`load`] of a trace without filters, then a second read of the same
/// opened trace into `sink` (what `info` counts that the tree does not
/// keep): two passes, a pipe held in memory for the second.
pub(crate) fn load_then_read(
    opts: &InputOptions,
    view: View,
    sink: &mut dyn Sink,
) -> Result<Loaded> {
    let opened = Opened::open(opts, Reads::Again)?;
    let loaded = build_named(&opened, view, "pass 1/2")?;
    opened.read("pass 2/2", &mut FuncTable::default(), sink)?;
    Ok(loaded)
}

/// One read of `opened` into a tree in `view`, named.
fn build_named(opened: &Opened<'_>, view: View, label: &str) -> Result<Loaded> {
    let opts = opened.opts;
    let mut funcs = FuncTable::default();
    let mut builder = calltree::Builder::for_view(view, opts.per_call);
    let meta = opened.read(label, &mut funcs, &mut builder)?;
    let mut built = builder.finish(funcs, meta);
    let named = names::name(opts, &built.funcs, &mut built.meta)?;
    Ok(Loaded::finish(built, named, view))
}

impl Loaded {
    /// `built` named by `named`: one node per shown name, and the warnings.
    fn finish(mut built: Built, named: Named, view: View) -> Loaded {
        names::one_node_per_name(&mut built, &named.names, view);
        let warnings = names::warnings(&built, &named);
        Loaded {
            built,
            names: named.names,
            resolve: named.resolve,
            warnings,
        }
    }
}
