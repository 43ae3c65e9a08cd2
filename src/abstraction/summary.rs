//! The one summary line `abstract` prints on stdout: for the paper's
//! methods (merging, threshold) run alone, the historical
//! `merge + threshold 90%: N nodes -> M nodes ...` form; for anything else
//! (the recommended pipeline, whole-trace thresholds, budgets)
//! `kept M of N call nodes (x%), explaining y% of the time`.

use super::pipeline::{Stats, percent};
use super::share::Share;
use crate::format::{fmt_percent, thousands};

/// Which form of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// The paper's methods alone: `merge + threshold 90%: N nodes -> M nodes ...`.
    Paper,
    /// Everything else: `kept M of N call nodes ...`.
    Kept,
}

/// The summary line of `s` in `form`.
pub(crate) fn line(s: &Stats, form: Form) -> String {
    match form {
        Form::Paper => paper(s),
        Form::Kept => kept(s),
    }
}

/// E.g. `kept 87 of 44,455 call nodes (0.20%), explaining 91.5% of the time`.
fn kept(s: &Stats) -> String {
    let kept = share(s.nodes_after, s.nodes_before as usize);
    // An untimed trace's weights are calls.
    let what = if s.unit == "calls" { "calls" } else { "time" };
    format!(
        "kept {} of {} call nodes ({}), explaining {} of the {what}",
        thousands(s.nodes_after as u64),
        thousands(s.nodes_before),
        percent(kept, 2),
        percent(s.explained_time, 1)
    )
}

/// `part` of `whole`; all of nothing is all.
fn share(part: usize, whole: usize) -> f64 {
    match whole {
        0 => 1.0,
        _ => part as f64 / whole as f64,
    }
}

/// E.g. `merge + threshold 90%`.
pub(crate) fn describe(merge: bool, threshold: Option<Share>) -> String {
    let th = threshold.map(|t| format!("threshold {}%", fmt_percent(t.get())));
    match (merge, th) {
        (true, Some(th)) => format!("merge + {th}"),
        (true, None) => "merge".to_string(),
        (false, Some(th)) => th,
        (false, None) => "no abstraction".to_string(),
    }
}

/// The one-line summary of the paper's methods (merging, threshold) run
/// alone, printed on stdout: nodes of the tree abstracted (calls or
/// contexts, as the view), not of the trace.
fn paper(s: &Stats) -> String {
    let (own, of) = if s.timed {
        ("self times", "total")
    } else {
        ("own calls", "calls")
    };
    let p = &s.parameters;
    let threshold = p.threshold.and_then(Share::new);
    let kept = share(s.nodes_after, s.tree_nodes);
    format!(
        "{}: {} nodes -> {} nodes (kept {}, eliminated {}); kept nodes' {own} explain {} of the root's {of}",
        describe(p.merge, threshold),
        s.tree_nodes,
        s.nodes_after,
        percent(kept, 2),
        percent(1.0 - kept, 2),
        percent(s.explained_time, 2)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_methods_summary_never_rounds_a_non_zero_share_to_zero() {
        let s = Stats {
            nodes_before: 1_000_000,
            contexts: 1_000_000,
            nodes_after: 3,
            explained_time: 0.99999,
            absorbed_time: 0.00001,
            root_total: 100_000,
            absorbed_weight: 1,
            unit: "ns",
            parameters: super::super::pipeline::Parameters {
                merge: true,
                threshold: Some(0.9),
                ..Default::default()
            },
            passes: Vec::new(),
            tree_nodes: 1_000_000,
            timed: true,
        };
        let line = line(&s, Form::Paper);
        assert!(
            line.starts_with("merge + threshold 90%: 1000000 nodes -> 3 nodes"),
            "{line}"
        );
        assert!(
            !line.contains(" 0.00%") && !line.contains("(0.00%"),
            "{line}"
        );
        assert!(line.contains("kept 0.0003%"), "{line}");
        assert!(
            !line.contains("100.00%") && !line.contains("explain 100%"),
            "{line}"
        );
    }
}
