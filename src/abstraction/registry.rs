//! The named methods `compare` evaluates, each a list of passes. Adding a
//! method is one line here (plus its pass's file); `compare`'s stages,
//! table columns, CSV rows and plots follow this list.

use super::global::MinTotal;
use super::merge::Merge;
use super::pass::Pass;
use super::recursion::FoldRecursion;
use super::share::Share;
use super::threshold::Threshold;

/// The paper's method 1 threshold, the default of `compare --threshold`.
pub(crate) const DEFAULT_THRESHOLD: Share = Share::constant(0.9);

/// The numbers a method may take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MethodParams {
    /// Method 1 threshold. Default is [`DEFAULT_THRESHOLD`], 90%.
    pub threshold: Share,
    /// Whole-trace threshold. Default is 0.1%.
    pub min_total: Share,
}

impl Default for MethodParams {
    fn default() -> Self {
        MethodParams {
            threshold: DEFAULT_THRESHOLD,
            min_total: super::pipeline::RECOMMENDED_MIN_TOTAL,
        }
    }
}

/// Which parameter a method shows in the `threshold` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// None.
    Nothing,
    /// Method 1's threshold (and the method is swept in `sweep.csv`).
    Threshold,
    /// The whole-trace threshold.
    MinTotal,
}

/// One method of `compare`.
#[derive(Debug, Clone, Copy)]
pub struct MethodSpec {
    /// Name in tables: `threshold`, `merge`, `merge+threshold`, ...
    pub name: &'static str,
    /// Whether it merges first (so its sweep starts from the merged tree).
    pub merges: bool,
    /// Its parameter in the `threshold` column.
    pub shown: Shown,
    /// Its passes.
    pub passes: fn(&MethodParams) -> Vec<Box<dyn Pass>>,
}

impl MethodSpec {
    /// The value of its `threshold` column.
    pub fn shown_value(&self, p: &MethodParams) -> Option<f64> {
        match self.shown {
            Shown::Nothing => None,
            Shown::Threshold => Some(p.threshold.get()),
            Shown::MinTotal => Some(p.min_total.get()),
        }
    }
}

/// Every method `compare` runs, in report order.
pub(crate) const METHODS: &[MethodSpec] = &[
    MethodSpec {
        name: "threshold",
        merges: false,
        shown: Shown::Threshold,
        passes: |p| vec![Box::new(Threshold(p.threshold))],
    },
    MethodSpec {
        name: "merge",
        merges: true,
        shown: Shown::Nothing,
        passes: |_| vec![Box::new(Merge)],
    },
    MethodSpec {
        name: "merge+threshold",
        merges: true,
        shown: Shown::Threshold,
        passes: |p| vec![Box::new(Merge), Box::new(Threshold(p.threshold))],
    },
    MethodSpec {
        name: "global",
        merges: false,
        shown: Shown::MinTotal,
        passes: |p| vec![Box::new(MinTotal(p.min_total))],
    },
    MethodSpec {
        name: "merge+global",
        merges: true,
        shown: Shown::MinTotal,
        passes: |p| vec![Box::new(Merge), Box::new(MinTotal(p.min_total))],
    },
    MethodSpec {
        name: "merge+fold+global",
        merges: true,
        shown: Shown::MinTotal,
        passes: |p| {
            vec![
                Box::new(Merge),
                Box::new(FoldRecursion),
                Box::new(MinTotal(p.min_total)),
            ]
        },
    },
];
