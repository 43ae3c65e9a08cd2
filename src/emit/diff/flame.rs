//! `diff --flamegraph`: a differential flame graph drawn by inferno from
//! both sides' stacks (calling contexts with their self weights, medians
//! over runs). Widths come from one side and the colour from the change:
//! red where new spends more, blue where it spends less. In the main
//! graph widths are the new side's, so code only the base ran has no
//! width there; `--flamegraph-removed` draws the same stacks with the
//! base side's widths (inferno's negated differential, as `difffolded.pl
//! -n` with `flamegraph.pl --negate`), where removed code is visible and
//! the colours still mean the same.

use std::io::{self, Write};

use crate::diff::{Diff, Row};
use crate::emit::export::frame;

/// Which side gives the widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Widths {
    /// The new side's (the usual differential flame graph).
    New,
    /// The base side's: what was removed stays visible.
    Base,
}

/// The folded lines `stack before after` inferno reads as a differential,
/// for a diff by context; stacks with no self weight on either side are
/// left out. The frames are escaped as the folded export escapes them.
pub(crate) fn lines(d: &Diff, widths: Widths) -> Vec<String> {
    d.rows
        .iter()
        .filter(|r| r.base.self_weight > 0 || r.new.self_weight > 0)
        .map(|r| {
            let (before, after) = match widths {
                Widths::New => (r.base.self_weight, r.new.self_weight),
                Widths::Base => (r.new.self_weight, r.base.self_weight),
            };
            format!("{} {before} {after}", stack(r))
        })
        .collect()
}

fn stack(r: &Row) -> String {
    let frames: Vec<_> = r.key.name.split(';').map(frame).collect();
    frames.join(";")
}

/// Draws the differential flame graph of `d` (a diff by context) as SVG.
pub fn flamegraph(d: &Diff, widths: Widths, title: &str, out: &mut dyn Write) -> io::Result<()> {
    let lines = lines(d, widths);
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
    let mut opts = inferno::flamegraph::Options::default();
    opts.title = crate::error::escape_controls(title).into_owned();
    opts.subtitle = Some(match widths {
        Widths::New => "widths: new run; red: new spends more, blue: less".to_string(),
        Widths::Base => {
            "widths: base run (removed code shows); red: new spends more, blue: less".to_string()
        }
    });
    opts.count_name = d.unit.suffix().to_string();
    opts.negate_differentials = widths == Widths::Base;
    inferno::flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), out)
}
