//! Flags of `calltrace diff`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::common::{ByArg, ReadArgs, TimeUnitArgs};
use crate::abstraction::Share;
use crate::diff::{By, ChangeRule, Normalize, Prune};
use crate::run::diff::DiffOptions;

pub(super) const DIFF_HELP: &str =
    "BASE and NEW are each a trace, or a directory of traces of repeated runs
(medians are compared, and a change in time counts only beyond the runs' noise).
The binaries come from the traces, so BASE and NEW may be different builds.

change says why a row changed: added, removed, more calls, fewer calls,
slower per call, faster per call, or same.

Examples:
  calltrace diff old.txt new.txt
  calltrace diff runs-v1/ runs-v2/ --csv diff.csv --fail-above 2%";

/// Flags of `calltrace diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The base run: a trace, or a directory of traces of repeated runs
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// The new run: a trace, or a directory of traces of repeated runs
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    // Shared flags first, then this command's: the order of every command's -h.
    /// How traces are read and functions named.
    #[command(flatten)]
    pub read: ReadArgs,
    /// One row per function (calling contexts rolled up) or per calling context
    #[arg(long, value_enum, default_value = "function")]
    pub by: ByArg,
    /// A change in time smaller than this share of the base run's total is `same`: 1% or 0.01
    #[arg(long, value_name = "P", default_value_t = Share::constant(ChangeRule::DEFAULT_MIN_CHANGE), allow_negative_numbers = true)]
    pub min_change: Share,
    /// Scale the base run's times so its total equals the new run's (as pprof -normalize)
    #[arg(long, value_enum, default_value = "none")]
    pub normalize: NormalizeArg,
    /// Exit with status 3 when a function's self time grew by more than this share of the base total (beyond the noise): 2% or 0.02
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub fail_above: Option<Share>,
    /// Rows shown on stdout
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
    /// Write every row as CSV
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write every row as JSON
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write both sides' call graphs as one DOT graph, coloured by change (render with dot -Tsvg)
    #[arg(short, long, value_name = "FILE.dot")]
    pub output: Option<PathBuf>,
    /// Write a differential flame graph (SVG): widths from NEW, red where NEW spends more, blue where less
    #[arg(long, value_name = "FILE.svg")]
    pub flamegraph: Option<PathBuf>,
    /// Write the same flame graph with widths from BASE, where code NEW no longer runs stays visible
    #[arg(long, value_name = "FILE.svg")]
    pub flamegraph_removed: Option<PathBuf>,
    /// In the graph, leave out functions under this share of the larger side's total: 0.5% or 0.005
    #[arg(long, value_name = "P", default_value_t = Share::constant(Prune::DEFAULT.min_total), allow_negative_numbers = true)]
    pub min_total: Share,
    /// In the graph, leave out edges under this share of the larger side's total: 0.1% or 0.001
    #[arg(long, value_name = "P", default_value_t = Share::constant(Prune::DEFAULT.min_edge), allow_negative_numbers = true)]
    pub min_edge: Share,
    /// The unit times are shown in.
    #[command(flatten)]
    pub time: TimeUnitArgs,
}

/// `--normalize` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NormalizeArg {
    /// Compare times as they are
    None,
    /// Scale the base run's times to the new run's total
    Total,
}

impl DiffArgs {
    /// Converts the flags into [`DiffOptions`].
    pub fn into_options(self) -> DiffOptions {
        // Each side's traces are set per trace; binaries come from them.
        let input = self.read.into_options(PathBuf::new(), None);
        DiffOptions {
            base: self.base,
            new: self.new,
            input,
            by: match self.by {
                ByArg::Function => By::Function,
                ByArg::Context => By::Context,
            },
            diff: ChangeRule {
                min_change: self.min_change.get(),
                normalize: match self.normalize {
                    NormalizeArg::None => Normalize::None,
                    NormalizeArg::Total => Normalize::Total,
                },
            },
            fail_above: self.fail_above.map(Share::get),
            flamegraph: self.flamegraph,
            flamegraph_removed: self.flamegraph_removed,
            top: self.top,
            csv: self.csv,
            json: self.json,
            dot: self.output,
            prune: Prune {
                min_total: self.min_total.get(),
                min_edge: self.min_edge.get(),
            },
            time_unit: self.time.time_unit.into(),
        }
    }
}
