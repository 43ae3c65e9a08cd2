//! `calltrace export --to FORMAT -o FILE`: the trace in a format other
//! tools read (collapsed stacks, flame graph, Chrome trace, callgrind,
//! JSON; see `emit::export`). With abstraction flags (`--threshold`,
//! `--merge-modules`, `--min-total`, ...) the abstracted tree is exported.
//! The format's shape (`emit::export::Shape`, known before the trace is
//! read, so every format opens the trace once) picks the path: a streamed
//! format (chrome, tlv, perfetto) is written straight from a second pass
//! over the events when there is no abstraction and no `--view`, so its
//! memory does not grow with the trace (except from a pipe, which is held
//! in memory for the second pass); a dataset (parquet) with `--view calls`
//! adds a table of every call from another pass. Both passes are the
//! pipeline's (`pipeline::scan`), filters included.

use std::io::Write;
use std::path::PathBuf;

use super::Outcome;
use super::files::{CommandFiles, Files, inputs_of};
use crate::abstraction::Options;
use crate::abstraction::trace::abstract_trace;
use crate::calltree::{Keep, Stat, View};
use crate::emit::export::{self, DatasetExporter, Exported, Shape, StreamExporter};
use crate::emit::write_atomic_with;
use crate::error::{Error, Result};
use crate::ingest::Sink;
use crate::pipeline::{self, InputOptions, Threads};
use crate::symbols::FuncInfo;

/// Options of `calltrace export`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportOptions {
    /// Trace, binary and parsing options.
    pub(crate) input: InputOptions,
    /// The format's `--to` name. Default is `folded`.
    pub(crate) to: String,
    /// Where the output goes, `-` for stdout. Default is `-`.
    pub(crate) output: PathBuf,
    /// Abstraction to apply first; no method exports the whole tree in
    /// `view` (None: the format's own, calls for chrome, else contexts).
    /// Default is no method.
    pub(crate) abstraction: Options,
    /// `--max-depth`: folded and flame graph stacks end at this depth, the
    /// last frame weighing its subtree. Default is None, no limit.
    pub(crate) max_depth: Option<u32>,
    /// `--run-id`: the run's id in a dataset export (parquet). Default is
    /// None: the name of the `-o` directory.
    pub(crate) run_id: Option<String>,
    /// `--show`: per-call numbers of each node (json only). Default is none.
    pub(crate) show: Vec<Stat>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            input: InputOptions::default(),
            to: "folded".to_string(),
            output: PathBuf::from("-"),
            abstraction: Options::default(),
            max_depth: None,
            run_id: None,
            show: Vec::new(),
        }
    }
}

/// Runs `calltrace export`.
pub fn run(opts: &ExportOptions) -> Result<Outcome> {
    let shape = export::by_name(&opts.to).ok_or_else(|| {
        let names = export::names();
        Error::usage(
            "--to",
            format!("expected one of {names}, found `{}`", opts.to),
        )
    })?;
    check_flags(shape, opts)?;
    let abstracting = !opts.abstraction.no_method();
    let view = opts.abstraction.view;
    // Chosen before anything is read, so the trace is read once either way
    // (and a pipe read by a first pass would leave nothing for the tree).
    match shape {
        Shape::Stream(e) if !abstracting && view.is_none() => return stream(e, opts),
        Shape::Dataset(e) if !abstracting && view == Some(View::Calls) => {
            return calls_dataset(e, opts);
        }
        _ => {}
    }
    let mut input = match linkage_names(shape) || matches!(shape, Shape::Dataset(_)) {
        true => linkage_input(&opts.input),
        false => opts.input.clone(),
    };
    input.per_call = (!opts.show.is_empty()).then_some(Keep::Total);
    if abstracting {
        let a = abstract_trace(&input, &opts.abstraction).map_err(|e| e.for_flag("--modules"))?;
        super::warn_now(&a.loaded.warnings);
        write(shape, opts, &a.loaded, &a.outcome.tree)?;
        let mut notes = a.notes.clone();
        notes.extend(wrote(opts));
        return Ok(Outcome {
            warnings: Vec::new(),
            notes,
        });
    }
    let loaded = pipeline::load(&input, view.unwrap_or(shape.view()))?;
    super::warn_now(&loaded.warnings);
    write(shape, opts, &loaded, &loaded.built.tree)?;
    Ok(Outcome {
        warnings: Vec::new(),
        notes: wrote(opts),
    })
}

/// Refuses flags the format has no use for: a dataset written to standard
/// output, `--show` where there is no place for per-call numbers.
fn check_flags(shape: Shape, opts: &ExportOptions) -> Result<()> {
    if matches!(shape, Shape::Dataset(_)) && opts.output.as_os_str() == "-" {
        return Err(Error::usage(
            "--output",
            format!("--to {} writes a directory: give one with -o DIR", opts.to),
        ));
    }
    if !opts.show.is_empty() && !shape.shows_per_call() {
        let which: Vec<&str> = export::exporters()
            .iter()
            .filter(|e| e.shows_per_call())
            .map(|e| e.name())
            .collect();
        return Err(Error::usage(
            "--show",
            format!(
                "--to {} has no place for per-call numbers; --to {} has",
                opts.to,
                which.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Whether a one-file format writes linkage names beside the shown ones.
fn linkage_names(shape: Shape) -> bool {
    matches!(shape, Shape::Tree(e) if e.wants_linkage_names())
}

/// Writes `tree`, of the trace `loaded`, in the format `shape`.
fn write(
    shape: Shape,
    opts: &ExportOptions,
    loaded: &pipeline::Loaded,
    tree: &crate::calltree::Tree,
) -> Result<()> {
    let linkage = linkage_names(shape);
    // Read with linkage names, shown as --demangle says.
    let demangled = linkage.then(|| shown(&loaded.names, opts.input.symbols.demangle));
    let title = opts.input.trace.display().to_string();
    let t = Exported {
        tree,
        funcs: &loaded.built.funcs,
        names: demangled.as_deref().unwrap_or(&loaded.names),
        title: &title,
        max_depth: opts.max_depth,
        command: &command(opts, loaded),
        meta: &loaded.built.meta,
        show: &opts.show,
        linkage: linkage.then_some(&loaded.names[..]),
    };
    match shape {
        Shape::Tree(e) => {
            warn_about(e.check(&t)?);
            write_counted(&opts.output, |out| e.write(&t, out))?;
        }
        Shape::Stream(e) => {
            let bytes = write_counted(&opts.output, |out| export::write_tree(e, &t, out))?;
            warn_if_huge(e.name(), bytes);
        }
        Shape::Dataset(e) => {
            warn_about(e.check(&t)?);
            let warnings = write_dir(e, opts, loaded, &t, None)?;
            super::warn_now(&warnings);
        }
    }
    Ok(())
}

/// Prints the warning a format's check gave, if any.
fn warn_about(warning: Option<String>) {
    if let Some(warning) = warning {
        super::warn_now(&[warning]);
    }
}

/// Writes a streamed format from the trace's events: a first pass for
/// names and threads, a second one through the format's sink.
fn stream(exporter: &dyn StreamExporter, opts: &ExportOptions) -> Result<Outcome> {
    let scanned = pipeline::scan(&opts.input)?;
    super::warn_now(&scanned.warnings);
    let (names, funcs, meta) = (scanned.names(), &scanned.funcs, &scanned.meta);
    let mut failed = None;
    let bytes = write_counted(&opts.output, |out| {
        let mut sink = exporter.sink(names, funcs, &meta.threads, meta.timed, out);
        if let Err(e) = scanned.replay(&mut *sink, Threads::AsTrace) {
            failed = Some(e);
            return Err(std::io::Error::other("the trace changed while it was read"));
        }
        sink.finish()
    })
    .map_err(|e| failed.take().unwrap_or(e))?;
    warn_if_huge(exporter.name(), bytes);
    Ok(Outcome {
        warnings: Vec::new(),
        notes: wrote(opts),
    })
}

/// Writes `path` as [`write_atomic_with`] does; the bytes written.
fn write_counted(
    path: &std::path::Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<u64> {
    let mut bytes = 0;
    write_atomic_with(path, |out| {
        let mut counted = Counted { out, bytes: 0 };
        let result = fill(&mut counted);
        bytes = counted.bytes;
        result
    })?;
    Ok(bytes)
}

/// A writer counting the bytes that go through it.
struct Counted<'a> {
    out: &'a mut dyn Write,
    bytes: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A streamed format's output ([`StreamExporter`]) bigger than this gets a
/// warning: 1 GiB (a 200 KB trace made a 1.9 GB Chrome trace, which no
/// viewer opens).
const HUGE_TIMELINE: u64 = 1 << 30;

/// The size past which a timeline export warns: [`HUGE_TIMELINE`], or
/// for tests only, the bytes in `CALLTRACE_TEST_HUGE_OUTPUT` (so a test
/// need not write a gigabyte).
fn huge_timeline() -> u64 {
    std::env::var("CALLTRACE_TEST_HUGE_OUTPUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(HUGE_TIMELINE)
}

/// Warns when a streamed format `--to name` (a timeline of every call)
/// wrote more than [`huge_timeline`] bytes (the output is kept).
fn warn_if_huge(name: &str, bytes: u64) {
    if bytes > huge_timeline() {
        super::warn_now(&[huge_warning(name, bytes)]);
    }
}

/// The warning about a `bytes`-long timeline export `--to name`.
fn huge_warning(name: &str, bytes: u64) -> String {
    format!(
        "--to {name} wrote {} (one event per call), more than viewers open with ease: give --time-range or --tid to export a part of the trace",
        size(bytes)
    )
}

/// `bytes` for people: `1.9 GiB`, `12.0 KiB`, `900 bytes`.
fn size(bytes: u64) -> String {
    let units = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    match units.iter().find(|&&(u, _)| bytes >= u) {
        Some(&(u, name)) => format!("{:.1} {name}", bytes as f64 / u as f64),
        None => format!("{bytes} bytes"),
    }
}

/// `names` (linkage names) as `--demangle` shows them.
fn shown(names: &[FuncInfo], style: crate::symbols::Demangle) -> Vec<FuncInfo> {
    names
        .iter()
        .map(|i| FuncInfo {
            name: crate::symbols::demangle(&i.name, style),
            ..i.clone()
        })
        .collect()
}

/// Writes a dataset into `-o DIR`.
fn write_dir(
    exporter: &dyn DatasetExporter,
    opts: &ExportOptions,
    loaded: &pipeline::Loaded,
    t: &Exported<'_>,
    replay: Option<&export::Replay<'_>>,
) -> Result<Vec<String>> {
    let meta = &loaded.built.meta;
    // Read with linkage names (`linkage_input`); shown as --demangle says.
    let shown = shown(&loaded.names, opts.input.symbols.demangle);
    let t = Exported {
        names: &shown,
        ..*t
    };
    let build_id = program_build_id(opts, meta);
    let id = run_id(opts);
    let run = export::Run {
        id: &id,
        meta,
        linkage: &loaded.names,
        build_id: build_id.as_deref(),
        replay,
    };
    exporter.write_dir(&t, &run, &opts.output)
}

/// A directory format with `--view calls`: the tables of the calling
/// contexts, plus every call written from another pass over the events
/// (a first pass to build the contexts, a second to name the functions,
/// a third for the calls), so memory never holds the calls.
fn calls_dataset(exporter: &dyn DatasetExporter, opts: &ExportOptions) -> Result<Outcome> {
    if opts.input.trace.as_os_str() == "-" {
        return Err(Error::usage(
            "--trace",
            format!(
                "--to {} --view calls reads the trace more than once: give a file, not standard input",
                opts.to
            ),
        ));
    }
    let input = linkage_input(&opts.input);
    let loaded = pipeline::load(&input, View::Contexts)?;
    super::warn_now(&loaded.warnings);
    let scanned = pipeline::scan(&input)?;
    // The same parse gives the same function ids; the tree added only its
    // thread nodes after them.
    let (first, built) = (scanned.funcs.keys(), loaded.built.funcs.keys());
    if built.get(..first.len()) != Some(first) {
        return Err(Error::Input(format!(
            "{}: the trace changed while it was read",
            opts.input.trace.display()
        )));
    }
    // The tree numbered its threads as a dense slice does: so does the replay.
    let replay = |sink: &mut dyn Sink| scanned.replay(sink, Threads::Dense);
    let title = opts.input.trace.display().to_string();
    let t = Exported {
        tree: &loaded.built.tree,
        funcs: &loaded.built.funcs,
        names: &loaded.names,
        title: &title,
        max_depth: opts.max_depth,
        command: &command(opts, &loaded),
        meta: &loaded.built.meta,
        show: &[],
        linkage: None,
    };
    warn_about(exporter.check(&t)?);
    let warnings = write_dir(exporter, opts, &loaded, &t, Some(&replay))?;
    super::warn_now(&warnings);
    Ok(Outcome {
        warnings: Vec::new(),
        notes: wrote(opts),
    })
}

/// `input` read with linkage (mangled) names, which a dataset records
/// beside the shown ones: demangled from them, the program is read once.
fn linkage_input(input: &InputOptions) -> InputOptions {
    let mut input = input.clone();
    input.symbols.demangle = crate::symbols::Demangle::None;
    input
}

/// `--run-id`, else the name of the `-o` directory: in the documented
/// layout (`DATASET/RUN`, one directory per run) no two runs share it,
/// where the trace's file stem was `trace` for every run of the runtime's
/// default `trace.txt`, and one run for two `r2.bin` in `ds/base` and
/// `ds/slow`.
fn run_id(opts: &ExportOptions) -> String {
    let named = |p: &std::path::Path| p.file_name().map(|s| s.to_string_lossy().into_owned());
    let dir = || {
        named(&opts.output).or_else(|| opts.output.canonicalize().ok().as_deref().and_then(named))
    };
    opts.run_id
        .clone()
        .or_else(dir)
        .unwrap_or_else(|| "-".to_string())
}

/// The build-id of the traced program: as the trace recorded it for the
/// executable, else read from the program's file.
fn program_build_id(opts: &ExportOptions, meta: &crate::ingest::TraceMeta) -> Option<String> {
    let recorded = meta
        .maps
        .iter()
        .find(|m| Some(&m.path) == meta.exe_path.as_ref());
    match recorded.and_then(|m| m.build_id.clone()) {
        Some(id) => Some(id),
        None => pipeline::program(&opts.input, meta).and_then(|p| crate::symbols::build_id_of(&p)),
    }
}

/// The traced program: BINARY, else the executable the trace recorded,
/// else (nothing better known) the trace.
fn command(opts: &ExportOptions, loaded: &pipeline::Loaded) -> String {
    match (&opts.input.binary, &loaded.built.meta.exe_path) {
        (Some(b), _) => b.display().to_string(),
        (None, Some(p)) => p.clone(),
        (None, None) => opts.input.trace.display().to_string(),
    }
}

fn wrote(opts: &ExportOptions) -> Vec<String> {
    match opts.output.as_os_str() == "-" {
        true => Vec::new(),
        false => vec![format!("wrote {} ({})", opts.output.display(), opts.to)],
    }
}

impl CommandFiles for ExportOptions {
    fn files(&self) -> Result<Files> {
        let modules = self.abstraction.modules.as_ref();
        let inputs = inputs_of(
            [("--trace", self.input.trace.clone())],
            &self.input,
            modules,
        );
        // A directory format's outputs are the files it writes there.
        let files = export::by_name(&self.to).map_or(&[][..], |e| e.files());
        let outputs = match files.is_empty() {
            true => vec![("--output", self.output.clone())],
            false => files
                .iter()
                .map(|f| ("--output", self.output.join(f)))
                .collect(),
        };
        Ok(Files { inputs, outputs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_named_after_its_output_directory_unless_given_an_id() {
        let with = |output: &str, id: Option<&str>| {
            run_id(&ExportOptions {
                output: PathBuf::from(output),
                run_id: id.map(String::from),
                ..ExportOptions::default()
            })
        };
        assert_eq!(with("ds/fax", None), "fax");
        assert_eq!(with("ds/fax/", None), "fax");
        assert_eq!(with("ds/fax", Some("r7")), "r7");
        let here = std::env::current_dir().unwrap();
        let name = here.file_name().unwrap().to_string_lossy();
        assert_eq!(with(".", None), name);
    }

    #[test]
    fn sizes_are_shown_in_the_largest_unit_they_reach() {
        assert_eq!(size(900), "900 bytes");
        assert_eq!(size(12 << 10), "12.0 KiB");
        assert_eq!(size(1_932_735_283), "1.8 GiB");
        let w = huge_warning("chrome", 2 << 30);
        assert!(w.starts_with("--to chrome wrote 2.0 GiB"), "{w}");
        assert!(w.contains("--time-range or --tid"), "{w}");
    }
}
