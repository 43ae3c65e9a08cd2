//! `calltrace diff`: what changed between two runs (or two sets of
//! repeated runs) of a program, row by row, and why. Rows are functions or
//! calling contexts matched by name ([`profile`]), so two builds line up.
//! Each side's value of a row is the median over its runs; a difference
//! in self time is split into a part due to the change in calls and a
//! part due to the change in time per call ([`Change`]):
//!
//! ΔT = (c_new − c_base)·t̄_base + c_new·(t̄_new − t̄_base)
//!
//! where c is the number of calls and t̄ the self time per call. The larger
//! term names the change. A change in time counts only when it is at least
//! `--min-change` of the base run's total and, with two or more runs on
//! each side, beyond their noise: the two sides' per-run values must not
//! overlap (for 5 runs against 5, the exact two-sided Mann-Whitney bound:
//! p = 2/252 ≈ 0.008 under no change), and the medians must differ by
//! more than the wider of the two ranges, on a log scale (the noise of a
//! time grows with it), so that the descheduled time a loaded machine adds
//! to a few runs cannot make a change. With one run on a side a change in
//! time cannot be told from noise: a row whose time alone changed is
//! [`Change::Untested`], not a finding. Call counts of a deterministic
//! program are exact, so any difference in them counts.

pub(crate) mod graph;
pub(crate) mod profile;

use std::collections::BTreeSet;

use crate::stats::contexts::{ContextId, Contexts, escaped_len};

pub(crate) use graph::{Prune, Union, union};
#[cfg(test)]
pub(crate) use profile::EdgeWeight;
pub(crate) use profile::{By, Catalog, Key, Profile, Stats};

use crate::ingest::Unit;

/// How the base side is scaled before subtracting (`--normalize`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Normalize {
    /// No scaling: runs of one workload. Default.
    #[default]
    None,
    /// Base times scaled so its total equals the new side's (as pprof's
    /// `-normalize`); call counts are left as they are.
    Total,
}

/// How a row changed from base to new.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Called in new, never in base.
    Added,
    /// Called in base, never in new.
    Removed,
    /// Mostly because it is called more often.
    MoreCalls,
    /// Mostly because it is called less often.
    FewerCalls,
    /// Mostly because each call takes longer.
    SlowerPerCall,
    /// Mostly because each call takes less time.
    FasterPerCall,
    /// Only its time changed, by at least `--min-change`, with one run on
    /// a side: a change that cannot be told from noise.
    Untested,
    /// No change beyond `--min-change` and the noise of repeated runs.
    Same,
}

impl Change {
    /// Whether the row is a finding: not `same`, and not a change in time
    /// that could not be tested against noise.
    pub fn is_finding(self) -> bool {
        !matches!(self, Change::Same | Change::Untested)
    }

    /// The label in every output.
    pub fn label(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::MoreCalls => "more calls",
            Change::FewerCalls => "fewer calls",
            Change::SlowerPerCall => "slower per call",
            Change::FasterPerCall => "faster per call",
            Change::Untested => "untested",
            Change::Same => "same",
        }
    }
}

/// What counts as a change (`--min-change`) and how the base side is
/// scaled (`--normalize`), with their documented defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangeRule {
    /// A change in time below this share of the base total is `same`.
    /// Default is 0.01 (1%).
    pub min_change: f64,
    /// How the base side is scaled. Default is none.
    pub normalize: Normalize,
}

impl ChangeRule {
    /// The default `--min-change`: 1% of the base run's total.
    pub const DEFAULT_MIN_CHANGE: f64 = 0.01;
}

impl Default for ChangeRule {
    fn default() -> Self {
        ChangeRule {
            min_change: ChangeRule::DEFAULT_MIN_CHANGE,
            normalize: Normalize::None,
        }
    }
}

/// One row: a function or context on both sides (medians over runs).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The function's key: its name and source file name.
    pub key: Key,
    /// The calling context, by context: an id in [`Diff`]'s contexts,
    /// whose path [`Diff::path`] writes.
    pub context: Option<ContextId>,
    /// Its id in the [`Catalog`]: the key's, or the context's.
    pub(crate) id: u32,
    /// The source file as the debug information names it (new side first).
    pub file: Option<String>,
    /// Base side's weights (scaled by `--normalize total`).
    pub base: Stats,
    /// New side's weights.
    pub new: Stats,
    /// The attribution of the change.
    pub change: Change,
}

impl Row {
    /// New self weight minus base self weight.
    pub fn delta_self(&self) -> i128 {
        self.new.self_weight as i128 - self.base.self_weight as i128
    }

    /// New total weight minus base total weight.
    pub fn delta_total(&self) -> i128 {
        self.new.total as i128 - self.base.total as i128
    }

    /// The function's name, exactly.
    pub fn function(&self) -> &str {
        &self.key.name
    }
}

/// The result: rows sorted by |Δself| (largest first), then by name.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// What the weights count on both sides (calls when either is untimed).
    pub unit: Unit,
    /// Decimal places of fixed-point weights.
    pub decimals: u8,
    /// Base side's total (median over its runs, scaled by `--normalize`).
    pub base_total: u64,
    /// New side's total (median over its runs).
    pub new_total: u64,
    /// Number of runs on each side.
    pub runs: (usize, usize),
    /// The rows.
    pub rows: Vec<Row>,
    /// The contexts of the rows (by context) with their functions' names.
    contexts: Contexts,
    names: Vec<String>,
}

impl Diff {
    /// Whether weights are times (so changes per call mean something).
    pub fn timed(&self) -> bool {
        self.unit != Unit::Calls
    }

    /// Whether changes in time were tested against the noise of repeated
    /// runs: timed, with two or more runs on each side.
    pub fn time_tested(&self) -> bool {
        self.timed() && self.runs.0 >= 2 && self.runs.1 >= 2
    }

    /// What a row is called: a context's path (its names from the top
    /// joined by `;`, a `;` or `\` inside a name escaped with `\`), or the
    /// function's name.
    pub fn path(&self, r: &Row) -> String {
        match r.context {
            Some(c) => self.contexts.path(c, |l| self.names[l as usize].as_str()),
            None => r.key.name.clone(),
        }
    }

    /// What the table shows for a row: [`Diff::path`], with the middle of
    /// a deep context's path left out (`main;f;…(39990 more)…;f;f`).
    pub fn shown_path(&self, r: &Row) -> String {
        match r.context {
            Some(c) => self.contexts.shown_path(c, crate::stats::SHOWN_NAMES, |l| {
                self.names[l as usize].as_str()
            }),
            None => r.key.name.clone(),
        }
    }

    /// The bytes of every row's [`Diff::path`] (0 by function), without
    /// writing them.
    pub fn path_bytes(&self) -> u64 {
        let lens = self.path_lengths();
        self.rows
            .iter()
            .filter_map(|r| r.context.map(|c| lens[c as usize]))
            .fold(0u64, u64::saturating_add)
    }

    /// Each context's path length in bytes.
    pub(crate) fn path_lengths(&self) -> Vec<u64> {
        self.contexts
            .path_lengths(|l| escaped_len(&self.names[l as usize]))
    }

    /// The deepest context's depth (0 by function).
    pub fn depth(&self) -> u32 {
        self.contexts.depths().into_iter().max().unwrap_or(0)
    }

    /// The contexts the rows refer to (empty by function).
    pub(crate) fn contexts(&self) -> &Contexts {
        &self.contexts
    }

    /// The name a context's label stands for.
    pub(crate) fn label_name(&self, label: u32) -> &str {
        &self.names[label as usize]
    }

    /// Rows not `same` whose self weight grew by more than `share` of the
    /// base total: what `--fail-above` gates on. `untested` rows count: a
    /// gate does not pass because one run a side could not test a change.
    pub fn grown_above(&self, share: f64) -> Vec<&Row> {
        let limit = share * self.base_total as f64;
        self.rows
            .iter()
            .filter(|r| r.change != Change::Same && r.delta_self() as f64 > limit)
            .collect()
    }
}

/// Compares the runs of two sides, whose names are in `cat`. Every run
/// must count the same thing (`run::diff` refuses runs that do not).
pub(crate) fn diff(base: &[Profile], new: &[Profile], cat: &Catalog, opts: &ChangeRule) -> Diff {
    let timed = base.iter().chain(new).all(|p| p.unit != Unit::Calls);
    let unit = if timed {
        new.first().map_or(Unit::Nanos, |p| p.unit)
    } else {
        Unit::Calls
    };
    let new_total = median(new.iter().map(|p| p.total));
    let raw_base_total = median(base.iter().map(|p| p.total));
    let scale = match opts.normalize {
        Normalize::Total if raw_base_total > 0 => new_total as f64 / raw_base_total as f64,
        _ => 1.0,
    };
    let base_total = scaled(raw_base_total, scale);
    let by = new.iter().chain(base).next().map_or(By::Function, |p| p.by);
    let ids: BTreeSet<u32> = base
        .iter()
        .chain(new)
        .flat_map(|p| p.rows.keys().copied())
        .collect();
    let cx = Context {
        timed,
        tested: base.len() >= 2 && new.len() >= 2,
        scale,
        min: opts.min_change * base_total as f64,
    };
    let mut rows: Vec<Row> = ids
        .into_iter()
        .map(|id| cx.row(id, cat, by, base, new))
        .collect();
    rows.sort_by(|a, b| {
        b.delta_self()
            .abs()
            .cmp(&a.delta_self().abs())
            .then_with(|| a.key.cmp(&b.key))
            .then(a.context.cmp(&b.context))
    });
    let (contexts, names) = match by {
        By::Function => (Contexts::default(), Vec::new()),
        By::Context => (cat.contexts.clone(), cat.names()),
    };
    Diff {
        unit,
        decimals: new.first().map_or(0, |p| p.decimals),
        base_total,
        new_total,
        runs: (base.len(), new.len()),
        rows,
        contexts,
        names,
    }
}

/// What every row's comparison needs.
struct Context {
    timed: bool,
    /// Two or more runs on each side: time changes can be tested.
    tested: bool,
    /// Factor the base side's weights are multiplied by.
    scale: f64,
    /// The smallest change in self weight that counts.
    min: f64,
}

impl Context {
    fn row(&self, id: u32, cat: &Catalog, by: By, base: &[Profile], new: &[Profile]) -> Row {
        let b: Vec<Stats> = base.iter().map(|p| self.stats(p, id, self.scale)).collect();
        let n: Vec<Stats> = new.iter().map(|p| self.stats(p, id, 1.0)).collect();
        let (bm, nm) = (medians(&b), medians(&n));
        let key_id = match by {
            By::Function => id,
            By::Context => cat.contexts.label(id),
        };
        let file = new
            .iter()
            .chain(base)
            .find_map(|p| p.files.get(&key_id).cloned());
        Row {
            key: cat.key(key_id).clone(),
            context: (by == By::Context).then_some(id),
            id,
            file,
            base: bm,
            new: nm,
            change: self.change(&b, &n, bm, nm),
        }
    }

    fn stats(&self, p: &Profile, id: u32, scale: f64) -> Stats {
        let s = p.rows.get(&id).copied().unwrap_or_default();
        if !self.timed {
            // Untimed: the weights are counts, compared as they are.
            return s;
        }
        Stats {
            calls: s.calls,
            self_weight: scaled(s.self_weight, scale),
            total: scaled(s.total, scale),
        }
    }

    fn change(&self, b: &[Stats], n: &[Stats], bm: Stats, nm: Stats) -> Change {
        match (bm.calls, nm.calls) {
            (0, c) if c > 0 => return Change::Added,
            (c, 0) if c > 0 => return Change::Removed,
            _ => {}
        }
        let by_calls = || {
            if nm.calls > bm.calls {
                Change::MoreCalls
            } else {
                Change::FewerCalls
            }
        };
        let counts_differ = bm.calls != nm.calls;
        if self.timed && !self.tested {
            // One run on a side: only the counts are exact.
            return match (counts_differ, self.beyond_min(bm, nm)) {
                (true, _) => by_calls(),
                (false, true) => Change::Untested,
                (false, false) => Change::Same,
            };
        }
        if !self.timed || !self.time_changed(b, n, bm, nm) {
            return if counts_differ {
                by_calls()
            } else {
                Change::Same
            };
        }
        let (from_calls, per_call) = attribute(bm, nm);
        if from_calls.abs() >= per_call.abs() {
            by_calls()
        } else if per_call > 0.0 {
            Change::SlowerPerCall
        } else {
            Change::FasterPerCall
        }
    }

    /// Whether self time changed by at least the minimum and beyond the
    /// noise of repeated runs: their ranges do not overlap, and the
    /// medians differ by more than the wider range, on a log scale (the
    /// noise of a time grows with it).
    fn time_changed(&self, b: &[Stats], n: &[Stats], bm: Stats, nm: Stats) -> bool {
        if !self.beyond_min(bm, nm) {
            return false;
        }
        let ln = |v: u64| (v as f64).ln_1p();
        let range = |s: &[Stats]| {
            let it = s.iter().map(|s| s.self_weight);
            (it.clone().min().unwrap_or(0), it.max().unwrap_or(0))
        };
        let ((b_lo, b_hi), (n_lo, n_hi)) = (range(b), range(n));
        let apart = n_lo > b_hi || n_hi < b_lo;
        let wider = (ln(b_hi) - ln(b_lo)).max(ln(n_hi) - ln(n_lo));
        apart && (ln(nm.self_weight) - ln(bm.self_weight)).abs() > wider
    }
}

impl Context {
    /// Whether self time changed by at least `--min-change`.
    fn beyond_min(&self, bm: Stats, nm: Stats) -> bool {
        let delta = nm.self_weight as f64 - bm.self_weight as f64;
        delta != 0.0 && delta.abs() >= self.min
    }
}

/// The two terms of ΔT = (c_new − c_base)·t̄_base + c_new·(t̄_new − t̄_base),
/// with t̄ the self weight per call.
pub(crate) fn attribute(base: Stats, new: Stats) -> (f64, f64) {
    let per = |s: Stats| {
        if s.calls == 0 {
            0.0
        } else {
            s.self_weight as f64 / s.calls as f64
        }
    };
    let (tb, tn) = (per(base), per(new));
    let calls = (new.calls as f64 - base.calls as f64) * tb;
    let per_call = new.calls as f64 * (tn - tb);
    (calls, per_call)
}

/// Self weight per call, rounded to the nearest unit; None without calls.
pub(crate) fn per_call(s: Stats) -> Option<u64> {
    (s.calls > 0).then(|| ((s.self_weight as u128 + s.calls as u128 / 2) / s.calls as u128) as u64)
}

fn scaled(v: u64, scale: f64) -> u64 {
    if scale == 1.0 {
        v
    } else {
        (v as f64 * scale).round() as u64
    }
}

/// The median of each weight separately.
fn medians(s: &[Stats]) -> Stats {
    Stats {
        calls: median(s.iter().map(|s| s.calls)),
        self_weight: median(s.iter().map(|s| s.self_weight)),
        total: median(s.iter().map(|s| s.total)),
    }
}

/// The median; of an even count, the mean of the middle two (rounded
/// down); 0 when empty.
pub(crate) fn median(values: impl Iterator<Item = u64>) -> u64 {
    let mut v: Vec<u64> = values.collect();
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        ((v[m - 1] as u128 + v[m] as u128) / 2) as u64
    }
}

#[cfg(test)]
mod tests;
