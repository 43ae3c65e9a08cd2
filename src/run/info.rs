//! `calltrace info [BINARY] --trace T`: what is in a trace, before choosing
//! filters: its format, the program it names, its unit and time span, how
//! many events, calls, functions and levels it holds, one row per thread
//! (by the id or name `--tid` takes), and what the read had to repair or
//! warn about. The trace is read through the pipeline's front door: the
//! tree in the contexts view (its nodes count their calls, and it is far
//! smaller than one node per call) in one parallel pass, then a second
//! pass counts the events into a small [`Tally`] sink
//! ([`pipeline::load_then_read`]); with a filter, a naming pass
//! ([`pipeline::scan`]), then one pass through the filter that builds the
//! tree and counts the events it keeps, so the numbers are those every
//! other command sees, filters
//! (`--tid`, `--time-range`, ...) included. The report is
//! human text or, with `--json`, one JSON object.

use std::any::Any;
use std::path::PathBuf;

use serde::Serialize;

use super::Outcome;
use super::files::{CommandFiles, Files};
use crate::calltree::{Tree, View};
use crate::emit;
use crate::emit::format::{TimeUnit, quantity};
use crate::error::{Error, Result};
use crate::ingest::{
    ChunkWork, Event, EventConsumer, EventKind, EventSink, FuncId, NodeRecord, NodeSink,
    SummaryOfItsOwn, Unit,
};
use crate::pipeline::{self, InputOptions, Loaded};

/// Options of `calltrace info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoOptions {
    /// Trace, binary and parsing options.
    pub(crate) input: InputOptions,
    /// Print one JSON object instead of text. Default is false.
    pub(crate) json: bool,
    /// Where the report goes, `-` for stdout. Default is `-`.
    pub(crate) output: PathBuf,
    /// Unit times are shown in (text only). Default is auto.
    pub(crate) time_unit: TimeUnit,
}

impl Default for InfoOptions {
    fn default() -> Self {
        InfoOptions {
            input: InputOptions::default(),
            json: false,
            output: PathBuf::from("-"),
            time_unit: TimeUnit::Auto,
        }
    }
}

/// What `calltrace info` reports, as `--json` writes it.
#[derive(Debug, Clone, Serialize)]
struct Info {
    file: String,
    format: &'static str,
    /// The executable the trace recorded, if any.
    program: Option<String>,
    /// The program functions were named against, if any.
    named_by: Option<String>,
    unit: &'static str,
    /// Last event's time minus the first's, in `unit`; none untimed.
    span: Option<u64>,
    events: u64,
    entries: u64,
    exits: u64,
    calls: u64,
    functions: usize,
    /// How the trace's addresses were named; none when it names its
    /// functions itself (symbolic, indented).
    names: Option<Names>,
    max_depth: u32,
    threads: Vec<ThreadRow>,
    repairs: Repairs,
    warnings: Vec<String>,
}

/// Distinct addresses each symbol source placed (`executable`, `objects`
/// for a trace's recorded maps, `object` for `--object`, `perf-map`,
/// `xray`), and those left as hex.
#[derive(Debug, Clone, Serialize)]
struct Names {
    by_source: std::collections::BTreeMap<&'static str, usize>,
    hex: usize,
}

/// One thread of the trace.
#[derive(Debug, Clone, Serialize)]
struct ThreadRow {
    id: u64,
    /// The name `--tid` takes besides the id; none when unnamed.
    name: Option<String>,
    calls: u64,
    /// Inclusive time of its top-level calls, in the trace's unit.
    time: u64,
}

/// What the read repaired (`calltree::RepairStats`).
#[derive(Debug, Clone, Serialize)]
struct Repairs {
    frames_closed: u64,
    orphan_exits: u64,
    unclosed: u64,
    backwards: u64,
}

/// Runs `calltrace info`.
pub fn run(opts: &InfoOptions) -> Result<Outcome> {
    let mut tally = Tally::default();
    let loaded = match opts.input.filter.is_empty() {
        // The tree in one parallel pass, then the events counted.
        true => pipeline::load_then_read(&opts.input, View::Contexts, &mut tally)?,
        // What the filter keeps, counted as the tree is built from it.
        false => pipeline::scan(&opts.input)?.build_feeding(View::Contexts, &mut tally)?,
    };
    let info = info(opts, &loaded, &tally);
    let bytes = match opts.json {
        true => json(&info)?,
        false => {
            let meta = &loaded.built.meta;
            text(&info, (meta.unit, meta.decimals), opts.time_unit).into_bytes()
        }
    };
    emit::write_atomic(&opts.output, &bytes)?;
    Ok(Outcome::default())
}

/// The report of `loaded`, whose events `tally` counted.
fn info(opts: &InfoOptions, loaded: &Loaded, tally: &Tally) -> Info {
    let (meta, r) = (&loaded.built.meta, &loaded.built.repairs);
    Info {
        file: opts.input.trace.display().to_string(),
        format: meta.format,
        program: meta.exe_path.clone(),
        named_by: pipeline::program(&opts.input, meta).map(|p| p.display().to_string()),
        unit: meta.unit.suffix(),
        span: tally.span().filter(|_| meta.timed),
        events: tally.entries + tally.exits,
        entries: tally.entries,
        exits: tally.exits,
        calls: calls_below(loaded, 0),
        functions: functions(loaded),
        names: loaded.resolve.as_ref().map(|r| Names {
            by_source: r.by_source.clone(),
            hex: r.unresolved + r.outside.len(),
        }),
        max_depth: max_depth(loaded),
        threads: threads(loaded),
        repairs: Repairs {
            frames_closed: r.unwound,
            orphan_exits: r.orphan_exits,
            unclosed: r.unclosed,
            backwards: r.backwards,
        },
        warnings: loaded.warnings.clone(),
    }
}

/// Calls in the subtree of `n` (its own, when it is a call).
fn calls_below(loaded: &Loaded, n: u32) -> u64 {
    let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
    (n..n + tree.size(n))
        .filter(|&m| !funcs.is_synthetic(tree.func(m)))
        .fold(0u64, |sum, m| sum.saturating_add(tree.calls(m)))
}

/// Distinct names of the functions the tree calls.
fn functions(loaded: &Loaded) -> usize {
    let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
    let names: std::collections::BTreeSet<&str> = (0..tree.len() as u32)
        .map(|n| tree.func(n))
        .filter(|&f| !funcs.is_synthetic(f))
        .filter_map(|f| loaded.names.get(f as usize).map(|i| i.name.as_str()))
        .collect();
    names.len()
}

/// The deepest call, top-level calls at depth 1 (thread nodes not counted).
fn max_depth(loaded: &Loaded) -> u32 {
    let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
    if tree.call_nodes(funcs) == 0 {
        return 0;
    }
    let deepest = tree.depths().into_iter().max().unwrap_or(0);
    let threaded = thread_nodes(tree, loaded).next().is_some();
    deepest.saturating_sub(u32::from(threaded))
}

/// The root's children that are thread nodes.
fn thread_nodes<'t>(tree: &'t Tree, loaded: &'t Loaded) -> impl Iterator<Item = u32> + 't {
    let funcs = &loaded.built.funcs;
    tree.children(0)
        .filter(move |&c| funcs.is_synthetic(tree.func(c)))
}

/// One row per thread, sorted by id: a trace of several threads has a
/// node per thread below the root, a trace of one has its calls there.
fn threads(loaded: &Loaded) -> Vec<ThreadRow> {
    let (tree, meta) = (&loaded.built.tree, &loaded.built.meta);
    let name = |i: usize| meta.thread_names.get(i).filter(|n| !n.is_empty()).cloned();
    let row = |i: usize, node: u32| ThreadRow {
        id: meta.threads.get(i).copied().unwrap_or(i as u64),
        name: name(i),
        calls: calls_below(loaded, node),
        time: tree.total(node),
    };
    let mut rows: Vec<ThreadRow> = match meta.threads.len() {
        0 => Vec::new(),
        1 => vec![row(0, 0)],
        _ => thread_nodes(tree, loaded)
            .filter_map(|node| {
                let key = loaded.built.funcs.key(tree.func(node));
                let tid = match key {
                    crate::ingest::FuncKey::Thread(tid) => *tid,
                    _ => return None,
                };
                let i = meta.threads.iter().position(|&t| t == tid)?;
                Some(row(i, node))
            })
            .collect(),
    };
    rows.sort_by_key(|r| r.id);
    rows
}

/// The report as pretty-printed JSON.
fn json(info: &Info) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(info)
        .map_err(|e| Error::Input(format!("cannot write the report as JSON: {e}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The report as text for people: one `key: value` line each, the
/// threads as a table.
/// `unit` and `decimals` are the trace's, of the times.
fn text(info: &Info, (unit, decimals): (Unit, u8), shown: TimeUnit) -> String {
    let q = |v: u64| quantity(v, unit, decimals, shown);
    let mut s = String::new();
    let mut line = |k: &str, v: String| s.push_str(&format!("{k:<10} {v}\n"));
    line("file:", info.file.clone());
    line("format:", info.format.to_string());
    line(
        "program:",
        info.program.clone().unwrap_or_else(|| "-".into()),
    );
    if info.named_by != info.program {
        line(
            "named by:",
            info.named_by.clone().unwrap_or_else(|| "-".into()),
        );
    }
    line("unit:", info.unit.to_string());
    line(
        "span:",
        info.span.map_or("-".into(), |v| {
            // The raw count beside a scaled time (`1.43 s (1434241000)`),
            // not beside what already is one (`1434241 cycles`).
            let shown = q(v);
            match shown.starts_with(&v.to_string()) {
                true => shown,
                false => format!("{shown} ({v})"),
            }
        }),
    );
    line(
        "events:",
        format!(
            "{} ({} entries, {} exits)",
            info.events, info.entries, info.exits
        ),
    );
    line("calls:", info.calls.to_string());
    line("functions:", info.functions.to_string());
    if let Some(n) = &info.names {
        line("names:", names(n));
    }
    line("max depth:", info.max_depth.to_string());
    line("threads:", info.threads.len().to_string());
    s.push_str(&thread_table(&info.threads, &q));
    s.push_str(&format!("{:<10} {}\n", "repairs:", repairs(&info.repairs)));
    s.push_str(&format!("{:<10} {}\n", "warnings:", info.warnings.len()));
    for w in &info.warnings {
        s.push_str(&format!("  {w}\n"));
    }
    s
}

/// `executable 40, object 3 addresses; 2 left as hex`.
fn names(n: &Names) -> String {
    let mut placed: Vec<String> = n
        .by_source
        .iter()
        .map(|(s, k)| format!("{s} {k}"))
        .collect();
    if placed.is_empty() {
        placed.push("none".into());
    }
    let mut s = format!("{} addresses", placed.join(", "));
    if n.hex > 0 {
        s.push_str(&format!("; {} left as hex", n.hex));
    }
    s
}

/// The threads as an aligned table: id, name, calls, time.
fn thread_table(rows: &[ThreadRow], q: &dyn Fn(u64) -> String) -> String {
    let cells: Vec<[String; 4]> = rows
        .iter()
        .map(|r| {
            let name = r.name.clone().unwrap_or_else(|| "-".into());
            [r.id.to_string(), name, r.calls.to_string(), q(r.time)]
        })
        .collect();
    let head = ["id", "name", "calls", "time"].map(String::from);
    let mut width = [0usize; 4];
    for row in std::iter::once(&head).chain(&cells) {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut s = String::new();
    for row in std::iter::once(&head).chain(&cells) {
        let [a, b, c, d] = row;
        let [wa, wb, wc, _] = width;
        s.push_str(&format!("  {a:<wa$}  {b:<wb$}  {c:>wc$}  {d}\n"));
    }
    s
}

/// `none`, or each repair that happened with its count.
fn repairs(r: &Repairs) -> String {
    let parts: Vec<String> = [
        (r.frames_closed, "frames closed"),
        (r.orphan_exits, "orphan exits"),
        (r.unclosed, "unclosed at the end"),
        (r.backwards, "exits before their entry"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    match parts.is_empty() {
        true => "none".into(),
        false => parts.join(", "),
    }
}

/// A sink that counts entries and exits and keeps the first and last time.
/// Its chunks are tallied on the parsing threads (each chunk's own
/// `Tally`, added up in order), so counting decodes no event into memory.
#[derive(Debug, Default)]
struct Tally {
    entries: u64,
    exits: u64,
    first: Option<u64>,
    last: Option<u64>,
}

impl Tally {
    /// Last time minus first, when there were events.
    fn span(&self) -> Option<u64> {
        Some(self.last?.saturating_sub(self.first?))
    }

    /// Notes a time.
    #[inline(always)]
    fn time(&mut self, time: u64) {
        self.first = Some(self.first.map_or(time, |t| t.min(time)));
        self.last = Some(self.last.map_or(time, |t| t.max(time)));
    }

    /// Adds another tally's counts and times.
    fn add(&mut self, other: &Tally) {
        self.entries += other.entries;
        self.exits += other.exits;
        for t in [other.first, other.last].into_iter().flatten() {
            self.time(t);
        }
    }
}

impl EventSink for Tally {
    fn events(&mut self, events: &[Event]) {
        for &e in events {
            EventConsumer::event(self, e);
        }
    }
    fn chunk_work(&self) -> Option<Box<dyn ChunkWork>> {
        Some(Box::new(SummaryOfItsOwn::<Tally>::default()))
    }
    fn merge(&mut self, summary: Box<dyn Any + Send>, _: &[FuncId], _: &[u32]) {
        if let Ok(chunk) = summary.downcast::<Tally>() {
            self.add(&chunk);
        }
    }
}

impl EventConsumer for Tally {
    #[inline(always)]
    fn event(&mut self, e: Event) -> bool {
        match e.kind {
            EventKind::Enter => self.entries += 1,
            EventKind::Exit => self.exits += 1,
        }
        self.time(e.time);
        true
    }
    #[inline(always)]
    fn leaf(&mut self, enter: Event, exit_time: u64) -> bool {
        self.entries += 1;
        self.exits += 1;
        self.time(enter.time);
        self.time(exit_time);
        true
    }
}

impl NodeSink for Tally {
    fn node(&mut self, _: NodeRecord) {}
}

impl CommandFiles for InfoOptions {
    fn files(&self) -> Result<Files> {
        Ok(Files {
            inputs: super::files::input_files(&self.input),
            outputs: vec![("--output", self.output.clone())],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_counts_entries_exits_and_the_span() {
        let e = |kind, time| Event {
            time,
            func: 1,
            thread: 0,
            kind,
        };
        let mut t = Tally::default();
        assert_eq!(t.span(), None);
        t.events(&[e(EventKind::Enter, 10), e(EventKind::Enter, 12)]);
        t.events(&[e(EventKind::Exit, 30), e(EventKind::Exit, 31)]);
        assert_eq!((t.entries, t.exits, t.span()), (2, 2, Some(21)));
    }

    #[test]
    fn tallies_of_chunks_and_leaves_add_up_to_the_whole() {
        let e = |kind, time| Event {
            time,
            func: 1,
            thread: 0,
            kind,
        };
        let events = [
            e(EventKind::Enter, 40),
            e(EventKind::Enter, 41),
            e(EventKind::Exit, 45),
            e(EventKind::Enter, 7),
            e(EventKind::Exit, 9),
            e(EventKind::Exit, 90),
        ];
        let mut whole = Tally::default();
        whole.events(&events);
        assert_eq!((whole.entries, whole.exits, whole.span()), (3, 3, Some(83)));
        for size in 1..=events.len() {
            let mut sum = Tally::default();
            for part in events.chunks(size) {
                let mut chunk = Tally::default();
                chunk.events(part);
                sum.add(&chunk);
            }
            assert_eq!(format!("{sum:?}"), format!("{whole:?}"), "chunks of {size}");
        }
        // A leaf call counts as its entry and its exit.
        let mut leaves = Tally::default();
        leaves.leaf(e(EventKind::Enter, 41), 45);
        leaves.leaf(e(EventKind::Enter, 7), 9);
        assert_eq!(
            (leaves.entries, leaves.exits, leaves.span()),
            (2, 2, Some(38))
        );
        assert_eq!((leaves.first, leaves.last), (Some(7), Some(45)));
    }

    #[test]
    fn repairs_name_only_what_happened() {
        let mut r = Repairs {
            frames_closed: 0,
            orphan_exits: 0,
            unclosed: 0,
            backwards: 0,
        };
        assert_eq!(repairs(&r), "none");
        r.orphan_exits = 2;
        r.unclosed = 1;
        assert_eq!(repairs(&r), "2 orphan exits, 1 unclosed at the end");
    }
}
