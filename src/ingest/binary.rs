//! The compact binary trace written by the runtime with
//! `CALLTRACE_FORMAT=binary`, specified in docs/binary-format.md (the one
//! place its layout is described). What matters here: blocks decode
//! independently, which is what lets big traces be read in parallel, and
//! every record carries a marker and a checksum (version 2), so a lenient
//! read skips a damaged block and picks up at the next intact one.

use rustc_hash::FxHashMap;

use super::chunked::{self, LocalEvents};
use std::any::Any;

use super::{
    BATCH, Event, EventConsumer, EventKind, FuncTable, Input, Mapping, ParseOptions, Sink,
    ThreadIds, TraceFormat, TraceMeta,
};
use crate::error::{Error, Result};

/// The first eight bytes of every binary trace.
pub const MAGIC: &[u8; 8] = b"CALLTRC\0";
/// The version the runtime writes; every version from 1 up to it is read.
pub const VERSION: u16 = 2;
const FLAG_TIMED: u16 = 1;
const TAG_BLOCK: u8 = b'B';
const TAG_MAP: u8 = b'M';
const TAG_METHOD: u8 = b'N';
const TAG_THREAD: u8 = b'T';
const TAG_RAW: u8 = b'R';
const TAG_DROPPED: u8 = b'D';
/// Where a raw buffer's events start in its region (the runtime's `CT_HDR`).
const RAW_EVENTS_AT: usize = 4096;
/// The timed flag of an untimed raw buffer whose events are 8 bytes.
const RAW_SLOTS_8: u64 = 2;
/// The event address of method 0 of the runtime's interpreter API
/// (`calltrace.h`): method `i` is entered at `METHOD_BASE + i`.
pub const METHOD_BASE: u64 = 0x3f00_0000_0000_0000;
/// The marker that starts every record from version 2 on.
pub const SYNC: &[u8; 4] = b"CTR\x1a";

/// How records are framed in a file of a given version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    version: u16,
    timed: bool,
}

impl Layout {
    /// Length of a record header: tag, thread, event count and payload
    /// length (version 1); marker and checksum in front (version 2).
    fn header_len(self) -> usize {
        if self.version == 1 { 17 } else { 28 }
    }

    /// Whether records carry a marker and a checksum to resynchronise on.
    fn checked(self) -> bool {
        self.version >= 2
    }

    /// The record header at `pos`, if the bytes for it are there (and,
    /// from version 2 on, it starts with the marker).
    fn head(self, data: &[u8], pos: usize) -> Option<Head> {
        let h = data.get(pos..pos.checked_add(self.header_len())?)?;
        let u32_at = |o: usize| u32::from_le_bytes(h[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(h[o..o + 8].try_into().expect("8 bytes"));
        if self.checked() {
            if &h[..4] != SYNC {
                return None;
            }
            Some(Head {
                tag: h[8],
                tid: u64_at(12),
                nevents: u32_at(20),
                nbytes: u32_at(24) as usize,
                checksum: Some(u32_at(4)),
                seq: (h[9] & FLAG_SEQ != 0).then(|| u16::from_le_bytes([h[10], h[11]])),
            })
        } else {
            Some(Head {
                tag: h[0],
                tid: u64_at(1),
                nevents: u32_at(9),
                nbytes: u32_at(13) as usize,
                checksum: None,
                seq: None,
            })
        }
    }

    /// The header of the record at `pos` and where the record ends, if the
    /// header is there and the record's bytes fit in `data` (checksum not
    /// checked): the step of a walk over the records.
    fn step(self, data: &[u8], pos: usize) -> Option<(Head, usize)> {
        let head = self.head(data, pos)?;
        let end = (pos + self.header_len())
            .checked_add(head.nbytes)
            .filter(|&e| e <= data.len())?;
        Some((head, end))
    }

    /// Where the record at `pos` ends, if it is complete (and, from
    /// version 2 on, its checksum matches).
    fn intact(self, data: &[u8], pos: usize) -> Option<usize> {
        let (head, end) = self.step(data, pos)?;
        let record = &data[pos..end];
        // A raw buffer changes while the program runs: its checksum covers
        // the header only.
        let covered = match head.tag {
            TAG_RAW => &record[8..self.header_len()],
            _ => &record[8..],
        };
        match head.checksum {
            Some(sum) if checksum(covered) != sum => None,
            _ => Some(end),
        }
    }

    /// The start of the first intact record after a damaged one at `pos`,
    /// or the end of the data.
    fn resync(self, data: &[u8], pos: usize) -> usize {
        let mut from = pos + 1;
        while let Some(off) = memchr::memmem::find(data.get(from..).unwrap_or(&[]), SYNC) {
            let at = from + off;
            if self.intact(data, at).is_some() {
                return at;
            }
            from = at + 1;
        }
        data.len()
    }
}

/// A record header as read.
#[derive(Debug, Clone, Copy)]
struct Head {
    tag: u8,
    tid: u64,
    nevents: u32,
    nbytes: usize,
    checksum: Option<u32>,
    /// Block: the low 16 bits of the thread's event count at the block's
    /// first event, when the runtime wrote it from a ring.
    seq: Option<u16>,
}

/// Byte 9 of a record header: bytes 10 and 11 hold [`Head::seq`].
const FLAG_SEQ: u8 = 1;

/// The checksum of a version-2 record (everything after the checksum
/// field): a multiply-xor hash over little-endian 8-byte words, the last
/// one zero-padded. It is what the runtime computes; docs/binary-format.md
/// gives it in Python.
pub fn checksum(bytes: &[u8]) -> u32 {
    Sum::new(bytes).rest(bytes)
}

/// [`checksum`] a word at a time: a decoder adds a word after each event
/// it reads, so that the checksum's chain of multiplications runs beside
/// the decoding instead of in a pass of its own before it.
struct Sum {
    h: u64,
    /// Bytes added so far (whole words).
    at: usize,
}

impl Sum {
    /// The checksum of `bytes` begun.
    fn new(bytes: &[u8]) -> Sum {
        Sum {
            h: 0x9e37_79b9_7f4a_7c15 ^ bytes.len() as u64,
            at: 0,
        }
    }

    #[inline(always)]
    fn add(&mut self, w: u64) {
        self.h = (self.h ^ w).wrapping_mul(0xff51_afd7_ed55_8ccd);
        self.h ^= self.h >> 32;
    }

    /// Adds the next word of `bytes`, if a whole one is left.
    #[inline(always)]
    fn step(&mut self, bytes: &[u8]) {
        if let Some(w) = bytes.get(self.at..self.at + 8) {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
            self.at += 8;
        }
    }

    /// The checksum of `bytes`: the words not yet added, the last one
    /// zero-padded.
    fn rest(mut self, bytes: &[u8]) -> u32 {
        let mut words = bytes[self.at..].chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            let mut w = [0u8; 8];
            w[..tail.len()].copy_from_slice(tail);
            self.add(u64::from_le_bytes(w));
        }
        (self.h ^ (self.h >> 29)) as u32
    }
}

/// Binary calltrace trace (`CALLTRACE_FORMAT=binary`).
pub struct BinaryFormat;

impl TraceFormat for BinaryFormat {
    fn name(&self) -> &'static str {
        "binary"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        head.starts_with(MAGIC)
    }

    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let data: &[u8] = input;
        let mut r = Reader {
            data,
            pos: 0,
            name: input.name(),
        };
        let (meta, layout) = r.header()?;
        let mut seq = InOrder::new(data, input.name(), opts, funcs, meta, layout);
        // Binary events are ~2 bytes each: smaller chunks keep the decoded
        // events of the chunks in flight in cache.
        let size = match opts.chunk_bytes {
            0 => chunked::DEFAULT_CHUNK / 8,
            n => n,
        };
        let cut = match layout.version {
            1 => cut_records_v1 as super::input::Cut,
            _ => cut_records_v2 as super::input::Cut,
        };
        let first_record = r.pos;
        let chunks = input.chunks_cut_by(r.pos, size, cut);
        chunked::run_workers(
            input,
            chunks,
            opts,
            sink,
            Decoder::default,
            |w, bytes| {
                let scan = BinaryScan {
                    decoder: &mut w.parser,
                    bytes,
                    layout,
                    out: w.buffers.take(),
                };
                match w.work.as_mut() {
                    Some(work) => work.scan_binary(scan).0,
                    None => scan.decoder.decode(bytes, layout, scan.out),
                }
            },
            |chunk, local, sink, buffers| {
                seq.chunk(chunk.start, chunk.bytes.len(), local, sink, buffers)
            },
        )?;
        seq.drop_written(first_record);
        seq.pending(sink);
        Ok(seq.finish())
    }
}

/// [`cut_records`] for version-1 files.
fn cut_records_v1(data: &[u8], start: usize, size: usize) -> usize {
    let layout = Layout {
        version: 1,
        timed: true,
    };
    cut_records(layout, data, start, size)
}

/// [`cut_records`] for version-2 files.
fn cut_records_v2(data: &[u8], start: usize, size: usize) -> usize {
    let layout = Layout {
        version: 2,
        timed: true,
    };
    cut_records(layout, data, start, size)
}

/// The end of the chunk of whole records starting at `start`: the first
/// record boundary at least `size` bytes on, or the end of the data when a
/// record header is torn or wrong (that chunk then fails to decode on the
/// worker and is read record by record, which reports the problem).
fn cut_records(layout: Layout, data: &[u8], start: usize, size: usize) -> usize {
    let mut pos = start;
    while pos - start < size && pos < data.len() {
        match layout.step(data, pos) {
            Some((head, next)) if known_tag(layout, head.tag) => pos = next,
            _ => return data.len(),
        }
    }
    pos
}

/// Whether records tagged `tag` exist in files of this layout.
fn known_tag(layout: Layout, tag: u8) -> bool {
    match tag {
        TAG_BLOCK => true,
        TAG_MAP | TAG_METHOD | TAG_THREAD | TAG_RAW | TAG_DROPPED => layout.checked(),
        _ => false,
    }
}

/// The in-order side of a binary parse: global ids, lenient counting, and
/// record-by-record reading of chunks the workers could not decode.
struct InOrder<'a> {
    data: &'a [u8],
    name: &'a str,
    opts: &'a ParseOptions,
    funcs: &'a mut FuncTable,
    threads: ThreadIds,
    maps: (Vec<u32>, Vec<u32>),
    meta: TraceMeta,
    layout: Layout,
    /// Where the next record starts: past a chunk's start after a lenient
    /// read resynchronised beyond it.
    resume: usize,
    /// Set when `--lenient` gave up on a bad version-1 block: the rest is ignored.
    stopped: bool,
    /// Events left in the runtime's buffers when the process ended without
    /// writing them: they follow every block, so they are passed on last.
    pending: Vec<Event>,
    /// The rings those events came from.
    rings: Vec<Ring>,
    /// Events the runtime dropped (`CALLTRACE_LOSSY=1`).
    dropped: u64,
}

impl<'a> InOrder<'a> {
    fn new(
        data: &'a [u8],
        name: &'a str,
        opts: &'a ParseOptions,
        funcs: &'a mut FuncTable,
        meta: TraceMeta,
        layout: Layout,
    ) -> Self {
        InOrder {
            data,
            name,
            opts,
            funcs,
            threads: ThreadIds::default(),
            maps: (Vec::new(), Vec::new()),
            meta,
            layout,
            resume: 0,
            stopped: false,
            pending: Vec::new(),
            rings: Vec::new(),
            dropped: 0,
        }
    }

    /// Takes the chunk of `len` bytes at `start`, decoded or not.
    fn chunk(
        &mut self,
        start: usize,
        len: usize,
        local: Option<LocalEvents>,
        sink: &mut dyn Sink,
        buffers: &chunked::Recycle<LocalEvents>,
    ) -> Result<()> {
        let end = start + len;
        let local = match local {
            Some(local) if self.resume > start || self.stopped => {
                buffers.give(local);
                None
            }
            other => other,
        };
        if self.stopped || self.resume >= end {
            return Ok(());
        }
        match local {
            Some(mut local) => {
                local.merge(self.funcs, &mut self.threads, &mut self.maps, sink);
                buffers.give(local);
                self.resume = end;
                Ok(())
            }
            None => self.records(start.max(self.resume), end, sink),
        }
    }

    /// Reads the records in `start..end` one by one (the last one may end
    /// beyond `end` after a resynchronisation).
    fn records(&mut self, start: usize, end: usize, sink: &mut dyn Sink) -> Result<()> {
        let mut r = Reader {
            data: self.data,
            pos: start,
            name: self.name,
        };
        let mut batch = Vec::with_capacity(BATCH);
        while r.pos < end {
            let at = r.pos;
            let mut side = Side {
                meta: &mut self.meta,
                pending: &mut self.pending,
                rings: &mut self.rings,
                dropped: &mut self.dropped,
            };
            let read = r.record(
                self.layout,
                self.funcs,
                &mut self.threads,
                &mut batch,
                &mut side,
            );
            match read {
                Ok(()) => {}
                Err(bad) if self.opts.lenient && !bad.fatal => {
                    self.meta.skipped_lines += 1;
                    if !self.layout.checked() {
                        // A torn final block (a crash mid-write) is the usual cause: keep what decoded.
                        self.meta.first_skipped.get_or_insert(bad.err.to_string());
                        self.stopped = true;
                        break;
                    }
                    let next = self.layout.resync(self.data, at);
                    let end = self.data.len();
                    self.meta.first_skipped.get_or_insert_with(|| {
                        let to = match next >= end {
                            true => "to the end of the trace: no intact block follows",
                            false => "up to the next intact block",
                        };
                        format!("{} (skipped the {} bytes {to})", bad.err, next - at)
                    });
                    r.pos = next;
                }
                Err(bad) => return Err(bad.err),
            }
            if batch.len() >= BATCH {
                sink.events(&batch);
                batch.clear();
            }
        }
        sink.events(&batch);
        self.resume = r.pos;
        Ok(())
    }

    /// Drops the ring events that a block in the file holds already: the
    /// process died after writing the block but before noting it in the
    /// ring. Each thread's last block says up to which event it wrote.
    fn drop_written(&mut self, first_record: usize) {
        // The usual trace (the process exited normally) has nothing pending,
        // and is not walked again.
        if self.pending.is_empty() || !self.layout.checked() {
            return;
        }
        let mut ends: FxHashMap<u64, u16> = FxHashMap::default();
        let mut pos = first_record;
        while let Some((head, next)) = self.layout.step(self.data, pos) {
            if let (TAG_BLOCK, Some(q)) = (head.tag, head.seq) {
                ends.insert(head.tid, q.wrapping_add(head.nevents as u16));
            }
            pos = next;
        }
        // Each ring's events are one run of the pending events, in file
        // order: drop from the last run back, so earlier runs stay put.
        for ring in self.rings.iter().rev() {
            if let Some(&end) = ends.get(&ring.tid) {
                let k = written_after_all(ring, end);
                self.pending.drain(ring.first..ring.first + k);
            }
        }
    }

    /// Passes on the events found in the runtime's buffers.
    fn pending(&mut self, sink: &mut dyn Sink) {
        for batch in self.pending.chunks(BATCH) {
            sink.events(batch);
        }
        self.pending.clear();
    }

    fn finish(self) -> TraceMeta {
        let mut meta = self.meta;
        if let Some(w) = super::dropped_warning(self.dropped) {
            meta.warnings.push(w);
        }
        meta.timed = self.layout.timed;
        meta.unit = if meta.timed {
            super::Unit::Nanos
        } else {
            super::Unit::Calls
        };
        meta.threads = self.threads.into_ids();
        if meta.threads.is_empty() {
            meta.threads.push(0);
        }
        meta
    }
}

/// A worker's block decoder: chunk-local ids for addresses (through a
/// direct-mapped cache) and threads.
struct Decoder {
    /// A fixed-size array, so that indexing it by a hash needs no bounds
    /// check or division.
    slots: Box<[(u64, u32, u32); SLOTS]>,
    stamp: u32,
    tids: FxHashMap<u64, u32>,
    /// The chunk's local id of every address read so far, consulted on
    /// cache misses: an address whose slot another one took keeps its id
    /// (summarisers tell frames apart by id).
    ids: FxHashMap<u64, u32>,
}

/// Entries of [`Decoder::slots`].
const SLOTS: usize = 1024;

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            slots: Box::new([(0, 0, 0); SLOTS]),
            stamp: 0,
            tids: FxHashMap::default(),
            ids: FxHashMap::default(),
        }
    }
}

impl Decoder {
    /// Decodes a chunk of whole event blocks, storing the events; None if
    /// any record is malformed or not a block (those are read in order).
    fn decode(&mut self, b: &[u8], layout: Layout, mut out: LocalEvents) -> Option<LocalEvents> {
        let mut events = std::mem::take(&mut out.events);
        events.clear();
        let r = self.decode_into(b, layout, out, &mut events);
        match r {
            Ok(mut local) => {
                local.events = events;
                Some(local)
            }
            Err(_) => None,
        }
    }

    /// Decodes a chunk of whole event blocks into `consumer`, with the
    /// chunk-local ids in `out`.
    #[inline(always)]
    fn decode_into<C: EventConsumer>(
        &mut self,
        b: &[u8],
        layout: Layout,
        mut out: LocalEvents,
        consumer: &mut C,
    ) -> std::result::Result<LocalEvents, Stop> {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill((0, 0, 0));
            self.stamp = 1;
        }
        self.tids.clear();
        self.ids.clear();
        out.clear();
        let mut pos = 0;
        while pos < b.len() {
            let (head, end) = layout.step(b, pos).ok_or(Stop::Bad)?;
            if head.tag != TAG_BLOCK {
                return Err(Stop::Bad);
            }
            // The checksum is checked as the block is decoded (see
            // `Sum`); a block it fails gives the whole chunk up, with
            // what its events added to the consumer.
            let covered = match head.checksum {
                Some(_) => &b[pos + 8..end],
                None => &[],
            };
            let payload = &b[pos + layout.header_len()..end];
            let next = out.tids.len() as u32;
            let thread = *self.tids.entry(head.tid).or_insert(next);
            if thread == next {
                out.tids.push(head.tid);
            }
            let (slots, ids, addrs) = (&mut self.slots, &mut self.ids, &mut out.addrs);
            let stamp = self.stamp;
            // A leaf's exit follows its entry: the same address.
            let mut last = None;
            let intern = |addr: u64| match last {
                Some((a, id)) if a == addr => id,
                _ => {
                    let id = local_id(slots, ids, stamp, addrs, addr);
                    last = Some((addr, id));
                    id
                }
            };
            let mut sum = Sum::new(covered);
            match decode_block(
                payload,
                head.nevents,
                layout.timed,
                thread,
                intern,
                consumer,
                || sum.step(covered),
            ) {
                Ok(()) if head.checksum.is_some_and(|want| sum.rest(covered) != want) => {
                    return Err(Stop::Bad);
                }
                Ok(()) => {}
                Err(Some(_)) => return Err(Stop::Bad),
                Err(None) => return Err(Stop::Consumer(out)),
            }
            pos = end;
        }
        Ok(out)
    }
}

/// Why [`Decoder::decode_into`] stopped.
enum Stop {
    /// A record is malformed or not a block.
    Bad,
    /// The consumer gave the chunk up (its buffers come back).
    Consumer(LocalEvents),
}

/// A chunk of binary blocks and a decoder for it, handed to a sink's
/// [`ChunkWork::scan_binary`](super::ChunkWork::scan_binary) so that it
/// can run the decoder with its own (statically dispatched) consumer.
pub struct BinaryScan<'a> {
    decoder: &'a mut Decoder,
    bytes: &'a [u8],
    layout: Layout,
    out: LocalEvents,
}

/// What [`BinaryScan`] made of a chunk (opaque outside the binary reader).
pub struct BinaryScanned(pub(crate) Option<LocalEvents>);

impl BinaryScan<'_> {
    /// Decodes the chunk, feeding every event to `consumer` instead of
    /// storing it, and attaches `finish(consumer)` as the chunk's summary.
    /// When the consumer gives up, the chunk is decoded again with its
    /// events stored, for the sequential path.
    pub fn run<C: EventConsumer>(
        self,
        consumer: &mut C,
        finish: impl FnOnce(&mut C) -> Box<dyn Any + Send>,
    ) -> BinaryScanned {
        let BinaryScan {
            decoder,
            bytes,
            layout,
            out,
        } = self;
        match decoder.decode_into(bytes, layout, out, consumer) {
            Ok(mut local) => {
                local.summary = Some(finish(consumer));
                BinaryScanned(Some(local))
            }
            Err(Stop::Bad) => BinaryScanned(None),
            Err(Stop::Consumer(out)) => BinaryScanned(decoder.decode(bytes, layout, out)),
        }
    }

    /// Decodes the chunk storing its events, then attaches what
    /// `summarise` makes of them.
    pub fn then_summarise(
        self,
        summarise: impl FnOnce(&[Event]) -> Option<Box<dyn Any + Send>>,
    ) -> BinaryScanned {
        let mut local = self.decoder.decode(self.bytes, self.layout, self.out);
        if let Some(l) = local.as_mut() {
            l.summary = summarise(&l.events);
        }
        BinaryScanned(local)
    }
}

/// The chunk-local id of `addr`: cached, or looked up, or a new one.
#[inline(always)]
fn local_id(
    slots: &mut [(u64, u32, u32); SLOTS],
    ids: &mut FxHashMap<u64, u32>,
    stamp: u32,
    addrs: &mut Vec<u64>,
    addr: u64,
) -> u32 {
    let h = (addr.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize % SLOTS;
    let slot = &mut slots[h];
    if slot.0 == addr && slot.1 == stamp {
        return slot.2;
    }
    let id = local_miss(ids, addrs, addr);
    *slot = (addr, stamp, id);
    id
}

/// [`local_id`] past the cache.
#[cold]
fn local_miss(ids: &mut FxHashMap<u64, u32>, addrs: &mut Vec<u64>, addr: u64) -> u32 {
    let next = addrs.len() as u32;
    let id = *ids.entry(addr).or_insert(next);
    if id == next {
        addrs.push(addr);
    }
    id
}

/// Where records other than blocks put what they say.
struct Side<'s> {
    meta: &'s mut TraceMeta,
    pending: &'s mut Vec<Event>,
    rings: &'s mut Vec<Ring>,
    dropped: &'s mut u64,
}

/// A record that could not be read: `fatal` when skipping it would risk
/// misreading the file (an intact record of an unknown kind).
struct Bad {
    err: Error,
    fatal: bool,
}

impl From<Error> for Bad {
    fn from(err: Error) -> Self {
        Bad { err, fatal: false }
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    name: &'a str,
}

impl Reader<'_> {
    fn err(&self, what: &str) -> Error {
        Error::Input(format!("{}: byte {}: expected {what}", self.name, self.pos))
    }

    fn bytes(&mut self, n: usize, what: &str) -> Result<&[u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| self.err(what))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u16(&mut self, what: &str) -> Result<u16> {
        Ok(u16::from_le_bytes(
            self.bytes(2, what)?.try_into().expect("2 bytes"),
        ))
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.bytes(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.bytes(8, what)?.try_into().expect("8 bytes"),
        ))
    }

    fn header(&mut self) -> Result<(TraceMeta, Layout)> {
        if self.bytes(8, "the magic `CALLTRC\\0`")? != MAGIC {
            self.pos = 0;
            return Err(self.err("the magic `CALLTRC\\0` of a binary calltrace trace"));
        }
        let version = self.u16("the format version")?;
        if !(1..=VERSION).contains(&version) {
            self.pos -= 2;
            return Err(self.err(&format!("format version 1 to {VERSION}, found {version}")));
        }
        let flags = self.u16("the header flags")?;
        if flags & !FLAG_TIMED != 0 {
            self.pos -= 2;
            return Err(self.err(&format!(
                "header flags with only bit 0 set, found {flags:#06x} (a newer format?)"
            )));
        }
        self.u32("the reserved header field")?;
        let base = self.u64("the load base address")?;
        let len = self.u32("the executable path length")? as usize;
        let path = String::from_utf8_lossy(self.bytes(len, "the executable path")?).into_owned();
        let meta = TraceMeta {
            format: "binary",
            base: (base != 0).then_some(base),
            exe_path: (!path.is_empty()).then_some(path),
            ..TraceMeta::default()
        };
        let layout = Layout {
            version,
            timed: flags & FLAG_TIMED != 0,
        };
        Ok((meta, layout))
    }

    /// Reads the record at the current position: a block's events go to
    /// `out`, a mapping to `maps`.
    fn record(
        &mut self,
        layout: Layout,
        funcs: &mut FuncTable,
        threads: &mut ThreadIds,
        out: &mut Vec<Event>,
        side: &mut Side<'_>,
    ) -> std::result::Result<(), Bad> {
        let start = self.pos;
        let Some(head) = layout.head(self.data, start) else {
            if self.torn_ring_header(layout, side.rings) {
                self.pos = self.data.len();
                return Ok(());
            }
            return Err(self.torn_or_unmarked(layout).into());
        };
        let payload_start = start + layout.header_len();
        let complete = payload_start
            .checked_add(head.nbytes)
            .is_some_and(|e| e <= self.data.len());
        if layout.checked() {
            // The process died while writing a block from its thread's ring:
            // the ring still holds all of the block's events.
            let in_ring = |q: u16| side.rings.iter().any(|r| r.tid == head.tid && r.holds(q));
            if !complete
                && head.tag == TAG_BLOCK
                && head.seq.is_some_and(in_ring)
                && layout.resync(self.data, start) == self.data.len()
            {
                self.pos = self.data.len();
                return Ok(());
            }
            // A torn final block (a crash or a full disk mid-write) cannot be
            // checked: its complete events are kept, as in version 1. A record
            // that only seems to run past the end (a damaged length) has
            // intact records after it.
            let keep_torn = !complete
                && head.tag == TAG_BLOCK
                && layout.resync(self.data, start) == self.data.len();
            if !complete && !keep_torn {
                return Err(self
                    .err("a complete record (the trace may be truncated)")
                    .into());
            }
            if complete && layout.intact(self.data, start).is_none() {
                return Err(self
                    .err("a record whose checksum matches (a damaged block)")
                    .into());
            }
        }
        if !known_tag(layout, head.tag) {
            let err = self.err(&format!(
                "a record tag `B`, `M`, `N` or `T`, found {:#04x} (a newer format?)",
                head.tag
            ));
            return Err(Bad {
                err,
                fatal: layout.checked(),
            });
        }
        self.pos = payload_start;
        let payload = &self.data
            [payload_start..payload_start + head.nbytes.min(self.data.len() - payload_start)];
        match head.tag {
            TAG_MAP => {
                let map = mapping(payload).ok_or_else(|| self.err("a mapping record"))?;
                super::add_mapping(side.meta, funcs, map);
                self.pos += head.nbytes;
                return Ok(());
            }
            TAG_METHOD => {
                let name = method_name(payload, head.nevents)
                    .ok_or_else(|| self.err("a method record"))?;
                funcs.alias_addr(METHOD_BASE + head.nevents as u64, &name);
                self.pos += head.nbytes;
                return Ok(());
            }
            TAG_THREAD => {
                let name = thread_name(payload).ok_or_else(|| self.err("a thread name record"))?;
                let ix = threads.index(head.tid) as usize;
                let names = &mut side.meta.thread_names;
                if names.len() <= ix {
                    names.resize(ix + 1, String::new());
                }
                names[ix] = name;
                self.pos += head.nbytes;
                return Ok(());
            }
            TAG_DROPPED => {
                let n = payload
                    .get(..8)
                    .ok_or_else(|| self.err("a dropped-events record"))?;
                *side.dropped += u64::from_le_bytes(n.try_into().expect("8 bytes"));
                self.pos += head.nbytes;
                return Ok(());
            }
            TAG_RAW => {
                let ring = raw_events(payload, funcs, threads, side.pending)
                    .ok_or_else(|| self.err("a thread buffer record"))?;
                side.rings.extend(ring);
                self.pos += head.nbytes;
                return Ok(());
            }
            _ => {}
        }
        let thread = threads.index(head.tid);
        // A torn final block (crash mid-write, version 1): decode what is there, then report it.
        let avail = head.nbytes.min(self.data.len() - payload_start);
        let payload = &self.data[payload_start..payload_start + avail];
        self.pos += avail;
        let decoded = decode_block(
            payload,
            head.nevents,
            layout.timed,
            thread,
            |a| funcs.addr(a),
            out,
            || {},
        );
        if avail < head.nbytes {
            return Err(self
                .err("a complete block payload (the trace may be truncated)")
                .into());
        }
        decoded.map_err(|off| {
            // A `Vec` takes every event: the offset is always there.
            self.pos = payload_start + off.unwrap_or_default();
            self.err(&format!("{} well-formed events in the block", head.nevents))
                .into()
        })
    }

    /// Whether the bytes left at the current position are the start of a
    /// block header that the process died writing, for a block of a ring
    /// that still holds its events (see `record`): fewer bytes than a
    /// header, and the record marker, tag `B`, the ring flag, a sequence
    /// and a thread that match a ring with unwritten events, as far as the
    /// bytes go.
    fn torn_ring_header(&self, layout: Layout, rings: &[Ring]) -> bool {
        let h = &self.data[self.pos..];
        if !layout.checked() || h.len() >= layout.header_len() || rings.is_empty() {
            return false;
        }
        let n = h.len().min(SYNC.len());
        if h[..n] != SYNC[..n]
            || h.get(8).is_some_and(|&t| t != TAG_BLOCK)
            || h.get(9).is_some_and(|&f| f & FLAG_SEQ == 0)
        {
            return false;
        }
        // Bytes 10-11: the sequence; 12-19: the thread.
        rings.iter().any(|r| {
            let seq = match (h.get(10), h.get(11)) {
                (Some(&lo), Some(&hi)) => r.holds(u16::from_le_bytes([lo, hi])),
                (Some(&lo), None) => (0..r.count.min(1 << 16))
                    .any(|k| (r.flushed as u16).wrapping_add(k as u16) as u8 == lo),
                _ => true,
            };
            let tid = r.tid.to_le_bytes();
            seq && (12..h.len().min(20)).all(|o| h[o] == tid[o - 12])
        })
    }

    /// The error for a record header that is not there.
    fn torn_or_unmarked(&self, layout: Layout) -> Error {
        if self.data.len() - self.pos < layout.header_len() {
            self.err("a record header (the trace may be truncated)")
        } else if layout.checked() {
            self.err("the record marker `CTR\\x1a`")
        } else {
            self.err("a block tag `B`")
        }
    }
}

/// The unwritten events of a thread buffer record ('R'): the payload holds
/// the region's offset, the clock (TSC at start, CLOCK_MONOTONIC ns at
/// start, TSC-to-ns factor in 32.32 fixed point, timed flag), the ring's
/// size in events (runtimes with a writer thread), and the
/// region is the runtime's buffer: `len` (u32 at 0), `flushed` (u32 at 8),
/// thread id (u64 at 16), the factor of the last block (u64 at 40, 0 when
/// none), and from byte 4096 16-byte raw events (address;
/// kind in bit 63 and raw clock), or 8-byte ones (address, kind in bit 63)
/// when the timed flag is [`RAW_SLOTS_8`].
fn raw_events(
    p: &[u8],
    funcs: &mut FuncTable,
    threads: &mut ThreadIds,
    out: &mut Vec<Event>,
) -> Option<Option<Ring>> {
    let u64_at = |b: &[u8], o: usize| Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?));
    let u32_at = |b: &[u8], o: usize| Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?));
    let region = p.get(usize::try_from(u64_at(p, 0)?).ok()?..)?;
    let (tsc0, t0, mult, timed) = (
        u64_at(p, 8)?,
        u64_at(p, 16)?,
        u64_at(p, 24)?,
        u64_at(p, 32)?,
    );
    // Since the writer thread, the events are a ring of `ring` slots (a
    // power of two; the sixth parameter, read when the region leaves room
    // for it) and `len` and `flushed` count events, wrapping at 2^32.
    // Before, `ring` is 0 and the events are `flushed..len` of the buffer.
    let ring = match u64_at(p, 0)? {
        at if at >= 48 => u64_at(p, 40)? as usize,
        _ => 0,
    };
    let (len, flushed) = (u32_at(region, 0)?, u32_at(region, 8)?);
    let (start, count) = match ring {
        0 if flushed >= len => return Some(None),
        0 => (flushed as usize, (len - flushed) as usize),
        r if r.is_power_of_two() && (len.wrapping_sub(flushed) as usize) <= r => (
            flushed as usize & (r - 1),
            len.wrapping_sub(flushed) as usize,
        ),
        _ => return None,
    };
    let tid = u64_at(region, 16)?;
    // The factor the thread's last block was written with, when the
    // runtime noted it (at 40; 0 before): the start-up one is measured over
    // a few microseconds, and its times drift from the blocks' by a
    // microsecond or so over a run.
    let mult = match u64_at(region, 40) {
        Some(m) if m != 0 && mult != 0 => m,
        _ => mult,
    };
    let thread = threads.index(tid);
    let first_pending = out.len();
    let slots = if ring == 0 { start + count } else { ring };
    let size = if timed == RAW_SLOTS_8 { 8 } else { 16 };
    let events = region.get(RAW_EVENTS_AT..RAW_EVENTS_AT + size * slots)?;
    let (tail, head) = events.split_at(size * start);
    let first = head.len().min(size * count);
    let events = head[..first]
        .chunks_exact(size)
        .chain(tail[..size * count - first].chunks_exact(size));
    for e in events {
        let first = u64_at(e, 0)?;
        let (addr, tk) = match size {
            8 => (first & !(1 << 63), first & 1 << 63),
            _ => (first, u64_at(e, 8)?),
        };
        let raw = tk & !(1 << 63);
        let time = match (timed, mult) {
            (0 | RAW_SLOTS_8, _) => 0,
            (_, 0) => raw.saturating_sub(t0),
            _ => ((raw.saturating_sub(tsc0) as u128 * mult as u128) >> 32) as u64,
        };
        out.push(Event {
            time,
            func: funcs.addr(addr),
            thread,
            kind: if tk >> 63 == 1 {
                EventKind::Exit
            } else {
                EventKind::Enter
            },
        });
    }
    Some((ring > 0 && count > 0).then_some(Ring {
        tid,
        flushed,
        first: first_pending,
        count,
    }))
}

/// The unwritten events of one thread's ring, as [`raw_events`] took them.
#[derive(Debug, Clone, Copy)]
struct Ring {
    tid: u64,
    /// The thread's event count when its last completed write began.
    flushed: u32,
    /// Where its events start in the pending events, and how many.
    first: usize,
    count: usize,
}

impl Ring {
    /// Whether a block that starts at event count `seq` (mod 2^16) holds
    /// events of this ring: the runtime writes several blocks of a thread
    /// at once (up to 2^15 events), and notes them only afterwards.
    fn holds(&self, seq: u16) -> bool {
        (seq.wrapping_sub(self.flushed as u16) as usize) < self.count
    }
}

/// How many of `ring`'s events were written after all, as a block that
/// ends at event count `end` (mod 2^16): the process died after the write
/// but before the runtime noted it.
fn written_after_all(ring: &Ring, end: u16) -> usize {
    let k = end.wrapping_sub(ring.flushed as u16) as usize;
    if k <= ring.count { k } else { 0 }
}

/// A thread name record's name: 4 zero bytes, u32 length, the name.
fn thread_name(p: &[u8]) -> Option<String> {
    let len = u32::from_le_bytes(p.get(4..8)?.try_into().ok()?) as usize;
    Some(String::from_utf8_lossy(p.get(8..8usize.checked_add(len)?)?).into_owned())
}

/// The name a method record gives method `id`: `NAME@FILE:LINE`, or NAME
/// without a file. Payload: line (u32), name length (u32), name, file.
fn method_name(p: &[u8], id: u32) -> Option<String> {
    let line = u32::from_le_bytes(p.get(0..4)?.try_into().ok()?);
    let len = u32::from_le_bytes(p.get(4..8)?.try_into().ok()?) as usize;
    let name = String::from_utf8_lossy(p.get(8..8usize.checked_add(len)?)?);
    let file = String::from_utf8_lossy(p.get(8 + len..)?);
    let name = if name.is_empty() {
        format!("method#{id}")
    } else {
        name.into_owned()
    };
    Some(if file.is_empty() {
        name
    } else {
        format!("{name}@{file}:{line}")
    })
}

/// A mapping record's payload: start, end and offset (u64 each), the
/// build-id's length (u8) and bytes, then the path.
fn mapping(p: &[u8]) -> Option<Mapping> {
    let u64_at = |o: usize| Some(u64::from_le_bytes(p.get(o..o + 8)?.try_into().ok()?));
    let id_len = *p.get(24)? as usize;
    let id = p.get(25..25 + id_len)?;
    let path = p.get(25 + id_len..)?;
    Some(Mapping {
        start: u64_at(0)?,
        end: u64_at(8)?,
        offset: u64_at(16)?,
        path: String::from_utf8_lossy(path).into_owned(),
        build_id: (!id.is_empty()).then(|| id.iter().map(|b| format!("{b:02x}")).collect()),
    })
}

/// Decodes one block's payload, interning addresses with `intern`, into
/// `out`, calling `beside` as each event is read (work to run alongside,
/// the block's checksum); on error returns the offset within the payload,
/// or None when `out` gave up.
#[inline(always)]
fn decode_block<C: EventConsumer>(
    payload: &[u8],
    nevents: u32,
    timed: bool,
    thread: u32,
    mut intern: impl FnMut(u64) -> u32,
    out: &mut C,
    mut beside: impl FnMut(),
) -> Result<(), Option<usize>> {
    let mut pos = 0;
    let (mut addr, mut time) = (0u64, 0u64);
    let mut left = nevents;
    while left > 0 {
        left -= 1;
        let v = varint(payload, &mut pos).ok_or(Some(pos))?;
        beside();
        let kind = if v & 1 == 0 {
            EventKind::Enter
        } else {
            EventKind::Exit
        };
        let zz = v >> 1;
        let delta = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
        addr = addr.wrapping_add(delta as u64);
        if timed {
            let dt = varint(payload, &mut pos).ok_or(Some(pos))?;
            time = time.checked_add(dt).ok_or(Some(pos))?;
        }
        let event = Event {
            time,
            func: intern(addr),
            thread,
            kind,
        };
        // An entry whose exit comes next (the same address: a zero delta,
        // the one-byte varint 1) is a leaf call, taken as one: most calls
        // are leaves.
        if kind == EventKind::Enter && left > 0 && payload.get(pos) == Some(&1) {
            pos += 1;
            left -= 1;
            if timed {
                let dt = varint(payload, &mut pos).ok_or(Some(pos))?;
                time = time.checked_add(dt).ok_or(Some(pos))?;
            }
            if !out.leaf(event, time) {
                return Err(None);
            }
            continue;
        }
        if !out.event(event) {
            return Err(None);
        }
    }
    if pos != payload.len() {
        return Err(Some(pos));
    }
    Ok(())
}

/// Reads an unsigned LEB128 number: one or two bytes (the usual deltas)
/// directly, up to eight (56 bits) at once from one word without a
/// branch per byte; longer ones, and those near the end of `data`, a byte
/// at a time.
#[inline(always)]
fn varint(data: &[u8], pos: &mut usize) -> Option<u64> {
    let first = *data.get(*pos)?;
    if first < 0x80 {
        *pos += 1;
        return Some(first as u64);
    }
    if let Some(&second) = data.get(*pos + 1)
        && second < 0x80
    {
        *pos += 2;
        return Some((first & 0x7f) as u64 | (second as u64) << 7);
    }
    if let Some(bytes) = data.get(*pos..*pos + 8) {
        let w = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        let ends = !w & 0x8080_8080_8080_8080;
        if ends != 0 {
            let len = (ends.trailing_zeros() / 8 + 1) as usize;
            *pos += len;
            return Some(compact(w & (u64::MAX >> (64 - 8 * len))));
        }
    }
    varint_slow(data, pos)
}

/// The 7-bit groups of up to eight LEB128 bytes joined, lowest first.
#[inline(always)]
fn compact(w: u64) -> u64 {
    let x = w & 0x7f7f_7f7f_7f7f_7f7f;
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    (x & 0x0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4)
}

/// [`varint`] a byte at a time.
#[cold]
fn varint_slow(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *data.get(*pos)?;
        *pos += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// One thread's block for [`encode`]: thread id and (kind, address, time) events.
pub type Block = (u64, Vec<(EventKind, u64, u64)>);

/// Encodes events the way the runtime does (the newest version, timed,
/// no mappings); used by tests and benchmarks.
pub fn encode(base: u64, path: &str, blocks: &[Block]) -> Vec<u8> {
    encode_version(VERSION, base, path, &[], blocks)
}

/// Encodes a trace of format `version` (1 or 2) with mapping records (version 2 only).
pub fn encode_version(
    version: u16,
    base: u64,
    path: &str,
    maps: &[Mapping],
    blocks: &[Block],
) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&FLAG_TIMED.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&(path.len() as u32).to_le_bytes());
    out.extend_from_slice(path.as_bytes());
    for m in maps {
        let mut payload = Vec::new();
        for v in [m.start, m.end, m.offset] {
            payload.extend_from_slice(&v.to_le_bytes());
        }
        let id = m.build_id.as_deref().map(hex_bytes).unwrap_or_default();
        payload.push(id.len() as u8);
        payload.extend_from_slice(&id);
        payload.extend_from_slice(m.path.as_bytes());
        put_record(&mut out, version, TAG_MAP, 0, 0, &payload);
    }
    for (tid, events) in blocks {
        let mut payload = Vec::new();
        let (mut pa, mut pt) = (0u64, 0u64);
        for &(kind, addr, time) in events {
            let d = addr.wrapping_sub(pa) as i64;
            let zz = ((d << 1) ^ (d >> 63)) as u64;
            put_varint(&mut payload, (zz << 1) | (kind == EventKind::Exit) as u64);
            put_varint(&mut payload, time - pt);
            (pa, pt) = (addr, time);
        }
        put_record(
            &mut out,
            version,
            TAG_BLOCK,
            *tid,
            events.len() as u32,
            &payload,
        );
    }
    out
}

/// Appends one record in the framing of `version`.
fn put_record(out: &mut Vec<u8>, version: u16, tag: u8, tid: u64, n: u32, payload: &[u8]) {
    if version == 1 {
        out.push(tag);
    } else {
        out.extend_from_slice(SYNC);
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&[tag, 0, 0, 0]);
    }
    let sum_from = out.len() - 4;
    out.extend_from_slice(&tid.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    if version != 1 {
        let sum = checksum(&out[sum_from..]);
        out[sum_from - 4..sum_from].copy_from_slice(&sum.to_le_bytes());
    }
}

/// `"0a1b"` -> `[0x0a, 0x1b]` (test helper input; invalid digits read as 0).
fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect()
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: Vec<u8>, lenient: bool) -> Result<(Vec<Event>, TraceMeta, FuncTable)> {
        let (sink, meta, funcs) =
            crate::ingest::testing::parse(&BinaryFormat, "t.bin", &bytes, lenient)?;
        Ok((sink.events, meta, funcs))
    }

    fn sample() -> Vec<u8> {
        use EventKind::*;
        encode(
            0x5555_0000_0000,
            "/tmp/app",
            &[
                (
                    42,
                    vec![
                        (Enter, 0x5555_0000_1139, 10),
                        (Enter, 0x5555_0000_1100, 15),
                        (Exit, 0x5555_0000_1100, 20),
                    ],
                ),
                (
                    43,
                    vec![(Enter, 0x5555_0000_1200, 12), (Exit, 0x5555_0000_1200, 30)],
                ),
                (42, vec![(Exit, 0x5555_0000_1139, 40)]),
            ],
        )
    }

    #[test]
    fn round_trips_encoded_blocks() {
        let (ev, meta, funcs) = parse(sample(), false).unwrap();
        assert_eq!(meta.base, Some(0x5555_0000_0000));
        assert_eq!(meta.exe_path.as_deref(), Some("/tmp/app"));
        assert_eq!(meta.threads, vec![42, 43]);
        assert_eq!(ev.len(), 6);
        assert_eq!(
            funcs.key(ev[1].func),
            &crate::ingest::FuncKey::Addr(0x5555_0000_1100)
        );
        assert_eq!((ev[2].kind, ev[2].time), (EventKind::Exit, 20));
        assert_eq!((ev[3].thread, ev[3].time), (1, 12));
        assert_eq!((ev[5].thread, ev[5].time, ev[5].func), (0, 40, ev[0].func));
    }

    #[test]
    fn truncated_trace_is_an_error_or_skipped_when_lenient() {
        let mut bytes = sample();
        bytes.truncate(bytes.len() - 2);
        let err = parse(bytes.clone(), false).unwrap_err().to_string();
        assert!(
            err.starts_with("t.bin: byte ") && err.contains("truncated"),
            "{err}"
        );
        let (ev, meta, _) = parse(bytes, true).unwrap();
        assert_eq!(ev.len(), 5, "the torn block's complete events are kept");
        assert_eq!(meta.skipped_lines, 1);
    }

    #[test]
    fn unknown_flag_bits_are_rejected() {
        let mut bytes = sample();
        bytes[10] |= 0x02;
        let err = parse(bytes, false).unwrap_err().to_string();
        assert_eq!(
            err,
            "t.bin: byte 10: expected header flags with only bit 0 set, found 0x0003 (a newer format?)"
        );
    }

    #[test]
    fn wrong_version_is_named() {
        let mut bytes = sample();
        bytes[8] = 9;
        let err = parse(bytes, false).unwrap_err().to_string();
        assert_eq!(
            err,
            "t.bin: byte 8: expected format version 1 to 2, found 9"
        );
    }

    fn maps() -> Vec<Mapping> {
        vec![
            Mapping {
                start: 0x5555_0000_1000,
                end: 0x5555_0000_2000,
                offset: 0x1000,
                path: "/tmp/app".into(),
                build_id: Some("0a1bff".into()),
            },
            Mapping {
                start: 0x7f00_0000_0000,
                end: 0x7f00_0000_0800,
                offset: 0,
                path: "/tmp/lib with space.so".into(),
                build_id: None,
            },
        ]
    }

    /// Blocks of `n` entry/exit pairs each, on threads 42 and 43 in turn.
    fn blocks(count: u64, n: u64) -> Vec<Block> {
        (0..count)
            .map(|b| {
                let events = (0..n)
                    .flat_map(|i| {
                        let addr = 0x5555_0000_1000 + (i % 5) * 0x40;
                        let t = b * 1000 + i * 10;
                        [(EventKind::Enter, addr, t), (EventKind::Exit, addr, t + 5)]
                    })
                    .collect();
                (42 + b % 2, events)
            })
            .collect()
    }

    #[test]
    fn mapping_records_fill_the_meta_maps_in_order() {
        let bytes = encode_version(2, 0x5555_0000_0000, "/tmp/app", &maps(), &blocks(3, 4));
        let (ev, meta, _) = parse(bytes, false).unwrap();
        assert_eq!(meta.maps, maps());
        assert_eq!(ev.len(), 24);
    }

    #[test]
    fn version_1_traces_still_read() {
        let v1 = encode_version(1, 0x5555_0000_0000, "/tmp/app", &[], &blocks(3, 4));
        let v2 = encode_version(2, 0x5555_0000_0000, "/tmp/app", &[], &blocks(3, 4));
        assert_eq!(u16::from_le_bytes([v1[8], v1[9]]), 1);
        assert!(
            v1.len() < v2.len(),
            "version 1 blocks have no marker or checksum"
        );
        let (ev1, meta1, _) = parse(v1, false).unwrap();
        let (ev2, meta2, _) = parse(v2, false).unwrap();
        assert_eq!(ev1, ev2);
        assert_eq!(meta1, meta2);
        assert_eq!(ev1.len(), 24);
    }

    /// Offsets of the records (after the header) of a version-2 trace.
    fn record_starts(bytes: &[u8]) -> Vec<usize> {
        memchr::memmem::find_iter(bytes, SYNC).collect()
    }

    #[test]
    fn a_checksum_taken_a_word_at_a_time_is_the_checksum_of_the_whole() {
        // The record checksum as docs/binary-format.md and the runtime
        // define it, written out here on its own.
        fn reference(bytes: &[u8]) -> u32 {
            let mut h = 0x9e37_79b9_7f4a_7c15u64 ^ bytes.len() as u64;
            for w in bytes.chunks(8) {
                let mut word = [0u8; 8];
                word[..w.len()].copy_from_slice(w);
                h = (h ^ u64::from_le_bytes(word)).wrapping_mul(0xff51_afd7_ed55_8ccd);
                h ^= h >> 32;
            }
            (h ^ (h >> 29)) as u32
        }
        let bytes: Vec<u8> = (0..100u32).map(|i| (i * 37 + 11) as u8).collect();
        for len in 0..bytes.len() {
            let b = &bytes[..len];
            assert_eq!(checksum(b), reference(b), "{len} bytes");
            // Stepped after each of any number of events (more than the
            // words there are, too), then finished.
            for steps in 0..16 {
                let mut sum = Sum::new(b);
                (0..steps).for_each(|_| sum.step(b));
                assert_eq!(sum.rest(b), reference(b), "{len} bytes, {steps} steps");
            }
        }
    }

    #[test]
    fn a_damaged_block_is_skipped_and_the_reader_resynchronises() {
        let good = encode(0x5555_0000_0000, "/tmp/app", &blocks(9, 50));
        let starts = record_starts(&good);
        assert_eq!(starts.len(), 9);
        for damage in [starts[3] + 40, starts[3] + 1, starts[3] + 25] {
            // In the payload, in the marker, in the payload length.
            let mut bad = good.clone();
            bad[damage] ^= 0x5a;
            let err = parse(bad.clone(), false).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("t.bin: byte {}: expected ", starts[3])),
                "{err}"
            );
            let (ev, meta, _) = parse(bad, true).unwrap();
            assert_eq!(
                ev.len(),
                8 * 100,
                "damage at {damage}: only block 3 is lost"
            );
            assert_eq!(meta.skipped_lines, 1);
            assert!(meta.first_skipped.unwrap().contains("skipped the"));
            assert_eq!(meta.threads, vec![42, 43]);
        }
    }

    #[test]
    fn an_intact_record_of_an_unknown_kind_is_rejected_even_when_lenient() {
        let mut bytes = encode(0x5555_0000_0000, "/tmp/app", &blocks(2, 3));
        let at = record_starts(&bytes)[1];
        bytes[at + 8] = b'Z';
        let end = bytes.len();
        let sum = checksum(&bytes[at + 8..end]);
        bytes[at + 4..at + 8].copy_from_slice(&sum.to_le_bytes());
        for lenient in [false, true] {
            let err = parse(bytes.clone(), lenient).unwrap_err().to_string();
            assert_eq!(
                err,
                format!(
                    "t.bin: byte {at}: expected a record tag `B`, `M`, `N` or `T`, found 0x5a (a newer format?)"
                )
            );
        }
    }

    #[test]
    fn thread_names_and_dropped_counts_reach_the_meta() {
        let mut bytes = encode(0x5555_0000_0000, "/tmp/app", &blocks(2, 3));
        let mut name = vec![0u8; 4];
        name.extend_from_slice(&6u32.to_le_bytes());
        name.extend_from_slice(b"worker");
        put_record(&mut bytes, VERSION, TAG_THREAD, 43, 0, &name);
        put_record(&mut bytes, VERSION, TAG_DROPPED, 0, 0, &7u64.to_le_bytes());
        put_record(&mut bytes, VERSION, TAG_DROPPED, 0, 0, &5u64.to_le_bytes());
        let (ev, meta, _) = parse(bytes, false).unwrap();
        assert_eq!(ev.len(), 12);
        assert_eq!(meta.threads, vec![42, 43]);
        assert_eq!(meta.thread_names, vec![String::new(), "worker".to_string()]);
        assert_eq!(meta.warnings.len(), 1);
        assert!(
            meta.warnings[0].contains("dropped 12 event(s)"),
            "{:?}",
            meta.warnings
        );
    }

    /// Events, keys and meta (or the error) of a parse, as text.
    fn outcome(bytes: &[u8], lenient: bool, threads: usize, chunk: usize) -> String {
        let input = Input::from_bytes("t.bin", bytes.to_vec());
        let opts = ParseOptions {
            lenient,
            threads,
            chunk_bytes: chunk,
        };
        crate::ingest::testing::outcome(&BinaryFormat, &input, &opts)
    }

    /// [`outcome`] of reading every block in order on one thread: the reference.
    fn block_by_block(bytes: &[u8], lenient: bool) -> String {
        let opts = ParseOptions {
            lenient,
            ..Default::default()
        };
        let mut funcs = FuncTable::default();
        let mut sink = crate::ingest::testing::Collect::default();
        let mut r = Reader {
            data: bytes,
            pos: 0,
            name: "t.bin",
        };
        let result = r.header().and_then(|(meta, layout)| {
            let mut seq = InOrder::new(bytes, "t.bin", &opts, &mut funcs, meta, layout);
            seq.records(r.pos, bytes.len(), &mut sink)?;
            seq.pending(&mut sink);
            Ok(seq.finish())
        });
        match result {
            Ok(meta) => format!("{:?}\n{:?}\n{meta:?}", sink.events, funcs.keys()),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn parallel_decoding_matches_reading_block_by_block() {
        use EventKind::*;
        let blocks: Vec<Block> = (0..40u64)
            .map(|b| {
                let events = (0..25u64)
                    .flat_map(|i| {
                        let addr = 0x5555_0000_1000 + (i * 7 + b) % 13 * 0x40;
                        [
                            (Enter, addr, b * 1000 + i * 10),
                            (Exit, addr, b * 1000 + i * 10 + 5),
                        ]
                    })
                    .collect();
                (40 + b % 3, events)
            })
            .collect();
        let good = encode_version(2, 0x5555_0000_0000, "/tmp/app", &maps(), &blocks);
        let mut torn = good.clone();
        torn.truncate(good.len() - 7);
        let mut bad = good.clone();
        let mid = good.len() / 2;
        bad[mid] ^= 0xff;
        for bytes in [&good, &torn, &bad] {
            for lenient in [false, true] {
                let reference = block_by_block(bytes, lenient);
                for (threads, chunk) in [(1, 1), (2, 1), (2, 100), (3, 1000), (2, 0)] {
                    assert_eq!(
                        outcome(bytes, lenient, threads, chunk),
                        reference,
                        "lenient {lenient}, {threads} threads, {chunk}-byte chunks"
                    );
                }
            }
        }
    }

    /// An 'R' payload: the five clock parameters (ns clock, timed), the
    /// ring size when given, and a region holding `len`, `flushed`, thread
    /// 7 and `slots` events whose raw time is 1000 + the slot.
    fn raw_region(ring: Option<u64>, len: u32, flushed: u32, slots: usize) -> Vec<u8> {
        let at = 64usize;
        let mut p = Vec::new();
        for v in [at as u64, 0, 0, 0, 1] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        if let Some(r) = ring {
            p.extend_from_slice(&r.to_le_bytes());
        }
        p.resize(at, 0);
        p.extend_from_slice(&len.to_le_bytes());
        p.extend_from_slice(&[0; 4]);
        p.extend_from_slice(&flushed.to_le_bytes());
        p.extend_from_slice(&[0; 4]);
        p.extend_from_slice(&7u64.to_le_bytes());
        p.resize(at + RAW_EVENTS_AT, 0);
        for slot in 0..slots as u64 {
            let exit = slot % 2;
            p.extend_from_slice(&(0x1000 + slot).to_le_bytes());
            p.extend_from_slice(&((1000 + slot) | exit << 63).to_le_bytes());
        }
        p
    }

    #[test]
    fn ring_times_take_the_factor_of_the_threads_last_block() {
        // A TSC trace: tsc0 100, factor 2.0 at start; the last block was
        // written with 3.0, noted in the region at 40.
        let mut p = raw_region(Some(8), 2, 0, 8);
        p[8..16].copy_from_slice(&100u64.to_le_bytes());
        p[24..32].copy_from_slice(&(2u64 << 32).to_le_bytes());
        assert_eq!(raw_times(&p), Some(vec![1800, 1802]));
        p[64 + 40..64 + 48].copy_from_slice(&(3u64 << 32).to_le_bytes());
        assert_eq!(raw_times(&p), Some(vec![2700, 2703]));
    }

    fn raw_times(payload: &[u8]) -> Option<Vec<u64>> {
        let (mut funcs, mut threads, mut out) =
            (FuncTable::default(), ThreadIds::default(), vec![]);
        raw_events(payload, &mut funcs, &mut threads, &mut out)?;
        Some(out.iter().map(|e| e.time).collect())
    }

    /// A version-2 trace of thread 7: its ring of 8 (events `flushed` to
    /// `len` unwritten, slot k holding address 0x1000 + k), then a block of
    /// ring events `from..to` marked with its sequence; `cut` bytes are
    /// taken off the end (a write the process did not live to finish).
    fn ring_then_block(len: u32, flushed: u32, from: u32, to: u32, cut: usize) -> Vec<u8> {
        ring_then_blocks(len, flushed, &[(from, to)], cut)
    }

    /// A ring of 8 (thread 7, events `flushed..len` unwritten), then blocks
    /// of that thread's events `from..to`, the last `cut` bytes cut off.
    fn ring_then_blocks(len: u32, flushed: u32, blocks: &[(u32, u32)], cut: usize) -> Vec<u8> {
        let mut bytes = encode(0x5555_0000_0000, "/tmp/app", &[]);
        let raw = raw_region(Some(8), len, flushed, 8);
        let at = bytes.len();
        put_record(&mut bytes, VERSION, TAG_RAW, 0, 0, &raw);
        // A ring's checksum covers its header only.
        let sum = checksum(&bytes[at + 8..at + 28]);
        bytes[at + 4..at + 8].copy_from_slice(&sum.to_le_bytes());
        for &(from, to) in blocks {
            let events: Vec<_> = (from..to)
                .map(|k| {
                    let kind = [EventKind::Enter, EventKind::Exit][k as usize % 2];
                    (kind, 0x1000 + u64::from(k % 8), 1000 + u64::from(k))
                })
                .collect();
            let block = encode(0x5555_0000_0000, "/tmp/app", &[(7, events)]);
            let header = encode(0x5555_0000_0000, "/tmp/app", &[]).len();
            let at = bytes.len();
            bytes.extend_from_slice(&block[header..]);
            bytes[at + 9] = FLAG_SEQ;
            bytes[at + 10..at + 12].copy_from_slice(&(from as u16).to_le_bytes());
            let sum = checksum(&bytes[at + 8..]);
            bytes[at + 4..at + 8].copy_from_slice(&sum.to_le_bytes());
        }
        bytes.truncate(bytes.len() - cut);
        bytes
    }

    fn addrs(events: &[Event], funcs: &FuncTable) -> Vec<u64> {
        let addr = |e: &Event| match funcs.key(e.func) {
            crate::ingest::FuncKey::Addr(a) => *a,
            other => panic!("{other:?}"),
        };
        events.iter().map(addr).collect()
    }

    #[test]
    fn ring_events_a_block_holds_already_are_not_read_twice() {
        // Events 2..6 unwritten, says the ring; but the block of 2..4 made
        // it to the file before the process died.
        let (ev, _, funcs) = parse(ring_then_block(6, 2, 2, 4, 0), false).unwrap();
        assert_eq!(addrs(&ev, &funcs), [0x1002, 0x1003, 0x1004, 0x1005]);
        // A block written earlier, ending where the ring starts: all four
        // ring events are new.
        let (ev, _, funcs) = parse(ring_then_block(6, 2, 0, 2, 0), false).unwrap();
        assert_eq!(
            addrs(&ev, &funcs),
            [0x1000, 0x1001, 0x1002, 0x1003, 0x1004, 0x1005]
        );
    }

    #[test]
    fn a_torn_last_block_whose_events_are_in_its_ring_is_left_out_quietly() {
        let (ev, meta, funcs) = parse(ring_then_block(6, 2, 2, 4, 3), false).unwrap();
        assert_eq!(addrs(&ev, &funcs), [0x1002, 0x1003, 0x1004, 0x1005]);
        assert_eq!(meta.skipped_lines, 0);
        // Not the ring's next events: the damage is reported as before.
        let err = parse(ring_then_block(6, 2, 0, 2, 3), false).unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");
    }

    #[test]
    fn blocks_written_together_and_torn_in_the_second_are_read_once_with_the_ring() {
        // Events 2..8 unwritten, says the ring; the runtime wrote the blocks
        // of 2..4 and 4..7 in one write and died during it.
        let all = [0x1002, 0x1003, 0x1004, 0x1005, 0x1006, 0x1007];
        let (ev, meta, funcs) = parse(ring_then_blocks(8, 2, &[(2, 4), (4, 7)], 3), false).unwrap();
        assert_eq!(addrs(&ev, &funcs), all);
        assert_eq!(meta.skipped_lines, 0);
        // Both made it: the ring's first five events were written after all.
        let (ev, _, funcs) = parse(ring_then_blocks(8, 2, &[(2, 4), (4, 7)], 0), false).unwrap();
        assert_eq!(addrs(&ev, &funcs), all);
        // The second one's header torn, its sequence there or not.
        let full = ring_then_blocks(8, 2, &[(2, 4), (4, 7)], 0);
        let second = full.windows(4).rposition(|w| w == SYNC).unwrap();
        for kept in 1..28 {
            let cut = full.len() - second - kept;
            let (ev, _, funcs) = parse(ring_then_blocks(8, 2, &[(2, 4), (4, 7)], cut), false)
                .unwrap_or_else(|e| panic!("{kept}: {e}"));
            assert_eq!(addrs(&ev, &funcs), all, "{kept}");
        }
        // A torn block that starts past the ring's unwritten events is damage.
        let err = parse(ring_then_blocks(8, 2, &[(2, 4), (9, 11)], 3), false).unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");
    }

    #[test]
    fn a_torn_header_of_a_block_whose_events_are_in_its_ring_is_left_out_quietly() {
        let full = ring_then_block(6, 2, 2, 4, 0);
        let block = full.windows(4).rposition(|w| w == SYNC).unwrap();
        for kept in 1..28 {
            let cut = full.len() - block - kept;
            let (ev, meta, funcs) = parse(ring_then_block(6, 2, 2, 4, cut), false).unwrap();
            assert_eq!(
                addrs(&ev, &funcs),
                [0x1002, 0x1003, 0x1004, 0x1005],
                "{kept}"
            );
            assert_eq!(meta.skipped_lines, 0);
            // Once its sequence is there, a header that is not the ring's
            // next block is reported as before.
            let other = parse(ring_then_block(6, 2, 0, 2, cut), false);
            if kept > 10 {
                let err = other.unwrap_err().to_string();
                assert!(err.contains("truncated"), "{kept}: {err}");
            } else {
                assert!(other.is_ok(), "{kept}");
            }
        }
        // Without unwritten ring events, a torn header is still an error.
        let mut plain = encode(0x5555_0000_0000, "/tmp/app", &[]);
        plain.extend_from_slice(&SYNC[..3]);
        let err = parse(plain, false).unwrap_err().to_string();
        assert!(err.contains("record header"), "{err}");
    }

    #[test]
    fn a_thread_ring_gives_its_unwritten_events_in_order_across_its_end() {
        // Ring of 4: events 6, 7, 8 are in slots 2, 3 and 0.
        assert_eq!(
            raw_times(&raw_region(Some(4), 9, 6, 4)),
            Some(vec![1002, 1003, 1000])
        );
        // The counters wrap at 2^32 and still name the same slots.
        let wrapped = raw_region(Some(4), 1, u32::MAX - 1, 4);
        assert_eq!(raw_times(&wrapped), Some(vec![1002, 1003, 1000]));
        // Everything written: nothing left.
        assert_eq!(raw_times(&raw_region(Some(4), 9, 9, 4)), Some(vec![]));
        // More unwritten events than the ring holds is damage.
        assert_eq!(raw_times(&raw_region(Some(4), 9, 4, 4)), None);
    }

    #[test]
    fn an_untimed_ring_of_8_byte_slots_gives_addresses_and_kinds() {
        use crate::ingest::FuncKey;
        // The 16-byte test region, read as 8-byte slots: slot k is the
        // k-th word after the events' start.
        let mut p = raw_region(Some(4), 9, 6, 4);
        p[32..40].copy_from_slice(&RAW_SLOTS_8.to_le_bytes());
        let events = 64 + RAW_EVENTS_AT;
        for (k, word) in [0x1000u64, 0x1001 | 1 << 63, 0x1002, 0x1003 | 1 << 63]
            .iter()
            .enumerate()
        {
            p[events + 8 * k..events + 8 * k + 8].copy_from_slice(&word.to_le_bytes());
        }
        let (mut funcs, mut threads, mut out) =
            (FuncTable::default(), ThreadIds::default(), vec![]);
        assert!(raw_events(&p, &mut funcs, &mut threads, &mut out).is_some());
        // Events 6, 7, 8 are in slots 2, 3 and 0; no times.
        let got: Vec<_> = out
            .iter()
            .map(|e| (funcs.key(e.func).clone(), e.kind, e.time))
            .collect();
        assert_eq!(
            got,
            vec![
                (FuncKey::Addr(0x1002), EventKind::Enter, 0),
                (FuncKey::Addr(0x1003), EventKind::Exit, 0),
                (FuncKey::Addr(0x1000), EventKind::Enter, 0),
            ]
        );
    }

    #[test]
    fn a_buffer_without_a_ring_size_is_read_from_flushed_to_len() {
        // Older runtimes: no sixth parameter (zero padding), no wrap.
        assert_eq!(
            raw_times(&raw_region(None, 3, 1, 4)),
            Some(vec![1001, 1002])
        );
        assert_eq!(raw_times(&raw_region(None, 1, 3, 4)), Some(vec![]));
    }

    #[test]
    fn varints_of_every_length_read_like_byte_by_byte() {
        for bits in 0..64 {
            for v in [1u64 << bits, (1u64 << bits) - 1, (1u64 << bits) | 0x55] {
                let mut bytes = Vec::new();
                put_varint(&mut bytes, v);
                let n = bytes.len();
                bytes.extend_from_slice(&[0x81, 0x82, 0x03]);
                // Everywhere from far from the end of the data to right at it.
                for end in [bytes.len(), n + 1, n] {
                    let data = &bytes[..end];
                    let (mut fast, mut slow) = (0, 0);
                    assert_eq!(varint(data, &mut fast), Some(v), "{v:#x}");
                    assert_eq!(varint_slow(data, &mut slow), Some(v), "{v:#x}");
                    assert_eq!((fast, slow), (n, n), "{v:#x}");
                }
            }
        }
        // Unterminated: the same failure and position either way.
        let bytes = [0x80u8; 12];
        for end in [3, 9, 12] {
            let (mut fast, mut slow) = (0, 0);
            assert_eq!(varint(&bytes[..end], &mut fast), None);
            assert_eq!(varint_slow(&bytes[..end], &mut slow), None);
            assert_eq!(fast, slow);
        }
    }

    /// The calling-context tree, keys and meta of a parse, as text.
    fn contexts(bytes: &[u8], threads: usize, chunk: usize) -> String {
        let input = Input::from_bytes("t.bin", bytes.to_vec());
        let opts = ParseOptions {
            threads,
            chunk_bytes: chunk,
            ..Default::default()
        };
        let mut funcs = FuncTable::default();
        let mut sink = crate::calltree::ContextsBuilder::default();
        let meta = BinaryFormat
            .parse(&input, &opts, &mut funcs, &mut sink)
            .unwrap();
        let (tree, stats) = sink.finish(&meta, &mut funcs);
        format!("{tree:?}\n{stats:?}\n{:?}\n{meta:?}", funcs.keys())
    }

    #[test]
    fn summarised_chunks_build_the_tree_of_every_event_in_order() {
        use EventKind::*;
        // More functions than the decoder's cache has slots, nested deep
        // across blocks and chunk borders.
        let mut blocks: Vec<Block> = Vec::new();
        let (mut t, mut open) = (0u64, Vec::new());
        for b in 0..60u64 {
            let mut events = Vec::new();
            for i in 0..60u64 {
                t += 3;
                let addr = 0x5555_0000_0000 + ((b * 61 + i * 17) % 3000) * 0x10;
                if open.len() < 8 && (i + b) % 3 != 0 {
                    events.push((Enter, addr, t));
                    open.push(addr);
                } else if let Some(a) = open.pop() {
                    events.push((Exit, a, t));
                }
            }
            blocks.push((77, events));
        }
        let bytes = encode(0x5555_0000_0000, "/tmp/app", &blocks);
        // The reference: every event fed in order.
        let (collect, meta, mut funcs) =
            crate::ingest::testing::parse(&BinaryFormat, "t.bin", &bytes, false).unwrap();
        let mut sink = crate::calltree::ContextsBuilder::default();
        sink.events(&collect.events);
        let (tree, stats) = sink.finish(&meta, &mut funcs);
        let reference = format!("{tree:?}\n{stats:?}\n{:?}\n{meta:?}", funcs.keys());
        assert!(funcs.keys().len() > SLOTS, "{}", funcs.keys().len());
        for threads in 1..=4 {
            for chunk in [1, 300, 5000, 0] {
                let got = contexts(&bytes, threads, chunk);
                assert_eq!(got, reference, "{threads} threads, {chunk}-byte chunks");
            }
        }
    }
}
