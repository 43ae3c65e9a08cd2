//! Flags of `calltrace live`.

use std::path::PathBuf;

use clap::Args;

use super::common::SymbolArgs;
use crate::run::live::LiveOptions;

/// Flags of `calltrace live`.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// The traced executable (the help text is `common::BINARY_HELP`).
    #[arg(value_name = "BINARY", help = super::common::BINARY_HELP)]
    pub binary: Option<PathBuf>,
    /// Trace file or FIFO being written (waited for if it does not exist yet)
    #[arg(long, value_name = "FILE|FIFO", default_value = "trace.txt")]
    pub trace: PathBuf,
    /// Draw nothing: read the trace to its end (a FIFO until its writer
    /// closes it, a file as far as it goes) and print each function's
    /// calls and self time as CSV
    #[arg(long)]
    pub batch: bool,
    /// How functions are named.
    #[command(flatten)]
    pub symbols: SymbolArgs,
}

impl LiveArgs {
    /// Converts the flags into [`LiveOptions`].
    pub fn into_options(self) -> LiveOptions {
        LiveOptions {
            trace: self.trace,
            binary: self.binary,
            symbols: self.symbols.into_options(),
            batch: self.batch,
            ..LiveOptions::default()
        }
    }
}
