//! Flags of `calltrace coverage`.

use std::path::PathBuf;

use clap::Args;

use super::common::ReadArgs;
use crate::abstraction::Share;
use crate::run::coverage::CoverageOptions;

pub(super) const COVERAGE_HELP: &str =
    "Lists every function of the traced program and libraries built with
-finstrument-functions: called, never called, or not instrumented (its code
never calls the entry hook, so no trace can show it). No rebuild with
--coverage is needed.

Examples:
  calltrace coverage ./app --trace run1.txt --trace run2.txt
  calltrace coverage traces/ --csv coverage.csv --lcov coverage.info --fail-under 80%
  genhtml coverage.info -o coverage-html";

/// Flags of `calltrace coverage`.
#[derive(Debug, Args)]
#[command(
    override_usage = "calltrace coverage [OPTIONS] [BINARY] [TRACE|DIR]... [--trace TRACE]..."
)]
pub struct CoverageArgs {
    /// The traced executable, when the first argument is one (Default: the executable each trace records); then traces (one per test pattern, named by file stem or NAME=PATH) or directories of them
    #[arg(value_name = "TRACE")]
    pub args: Vec<String>,
    /// A trace to read (repeatable); without any trace, trace.txt
    #[arg(long, value_name = "FILE")]
    pub trace: Vec<String>,
    // Shared flags first, then this command's: the order of every command's -h.
    /// How traces are read and functions named.
    #[command(flatten)]
    pub read: ReadArgs,
    /// Summarise per module instead of per source file: a CSV `function,module` table, auto, auto:file, auto:dir or auto:prefix
    #[arg(long, value_name = "M", value_parser = super::common::parse_modules)]
    pub modules: Option<crate::abstraction::ModulesArg>,
    /// Write every function: function,file,line,module,calls,status
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write the call matrix: function,file,line and one column of calls per pattern
    #[arg(long, value_name = "FILE.csv")]
    pub matrix: Option<PathBuf>,
    /// Write an lcov tracefile (function records) for genhtml, Codecov or SonarQube
    #[arg(long, value_name = "FILE.info")]
    pub lcov: Option<PathBuf>,
    /// Exit with status 3 when less than this share of the instrumented functions was called: 80% or 0.8
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub fail_under: Option<Share>,
}

impl CoverageArgs {
    /// Converts the flags into [`CoverageOptions`].
    pub fn into_options(self) -> CoverageOptions {
        let (binary, mut traces) = super::positional::split(self.args, None);
        traces.extend(self.trace);
        if traces.is_empty() {
            traces.push("trace.txt".to_string());
        }
        // The trace is set per pattern.
        let input = self.read.into_options(PathBuf::new(), binary);
        CoverageOptions {
            input,
            traces,
            modules: self.modules,
            csv: self.csv,
            matrix: self.matrix,
            lcov: self.lcov,
            fail_under: self.fail_under.map(Share::get),
        }
    }
}
