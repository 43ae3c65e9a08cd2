//! The in-order side of a binary parse, on the calling thread: decoded
//! chunks merged into global ids in file order, and record-by-record
//! reading of the chunks the workers could not decode.

use rustc_hash::FxHashMap;

use super::TAG_BLOCK;
use super::framing::Layout;
use super::reader::Parser;
use super::records::{Records, Side};
use super::ring::{Ring, written_after_all};
use crate::error::Result;
use crate::ingest::chunked::{self, LocalEvents};
use crate::ingest::{BATCH, Event, FuncTable, ParseOptions, Sink, ThreadIds, TraceMeta};

/// The in-order side of a binary parse: global ids, lenient counting, and
/// record-by-record reading of chunks the workers could not decode.
pub(super) struct InOrder<'a> {
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
    pub(super) fn new(
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

    /// Reads the records in `start..end` one by one (the last one may end
    /// beyond `end` after a resynchronisation).
    pub(super) fn records(&mut self, start: usize, end: usize, sink: &mut dyn Sink) -> Result<()> {
        let mut r = Records {
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
    pub(super) fn drop_written(&mut self, first_record: usize) {
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
    pub(super) fn pending(&mut self, sink: &mut dyn Sink) {
        for batch in self.pending.chunks(BATCH) {
            sink.events(batch);
        }
        self.pending.clear();
    }

    pub(super) fn finish(self) -> TraceMeta {
        let mut meta = self.meta;
        if let Some(w) = crate::ingest::dropped_warning(self.dropped) {
            meta.warnings.push(w);
        }
        meta.timed = self.layout.timed;
        meta.unit = if meta.timed {
            crate::ingest::Unit::Nanos
        } else {
            crate::ingest::Unit::Calls
        };
        meta.threads = self.threads.into_ids();
        if meta.threads.is_empty() {
            meta.threads.push(0);
        }
        meta
    }
}

impl<'a> chunked::InOrder for InOrder<'a> {
    type Parser = Parser;

    /// Takes a chunk, decoded or not.
    fn consume(
        &mut self,
        start: usize,
        bytes: &[u8],
        local: Option<LocalEvents>,
        sink: &mut dyn Sink,
    ) -> Result<Option<LocalEvents>> {
        let end = start + bytes.len();
        let (local, spare) = match local {
            Some(local) if self.resume > start || self.stopped => (None, Some(local)),
            other => (other, None),
        };
        if self.stopped || self.resume >= end {
            return Ok(spare.or(local));
        }
        match local {
            Some(mut local) => {
                local.merge(self.funcs, &mut self.threads, &mut self.maps, sink);
                self.resume = end;
                Ok(Some(local))
            }
            None => self
                .records(start.max(self.resume), end, sink)
                .map(|()| spare),
        }
    }
}
