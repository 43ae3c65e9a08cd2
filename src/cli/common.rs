//! The flags every trace-reading command shares, defined once and
//! flattened into each command: the input (trace, format, rules, lenient
//! parsing, threads, quiet), the filters (`--tid`, `--time-range`,
//! `--function`, `--exclude`), how functions are named, and the value enums
//! several commands take (`--view`, `--time-unit`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::abstraction::ModulesArg;
use crate::calltree::View;
use crate::emit::format::TimeUnit;
use crate::ingest::ParseOptions;
use crate::ingest::slice::{Filter, TimeRange};
use crate::pipeline::InputOptions;
use crate::symbols::{Demangle, FuncPattern, ObjectArg, SymbolOptions};

/// `[BINARY]`'s help in every command that takes it.
pub(crate) const BINARY_HELP: &str = "The traced executable (ELF with debug info). Default: the executable the trace records, when that file is there; failing both, addresses are shown in hex";

/// The trace and program of every command that reads one trace, and how
/// it is read.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The traced executable (the help text is [`BINARY_HELP`]).
    #[arg(value_name = "BINARY", help = BINARY_HELP)]
    pub binary: Option<PathBuf>,
    /// Trace file to read, `-` for standard input, or a uftrace recording directory
    #[arg(long, value_name = "FILE", default_value = "trace.txt")]
    pub trace: PathBuf,
    /// How traces are read and functions named.
    #[command(flatten)]
    pub read: ReadArgs,
}

/// How traces are read and their functions named: the flags every
/// trace-reading command shares (`compare` too, for each of its traces).
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Trace format instead of guessing it from the first lines
    #[arg(long, value_name = "FORMAT", value_parser = trace_formats())]
    pub format: Option<String>,
    /// Skip malformed lines (and count them) instead of stopping at the first
    #[arg(long)]
    pub lenient: bool,
    /// Threads for parsing big traces; 0 = one per core (output is the same for any number)
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: usize,
    /// Clock rate of the target in Hz (72000000, 72MHz, 16k): a freestanding trace's cycles become times; overrides the rate the trace records
    #[arg(long, value_name = "HZ", value_parser = parse_clock_hz)]
    pub clock_hz: Option<u64>,
    /// Read the trace as a text log through these conversion rules (see docs/rules.md; rules/ has examples)
    #[arg(long, value_name = "FILE.json", conflicts_with = "format")]
    pub rules: Option<PathBuf>,
    /// How functions are named.
    #[command(flatten)]
    pub symbols: SymbolArgs,
    /// No progress bar while a big trace is read (there is none when stderr is not a terminal)
    #[arg(short, long)]
    pub quiet: bool,
    /// What part of the trace to keep.
    #[command(flatten)]
    pub filter: FilterArgs,
}

/// `--tid`, `--time-range`, `--function`, `--exclude`: which part of a
/// trace every command reads (uftrace's filters of the same meaning).
#[derive(Debug, Args)]
pub struct FilterArgs {
    /// Keep only these threads: ids as the trace records them, or the names the trace or rules give them (comma-separated; repeatable)
    #[arg(long, help_heading = "Filters", value_name = "LIST")]
    pub tid: Vec<String>,
    /// Keep the calls that start in this range from the trace's first event, cut at its end: 10ms..250ms, ..1s, 500us.. (units ns, us, ms, s)
    #[arg(long, help_heading = "Filters", value_name = "START..END", value_parser = parse_time_range)]
    pub time_range: Option<TimeRange>,
    /// Keep only calls made while a matching function is on the stack, rooted at it (repeatable; uftrace -F; FUNC: see README "Naming functions")
    #[arg(long, help_heading = "Filters", value_name = "FUNC")]
    pub function: Vec<FuncPattern>,
    /// Drop matching functions with their subtrees; their time stays in the caller's self time (repeatable; uftrace -N; FUNC: see README "Naming functions")
    #[arg(long, help_heading = "Filters", value_name = "FUNC")]
    pub exclude: Vec<FuncPattern>,
}

impl FilterArgs {
    /// Converts the flags into the pipeline's [`Filter`].
    pub fn into_filter(self) -> Filter<FuncPattern> {
        Filter {
            tids: self.tid,
            range: self.time_range,
            function: self.function,
            exclude: self.exclude,
        }
    }
}

fn parse_time_range(s: &str) -> Result<TimeRange, String> {
    s.parse()
}

/// `--time-unit`, for every command that prints times.
#[derive(Debug, Args)]
pub struct TimeUnitArgs {
    /// Unit of the times shown (`ns` prints the exact values)
    #[arg(long, value_enum, value_name = "UNIT", default_value = "auto")]
    pub time_unit: TimeUnitArg,
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
    /// Directory of separate debug files, searched before /usr/lib/debug: a `.build-id/xx/rest.debug` tree, or where a `.gnu_debuglink` target is, under the program's own directory (repeatable)
    #[arg(long, value_name = "DIR")]
    pub debug_dir: Vec<PathBuf>,
    /// ELF object the trace does not record, naming the addresses it holds: at its link addresses (firmware, a bootloader), or a shared library at its load base ADDRESS (hex 0x... or decimal) in a trace without `# map` lines (repeatable)
    #[arg(long, value_name = "FILE[@ADDRESS]")]
    pub object: Vec<ObjectArg>,
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
            debug_dirs: self.debug_dir,
            objects: self.object,
        }
    }
}

/// `--format` values with their help, from the format list.
fn trace_formats() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        crate::ingest::formats()
            .map(|f| clap::builder::PossibleValue::new(f.name()).help(f.help())),
    )
}

/// `--show`, for every command that prints a tree's nodes.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Show each node's per-call numbers next to its total: max, p99, p90, p50, mean, min (comma-separated or repeated)
    #[arg(long, value_enum, value_name = "STAT", value_delimiter = ',')]
    pub show: Vec<StatArg>,
}

/// `--show` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatArg {
    /// The slowest call
    Max,
    /// The 99th percentile of a call (within 1%)
    P99,
    /// The 90th percentile of a call (within 1%)
    P90,
    /// The median call (within 1%)
    P50,
    /// The mean call
    Mean,
    /// The fastest call
    Min,
}

impl ShowArgs {
    /// The numbers to show, in the order given, each once.
    pub fn stats(&self) -> Vec<crate::calltree::Stat> {
        use crate::calltree::Stat;
        let mut out: Vec<Stat> = Vec::new();
        for s in &self.show {
            let stat = match s {
                StatArg::Max => Stat::Max,
                StatArg::P99 => Stat::P99,
                StatArg::P90 => Stat::P90,
                StatArg::P50 => Stat::P50,
                StatArg::Mean => Stat::Mean,
                StatArg::Min => Stat::Min,
            };
            if !out.contains(&stat) {
                out.push(stat);
            }
        }
        out
    }
}

/// `--by` values (`diff`, `stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    /// One row per function
    Function,
    /// One row per calling context (path of names), with a `path` column
    Context,
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

/// `--modules` values, parsed once here: `auto`, `auto:file`, `auto:dir`,
/// `auto:prefix` or a table file.
pub(crate) fn parse_modules(s: &str) -> Result<ModulesArg, String> {
    ModulesArg::parse(s)
}

/// `--clock-hz` values: a number of hertz, optionally with a `k`, `M`
/// or `G` multiplier and `Hz` (`72MHz`, `32.768kHz`, `8000000`).
pub(crate) fn parse_clock_hz(s: &str) -> Result<u64, String> {
    clock_hz(s).filter(|&h| h > 0).ok_or_else(|| {
        format!("expected a clock rate in Hz above 0 (72000000, 72MHz, 32.768kHz), found `{s}`")
    })
}

fn clock_hz(s: &str) -> Option<u64> {
    let t = s.trim();
    let t = t.strip_suffix("Hz").unwrap_or(t);
    let (digits, scale) = match t.chars().last()? {
        'k' => (&t[..t.len() - 1], 1_000),
        'M' => (&t[..t.len() - 1], 1_000_000),
        'G' => (&t[..t.len() - 1], 1_000_000_000),
        _ => (t, 1),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let digit = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !digit(int) || !digit(frac) || frac.len() > 9 {
        return None;
    }
    let frac_hz = match frac {
        "" => 0,
        f => (f.parse::<u128>().ok()? * scale as u128 / 10u128.pow(f.len() as u32)) as u64,
    };
    int.parse::<u64>()
        .ok()?
        .checked_mul(scale)?
        .checked_add(frac_hz)
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

impl From<View> for ViewArg {
    fn from(v: View) -> ViewArg {
        match v {
            View::Calls => ViewArg::Calls,
            View::Contexts => ViewArg::Contexts,
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
        self.read.into_options(self.trace, self.binary)
    }
}

impl ReadArgs {
    /// The pipeline's options for reading `trace` (named by `binary`).
    pub fn into_options(self, trace: PathBuf, binary: Option<PathBuf>) -> InputOptions {
        InputOptions {
            trace,
            binary,
            format: self.format,
            parse: ParseOptions {
                lenient: self.lenient,
                threads: self.threads,
                clock_hz: self.clock_hz,
                ..ParseOptions::default()
            },
            rules: self.rules,
            symbols: self.symbols.into_options(),
            quiet: self.quiet,
            per_call: None,
            filter: self.filter.into_filter(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_rates_take_multipliers_and_refuse_zero_and_junk() {
        for (text, hz) in [
            ("72000000", 72_000_000),
            ("72MHz", 72_000_000),
            ("72M", 72_000_000),
            ("32.768kHz", 32_768),
            ("16k", 16_000),
            ("1.5GHz", 1_500_000_000),
            ("48000000Hz", 48_000_000),
        ] {
            assert_eq!(parse_clock_hz(text), Ok(hz), "{text}");
        }
        for bad in [
            "0", "0MHz", "", "MHz", "-5", "72 MHz", "1e6", "72mhz", "1.2.3k",
        ] {
            let err = parse_clock_hz(bad).expect_err(bad);
            assert!(err.contains("expected a clock rate in Hz above 0"), "{err}");
        }
    }

    #[test]
    fn clock_hz_reaches_every_commands_parse_options() {
        use clap::Parser;
        let cases: [&[&str]; 9] = [
            &["graph"],
            &["tree"],
            &["abstract"],
            &["export", "--to", "folded", "-o", "-"],
            &["stats"],
            &["view", "-o", "v.html"],
            &["coverage", "prog"],
            &["diff", "a", "b"],
            &["compare", "t"],
        ];
        for args in cases {
            let line = [&["calltrace"][..], args, &["--clock-hz", "8MHz"]].concat();
            let cli =
                crate::cli::Cli::try_parse_from(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
            let debug = format!("{:?}", cli.command);
            assert!(debug.contains("clock_hz: Some(8000000)"), "{line:?}");
        }
        let cli = crate::cli::Cli::try_parse_from(["calltrace", "graph", "--clock-hz", "8k"]);
        let Ok(crate::cli::Cli {
            command: crate::cli::Command::Graph(g),
            ..
        }) = cli
        else {
            panic!("graph")
        };
        assert_eq!(g.into_options().input.parse.clock_hz, Some(8_000));
    }
}
