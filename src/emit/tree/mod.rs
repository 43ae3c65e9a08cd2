//! The indented `name (self / total)` text of a call tree, the abstraction
//! paper's format (fig. 1), which `calltrace` reads back unchanged: two
//! spaces per level, the synthetic root not printed, thread nodes printed as
//! `[thread N]`, ` xN` after nodes that stand for N > 1 calls, and names
//! escaped so that any name reads back ([`crate::ingest::indented::escape_name`]:
//! `\\` for a backslash, `\#` for a leading `#`, `\xHH` for control
//! characters and a space at either end, `\u{H}` for other white space).
//!
//! The text is streamed, never built in memory. Its indentation still
//! grows with the square of the depth (a chain of d calls costs d(d-1)
//! bytes of spaces), so [`depth_warning`] says when that gets huge and
//! `max_depth` cuts the output below a depth.
//!
//! Times carry their unit (`(1.2 ms / 3.4 ms)`, `--time-unit`); call
//! counts and numbers of unknown unit are printed bare, as the paper does.

mod only;

use std::io::{self, Write};

use super::format::{TimeUnit, quantity, weight};
use crate::calltree::{NodeId, Stat, Tree};
use crate::ingest::Unit;
use crate::ingest::indented::escape_name;
use crate::symbols::FuncInfo;

pub use only::{Only, mask};

/// Indentation above which [`depth_warning`] speaks up (1 GiB).
pub const HUGE_INDENT: u64 = 1 << 30;

/// Lines of a one-node-per-call tree above which `calltrace tree` suggests
/// the contexts view: a million lines is more than anyone reads.
pub const HUGE_CALLS_LINES: u64 = 1_000_000;

/// How many lines the text of `tree` has, as `opts` prints it.
pub fn lines(tree: &Tree, opts: &Options) -> u64 {
    lines_per_depth(tree, opts).iter().sum()
}

/// Renders `tree` (every node below the root) as indented text, times in
/// exact nanoseconds, for files that are read back.
pub fn indented(tree: &Tree, names: &[FuncInfo]) -> Vec<u8> {
    let mut out = Vec::new();
    write_indented_in(tree, names, None, TimeUnit::Ns, &mut out).expect("writing to memory");
    out
}

/// Writes `tree` as indented text to `out` as it goes, so a tree of 10^8
/// calls never exists as text in memory. The tree is stored in preorder,
/// so this is one pass with a stack as deep as the tree.
pub fn write_indented(tree: &Tree, names: &[FuncInfo], out: &mut dyn Write) -> io::Result<()> {
    write_indented_to(tree, names, None, out)
}

/// Like [`write_indented`], leaving out nodes deeper than `max_depth`
/// (top-level calls are depth 1); their time stays in their ancestors'
/// totals.
pub fn write_indented_to(
    tree: &Tree,
    names: &[FuncInfo],
    max_depth: Option<u32>,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_indented_in(tree, names, max_depth, TimeUnit::Auto, out)
}

/// Like [`write_indented_to`], with times shown in `shown`
/// (`TimeUnit::Ns` prints exactly what the tree holds).
pub fn write_indented_in(
    tree: &Tree,
    names: &[FuncInfo],
    max_depth: Option<u32>,
    shown: TimeUnit,
    out: &mut dyn Write,
) -> io::Result<()> {
    let opts = Options {
        max_depth,
        time_unit: shown,
        ..Options::default()
    };
    write_indented_with(tree, names, &opts, out)
}

/// How [`write_indented_with`] writes a tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Leave out nodes deeper than this (top-level calls are depth 1).
    /// Default is none.
    pub max_depth: Option<u32>,
    /// Unit of the times. Default is auto.
    pub time_unit: TimeUnit,
    /// Per-call numbers shown after each line as `[max 1.20 ms, p99 ...]`
    /// (`--show`), for nodes whose distributions the tree has; such text
    /// is for people and is not read back. Default is none.
    pub show: Vec<Stat>,
    /// Only the nodes marked true are printed, indented by their printed
    /// ancestors (`tree --root`/`--focus`: see [`mask`], which then holds
    /// the depth limit too). Default is none: every node.
    pub kept: Option<Vec<bool>>,
}

/// Writes `tree` as indented text by `opts`, streamed.
pub fn write_indented_with(
    tree: &Tree,
    names: &[FuncInfo],
    opts: &Options,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let limit = depth_limit(opts);
    let mut result = Ok(());
    walk_kept(tree, opts.kept.as_deref(), |n, depth| {
        if depth < limit && result.is_ok() {
            result = line(&mut out, tree, names, n, depth, opts.time_unit)
                .and_then(|_| shown_stats(&mut out, tree, n, opts))
                .and_then(|_| out.write_all(b"\n"));
        }
    });
    result?;
    out.flush()
}

/// ` [max 1.20 ms, p99 980 us]` of node `n`, when asked for and known.
fn shown_stats(out: &mut impl Write, tree: &Tree, n: NodeId, opts: &Options) -> io::Result<()> {
    if opts.show.is_empty() || !tree.unit.is_time() {
        return Ok(());
    }
    let Some(d) = tree.dist(n).filter(|d| d.total.count > 0) else {
        return Ok(());
    };
    let parts: Vec<String> = opts
        .show
        .iter()
        .map(|s| {
            let v = quantity(s.of(&d.total), tree.unit, tree.decimals, opts.time_unit);
            format!("{} {v}", s.name())
        })
        .collect();
    write!(out, " [{}]", parts.join(", "))
}

/// The printed depth below which lines are left out: `max_depth`, unless
/// a mask of kept nodes already holds the limit.
fn depth_limit(opts: &Options) -> usize {
    match (&opts.kept, opts.max_depth) {
        (None, Some(d)) => d as usize,
        _ => usize::MAX,
    }
}

/// Calls `visit(node, depth)` for every node below the root in preorder
/// that `kept` marks (every node without it); depth counts the visited
/// ancestors (0 for top-level lines).
fn walk_kept(tree: &Tree, kept: Option<&[bool]>, mut visit: impl FnMut(NodeId, usize)) {
    // Ends (exclusive) of the visited subtrees the current node is in;
    // its depth is how many there are.
    let mut open: Vec<NodeId> = Vec::new();
    for n in 1..tree.len() as NodeId {
        while open.last().is_some_and(|&end| end <= n) {
            open.pop();
        }
        if kept.is_none_or(|k| k[n as usize]) {
            visit(n, open.len());
            open.push(n + tree.size(n));
        }
    }
}

/// Lines of the text of `tree` at each depth, as `opts` prints it.
fn lines_per_depth(tree: &Tree, opts: &Options) -> Vec<u64> {
    let limit = depth_limit(opts);
    let mut lines = Vec::new();
    walk_kept(tree, opts.kept.as_deref(), |_, depth| {
        if depth < limit {
            if lines.len() <= depth {
                lines.resize(depth + 1, 0);
            }
            lines[depth] += 1;
        }
    });
    lines
}

/// A warning when the indented text would hold more than [`HUGE_INDENT`]
/// bytes of indentation, with the `--max-depth` that keeps it below: a
/// deep recursion (whose indentation grows with the square of its depth)
/// or simply a very big tree.
pub fn depth_warning(tree: &Tree, max_depth: Option<u32>) -> Option<String> {
    let opts = Options {
        max_depth,
        ..Options::default()
    };
    depth_warning_with(tree, &opts)
}

/// [`depth_warning`] for the text `opts` prints.
pub fn depth_warning_with(tree: &Tree, opts: &Options) -> Option<String> {
    let lines = lines_per_depth(tree, opts);
    // Indentation of the lines above each depth: a line at depth k has 2k spaces.
    let mut below = 0u64;
    let mut fits = lines.len();
    for (k, &n) in lines.iter().enumerate() {
        let more = below.saturating_add(n.saturating_mul(2 * k as u64));
        if more > HUGE_INDENT && fits == lines.len() {
            fits = k;
        }
        below = more;
    }
    (below > HUGE_INDENT).then(|| {
        format!(
            "the indented tree holds {:.1} GiB of indentation alone ({:.1} M lines, {} levels \
             deep); --max-depth {fits} keeps it under 1 GiB",
            below as f64 / (1u64 << 30) as f64,
            lines.iter().sum::<u64>() as f64 / 1e6,
            lines.len(),
        )
    })
}

fn line(
    out: &mut impl Write,
    tree: &Tree,
    names: &[FuncInfo],
    n: NodeId,
    depth: usize,
    shown: TimeUnit,
) -> io::Result<()> {
    let d = tree.decimals;
    let w = |v| match tree.unit {
        Unit::Nanos | Unit::Calls | Unit::Cycles => quantity(v, tree.unit, d, shown),
        Unit::Number => weight(v, d),
    };
    const SPACES: [u8; 512] = [b' '; 512];
    let mut left = 2 * depth;
    while left > 0 {
        let n = left.min(SPACES.len());
        out.write_all(&SPACES[..n])?;
        left -= n;
    }
    let name = escape_name(&names[tree.func(n) as usize].name);
    write!(
        out,
        "{name} ({} / {})",
        w(tree.self_time(n)),
        w(tree.total(n))
    )?;
    if tree.calls(n) > 1 {
        write!(out, " x{}", tree.calls(n))?;
    }
    Ok(())
}
