//! `diff --flamegraph`: a differential flame graph drawn by inferno from
//! both sides' stacks (calling contexts with their self weights, medians
//! over runs). Widths come from one side and the colour from the change:
//! red where new spends more, blue where it spends less, and neutral where
//! the row is no finding (`same` or `untested`, as the table and the DOT
//! judge it), however its share moved. In the main
//! graph widths are the new side's, so code only the base ran has no
//! width there; `--flamegraph-removed` draws the same stacks with the
//! base side's widths (inferno's negated differential, as `difffolded.pl
//! -n` with `flamegraph.pl --negate`), where removed code is visible and
//! the colours still mean the same. Every stack repeats its whole path,
//! so a deep recursion's stacks are cut at the depth that keeps them
//! within [`MAX_STACKS`], and the picture says so.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::diff::{Diff, Row};
use crate::emit::export::frame;
use crate::stats::contexts::{ContextId, Contexts};

/// Which side gives the widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Widths {
    /// The new side's (the usual differential flame graph).
    New,
    /// The base side's: what was removed stays visible.
    Base,
}

/// The most bytes of stacks drawn: inferno holds them all, and every
/// stack repeats its whole path (256 MiB, as `export --to flamegraph`).
pub const MAX_STACKS: u64 = 32 << 20;

/// Bytes a line takes beyond its stack: two counts and their spaces.
const LINE_EXTRA: u64 = 42;

/// What was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drawn {
    /// The depth the stacks were cut at to stay within [`MAX_STACKS`]
    /// (deeper calls drawn in their caller at that depth), if they were.
    pub cut_at: Option<u32>,
}

/// The folded lines `stack before after` inferno reads as a differential,
/// for a diff by context, and the depth they were cut at (see [`Drawn`]);
/// stacks with no self weight on either side are left out. A row that is
/// not a finding (`same`, `untested`) has `before` equal to `after`, so
/// inferno draws it neutral: the colours follow the table's rule. The
/// frames are escaped as the folded export escapes them.
pub(crate) fn lines(d: &Diff, widths: Widths) -> (Vec<String>, Option<u32>) {
    let cx = d.contexts();
    let frames: Vec<Cow<'_, str>> = (0..cx.len() as u32)
        .map(|c| frame(d.label_name(cx.label(c))))
        .collect();
    let lens = cx.path_lengths(|c| frames[c as usize].len() as u64);
    let depths = cx.depths();
    let drawn: Vec<&Row> = d
        .rows
        .iter()
        .filter(|r| r.context.is_some() && (r.base.self_weight > 0 || r.new.self_weight > 0))
        .collect();
    let deepest = depths.iter().copied().max().unwrap_or(0);
    let fits = |cut: u32| bytes_cut_at(cx, &depths, &lens, &drawn, cut) <= MAX_STACKS;
    let cut = match fits(deepest) {
        true => None,
        // The deepest cut that fits (fewer bytes the shallower the cut).
        false => Some(deepest_fitting(deepest, fits)),
    };
    let at = ancestors_at(cx, &depths, cut.unwrap_or(deepest));
    let mut merged: BTreeMap<ContextId, (u64, u64)> = BTreeMap::new();
    for r in drawn {
        let (before, after) = shown(r, widths);
        let c = at[r.context.expect("a context row") as usize];
        let m = merged.entry(c).or_default();
        *m = (m.0.saturating_add(before), m.1.saturating_add(after));
    }
    let lines = merged
        .into_iter()
        .map(|(c, (before, after))| format!("{} {before} {after}", stack(cx, &frames, c)))
        .collect();
    (lines, cut)
}

/// A row's `before after`: widths from one side, and no difference for a
/// row that is not a finding.
fn shown(r: &Row, widths: Widths) -> (u64, u64) {
    let (before, after) = match widths {
        Widths::New => (r.base.self_weight, r.new.self_weight),
        Widths::Base => (r.new.self_weight, r.base.self_weight),
    };
    match r.change.is_finding() {
        true => (before, after),
        false => (after, after),
    }
}

/// The largest cut in `1..=deepest` for which `fits` holds (1 if none).
fn deepest_fitting(deepest: u32, fits: impl Fn(u32) -> bool) -> u32 {
    let (mut lo, mut hi) = (1, deepest);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        match fits(mid) {
            true => lo = mid,
            false => hi = mid - 1,
        }
    }
    lo
}

/// Each context's ancestor at depth `cut` (itself when not deeper), in
/// one pass: parents come before their children.
fn ancestors_at(cx: &Contexts, depths: &[u32], cut: u32) -> Vec<ContextId> {
    let mut at: Vec<ContextId> = Vec::with_capacity(cx.len());
    for c in 0..cx.len() as ContextId {
        let a = match (depths[c as usize] > cut, cx.parent(c)) {
            (true, Some(p)) => at[p as usize],
            _ => c,
        };
        at.push(a);
    }
    at
}

/// The bytes of the lines when stacks end at depth `cut` (rows below it
/// are one line with their ancestor at that depth).
fn bytes_cut_at(cx: &Contexts, depths: &[u32], lens: &[u64], rows: &[&Row], cut: u32) -> u64 {
    let at = ancestors_at(cx, depths, cut);
    let mut drawn = vec![false; cx.len()];
    let mut bytes = 0u64;
    for c in rows.iter().filter_map(|r| r.context) {
        let line = at[c as usize] as usize;
        if !std::mem::replace(&mut drawn[line], true) {
            bytes = bytes.saturating_add(lens[line] + LINE_EXTRA);
        }
    }
    bytes
}

/// A context's stack: its frames from the top joined by `;`.
fn stack(cx: &Contexts, frames: &[Cow<'_, str>], c: ContextId) -> String {
    let mut path: Vec<ContextId> = Vec::new();
    let mut at = Some(c);
    while let Some(x) = at {
        path.push(x);
        at = cx.parent(x);
    }
    let parts: Vec<&str> = path.iter().rev().map(|&x| &*frames[x as usize]).collect();
    parts.join(";")
}

/// Draws the differential flame graph of `d` (a diff by context) as SVG.
pub fn flamegraph(d: &Diff, widths: Widths, title: &str, out: &mut dyn Write) -> io::Result<Drawn> {
    let drawn = |r: &Row| match widths {
        Widths::New => r.new.self_weight,
        Widths::Base => r.base.self_weight,
    };
    if !d.rows.iter().any(|r| drawn(r) > 0) {
        return Err(io::Error::other(match widths {
            Widths::New => "the new side has no call with a self weight: nothing to draw",
            Widths::Base => "the base side has no call with a self weight: nothing to draw",
        }));
    }
    let (lines, cut_at) = lines(d, widths);
    let mut opts = inferno::flamegraph::Options::default();
    opts.title = crate::error::escape_controls(title).into_owned();
    let colours =
        "red: new spends more, blue: less, grey: no change beyond --min-change and the noise";
    opts.subtitle = Some(match (widths, cut_at) {
        (Widths::New, None) => format!("widths: new run; {colours}"),
        (Widths::Base, None) => format!("widths: base run (removed code shows); {colours}"),
        (Widths::New, Some(n)) => format!("widths: new run, stacks cut at depth {n}; {colours}"),
        (Widths::Base, Some(n)) => {
            format!("widths: base run (removed code shows), stacks cut at depth {n}; {colours}")
        }
    });
    opts.count_name = d.unit.suffix().to_string();
    opts.negate_differentials = widths == Widths::Base;
    inferno::flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), out)?;
    Ok(Drawn { cut_at })
}
