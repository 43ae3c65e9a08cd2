//! Flags of `calltrace diff`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{SymbolArgs, TimeUnitArg};
use crate::diff::{By, DiffOptions, Normalize};
use crate::pipeline::InputOptions;
use crate::run::diff::DiffCommand;

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
    /// One row per function (calling contexts rolled up) or per calling context
    #[arg(long, value_enum, default_value = "function")]
    pub by: ByArg,
    /// A change in time smaller than this share of the base run's total is `same`: 1% or 0.01
    #[arg(long, value_name = "P", default_value = "1%", value_parser = parse_share)]
    pub min_change: f64,
    /// Scale the base run's times so its total equals the new run's (as pprof -normalize)
    #[arg(long, value_enum, default_value = "none")]
    pub normalize: NormalizeArg,
    /// Exit with status 3 when a function's self time grew by more than this share of the base total (beyond the noise): 2% or 0.02
    #[arg(long, value_name = "P", value_parser = parse_share)]
    pub fail_above: Option<f64>,
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
    #[arg(long, value_name = "P", default_value = "0.5%", value_parser = parse_share)]
    pub min_total: f64,
    /// In the graph, leave out edges under this share of the larger side's total: 0.1% or 0.001
    #[arg(long, value_name = "P", default_value = "0.1%", value_parser = parse_share)]
    pub min_edge: f64,
    /// Unit of the times shown
    #[arg(long, value_enum, default_value = "auto")]
    pub time_unit: TimeUnitArg,
    /// Skip malformed lines (and count them) instead of stopping at the first
    #[arg(long)]
    pub lenient: bool,
    #[command(flatten)]
    pub symbols: SymbolArgs,
    /// No progress bar while a big trace is read
    #[arg(short, long)]
    pub quiet: bool,
}

/// `--by` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    /// One row per function
    Function,
    /// One row per calling context (path of names), with a `path` column
    Context,
}

/// `--normalize` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NormalizeArg {
    /// Compare times as they are
    None,
    /// Scale the base run's times to the new run's total
    Total,
}

/// A share: `5%` or `0.05`. A bare number above 1 is refused with a hint.
pub(super) fn parse_share(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    }
    .map_err(|_| format!("expected a share like 5% or 0.05, found `{s}`"))?;
    if t.ends_with('%') || (0.0..=1.0).contains(&v) {
        if v.is_finite() && (0.0..=1.0).contains(&v) {
            return Ok(v);
        }
        return Err(format!("`{s}` is not a share from 0% to 100%"));
    }
    if v.is_finite() && v > 1.0 && v <= 100.0 {
        return Err(format!("`{s}` is not a share: did you mean {s}%?"));
    }
    Err(format!("`{s}` is not a share from 0% to 100% (5% or 0.05)"))
}

impl DiffArgs {
    /// Converts the flags into [`DiffCommand`].
    pub fn into_options(self) -> DiffCommand {
        let mut input = InputOptions {
            symbols: self.symbols.into_options(),
            quiet: self.quiet,
            ..InputOptions::default()
        };
        input.parse.lenient = self.lenient;
        DiffCommand {
            base: self.base,
            new: self.new,
            input,
            by: match self.by {
                ByArg::Function => By::Function,
                ByArg::Context => By::Context,
            },
            diff: DiffOptions {
                min_change: self.min_change,
                normalize: match self.normalize {
                    NormalizeArg::None => Normalize::None,
                    NormalizeArg::Total => Normalize::Total,
                },
            },
            fail_above: self.fail_above,
            flamegraph: self.flamegraph,
            flamegraph_removed: self.flamegraph_removed,
            top: self.top,
            csv: self.csv,
            json: self.json,
            dot: self.output,
            prune: crate::diff::Prune {
                min_total: self.min_total,
                min_edge: self.min_edge,
            },
            time_unit: self.time_unit.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_share;

    #[test]
    fn shares_take_percent_or_fraction_and_hint_at_percent() {
        assert_eq!(parse_share("5%"), Ok(0.05));
        assert_eq!(parse_share("0.05"), Ok(0.05));
        assert_eq!(parse_share("1"), Ok(1.0));
        assert!(parse_share("5").unwrap_err().contains("did you mean 5%?"));
        assert!(parse_share("150%").is_err());
        assert!(parse_share("-1").is_err());
        assert!(parse_share("NaN").is_err());
    }
}
