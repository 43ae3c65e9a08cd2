//! Abstraction methods as passes: each method is one [`Pass`] (a name, its
//! parameters, and `apply(tree) -> tree + what it absorbed`), in a file of
//! its own. A pipeline ([`super::pipeline`]) is a list of passes run in
//! order; `compare`'s methods are named lists of passes
//! ([`super::registry`]). Passes only merge or remove nodes: a removed
//! node's weight goes into the self time of a kept node, so self times
//! always sum to the root's total.

use std::fmt::{self, Debug};

use serde::{Serialize, Serializer};

use super::share::Share;
use super::{Absorb, Abstracted, Modules, filter};
use crate::calltree::{NodeId, Tree};
use crate::ingest::FuncTable;

/// What every pass may consult besides the tree.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The tree's functions.
    pub funcs: &'a FuncTable,
    /// Every function's module.
    pub modules: &'a Modules,
    /// `protected[f]`: function `f` must survive (with its ancestors), from `--keep`.
    pub protected: &'a [bool],
}

/// One abstraction method.
pub trait Pass: Debug + Send + Sync {
    /// Name in summaries and `--stats`, e.g. `fold-recursion`.
    fn name(&self) -> &'static str;
    /// Its parameters as (name, value), e.g. `("min_total", Param::Share(0.1%))`.
    fn params(&self) -> Vec<(&'static str, Param)>;
    /// One of the abstraction paper's two methods (threshold elimination,
    /// same-module merging), which alone keep the calls view and the
    /// paper's summary line. Default is false.
    fn paper(&self) -> bool {
        false
    }
    /// Runs the pass; `eliminated` in the result is the weight it moved
    /// from removed nodes into the self time of kept ones (merged or folded
    /// nodes' weight counts as the receiving node's own, so not here).
    fn apply(&self, tree: &Tree, cx: &Context) -> Abstracted;
}

/// A pass's parameter, typed: what `--stats` records and titles show.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Param {
    /// A share of a total (`--threshold`, `--min-total`).
    Share(Share),
    /// A number of nodes (`--max-nodes`).
    Count(usize),
}

impl fmt::Display for Param {
    /// A share as its fraction (`0.001`), a count as its number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Share(s) => write!(f, "{}", s.get()),
            Param::Count(n) => write!(f, "{n}"),
        }
    }
}

impl Serialize for Param {
    /// As the text [`Display`](fmt::Display) gives, as `--stats` always wrote it.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// For every node: is it, or some node below it, a call of a protected function?
pub(crate) fn protected_nodes(tree: &Tree, cx: &Context) -> Vec<bool> {
    let mut prot = vec![false; tree.len()];
    if !cx.protected.iter().any(|&p| p) {
        return prot;
    }
    for n in (0..tree.len() as NodeId).rev() {
        let own = cx.protected.get(tree.func(n) as usize).copied() == Some(true);
        prot[n as usize] = own || tree.children(n).any(|c| prot[c as usize]);
    }
    prot
}

/// Keeps an ancestor-closed set of nodes (synthetic nodes always survive);
/// each removed subtree's total goes into its kept parent's self time.
pub(crate) fn keep_closed(tree: &Tree, funcs: &FuncTable, keep: &mut [bool]) -> Abstracted {
    let mut eliminated = 0;
    keep[0] = true;
    for n in 0..tree.len() as NodeId {
        if !keep[n as usize] {
            continue;
        }
        for c in tree.children(n) {
            if funcs.is_synthetic(tree.func(c)) {
                keep[c as usize] = true;
            } else if !keep[c as usize] {
                eliminated += tree.total(c);
            }
        }
    }
    Abstracted {
        tree: filter(tree, keep, Absorb::Subtree),
        eliminated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_recorded_as_the_text_stats_always_had() {
        let share = Param::Share(Share::new(0.001).unwrap());
        let json = serde_json::to_string(&[("min_total", share), ("max_nodes", Param::Count(50))]);
        assert_eq!(
            json.unwrap(),
            r#"[["min_total","0.001"],["max_nodes","50"]]"#
        );
    }
}
