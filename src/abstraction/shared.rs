//! Several pass lists run on one tree, as `compare` runs every method of
//! the [`registry`](super::registry): four of its six methods start by
//! merging, so the result of leading passes that a later list starts with
//! too is kept and reused instead of being computed again from the full
//! per-call tree. A kept result is dropped once no later list starts with
//! it, so besides the input at most one tree per distinct shared prefix is
//! held (the merged tree, for the registry's methods). Passes are told
//! apart by name and parameters, which fully determine what they do.

use super::Abstracted;
use super::pass::{Context, Param, Pass};
use crate::calltree::Tree;

/// What identifies a pass: its name and its parameters.
type Key = (&'static str, Vec<(&'static str, Param)>);

/// A kept result: the first `len` passes of list `list`, and their output
/// with the weight all of them absorbed.
struct Kept {
    list: usize,
    len: usize,
    out: Abstracted,
}

/// Runs each list of `lists` on `tree`, in order, and hands `each` the list's
/// index and result (`eliminated` summed over its passes, as
/// [`super::pipeline::run`] counts it). The results are those of running
/// every list on its own.
pub(crate) fn run_each(
    tree: &Tree,
    cx: &Context,
    lists: &[Vec<Box<dyn Pass>>],
    mut each: impl FnMut(usize, &Abstracted),
) {
    let keys: Vec<Vec<Key>> = lists
        .iter()
        .map(|l| l.iter().map(|p| (p.name(), p.params())).collect())
        .collect();
    // Does a list after `i` start with the first `len` passes of list `l`?
    let wanted_after = |i: usize, l: usize, len: usize| {
        keys[i + 1..].iter().any(|k| k.starts_with(&keys[l][..len]))
    };
    let mut kept: Vec<Kept> = Vec::new();
    for (i, passes) in lists.iter().enumerate() {
        let mut at = longest_kept_prefix(&kept, &keys, i);
        let mut own: Option<Abstracted> = None;
        let mut done = at.map_or(0, |k| kept[k].len);
        while done < passes.len() {
            let (input, absorbed) = match (&own, at) {
                (Some(a), _) => (&a.tree, a.eliminated),
                (None, Some(k)) => (&kept[k].out.tree, kept[k].out.eliminated),
                (None, None) => (tree, 0),
            };
            let step = passes[done].apply(input, cx);
            let out = Abstracted {
                tree: step.tree,
                eliminated: absorbed + step.eliminated,
            };
            done += 1;
            if wanted_after(i, i, done) {
                kept.push(Kept {
                    list: i,
                    len: done,
                    out,
                });
                (own, at) = (None, Some(kept.len() - 1));
            } else {
                // The previous result, if it was this list's own, goes here.
                own = Some(out);
            }
        }
        match (own, at) {
            (Some(a), _) => each(i, &a),
            (None, Some(k)) => each(i, &kept[k].out),
            (None, None) => each(
                i,
                &Abstracted {
                    tree: tree.clone(),
                    eliminated: 0,
                },
            ),
        }
        kept.retain(|k| wanted_after(i, k.list, k.len));
    }
}

/// The kept result with the most passes that list `i` starts with.
fn longest_kept_prefix(kept: &[Kept], keys: &[Vec<Key>], i: usize) -> Option<usize> {
    (0..kept.len())
        .filter(|&k| keys[i].starts_with(&keys[kept[k].list][..kept[k].len]))
        .max_by_key(|&k| kept[k].len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abstraction::Modules;
    use crate::abstraction::global::MinTotal;
    use crate::abstraction::merge::Merge;
    use crate::abstraction::recursion::FoldRecursion;
    use crate::abstraction::registry::{METHODS, MethodParams};
    use crate::abstraction::threshold::Threshold;
    use crate::ingest::FuncTable;
    use proptest::prelude::*;

    /// A tree below one top node from (levels up, function 0..6, self) rows.
    fn random_tree(rows: &[(u32, u8, u64)]) -> (Tree, FuncTable) {
        crate::abstraction::test_trees::random_tree(rows, 0, true)
    }

    fn modules(funcs: &FuncTable) -> Modules {
        crate::abstraction::test_trees::modules(funcs, "f0,a\nf1,a\nf2,a\nf3,b\nf4,b\nf5,b\n")
    }

    /// Each list run alone, from the full tree.
    fn alone(tree: &Tree, cx: &Context, passes: &[Box<dyn Pass>]) -> (Tree, u64) {
        let mut cur = tree.clone();
        let mut absorbed = 0;
        for p in passes {
            let out = p.apply(&cur, cx);
            absorbed += out.eliminated;
            cur = out.tree;
        }
        (cur, absorbed)
    }

    fn lists_of(picks: &[Vec<u8>], params: &MethodParams) -> Vec<Vec<Box<dyn Pass>>> {
        picks
            .iter()
            .map(|l| {
                l.iter()
                    .map(|&p| -> Box<dyn Pass> {
                        match p % 4 {
                            0 => Box::new(Merge),
                            1 => Box::new(FoldRecursion),
                            2 => Box::new(Threshold(params.threshold)),
                            _ => Box::new(MinTotal(params.min_total)),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    proptest! {
        /// The registry's methods, and random lists sharing random prefixes.
        #[test]
        fn shared_runs_give_what_each_list_gives_alone(
            rows in prop::collection::vec((0u32..4, 0u8..6, 0u64..30), 1..50),
            picks in prop::collection::vec(prop::collection::vec(0u8..4, 0..4), 0..6),
            threshold in 0.0f64..=1.0,
            min_total in 0.0f64..0.3,
            protect in 0u8..7,
        ) {
            let (tree, funcs) = random_tree(&rows);
            let m = modules(&funcs);
            let protected: Vec<bool> = (0..funcs.len()).map(|f| f as u8 == protect).collect();
            let cx = Context { funcs: &funcs, modules: &m, protected: &protected };
            let params = MethodParams {
                threshold: crate::abstraction::Share::new(threshold).unwrap(),
                min_total: crate::abstraction::Share::new(min_total).unwrap(),
            };
            let registry: Vec<_> = METHODS.iter().map(|s| (s.passes)(&params)).collect();
            for lists in [registry, lists_of(&picks, &params)] {
                let mut seen = Vec::new();
                run_each(&tree, &cx, &lists, |i, out| seen.push((i, out.tree.clone(), out.eliminated)));
                prop_assert_eq!(seen.len(), lists.len());
                for (i, t, absorbed) in seen {
                    let (want, want_absorbed) = alone(&tree, &cx, &lists[i]);
                    prop_assert_eq!(t, want, "list {}", i);
                    prop_assert_eq!(absorbed, want_absorbed, "list {}", i);
                }
            }
        }
    }
}
