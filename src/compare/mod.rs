//! Multi-pattern comparison, the abstraction paper's evaluation as data:
//! every test pattern (one trace of the product) is loaded through the
//! [`pipeline`](crate::pipeline), abstracted by each method
//! ([`analyze`]: node counts, time explained, the threshold [`sweep`], and
//! the set of functions left at each [`Stage`]), and the patterns are then
//! compared with each other: which ones share a function set ([`groups`])
//! and which functions only one pattern has ([`features`]). Patterns are
//! independent, so they are analysed in parallel (rayon), each worker
//! dropping its trees once it has the numbers. `emit` turns a [`Report`]
//! into CSV and SVG; nothing here writes files.

pub(crate) mod analyze;
pub(crate) mod features;
pub(crate) mod groups;
pub(crate) mod patterns;
pub(crate) mod sweep;

use crate::coverage::Coverage;
use std::collections::BTreeSet;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::abstraction::pipeline::RECOMMENDED_MIN_TOTAL;
use crate::abstraction::registry::{DEFAULT_THRESHOLD, METHODS, MethodParams, MethodSpec};
use crate::abstraction::{ModuleSource, Share};
use crate::calltree::View;
use crate::error::Result;
use crate::pipeline::InputOptions;

pub(crate) use features::Feature;
pub(crate) use groups::Groups;
pub(crate) use patterns::Pattern;
pub(crate) use sweep::Sweep;

/// A tree's stage of abstraction: `before`, then the methods of
/// [`METHODS`] in their order (stage `i` is method `i - 1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stage(u8);

impl Stage {
    /// Number of stages: `before` and every registered method.
    pub const COUNT: usize = 1 + METHODS.len();
    /// The tree as traced.
    pub const BEFORE: Stage = Stage(0);

    /// Every stage, in report order.
    pub fn all() -> impl Iterator<Item = Stage> {
        (0..Stage::COUNT as u8).map(Stage)
    }

    /// The abstraction methods, in report order.
    pub fn methods() -> impl Iterator<Item = Stage> {
        (1..Stage::COUNT as u8).map(Stage)
    }

    /// The method stage called `name`, if registered.
    pub fn named(name: &str) -> Option<Stage> {
        Stage::methods().find(|s| s.name() == name)
    }

    /// Method 1 alone (swept in `sweep.csv`).
    pub fn threshold() -> Stage {
        Stage::named("threshold").expect("method 1 is registered")
    }

    /// Method 2 alone.
    pub fn merge() -> Stage {
        Stage::named("merge").expect("merge is registered")
    }

    /// Merging then method 1 (swept in `sweep.csv`).
    pub fn merge_threshold() -> Stage {
        Stage::named("merge+threshold").expect("merge+threshold is registered")
    }

    /// Name in the CSV files: `before`, `threshold`, `merge`, ...
    pub fn name(self) -> &'static str {
        self.spec().map_or("before", |m| m.name)
    }

    /// Position in [`Stage::all`].
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The method of this stage (none for `before`).
    pub fn spec(self) -> Option<&'static MethodSpec> {
        (self.0 > 0).then(|| &METHODS[self.0 as usize - 1])
    }
}

/// What every pattern is analysed with: the one definition of `compare`'s
/// settings, which the command line fills in.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// How every trace is read: the executable that serves all address
    /// traces, rules, format, lenient parsing, threads, names, progress.
    /// Its `trace` is unused (each pattern has its own). Default is
    /// [`InputOptions::default`].
    pub input: InputOptions,
    /// Where modules come from. Default is one module for everything.
    pub modules: ModuleSource,
    /// Method 1 threshold of `rates.csv`. Default is [`DEFAULT_THRESHOLD`], 90%.
    pub threshold: Share,
    /// Thresholds of `sweep.csv`. Default is 0:1:0.05.
    pub sweep: Sweep,
    /// Tree view. Default is calls.
    pub view: View,
    /// Whole-trace threshold of the `global` methods. Default is
    /// [`RECOMMENDED_MIN_TOTAL`], 0.1%.
    pub min_total: Share,
    /// Protect every pattern's distinguishing functions in every method's
    /// output. Default is false.
    pub keep_features: bool,
    /// Where the `--object` objects of `input` lie at runtime (found once
    /// by the command), for the coverage of the traced functions. Default
    /// is none.
    pub given: Vec<crate::symbols::GivenSegment>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            input: InputOptions::default(),
            modules: ModuleSource::Single,
            threshold: DEFAULT_THRESHOLD,
            sweep: Sweep::default(),
            view: View::Calls,
            min_total: RECOMMENDED_MIN_TOTAL,
            keep_features: false,
            given: Vec::new(),
        }
    }
}

impl Config {
    /// The numbers the methods take.
    pub fn params(&self) -> MethodParams {
        MethodParams {
            threshold: self.threshold,
            min_total: self.min_total,
        }
    }
}

/// One method's result on one pattern (a row of `rates.csv`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// The method.
    pub stage: Stage,
    /// Its threshold, if it takes one.
    pub threshold: Option<f64>,
    /// Call nodes before.
    pub nodes_before: usize,
    /// Call nodes after.
    pub nodes_after: usize,
    /// Share of the root's total covered by the kept nodes' self times.
    pub time_explained: f64,
}

impl Rate {
    /// nodes after / nodes before (1 for an empty tree).
    pub fn kept_ratio(&self) -> f64 {
        ratio(self.nodes_after, self.nodes_before)
    }
}

/// One point of the sweep (a row of `sweep.csv`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepPoint {
    /// `Threshold` or `MergeThreshold`.
    pub stage: Stage,
    /// The threshold.
    pub threshold: f64,
    /// Call nodes after.
    pub nodes_after: usize,
    /// nodes after / nodes before.
    pub kept_ratio: f64,
}

/// Everything measured on one pattern; its trees are gone.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternReport {
    /// The pattern's name.
    pub name: String,
    /// Its trace.
    pub path: PathBuf,
    /// Call nodes of the unabstracted tree.
    pub nodes_before: usize,
    /// One per method, in [`Stage::methods`] order.
    pub rates: Vec<Rate>,
    /// Method 1's points, then merge+threshold's, each by ascending threshold.
    pub sweep: Vec<SweepPoint>,
    /// Distinct function names of the tree at each stage, by [`Stage::index`].
    pub functions: [BTreeSet<String>; Stage::COUNT],
    /// Problems met while loading, one line each.
    pub warnings: Vec<String>,
    /// The functions with the most self time (calls when untimed), most first.
    pub top: Vec<TopFunction>,
    /// The [`TOP_FUNCTIONS`] functions with the slowest single call; empty
    /// for an untimed trace.
    pub slowest: Vec<SlowFunction>,
    /// What the weights of `top` count.
    pub unit: crate::ingest::Unit,
    /// Its called functions placed in their objects, for the coverage.
    pub traced: Vec<crate::coverage::Placed>,
}

/// One of a pattern's heaviest functions (before abstraction).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopFunction {
    /// Its name.
    pub name: String,
    /// Number of calls.
    pub calls: u64,
    /// Self weight over all its calls.
    pub self_weight: u64,
    /// Total weight of its outermost calls.
    pub total: u64,
}

/// A function whose slowest call was among a pattern's slowest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowFunction {
    /// Its name.
    pub name: String,
    /// Number of calls.
    pub calls: u64,
    /// The 99th percentile of a call's inclusive time (within 1%).
    pub p99: u64,
    /// The slowest call's inclusive time.
    pub max: u64,
    /// Where the slowest call ran: thread id and start after the trace's
    /// first event; None when the tree did not keep it (calls view).
    pub at: Option<(u64, u64)>,
}

/// How many functions [`PatternReport::top`] keeps.
pub(crate) const TOP_FUNCTIONS: usize = 10;

impl PatternReport {
    /// The distinct functions at stage `s`.
    pub fn functions(&self, s: Stage) -> &BTreeSet<String> {
        &self.functions[s.index()]
    }

    /// The rate of method `s` (`Before` gives the unabstracted counts).
    pub fn rate(&self, s: Stage) -> Option<&Rate> {
        self.rates.iter().find(|r| r.stage == s)
    }
}

/// The comparison of all patterns.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The settings used.
    pub config: Config,
    /// The patterns, sorted by name.
    pub patterns: Vec<PatternReport>,
    /// Groups of equal function sets, per stage.
    pub groups: Groups,
    /// Distinguishing functions, by pattern then name.
    pub features: Vec<Feature>,
    /// With `keep_features`: per pattern, per method, the nodes the method
    /// keeps without protection (the protected counts are in `rates`).
    pub unprotected: Option<Vec<Vec<usize>>>,
    /// Every function of the patterns' instrumented objects with its calls
    /// per pattern (`coverage.csv`); empty when no object could be read.
    pub coverage: Coverage,
}

/// Analyses `patterns` (sorted by name, names unique) in parallel and
/// compares them. `done` is called once per finished pattern (from worker
/// threads), e.g. to advance a progress bar. The first failing pattern in
/// name order decides the error, so it does not depend on thread timing.
///
/// With `keep_features` every pattern is analysed twice: once to find the
/// distinguishing functions, once with them protected.
pub(crate) fn compare(
    patterns: &[Pattern],
    config: &Config,
    done: &(dyn Fn() + Sync),
) -> Result<Report> {
    let none = BTreeSet::new();
    let first = analyze_all(patterns, config, &|_| &none, done)?;
    let features = features::find(&first);
    if !config.keep_features {
        return Ok(Report {
            config: config.clone(),
            groups: Groups::of(&first),
            features,
            coverage: coverage(&first, config)?,
            patterns: first,
            unprotected: None,
        });
    }
    let mut protect: Vec<BTreeSet<String>> = vec![BTreeSet::new(); first.len()];
    for f in &features {
        protect[f.pattern].insert(f.function.clone());
    }
    let second = analyze_all(patterns, config, &|i| &protect[i], &|| {})?;
    let unprotected = first
        .iter()
        .map(|p| p.rates.iter().map(|r| r.nodes_after).collect())
        .collect();
    Ok(Report {
        config: config.clone(),
        groups: Groups::of(&second),
        features: features::find(&second),
        coverage: coverage(&second, config)?,
        patterns: second,
        unprotected: Some(unprotected),
    })
}

/// The coverage of the patterns' traced functions, in pattern order.
fn coverage(patterns: &[PatternReport], config: &Config) -> Result<Coverage> {
    let look = lookup(config);
    let mut collector = crate::coverage::Collector::default();
    for p in patterns {
        collector.add_placed(&p.name, &p.traced, &look)?;
    }
    Ok(collector.finish())
}

/// How objects are found and named, as the patterns' traces were.
pub(crate) fn lookup(config: &Config) -> crate::coverage::Lookup<'_> {
    crate::coverage::Lookup {
        binary: config.input.binary.as_deref(),
        search_path: &config.input.symbols.search_path,
        debug_dirs: &config.input.symbols.debug_dirs,
        style: config.input.symbols.demangle,
        given: &config.given,
    }
}

fn analyze_all<'a>(
    patterns: &[Pattern],
    config: &Config,
    protect: &(dyn Fn(usize) -> &'a BTreeSet<String> + Sync),
    done: &(dyn Fn() + Sync),
) -> Result<Vec<PatternReport>> {
    let results: Vec<Result<PatternReport>> = patterns
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let r = analyze::pattern(p, config, protect(i));
            done();
            r
        })
        .collect();
    results.into_iter().collect()
}

/// `part / whole`, 1 when `whole` is 0.
pub(crate) fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_follow_the_method_registry() {
        let names: Vec<_> = Stage::all().map(|s| s.name()).collect();
        assert_eq!(
            names,
            [
                "before",
                "threshold",
                "merge",
                "merge+threshold",
                "global",
                "merge+global",
                "merge+fold+global"
            ]
        );
        assert!(Stage::all().enumerate().all(|(i, s)| s.index() == i));
        assert_eq!(Stage::COUNT, METHODS.len() + 1);
        assert!(Stage::BEFORE.spec().is_none());
        assert_eq!(Stage::threshold().index(), 1);
        assert_eq!(Stage::merge().name(), "merge");
        assert_eq!(Stage::merge_threshold().name(), "merge+threshold");
    }
}
