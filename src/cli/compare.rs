//! Flags of `calltrace compare`.

use std::path::PathBuf;

use clap::Args;

use super::common::{ReadArgs, ViewArg};
use crate::abstraction::Share;
use crate::abstraction::pipeline::RECOMMENDED_MIN_TOTAL;
use crate::abstraction::registry::DEFAULT_THRESHOLD;
use crate::compare::{Config, Sweep};
use crate::pipeline::InputOptions;
use crate::run::compare::{CompareOptions, DEFAULT_OUT_DIR};

pub(super) const COMPARE_HELP: &str = "Writes into DIR:
  rates.csv     nodes before and after, per pattern and method
  sweep.csv     nodes kept at each threshold (also drawn as sweep.svg)
  groups.csv    patterns with equal function sets, before and after abstraction
  features.csv  functions only one pattern has, and whether each method keeps them
  coverage.csv  every instrumented function's calls per pattern (0 = no pattern reached it)
  rates.svg     node counts before and after, as bars
  report.html   one self-contained page: the tables, both plots, top functions per pattern,
                the functions no pattern called
Methods: threshold (method 1), merge (method 2), merge+threshold, and with the
whole-trace --min-total global, merge+global, merge+fold+global (recursion folded).

Example:
  calltrace compare traces/printer --modules modules.csv traces/";

/// Flags of `calltrace compare`.
#[derive(Debug, Args)]
#[command(override_usage = "calltrace compare [OPTIONS] [BINARY] <TRACE>...")]
pub struct CompareArgs {
    /// The traced executable (ELF with debug info) for all address traces, when the first argument is one (Default: the executable each trace records); then trace files, one per test pattern, named by file stem or given as NAME=PATH; a directory means every trace in it
    #[arg(value_name = "TRACE", required = true)]
    pub traces: Vec<String>,
    /// The old way to give BINARY
    #[arg(long, value_name = "BINARY", hide = true)]
    pub binary: Option<PathBuf>,
    /// How traces are read and functions named.
    #[command(flatten)]
    pub read: ReadArgs,
    /// Module table: CSV `function,module` (globs allowed), `auto`, `auto:file`, `auto:dir` or `auto:prefix` [default: auto, as abstract does]
    #[arg(long, value_name = "M", value_parser = super::common::parse_modules)]
    pub modules: Option<crate::abstraction::ModulesArg>,
    /// Method 1 threshold for rates.csv: 0.9 or 90%
    #[arg(long, value_name = "T", default_value_t = DEFAULT_THRESHOLD, allow_negative_numbers = true)]
    pub threshold: Share,
    /// Thresholds for sweep.csv and sweep.svg
    #[arg(long, value_name = "START:END:STEP", default_value_t = Sweep::default(), value_parser = Sweep::parse)]
    pub sweep: Sweep,
    /// Which tree to abstract
    #[arg(long, value_enum, default_value_t = ViewArg::from(Config::default().view))]
    pub view: ViewArg,
    /// Whole-trace threshold of the `global` and `merge+global` methods: 0.1% or 0.001
    #[arg(long, value_name = "P", default_value_t = RECOMMENDED_MIN_TOTAL, allow_negative_numbers = true)]
    pub min_total: Share,
    /// Protect the distinguishing functions (features.csv) in every method's output
    #[arg(long)]
    pub keep_features: bool,
    /// Directory for the CSV and SVG files (created if missing)
    #[arg(long, value_name = "DIR", default_value = DEFAULT_OUT_DIR)]
    pub out_dir: PathBuf,
}

impl CompareArgs {
    /// Converts the flags into [`CompareOptions`].
    pub fn into_options(self) -> CompareOptions {
        // Each pattern reads its own trace: the input's path is unused.
        let input = InputOptions::default().trace;
        let (binary, traces) = super::positional::split(self.traces, self.binary);
        CompareOptions {
            traces,
            modules: self.modules,
            out_dir: self.out_dir,
            config: Config {
                input: self.read.into_options(input, binary),
                modules: Config::default().modules,
                threshold: self.threshold,
                sweep: self.sweep,
                view: self.view.into(),
                min_total: self.min_total,
                keep_features: self.keep_features,
                given: Vec::new(),
            },
        }
    }
}
