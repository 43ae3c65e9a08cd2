//! Which recorded mapping holds an address, by binary search: the trace's
//! `# map` records (or the binary trace's mapping records) cut into
//! disjoint intervals, each owned by the latest mapping covering it (an
//! object loaded where a closed one was wins). Building costs
//! O(m log m) for m mappings and a lookup O(log m), where a scan of every
//! mapping per address made 150k one-call objects quadratic.

use std::collections::{BinaryHeap, HashMap};

use crate::ingest::Mapping;

/// No mapping covers the interval.
const NONE: usize = usize::MAX;

/// The mappings of a trace as sorted disjoint intervals.
pub(super) struct MapIndex {
    /// Where each interval starts, ascending; an interval ends where the
    /// next starts.
    starts: Vec<u64>,
    /// The latest mapping covering each interval, or [`NONE`].
    owner: Vec<usize>,
    /// For each mapping, the first mapping of the same path (its object).
    object: Vec<usize>,
}

impl MapIndex {
    pub(super) fn new(maps: &[Mapping]) -> MapIndex {
        let mut starts: Vec<u64> = maps
            .iter()
            .filter(|m| m.start < m.end)
            .flat_map(|m| [m.start, m.end])
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let mut by_start: Vec<usize> = (0..maps.len())
            .filter(|&i| maps[i].start < maps[i].end)
            .collect();
        by_start.sort_by_key(|&i| maps[i].start);
        // Mappings covering the current point, latest first; ended ones
        // are dropped when they reach the top.
        let mut live: BinaryHeap<usize> = BinaryHeap::new();
        let mut next = by_start.iter().peekable();
        let mut owner = Vec::with_capacity(starts.len());
        for &at in &starts {
            while let Some(&&i) = next.peek().filter(|&&&i| maps[i].start <= at) {
                live.push(i);
                next.next();
            }
            while live.peek().is_some_and(|&i| maps[i].end <= at) {
                live.pop();
            }
            owner.push(live.peek().copied().unwrap_or(NONE));
        }
        let mut first: HashMap<&str, usize> = HashMap::new();
        let object = maps
            .iter()
            .enumerate()
            .map(|(i, m)| *first.entry(m.path.as_str()).or_insert(i))
            .collect();
        MapIndex {
            starts,
            owner,
            object,
        }
    }

    /// The latest mapping holding `addr`.
    pub(super) fn find(&self, addr: u64) -> Option<usize> {
        let i = self.starts.partition_point(|&s| s <= addr).checked_sub(1)?;
        Some(self.owner[i]).filter(|&m| m != NONE)
    }

    /// The first mapping of the object mapping `m` belongs to.
    pub(super) fn object(&self, m: usize) -> usize {
        self.object[m]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(start: u64, end: u64, path: &str) -> Mapping {
        Mapping {
            start,
            end,
            offset: 0,
            path: path.to_string(),
            build_id: None,
        }
    }

    /// What the index replaces: the latest mapping containing `addr`.
    fn scan(maps: &[Mapping], addr: u64) -> Option<usize> {
        (0..maps.len())
            .rev()
            .find(|&i| maps[i].start <= addr && addr < maps[i].end)
    }

    #[test]
    fn finds_the_latest_mapping_like_a_scan() {
        let maps = [
            map(0x1000, 0x5000, "a"),
            map(0x2000, 0x3000, "b"),
            map(0x2800, 0x4000, "a"),
            map(0x6000, 0x7000, "c"),
            map(0x1000, 0x1800, "d"),
            map(0x6800, 0x6800, "empty"),
        ];
        let index = MapIndex::new(&maps);
        for addr in (0..0x8000)
            .step_by(0x80)
            .chain([0x2fff, 0x3000, 0x4fff, 0x5000])
        {
            assert_eq!(index.find(addr), scan(&maps, addr), "{addr:#x}");
        }
        assert_eq!(
            (0..maps.len()).map(|m| index.object(m)).collect::<Vec<_>>(),
            [0, 1, 0, 3, 4, 5]
        );
    }

    #[test]
    fn no_mappings_find_nothing() {
        assert_eq!(MapIndex::new(&[]).find(0x1000), None);
    }
}
