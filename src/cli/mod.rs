//! Command-line definitions (clap) and their conversion into each command's
//! `Options`. Only syntax is checked here; values are validated where they
//! are used, with errors that name the flag. Nothing outside this module and
//! `main.rs` knows about clap.

mod coverage;
mod diff;
pub use coverage::CoverageArgs;
pub use diff::DiffArgs;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::abstraction::Options;
use crate::calltree::View;
use crate::emit::text::TimeUnit;
use crate::ingest::ParseOptions;
use crate::pipeline::InputOptions;
use crate::report::Sweep;
use crate::run::abstract_cmd::AbstractOptions;
use crate::run::compare::CompareOptions;
use crate::run::export::ExportOptions;
use crate::run::graph::{GraphOptions, Style};
use crate::run::live::LiveOptions;
use crate::run::tree::TreeOptions;
use crate::symbols::{Demangle, SymbolOptions};

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

const COMPARE_HELP: &str = "Writes into DIR:
  rates.csv     nodes before and after, per pattern and method
  sweep.csv     nodes kept at each threshold (also drawn as sweep.svg)
  groups.csv    patterns with equal function sets, before and after abstraction
  features.csv  functions only one pattern has, and whether each method keeps them
  rates.svg     node counts before and after, as bars
  report.html   one self-contained page: the tables, both plots, top functions per pattern
Methods: threshold (method 1), merge (method 2), merge+threshold, and with the
whole-trace --min-total global, merge+global, merge+fold+global (recursion folded).

Example:
  calltrace compare traces/printer --modules modules.csv traces/";

const EXPORT_HELP: &str = "Examples:
  calltrace export ./app --to flamegraph -o flame.svg
  calltrace export ./app --to chrome -o trace.json      # open in ui.perfetto.dev
  calltrace export ./app --to callgrind -o callgrind.out # kcachegrind callgrind.out
  calltrace export ./app --to folded --threshold 90% -o - | inferno-flamegraph > flame.svg";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Hot call graph as Graphviz DOT (reads trace.txt, writes graph.dot; --style plain for pvtrace's)
    Graph(GraphArgs),
    /// Call tree as indented `name (self / total)` text
    Tree(TreeArgs),
    /// Abstract the call tree: threshold elimination and/or same-module merging
    Abstract(AbstractArgs),
    /// Write the trace for other tools: folded stacks, flame graph, Chrome/Perfetto, callgrind, JSON
    #[command(after_help = EXPORT_HELP)]
    Export(ExportArgs),
    /// Compare abstraction methods over many traces (test patterns): tables and figures
    #[command(after_help = COMPARE_HELP)]
    Compare(CompareArgs),
    /// Which functions the traces called, which none did, which no trace can show: CSV, lcov, a CI gate
    #[command(after_help = coverage::COVERAGE_HELP)]
    Coverage(coverage::CoverageArgs),
    /// What changed between two runs (or builds), function by function, and why
    #[command(after_help = diff::DIFF_HELP)]
    Diff(diff::DiffArgs),
    /// Print the C tracing runtime to link into your program
    Runtime(RuntimeArgs),
    /// Follow a trace while the program writes it: stacks, hot functions, events/s (q quits)
    Live(LiveArgs),
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
    #[arg(long)]
    pub header: bool,
}

/// Flags of `calltrace live`.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// The traced executable (ELF with debug info); without it addresses are shown in hex
    #[arg(value_name = "BINARY")]
    pub binary: Option<PathBuf>,
    /// Trace file or FIFO being written (waited for if it does not exist yet)
    #[arg(long, value_name = "FILE|FIFO", default_value = "trace.txt")]
    pub trace: PathBuf,
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
            ..LiveOptions::default()
        }
    }
}

/// Writes the completion script of `shell` for every command and flag.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn std::io::Write) {
    use clap::CommandFactory;
    clap_complete::generate(shell, &mut Cli::command(), "calltrace", out);
}

/// Writes the man page: the command, its subcommands and their flags.
pub fn man_page(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    // clap_mangen's own list points at calltrace-graph(1) and friends,
    // pages that do not exist: the commands are described on this page.
    commands_section(&cmd, out)?;
    man.render_extra_section(out)?;
    man.render_version_section(out)?;
    // Each command's synopsis and flags under its own heading.
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("calltrace {}", sub.get_name());
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        let man = clap_mangen::Man::new(sub.clone().bin_name(name));
        man.render_description_section(out)?;
        man.render_synopsis_section(out)?;
        man.render_options_section(out)?;
    }
    Ok(())
}

/// `COMMANDS`: each command with its one-line description, pointing at its
/// section further down this page.
fn commands_section(cmd: &clap::Command, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(out, ".SH COMMANDS")?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let title = format!("calltrace {}", sub.get_name()).to_uppercase();
        writeln!(
            out,
            ".TP\n\\fBcalltrace {}\\fR\n{} (see {title} below)",
            sub.get_name(),
            roff_text(&about)
        )?;
    }
    Ok(())
}

/// Text safe in a roff body line: a backslash as `\e`, `-` as `\-`, and a
/// leading `.` or `'` kept from reading as a request.
fn roff_text(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    match s.starts_with(['.', '\'']) {
        true => format!("\\&{s}"),
        false => s,
    }
}

/// Flags shared by every command that reads a trace.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The traced executable (ELF with debug info); without it addresses are shown in hex
    #[arg(value_name = "BINARY")]
    pub binary: Option<PathBuf>,
    /// Trace file to read, `-` for standard input
    #[arg(long, value_name = "FILE", default_value = "trace.txt")]
    pub trace: PathBuf,
    /// Trace format instead of guessing it from the first lines
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Skip malformed lines (and count them) instead of stopping at the first
    #[arg(long)]
    pub lenient: bool,
    /// Threads for parsing big traces; 0 = one per core (output is the same for any number)
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: usize,
    /// Read the trace as a text log through these conversion rules (see docs/rules.md; rules/ has examples)
    #[arg(long, value_name = "FILE.json", conflicts_with = "format")]
    pub rules: Option<PathBuf>,
    #[command(flatten)]
    pub symbols: SymbolArgs,
    /// No progress bar while a big trace is read (there is none when stderr is not a terminal)
    #[arg(short, long)]
    pub quiet: bool,
}

/// How functions are named: shared by every command that takes BINARY.
#[derive(Debug, Args)]
pub struct SymbolArgs {
    /// Directory holding copies of the traced executable and libraries (looked up by file name; repeatable)
    #[arg(long, value_name = "DIR")]
    pub search_path: Vec<PathBuf>,
    /// How C++ names are shown: full (like `nm -C`), simple (no return type, template arguments or parameters), none (mangled)
    #[arg(long, value_enum, default_value = "full")]
    pub demangle: DemangleArg,
    /// Name functions from a program or library whose build-id differs from the traced one's (rebuilt since): names may be wrong
    #[arg(long)]
    pub allow_mismatch: bool,
    /// Perf map (`START SIZE NAME` lines, as JIT compilers write) naming code outside the loaded objects; default: the traced process's /tmp/perf-PID.map, if there
    #[arg(long, value_name = "FILE")]
    pub perf_map: Option<PathBuf>,
}

/// `--demangle` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DemangleArg {
    /// `int ns::twice<int>(int)`, identical to `nm -C`
    Full,
    /// `ns::twice`, like uftrace
    Simple,
    /// `_ZN2ns5twiceIiEET_S1_`, the linkage name
    None,
}

impl SymbolArgs {
    /// Converts the flags into [`SymbolOptions`].
    pub fn into_options(self) -> SymbolOptions {
        SymbolOptions {
            search_path: self.search_path,
            demangle: match self.demangle {
                DemangleArg::Full => Demangle::Full,
                DemangleArg::Simple => Demangle::Simple,
                DemangleArg::None => Demangle::None,
            },
            allow_mismatch: self.allow_mismatch,
            perf_map: self.perf_map,
        }
    }
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// E/X lines with addresses: `E0x401136 [time thread]`
    Addr,
    /// E/X lines with function names: `E main [time thread]`
    Symbolic,
    /// Indented `name (self / total)` lines
    Indented,
    /// Binary trace of the runtime (CALLTRACE_FORMAT=binary)
    Binary,
}

/// `--view` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ViewArg {
    /// One node per call (dynamic call tree)
    Calls,
    /// One node per distinct call path, with call counts (calling-context tree)
    Contexts,
}

/// `--time-unit` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TimeUnitArg {
    /// Nanoseconds (exact)
    Ns,
    /// Microseconds
    Us,
    /// Milliseconds
    Ms,
    /// Seconds
    S,
    /// Whatever suits each number
    Auto,
}

impl From<TimeUnitArg> for TimeUnit {
    fn from(u: TimeUnitArg) -> TimeUnit {
        match u {
            TimeUnitArg::Ns => TimeUnit::Ns,
            TimeUnitArg::Us => TimeUnit::Us,
            TimeUnitArg::Ms => TimeUnit::Ms,
            TimeUnitArg::S => TimeUnit::S,
            TimeUnitArg::Auto => TimeUnit::Auto,
        }
    }
}

/// Flags of `calltrace graph`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// DOT output file, `-` for standard output
    #[arg(short, long, value_name = "FILE", default_value = "graph.dot")]
    pub output: PathBuf,
    /// Also write the edges as CSV (caller,callee,calls,total_ns; total_calls when untimed)
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Drawing: the hot graph (shares of time, colours, pruning) or pvtrace's plain graph
    #[arg(long, value_enum, default_value = "hot")]
    pub style: StyleArg,
    /// Leave out functions under P% of the run's total (of FUNC's with --focus/--root; gprof2dot -n)
    #[arg(long, value_name = "P", default_value_t = 0.5, value_parser = parse_percent, allow_negative_numbers = true)]
    pub min_total: f64,
    /// Leave out edges under P% of the run's total (of FUNC's with --focus/--root; gprof2dot -e)
    #[arg(long, value_name = "P", default_value_t = 0.1, value_parser = parse_percent, allow_negative_numbers = true)]
    pub min_edge: f64,
    /// Keep only the paths through FUNC (its callers and callees)
    #[arg(long, value_name = "FUNC")]
    pub focus: Option<String>,
    /// Keep only FUNC and what it calls
    #[arg(long, value_name = "FUNC")]
    pub root: Option<String>,
    /// Keep only functions at most N levels deep, counting the start (--root, --focus, or the top-level calls) as level 1
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
    /// The old name: functions at most N calls below the start (`--depth N` is `--max-depth N+1`)
    #[arg(long, value_name = "N", hide = true, conflicts_with = "max_depth")]
    pub depth: Option<u32>,
    /// Unit of the times in the labels
    #[arg(long, value_enum, value_name = "UNIT", default_value = "auto")]
    pub time_unit: TimeUnitArg,
}

/// `--style` values of `calltrace graph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StyleArg {
    /// gprof2dot-style: total and self % per function, % of the caller per edge, temperature colours
    Hot,
    /// pvtrace-compatible: names and call counts
    Plain,
}

/// Flags of `calltrace tree`.
#[derive(Debug, Args)]
pub struct TreeArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Which tree to print
    #[arg(long, value_enum, default_value = "calls")]
    pub view: ViewArg,
    /// Output file, `-` for standard output
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Leave out calls deeper than N (top-level calls are depth 1)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
    /// Unit of the times shown (`ns` prints the exact values)
    #[arg(long, value_enum, value_name = "UNIT", default_value = "auto")]
    pub time_unit: TimeUnitArg,
}

/// Abstraction flags, shared by every command that abstracts a tree.
/// Applied in the order merge → view → fold → thresholds → budget; with no
/// method flag the recommended readable pipeline runs.
#[derive(Debug, Args, Default)]
pub struct AbstractionArgs {
    /// Module table: CSV `function,module` (globs allowed), `auto`, `auto:file`, `auto:dir` or `auto:prefix`
    #[arg(long, value_name = "M")]
    pub modules: Option<String>,
    /// Merge callees of the caller's module into the caller (method 2; runs first)
    #[arg(long)]
    pub merge_modules: bool,
    /// Keep callees until they make up this share of the caller's total (method 1): 0.9 or 90%
    #[arg(long, value_name = "T", value_parser = parse_threshold, allow_negative_numbers = true)]
    pub threshold: Option<f64>,
    /// Which tree to abstract [default: calls for --threshold/--merge-modules alone, else contexts]
    #[arg(long, value_enum)]
    pub view: Option<ViewArg>,
    /// Fold recursion: a call to a function already on the path joins that ancestor's node
    #[arg(long)]
    pub fold_recursion: bool,
    /// Whole-trace threshold: keep nodes whose total is at least this share of the root's: 0.1% or 0.001
    #[arg(long, value_name = "P", value_parser = parse_share, allow_negative_numbers = true)]
    pub min_total: Option<f64>,
    /// Node budget: keep the N heaviest nodes (and their ancestors)
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<usize>,
    /// Functions (globs `*`, `?`) that always survive, with their ancestors; repeatable
    #[arg(long, value_name = "GLOB")]
    pub keep: Vec<String>,
    /// Draw chains of nodes with negligible self time and one callee as one node [default: on with no method flag, else off]
    #[arg(long, overrides_with = "no_fold_chains")]
    pub fold_chains: bool,
    /// Draw every node of such chains (turns off --fold-chains)
    #[arg(long, overrides_with = "fold_chains")]
    pub no_fold_chains: bool,
}

/// Flags of `calltrace abstract`.
#[derive(Debug, Args)]
pub struct AbstractArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub abstraction: AbstractionArgs,
    /// Draw the abstracted tree as DOT (identical paths drawn once) [default: abstract.dot unless --tree-out or --stats is given]
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write the abstracted tree as indented `name (self / total)` text
    #[arg(long, value_name = "FILE")]
    pub tree_out: Option<PathBuf>,
    /// Write node counts, explained time and the parameters used as JSON
    #[arg(long, value_name = "FILE.json")]
    pub stats: Option<PathBuf>,
    /// Leave calls deeper than N out of --tree-out (top-level calls are depth 1)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
}

/// Flags of `calltrace export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format
    #[arg(long, value_name = "FORMAT", value_parser = export_formats())]
    pub to: String,
    /// Output file, `-` for standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Abstraction to apply first (none: the whole tree; `--view` picks the
    /// tree, by default calls for chrome and contexts for the others)
    #[command(flatten)]
    pub abstraction: AbstractionArgs,
    /// End folded and flame graph stacks at depth N, the last frame taking its subtree's weight (top-level calls are depth 1)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
}

/// `--to` values with their help, from the exporter list.
fn export_formats() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        crate::emit::export::exporters()
            .map(|e| clap::builder::PossibleValue::new(e.name()).help(e.about())),
    )
}

/// Flags of `calltrace compare`.
#[derive(Debug, Args)]
#[command(override_usage = "calltrace compare [OPTIONS] [BINARY] <TRACE>...")]
pub struct CompareArgs {
    /// The traced executable (ELF with debug info) for all address traces, when the first argument is one; then trace files, one per test pattern, named by file stem or given as NAME=PATH; a directory means every trace in it
    #[arg(value_name = "TRACE", required = true)]
    pub traces: Vec<String>,
    /// The old way to give BINARY
    #[arg(long, value_name = "BINARY", hide = true)]
    pub binary: Option<PathBuf>,
    /// Read every trace as a text log through these conversion rules (see docs/rules.md)
    #[arg(long, value_name = "FILE.json")]
    pub rules: Option<PathBuf>,
    #[command(flatten)]
    pub symbols: SymbolArgs,
    /// Module table: CSV `function,module` (globs allowed), `auto`, `auto:file`, `auto:dir` or `auto:prefix` [default: auto, as abstract does]
    #[arg(long, value_name = "M")]
    pub modules: Option<String>,
    /// Method 1 threshold for rates.csv: 0.9 or 90%
    #[arg(long, value_name = "T", default_value = "0.9", value_parser = parse_threshold, allow_negative_numbers = true)]
    pub threshold: f64,
    /// Thresholds for sweep.csv and sweep.svg
    #[arg(long, value_name = "START:END:STEP", default_value = "0:1:0.05", value_parser = parse_sweep)]
    pub sweep: Sweep,
    /// Which tree to abstract
    #[arg(long, value_enum, default_value = "calls")]
    pub view: ViewArg,
    /// Whole-trace threshold of the `global` and `merge+global` methods: 0.1% or 0.001
    #[arg(long, value_name = "P", default_value = "0.1%", value_parser = parse_share, allow_negative_numbers = true)]
    pub min_total: f64,
    /// Protect the distinguishing functions (features.csv) in every method's output
    #[arg(long)]
    pub keep_features: bool,
    /// Skip malformed lines of every trace (and count them) instead of stopping at the first
    #[arg(long)]
    pub lenient: bool,
    /// Directory for the CSV and SVG files (created if missing)
    #[arg(long, value_name = "DIR", default_value = "compare-out")]
    pub out_dir: PathBuf,
}

/// Most parsing threads `--threads` accepts.
pub const MAX_THREADS: usize = 1024;

fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n <= MAX_THREADS => Ok(n),
        _ => Err(format!(
            "expected a whole number from 0 (one per core) to {MAX_THREADS}, found `{s}`"
        )),
    }
}

fn parse_sweep(s: &str) -> Result<Sweep, String> {
    Sweep::parse(s).map_err(|e| match e {
        crate::Error::Usage { msg, .. } => msg,
        other => other.to_string(),
    })
}

fn parse_share(s: &str) -> Result<f64, String> {
    crate::abstraction::parse_threshold(s).map_err(|e| match e {
        crate::Error::Usage { msg, .. } => msg.replace("--threshold", "--min-total"),
        other => other.to_string(),
    })
}

/// `graph`'s `--min-total`/`--min-edge`: a percentage (`5` is 5%), finite
/// and from 0 to 100, as `abstract` requires of its shares.
fn parse_percent(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| {
        format!("`{s}` is not a number: give a percentage from 0 to 100, such as 0.5")
    })?;
    match v.is_finite() && (0.0..=100.0).contains(&v) {
        true => Ok(v),
        false => Err(format!("`{s}` is not a percentage from 0 to 100")),
    }
}

fn parse_threshold(s: &str) -> Result<f64, String> {
    crate::abstraction::parse_threshold(s).map_err(|e| match e {
        crate::Error::Usage { msg, .. } => msg,
        other => other.to_string(),
    })
}

impl FormatArg {
    fn name(self) -> &'static str {
        match self {
            FormatArg::Addr => "addr",
            FormatArg::Symbolic => "symbolic",
            FormatArg::Indented => "indented",
            FormatArg::Binary => "binary",
        }
    }
}

impl From<ViewArg> for View {
    fn from(v: ViewArg) -> View {
        match v {
            ViewArg::Calls => View::Calls,
            ViewArg::Contexts => View::Contexts,
        }
    }
}

impl InputArgs {
    /// Converts the flags into the pipeline's options.
    pub fn into_options(self) -> InputOptions {
        InputOptions {
            trace: self.trace,
            binary: self.binary,
            format: self.format.map(|f| f.name().to_string()),
            parse: ParseOptions {
                lenient: self.lenient,
                threads: self.threads,
                ..ParseOptions::default()
            },
            rules: self.rules,
            symbols: self.symbols.into_options(),
            quiet: self.quiet,
        }
    }
}

impl GraphArgs {
    /// Converts the flags into [`GraphOptions`].
    pub fn into_options(self) -> GraphOptions {
        GraphOptions {
            input: self.input.into_options(),
            output: self.output,
            csv: self.csv,
            style: match self.style {
                StyleArg::Hot => Style::Hot,
                StyleArg::Plain => Style::Plain,
            },
            min_total: self.min_total,
            min_edge: self.min_edge,
            focus: self.focus,
            root: self.root,
            // The start is level 1 for --max-depth, level 0 for the old --depth.
            depth: self.max_depth.map(|n| n - 1).or(self.depth),
            time_unit: self.time_unit.into(),
        }
    }
}

impl TreeArgs {
    /// Converts the flags into [`TreeOptions`].
    pub fn into_options(self) -> TreeOptions {
        TreeOptions {
            input: self.input.into_options(),
            view: self.view.into(),
            output: self.output,
            max_depth: self.max_depth,
            time_unit: self.time_unit.into(),
        }
    }
}

impl AbstractionArgs {
    /// Converts the flags into the abstraction's [`Options`].
    pub fn into_options(self) -> Options {
        Options {
            modules: self.modules,
            merge: self.merge_modules,
            view: self.view.map(View::from),
            fold_recursion: self.fold_recursion,
            threshold: self.threshold,
            min_total: self.min_total,
            max_nodes: self.max_nodes,
            keep: self.keep,
            chains: match (self.fold_chains, self.no_fold_chains) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
        }
    }
}

impl AbstractArgs {
    /// Converts the flags into [`AbstractOptions`].
    pub fn into_options(self) -> AbstractOptions {
        AbstractOptions {
            input: self.input.into_options(),
            abstraction: self.abstraction.into_options(),
            dot: match (self.output, &self.tree_out, &self.stats) {
                (Some(o), _, _) => Some(o),
                (None, None, None) => Some(PathBuf::from(crate::run::abstract_cmd::DEFAULT_DOT)),
                _ => None,
            },
            tree_out: self.tree_out,
            stats: self.stats,
            max_depth: self.max_depth,
        }
    }
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
        }
    }
}

impl CompareArgs {
    /// Converts the flags into [`CompareOptions`].
    pub fn into_options(self) -> CompareOptions {
        CompareOptions {
            traces: self.traces,
            binary: self.binary,
            rules: self.rules,
            symbols: self.symbols.into_options(),
            modules: self.modules,
            threshold: self.threshold,
            sweep: self.sweep,
            view: self.view.into(),
            min_total: self.min_total,
            keep_features: self.keep_features,
            lenient: self.lenient,
            out_dir: self.out_dir,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Command {
        Cli::try_parse_from(std::iter::once("calltrace").chain(args.iter().copied()))
            .unwrap()
            .command
    }

    #[test]
    fn defaults_map_to_default_options() {
        let Command::Graph(g) = parse(&["graph"]) else {
            panic!("graph")
        };
        assert_eq!(g.into_options(), GraphOptions::default());
        let Command::Tree(t) = parse(&["tree"]) else {
            panic!("tree")
        };
        assert_eq!(t.into_options(), TreeOptions::default());
        let Command::Abstract(a) = parse(&["abstract"]) else {
            panic!("abstract")
        };
        assert_eq!(a.into_options(), AbstractOptions::default());
        let Command::Compare(c) = parse(&["compare", "a.trace"]) else {
            panic!("compare")
        };
        let expected = CompareOptions {
            traces: vec!["a.trace".to_string()],
            ..CompareOptions::default()
        };
        assert_eq!(c.into_options(), expected);
        let Command::Live(l) = parse(&["live"]) else {
            panic!("live")
        };
        assert_eq!(l.into_options(), LiveOptions::default());
    }

    #[test]
    fn man_page_and_completions_cover_every_command() {
        let mut man = Vec::new();
        man_page(&mut man).unwrap();
        let man = String::from_utf8(man).unwrap();
        assert!(man.starts_with(".ie \\n(.g .ds Aq"), "roff: {}", &man[..40]);
        for heading in [".SH \"CALLTRACE GRAPH\"", ".SH \"CALLTRACE EXPORT\""] {
            assert!(man.contains(heading), "{heading}");
        }
        assert!(man.contains("min\\-total"), "graph's flags are documented");
        let mut bash = Vec::new();
        completions(clap_complete::Shell::Bash, &mut bash);
        let bash = String::from_utf8(bash).unwrap();
        assert!(bash.contains("complete -F _calltrace"), "{bash}");
        assert!(bash.contains("--time-unit") && bash.contains("flamegraph"));
    }

    #[test]
    fn export_flags_reach_the_options() {
        let Command::Export(e) = parse(&["export", "--to", "folded", "-o", "-"]) else {
            panic!("export")
        };
        assert_eq!(e.into_options(), ExportOptions::default());
        let Command::Export(e) = parse(&[
            "export",
            "./app",
            "--to",
            "chrome",
            "-o",
            "t.json",
            "--threshold",
            "80%",
            "--merge-modules",
            "--modules",
            "auto:file",
            "--view",
            "contexts",
        ]) else {
            panic!("export")
        };
        let o = e.into_options();
        let a = &o.abstraction;
        assert_eq!((o.to.as_str(), a.view), ("chrome", Some(View::Contexts)));
        assert_eq!((a.merge, a.threshold), (true, Some(0.8)));
        assert_eq!(a.modules.as_deref(), Some("auto:file"));
        let err = Cli::try_parse_from(["calltrace", "export", "--to", "svg", "-o", "x"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("folded") && err.contains("callgrind"), "{err}");
    }

    #[test]
    fn compare_flags_reach_the_options() {
        let Command::Compare(c) = parse(&[
            "compare",
            "--binary",
            "./app",
            "--modules",
            "m.csv",
            "--threshold",
            "80%",
            "--sweep",
            "0.5:1:0.1",
            "--view",
            "contexts",
            "--out-dir",
            "out",
            "x=a.trace",
            "b.trace",
        ]) else {
            panic!("compare")
        };
        let o = c.into_options();
        assert_eq!(o.traces, ["x=a.trace", "b.trace"]);
        assert_eq!(o.binary, Some(PathBuf::from("./app")));
        assert_eq!(o.modules.as_deref(), Some("m.csv"));
        assert_eq!((o.threshold, o.view), (0.8, View::Contexts));
        assert_eq!(o.sweep.points().len(), 6);
        assert_eq!(o.out_dir, PathBuf::from("out"));
        let err = Cli::try_parse_from(["calltrace", "compare", "--sweep", "0:1", "a"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--sweep") && err.contains("START:END:STEP"),
            "{err}"
        );
        assert!(Cli::try_parse_from(["calltrace", "compare"]).is_err());
    }

    #[test]
    fn abstract_flags_reach_the_options() {
        let Command::Abstract(a) = parse(&[
            "abstract",
            "--threshold",
            "90%",
            "--merge-modules",
            "--modules",
            "auto:file",
        ]) else {
            panic!("abstract")
        };
        let o = a.into_options().abstraction;
        assert!(o.merge && !o.no_method());
        assert_eq!(o.threshold, Some(0.9));
        assert_eq!(o.modules.as_deref(), Some("auto:file"));
        let Command::Abstract(a) = parse(&[
            "abstract",
            "--fold-recursion",
            "--min-total",
            "0.1%",
            "--max-nodes",
            "50",
            "--keep",
            "lua*",
            "--keep",
            "f?",
            "--fold-chains",
            "--view",
            "calls",
        ]) else {
            panic!("abstract")
        };
        let o = a.into_options().abstraction;
        assert!(o.fold_recursion && o.chains == Some(true) && !o.merge);
        assert_eq!((o.min_total, o.max_nodes), (Some(0.001), Some(50)));
        assert_eq!(o.keep, ["lua*", "f?"]);
        assert_eq!(o.view, Some(View::Calls));
        let err = Cli::try_parse_from(["calltrace", "abstract", "--threshold", "2"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected a number in [0, 1]"), "{err}");
    }

    #[test]
    fn flags_reach_the_options() {
        let Command::Tree(t) = parse(&[
            "tree",
            "./app",
            "--trace",
            "-",
            "--view",
            "contexts",
            "--format",
            "binary",
            "--lenient",
        ]) else {
            panic!("tree")
        };
        let o = t.into_options();
        assert_eq!(o.view, View::Contexts);
        assert_eq!(o.input.binary, Some(PathBuf::from("./app")));
        assert_eq!(o.input.format.as_deref(), Some("binary"));
        assert!(o.input.parse.lenient);
        let Command::Graph(g) = parse(&["graph", "--rules", "r.json"]) else {
            panic!("graph")
        };
        assert_eq!(g.into_options().input.rules, Some(PathBuf::from("r.json")));
        let Command::Compare(c) = parse(&["compare", "--rules", "r.json", "a.log"]) else {
            panic!("compare")
        };
        assert_eq!(c.into_options().rules, Some(PathBuf::from("r.json")));
        let Command::Live(l) = parse(&["live", "./app", "--trace", "t.fifo"]) else {
            panic!("live")
        };
        let l = l.into_options();
        assert_eq!(
            (l.binary, l.trace),
            (Some(PathBuf::from("./app")), PathBuf::from("t.fifo"))
        );
        assert_eq!(o.input.symbols, SymbolOptions::default());
    }

    #[test]
    fn symbol_flags_reach_every_command() {
        let want = SymbolOptions {
            search_path: vec![PathBuf::from("a"), PathBuf::from("b")],
            demangle: Demangle::Simple,
            allow_mismatch: true,
            perf_map: Some(PathBuf::from("jit.map")),
        };
        let flags = [
            "--search-path",
            "a",
            "--search-path",
            "b",
            "--demangle",
            "simple",
            "--allow-mismatch",
            "--perf-map",
            "jit.map",
        ];
        for cmd in ["graph", "tree", "abstract"] {
            let got = match parse(&[&[cmd][..], &flags[..]].concat()) {
                Command::Graph(g) => g.into_options().input.symbols,
                Command::Tree(t) => t.into_options().input.symbols,
                Command::Abstract(a) => a.into_options().input.symbols,
                _ => panic!("{cmd}"),
            };
            assert_eq!(got, want, "{cmd}");
        }
        let Command::Compare(c) = parse(&[&["compare"][..], &flags[..], &["t"][..]].concat())
        else {
            panic!("compare")
        };
        assert_eq!(c.into_options().symbols, want);
        let Command::Live(l) = parse(&[&["live"][..], &flags[..]].concat()) else {
            panic!("live")
        };
        assert_eq!(l.into_options().symbols, want);
        let export = [&["export", "--to", "folded", "-o", "-"][..], &flags[..]].concat();
        let Command::Export(e) = parse(&export) else {
            panic!("export")
        };
        assert_eq!(e.into_options().input.symbols, want);
        let none = parse(&["tree", "--demangle", "none"]);
        let Command::Tree(t) = none else {
            panic!("tree")
        };
        assert_eq!(t.into_options().input.symbols.demangle, Demangle::None);
    }

    #[test]
    fn out_of_range_threads_name_the_flag() {
        for bad in ["4000000000", "1025", "x"] {
            let err = Cli::try_parse_from(["calltrace", "graph", "--threads", bad])
                .unwrap_err()
                .to_string();
            assert!(err.contains("--threads") && err.contains("1024"), "{err}");
        }
        let Command::Graph(g) = parse(&["graph", "--threads", "1024"]) else {
            panic!("graph")
        };
        assert_eq!(g.into_options().input.parse.threads, 1024);
    }
}
