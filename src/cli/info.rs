//! Flags of `calltrace info`.

use std::path::PathBuf;

use clap::Args;

use super::common::{InputArgs, TimeUnitArgs};
use crate::run::info::InfoOptions;

pub(super) const INFO_HELP: &str =
    "What is in a trace before choosing filters: its format, the program it
names, the unit and time span, events, calls, functions, the deepest call,
one row per thread (the id, and the name --tid also takes: a firmware's
tasks and exception handlers), and what the read repaired or warned about.

Examples:
  calltrace info ./app                          # trace.txt, named by ./app
  calltrace info --trace ram.bin fw.elf --json  # a freestanding buffer, as JSON";

/// Flags of `calltrace info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The trace, the program and how they are read.
    #[command(flatten)]
    pub input: InputArgs,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    /// Output file, `-` for standard output
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// The unit times are shown in.
    #[command(flatten)]
    pub time: TimeUnitArgs,
}

impl InfoArgs {
    /// Converts the flags into [`InfoOptions`].
    pub fn into_options(self) -> InfoOptions {
        InfoOptions {
            input: self.input.into_options(),
            json: self.json,
            output: self.output,
            time_unit: self.time.time_unit.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: InfoArgs,
    }

    #[test]
    fn defaults_map_to_default_options() {
        let args = Cli::parse_from(["info"]).args;
        assert_eq!(args.into_options(), InfoOptions::default());
    }
}
