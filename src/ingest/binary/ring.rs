//! Thread buffer records ('R'): the events a process left in the
//! runtime's buffers when it ended without writing them, and which of
//! them a block in the file holds already.

use super::{RAW_EVENTS_AT, RAW_SLOTS_8};
use crate::ingest::{Event, EventKind, FuncTable, ThreadIds};

/// The unwritten events of a thread buffer record ('R'): the payload holds
/// the region's offset, the clock (TSC at start, CLOCK_MONOTONIC ns at
/// start, TSC-to-ns factor in 32.32 fixed point, timed flag), the ring's
/// size in events (runtimes with a writer thread), and the
/// region is the runtime's buffer: `len` (u32 at 0), `flushed` (u32 at 8),
/// thread id (u64 at 16), the factor of the last block (u64 at 40, 0 when
/// none), and from byte 4096 16-byte raw events (address;
/// kind in bit 63 and raw clock), or 8-byte ones (address, kind in bit 63)
/// when the timed flag is [`RAW_SLOTS_8`].
pub(super) fn raw_events(
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
pub(super) struct Ring {
    pub(super) tid: u64,
    /// The thread's event count when its last completed write began.
    pub(super) flushed: u32,
    /// Where its events start in the pending events, and how many.
    pub(super) first: usize,
    pub(super) count: usize,
}

impl Ring {
    /// Whether a block that starts at event count `seq` (mod 2^16) holds
    /// events of this ring: the runtime writes several blocks of a thread
    /// at once (up to 2^15 events), and notes them only afterwards.
    pub(super) fn holds(&self, seq: u16) -> bool {
        (seq.wrapping_sub(self.flushed as u16) as usize) < self.count
    }
}

/// How many of `ring`'s events were written after all, as a block that
/// ends at event count `end` (mod 2^16): the process died after the write
/// but before the runtime noted it.
pub(super) fn written_after_all(ring: &Ring, end: u16) -> usize {
    let k = end.wrapping_sub(ring.flushed as u16) as usize;
    if k <= ring.count { k } else { 0 }
}
