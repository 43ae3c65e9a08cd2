//! Which recorded mapping holds an address, by binary search: the trace's
//! `# map` records (or the binary trace's mapping records) cut into
//! disjoint intervals, each owned by the latest mapping covering it (an
//! object loaded where a closed one was wins). Building costs
//! O(m log m) for m mappings and a lookup O(log m), where a scan of every
//! mapping per address made 150k one-call objects quadratic.
//!
//! An address whose function was first seen before the latest mapping
//! holding it was recorded (a library replaced at the same address) asks
//! which mapping held it *then*: [`holders_when`] answers a batch of such
//! questions by laying the mappings over each other in record order,
//! answering each question when its record count is reached, where a scan
//! of the earlier mappings per address made many replacements quadratic.

use std::collections::{BTreeMap, BinaryHeap, HashMap};

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

/// For each question `(addr, seen)`: the latest of the first `seen`
/// mappings that holds `addr`, else the first later one that does (a
/// record that came after the events it is for), else None. Costs
/// O((m + q) log(m + q)) for m mappings and q questions.
pub(super) fn holders_when(maps: &[Mapping], questions: &[(u64, usize)]) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..questions.len()).collect();
    order.sort_by_key(|&q| questions[q].1);
    let seen = |q: usize| questions[q].1.min(maps.len());
    let mut held = vec![None; questions.len()];
    // The first `seen` mappings laid in record order: the latest is on top.
    let (mut layers, mut laid) = (Layers::default(), 0);
    for &q in &order {
        for (m, map) in maps.iter().enumerate().take(seen(q)).skip(laid) {
            layers.lay(map, m);
        }
        laid = laid.max(seen(q));
        held[q] = layers.at(questions[q].0);
    }
    // The mappings from `seen` on, laid from the last: the first is on top.
    let (mut layers, mut next) = (Layers::default(), maps.len());
    for &q in order.iter().rev() {
        if held[q].is_some() {
            continue;
        }
        for m in (seen(q)..next).rev() {
            layers.lay(&maps[m], m);
        }
        next = next.min(seen(q));
        held[q] = layers.at(questions[q].0);
    }
    held
}

/// Mappings laid over each other: disjoint pieces, each showing the
/// mapping laid last over it. Each laying adds at most three pieces and
/// removes those it covers, so m layings cost O(m log m) in all.
#[derive(Default)]
struct Layers {
    /// Start of each piece -> (its end, its mapping).
    pieces: BTreeMap<u64, (u64, usize)>,
}

impl Layers {
    /// Lays mapping number `m` over the pieces in its range.
    fn lay(&mut self, map: &Mapping, m: usize) {
        let (start, end) = (map.start, map.end);
        if start >= end {
            return;
        }
        // The pieces do not overlap: those this one covers are the last
        // ones starting below its end, back to one ending at or before its start.
        let covered: Vec<(u64, u64, usize)> = self
            .pieces
            .range(..end)
            .rev()
            .take_while(|(_, (e, _))| *e > start)
            .map(|(&s, &(e, o))| (s, e, o))
            .collect();
        for (s, e, o) in covered {
            self.pieces.remove(&s);
            if s < start {
                self.pieces.insert(s, (start, o));
            }
            if e > end {
                self.pieces.insert(end, (e, o));
            }
        }
        self.pieces.insert(start, (end, m));
    }

    /// The mapping showing at `addr`.
    fn at(&self, addr: u64) -> Option<usize> {
        let (_, &(end, m)) = self.pieces.range(..=addr).next_back()?;
        (addr < end).then_some(m)
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

    /// What [`holders_when`] replaces: scans before and after `seen`.
    fn scan_when(maps: &[Mapping], addr: u64, seen: usize) -> Option<usize> {
        let holds = |&i: &usize| maps[i].start <= addr && addr < maps[i].end;
        let seen = seen.min(maps.len());
        (0..seen)
            .rev()
            .find(holds)
            .or_else(|| (seen..maps.len()).find(holds))
    }

    #[test]
    fn holders_when_answers_like_a_scan() {
        let maps = [
            map(0x1000, 0x5000, "a"),
            map(0x2000, 0x3000, "b"),
            map(0x2800, 0x4000, "a"),
            map(0x6000, 0x7000, "c"),
            map(0x1000, 0x1800, "d"),
            map(0x6800, 0x6800, "empty"),
            map(0x2000, 0x3000, "b"),
            map(0x0800, 0x6800, "e"),
        ];
        let addrs = (0..0x8000)
            .step_by(0x80)
            .chain([0x7ff, 0x2fff, 0x3000, 0x4fff, 0x5000, 0x67ff]);
        // Every address with every record count, in an order of its own.
        let questions: Vec<(u64, usize)> = addrs
            .flat_map(|a| (0..=maps.len() + 1).rev().map(move |s| (a, s)))
            .collect();
        let held = holders_when(&maps, &questions);
        for (&(addr, seen), got) in questions.iter().zip(held) {
            assert_eq!(got, scan_when(&maps, addr, seen), "{addr:#x} after {seen}");
        }
        assert_eq!(holders_when(&[], &[(0x1000, 0)]), [None]);
    }

    #[test]
    fn no_mappings_find_nothing() {
        assert_eq!(MapIndex::new(&[]).find(0x1000), None);
    }
}
