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

pub mod analyze;
pub mod features;
pub mod groups;
pub mod patterns;
pub mod sweep;

use std::collections::BTreeSet;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::abstraction::{Method, ModuleSource};
use crate::calltree::View;
use crate::error::Result;

pub use features::Feature;
pub use groups::Groups;
pub use patterns::Pattern;
pub use sweep::Sweep;

/// A tree's stage of abstraction; the methods in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// The tree as traced.
    Before,
    /// Method 1 (caller/callee threshold) alone.
    Threshold,
    /// Method 2 (same-module merging) alone.
    Merge,
    /// Merging, then method 1.
    MergeThreshold,
}

impl Stage {
    /// Number of stages.
    pub const COUNT: usize = 4;
    /// Every stage, in report order.
    pub const ALL: [Stage; Stage::COUNT] = [
        Stage::Before,
        Stage::Threshold,
        Stage::Merge,
        Stage::MergeThreshold,
    ];
    /// The abstraction methods, in report order.
    pub const METHODS: [Stage; 3] = [Stage::Threshold, Stage::Merge, Stage::MergeThreshold];
    /// The methods that take a threshold, swept in `sweep.csv`.
    pub const SWEPT: [Stage; 2] = [Stage::Threshold, Stage::MergeThreshold];

    /// Name in the CSV files: `before`, `threshold`, `merge`, `merge+threshold`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Before => "before",
            Stage::Threshold => "threshold",
            Stage::Merge => "merge",
            Stage::MergeThreshold => "merge+threshold",
        }
    }

    /// Position in [`Stage::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The abstraction this stage runs at threshold `t` (none for `Before`).
    pub fn method(self, t: f64) -> Option<Method> {
        let (merge, threshold) = match self {
            Stage::Before => return None,
            Stage::Threshold => (false, Some(t)),
            Stage::Merge => (true, None),
            Stage::MergeThreshold => (true, Some(t)),
        };
        Some(Method { merge, threshold })
    }
}

/// What every pattern is analysed with.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The executable that serves all address traces. Default is none.
    pub binary: Option<PathBuf>,
    /// Rules file that reads every trace as a log. Default is none.
    pub rules: Option<PathBuf>,
    /// Search path and demangling style. Default is `nm -C` names, no search path.
    pub symbols: crate::symbols::SymbolOptions,
    /// Where modules come from. Default is one module for everything.
    pub modules: ModuleSource,
    /// Method 1 threshold of `rates.csv`. Default is 0.9.
    pub threshold: f64,
    /// Thresholds of `sweep.csv`. Default is 0:1:0.05.
    pub sweep: Sweep,
    /// Tree view. Default is calls.
    pub view: View,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            binary: None,
            rules: None,
            symbols: crate::symbols::SymbolOptions::default(),
            modules: ModuleSource::Single,
            threshold: 0.9,
            sweep: Sweep::default(),
            view: View::Calls,
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
    /// One per method, in [`Stage::METHODS`] order.
    pub rates: Vec<Rate>,
    /// Method 1's points, then merge+threshold's, each by ascending threshold.
    pub sweep: Vec<SweepPoint>,
    /// Distinct function names of the tree at each stage, by [`Stage::index`].
    pub functions: [BTreeSet<String>; Stage::COUNT],
    /// Problems met while loading, one line each.
    pub warnings: Vec<String>,
}

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
}

/// Analyses `patterns` (sorted by name, names unique) in parallel and
/// compares them. `done` is called once per finished pattern (from worker
/// threads), e.g. to advance a progress bar. The first failing pattern in
/// name order decides the error, so it does not depend on thread timing.
pub fn compare(patterns: &[Pattern], config: &Config, done: &(dyn Fn() + Sync)) -> Result<Report> {
    let results: Vec<Result<PatternReport>> = patterns
        .par_iter()
        .map(|p| {
            let r = analyze::pattern(p, config);
            done();
            r
        })
        .collect();
    let patterns = results.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(Report {
        config: config.clone(),
        groups: Groups::of(&patterns),
        features: features::find(&patterns),
        patterns,
    })
}

/// `part / whole`, 1 when `whole` is 0.
pub fn ratio(part: usize, whole: usize) -> f64 {
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
    fn stages_are_in_report_order_with_their_methods() {
        let names: Vec<_> = Stage::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["before", "threshold", "merge", "merge+threshold"]);
        assert!(Stage::ALL.iter().enumerate().all(|(i, s)| s.index() == i));
        assert_eq!(Stage::Before.method(0.9), None);
        for s in Stage::METHODS {
            assert_eq!(s.method(0.5).unwrap().name(), s.name());
        }
    }
}
