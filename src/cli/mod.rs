//! Command-line definitions (clap) and their conversion into each command's
//! `Options`. Only syntax is checked here; values are validated where they
//! are used, with errors that name the flag. Nothing outside this module and
//! `main.rs` knows about clap.

mod abstract_;
mod common;
mod compare;
mod coverage;
mod diff;
mod export;
mod graph;
mod info;
mod live;
mod man;
mod positional;
mod stats;
mod tree;
mod view;

pub use coverage::CoverageArgs;
pub use diff::DiffArgs;

use clap::{Args, Parser, Subcommand};

pub use abstract_::{AbstractArgs, AbstractionArgs};
pub use common::{
    ByArg, DemangleArg, InputArgs, MAX_THREADS, ReadArgs, SymbolArgs, TimeUnitArg, TimeUnitArgs,
    ViewArg,
};
pub use compare::CompareArgs;
pub use export::ExportArgs;
pub use graph::{GraphArgs, StyleArg};
pub use info::InfoArgs;
pub use live::LiveArgs;
pub use man::{completions, man_page};
pub use stats::StatsArgs;
pub use tree::TreeArgs;
pub use view::ViewArgs;

use compare::COMPARE_HELP;
use export::EXPORT_HELP;

/// Call graphs, call trees and abstracted call trees from function-call
/// traces of C/C++ programs built with `gcc -g -finstrument-functions`.
#[derive(Debug, Parser)]
#[command(name = "calltrace", version, about, long_about = None, after_help = AFTER_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

const AFTER_HELP: &str = "Quick start:
  calltrace runtime > calltrace.c
  gcc -g -finstrument-functions app.c calltrace.c -o app
  ./app                     # writes trace.txt
  calltrace graph ./app     # writes graph.dot, like pvtrace
  dot -Tsvg graph.dot -o graph.svg";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Hot call graph as Graphviz DOT (reads trace.txt, writes graph.dot; --style plain for pvtrace's)
    Graph(GraphArgs),
    /// Call tree as indented `name (self / total)` text
    Tree(TreeArgs),
    /// Abstract the call tree: threshold elimination and/or same-module merging
    Abstract(AbstractArgs),
    /// Write the trace for other tools: folded stacks, flame graph, Chrome, Perfetto, pprof, callgrind, JSON, Parquet
    #[command(after_help = EXPORT_HELP)]
    Export(ExportArgs),
    /// Compare abstraction methods over many traces (test patterns): tables and figures
    #[command(after_help = COMPARE_HELP)]
    Compare(CompareArgs),
    /// Which functions the traces called, which none did, which no trace can show: CSV, lcov, a CI gate
    #[command(after_help = coverage::COVERAGE_HELP)]
    Coverage(CoverageArgs),
    /// What changed between two runs (or builds), function by function, and why
    #[command(after_help = diff::DIFF_HELP)]
    Diff(DiffArgs),
    /// Worst case and spread of every function's calls: min, mean, p50, p90, p99, max and where it ran
    #[command(after_help = stats::STATS_HELP)]
    Stats(StatsArgs),
    /// What is in a trace: format, program, unit and span, events, calls, functions, depth, threads, repairs
    #[command(after_help = info::INFO_HELP)]
    Info(InfoArgs),
    /// Print the C tracing runtime to link into your program
    Runtime(RuntimeArgs),
    /// Follow a trace while the program writes it: stacks, hot functions, events/s (q quits)
    Live(LiveArgs),
    /// One self-contained HTML page: the abstracted tree and the hot graph, with the flags as controls
    View(ViewArgs),
    /// Print a shell completion script: `calltrace completions bash > /etc/bash_completion.d/calltrace`
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `calltrace man > calltrace.1; man ./calltrace.1`
    Man,
}

/// Flags of `calltrace runtime`.
#[derive(Debug, Args)]
pub struct RuntimeArgs {
    /// Print calltrace.h instead: the API for interpreters to record calls
    /// of their own methods (ct_method_register, ct_enter, ct_exit, ...)
    #[arg(long, conflicts_with = "freestanding")]
    pub header: bool,
    /// Print the runtime for microcontrollers and other targets without an
    /// OS instead (Cortex-M, RISC-V; no C library): it records into a RAM
    /// buffer, `calltrace_buffer`, taken off by semihosting, a write
    /// callback or a debugger's memory dump
    #[arg(long)]
    pub freestanding: bool,
}

impl RuntimeArgs {
    /// The options of `calltrace runtime`.
    pub fn into_options(self) -> crate::run::runtime::Options {
        use crate::run::runtime::{Options, Which};
        let which = if self.header {
            Which::Header
        } else if self.freestanding {
            Which::Freestanding
        } else {
            Which::Linux
        };
        Options { which }
    }
}

#[cfg(test)]
mod tests;
