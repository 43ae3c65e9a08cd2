//! The worker side of a binary parse: a [`Parser`] per parsing thread
//! decodes a chunk of event blocks into chunk-local ids, storing the
//! events or feeding them to a sink's summariser ([`BinaryScan`]).

use std::any::Any;

use rustc_hash::FxHashMap;

use super::TAG_BLOCK;
use super::decode::decode_block;
use super::framing::{Layout, Sum};
use crate::ingest::ChunkWork;
use crate::ingest::chunked::{ChunkParser, LocalEvents};
use crate::ingest::{Event, EventConsumer};

/// A worker's block decoder: chunk-local ids for addresses (through a
/// direct-mapped cache) and threads.
pub(super) struct Parser {
    /// A fixed-size array, so that indexing it by a hash needs no bounds
    /// check or division.
    slots: Box<[(u64, u32, u32); SLOTS]>,
    stamp: u32,
    tids: FxHashMap<u64, u32>,
    /// The chunk's local id of every address read so far, consulted on
    /// cache misses: an address whose slot another one took keeps its id
    /// (summarisers tell frames apart by id).
    ids: FxHashMap<u64, u32>,
    /// The framing of the file's records.
    layout: Layout,
}

/// Entries of [`Parser::slots`].
pub(super) const SLOTS: usize = 1024;

impl Parser {
    /// A parser for the records of a file framed as `layout`.
    pub(super) fn new(layout: Layout) -> Self {
        Parser {
            slots: Box::new([(0, 0, 0); SLOTS]),
            stamp: 0,
            tids: FxHashMap::default(),
            ids: FxHashMap::default(),
            layout,
        }
    }
}

impl ChunkParser for Parser {
    type Buffer = LocalEvents;
    /// None when a record of the chunk is not an intact block: the chunk is
    /// then read record by record in order.
    type Parsed = Option<LocalEvents>;

    fn parse(
        &mut self,
        bytes: &[u8],
        out: LocalEvents,
        work: Option<&mut dyn ChunkWork>,
    ) -> Option<LocalEvents> {
        let layout = self.layout;
        let scan = BinaryScan {
            decoder: self,
            bytes,
            layout,
            out,
        };
        match work {
            // Only a binary scan gives a binary result back; anything else
            // would leave the chunk to the record-by-record reader.
            Some(work) => work
                .scan(scan.into())
                .binary()
                .and_then(|scanned| scanned.0),
            None => scan.decoder.decode(bytes, layout, scan.out),
        }
    }
}

impl Parser {
    /// Decodes a chunk of whole event blocks, storing the events; None if
    /// any record is malformed or not a block (those are read in order).
    pub(super) fn decode(
        &mut self,
        b: &[u8],
        layout: Layout,
        mut out: LocalEvents,
    ) -> Option<LocalEvents> {
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
    ) -> Result<LocalEvents, Stop> {
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

/// Why [`Parser::decode_into`] stopped.
pub(super) enum Stop {
    /// A record is malformed or not a block.
    Bad,
    /// The consumer gave the chunk up (its buffers come back).
    Consumer(LocalEvents),
}

/// A chunk of binary blocks and a decoder for it, handed to a sink's
/// [`ChunkWork::scan`](crate::ingest::ChunkWork::scan) so that it
/// can run the decoder with its own (statically dispatched) consumer.
pub struct BinaryScan<'a> {
    pub(super) decoder: &'a mut Parser,
    pub(super) bytes: &'a [u8],
    pub(super) layout: Layout,
    pub(super) out: LocalEvents,
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
pub(super) fn local_id(
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
pub(super) fn local_miss(ids: &mut FxHashMap<u64, u32>, addrs: &mut Vec<u64>, addr: u64) -> u32 {
    let next = addrs.len() as u32;
    let id = *ids.entry(addr).or_insert(next);
    if id == next {
        addrs.push(addr);
    }
    id
}
