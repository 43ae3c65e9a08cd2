//! Per-function distributions of a chunk, accumulated on a parsing thread
//! (what the hot graph, `stats` by function and `compare` keep,
//! [`Keep::TotalByFunction`](crate::calltree::Keep)). A call costs as
//! little as can be: its function's maximum (the slowest call's place
//! only when the maximum is reached) and one narrow count. A value below
//! [`EXACT`] (the short calls most of a trace is made of) is counted in a
//! fixed array indexed by the value itself; a larger one also moves the
//! minimum and is counted in a dense window of buckets. The minimum of the
//! short calls is their lowest count, found when the chunk ends, as are
//! the number of calls (the sum of the counts); the sum of their times is
//! that of the function's summary nodes, which add up the same calls.
//!
//! The windows stay with the parsing thread from chunk to chunk (emptied,
//! not freed, and narrowed only when together they hold more than
//! [`BUDGET`] counts), so a function's window grows once, not in every
//! chunk. At a chunk's end [`FuncDists::drain`] hands on only the buckets
//! the chunk used ([`Drained`]), which the in-order merge adds to the
//! trace's distributions (`partial/merge.rs`). The values are those
//! [`Dist::add`](crate::calltree::dist::Dist::add) would give.
//!
//! Functions are the chunk's local ids, which name other functions in
//! other chunks: a window reused by another function only grows to cover
//! both.

use crate::calltree::dist::{At, EXACT, Head, MAX_BUCKETS, bucket_of, earlier};

/// One local function's calls in the current chunk.
struct Acc {
    /// Smallest value of at least [`EXACT`] (`u64::MAX` before the
    /// first): the minimum unless a shorter call was counted in `exact`.
    min: u64,
    /// Largest value (0 before the first call).
    max: u64,
    /// The first call that reached `max`.
    max_at: At,
    /// Whether the chunk called it.
    called: bool,
    /// `exact[v]` is the count of calls that took `v` < [`EXACT`] (empty
    /// until the first; modulo 2^32: a wrap is noted in
    /// [`FuncDists::carries`]).
    exact: Vec<u32>,
    /// `counts[i]` is bucket `base + i`'s count (buckets of [`EXACT`] and
    /// above), as `exact`'s.
    base: u16,
    counts: Vec<u32>,
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            min: u64::MAX,
            max: 0,
            max_at: At::default(),
            called: false,
            exact: Vec::new(),
            base: 0,
            counts: Vec::new(),
        }
    }
}

// A bucket below a window's base wraps, as a u16 offset, past any
// window's length (what `Acc::add` relies on).
const _: () = assert!(2 * MAX_BUCKETS <= 1 << 16);

/// Adds one to a count; false when it wrapped to 0.
#[inline(always)]
fn bump(c: &mut u32) -> bool {
    *c = c.wrapping_add(1);
    *c != 0
}

impl Acc {
    /// Adds one call of `v` at `at`; false when its count wrapped to 0.
    #[inline(always)]
    fn add(&mut self, v: u64, at: At) -> bool {
        if v >= self.max {
            self.reach_max(v, at);
        }
        if v < EXACT {
            return match self.exact.get_mut(v as usize) {
                Some(c) => bump(c),
                None => self.first_exact(v),
            };
        }
        self.min = self.min.min(v);
        let b = bucket_of(v);
        match self.counts.get_mut(b.wrapping_sub(self.base) as usize) {
            Some(c) => bump(c),
            None => {
                self.widen(b);
                true
            }
        }
    }

    /// Counts the first call below [`EXACT`] since the counts were freed.
    #[cold]
    #[inline(never)]
    fn first_exact(&mut self, v: u64) -> bool {
        self.exact = vec![0; EXACT as usize];
        self.exact[v as usize] = 1;
        true
    }

    /// A call as slow as the slowest so far, or slower (or the first).
    #[cold]
    #[inline(never)]
    fn reach_max(&mut self, v: u64, at: At) {
        if !self.called || v > self.max || earlier(at, self.max_at) {
            self.max = v;
            self.max_at = at;
        }
        self.called = true;
    }

    /// Widens the window to bucket `b` and counts one call there.
    #[cold]
    #[inline(never)]
    fn widen(&mut self, b: u16) {
        if self.counts.is_empty() {
            self.base = b;
            self.counts.push(1);
            return;
        }
        if b < self.base {
            let low = b.saturating_sub(HEADROOM).max(EXACT as u16);
            let more = (self.base - low) as usize;
            self.counts.splice(0..0, std::iter::repeat_n(0, more));
            self.base = low;
        } else {
            let end = (b + 1 + HEADROOM).min(MAX_BUCKETS as u16);
            self.counts.resize((end - self.base) as usize, 0);
        }
        self.counts[(b - self.base) as usize] = 1;
    }

    /// Moves this chunk's non-empty counts to `out` (in bucket order:
    /// `exact`'s, then the window's between its minimum's and its
    /// maximum's buckets) and empties the accumulator; returns the
    /// chunk's numbers other than the counts, with `sum` the sum of the
    /// values. A count that wrapped is not there yet
    /// ([`FuncDists::drain`]), nor is `min` final.
    fn drain(&mut self, sum: u64, narrow: bool, out: &mut Vec<(u16, u64)>) -> Head {
        // Exact counts up to the maximum's (all of them below EXACT).
        let top = self.exact.len().min(self.max.min(EXACT - 1) as usize + 1);
        let mut count = take_counts(&mut self.exact[..top], 0, out);
        let lo = bucket_of(self.min);
        let mut used = 0;
        if self.min != u64::MAX {
            let hi = bucket_of(self.max);
            let window = (lo - self.base) as usize..=(hi - self.base) as usize;
            count += take_counts(&mut self.counts[window], lo, out);
            used = (hi - lo) as usize + 1;
        }
        let head = Head {
            min: self.min,
            max: self.max,
            max_at: self.max_at,
            count,
            sum,
        };
        // Over the budget, a window much wider than this chunk's calls (a
        // rare slow call in an earlier chunk, or another function of the
        // same local id) is narrowed to them: memory follows what chunks
        // use.
        let (counts, base) = match narrow && self.counts.len() > 2 * used + SLACK {
            true => (vec![0; used], lo),
            false => (std::mem::take(&mut self.counts), self.base),
        };
        *self = Acc {
            exact: std::mem::take(&mut self.exact),
            counts,
            base,
            ..Acc::default()
        };
        head
    }

    /// The counts this accumulator holds (what [`BUDGET`] limits).
    fn held(&self) -> usize {
        self.exact.len() + self.counts.len()
    }
}

/// Moves the non-empty counts of `counts`, those of the buckets from
/// `first` on, to `out` and zeroes them; returns their sum.
fn take_counts(counts: &mut [u32], first: u16, out: &mut Vec<(u16, u64)>) -> u64 {
    let mut sum = 0;
    for (k, block) in counts.chunks_mut(BLOCK).enumerate() {
        if block.iter().fold(0, |a, &c| a | c) == 0 {
            continue;
        }
        for (i, c) in block.iter_mut().enumerate() {
            if *c != 0 {
                out.push((first + (k * BLOCK + i) as u16, u64::from(*c)));
                sum += u64::from(*c);
                *c = 0;
            }
        }
    }
    sum
}

/// Counts a window may hold beyond twice a chunk's range of buckets
/// before it is narrowed (or, for a function the chunk did not call,
/// freed), once the windows are over [`BUDGET`].
const SLACK: usize = 64;

/// Counts the windows of a parsing thread may hold together (1 MiB)
/// before those much wider than a chunk's calls are narrowed. Below it a
/// window keeps its width from chunk to chunk: narrowing it after every
/// chunk made windows grow again in the next (on a zlib trace, 120,000
/// reallocations in 3,400 chunks).
const BUDGET: usize = 1 << 18;

/// Buckets a window grows by beyond the one that made it grow, so that
/// the next values around it do not each grow it again.
const HEADROOM: u16 = 16;

/// Counts the drain tests for zero at once: most of a window's buckets
/// between a chunk's minimum and maximum are empty.
const BLOCK: usize = 8;

/// The per-function accumulators of a parsing thread, by local function.
#[derive(Default)]
pub(super) struct FuncDists {
    accs: Vec<Acc>,
    /// Buckets whose 32-bit count wrapped to 0 (each 2^32 calls), by
    /// local function: more calls than a chunk holds, but exact anyway.
    carries: Vec<(u32, u16)>,
}

impl FuncDists {
    /// Adds a call of local function `func` that took `v`, at `at`.
    #[inline(always)]
    pub(super) fn add(&mut self, func: u32, v: u64, at: At) {
        match self.accs.get_mut(func as usize) {
            Some(a) => {
                if !a.add(v, at) {
                    self.carry(func, v);
                }
            }
            None => self.add_new(func, v, at),
        }
    }

    /// [`FuncDists::add`] for a function with no accumulator yet.
    #[cold]
    #[inline(never)]
    fn add_new(&mut self, func: u32, v: u64, at: At) {
        self.accs.resize_with(func as usize + 1, Acc::default);
        self.add(func, v, at);
    }

    /// Notes that `func`'s count of `v`'s bucket wrapped.
    #[cold]
    #[inline(never)]
    fn carry(&mut self, func: u32, v: u64) {
        self.carries.push((func, bucket_of(v)));
    }

    /// Hands on the chunk's distributions and empties the accumulators
    /// for the next chunk (keeping their windows). `sums` are the sums
    /// of each local function's values (saturating), by local function.
    pub(super) fn drain(&mut self, sums: &[u64]) -> Drained {
        let mut d = Drained::default();
        let narrow = self.accs.iter().map(Acc::held).sum::<usize>() > BUDGET;
        for (f, a) in self.accs.iter_mut().enumerate() {
            if !a.called {
                if narrow && a.counts.len() > SLACK {
                    a.counts = Vec::new();
                }
                if narrow {
                    a.exact = Vec::new();
                }
                continue;
            }
            let start = d.buckets.len();
            let sum = sums.get(f).copied().unwrap_or(0);
            let mut head = a.drain(sum, narrow, &mut d.buckets);
            for &(_, b) in self.carries.iter().filter(|c| c.0 == f as u32) {
                head.count += 1 << 32;
                add_carry(&mut d.buckets, start, b);
            }
            // The shortest call, when it was counted by its value.
            if let Some(&(b, _)) = d.buckets.get(start)
                && u64::from(b) < EXACT
            {
                head.min = u64::from(b);
            }
            d.funcs.push((f as u32, head, d.buckets.len() as u32));
        }
        self.carries.clear();
        d
    }
}

/// Adds 2^32 to bucket `b` of the function whose drained buckets are
/// `buckets[start..]` (sorted), where its wrapped count may have left none.
#[cold]
fn add_carry(buckets: &mut Vec<(u16, u64)>, start: usize, b: u16) {
    match buckets[start..].binary_search_by_key(&b, |one| one.0) {
        Ok(i) => buckets[start + i].1 += 1 << 32,
        Err(i) => buckets.insert(start + i, (b, 1 << 32)),
    }
}

/// A chunk's per-function distributions, as [`FuncDists::drain`] hands
/// them on.
#[derive(Default)]
pub(super) struct Drained {
    /// Each called local function, its numbers and where its buckets end
    /// in `buckets` (they start where the previous function's end).
    funcs: Vec<(u32, Head, u32)>,
    /// Non-empty buckets (bucket, count), function after function.
    buckets: Vec<(u16, u64)>,
}

impl Drained {
    /// Each function's numbers and non-empty buckets, in local ids.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &Head, &[(u16, u64)])> + '_ {
        let mut start = 0;
        self.funcs.iter().map(move |(f, head, end)| {
            let b = &self.buckets[start..*end as usize];
            start = *end as usize;
            (*f, head, b)
        })
    }

    /// Maps each slowest call's local thread through `threads`.
    pub(super) fn map_threads(&mut self, threads: &[u32]) {
        for (_, head, _) in &mut self.funcs {
            head.max_at.thread = threads[head.max_at.thread as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calltree::dist::Dist;

    /// What `Dist::add` makes of the same calls.
    fn reference(calls: &[(u64, At)]) -> Dist {
        let mut d = Dist::default();
        for &(v, at) in calls {
            d.add(v, at);
        }
        d
    }

    /// What the accumulator of function 1 hands on, merged into a `Dist`,
    /// its values summing to `sum`.
    fn drained(f: &mut FuncDists, sum: u64) -> Dist {
        let mut d = Dist::default();
        for (func, head, buckets) in f.drain(&[0, sum]).iter() {
            assert_eq!(func, 1);
            d.merge_counts(head, buckets.iter().copied());
        }
        d
    }

    fn at(thread: u32, start: u64) -> At {
        At { thread, start }
    }

    #[test]
    fn reused_windows_give_each_chunk_its_own_calls() {
        let chunks: [&[(u64, At)]; 4] = [
            &[
                (5, at(0, 9)),
                (300, at(1, 3)),
                (300, at(0, 2)),
                (0, at(0, 1)),
            ],
            &[(1 << 40, at(0, 5)), (7, at(0, 1))],
            &[(0, at(2, 4)), (0, at(1, 4)), (0, at(1, 9))],
            // Only calls above the exact counts: the minimum is theirs.
            &[(200, at(0, 1)), (EXACT + 1, at(1, 1)), (1 << 40, at(1, 0))],
        ];
        let mut f = FuncDists::default();
        for calls in chunks {
            for &(v, a) in calls {
                f.add(1, v, a);
            }
            let sum = calls.iter().map(|c| c.0).sum();
            assert_eq!(drained(&mut f, sum), reference(calls));
        }
        // The counts are empty again, and (far under the budget) the
        // window is as wide as the calls above the exact counts of all
        // the chunks made it.
        let a = &f.accs[1];
        assert_eq!(a.base, bucket_of(EXACT));
        assert!(a.base as usize + a.counts.len() > bucket_of(1 << 40) as usize);
        assert!(a.counts.iter().all(|&c| c == 0));
        assert_eq!(a.exact, [0; EXACT as usize]);
        assert!(f.drain(&[]).iter().next().is_none());
    }

    #[test]
    fn windows_over_the_budget_narrow_to_the_chunk_calls() {
        // Enough functions whose calls span every bucket to hold more
        // than the budget of counts.
        let funcs = (BUDGET / MAX_BUCKETS + 2) as u32;
        let mut f = FuncDists::default();
        for func in 0..funcs {
            f.add(func, 0, at(0, 0));
            f.add(func, EXACT, at(0, 1));
            f.add(func, u64::MAX, at(0, 2));
        }
        let held = |f: &FuncDists| f.accs.iter().map(Acc::held).sum::<usize>();
        assert!(held(&f) > BUDGET);
        // Each window is as wide as its chunk's calls: none narrows.
        f.drain(&vec![0; funcs as usize]);
        let first = held(&f);
        assert_eq!(first, funcs as usize * MAX_BUCKETS);
        // Over the budget at the next drain, the functions called narrow
        // to their one bucket (and keep their exact counts), the others
        // lose both.
        for func in 0..funcs / 2 {
            f.add(func, 300, at(0, 2));
        }
        let d = f.drain(&vec![300; funcs as usize]);
        let got: Vec<_> = d
            .iter()
            .map(|(func, head, b)| (func, head.count, b.to_vec()))
            .collect();
        let want: Vec<_> = (0..funcs / 2)
            .map(|func| (func, 1, vec![(bucket_of(300), 1)]))
            .collect();
        assert_eq!(got, want);
        assert!(
            held(&f) < first / 10,
            "{} counts held after {first}",
            held(&f)
        );
        assert!(held(&f) <= BUDGET);
        assert_eq!(held(&f), (funcs / 2) as usize * (EXACT as usize + 1));
    }

    /// Every function's distribution built from `text`, kept as `keep`
    /// (the builder's tests build them).
    fn per_function(
        text: &str,
        keep: crate::calltree::Keep,
        threads: usize,
        chunk: usize,
    ) -> String {
        super::super::tests::per_function_dists(text, keep, threads, chunk).0
    }

    #[test]
    fn wide_times_in_many_chunks_give_the_merged_context_distributions() {
        // Three threads calling six functions from two callers, with
        // times from 0 to about 2^40 (most buckets far apart, slow calls
        // now and then), cut into chunks that reuse and narrow the
        // windows; ties of the slowest calls on purpose.
        let mut text = String::from("# base 0x1000\n");
        let mut t = 1000u64;
        for i in 0..600u64 {
            let thread = 1 + i % 3;
            let caller = 0x20 + (i % 2);
            let f = 0x40 + (i * 7 % 6);
            let took = match i % 11 {
                0 => 1 << (20 + i % 21),
                5 => 1 << 30,
                _ => (i * 7919) % 5000,
            };
            text.push_str(&format!(
                "E{caller:#x} {t} {thread}\nE{f:#x} {} {thread}\n",
                t + 1
            ));
            text.push_str(&format!(
                "X{f:#x} {} {thread}\nX{caller:#x} {} {thread}\n",
                t + 1 + took,
                t + 2 + took
            ));
            t += 3 + took;
        }
        let by_context = per_function(&text, crate::calltree::Keep::Total, 1, 1 << 30);
        assert!(by_context.contains("max: 1099511627776"), "{by_context}");
        for (threads, chunk) in [(1, 300), (2, 97), (3, 1000), (2, 4096)] {
            let by_function = per_function(
                &text,
                crate::calltree::Keep::TotalByFunction,
                threads,
                chunk,
            );
            assert_eq!(
                by_function, by_context,
                "{threads} threads, {chunk}-byte chunks"
            );
        }
    }

    #[test]
    fn a_count_that_wraps_is_carried() {
        let mut f = FuncDists::default();
        f.add(1, 200, at(0, 0));
        f.add(1, 210, at(0, 1));
        let b = bucket_of(200) - f.accs[1].base;
        f.accs[1].counts[b as usize] = u32::MAX;
        f.add(1, 200, at(0, 2));
        let d = drained(&mut f, 0);
        assert_eq!(d.count, (1 << 32) + 1);
        let counts: Vec<u64> = d.buckets().map(|b| b.2).collect();
        assert_eq!(counts, [1 << 32, 1]);
    }

    #[test]
    fn a_wrapped_exact_count_is_carried_and_can_be_the_minimum() {
        let mut f = FuncDists::default();
        for (v, start) in [(3, 0), (5, 1), (200, 2)] {
            f.add(1, v, at(0, start));
        }
        f.accs[1].exact[3] = u32::MAX;
        f.add(1, 3, at(0, 3));
        let d = drained(&mut f, 0);
        assert_eq!(d.count, (1 << 32) + 2);
        assert_eq!(d.min, 3);
        let buckets: Vec<(u64, u64)> = d.buckets().map(|b| (b.0, b.2)).collect();
        assert_eq!(buckets, [(3, 1 << 32), (5, 1), (200, 1)]);
    }
}
