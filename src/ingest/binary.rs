//! The compact binary trace written by the runtime with
//! `CALLTRACE_FORMAT=binary` (specified in docs/binary-format.md): a header
//! with magic `CALLTRC\0`, version, flags, load base and executable path,
//! then blocks of delta-encoded LEB128 events, one thread per block. Blocks
//! decode independently, which is what lets big traces be read in parallel.

use std::sync::Mutex;

use rustc_hash::FxHashMap;

use super::chunked::{self, LocalEvents};
use super::{
    BATCH, Event, EventKind, FuncTable, Input, ParseOptions, Sink, ThreadIds, TraceFormat,
    TraceMeta,
};
use crate::error::{Error, Result};

/// The first eight bytes of every binary trace.
pub const MAGIC: &[u8; 8] = b"CALLTRC\0";
/// The only version this reader knows.
pub const VERSION: u16 = 1;
const FLAG_TIMED: u16 = 1;
const BLOCK_TAG: u8 = b'B';
/// Tag, thread id, event count and payload length.
const BLOCK_HEADER: usize = 17;

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
        let (meta, timed) = r.header()?;
        let mut seq = InOrder {
            data,
            name: input.name(),
            opts,
            funcs,
            threads: ThreadIds::default(),
            maps: (Vec::new(), Vec::new()),
            meta,
            timed,
            stopped: false,
        };
        // Buffers go back and forth between workers and the consumer.
        let pool: Mutex<Vec<LocalEvents>> = Mutex::new(Vec::new());
        let take = || pool.lock().expect("pool lock").pop().unwrap_or_default();
        let threads = chunked::thread_count(opts).max(1);
        let work: Mutex<Vec<_>> = Mutex::new((0..threads).map(|_| sink.chunk_work()).collect());
        let make_worker = || {
            let w = work.lock().expect("work lock").pop().flatten();
            (Decoder::default(), w)
        };
        // Binary events are ~2 bytes each: smaller chunks keep the decoded
        // events of the chunks in flight in cache.
        let size = match opts.chunk_bytes {
            0 => chunked::DEFAULT_CHUNK / 8,
            n => n,
        };
        let chunks = input.chunks_cut_by(r.pos, size, cut_blocks);
        chunked::run(
            input,
            chunks,
            opts,
            make_worker,
            |(decoder, work), bytes| {
                let mut local = decoder.decode(bytes, timed, take())?;
                if let Some(w) = work {
                    local.summary = w.summarise(&local.events);
                }
                Some(local)
            },
            |chunk, local| seq.chunk(chunk.start, chunk.bytes.len(), local, sink, &pool),
        )?;
        Ok(seq.finish())
    }
}

/// The end of the chunk of whole blocks starting at `start`: the first
/// block boundary at least `size` bytes on, or the end of the data when a
/// block header is torn or wrong (that chunk then fails to decode on the
/// worker and is read block by block, which reports the problem).
fn cut_blocks(data: &[u8], start: usize, size: usize) -> usize {
    let mut pos = start;
    while pos - start < size && pos < data.len() {
        let Some(header) = data.get(pos..pos + BLOCK_HEADER) else {
            return data.len();
        };
        let nbytes = u32::from_le_bytes(header[13..17].try_into().expect("4 bytes")) as usize;
        match pos.checked_add(BLOCK_HEADER + nbytes) {
            Some(next) if header[0] == BLOCK_TAG && next <= data.len() => pos = next,
            _ => return data.len(),
        }
    }
    pos
}

/// The in-order side of a binary parse: global ids, lenient counting, and
/// block-by-block reading of chunks the workers could not decode.
struct InOrder<'a> {
    data: &'a [u8],
    name: &'a str,
    opts: &'a ParseOptions,
    funcs: &'a mut FuncTable,
    threads: ThreadIds,
    maps: (Vec<u32>, Vec<u32>),
    meta: TraceMeta,
    timed: bool,
    /// Set when `--lenient` gave up on a bad block: the rest is ignored.
    stopped: bool,
}

impl InOrder<'_> {
    /// Takes the chunk of `len` bytes at `start`, decoded or not.
    fn chunk(
        &mut self,
        start: usize,
        len: usize,
        local: Option<LocalEvents>,
        sink: &mut dyn Sink,
        pool: &Mutex<Vec<LocalEvents>>,
    ) -> Result<()> {
        if self.stopped {
            return Ok(());
        }
        match local {
            Some(mut local) => {
                local.merge(self.funcs, &mut self.threads, &mut self.maps, sink);
                pool.lock().expect("pool lock").push(local);
                Ok(())
            }
            None => self.blocks(start, start + len, sink),
        }
    }

    /// Reads the blocks in `start..end` one by one.
    fn blocks(&mut self, start: usize, end: usize, sink: &mut dyn Sink) -> Result<()> {
        let mut r = Reader {
            data: self.data,
            pos: start,
            name: self.name,
        };
        let mut batch = Vec::with_capacity(BATCH);
        while r.pos < end {
            match r.block(self.timed, self.funcs, &mut self.threads, &mut batch) {
                Ok(()) => {}
                Err(e) if self.opts.lenient => {
                    // A torn final block (a crash mid-write) is the usual cause: keep what decoded.
                    self.meta.skipped_lines += 1;
                    self.meta.first_skipped.get_or_insert(e.to_string());
                    self.stopped = true;
                    break;
                }
                Err(e) => return Err(e),
            }
            if batch.len() >= BATCH {
                sink.events(&batch);
                batch.clear();
            }
        }
        sink.events(&batch);
        Ok(())
    }

    fn finish(self) -> TraceMeta {
        let mut meta = self.meta;
        meta.timed = self.timed;
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
    slots: Vec<(u64, u32, u32)>,
    stamp: u32,
    tids: FxHashMap<u64, u32>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            slots: vec![(0, 0, 0); 1024],
            stamp: 0,
            tids: FxHashMap::default(),
        }
    }
}

impl Decoder {
    /// Decodes a chunk of whole blocks; None if any block is malformed.
    fn decode(&mut self, b: &[u8], timed: bool, mut out: LocalEvents) -> Option<LocalEvents> {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill((0, 0, 0));
            self.stamp = 1;
        }
        self.tids.clear();
        out.clear();
        let mut pos = 0;
        while pos < b.len() {
            let header = b.get(pos..pos + BLOCK_HEADER)?;
            let tid = u64::from_le_bytes(header[1..9].try_into().expect("8 bytes"));
            let nevents = u32::from_le_bytes(header[9..13].try_into().expect("4 bytes"));
            let nbytes = u32::from_le_bytes(header[13..17].try_into().expect("4 bytes")) as usize;
            let payload = b.get(pos + BLOCK_HEADER..pos + BLOCK_HEADER + nbytes)?;
            let next = out.tids.len() as u32;
            let thread = *self.tids.entry(tid).or_insert(next);
            if thread == next {
                out.tids.push(tid);
            }
            let (slots, stamp, addrs) = (&mut self.slots, self.stamp, &mut out.addrs);
            let intern = |addr: u64| local_id(slots, stamp, addrs, addr);
            decode_block(payload, nevents, timed, thread, intern, &mut out.events).ok()?;
            pos += BLOCK_HEADER + nbytes;
        }
        Some(out)
    }
}

/// The chunk-local id of `addr`: cached, or a new one (an address evicted
/// from the cache gets a second id, which maps to the same global id).
#[inline]
fn local_id(slots: &mut [(u64, u32, u32)], stamp: u32, addrs: &mut Vec<u64>, addr: u64) -> u32 {
    let h = (addr.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize % slots.len();
    let slot = &mut slots[h];
    if slot.0 == addr && slot.1 == stamp {
        return slot.2;
    }
    let id = addrs.len() as u32;
    addrs.push(addr);
    *slot = (addr, stamp, id);
    id
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

    fn header(&mut self) -> Result<(TraceMeta, bool)> {
        if self.bytes(8, "the magic `CALLTRC\\0`")? != MAGIC {
            self.pos = 0;
            return Err(self.err("the magic `CALLTRC\\0` of a binary calltrace trace"));
        }
        let version = self.u16("the format version")?;
        if version != VERSION {
            self.pos -= 2;
            return Err(self.err(&format!("format version {VERSION}, found {version}")));
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
        Ok((meta, flags & FLAG_TIMED != 0))
    }

    fn block(
        &mut self,
        timed: bool,
        funcs: &mut FuncTable,
        threads: &mut ThreadIds,
        out: &mut Vec<Event>,
    ) -> Result<()> {
        if self.bytes(1, "a block tag")?[0] != BLOCK_TAG {
            self.pos -= 1;
            return Err(self.err("a block tag `B`"));
        }
        let thread = threads.index(self.u64("a thread id")?);
        let nevents = self.u32("an event count")?;
        let nbytes = self.u32("a payload length")? as usize;
        let payload_start = self.pos;
        // A torn final block (crash mid-write): decode what is there, then report it.
        let avail = nbytes.min(self.data.len() - self.pos);
        let payload = &self.data[self.pos..self.pos + avail];
        self.pos += avail;
        let decoded = decode_block(payload, nevents, timed, thread, |a| funcs.addr(a), out);
        if avail < nbytes {
            return Err(self.err("a complete block payload (the trace may be truncated)"));
        }
        decoded.map_err(|off| {
            self.pos = payload_start + off;
            self.err(&format!("{nevents} well-formed events in the block"))
        })
    }
}

/// Decodes one block's payload, interning addresses with `intern`; on
/// error returns the offset within the payload.
fn decode_block(
    payload: &[u8],
    nevents: u32,
    timed: bool,
    thread: u32,
    mut intern: impl FnMut(u64) -> u32,
    out: &mut Vec<Event>,
) -> Result<(), usize> {
    let mut pos = 0;
    let (mut addr, mut time) = (0u64, 0u64);
    for _ in 0..nevents {
        let v = varint(payload, &mut pos).ok_or(pos)?;
        let kind = if v & 1 == 0 {
            EventKind::Enter
        } else {
            EventKind::Exit
        };
        let zz = v >> 1;
        let delta = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
        addr = addr.wrapping_add(delta as u64);
        if timed {
            time = time
                .checked_add(varint(payload, &mut pos).ok_or(pos)?)
                .ok_or(pos)?;
        }
        out.push(Event {
            time,
            func: intern(addr),
            thread,
            kind,
        });
    }
    if pos != payload.len() {
        return Err(pos);
    }
    Ok(())
}

/// Reads an unsigned LEB128 number.
#[inline]
fn varint(data: &[u8], pos: &mut usize) -> Option<u64> {
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

/// Encodes events the way the runtime does; used by tests and benchmarks.
pub fn encode(base: u64, path: &str, blocks: &[Block]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&FLAG_TIMED.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&(path.len() as u32).to_le_bytes());
    out.extend_from_slice(path.as_bytes());
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
        out.push(BLOCK_TAG);
        out.extend_from_slice(&tid.to_le_bytes());
        out.extend_from_slice(&(events.len() as u32).to_le_bytes());
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&payload);
    }
    out
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
        assert_eq!(err, "t.bin: byte 8: expected format version 1, found 9");
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
        let result = r.header().and_then(|(meta, timed)| {
            let mut seq = InOrder {
                data: bytes,
                name: "t.bin",
                opts: &opts,
                funcs: &mut funcs,
                threads: ThreadIds::default(),
                maps: (Vec::new(), Vec::new()),
                meta,
                timed,
                stopped: false,
            };
            seq.blocks(r.pos, bytes.len(), &mut sink)?;
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
        let good = encode(0x5555_0000_0000, "/tmp/app", &blocks);
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
}
