//! Flags of `calltrace tree`.

use std::path::PathBuf;

use clap::Args;

use super::common::{InputArgs, ShowArgs, TimeUnitArgs, ViewArg};
use crate::run::tree::TreeOptions;
use crate::symbols::FuncPattern;

/// Flags of `calltrace tree`.
#[derive(Debug, Args)]
pub struct TreeArgs {
    /// The trace, the program and how they are read.
    #[command(flatten)]
    pub input: InputArgs,
    /// Which tree to print
    #[arg(long, value_enum, default_value = "calls")]
    pub view: ViewArg,
    /// Output file, `-` for standard output
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Print only the paths through FUNC (its callers and callees), as graph --focus; FUNC names one function, see README "Naming functions"
    #[arg(long, value_name = "FUNC", conflicts_with = "root")]
    pub focus: Option<FuncPattern>,
    /// Print only FUNC's calls and what they call, as graph --root; FUNC names one function, see README "Naming functions"
    #[arg(long, value_name = "FUNC")]
    pub root: Option<FuncPattern>,
    /// Leave out calls deeper than N, counting the start (--root, --focus, or the top-level calls) as level 1
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
    /// The unit times are shown in.
    #[command(flatten)]
    pub time: TimeUnitArgs,
    /// Per-call numbers after each line.
    #[command(flatten)]
    pub show: ShowArgs,
}

impl TreeArgs {
    /// Converts the flags into [`TreeOptions`].
    pub fn into_options(self) -> TreeOptions {
        TreeOptions {
            input: self.input.into_options(),
            view: self.view.into(),
            output: self.output,
            max_depth: self.max_depth,
            time_unit: self.time.time_unit.into(),
            show: self.show.stats(),
            root: self.root,
            focus: self.focus,
        }
    }
}
