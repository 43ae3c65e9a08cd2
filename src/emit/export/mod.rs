//! `calltrace export --to FORMAT`: the outputs other tools read, one file
//! per format behind one [`Exporter`] trait and listed once in
//! [`exporters`] (hyperfine's `src/export/` model). Adding a format means
//! adding a file and a line there; the command, its `--to` values and its
//! help all come from the list.
//!
//! Exporters write a (possibly abstracted) call tree. One that can also
//! write straight from the trace's event stream, without building a tree
//! (the Chrome trace of a 10^8-call trace), says so with
//! [`Exporter::streams`], known before the trace is read, and is fed as a
//! [`crate::ingest::Sink`] made by [`Exporter::stream_sink`].

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
    /// a format that asks ([`Exporter::wants_linkage_names`]); None
    /// otherwise.
    pub linkage: Option<&'a [FuncInfo]>,
}

/// What a dataset format ([`Exporter::files`]) records about the run
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

/// One output format of `calltrace export`.
pub trait Exporter: Sync {
    /// The `--to` value.
    fn name(&self) -> &'static str;
    /// One line for `--help`.
    fn about(&self) -> &'static str;
    /// The tree view it reads unless `--view` says otherwise.
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
    /// Whether the output is a timeline of every call (chrome, perfetto),
    /// which grows with the calls, not the tree: `export` warns when it
    /// passes 1 GiB and suggests cutting the trace (`--time-range`,
    /// `--tid`). False by default.
    fn timeline(&self) -> bool {
        false
    }
    /// Writes the tree.
    fn write(&self, t: &Exported<'_>, out: &mut dyn Write) -> io::Result<()>;
    /// The files a format that writes a directory (`-o DIR`) puts there,
    /// through [`Exporter::write_dir`] instead of [`Exporter::write`].
    /// Empty (one stream) by default.
    fn files(&self) -> &'static [&'static str] {
        &[]
    }
    /// Writes the tree as the files of [`Exporter::files`] in `dir`
    /// (created if missing); warnings about the dataset it joined. Called
    /// only for a format with files.
    fn write_dir(
        &self,
        _t: &Exported<'_>,
        _run: &Run<'_>,
        dir: &Path,
    ) -> crate::error::Result<Vec<String>> {
        Err(crate::error::Error::usage(
            "--output",
            format!(
                "--to {} writes one file, not directory {}",
                self.name(),
                dir.display()
            ),
        ))
    }
    /// Whether the format can be written straight from the trace's events
    /// ([`Exporter::stream_sink`]). Known before anything is read, so the
    /// command picks its path up front and reads the trace once either
    /// way. False by default.
    fn streams(&self) -> bool {
        false
    }
    /// A sink writing the output straight from the trace's events; Some
    /// exactly when [`Exporter::streams`]. `names` and `threads` (thread ids
    /// by index) come from a first pass over the trace. None by default.
    fn stream_sink<'a>(
        &self,
        _names: &'a [FuncInfo],
        _funcs: &'a FuncTable,
        _threads: &'a [u64],
        _timed: bool,
        _out: &'a mut dyn Write,
    ) -> Option<Box<dyn StreamSink + 'a>> {
        None
    }
}

/// A [`Sink`] that writes an export as the events arrive.
pub trait StreamSink: Sink {
    /// Closes what is still open and flushes; the first write error, if any.
    fn finish(self: Box<Self>) -> io::Result<()>;
}

/// Writes a tree through a streaming exporter's sink: its nodes in
/// preorder, as an indented trace would feed them, then `finish`.
fn stream_tree(tree: &Tree, mut sink: Box<dyn StreamSink + '_>) -> io::Result<()> {
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
    Err(crate::error::Error::usage(
        "--fold-recursion",
        format!(
            "{what} would hold {:.1} million frames (every calling context repeats its whole path; the tree is {depth} levels deep), more than the {:.1} million written at most: give --fold-recursion to fold the recursion, or --min-total or --threshold to keep fewer contexts",
            million(frames),
            million(max)
        ),
    ))
}

/// Every export format, in `--help` order.
pub fn exporters() -> [&'static dyn Exporter; 9] {
    [
        &folded::Folded,
        &flamegraph::FlameGraph,
        &chrome::Chrome,
        &callgrind::Callgrind,
        &json::Json,
        &tlv::Tlv,
        &pprof::Pprof,
        &perfetto::Perfetto,
        &parquet::Parquet,
    ]
}

/// Looks an exporter up by its `--to` name.
pub fn by_name(name: &str) -> Option<&'static dyn Exporter> {
    exporters().into_iter().find(|e| e.name() == name)
}

/// The names of every format, for messages: `folded, flamegraph, ...`.
pub fn names() -> String {
    exporters().map(|e| e.name()).join(", ")
}

#[cfg(test)]
pub(crate) mod testing {
    //! A small named tree for the exporters' unit tests.

    use crate::calltree::{self, Built, View};
    use crate::ingest::{self, Input};
    use crate::symbols::{self, FuncInfo};

    /// main calls f twice (f calls g once each time) and g once.
    pub const TRACE: &str = "E main 0\nE f 10\nE g 12\nX g 15\nX f 20\nE f 22\nE g 23\nX g 24\nX f 30\nE g 31\nX g 34\nX main 40\n";

    /// `TRACE` (or `text`) built in `view`, with names.
    pub fn built(text: &str, view: View) -> (Built, Vec<FuncInfo>) {
        let input = Input::from_bytes("t.trace", text.as_bytes().to_vec());
        let format = ingest::guess::detect(&input, None).unwrap();
        let built = calltree::build(&input, format, &Default::default(), view).unwrap();
        let names = symbols::names_without_binary(&built.funcs);
        (built, names)
    }

    /// The export of `b` named by `names`, with the defaults every test uses.
    pub fn exported<'a>(
        b: &'a Built,
        names: &'a [FuncInfo],
        title: &'a str,
    ) -> super::Exported<'a> {
        super::Exported {
            tree: &b.tree,
            funcs: &b.funcs,
            names,
            title,
            max_depth: None,
            command: "./app",
            meta: &b.meta,
            show: &[],
            linkage: None,
        }
    }

    /// Runs `exporter` on `TRACE` in its view.
    pub fn export(exporter: &dyn super::Exporter, text: &str) -> Vec<u8> {
        let (b, names) = built(text, exporter.view());
        let mut out = Vec::new();
        let t = exported(&b, &names, "t.trace");
        exporter.write(&t, &mut out).unwrap();
        out
    }
}

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
                .starts_with("--fold-recursion: the samples would hold 0.0 million frames"),
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

    #[test]
    fn a_format_makes_a_stream_sink_exactly_when_it_says_it_streams() {
        let no_funcs = FuncTable::default();
        for e in exporters() {
            let mut out = Vec::new();
            let sink = e.stream_sink(&[], &no_funcs, &[], false, &mut out);
            assert_eq!(sink.is_some(), e.streams(), "{}", e.name());
        }
        let streaming: Vec<_> = exporters().into_iter().filter(|e| e.streams()).collect();
        assert_eq!(
            streaming.iter().map(|e| e.name()).collect::<Vec<_>>(),
            ["chrome", "tlv", "perfetto"]
        );
    }
}
