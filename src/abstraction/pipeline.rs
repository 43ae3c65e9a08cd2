//! The abstraction pipeline: one [`Options`] (what `calltrace abstract`,
//! and every command that accepts abstraction flags, was asked for) becomes
//! a list of [`Pass`]es in the fixed order merge → fold → thresholds →
//! budget, which [`run`] applies to a tree and measures ([`Stats`]). The
//! view is chosen when the tree is built: merging commutes with folding
//! identical paths, so merging a calling-context tree gives the contexts
//! of the merged call tree, and a contexts-based pipeline never needs the
//! one-node-per-call tree.

use serde::Serialize;

use super::budget::MaxNodes;
use super::global::MinTotal;
use super::merge::Merge;
use super::pass::{Context, Param, Pass};
use super::recursion::FoldRecursion;
use super::share::Share;
use super::threshold::Threshold;
use crate::calltree::{NodeId, Tree, View, fold_paths};
pub(crate) use crate::format::percent;
use crate::ingest::FuncTable;

/// The recommended whole-trace threshold: 0.1% of the root's total.
pub(crate) const RECOMMENDED_MIN_TOTAL: Share = Share::constant(0.001);

/// What to abstract and how.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// `--modules`: CSV path, `auto`, `auto:file`, `auto:dir` or `auto:prefix`.
    /// Default is none: one module (the recommended pipeline uses `auto`).
    pub modules: Option<super::ModulesArg>,
    /// Merge callees of the caller's module (method 2). Default is false.
    pub merge: bool,
    /// Tree view; None picks calls for the paper's methods alone and
    /// contexts otherwise. Default is none.
    pub view: Option<View>,
    /// Fold recursion into the first call on the path. Default is false.
    pub fold_recursion: bool,
    /// Method 1 threshold. Default is none.
    pub threshold: Option<Share>,
    /// Whole-trace threshold: a share of the root's total. Default is none.
    pub min_total: Option<Share>,
    /// Node budget. Default is none.
    pub max_nodes: Option<usize>,
    /// Functions that survive with their ancestors (`--keep`). Default is none.
    pub keep: Vec<crate::symbols::FuncPattern>,
    /// Draw single-callee chains as one node (`--fold-chains`,
    /// `--no-fold-chains`). Default is none: on in the recommended
    /// pipeline, off otherwise.
    pub chains: Option<bool>,
}

impl Options {
    /// True when no method was asked for (then [`Options::recommended`]
    /// applies): derived from [`Options::passes`], so a new pass counts.
    pub fn no_method(&self) -> bool {
        self.passes().is_empty()
    }

    /// The readable default: contexts, merge by the given modules (or
    /// `auto` ones), fold recursion, min-total 0.1%, chains folded; the
    /// view, `--keep` and `--max-nodes` given by the user stay.
    pub fn recommended(&self) -> Options {
        Options {
            modules: Some(self.modules.clone().unwrap_or(super::ModulesArg::Auto)),
            merge: true,
            view: Some(self.view.unwrap_or(View::Contexts)),
            fold_recursion: true,
            min_total: Some(RECOMMENDED_MIN_TOTAL),
            chains: Some(self.chains.unwrap_or(true)),
            ..self.clone()
        }
    }

    /// Only the paper's methods (threshold, merge) were asked for, or
    /// none: derived from [`Options::passes`] ([`Pass::paper`]).
    pub fn paper_only(&self) -> bool {
        self.passes().iter().all(|p| p.paper())
    }

    /// The view to build: as given, else calls for the paper's methods alone.
    pub fn view(&self) -> View {
        self.view.unwrap_or(if self.paper_only() {
            View::Calls
        } else {
            View::Contexts
        })
    }

    /// The passes, in pipeline order: the one place an `Options` field
    /// becomes a pass.
    pub fn passes(&self) -> Vec<Box<dyn Pass>> {
        let mut p: Vec<Box<dyn Pass>> = Vec::new();
        if self.merge {
            p.push(Box::new(Merge));
        }
        if self.fold_recursion {
            p.push(Box::new(FoldRecursion));
        }
        if let Some(t) = self.threshold {
            p.push(Box::new(Threshold(t)));
        }
        if let Some(m) = self.min_total {
            p.push(Box::new(MinTotal(m)));
        }
        if let Some(n) = self.max_nodes {
            p.push(Box::new(MaxNodes(n)));
        }
        p
    }

    /// Self time under which a chain node is folded when drawing.
    pub fn chain_min_self(&self, root_total: u64) -> u64 {
        let share = self.min_total.unwrap_or(RECOMMENDED_MIN_TOTAL);
        (share.get() * root_total as f64).ceil() as u64
    }
}

/// What one pass did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassStats {
    /// The pass's name.
    pub name: String,
    /// Its parameters.
    pub params: Vec<(String, Param)>,
    /// Nodes after it (synthetic ones excluded).
    pub nodes_after: usize,
    /// Weight it moved from removed nodes into kept nodes' self times.
    pub absorbed: u64,
}

/// The numbers `--stats` writes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// Call nodes of the trace (one per call).
    pub nodes_before: u64,
    /// Distinct calling contexts (call paths) of the trace.
    pub contexts: usize,
    /// Nodes of the abstracted tree (synthetic root and threads excluded).
    pub nodes_after: usize,
    /// Share of the root's total that kept nodes hold as their own self
    /// time (not absorbed from removed descendants).
    pub explained_time: f64,
    /// Share of the root's total absorbed from removed nodes (1 - explained).
    pub absorbed_time: f64,
    /// The root's total weight.
    pub root_total: u64,
    /// Absorbed weight, in the trace's unit.
    pub absorbed_weight: u64,
    /// The unit of weights: `ns`, `calls` or `units`.
    pub unit: &'static str,
    /// The parameters used.
    pub parameters: Parameters,
    /// Each pass in order.
    pub passes: Vec<PassStats>,
    /// Nodes of the tree abstracted (synthetic ones excluded): one per
    /// call in the calls view, one per context in the contexts view.
    #[serde(skip)]
    pub(crate) tree_nodes: usize,
    /// The weights are times (else call counts: an untimed trace).
    #[serde(skip)]
    pub(crate) timed: bool,
}

/// The parameters recorded in `--stats`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Parameters {
    /// The view abstracted.
    pub view: &'static str,
    /// The module source, and for `auto` what it picked.
    pub modules: String,
    /// Merging on.
    pub merge: bool,
    /// Recursion folding on.
    pub fold_recursion: bool,
    /// Method 1 threshold.
    pub threshold: Option<f64>,
    /// Whole-trace threshold.
    pub min_total: Option<f64>,
    /// Node budget.
    pub max_nodes: Option<usize>,
    /// `--keep` globs.
    pub keep: Vec<String>,
    /// Chain folding in drawings.
    pub chains: bool,
    /// True when no method was given and the recommended pipeline ran.
    pub recommended: bool,
}

/// An abstracted tree and its measurements.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    /// The abstracted tree.
    pub tree: Tree,
    /// What it took.
    pub stats: Stats,
}

/// Runs `passes` on `tree` and measures the result.
pub(crate) fn run(
    tree: &Tree,
    cx: &Context,
    passes: &[Box<dyn Pass>],
    params: Parameters,
) -> Outcome {
    // The input is only borrowed: a per-call tree of 10^8 nodes is not copied.
    let mut cur: Option<Tree> = None;
    let mut absorbed = 0u64;
    let mut steps = Vec::with_capacity(passes.len());
    for p in passes {
        let out = p.apply(cur.as_ref().unwrap_or(tree), cx);
        absorbed += out.eliminated;
        steps.push(PassStats {
            name: p.name().to_string(),
            params: p
                .params()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            nodes_after: out.tree.call_nodes(cx.funcs),
            absorbed: out.eliminated,
        });
        cur = Some(out.tree);
    }
    let cur = cur.unwrap_or_else(|| tree.clone());
    let root = tree.total(0);
    let share = |w: u64| {
        if root == 0 {
            0.0
        } else {
            w as f64 / root as f64
        }
    };
    let stats = Stats {
        nodes_before: calls_in(tree, cx.funcs),
        contexts: contexts_in(tree, cx.funcs),
        nodes_after: cur.call_nodes(cx.funcs),
        explained_time: 1.0 - share(absorbed),
        absorbed_time: share(absorbed),
        root_total: root,
        absorbed_weight: absorbed,
        unit: unit(tree),
        parameters: params,
        passes: steps,
        tree_nodes: tree.call_nodes(cx.funcs),
        timed: tree.timed,
    };
    Outcome { tree: cur, stats }
}

fn unit(tree: &Tree) -> &'static str {
    tree.unit.suffix()
}

/// Calls a tree stands for (each node's call count; synthetic nodes excluded).
pub(crate) fn calls_in(tree: &Tree, funcs: &FuncTable) -> u64 {
    (0..tree.len() as NodeId)
        .filter(|&n| !funcs.is_synthetic(tree.func(n)))
        .map(|n| tree.calls(n))
        .sum()
}

/// Distinct call paths of a tree.
fn contexts_in(tree: &Tree, funcs: &FuncTable) -> usize {
    if tree.has_call_counts() {
        tree.call_nodes(funcs)
    } else {
        fold_paths(tree, funcs).call_nodes(funcs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_method_means_the_recommended_pipeline() {
        let o = Options::default();
        assert!(o.no_method());
        let r = o.recommended();
        assert_eq!(r.modules, Some(crate::abstraction::ModulesArg::Auto));
        assert!(r.merge && r.fold_recursion && r.chains == Some(true));
        assert_eq!(
            (r.min_total, r.view()),
            (Some(RECOMMENDED_MIN_TOTAL), View::Contexts)
        );
        let names: Vec<_> = r.passes().iter().map(|p| p.name()).collect();
        assert_eq!(names, ["merge", "fold-recursion", "min-total"]);
    }
}
