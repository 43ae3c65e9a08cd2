//! A native Perfetto trace (`perfetto_trace.proto`'s `Trace`): what
//! ui.perfetto.dev and trace_processor open, about a third of the size of
//! the Chrome JSON of the same run and without its JSON parse.
//!
//! The file is a stream of `TracePacket`s on one packet sequence: a
//! `ClockSnapshot` first (it clears the sequence's incremental state), a
//! process track, then for each thread a `TrackDescriptor` (uuid, pid,
//! tid) before its first event, and one `TrackEvent` `TYPE_SLICE_BEGIN`
//! per call entry and `TYPE_SLICE_END` per exit. Event names are interned:
//! a function's name is sent once, in the `interned_data` of the packet of
//! its first call, and later calls carry its `name_iid` only.
//!
//! Times are the trace's (nanoseconds of its CLOCK_MONOTONIC), which the
//! snapshot declares equal to BOOTTIME, the clock TrackEvent timestamps
//! default to; an untimed trace gets one nanosecond per event. From an
//! event trace the packets are written as the events arrive
//! ([`PerfettoSink`], stacks and repairs from [`super::calls`]), so memory
//! holds the open frames and the interned-name table only. A tree
//! (indented traces, abstracted trees) is laid out like `--to chrome`:
//! calls one after another inside their caller.
//!
//! Thread ids are 32-bit in Perfetto: a trace's thread whose id does not
//! fit gets an id of its own ([`threads`]) and a track named after its
//! real id. An exit timed before its entry (timestamps going backwards)
//! ends its slice where it began, a call of length 0, as `--to chrome`
//! clamps its duration.

mod threads;

use std::io::{self, Write};

use prost::Message;

use super::calls::{CallStream, CallWriter, Layout};
use super::{Exporter, StreamExporter, StreamSink};
use crate::ingest::{Event, EventSink, FuncId, FuncTable, NodeRecord, NodeSink};
use crate::symbols::FuncInfo;

/// `--to perfetto`.
pub(super) struct Perfetto;

impl Exporter for Perfetto {
    fn name(&self) -> &'static str {
        "perfetto"
    }
    fn about(&self) -> &'static str {
        "native Perfetto protobuf trace (TrackEvent slices, one track per thread; streamed)"
    }
}

impl StreamExporter for Perfetto {
    fn sink<'a>(
        &self,
        names: &'a [FuncInfo],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> Box<dyn StreamSink + 'a> {
        Box::new(PerfettoSink::new(names, funcs, threads, timed, out))
    }
    fn tree_threads<'m>(&self, meta: &'m crate::ingest::TraceMeta) -> &'m [u64] {
        &meta.threads
    }
}

// The messages of perfetto's protos/perfetto/trace/, the fields written.

/// `TracePacket`.
#[derive(Clone, PartialEq, Message)]
pub(super) struct TracePacket {
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    #[prost(message, optional, tag = "6")]
    pub clock_snapshot: Option<ClockSnapshot>,
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    #[prost(message, optional, tag = "12")]
    pub interned_data: Option<InternedData>,
    #[prost(uint32, optional, tag = "13")]
    pub sequence_flags: Option<u32>,
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
    #[prost(bool, optional, tag = "87")]
    pub first_packet_on_sequence: Option<bool>,
}

/// `ClockSnapshot`.
#[derive(Clone, PartialEq, Message)]
pub(super) struct ClockSnapshot {
    #[prost(message, repeated, tag = "1")]
    pub clocks: Vec<Clock>,
    #[prost(int32, optional, tag = "2")]
    pub primary_trace_clock: Option<i32>,
}

/// `ClockSnapshot.Clock`.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Clock {
    #[prost(uint32, optional, tag = "1")]
    pub clock_id: Option<u32>,
    #[prost(uint64, optional, tag = "2")]
    pub timestamp: Option<u64>,
}

/// `TrackEvent`.
#[derive(Clone, PartialEq, Message)]
pub(super) struct TrackEvent {
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    #[prost(uint64, optional, tag = "10")]
    pub name_iid: Option<u64>,
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
}

/// `InternedData`.
#[derive(Clone, PartialEq, Message)]
pub(super) struct InternedData {
    #[prost(message, repeated, tag = "2")]
    pub event_names: Vec<EventName>,
}

/// `EventName`.
#[derive(Clone, PartialEq, Message)]
pub(super) struct EventName {
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
}

/// `TrackDescriptor`.
#[derive(Clone, PartialEq, Message)]
pub(super) struct TrackDescriptor {
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    #[prost(message, optional, tag = "3")]
    pub process: Option<ProcessDescriptor>,
    #[prost(message, optional, tag = "4")]
    pub thread: Option<ThreadDescriptor>,
    #[prost(uint64, optional, tag = "5")]
    pub parent_uuid: Option<u64>,
}

/// `ProcessDescriptor`.
#[derive(Clone, PartialEq, Message)]
pub(super) struct ProcessDescriptor {
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
}

/// `ThreadDescriptor`.
#[derive(Clone, PartialEq, Message)]
pub(super) struct ThreadDescriptor {
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    pub tid: Option<i32>,
    #[prost(string, optional, tag = "5")]
    pub thread_name: Option<String>,
}

const SEQUENCE: u32 = 1;
const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;
const TYPE_SLICE_BEGIN: i32 = 1;
const TYPE_SLICE_END: i32 = 2;
const CLOCK_MONOTONIC: u32 = 3;
const CLOCK_BOOTTIME: u32 = 6;
/// The process track; thread tracks are `THREAD_UUIDS + i`.
const PROCESS_UUID: u64 = 1;
const THREAD_UUIDS: u64 = 2;

/// Writes slice begin/end packets as entries and exits arrive.
pub(super) struct PerfettoSink<'a> {
    stream: CallStream<'a>,
    layout: Layout<'a>,
    /// Frames of a tree being laid out: (depth, end, tid).
    open: Vec<(u32, u64, u64)>,
    writer: Writer<'a>,
}

/// The protobuf side: packets, interned names, thread tracks.
struct Writer<'a> {
    out: io::BufWriter<&'a mut dyn Write>,
    names: &'a [FuncInfo],
    /// Interned id per function, 0 until its name was sent.
    iid: Vec<u64>,
    next_iid: u64,
    /// The track uuid of each thread id with a track, numbered in order
    /// of first event from `THREAD_UUIDS`.
    tracks: rustc_hash::FxHashMap<u64, u64>,
    /// The thread (and its track) of the last event: nearly always the
    /// next one's.
    last: Option<(u64, u64)>,
    /// Perfetto's 32-bit ids of the trace's threads.
    ids: threads::Ids,
    pid: u64,
    buf: Vec<u8>,
    error: Option<io::Error>,
}

impl<'a> PerfettoSink<'a> {
    /// A sink writing to `out`; times are nanoseconds when `timed`.
    pub(super) fn new(
        names: &'a [FuncInfo],
        funcs: &'a FuncTable,
        threads: &'a [u64],
        timed: bool,
        out: &'a mut dyn Write,
    ) -> PerfettoSink<'a> {
        let pid = threads.first().copied().unwrap_or(0);
        let mut writer = Writer {
            out: io::BufWriter::with_capacity(1 << 16, out),
            names,
            iid: vec![0; names.len()],
            next_iid: 1,
            tracks: Default::default(),
            last: None,
            ids: threads::Ids::new(threads),
            pid,
            buf: Vec::with_capacity(256),
            error: None,
        };
        writer.preamble();
        PerfettoSink {
            stream: CallStream::new(threads, timed),
            layout: Layout::new(funcs, pid),
            open: Vec::new(),
            writer,
        }
    }

    /// Ends the laid-out frames at `depth` or deeper, innermost first.
    fn close_to(&mut self, depth: u32) {
        while let Some(&(d, end, tid)) = self.open.last() {
            if d < depth {
                break;
            }
            self.open.pop();
            self.writer.slice(TYPE_SLICE_END, None, tid, end);
        }
    }
}

fn packet() -> TracePacket {
    TracePacket {
        trusted_packet_sequence_id: Some(SEQUENCE),
        ..TracePacket::default()
    }
}

impl Writer<'_> {
    /// The clock snapshot (clearing the sequence's state) and the process
    /// track.
    fn preamble(&mut self) {
        let clock = |id| Clock {
            clock_id: Some(id),
            timestamp: Some(0),
        };
        self.write(&TracePacket {
            clock_snapshot: Some(ClockSnapshot {
                clocks: vec![clock(CLOCK_BOOTTIME), clock(CLOCK_MONOTONIC)],
                primary_trace_clock: Some(CLOCK_BOOTTIME as i32),
            }),
            sequence_flags: Some(SEQ_INCREMENTAL_STATE_CLEARED),
            first_packet_on_sequence: Some(true),
            timestamp: Some(0),
            ..packet()
        });
        let pid = self.ids.get(self.pid);
        self.write(&TracePacket {
            track_descriptor: Some(TrackDescriptor {
                uuid: Some(PROCESS_UUID),
                process: Some(ProcessDescriptor { pid: Some(pid) }),
                ..TrackDescriptor::default()
            }),
            ..packet()
        });
    }

    /// The track of thread `tid`, described on first use.
    fn track(&mut self, tid: u64) -> u64 {
        if let Some((last, uuid)) = self.last
            && last == tid
        {
            return uuid;
        }
        let uuid = match self.tracks.get(&tid) {
            Some(&uuid) => uuid,
            None => self.describe(tid),
        };
        self.last = Some((tid, uuid));
        uuid
    }

    /// A new track for thread `tid`.
    fn describe(&mut self, tid: u64) -> u64 {
        let uuid = THREAD_UUIDS + self.tracks.len() as u64;
        self.tracks.insert(tid, uuid);
        let name = self.ids.name(tid);
        let (pid, id) = (self.ids.get(self.pid), self.ids.get(tid));
        self.write(&TracePacket {
            track_descriptor: Some(TrackDescriptor {
                uuid: Some(uuid),
                name: name.clone(),
                parent_uuid: Some(PROCESS_UUID),
                thread: Some(ThreadDescriptor {
                    pid: Some(pid),
                    tid: Some(id),
                    thread_name: name,
                }),
                ..TrackDescriptor::default()
            }),
            ..packet()
        });
        uuid
    }

    /// A slice begin (with `func`'s name) or end on `tid`'s track.
    fn slice(&mut self, kind: i32, func: Option<FuncId>, tid: u64, time: u64) {
        let track_uuid = Some(self.track(tid));
        let mut interned_data = None;
        let name_iid = func.map(|f| {
            let f = f as usize;
            if self.iid[f] == 0 {
                self.iid[f] = self.next_iid;
                self.next_iid += 1;
                interned_data = Some(InternedData {
                    event_names: vec![EventName {
                        iid: Some(self.iid[f]),
                        name: Some(self.names[f].name.clone()),
                    }],
                });
            }
            self.iid[f]
        });
        self.write(&TracePacket {
            timestamp: Some(time),
            sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
            track_event: Some(TrackEvent {
                r#type: Some(kind),
                name_iid,
                track_uuid,
            }),
            interned_data,
            ..packet()
        });
    }

    /// Writes `p` as one `Trace.packet` (field 1, length-delimited).
    fn write(&mut self, p: &TracePacket) {
        if self.error.is_some() {
            return;
        }
        self.buf.clear();
        prost::encoding::encode_key(1, prost::encoding::WireType::LengthDelimited, &mut self.buf);
        prost::encoding::encode_varint(p.encoded_len() as u64, &mut self.buf);
        p.encode_raw(&mut self.buf);
        if let Err(e) = self.out.write_all(&self.buf) {
            self.error = Some(e);
        }
    }
}

impl CallWriter for Writer<'_> {
    fn enter(&mut self, func: FuncId, tid: u64, time: u64) {
        self.slice(TYPE_SLICE_BEGIN, Some(func), tid, time);
    }
    fn leave(&mut self, _func: FuncId, tid: u64, start: u64, end: u64) {
        // An exit timed before its entry ends the slice where it began.
        self.slice(TYPE_SLICE_END, None, tid, end.max(start));
    }
}

impl EventSink for PerfettoSink<'_> {
    fn events(&mut self, events: &[Event]) {
        self.stream.events(events, &mut self.writer);
    }
}

impl NodeSink for PerfettoSink<'_> {
    fn node(&mut self, node: NodeRecord) {
        let depth = node.depth + 1;
        self.close_to(depth);
        match self.layout.place(depth, node.func, node.total) {
            Some((tid, start, end)) => {
                self.writer
                    .slice(TYPE_SLICE_BEGIN, Some(node.func), tid, start);
                self.open.push((depth, end, tid));
            }
            None => self.close_to(0),
        }
    }
}

impl StreamSink for PerfettoSink<'_> {
    fn finish(mut self: Box<Self>) -> io::Result<()> {
        self.close_to(0);
        self.stream.finish(&mut self.writer);
        let w = &mut self.writer;
        super::calls::flushed(&mut w.out, &mut w.error)
    }
}

#[cfg(test)]
mod tests;
