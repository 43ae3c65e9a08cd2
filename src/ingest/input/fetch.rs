//! How a file's chunk gets into memory: copied with `pread`, or mapped,
//! whichever costs the kernel less for this file, measured as it is read.
//!
//! What each costs depends on how the page cache holds the file, which no
//! call tells. A file the kernel read from disk, or one written in large
//! aligned writes, sits in large folios: mapping a chunk of it is a few
//! page-table entries per folio (about 0.01 s of CPU for 3.4 GB), where
//! copying it is 0.1-0.25 s. A file written a few kilobytes at a time
//! (`awk`, our own runtime) sits in 4 KiB pages, and then mapping costs
//! more than copying (0.42 s against 0.32 s for 3.4 GB). So the chunked
//! readers measure both on the file itself: the first chunk is mapped and
//! the second copied, each timed in the reading thread's CPU time; after
//! that, each chunk takes the cheaper way, and now and then a chunk takes
//! the other one, to follow a file whose parts are held differently: after
//! [`PROBE_EVERY`] chunks, then, while probes find the same way cheaper,
//! twice as many each time, up to [`PROBE_MOST`] (a probe that maps a file
//! held in small pages costs the reading of several chunks, and on 3.4 GB
//! one in 32 chunks probed was 4% of the CPU time). Reading a thread's CPU clock is a system call, so
//! only the first chunks, the probes and one chunk in [`TIME_EVERY`] are
//! timed. The bytes are the same either way, so this changes how fast a
//! trace reads, never what it reads to.

use std::sync::atomic::{AtomicU64, Ordering};

/// One chunk in this many takes the way not preferred, to keep its cost
/// current.
const PROBE_EVERY: u64 = 32;

/// The most chunks between two probes.
const PROBE_MOST: u64 = 1024;

/// One chunk in this many of the way preferred is timed.
const TIME_EVERY: u64 = 8;

/// Mapping is preferred only when it costs less than this fraction of
/// copying (in 1/16ths): mapped pages are unmapped again later, in batches
/// ([`super::Input::release`]), at a cost the measure does not see.
const MAP_MARGIN_16THS: u64 = 8;

/// The two ways a chunk can be fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Way {
    /// Mapped and its pages populated in one call (`MADV_POPULATE_READ`).
    Map,
    /// Copied into a buffer with `pread`.
    Copy,
}

/// The costs measured so far, shared by the threads reading one file.
#[derive(Default)]
pub(super) struct Fetch {
    /// Chunks fetched so far.
    chunks: AtomicU64,
    /// Cost of each way, in nanoseconds of CPU per MiB, averaged over
    /// the latest chunks fetched that way (0: not measured yet).
    map_ns: AtomicU64,
    copy_ns: AtomicU64,
    /// The chunk number of the next probe (0: the first after warm-up).
    next_probe: AtomicU64,
    /// The way found cheaper at the last probe and how many probes in a
    /// row found it so ([`pack`]; 0 before the first probe).
    last: AtomicU64,
}

impl Fetch {
    /// The way to fetch the next chunk, and whether to time it.
    pub(super) fn choose(&self) -> (Way, bool) {
        let n = self.chunks.fetch_add(1, Ordering::Relaxed);
        let (map, copy) = (
            self.map_ns.load(Ordering::Relaxed),
            self.copy_ns.load(Ordering::Relaxed),
        );
        let preferred = match (map, copy) {
            (0, _) => return (Way::Map, true),
            (_, 0) => return (Way::Copy, true),
            _ if map * 16 < copy * MAP_MARGIN_16THS => Way::Map,
            _ => Way::Copy,
        };
        let other = match preferred {
            Way::Map => Way::Copy,
            Way::Copy => Way::Map,
        };
        let next = self.next_probe.load(Ordering::Relaxed);
        if n >= next.max(PROBE_EVERY) {
            let (way, streak) = unpack(self.last.load(Ordering::Relaxed));
            let streak = match way == Some(preferred) {
                true => streak + 1,
                false => 0,
            };
            self.last.store(pack(preferred, streak), Ordering::Relaxed);
            let gap = (PROBE_EVERY << streak.min(10)).min(PROBE_MOST);
            self.next_probe.store(n + gap, Ordering::Relaxed);
            return (other, true);
        }
        (
            preferred,
            n < 2 * TIME_EVERY || n.is_multiple_of(TIME_EVERY),
        )
    }

    /// Notes that fetching `bytes` bytes `way` took `ns` nanoseconds of
    /// the thread's CPU time. Chunks too small to time well are not noted.
    pub(super) fn note(&self, way: Way, bytes: usize, ns: u64) {
        if bytes < 64 * 1024 {
            return;
        }
        let per_mib = (ns.saturating_mul(1 << 20) / bytes as u64).max(1);
        let slot = match way {
            Way::Map => &self.map_ns,
            Way::Copy => &self.copy_ns,
        };
        // A moving average, half the newest: one chunk timed across a
        // preemption or a page-table allocation moves it only so far, and
        // a part of the file held otherwise shows within a few probes.
        // (Two threads may note at once; one of the two is then lost.)
        let old = slot.load(Ordering::Relaxed);
        let new = match old {
            0 => per_mib,
            _ => (old + per_mib) / 2,
        };
        slot.store(new.max(1), Ordering::Relaxed);
    }
}

/// [`Fetch::last`]'s way and streak as one word.
fn pack(way: Way, streak: u64) -> u64 {
    streak << 2 | 2 | u64::from(way == Way::Copy)
}

/// The way and streak of [`pack`] (no way before the first probe).
fn unpack(word: u64) -> (Option<Way>, u64) {
    match word & 2 {
        0 => (None, 0),
        _ => (
            Some(if word & 1 == 1 { Way::Copy } else { Way::Map }),
            word >> 2,
        ),
    }
}

#[cfg(test)]
impl Fetch {
    /// Makes `way` the cheaper one (but for the probes).
    pub(super) fn prefer(&self, way: Way) {
        let (map, copy) = match way {
            Way::Map => (1, 1000),
            Way::Copy => (1000, 1),
        };
        self.map_ns.store(map, Ordering::Relaxed);
        self.copy_ns.store(copy, Ordering::Relaxed);
    }
}

/// The calling thread's CPU time in nanoseconds (0 if it cannot be read,
/// which only makes the measure say nothing).
pub(super) fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes the one timespec it is given.
    match unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } {
        0 => ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64,
        _ => 0,
    }
}

/// Asks the kernel to map `bytes` (part of a file mapping) now, in one
/// call, rather than a fault at a time as they are read; false when it
/// could not (an old kernel, or the file shrank), and the chunk is copied.
pub(super) fn populate(bytes: &[u8]) -> bool {
    const PAGE: usize = 4096;
    let start = bytes.as_ptr() as usize;
    let from = start / PAGE * PAGE;
    let len = start + bytes.len() - from;
    // SAFETY: the range lies within a live read-only file mapping (page
    // rounding stays inside it: mappings start and end on pages); the
    // advice only maps pages, it changes no memory.
    unsafe { libc::madvise(from as *mut libc::c_void, len, libc::MADV_POPULATE_READ) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_chunks_measure_both_ways_then_the_cheaper_one_is_taken() {
        let f = Fetch::default();
        assert_eq!(f.choose(), (Way::Map, true));
        f.note(Way::Map, 1 << 20, 5_000);
        assert_eq!(f.choose(), (Way::Copy, true));
        f.note(Way::Copy, 1 << 20, 60_000);
        let ways: Vec<(Way, bool)> = (2..PROBE_EVERY * 2).map(|_| f.choose()).collect();
        // Mapping is cheaper: taken but for a probe copy after 32 chunks,
        // which is timed, as are the first chunks and one in 8 after.
        let copies: Vec<_> = ways.iter().filter(|w| w.0 == Way::Copy).collect();
        assert_eq!(copies, [&(Way::Copy, true)]);
        assert_eq!(ways[30], (Way::Copy, true));
        let timed = ways.iter().filter(|w| w.1).count();
        assert_eq!(timed, 14 + 5 + 1);
        // A file held in small pages: once the average says so, copying
        // wins and mapping is probed.
        for _ in 0..2 {
            f.note(Way::Map, 1 << 20, 120_000);
        }
        let ways: Vec<(Way, bool)> = (0..PROBE_EVERY).map(|_| f.choose()).collect();
        assert_eq!(ways.iter().filter(|w| w.0 == Way::Map).count(), 1);
    }

    #[test]
    fn probes_grow_sparser_while_they_find_the_same_way_cheaper() {
        let f = Fetch::default();
        f.choose();
        f.note(Way::Map, 1 << 20, 120_000);
        f.choose();
        f.note(Way::Copy, 1 << 20, 60_000);
        let probes: Vec<u64> = (2..5000).filter(|_| f.choose().0 == Way::Map).collect();
        assert_eq!(probes, [32, 64, 128, 256, 512, 1024, 2048, 3072, 4096]);
        // A probe that finds the other way cheaper starts over.
        for _ in 0..3 {
            f.note(Way::Map, 1 << 20, 1_000);
        }
        let copies = (5000..5200).filter(|_| f.choose().0 == Way::Copy).count();
        assert_eq!(copies, 2, "probes at 5120 and 32 chunks later");
    }

    #[test]
    fn mapping_must_cost_well_under_copying_to_be_preferred() {
        // Mapped pages are also unmapped later, which the measure misses.
        let f = Fetch::default();
        f.choose();
        f.choose();
        f.note(Way::Map, 1 << 20, 50_000);
        f.note(Way::Copy, 1 << 20, 60_000);
        assert_eq!(f.choose().0, Way::Copy);
        // Small chunks are not timed: the figures stay.
        f.note(Way::Map, 100, 1);
        assert_eq!(f.choose().0, Way::Copy);
    }
}
