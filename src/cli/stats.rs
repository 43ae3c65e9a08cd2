//! Flags of `calltrace stats`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::common::{ByArg, InputArgs, TimeUnitArgs};
use crate::run::stats::StatsOptions;
use crate::stats::{By, Sort};

pub(super) const STATS_HELP: &str =
    "Minimum and maximum are exact, and the table says where the slowest call ran
(thread id and start time after the trace's first event: find it in
`export --to perfetto`). Percentiles come from a log-bucket histogram (64
buckets per power of two): exact below 128 ns, else within 1%. Memory per
function or context is bounded, whatever the number of calls. Needs a timed
trace of entries and exits.

Times are elapsed (wall-clock): blocking and preemption count. A function
waiting on a lock or condition variable shows the wait as self time, and a
fast function preempted once shows milliseconds as its max. The runtime's
own waits (a full buffer while its writer catches up) are taken out
(CALLTRACE_WAITS=keep leaves them in).

Examples:
  calltrace stats ./app                         # every function, slowest total first
  calltrace stats ./app --sort max --top 10     # the ten worst single calls
  calltrace stats ./app --by context --csv stats.csv
  calltrace stats ./app --histogram compress    # one function's calls, funclatency style
  calltrace stats ./app --tid 4242 --sort p99   # one thread's worst cases";

/// Flags of `calltrace stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The trace, the program and how they are read.
    #[command(flatten)]
    pub input: InputArgs,
    /// One row per function (calling contexts rolled up) or per calling context
    #[arg(long, value_enum, default_value = "function")]
    pub by: ByArg,
    /// Order of the rows, largest first
    #[arg(long, value_enum, default_value = "total")]
    pub sort: SortArg,
    /// min, mean, percentiles and max of self time per call instead of inclusive time
    #[arg(long = "self")]
    pub self_time: bool,
    /// Rows shown in the table
    #[arg(long, value_name = "N", default_value_t = StatsOptions::default().top)]
    pub top: usize,
    /// Where the table (or histogram) goes, `-` for standard output
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Write every row: [path,]function,calls,total_ns,self_ns,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,max_ns
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Draw this function's calls (a `main;a;b` path with --by context) as a log-scale histogram instead of the table; FUNC names one function, see README "Naming functions"
    #[arg(long, value_name = "FUNC")]
    pub histogram: Option<crate::symbols::FuncPattern>,
    /// Write every row's histogram buckets: [path,]function,low_ns,high_ns,count
    #[arg(long, value_name = "FILE")]
    pub histogram_csv: Option<PathBuf>,
    /// The unit times are shown in.
    #[command(flatten)]
    pub time: TimeUnitArgs,
}

/// `--sort` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// Total (inclusive) time, recursion counted once
    Total,
    /// Self time
    #[value(name = "self")]
    Self_,
    /// The slowest call
    Max,
    /// The 99th percentile of a call
    P99,
    /// Number of calls
    Calls,
}

impl StatsArgs {
    /// Converts the flags into [`StatsOptions`].
    pub fn into_options(self) -> StatsOptions {
        StatsOptions {
            input: self.input.into_options(),
            by: match self.by {
                ByArg::Function => By::Function,
                ByArg::Context => By::Context,
            },
            sort: match self.sort {
                SortArg::Total => Sort::Total,
                SortArg::Self_ => Sort::Self_,
                SortArg::Max => Sort::Max,
                SortArg::P99 => Sort::P99,
                SortArg::Calls => Sort::Calls,
            },
            self_time: self.self_time,
            top: self.top,
            output: self.output,
            csv: self.csv,
            histogram: self.histogram,
            histogram_csv: self.histogram_csv,
            time_unit: self.time.time_unit.into(),
        }
    }
}
