//! Flags of `calltrace graph`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::common::{InputArgs, TimeUnitArgs};
use crate::abstraction::Share;
use crate::run::graph::{DEFAULT_MIN_EDGE, DEFAULT_MIN_TOTAL, GraphOptions, Style};
use crate::symbols::FuncPattern;

/// Flags of `calltrace graph`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The trace, the program and how they are read.
    #[command(flatten)]
    pub input: InputArgs,
    /// DOT output file, `-` for standard output
    #[arg(short, long, value_name = "FILE", default_value = "graph.dot")]
    pub output: PathBuf,
    /// Also write the edges as CSV (caller,callee,calls,total_ns; total_calls when untimed)
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Drawing: the hot graph (shares of time, colours, pruning) or pvtrace's plain graph
    #[arg(long, value_enum, default_value = "hot")]
    pub style: StyleArg,
    /// Leave out functions under this share of the run's total (of FUNC's with --focus/--root; gprof2dot -n): 0.5% or 0.005
    #[arg(long, value_name = "P", default_value_t = DEFAULT_MIN_TOTAL, allow_negative_numbers = true)]
    pub min_total: Share,
    /// Leave out edges under this share of the run's total (of FUNC's with --focus/--root; gprof2dot -e): 0.1% or 0.001
    #[arg(long, value_name = "P", default_value_t = DEFAULT_MIN_EDGE, allow_negative_numbers = true)]
    pub min_edge: Share,
    /// Keep only the paths through FUNC (its callers and callees); FUNC names one function, see README "Naming functions"
    #[arg(long, value_name = "FUNC")]
    pub focus: Option<FuncPattern>,
    /// Keep only FUNC and what it calls; FUNC names one function, see README "Naming functions"
    #[arg(long, value_name = "FUNC")]
    pub root: Option<FuncPattern>,
    /// Keep only functions at most N levels deep, counting the start (--root, --focus, or the top-level calls) as level 1
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
    /// The old name: functions at most N calls below the start (`--depth N` is `--max-depth N+1`)
    #[arg(long, value_name = "N", hide = true, conflicts_with = "max_depth")]
    pub depth: Option<u32>,
    /// The unit times are shown in.
    #[command(flatten)]
    pub time: TimeUnitArgs,
}

/// `--style` values of `calltrace graph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StyleArg {
    /// gprof2dot-style: total and self % per function, % of the caller per edge, temperature colours
    Hot,
    /// pvtrace-compatible: names and call counts
    Plain,
}

impl GraphArgs {
    /// Converts the flags into [`GraphOptions`].
    pub fn into_options(self) -> GraphOptions {
        GraphOptions {
            input: self.input.into_options(),
            output: self.output,
            csv: self.csv,
            style: match self.style {
                StyleArg::Hot => Style::Hot,
                StyleArg::Plain => Style::Plain,
            },
            min_total: self.min_total,
            min_edge: self.min_edge,
            focus: self.focus,
            root: self.root,
            // The start is level 1 for --max-depth, level 0 for the old --depth.
            depth: self.max_depth.map(|n| n - 1).or(self.depth),
            time_unit: self.time.time_unit.into(),
        }
    }
}
