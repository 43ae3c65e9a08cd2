//! The `calltrace` binary: parse the command line, run the library, print
//! warnings once, map errors to exit codes (0 ok, 2 bad usage or input).
//! A closed output pipe (`calltrace tree | head`) is not an error.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use calltrace::cli::{Cli, Command};
use calltrace::run::{self, Outcome};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Graph(args) => run::graph::run(&args.into_options()),
        Command::Tree(args) => run::tree::run(&args.into_options()),
        Command::Abstract(args) => run::abstract_cmd::run(&args.into_options()),
        Command::Compare(args) => run::compare::run(&args.into_options()),
        Command::Runtime => print_runtime(),
        Command::Live(args) => run::live::run(&args.into_options()),
    };
    match result {
        Ok(outcome) => {
            report(&outcome);
            ExitCode::SUCCESS
        }
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("calltrace: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn print_runtime() -> calltrace::Result<Outcome> {
    calltrace::emit::write_atomic("-".as_ref(), run::runtime::SOURCE.as_bytes())?;
    Ok(Outcome::default())
}

fn report(outcome: &Outcome) {
    let mut err = std::io::stderr().lock();
    for w in &outcome.warnings {
        let _ = writeln!(err, "calltrace: warning: {w}");
    }
    for n in &outcome.notes {
        let _ = writeln!(err, "calltrace: {n}");
    }
}
