//! The `calltrace` binary: parse the command line, run the library, print
//! warnings once, map errors to exit codes (0 ok, 2 bad usage or input, 3 a
//! failed gate such as `diff --fail-above`).
//! A closed output pipe (`calltrace tree | head`) is not an error. Every
//! command's outputs are checked against its inputs before it runs.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use calltrace::cli::{Cli, Command};
use calltrace::escape_controls;
use calltrace::run::files::run_checked;
use calltrace::run::{self, Outcome};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Graph(args) => run_checked(&args.into_options(), run::graph::run),
        Command::Tree(args) => run_checked(&args.into_options(), run::tree::run),
        Command::Abstract(args) => run_checked(&args.into_options(), run::abstract_::run),
        Command::Export(args) => run_checked(&args.into_options(), run::export::run),
        Command::Compare(args) => run_checked(&args.into_options(), run::compare::run),
        Command::Coverage(args) => run_checked(&args.into_options(), run::coverage::run),
        Command::Diff(args) => run_checked(&args.into_options(), run::diff::run),
        Command::Stats(args) => run_checked(&args.into_options(), run::stats::run),
        Command::Info(args) => run_checked(&args.into_options(), run::info::run),
        Command::View(args) => run_checked(&args.into_options(), run::view::run),
        Command::Runtime(args) => run::runtime::run(&args.into_options()),
        Command::Live(args) => run::live::run(&args.into_options()),
        Command::Completions { shell } => write_stdout(|out| {
            calltrace::cli::completions(shell, out);
            Ok(())
        }),
        Command::Man => write_stdout(calltrace::cli::man_page),
    };
    match result {
        Ok(outcome) => {
            run::report(&outcome);
            ExitCode::SUCCESS
        }
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(calltrace::Error::Gate(failed)) => {
            eprintln!("calltrace: failed: {}", escape_controls(&failed));
            ExitCode::from(3)
        }
        Err(e) => {
            eprintln!("calltrace: error: {}", e.display_escaped());
            ExitCode::from(2)
        }
    }
}

fn write_stdout(
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> calltrace::Result<Outcome> {
    calltrace::emit::write_atomic_with("-".as_ref(), fill)?;
    Ok(Outcome::default())
}
