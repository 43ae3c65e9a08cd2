//! The common front half of every command: open the trace, pick its format,
//! build the tree in the requested view, and name its functions (through
//! the objects the trace recorded, or against the binary: the one given,
//! else the executable the trace names when that file exists). Everything it had to repair or could not
//! resolve comes back as counted warnings, which the commands print
//! before their output.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::calltree::{self, Built, View};
use crate::error::{Error, Result};
use crate::ingest::slice::{self, Filter, Slice, SliceSink, SliceStats};
use crate::ingest::{self, FuncId, FuncTable, Input, ParseOptions, Sink, TraceFormat, TraceMeta};
use crate::progress;
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
    pub filter: Filter,
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

/// Reads, builds and names a trace.
pub(crate) fn load(opts: &InputOptions, view: View) -> Result<Loaded> {
    if !opts.filter.is_empty() {
        return load_sliced(opts, view);
    }
    check_binary(opts.binary.as_deref())?;
    let input = open_trace(opts)?;
    let format = Format::pick(&input, opts)?;
    let mut built = read_pass(&input, opts, "reading", || {
        let builder = calltree::Builder::for_view(view, opts.per_call);
        calltree::build_with(&input, format.get(), &opts.parse, builder)
    })?;
    let (names, resolve, resolvable) = name(opts, &built.funcs, &mut built.meta)?;
    one_node_per_name(&mut built, &names, view);
    let warnings = warnings(&built, resolve.as_ref(), resolvable);
    Ok(Loaded {
        built,
        names,
        resolve,
        warnings,
    })
}

/// [`load`] through the filters: a first pass names the functions and
/// threads the filter picks and finds the earliest time (a trace's threads
/// need not come in time order), the second builds the tree through a
/// [`SliceSink`]. Sequential: the filter needs every event in order.
fn load_sliced(opts: &InputOptions, view: View) -> Result<Loaded> {
    check_binary(opts.binary.as_deref())?;
    let input = open_trace(opts)?;
    if input.is_stream() {
        let _whole: &[u8] = &input;
    }
    let format = Format::pick(&input, opts)?;
    let mut funcs = FuncTable::default();
    let mut earliest = Earliest::default();
    let mut meta = read_pass(&input, opts, "pass 1/2", || {
        format
            .get()
            .parse(&input, &opts.parse, &mut funcs, &mut earliest)
    })?;
    let (mut names, resolve, resolvable) = name(opts, &funcs, &mut meta)?;
    let slice = slice_of(opts, &funcs, &names, &meta, earliest.0)?;
    input.rewind();
    let mut builder = calltree::Builder::for_view(view, opts.per_call);
    // Start times count from the trace's earliest event, kept or not.
    if let Some(t) = earliest.0 {
        builder.set_origin(t);
    }
    let mut sink = SliceSink::new(&slice, &mut builder).dense_threads();
    let mut meta = read_pass(&input, opts, "pass 2/2", || {
        format
            .get()
            .parse(&input, &opts.parse, &mut funcs, &mut sink)
    })?;
    let stats = sink.finish();
    check_slice(opts, &stats, &meta)?;
    meta.name_threads_by_entry(|f| names.get(f as usize).map(|n| n.name.as_str()));
    keep_threads(&mut meta, &stats.threads);
    let mut built = builder.finish(funcs, meta);
    built.repairs.unclosed += stats.unclosed;
    built.repairs.orphan_exits += stats.orphan_exits;
    // The tree added its thread functions after those named.
    let plain = symbols::names_without_binary(&built.funcs);
    names.extend(plain.into_iter().skip(names.len()));
    name_threads(&built.funcs, &built.meta, &mut names);
    one_node_per_name(&mut built, &names, view);
    let warnings = warnings(&built, resolve.as_ref(), resolvable);
    Ok(Loaded {
        built,
        names,
        resolve,
        warnings,
    })
}

/// Leaves in `meta` the threads a dense [`SliceSink`] passed on, in its
/// order (`kept[i]` is the trace's index of its thread `i`).
fn keep_threads(meta: &mut TraceMeta, kept: &[u32]) {
    meta.threads = pick(&meta.threads, kept);
    if !meta.thread_names.is_empty() {
        meta.thread_names = pick(&meta.thread_names, kept);
    }
}

/// `all[i]` for each `i` of `kept`.
fn pick<T: Clone>(all: &[T], kept: &[u32]) -> Vec<T> {
    kept.iter()
        .filter_map(|&i| all.get(i as usize).cloned())
        .collect()
}

/// The filter of `opts` resolved for a trace whose functions `funcs` are
/// named `names`, and whose earliest event is at `origin`.
pub(crate) fn slice_of(
    opts: &InputOptions,
    funcs: &FuncTable,
    names: &[FuncInfo],
    meta: &TraceMeta,
    origin: Option<u64>,
) -> Result<Slice> {
    let short: Vec<String> = names.iter().map(|n| symbols::short_form(&n.name)).collect();
    let pairs: Vec<(&str, &str)> = names
        .iter()
        .zip(&short)
        .map(|(n, s)| (n.name.as_str(), s.as_str()))
        .collect();
    slice::resolve(&opts.filter, funcs, &pairs, meta, origin)
}

/// Refuses what the filter could not do to the trace: cut an indented
/// tree, cut an untimed trace by time, or keep anything of a time range
/// in which no call starts.
pub(crate) fn check_slice(opts: &InputOptions, stats: &SliceStats, meta: &TraceMeta) -> Result<()> {
    let file = opts.trace.display();
    let f = &opts.filter;
    if stats.got_nodes && f.needs_events() {
        return Err(Error::Input(format!(
            "--function, --exclude and --time-range need a trace of entries and exits; {file} is an indented tree"
        )));
    }
    let Some(range) = f.range else {
        return Ok(());
    };
    if !meta.timed || meta.unit != ingest::Unit::Nanos {
        return Err(Error::usage(
            "--time-range",
            format!("{file} has no timestamps in nanoseconds, so it cannot be cut by time"),
        ));
    }
    if stats.kept_calls == 0 {
        let length = stats
            .last_time
            .saturating_sub(stats.first_time.unwrap_or(stats.last_time));
        return Err(Error::usage(
            "--time-range",
            format!(
                "no call starts in {range}{}; {file} lasts {}",
                match f.tids.is_empty() && f.function.is_empty() {
                    true => "",
                    false => " (on the threads and functions kept)",
                },
                slice::show_time(length)
            ),
        ));
    }
    Ok(())
}

/// A BINARY given on the command line must be there, whatever the trace
/// (one with mappings would otherwise name nothing, with a warning only).
pub(crate) fn check_binary(binary: Option<&Path>) -> Result<()> {
    let Some(binary) = binary else {
        return Ok(());
    };
    let meta = std::fs::metadata(binary).map_err(|e| Error::io(binary, e))?;
    if meta.is_dir() && ingest::uftrace::is_recording(binary) {
        let name = binary.display();
        return Err(Error::Input(format!(
            "{name} is a uftrace recording; did you mean `--trace {name}`?"
        )));
    }
    if meta.is_dir() {
        return Err(Error::Input(format!(
            "{}: is a directory; expected the traced executable",
            binary.display()
        )));
    }
    if meta.is_file() {
        check_is_program(binary)?;
    }
    Ok(())
}

/// A BINARY that is not an ELF file is refused: a trace given there
/// (`calltrace graph mytrace.txt`) would otherwise leave `trace.txt` read
/// in its place, its names missing, with exit code 0.
fn check_is_program(binary: &Path) -> Result<()> {
    let head = head_of(binary)?;
    if head.starts_with(ELF_MAGIC) {
        return Ok(());
    }
    let name = binary.display();
    if ingest::guess::is_trace(&head) {
        return Err(Error::Input(format!(
            "{name} is a trace; did you mean `--trace {name}`?"
        )));
    }
    Err(Error::Input(format!(
        "{name}: not an ELF executable; BINARY is the traced program (built with `gcc -g -finstrument-functions`)"
    )))
}

const ELF_MAGIC: &[u8] = b"\x7fELF";

/// The first bytes of `path`, as many as format sniffing looks at.
fn head_of(path: &Path) -> Result<Vec<u8>> {
    let mut head = Vec::with_capacity(ingest::guess::HEAD);
    std::fs::File::open(path)
        .and_then(|f| f.take(ingest::guess::HEAD as u64).read_to_end(&mut head))
        .map_err(|e| Error::io(path, e))?;
    Ok(head)
}

/// True when `path` is a regular file that is a trace rather than a program.
pub(crate) fn is_trace_file(path: &Path) -> bool {
    path.is_file()
        && head_of(path).is_ok_and(|h| !h.starts_with(ELF_MAGIC) && ingest::guess::is_trace(&h))
}

/// Opens the trace. When there is none and BINARY cannot have written one
/// (built without calltrace's runtime, whose hooks glibc replaces with
/// empty ones), the error says so and how to link it.
fn open_trace(opts: &InputOptions) -> Result<Input> {
    Input::open(&opts.trace).map_err(|e| {
        let missing =
            matches!(&e, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound);
        match opts.binary.as_deref().filter(|_| missing) {
            Some(binary) => match symbols::runtime_hint(binary) {
                Some(hint) => Error::Input(format!("{e}; {hint}")),
                None => e,
            },
            None => e,
        }
    })
}

/// One read of the trace (`work`), every front door's (`load`,
/// `load_sliced`, `scan`, `parse_again`): with the progress bar, and an
/// error at a cut-off last line saying so ([`cut_off_hint`]).
fn read_pass<T>(
    input: &Input,
    opts: &InputOptions,
    label: &str,
    work: impl FnOnce() -> Result<T>,
) -> Result<T> {
    progress::follow(input, opts.quiet, label, work).map_err(|e| cut_off_hint(e, input))
}

/// A bad last line of a text trace that has no line end is a line the
/// program was killed in the middle of writing (the runtime's text trace
/// survives `_exit` and `abort`, not `SIGKILL`): the error says so, and how
/// to read the rest.
fn cut_off_hint(e: Error, input: &Input) -> Error {
    let Error::Parse { path, line, msg } = e else {
        return e;
    };
    let bytes: &[u8] = if input.is_stream() { &[] } else { input };
    let cut = !bytes.is_empty()
        && bytes.last() != Some(&b'\n')
        && !bytes.starts_with(ingest::binary::MAGIC)
        && memchr::memchr_iter(b'\n', bytes).count() as u64 + 1 == line;
    let msg = if cut {
        format!(
            "{msg}; this is the trace's last line and it has no line end: the program was cut off while writing it (--lenient skips it)"
        )
    } else {
        msg
    };
    Error::Parse { path, line, msg }
}

/// Functions shown under one name are one function of the tree: copies
/// of one global function in several objects, and with `--demangle
/// simple` the overloads and template instances it names alike, as
/// uftrace shows them (`snappy::Compress` once, not four boxes of that
/// name). Their nodes go to the first of them; a contexts tree then folds
/// the paths that became equal. Threads keep their own nodes.
fn one_node_per_name(built: &mut Built, names: &[FuncInfo], view: View) {
    let mut first: HashMap<&str, FuncId> = HashMap::new();
    let canon: Vec<FuncId> = names
        .iter()
        .enumerate()
        .map(|(i, info)| {
            let id = i as FuncId;
            if built.funcs.is_synthetic(id) {
                id
            } else {
                *first.entry(info.name.as_str()).or_insert(id)
            }
        })
        .collect();
    if canon.iter().enumerate().all(|(i, &c)| c as usize == i) {
        return;
    }
    built
        .tree
        .rename_funcs(|f| canon.get(f as usize).copied().unwrap_or(f));
    if view == View::Contexts {
        built.tree = calltree::fold_paths(&built.tree, &built.funcs);
    }
}

/// The format a trace is read with: a built-in one, or `--rules`.
pub(crate) enum Format {
    /// Forced by `--format` or sniffed.
    Builtin(&'static dyn TraceFormat),
    /// A rules file.
    Rules(ingest::RulesFormat),
}

impl Format {
    /// The rules file when one is given, else the forced or sniffed format.
    pub(crate) fn pick(input: &Input, opts: &InputOptions) -> Result<Format> {
        Ok(match &opts.rules {
            Some(path) => Format::Rules(ingest::RulesFormat::load(path)?),
            None => Format::Builtin(ingest::guess::detect(input, opts.format.as_deref())?),
        })
    }

    /// The format itself.
    pub(crate) fn get(&self) -> &dyn TraceFormat {
        match self {
            Format::Builtin(f) => *f,
            Format::Rules(r) => r,
        }
    }
}

/// Names the functions of a parsed trace (through the recorded objects or
/// the binary) and threads by the names the format gave them; also says
/// whether addresses could be resolved at all.
fn name(
    opts: &InputOptions,
    funcs: &FuncTable,
    meta: &mut TraceMeta,
) -> Result<(Vec<FuncInfo>, Option<ResolveStats>, bool)> {
    let binary = opts.binary.clone().or_else(|| recorded_binary(meta, opts));
    // An XRay log without its binary is refused by `symbols::resolve`.
    let resolvable = binary.is_some() || !meta.maps.is_empty() || meta.xray_ids;
    let (mut names, resolve) = if resolvable && funcs.has_addresses() {
        let (names, stats) = symbols::resolve(funcs, meta, binary.as_deref(), &opts.symbols)?;
        (names, Some(stats))
    } else {
        (symbols::names_without_binary(funcs), None)
    };
    meta.name_threads_by_entry(|f| names.get(f as usize).map(|n| n.name.as_str()));
    name_threads(funcs, meta, &mut names);
    Ok((names, resolve, resolvable))
}

/// The traced program to read: BINARY, else the executable the trace
/// recorded, when it can be found.
pub(crate) fn program(opts: &InputOptions, meta: &TraceMeta) -> Option<PathBuf> {
    opts.binary.clone().or_else(|| recorded_binary(meta, opts))
}

/// Shows threads the format named (`[task 4]`) by that name.
/// (A map from thread id to index, not a search per thread: 400k threads.)
fn name_threads(funcs: &FuncTable, meta: &TraceMeta, names: &mut [FuncInfo]) {
    if meta.thread_names.iter().all(String::is_empty) {
        return;
    }
    let mut index: rustc_hash::FxHashMap<u64, usize> = Default::default();
    for (ix, &tid) in meta.threads.iter().enumerate() {
        index.entry(tid).or_insert(ix);
    }
    for (i, key) in funcs.keys().iter().enumerate() {
        if let ingest::FuncKey::Thread(tid) = key
            && let Some(&ix) = index.get(tid)
            && let Some(name) = meta.thread_names.get(ix).filter(|n| !n.is_empty())
        {
            names[i].name = format!("[{name}]");
        }
    }
}

/// A trace read once without building anything: its functions, named, and
/// what the format reported. For outputs written straight from a second
/// pass over the events ([`Scanned::parse_again`]).
pub(crate) struct Scanned {
    /// The opened trace.
    pub input: Input,
    /// Its format.
    pub format: Format,
    /// Functions in first-appearance order.
    pub funcs: FuncTable,
    /// What the format reported.
    pub meta: TraceMeta,
    /// Names of `funcs`.
    pub names: Vec<FuncInfo>,
    /// Counted problems worth one line each on stderr.
    pub warnings: Vec<String>,
    /// Time of the earliest event, if any.
    pub start: Option<u64>,
}

/// Reads and names a trace, discarding its events. A pipe is read whole
/// into memory first: it cannot be read the second time
/// [`Scanned::parse_again`] needs.
pub(crate) fn scan(opts: &InputOptions) -> Result<Scanned> {
    check_binary(opts.binary.as_deref())?;
    let input = open_trace(opts)?;
    if input.is_stream() {
        let _whole: &[u8] = &input;
    }
    let format = Format::pick(&input, opts)?;
    let mut funcs = FuncTable::default();
    let mut earliest = Earliest::default();
    let mut meta = read_pass(&input, opts, "pass 1/2", || {
        format
            .get()
            .parse(&input, &opts.parse, &mut funcs, &mut earliest)
    })?;
    let (names, resolve, resolvable) = name(opts, &funcs, &mut meta)?;
    let built = Built {
        tree: Default::default(),
        funcs,
        meta,
        repairs: Default::default(),
    };
    let warnings = warnings(&built, resolve.as_ref(), resolvable);
    Ok(Scanned {
        input,
        format,
        funcs: built.funcs,
        meta: built.meta,
        names,
        warnings,
        start: earliest.0,
    })
}

impl Scanned {
    /// Parses the trace again into `sink`; function ids are those of the first pass.
    pub(crate) fn parse_again(&self, opts: &InputOptions, sink: &mut dyn Sink) -> Result<()> {
        let mut funcs = self.funcs.clone();
        self.input.rewind();
        read_pass(&self.input, opts, "pass 2/2", || {
            self.format
                .get()
                .parse(&self.input, &opts.parse, &mut funcs, sink)
        })?;
        Ok(())
    }
}

/// A sink that keeps only the earliest event time.
#[derive(Default)]
struct Earliest(Option<u64>);

impl ingest::EventSink for Earliest {
    fn events(&mut self, events: &[ingest::Event]) {
        let min = events.iter().map(|e| e.time).min();
        self.0 = self.0.into_iter().chain(min).min();
    }
}

impl ingest::NodeSink for Earliest {
    fn node(&mut self, _: ingest::NodeRecord) {}
}

/// The executable the trace was recorded from (or its copy in the search
/// path), when that file exists.
fn recorded_binary(meta: &TraceMeta, opts: &InputOptions) -> Option<PathBuf> {
    let path = meta.exe_path.as_deref()?;
    symbols::locate(path, &opts.symbols.search_path)
}

/// Calls made to each function, by id (synthetic nodes count none).
fn calls_per_func(built: &Built) -> Vec<u64> {
    let mut calls = vec![0u64; built.funcs.len()];
    let tree = &built.tree;
    for n in 0..tree.len() as u32 {
        let f = tree.func(n);
        if !built.funcs.is_synthetic(f) {
            calls[f as usize] = calls[f as usize].saturating_add(tree.calls(n));
        }
    }
    calls
}

fn warnings(built: &Built, resolve: Option<&ResolveStats>, resolvable: bool) -> Vec<String> {
    let mut w = built.meta.warnings.clone();
    if built.meta.skipped_lines > 0 {
        let first = built.meta.first_skipped.as_deref().unwrap_or("");
        let what = built.meta.piece();
        w.push(format!(
            "skipped {} malformed {what}(s) (--lenient); first: {first}",
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
            "{} of {} address(es) did not resolve to a function and keep an address for a name",
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
