//! `calltrace export --to FORMAT`: the outputs other tools read, one file
//! per format, listed once with its shape in [`exporters`] (hyperfine's
//! `src/export/` model). Adding a format means adding a file and a line
//! there; the command, its `--to` values and its help all come from the
//! list.
//!
//! A format has one of three shapes ([`Shape`]), each a trait:
//! a [`TreeExporter`] writes a (possibly abstracted) call tree into one
//! file; a [`StreamExporter`] writes a timeline of every call straight
//! from the trace's events, as a [`crate::ingest::Sink`], and a tree
//! through the same sink ([`write_tree`]); a [`DatasetExporter`] writes a
//! tree as the files of a directory. The shape is known before the trace
//! is read, so `export` picks its path up front and reads the trace once.

mod callgrind;
mod calls;
mod chrome;
mod flamegraph;
mod folded;
mod json;
mod parquet;
mod perfetto;
mod pprof;
mod tlv;

use std::io::{self, Write};
use std::path::Path;

use crate::calltree::Stat;
use crate::calltree::{Tree, View};
use crate::ingest::{FuncTable, Sink, TraceMeta};
use crate::symbols::FuncInfo;

pub use chrome::ChromeSink;
pub(crate) use folded::frame;

/// A named tree to export.
pub struct Exported<'a> {
    /// The tree (calls or contexts view, maybe abstracted).
    pub tree: &'a Tree,
    /// Its functions.
    pub funcs: &'a FuncTable,
    /// Names, files and lines of `funcs`, by function id.
    pub names: &'a [FuncInfo],
    /// What the output is of (the trace's name), for titles.
    pub title: &'a str,
    /// `--max-depth`: stacks deeper than this end at it (folded, flame
    /// graph). Default is None, no limit.
    pub max_depth: Option<u32>,
    /// The traced program (BINARY, else the path the trace recorded, else
    /// the trace's name), for formats that name the command that ran.
    pub command: &'a str,
    /// What the trace recorded besides its events: threads and their
    /// names, object mappings with build-ids (pprof).
    pub meta: &'a TraceMeta,
    /// `--show`: per-call numbers each node carries (json). Default is none.
    pub show: &'a [Stat],
    /// Names as the objects spell them (C++ mangled), by function id, for
    /// a format that asks ([`TreeExporter::wants_linkage_names`]); None
    /// otherwise.
    pub linkage: Option<&'a [FuncInfo]>,
}

/// What a dataset format ([`DatasetExporter`]) records about the run
/// besides its tree.
pub struct Run<'a> {
    /// The run's id: the name of the `-o` directory unless `--run-id`
    /// gives one.
    pub id: &'a str,
    /// What the trace's format reported (threads, mappings).
    pub meta: &'a TraceMeta,
    /// Names as resolved with `--demangle none` (linkage names), by
    /// function id; empty when they are the names of [`Exported`].
    pub linkage: &'a [FuncInfo],
    /// The traced program's build-id, when known.
    pub build_id: Option<&'a str>,
    /// `--view calls`: reads the trace's events again into a sink, for a
    /// table of every call written as they stream by. None otherwise.
    pub replay: Option<&'a Replay<'a>>,
}

/// Reads a trace's events again into a sink ([`Run::replay`]).
pub type Replay<'a> = dyn Fn(&mut dyn Sink) -> crate::error::Result<()> + 'a;

/// What every export format has: its `--to` name and help. Its shape
/// ([`Shape`], given by its line in [`exporters`]) says how it is written.
pub trait Exporter: Sync {
    /// The `--to` value.
    fn name(&self) -> &'static str;
    /// One line for `--help`.
    fn about(&self) -> &'static str;
}

/// A format written from a (possibly abstracted) tree into one file.
pub trait TreeExporter: Exporter {
    /// The tree view it reads unless `--view` says otherwise. Default is
    /// the calling contexts.
    fn view(&self) -> View {
        View::Contexts
    }
    /// Whether it writes names as the objects spell them besides the
    /// shown ones ([`Exported::linkage`]): the trace is then named with
    /// linkage names and demangled for showing. False by default.
    fn wants_linkage_names(&self) -> bool {
        false
    }
    /// Whether it writes the per-call numbers `--show` asks for
    /// ([`Exported::show`]). False by default.
    fn shows_per_call(&self) -> bool {
        false
    }
    /// A warning about the size of the output, or an error when it is
    /// too big to make; checked before writing. None by default.
    fn check(&self, _t: &Exported<'_>) -> crate::error::Result<Option<String>> {
        Ok(None)
    }
    /// Writes the tree.
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()>;
}

/// A timeline of every call written straight from the trace's events as
/// they stream by (the Chrome trace of a 10^8-call trace never becomes a
/// tree), into one file. A tree (abstracted, or from `--view`, or an
/// indented trace) is written through the same sink by [`write_tree`], in
/// the calls view unless `--view` says otherwise. Its output grows with
/// the calls, not the tree: `export` warns past 1 GiB and suggests
/// cutting the trace (`--time-range`, `--tid`).
pub trait StreamExporter: Exporter {
    /// A sink writing the output to `out` as the events arrive. `names`
    /// and `threads` (thread ids by index) come from a first pass over the
    /// trace; times are nanoseconds when `timed`.
    fn sink<'a>(
        &self,
        names: &'a [FuncInfo],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> Box<dyn StreamSink + 'a>;
    /// The thread ids a tree's sink is made with ([`write_tree`]): none by
    /// default (a tree's threads are its thread nodes, and a tree without
    /// them is thread 0); perfetto gives the trace's, for its process id.
    fn tree_threads<'m>(&self, _meta: &'m TraceMeta) -> &'m [u64] {
        &[]
    }
}

/// A dataset: a tree written as several files into a directory (`-o
/// DIR`), whose files the output checks cover. The trace is named with
/// linkage names ([`Run::linkage`]) and demangled for showing.
pub trait DatasetExporter: Exporter {
    /// The files it puts in the directory.
    fn files(&self) -> &'static [&'static str];
    /// A warning about the size of the output, or an error when it is
    /// too big to make; checked before writing. None by default.
    fn check(&self, _t: &Exported<'_>) -> crate::error::Result<Option<String>> {
        Ok(None)
    }
    /// Writes the tree as the files of [`DatasetExporter::files`] in `dir`
    /// (created if missing); warnings about the dataset it joined.
    fn write_dir(
        &self,
        t: &Exported<'_>,
        run: &Run<'_>,
        dir: &Path,
    ) -> crate::error::Result<Vec<String>>;
}

/// An export format by the shape of what it writes: the one place that
/// says whether a format streams, writes a directory or writes a tree, so
/// no two answers can disagree.
#[derive(Clone, Copy)]
pub enum Shape {
    /// One file from a tree.
    Tree(&'static dyn TreeExporter),
    /// One file, a timeline of every call, streamed from the events.
    Stream(&'static dyn StreamExporter),
    /// A directory of files.
    Dataset(&'static dyn DatasetExporter),
}

impl Shape {
    /// The format's name and help.
    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            Shape::Tree(e) => e,
            Shape::Stream(e) => e,
            Shape::Dataset(e) => e,
        }
    }
    /// The `--to` value.
    pub fn name(self) -> &'static str {
        self.exporter().name()
    }
    /// One line for `--help`.
    pub fn about(self) -> &'static str {
        self.exporter().about()
    }
    /// The files a dataset writes into `-o DIR`; empty for one file.
    pub fn files(self) -> &'static [&'static str] {
        match self {
            Shape::Dataset(e) => e.files(),
            _ => &[],
        }
    }
    /// The tree view it reads unless `--view` says otherwise.
    pub fn view(self) -> View {
        match self {
            Shape::Tree(e) => e.view(),
            Shape::Stream(_) => View::Calls,
            Shape::Dataset(_) => View::Contexts,
        }
    }
    /// Whether it writes the per-call numbers `--show` asks for.
    pub fn shows_per_call(self) -> bool {
        matches!(self, Shape::Tree(e) if e.shows_per_call())
    }
}

/// A [`Sink`] that writes an export as the events arrive.
pub trait StreamSink: Sink {
    /// Closes what is still open and flushes; the first write error, if any.
    fn finish(self: Box<Self>) -> io::Result<()>;
}

/// Writes a tree through a stream exporter's sink: its nodes in preorder,
/// as an indented trace would feed them, then `finish`. The one tree
/// writer of every [`StreamExporter`].
pub fn write_tree(
    exporter: &dyn StreamExporter,
    t: &Exported<'_>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (tree, threads) = (t.tree, exporter.tree_threads(t.meta));
    let mut sink = exporter.sink(t.names, t.funcs, threads, tree.unit.is_time(), out);
    let depths = tree.depths();
    for n in 1..tree.len() as crate::calltree::NodeId {
        sink.node(crate::ingest::NodeRecord {
            depth: depths[n as usize] - 1,
            func: tree.func(n),
            self_time: tree.self_time(n),
            total: tree.total(n),
            calls: tree.calls(n),
        });
    }
    sink.finish()
}

/// The most frames a format that repeats each calling context's whole
/// path (pprof's samples, parquet's `path` column) writes: 2^27, about
/// 134 million, a 16,000-deep recursion. Memory holds one context's path
/// at a time, but the output and the time to write it grow with the
/// square of the depth.
const MAX_FRAMES: u64 = 1 << 27;

/// The frames of every calling context's path, thread and root nodes left
/// out: what [`MAX_FRAMES`] bounds.
fn path_frames(t: &Exported<'_>) -> u64 {
    let (tree, funcs) = (t.tree, t.funcs);
    let parents = tree.parents();
    let mut frames = vec![0u64; tree.len()];
    let mut sum = 0u64;
    for n in 1..tree.len() {
        let own = u64::from(!funcs.is_synthetic(tree.func(n as crate::calltree::NodeId)));
        frames[n] = frames[parents[n] as usize] + own;
        sum = sum.saturating_add(frames[n] * own);
    }
    sum
}

/// Refuses a tree whose calling contexts' paths hold more than
/// [`MAX_FRAMES`] frames (a deep recursion), naming the bound and the
/// flag that lowers it; `what` names the paths (`pprof's samples`).
fn check_frames(t: &Exported<'_>, what: &str) -> crate::error::Result<()> {
    check_frames_within(t, what, MAX_FRAMES)
}

/// [`check_frames`] with the bound `max`.
fn check_frames_within(t: &Exported<'_>, what: &str, max: u64) -> crate::error::Result<()> {
    let frames = path_frames(t);
    if frames <= max {
        return Ok(());
    }
    let depth = t.tree.depths().iter().max().copied().unwrap_or(0);
    let million = |n: u64| n as f64 / 1e6;
    Err(crate::error::Error::Input(format!(
        "{what} would hold {:.1} million frames (every calling context repeats its whole path; the tree is {depth} levels deep), more than the {:.1} million written at most: give --fold-recursion to fold the recursion, or --min-total or --threshold to keep fewer contexts",
        million(frames),
        million(max)
    )))
}

/// Every export format with its shape, in `--help` order.
pub fn exporters() -> &'static [Shape] {
    EXPORTERS
}

/// The list behind [`exporters`]: one line per format.
const EXPORTERS: &[Shape] = &[
    Shape::Tree(&folded::Folded),
    Shape::Tree(&flamegraph::FlameGraph),
    Shape::Stream(&chrome::Chrome),
    Shape::Tree(&callgrind::Callgrind),
    Shape::Tree(&json::Json),
    Shape::Stream(&tlv::Tlv),
    Shape::Tree(&pprof::Pprof),
    Shape::Stream(&perfetto::Perfetto),
    Shape::Dataset(&parquet::Parquet),
];

/// Looks an exporter up by its `--to` name.
pub fn by_name(name: &str) -> Option<Shape> {
    exporters().iter().copied().find(|e| e.name() == name)
}

/// The names of every format, for messages: `folded, flamegraph, ...`.
pub fn names() -> String {
    let names: Vec<_> = exporters().iter().map(|e| e.name()).collect();
    names.join(", ")
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_listed_once_by_its_name() {
        let names: Vec<_> = exporters().iter().map(|e| e.name()).collect();
        assert_eq!(
            names,
            [
                "folded",
                "flamegraph",
                "chrome",
                "callgrind",
                "json",
                "tlv",
                "pprof",
                "perfetto",
                "parquet"
            ]
        );
        for n in names {
            assert_eq!(by_name(n).map(|e| e.name()), Some(n));
        }
        let shape = |n| match by_name(n) {
            Some(Shape::Tree(_)) => "tree",
            Some(Shape::Stream(_)) => "stream",
            Some(Shape::Dataset(_)) => "dataset",
            None => "none",
        };
        let shapes = ["chrome", "tlv", "perfetto", "parquet", "pprof"].map(shape);
        assert_eq!(shapes, ["stream", "stream", "stream", "dataset", "tree"]);
        assert!(by_name("svg").is_none());
    }

    #[test]
    fn path_frames_count_each_contexts_whole_path_and_bound_it() {
        use crate::calltree::View;
        // Contexts main, main;f, main;f;g, main;g: 1 + 2 + 3 + 2 frames.
        let (b, names) = testing::built(testing::TRACE, View::Contexts);
        let t = testing::exported(&b, &names, "t");
        assert_eq!(path_frames(&t), 8);
        assert!(check_frames_within(&t, "x", 8).is_ok());
        let e = check_frames_within(&t, "the samples", 7).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("the samples would hold 0.0 million frames"),
            "{e}"
        );
        // Thread nodes are not frames.
        let (b, names) = testing::built(
            "E main 0 1\nE f 1 1\nX f 2 1\nX main 3 1\nE w 0 2\nX w 1 2\n",
            View::Contexts,
        );
        let t = Exported {
            tree: &b.tree,
            funcs: &b.funcs,
            names: &names,
            meta: &b.meta,
            ..t
        };
        assert_eq!(path_frames(&t), 4);
    }
}
