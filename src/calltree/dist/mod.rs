//! Per-call distributions: how long each call of a node took, kept in
//! bounded memory whatever the number of calls. Minimum and maximum are
//! exact, and the maximum remembers the call that reached it (its thread
//! and start time). Percentiles come from a log-bucket histogram: values
//! below 128 have a bucket each (exact); above, each power of two is cut
//! into 64 buckets, so a bucket is at most 1/64 of its values wide and a
//! percentile (the bucket's middle, kept inside [min, max]) is within
//! 1/128 < 1% of the true value. A node holds at most [`MAX_BUCKETS`]
//! buckets, whatever its calls.

/// Values below this have a bucket of their own.
pub(crate) const EXACT: u64 = 128;
/// Buckets per power of two above [`EXACT`] (2^6).
const SUB_BITS: u32 = 6;
/// The most buckets a histogram can have.
pub const MAX_BUCKETS: usize = EXACT as usize + (64 - 7) * (1 << SUB_BITS);
// A bucket below a dense window's base wraps, as a u16 offset, past any
// window's length (what `Buckets::add` relies on).
const _: () = assert!(2 * MAX_BUCKETS <= 1 << 16);

/// The bucket holding `v`.
#[inline(always)]
pub(crate) fn bucket_of(v: u64) -> u16 {
    if v < EXACT {
        return v as u16;
    }
    let e = 63 - v.leading_zeros(); // >= 7
    let mantissa = (v >> (e - SUB_BITS)) & ((1 << SUB_BITS) - 1);
    (EXACT + u64::from(e - 7) * (1 << SUB_BITS) + mantissa) as u16
}

/// The values `[low, high]` bucket `b` holds.
pub fn bucket_range(b: u16) -> (u64, u64) {
    let b = u64::from(b);
    if b < EXACT {
        return (b, b);
    }
    let e = (b - EXACT) / (1 << SUB_BITS) + 7;
    let mantissa = (b - EXACT) % (1 << SUB_BITS);
    let step = 1u64 << (e - SUB_BITS as u64);
    let low = (1u64 << e) + mantissa * step;
    (low, low + (step - 1))
}

/// Where the slowest call ran. Of two calls equally slow, the one that
/// started first (then the lower thread index) is kept, whatever the order
/// the calls were added in: the output does not depend on how the trace
/// was cut among parsing threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct At {
    /// Index of its thread in the trace's threads (`TraceMeta::threads`).
    pub thread: u32,
    /// Its start, relative to the trace's first event.
    pub start: u64,
}

/// Whether `a` started before `b` (then: is on a lower thread index).
#[inline]
pub(crate) fn earlier(a: At, b: At) -> bool {
    (a.start, a.thread) < (b.start, b.thread)
}

/// The distribution of one quantity over a node's calls.
#[derive(Clone, Default)]
pub struct Dist {
    /// Smallest value (0 with no calls).
    pub min: u64,
    /// Largest value.
    pub max: u64,
    /// The first call that reached `max`.
    pub max_at: At,
    /// Number of values.
    pub count: u64,
    /// Sum of the values (saturating).
    pub sum: u64,
    /// The counts of the buckets.
    buckets: Buckets,
}

/// A histogram's counts: a short sorted list while few buckets are used
/// (most nodes: a few calls), then a dense window from the lowest bucket
/// used to the highest, where adding a call is one index (a node called
/// millions of times). Either way at most [`MAX_BUCKETS`] counts.
#[derive(Clone)]
enum Buckets {
    /// Non-empty buckets, sorted: (bucket, count).
    Sparse(Vec<(u16, u64)>),
    /// `counts[i]` is bucket `base + i`'s count.
    Dense { base: u16, counts: Vec<u64> },
}

impl Default for Buckets {
    fn default() -> Self {
        Buckets::Sparse(Vec::new())
    }
}

/// Distinct buckets a sparse list holds before turning dense (more made
/// the search of the list a third of `graph`'s time on a zstd trace).
const SPARSE_MAX: usize = 4;

impl Buckets {
    /// Adds `n` to bucket `b`. The usual case, a bucket inside a dense
    /// window, is one index; anything else goes to [`Buckets::add_slow`],
    /// kept out of line so the caller's loop stays small.
    #[inline(always)]
    fn add(&mut self, b: u16, n: u64) {
        if let Buckets::Dense { base, counts } = self {
            // Below `base` the index wraps past any window's length.
            if let Some(c) = counts.get_mut(b.wrapping_sub(*base) as usize) {
                *c += n;
                return;
            }
        }
        self.add_slow(b, n);
    }

    /// Adds to a sparse list, or outside a dense window.
    #[cold]
    #[inline(never)]
    fn add_slow(&mut self, b: u16, n: u64) {
        match self {
            Buckets::Dense { .. } => self.grow(b, n),
            Buckets::Sparse(list) => {
                match list.binary_search_by_key(&b, |&(k, _)| k) {
                    Ok(i) => list[i].1 += n,
                    Err(i) => list.insert(i, (b, n)),
                }
                if list.len() > SPARSE_MAX {
                    self.densify();
                }
            }
        }
    }

    /// Adds to a bucket outside a dense window, widening it.
    #[cold]
    fn grow(&mut self, b: u16, n: u64) {
        let Buckets::Dense { base, counts } = self else {
            return;
        };
        if b < *base {
            let more = (*base - b) as usize;
            counts.splice(0..0, std::iter::repeat_n(0, more));
            *base = b;
        } else {
            counts.resize(b as usize - *base as usize + 1, 0);
        }
        counts[(b - *base) as usize] += n;
    }

    fn densify(&mut self) {
        let Buckets::Sparse(list) = self else { return };
        let (lo, hi) = (list[0].0, list[list.len() - 1].0);
        let mut counts = vec![0u64; (hi - lo) as usize + 1];
        for &(b, n) in list.iter() {
            counts[(b - lo) as usize] = n;
        }
        *self = Buckets::Dense { base: lo, counts };
    }

    /// The non-empty buckets in order: (bucket, count).
    fn iter(&self) -> Box<dyn Iterator<Item = (u16, u64)> + '_> {
        match self {
            Buckets::Sparse(list) => Box::new(list.iter().copied()),
            Buckets::Dense { base, counts } => Box::new(
                counts
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| **n > 0)
                    .map(move |(i, &n)| (*base + i as u16, n)),
            ),
        }
    }

    /// Counts kept (for the memory bound).
    #[cfg(test)]
    fn len(&self) -> usize {
        match self {
            Buckets::Sparse(list) => list.len(),
            Buckets::Dense { counts, .. } => counts.len(),
        }
    }
}

impl std::fmt::Debug for Dist {
    /// The values, however the counts are stored.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dist")
            .field("min", &self.min)
            .field("max", &self.max)
            .field("max_at", &self.max_at)
            .field("count", &self.count)
            .field("sum", &self.sum)
            .field("buckets", &self.buckets.iter().collect::<Vec<_>>())
            .finish()
    }
}

impl Eq for Dist {}

impl PartialEq for Dist {
    /// Equal values, however the counts are stored.
    fn eq(&self, o: &Dist) -> bool {
        (self.min, self.max, self.max_at, self.count, self.sum)
            == (o.min, o.max, o.max_at, o.count, o.sum)
            && self.buckets.iter().eq(o.buckets.iter())
    }
}

impl Dist {
    /// Adds one call's value.
    #[inline(always)]
    pub fn add(&mut self, v: u64, at: At) {
        if self.count == 0 || v < self.min {
            self.min = v;
        }
        if self.count == 0 || v > self.max || (v == self.max && earlier(at, self.max_at)) {
            self.max = v;
            self.max_at = at;
        }
        self.count += 1;
        self.sum = self.sum.saturating_add(v);
        self.add_to_bucket(bucket_of(v), 1);
    }

    #[inline]
    fn add_to_bucket(&mut self, b: u16, n: u64) {
        self.buckets.add(b, n);
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: &Dist) {
        self.merge_counts(&other.head(), other.buckets.iter());
    }

    /// Its numbers other than the bucket counts.
    fn head(&self) -> Head {
        Head {
            min: self.min,
            max: self.max,
            max_at: self.max_at,
            count: self.count,
            sum: self.sum,
        }
    }

    /// Adds the values of a distribution given as its `head` and its
    /// non-empty `buckets` (bucket, count), as [`Dist::merge`] does.
    pub(crate) fn merge_counts(
        &mut self,
        head: &Head,
        buckets: impl IntoIterator<Item = (u16, u64)>,
    ) {
        if head.count == 0 {
            return;
        }
        if self.count == 0 || head.min < self.min {
            self.min = head.min;
        }
        let tie = head.max == self.max && earlier(head.max_at, self.max_at);
        if self.count == 0 || head.max > self.max || tie {
            self.max = head.max;
            self.max_at = head.max_at;
        }
        self.count += head.count;
        self.sum = self.sum.saturating_add(head.sum);
        for (b, n) in buckets {
            self.add_to_bucket(b, n);
        }
    }

    /// Mean value (0 with no calls).
    pub fn mean(&self) -> u64 {
        self.sum.checked_div(self.count).unwrap_or(0)
    }

    /// The `q`-quantile (0 < q <= 1) by nearest rank: the smallest value
    /// with at least `q` of the values at or below it; exact below 128 and
    /// at the first and last rank (a node of few calls: its p99 is its
    /// max), else within 1%.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        // The first and last ranks are the exact extremes.
        if rank == self.count {
            return self.max;
        }
        if rank == 1 {
            return self.min;
        }
        let mut seen = 0;
        for (b, n) in self.buckets.iter() {
            seen += n;
            if seen >= rank {
                let (low, high) = bucket_range(b);
                let mid = low + (high - low) / 2;
                return mid.clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// The non-empty buckets: `(low, high, count)`, values `low..=high`,
    /// narrowed to `[min, max]`.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.buckets.iter().map(|(b, n)| {
            let (low, high) = bucket_range(b);
            (low.max(self.min), high.min(self.max), n)
        })
    }
}

/// A distribution's numbers other than its bucket counts: what a chunk's
/// per-function accumulator hands on beside its counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Head {
    /// Smallest value.
    pub min: u64,
    /// Largest value.
    pub max: u64,
    /// The first call that reached `max`.
    pub max_at: At,
    /// Number of values (0: none, the rest is ignored).
    pub count: u64,
    /// Sum of the values (saturating).
    pub sum: u64,
}

/// One number of a distribution, as `--show` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stat {
    /// The fastest call.
    Min,
    /// The mean call.
    Mean,
    /// The median call.
    P50,
    /// The 90th percentile.
    P90,
    /// The 99th percentile.
    P99,
    /// The slowest call.
    Max,
}

impl Stat {
    /// Its name: `min`, `mean`, `p50`, `p90`, `p99`, `max`.
    pub fn name(self) -> &'static str {
        match self {
            Stat::Min => "min",
            Stat::Mean => "mean",
            Stat::P50 => "p50",
            Stat::P90 => "p90",
            Stat::P99 => "p99",
            Stat::Max => "max",
        }
    }

    /// Its value in `d`.
    pub fn of(self, d: &Dist) -> u64 {
        match self {
            Stat::Min => d.min,
            Stat::Mean => d.mean(),
            Stat::P50 => d.quantile(0.5),
            Stat::P90 => d.quantile(0.9),
            Stat::P99 => d.quantile(0.99),
            Stat::Max => d.max,
        }
    }
}

/// The per-call distributions of a node: inclusive time (`total`) and
/// self time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallDist {
    /// Inclusive time per call.
    pub total: Dist,
    /// Self time per call.
    pub self_time: Dist,
}

/// Which per-call distributions a tree keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Keep {
    /// Inclusive time per call only (what `--show`, tooltips and
    /// `compare` show). Default.
    #[default]
    Total,
    /// Inclusive and self time per call (`stats --self`).
    TotalAndSelf,
    /// Inclusive time per call, one distribution per function instead of
    /// one per calling context (what the hot graph's tooltips show): its
    /// cost grows with the functions, not with the distinct call paths.
    /// A function's distribution holds each of its calls once, from
    /// whatever context, as merging its contexts' distributions would.
    TotalByFunction,
}

impl Keep {
    /// Whether distributions are kept per function rather than per node.
    #[inline]
    pub fn by_function(self) -> bool {
        self == Keep::TotalByFunction
    }
}

/// The distribution that a call at node `node` of function `func` adds
/// to in `dists`: indexed by function when `by_function`, else by node.
/// Grows `dists` as needed, so stores need not add one per node or
/// function they create.
#[inline(always)]
pub(crate) fn slot(
    dists: &mut Vec<CallDist>,
    by_function: bool,
    node: u32,
    func: u32,
) -> &mut CallDist {
    let i = if by_function { func } else { node } as usize;
    if i >= dists.len() {
        dists.resize(i + 1, CallDist::default());
    }
    &mut dists[i]
}

impl CallDist {
    /// Adds one call (its self time only when `keep` says so).
    #[inline]
    pub fn add(&mut self, total: u64, self_time: u64, at: At, keep: Keep) {
        self.total.add(total, at);
        if keep == Keep::TotalAndSelf {
            self.self_time.add(self_time, at);
        }
    }

    /// Adds every call of `other`.
    pub fn merge(&mut self, other: &CallDist) {
        self.total.merge(&other.total);
        self.self_time.merge(&other.self_time);
    }

    /// One call of `total` (self `self_time`), where it is unknown: a node
    /// of the one-node-per-call view.
    pub fn single(total: u64, self_time: u64) -> CallDist {
        let mut d = CallDist::default();
        d.add(total, self_time, At::default(), Keep::TotalAndSelf);
        d
    }
}

/// Whether `tree` has per-call distributions, per node or per function
/// (an indented tree and an untimed one have none).
pub fn kept(tree: &super::Tree) -> bool {
    tree.has_dists() || !tree.func_dist.is_empty()
}

/// Every function's calls, by function id (`funcs` ids): those kept by
/// function, or the kept distributions of its nodes merged, or in the
/// one-node-per-call view
/// its nodes' times (where each ran is then unknown: [`At::default`]).
/// Empty when the tree has neither.
pub fn per_function(tree: &super::Tree, funcs: usize) -> Vec<CallDist> {
    let mut out = vec![CallDist::default(); funcs];
    if !tree.func_dist.is_empty() {
        for (f, d) in tree.func_dist.iter().enumerate().take(funcs) {
            out[f] = d.clone();
        }
    } else if tree.dist.len() == tree.len() {
        for (n, d) in tree.dist.iter().enumerate() {
            if let Some(f) = out.get_mut(tree.func(n as u32) as usize) {
                f.merge(d);
            }
        }
    } else if !tree.has_call_counts() {
        for n in 1..tree.len() as u32 {
            if let Some(f) = out.get_mut(tree.func(n) as usize) {
                f.add(tree.total(n), tree.self_time(n), At::default(), Keep::Total);
            }
        }
    } else {
        out.clear();
    }
    out
}

#[cfg(test)]
mod tests;
