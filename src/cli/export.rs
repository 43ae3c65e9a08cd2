//! Flags of `calltrace export`.

use std::path::PathBuf;

use clap::Args;

use super::abstract_::AbstractionArgs;
use super::common::{InputArgs, ShowArgs};
use crate::run::export::ExportOptions;

pub(super) const EXPORT_HELP: &str = "Examples:
  calltrace export ./app --to flamegraph -o flame.svg
  calltrace export ./app --to chrome -o trace.json      # open in ui.perfetto.dev
  calltrace export ./app --to callgrind -o callgrind.out # kcachegrind callgrind.out
  calltrace export ./app --to folded --threshold 90% -o - | inferno-flamegraph > flame.svg";

/// Flags of `calltrace export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The trace, the program and how they are read.
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format
    #[arg(long, value_name = "FORMAT", value_parser = export_formats())]
    pub to: String,
    /// Output file, `-` for standard output (a directory for parquet)
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Abstraction to apply first (none: the whole tree; `--view` picks the
    /// tree, by default calls for chrome and contexts for the others)
    #[command(flatten)]
    pub abstraction: AbstractionArgs,
    /// End folded and flame graph stacks at depth N, the last frame taking its subtree's weight (top-level calls are depth 1)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
    /// The run's id in a parquet dataset (default: the name of the -o directory)
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Per-call numbers of each node (json).
    #[command(flatten)]
    pub show: ShowArgs,
}

/// `--to` values with their help, from the exporter list.
fn export_formats() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        crate::emit::export::exporters()
            .iter()
            .map(|e| clap::builder::PossibleValue::new(e.name()).help(e.about())),
    )
}

impl ExportArgs {
    /// Converts the flags into [`ExportOptions`].
    pub fn into_options(self) -> ExportOptions {
        ExportOptions {
            input: self.input.into_options(),
            to: self.to,
            output: self.output,
            abstraction: self.abstraction.into_options(),
            max_depth: self.max_depth,
            run_id: self.run_id,
            show: self.show.stats(),
        }
    }
}
