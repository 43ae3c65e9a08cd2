//! Flags of `calltrace view`.

use std::path::PathBuf;

use clap::Args;

use super::common::InputArgs;
use crate::run::view::{DEFAULT_OUTPUT, ViewOptions};
use crate::symbols::FuncPattern;

/// Flags of `calltrace view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// The trace, the program and how they are read.
    #[command(flatten)]
    pub input: InputArgs,
    /// A directory of test patterns (one trace each, as `compare` reads): a picker in the page, and differences between two
    #[arg(value_name = "DIR")]
    pub patterns: Option<PathBuf>,
    /// Module table for --merge-modules in the page: CSV `function,module` (globs allowed), `auto`, `auto:file`, `auto:dir` or `auto:prefix`
    #[arg(long, value_name = "M", default_value = "auto", value_parser = super::common::parse_modules)]
    pub modules: crate::abstraction::ModulesArg,
    /// Functions that --keep in the page keeps, with their ancestors; repeatable (FUNC: see README "Naming functions")
    #[arg(long, value_name = "FUNC")]
    pub keep: Vec<FuncPattern>,
    /// A function the page offers as graph's --focus; repeatable (FUNC names one function, see README "Naming functions")
    #[arg(long, value_name = "FUNC")]
    pub focus: Vec<FuncPattern>,
    /// A function the page offers as graph's --root; repeatable (FUNC names one function, see README "Naming functions")
    #[arg(long, value_name = "FUNC")]
    pub root: Vec<FuncPattern>,
    /// The page to write
    #[arg(short, long, value_name = "FILE", default_value = DEFAULT_OUTPUT)]
    pub output: PathBuf,
}

impl ViewArgs {
    /// Converts the flags into [`ViewOptions`]; a directory given alone
    /// (`calltrace view DIR`) is the patterns, not the binary.
    pub fn into_options(self) -> ViewOptions {
        let mut input = self.input.into_options();
        let mut patterns = self.patterns;
        if patterns.is_none() && input.binary.as_ref().is_some_and(|b| b.is_dir()) {
            patterns = input.binary.take();
        }
        ViewOptions {
            input,
            patterns,
            modules: self.modules,
            keep: self.keep,
            focus: self.focus,
            root: self.root,
            output: self.output,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::{Cli, Command};
    use crate::run::view::ViewOptions;

    #[test]
    fn defaults_map_to_default_options() {
        let cli = Cli::try_parse_from(["calltrace", "view"]).unwrap();
        let Command::View(args) = cli.command else {
            panic!("not view");
        };
        assert_eq!(args.into_options(), ViewOptions::default());
    }
}
