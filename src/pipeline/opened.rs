//! The opened trace: the one prologue every read of a trace goes through
//! (BINARY checked, the trace opened, its format picked) and the one way
//! to read it ([`Opened::read`]: the progress bar, and an error at a
//! cut-off last line saying so). Its input and format are private, so a
//! command cannot parse a trace without both.

use std::any::Any;

use super::InputOptions;
use super::binary::check_binary;
use crate::error::{Error, Result};
use crate::ingest::{self, FuncTable, Input, Sink, TraceFormat, TraceMeta};
use crate::progress;
use crate::symbols;

/// How many times a trace will be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads {
    /// Once: a pipe is streamed.
    Once,
    /// More than once: a pipe is held in memory, since it cannot be read again.
    Again,
}

/// A trace opened for reading, with its format.
pub(crate) struct Opened<'o> {
    /// Where the trace and the binary are and how to read them.
    pub opts: &'o InputOptions,
    input: Input,
    format: Format,
}

impl<'o> Opened<'o> {
    /// The prologue of every read: BINARY must be a program, the trace
    /// must open, and its format is `--rules`, `--format` or sniffed.
    pub(crate) fn open(opts: &'o InputOptions, reads: Reads) -> Result<Opened<'o>> {
        check_binary(opts.binary.as_deref())?;
        let input = open_trace(opts)?;
        if reads == Reads::Again && input.is_stream() {
            let _whole: &[u8] = &input;
        }
        let format = Format::pick(&input, opts)?;
        Ok(Opened {
            opts,
            input,
            format,
        })
    }

    /// One read of the whole trace into `sink`, from its start, interning
    /// into `funcs`; what the format reported. `label` names the pass on
    /// the progress bar.
    pub(crate) fn read(
        &self,
        label: &str,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let (opts, input) = (self.opts, &self.input);
        input.rewind();
        let work = || self.format.get().parse(input, &opts.parse, funcs, sink);
        progress::follow(input, opts.quiet, label, work).map_err(|e| cut_off_hint(e, input))
    }
}

/// Opens the trace. When there is none and BINARY cannot have written one
/// (built without calltrace's runtime, whose hooks glibc replaces with
/// empty ones), the error says so and how to link it.
fn open_trace(opts: &InputOptions) -> Result<Input> {
    ingest::guess::open_trace(&opts.trace).map_err(|e| {
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

/// The format a trace is read with: a built-in one, or `--rules`.
enum Format {
    /// Forced by `--format` or sniffed.
    Builtin(&'static dyn TraceFormat),
    /// A rules file.
    Rules(ingest::RulesFormat),
}

impl Format {
    /// The rules file when one is given, else the forced or sniffed format.
    fn pick(input: &Input, opts: &InputOptions) -> Result<Format> {
        Ok(match &opts.rules {
            Some(path) => Format::Rules(ingest::RulesFormat::load(path)?),
            None => Format::Builtin(ingest::guess::detect(input, opts.format.as_deref())?),
        })
    }

    /// The format itself.
    fn get(&self) -> &dyn TraceFormat {
        match self {
            Format::Builtin(f) => *f,
            Format::Rules(r) => r,
        }
    }
}

/// A sink that keeps only the earliest event time. Its chunks are
/// summarised on the parsing threads (each chunk's earliest time), so a
/// pass through it decodes no event into memory and hands none on.
#[derive(Default)]
pub(crate) struct Earliest(pub Option<u64>);

impl Earliest {
    /// Notes a time.
    #[inline(always)]
    fn take(&mut self, time: u64) {
        self.0 = Some(self.0.map_or(time, |t| t.min(time)));
    }
}

impl ingest::EventSink for Earliest {
    fn events(&mut self, events: &[ingest::Event]) {
        let min = events.iter().map(|e| e.time).min();
        self.0 = self.0.into_iter().chain(min).min();
    }
    fn chunk_work(&self) -> Option<Box<dyn ingest::ChunkWork>> {
        Some(Box::new(ingest::SummaryOfItsOwn::<Earliest>::default()))
    }
    fn merge(&mut self, summary: Box<dyn Any + Send>, _: &[ingest::FuncId], _: &[u32]) {
        if let Ok(chunk) = summary.downcast::<Earliest>()
            && let Some(time) = chunk.0
        {
            self.take(time);
        }
    }
}

impl ingest::EventConsumer for Earliest {
    #[inline(always)]
    fn event(&mut self, e: ingest::Event) -> bool {
        self.take(e.time);
        true
    }
    #[inline(always)]
    fn leaf(&mut self, enter: ingest::Event, exit_time: u64) -> bool {
        self.take(enter.time.min(exit_time));
        true
    }
}

impl ingest::NodeSink for Earliest {
    fn node(&mut self, _: ingest::NodeRecord) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{Event, EventKind, EventSink, NodeRecord, NodeSink};

    /// Every event's time, taken one by one (no chunk summaries).
    #[derive(Default)]
    struct Times(Vec<u64>);

    impl EventSink for Times {
        fn events(&mut self, events: &[Event]) {
            self.0.extend(events.iter().map(|e| e.time));
        }
    }

    impl NodeSink for Times {
        fn node(&mut self, _: NodeRecord) {}
    }

    /// Three threads' calls, the second thread's starting earliest but
    /// written last, deep in the trace: (thread, [(kind, address, time)]).
    fn blocks() -> Vec<ingest::binary::Block> {
        let calls = |start: u64| {
            (0..400u64)
                .flat_map(|i| {
                    let (a, t) = (0x401000 + (i % 7) * 16, start + i * 10);
                    [(EventKind::Enter, a, t), (EventKind::Exit, a, t + 3)]
                })
                .collect::<Vec<_>>()
        };
        vec![(11, calls(5_000)), (12, calls(9_000)), (13, calls(40))]
    }

    #[test]
    fn the_earliest_time_summarised_in_chunks_is_the_least_event_time() {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("trace.bin");
        std::fs::write(&binary, ingest::binary::encode(0, "", &blocks())).unwrap();
        let text = dir.path().join("trace.txt");
        let lines: String = blocks()
            .iter()
            .flat_map(|(tid, events)| events.iter().map(move |e| (tid, e)))
            .map(|(tid, &(kind, addr, time))| {
                let k = if kind == EventKind::Enter { 'E' } else { 'X' };
                format!("{k}0x{addr:x} {time} {tid}\n")
            })
            .collect();
        std::fs::write(&text, lines).unwrap();
        for trace in [binary, text] {
            for (threads, chunk_bytes) in [(1, 0), (2, 97), (3, 512), (2, 4096)] {
                let mut opts = InputOptions {
                    trace: trace.clone(),
                    quiet: true,
                    ..InputOptions::default()
                };
                opts.parse.threads = threads;
                opts.parse.chunk_bytes = chunk_bytes;
                let opened = Opened::open(&opts, Reads::Again).unwrap();
                let mut earliest = Earliest::default();
                opened
                    .read("t", &mut FuncTable::default(), &mut earliest)
                    .unwrap();
                let mut times = Times::default();
                opened
                    .read("t", &mut FuncTable::default(), &mut times)
                    .unwrap();
                assert_eq!(times.0.len(), 3 * 800, "{}", trace.display());
                let least = times.0.iter().min().copied();
                let at = (trace.display(), threads, chunk_bytes);
                assert_eq!(earliest.0, least, "{at:?}");
                assert_eq!(earliest.0, Some(40), "{at:?}");
            }
        }
    }
}
