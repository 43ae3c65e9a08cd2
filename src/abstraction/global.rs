//! The whole-trace threshold (`--min-total`): keep the nodes whose total is
//! at least a share of the root's total, unlike method 1, whose threshold
//! is relative to each caller. Totals never grow going down, so the kept set
//! is ancestor-closed; a removed subtree's time goes into the self time of
//! its kept parent. Protected (`--keep`) nodes and their ancestors survive.

use super::Abstracted;
use super::pass::{Context, Param, Pass, keep_closed, protected_nodes};
use super::share::Share;
use crate::calltree::{NodeId, Tree};

/// The `--min-total P` pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MinTotal(pub Share);

impl Pass for MinTotal {
    fn name(&self) -> &'static str {
        "min-total"
    }
    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![("min_total", Param::Share(self.0))]
    }
    fn apply(&self, tree: &Tree, cx: &Context) -> Abstracted {
        let floor = self.0.get() * tree.total(0) as f64;
        let mut keep = protected_nodes(tree, cx);
        for n in 0..tree.len() as NodeId {
            keep[n as usize] |= tree.total(n) as f64 >= floor;
        }
        keep_closed(tree, cx.funcs, &mut keep)
    }
}
