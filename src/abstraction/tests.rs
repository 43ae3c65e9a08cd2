use super::*;
use crate::ingest::{FuncId, FuncTable};
use proptest::prelude::*;

/// Builds a tree below the synthetic root from (depth >= 1, name, self) rows;
/// totals are self plus the children's totals.
fn tree_of(funcs: &mut FuncTable, rows: &[(u32, &str, u64)]) -> Tree {
    let mut t = Tree::empty(true, 0);
    t.unit = crate::ingest::Unit::Number;
    t.push(FuncTable::ROOT, 0, 0, None);
    let mut depths = vec![0];
    for &(d, name, s) in rows {
        let f = funcs.name(name);
        t.push(f, s, s, None);
        depths.push(d);
    }
    t.set_sizes_from_depths(&depths);
    for n in (0..t.len() as NodeId).rev() {
        let below: u64 = t.children(n).map(|c| t.total(c)).sum();
        t.total[n as usize] = t.self_time(n) + below;
    }
    t
}

fn modules(funcs: &FuncTable, table: &str) -> Modules {
    let names = crate::symbols::names_without_binary(funcs);
    ModuleSource::Table(ModuleTable::parse("m.csv", table).unwrap())
        .assign(funcs, &names)
        .unwrap()
}

/// `name (self / total)` lines with two-space indentation.
fn render(tree: &Tree, funcs: &FuncTable) -> String {
    let names = crate::symbols::names_without_binary(funcs);
    String::from_utf8(crate::emit::tree::indented(tree, &names)).unwrap()
}

const FIG1: &[(u32, &str, u64)] = &[
    (1, "Main", 3000),
    (2, "funcA", 1500),
    (3, "funcC", 1300),
    (3, "funcD", 1200),
    (2, "funcB", 1700),
    (3, "funcE", 800),
    (4, "funcF", 500),
];
const TABLE1: &str = "Main,m1\nfuncA,m1\nfuncB,m2\nfuncC,m2\nfuncE,m2\nfuncD,m3\nfuncF,m4\n";

#[test]
fn paper_worked_example_of_method_1() {
    // Main 67206: funcA 14821 and funcC 42078 are intermediate (they call
    // into module x), funcB 7048 and funcD 1440 are not.
    let mut funcs = FuncTable::default();
    let t = tree_of(
        &mut funcs,
        &[
            (1, "Main", 1819),
            (2, "funcA", 14820),
            (3, "x1", 1),
            (2, "funcC", 42077),
            (3, "x2", 1),
            (2, "funcB", 7048),
            (2, "funcD", 1440),
        ],
    );
    assert_eq!(t.total(1), 67206);
    let m = modules(&funcs, "x*,x\n*,main\n");
    let out = threshold::eliminate(&t, &funcs, &m, 0.9);
    assert_eq!(
        render(&out.tree, &funcs),
        "Main (3259 / 67206)\n  funcA (14820 / 14821)\n    x1 (1 / 1)\n  funcC (42077 / 42078)\n    x2 (1 / 1)\n  funcB (7048 / 7048)\n"
    );
    assert_eq!(out.eliminated, 1440, "funcD is dropped");
}

#[test]
fn figure_1_merge_gives_the_papers_five_nodes() {
    let mut funcs = FuncTable::default();
    let t = tree_of(&mut funcs, FIG1);
    let m = modules(&funcs, TABLE1);
    let merged = merge::merge(&t, &funcs, &m);
    assert_eq!(
        render(&merged, &funcs),
        "Main (4500 / 10000)\n  funcC (1300 / 1300)\n  funcD (1200 / 1200)\n  funcB (2500 / 3000)\n    funcF (500 / 500)\n"
    );
}

#[test]
fn figure_1_threshold_by_hand() {
    let mut funcs = FuncTable::default();
    let t = tree_of(&mut funcs, FIG1);
    let m = modules(&funcs, TABLE1);
    let run = |th: f64| render(&threshold::eliminate(&t, &funcs, &m, th).tree, &funcs);
    // 90%: funcA needs 3600 of its 4000: funcC (1300) then funcD (2500 total): all 7 kept.
    assert_eq!(run(0.9).lines().count(), 7);
    // 30%: funcA needs 1200: funcC alone reaches it, funcD is dropped into funcA's self.
    assert_eq!(
        run(0.3),
        "Main (3000 / 10000)\n  funcA (2700 / 4000)\n    funcC (1300 / 1300)\n  funcB (1700 / 3000)\n    funcE (800 / 1300)\n      funcF (500 / 500)\n"
    );
    // 0: only intermediate nodes (Main, funcA, funcB, funcE) stay.
    assert_eq!(
        run(0.0),
        "Main (3000 / 10000)\n  funcA (4000 / 4000)\n  funcB (1700 / 3000)\n    funcE (1300 / 1300)\n"
    );
}

#[test]
fn figure_1_merge_then_threshold() {
    let mut funcs = FuncTable::default();
    let t = tree_of(&mut funcs, FIG1);
    let m = modules(&funcs, TABLE1);
    let out = merge_then_threshold(&t, &funcs, &m, 0.5);
    // Merged Main (4500/10000) keeps funcB (intermediate, 3000), then funcC
    // (1300 -> 4300), stops before funcD (4300 < 5000? no: keeps funcD too).
    assert_eq!(
        render(&out.tree, &funcs),
        "Main (4500 / 10000)\n  funcC (1300 / 1300)\n  funcD (1200 / 1200)\n  funcB (2500 / 3000)\n    funcF (500 / 500)\n"
    );
    let out = merge_then_threshold(&t, &funcs, &m, 0.4);
    assert_eq!(
        render(&out.tree, &funcs),
        "Main (5700 / 10000)\n  funcC (1300 / 1300)\n  funcB (2500 / 3000)\n    funcF (500 / 500)\n"
    );
    let nodes = (t.call_nodes(&funcs), out.tree.call_nodes(&funcs));
    assert_eq!(nodes, (7, 4));
    assert!((out.explained(t.total(0)) - 0.88).abs() < 1e-12);
}

/// Method 2, then method 1 at `threshold`.
fn merge_then_threshold(t: &Tree, funcs: &FuncTable, m: &Modules, threshold: f64) -> Abstracted {
    threshold::eliminate(&merge::merge(t, funcs, m), funcs, m, threshold)
}

/// Random trees: one top-level call, then nodes at depth 2.. in preorder.
fn arb_tree() -> impl Strategy<Value = Vec<(u32, u8, u64)>> {
    prop::collection::vec((0u32..4, 0u8..6, 0u64..50), 1..40).prop_map(|raw| {
        let mut depth: u32 = 1;
        raw.into_iter()
            .enumerate()
            .map(|(i, (up, f, s))| {
                depth = if i == 0 {
                    1
                } else {
                    (depth + 1).saturating_sub(up).max(2)
                };
                (depth, f, s)
            })
            .collect()
    })
}

fn build(rows: &[(u32, u8, u64)]) -> (Tree, FuncTable) {
    let mut funcs = FuncTable::default();
    let names: Vec<String> = rows.iter().map(|r| format!("f{}", r.1)).collect();
    let rows: Vec<(u32, &str, u64)> = rows
        .iter()
        .zip(&names)
        .map(|(r, n)| (r.0, n.as_str(), r.2))
        .collect();
    let t = tree_of(&mut funcs, &rows);
    (t, funcs)
}

/// f0..f2 in module a, f3..f5 in module b.
const AB: &str = "f0,a\nf1,a\nf2,a\nf3,b\nf4,b\nf5,b\n";

fn consistent(t: &Tree) -> bool {
    (0..t.len() as NodeId)
        .all(|n| t.total(n) == t.self_time(n) + t.children(n).map(|c| t.total(c)).sum::<u64>())
}

proptest! {
    #[test]
    fn totals_stay_consistent(rows in arb_tree(), th in 0.0f64..=1.0, merge in any::<bool>()) {
        let (t, funcs) = build(&rows);
        let m = modules(&funcs, AB);
        let out = if merge {
            merge_then_threshold(&t, &funcs, &m, th)
        } else {
            threshold::eliminate(&t, &funcs, &m, th)
        };
        prop_assert!(consistent(&out.tree));
        prop_assert_eq!(out.tree.total(0), t.total(0));
    }

    #[test]
    fn threshold_one_keeps_every_positive_node(rows in arb_tree()) {
        let (t, funcs) = build(&rows);
        let m = modules(&funcs, AB);
        let out = threshold::eliminate(&t, &funcs, &m, 1.0);
        let positive = (0..t.len() as NodeId).filter(|&n| t.total(n) > 0).count();
        let kept_positive = (0..out.tree.len() as NodeId).filter(|&n| out.tree.total(n) > 0).count();
        prop_assert_eq!(positive, kept_positive);
    }

    #[test]
    fn threshold_zero_keeps_only_intermediate_nodes_and_the_root(rows in arb_tree()) {
        let (t, funcs) = build(&rows);
        let m = modules(&funcs, AB);
        let inter = threshold::intermediate(&t, &m);
        let expected: Vec<FuncId> = (0..t.len() as NodeId)
            .filter(|&n| n <= 1 || inter[n as usize])
            .map(|n| t.func(n))
            .collect();
        let out = threshold::eliminate(&t, &funcs, &m, 0.0);
        prop_assert_eq!(out.tree.func.clone(), expected);
    }

    #[test]
    fn merge_leaves_no_child_in_its_parents_module(rows in arb_tree()) {
        let (t, funcs) = build(&rows);
        let m = modules(&funcs, AB);
        let out = merge::merge(&t, &funcs, &m);
        for n in 2..out.len() as NodeId {
            for c in out.children(n) {
                prop_assert_ne!(m.of(out.func(c)), m.of(out.func(n)));
            }
        }
    }

    #[test]
    fn merge_changes_nothing_when_every_function_is_its_own_module(mut rows in arb_tree()) {
        // No function calls itself: bump a callee that equals its caller.
        for i in 1..rows.len() {
            let parent = (0..i).rev().find(|&j| rows[j].0 + 1 == rows[i].0).unwrap();
            if rows[i].1 == rows[parent].1 {
                rows[i].1 = (rows[i].1 + 1) % 6;
            }
        }
        let (t, funcs) = build(&rows);
        let own = "f0,m0\nf1,m1\nf2,m2\nf3,m3\nf4,m4\nf5,m5\n";
        let m = modules(&funcs, own);
        prop_assert_eq!(merge::merge(&t, &funcs, &m), t);
    }
}

// ---- passes beyond the paper: recursion folding, min-total, budget, keep ----

use super::pass::{Context, Pass, protected_nodes};
use super::pipeline::{Options, Parameters, run};
use std::collections::BTreeSet;

/// The call paths (function names from the top) of every node of `t`.
fn paths(t: &Tree, funcs: &FuncTable) -> Vec<Vec<FuncId>> {
    let parents = t.parents();
    (0..t.len() as NodeId)
        .map(|n| {
            let mut p = vec![t.func(n)];
            let mut a = n;
            while a != 0 {
                a = parents[a as usize];
                p.push(t.func(a));
            }
            p.reverse();
            let _ = funcs;
            p
        })
        .collect()
}

fn cx<'a>(funcs: &'a FuncTable, m: &'a Modules, protected: &'a [bool]) -> Context<'a> {
    Context {
        funcs,
        modules: m,
        protected,
    }
}

fn names_of(t: &Tree, funcs: &FuncTable) -> BTreeSet<FuncId> {
    (0..t.len() as NodeId)
        .map(|n| t.func(n))
        .filter(|&f| !funcs.is_synthetic(f))
        .collect()
}

#[test]
fn min_total_on_figure_1_absorbs_the_small_callees() {
    let mut funcs = FuncTable::default();
    let t = tree_of(&mut funcs, FIG1);
    let m = modules(&funcs, TABLE1);
    let o = Options {
        min_total: Share::new(0.15),
        view: Some(crate::calltree::View::Calls),
        ..Options::default()
    };
    let out = run(&t, &cx(&funcs, &m, &[]), &o.passes(), Parameters::default());
    // Floor 1500 of 10000: Main, funcA (4000) and funcB (3000) stay; funcC
    // 1300, funcD 1200 and funcE 1300 (with funcF) go into their callers.
    assert_eq!(
        render(&out.tree, &funcs),
        "Main (3000 / 10000)\n  funcA (4000 / 4000)\n  funcB (3000 / 3000)\n"
    );
    assert_eq!((out.stats.nodes_before, out.stats.nodes_after), (7, 3));
    assert_eq!(out.stats.absorbed_weight, 1300 + 1200 + 1300);
    assert!((out.stats.explained_time - 0.62).abs() < 1e-12);
    // The budget of 3 keeps the same three heaviest nodes.
    let o = Options {
        max_nodes: Some(3),
        ..Options::default()
    };
    let budget = run(&t, &cx(&funcs, &m, &[]), &o.passes(), Parameters::default());
    assert_eq!(budget.tree, out.tree);
}

#[test]
fn recursion_joins_the_first_call_on_the_path() {
    let mut funcs = FuncTable::default();
    // main -> f -> g -> f -> h, and main -> f (a second, plain call).
    let t = tree_of(
        &mut funcs,
        &[
            (1, "main", 1),
            (2, "f", 10),
            (3, "g", 20),
            (4, "f", 30),
            (5, "h", 40),
            (2, "f", 5),
        ],
    );
    let folded = recursion::fold_recursion(&t, &funcs);
    assert_eq!(
        render(&folded, &funcs),
        "main (1 / 106)\n  f (40 / 100)\n    g (20 / 20)\n    h (40 / 40)\n  f (5 / 5)\n"
    );
    // On contexts the two calls of f are one node.
    let contexts = crate::calltree::fold_paths(&t, &funcs);
    let folded = recursion::fold_recursion(&contexts, &funcs);
    assert_eq!(
        render(&folded, &funcs),
        "main (1 / 106)\n  f (45 / 105) x2\n    g (20 / 20)\n    h (40 / 40)\n"
    );
}

#[test]
fn chains_are_drawn_as_one_node_without_losing_time() {
    let mut funcs = FuncTable::default();
    let t = tree_of(
        &mut funcs,
        &[
            (1, "main", 50),
            (2, "a", 0),
            (3, "b", 1),
            (4, "c", 49),
            (2, "d", 0),
        ],
    );
    let drawn = chains::fold_chains(&t, &funcs, 2);
    let names = crate::symbols::names_without_binary(&funcs);
    let hidden: Vec<Vec<&str>> = drawn
        .hidden
        .iter()
        .map(|h| h.iter().map(|&f| names[f as usize].name.as_str()).collect())
        .collect();
    // a and b have one callee and < 2 self: drawn inside c, which gets a's total.
    assert_eq!(hidden, [vec![], vec![], vec!["a", "b"], vec![]]);
    assert_eq!(
        render(&drawn.tree, &funcs),
        "main (50 / 100)\n  c (50 / 50)\n  d (0 / 0)\n"
    );
}

/// Random abstraction options over f0..f5.
fn arb_options() -> impl Strategy<Value = Options> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::option::of(0.0f64..0.5),
        prop::option::of(0usize..12),
        prop::option::of(0u8..6),
        any::<bool>(),
    )
        .prop_map(
            |(merge, fold, min_total, max_nodes, keep, contexts)| Options {
                merge,
                fold_recursion: fold,
                min_total: min_total.and_then(Share::new),
                max_nodes,
                keep: keep
                    .map(|k| vec![pattern(&format!("f{k}"))])
                    .unwrap_or_default(),
                view: Some(if contexts {
                    crate::calltree::View::Contexts
                } else {
                    crate::calltree::View::Calls
                }),
                ..Options::default()
            },
        )
}

/// The tree in the options' view, and `protected` from their `--keep`.
fn prepare(rows: &[(u32, u8, u64)], o: &Options) -> (Tree, FuncTable, Vec<bool>) {
    let (t, funcs) = build(rows);
    let t = match o.view() {
        crate::calltree::View::Contexts => crate::calltree::fold_paths(&t, &funcs),
        crate::calltree::View::Calls => t,
    };
    let names = crate::symbols::names_without_binary(&funcs);
    let protected = trace::protect(&o.keep, &funcs, &names);
    (t, funcs, protected)
}

proptest! {
    #[test]
    fn pipelines_keep_self_times_summing_to_the_root(rows in arb_tree(), o in arb_options()) {
        let (t, funcs, protected) = prepare(&rows, &o);
        let m = modules(&funcs, AB);
        let out = run(&t, &cx(&funcs, &m, &protected), &o.passes(), Parameters::default());
        prop_assert!(consistent(&out.tree));
        prop_assert_eq!(out.tree.total(0), t.total(0));
        let selves: u64 = (0..out.tree.len() as NodeId).map(|n| out.tree.self_time(n)).sum();
        prop_assert_eq!(selves, t.total(0));
        prop_assert_eq!(out.stats.nodes_before, rows.len() as u64);
    }

    #[test]
    fn keep_is_honoured_and_the_budget_respected(rows in arb_tree(), o in arb_options()) {
        let (t, funcs, protected) = prepare(&rows, &o);
        let m = modules(&funcs, AB);
        let out = run(&t, &cx(&funcs, &m, &protected), &o.passes(), Parameters::default());
        let before = names_of(&t, &funcs);
        let after = names_of(&out.tree, &funcs);
        for f in before.iter().filter(|&&f| protected[f as usize]) {
            prop_assert!(after.contains(f), "kept function {f} is gone");
        }
        if let (Some(n), false) = (o.max_nodes, protected.contains(&true)) {
            prop_assert!(out.stats.nodes_after <= n);
        }
    }

    #[test]
    fn min_total_keeps_exactly_the_heavy_paths_and_explains_their_self_time(
        rows in arb_tree(), p in 0.0f64..0.6, contexts in any::<bool>()
    ) {
        let o = Options { min_total: Share::new(p), view: Some(if contexts { crate::calltree::View::Contexts } else { crate::calltree::View::Calls }), ..Options::default() };
        let (t, funcs, none) = prepare(&rows, &o);
        let m = modules(&funcs, AB);
        let out = run(&t, &cx(&funcs, &m, &none), &o.passes(), Parameters::default());
        // Independently: the kept set is every node at or above the floor.
        let floor = p * t.total(0) as f64;
        let kept: Vec<NodeId> = (0..t.len() as NodeId)
            .filter(|&n| n == 0 || t.total(n) as f64 >= floor)
            .collect();
        let before = paths(&t, &funcs);
        let mut expected: Vec<_> = kept.iter().map(|&n| before[n as usize].clone()).collect();
        let mut got = paths(&out.tree, &funcs);
        expected.sort();
        got.sort();
        prop_assert_eq!(&got, &expected);
        // Ancestor-closed: every kept path's parent path is kept.
        for path in &got[1..] {
            prop_assert!(got.contains(&path[..path.len() - 1].to_vec()));
        }
        let own: u64 = kept.iter().map(|&n| t.self_time(n)).sum();
        let explained = if t.total(0) == 0 { 1.0 } else { own as f64 / t.total(0) as f64 };
        prop_assert!((out.stats.explained_time - explained).abs() < 1e-9);
    }

    #[test]
    fn budget_keeps_the_heaviest_nodes(rows in arb_tree(), n in 0usize..15) {
        let (t, funcs) = build(&rows);
        let m = modules(&funcs, AB);
        let out = budget::MaxNodes(n).apply(&t, &cx(&funcs, &m, &[]));
        prop_assert_eq!(out.tree.call_nodes(&funcs), n.min(rows.len()));
        // Independently: sort by total (heaviest first, then preorder), take n.
        let mut order: Vec<NodeId> = (1..t.len() as NodeId).collect();
        order.sort_by_key(|&x| (std::cmp::Reverse(t.total(x)), x));
        let kept: Vec<NodeId> = std::iter::once(0).chain(order.into_iter().take(n)).collect();
        let before = paths(&t, &funcs);
        let mut expected: Vec<_> = kept.iter().map(|&x| before[x as usize].clone()).collect();
        let mut got = paths(&out.tree, &funcs);
        expected.sort();
        got.sort();
        prop_assert_eq!(got, expected);
        let own: u64 = kept.iter().map(|&x| t.self_time(x)).sum();
        prop_assert_eq!(own + out.eliminated, t.total(0), "explained + absorbed = all");
    }

    #[test]
    fn recursion_folding_is_idempotent_and_leaves_no_repeats(rows in arb_tree(), contexts in any::<bool>()) {
        let (t, funcs) = build(&rows);
        let t = if contexts { crate::calltree::fold_paths(&t, &funcs) } else { t };
        let once = recursion::fold_recursion(&t, &funcs);
        prop_assert_eq!(&recursion::fold_recursion(&once, &funcs), &once);
        for path in paths(&once, &funcs) {
            let distinct: BTreeSet<_> = path.iter().collect();
            prop_assert_eq!(distinct.len(), path.len(), "a function twice on one path");
        }
        prop_assert!(consistent(&once));
        prop_assert_eq!(once.total(0), t.total(0));
    }

    #[test]
    fn protected_nodes_are_ancestor_closed(rows in arb_tree(), k in 0u8..6) {
        let (t, funcs) = build(&rows);
        let m = modules(&funcs, AB);
        let names = crate::symbols::names_without_binary(&funcs);
        let protected = trace::protect(&[pattern(&format!("f{k}"))], &funcs, &names);
        let prot = protected_nodes(&t, &cx(&funcs, &m, &protected));
        let parents = t.parents();
        for n in 1..t.len() {
            if prot[n] {
                prop_assert!(prot[parents[n] as usize]);
            }
        }
    }
}

/// Every node as (call path, self, total, calls), sorted: equal trees up to sibling order.
fn canonical(t: &Tree, funcs: &FuncTable) -> Vec<(Vec<FuncId>, u64, u64, u64)> {
    let p = paths(t, funcs);
    let mut v: Vec<_> = (0..t.len() as NodeId)
        .map(|n| {
            (
                p[n as usize].clone(),
                t.self_time(n),
                t.total(n),
                t.calls(n),
            )
        })
        .collect();
    v.sort();
    v
}

proptest! {
    /// What lets contexts pipelines skip the per-call tree: merging and
    /// folding recursion on the contexts give the contexts of the result
    /// on the calls (siblings may come in another order).
    #[test]
    fn merge_and_fold_commute_with_building_contexts(rows in arb_tree()) {
        let (t, funcs) = build(&rows);
        let m = modules(&funcs, AB);
        let c = cx(&funcs, &m, &[]);
        let contexts = crate::calltree::fold_paths(&t, &funcs);
        let on_calls = crate::calltree::fold_paths(&merge::Merge.apply(&t, &c).tree, &funcs);
        let on_contexts = merge::Merge.apply(&contexts, &c).tree;
        prop_assert_eq!(canonical(&on_calls, &funcs), canonical(&on_contexts, &funcs));
        let folded_calls = crate::calltree::fold_paths(&recursion::fold_recursion(&t, &funcs), &funcs);
        let folded_contexts = recursion::fold_recursion(&contexts, &funcs);
        prop_assert_eq!(canonical(&folded_calls, &funcs), canonical(&folded_contexts, &funcs));
    }
}

/// `filter` as it was first written (a parents array, one pass over every
/// node, sizes from depths): the reference for the one that skips removed
/// subtrees.
fn filter_by_parents(tree: &Tree, keep: &[bool], absorb: Absorb) -> Tree {
    let parents = tree.parents();
    let mut out = tree.empty_like();
    let mut kept_anc: Vec<NodeId> = vec![0; tree.len()];
    let mut depth: Vec<u32> = Vec::new();
    let mut alive = vec![true; tree.len()];
    let calls = tree.has_call_counts();
    for n in 0..tree.len() as NodeId {
        let i = n as usize;
        let p = parents[i] as usize;
        alive[i] = n == 0 || (keep[i] && (absorb == Absorb::Node || alive[p]));
        if alive[i] {
            let id = out.push(
                tree.func(n),
                tree.total(n),
                tree.self_time(n),
                calls.then(|| tree.calls(n)),
            );
            depth.push(if n == 0 {
                0
            } else {
                depth[kept_anc[p] as usize] + 1
            });
            kept_anc[i] = id;
            continue;
        }
        kept_anc[i] = kept_anc[p];
        let gained = match absorb {
            Absorb::Subtree if alive[p] => tree.total(n),
            Absorb::Subtree => 0,
            Absorb::Node => tree.self_time(n),
        };
        out.self_time[kept_anc[i] as usize] += gained;
    }
    out.set_sizes_from_depths(&depth);
    out
}

proptest! {
    #[test]
    fn filter_matches_the_parents_array_version(
        rows in arb_tree(),
        picks in prop::collection::vec(any::<bool>(), 40),
        contexts in any::<bool>(),
        subtree in any::<bool>(),
    ) {
        let (t, funcs) = build(&rows);
        let t = if contexts { crate::calltree::fold_paths(&t, &funcs) } else { t };
        let keep: Vec<bool> = (0..t.len()).map(|n| picks[n % picks.len()]).collect();
        let absorb = if subtree { Absorb::Subtree } else { Absorb::Node };
        prop_assert_eq!(filter(&t, &keep, absorb), filter_by_parents(&t, &keep, absorb));
    }
}

/// Recursion folding as first written (a vector of children per node,
/// totals summed over arena ids, sizes from depths): the reference for the
/// linked arena.
fn fold_by_child_vectors(tree: &Tree, funcs: &FuncTable) -> Tree {
    let counts = tree.has_call_counts();
    let (mut func, mut parent) = (vec![tree.func(0)], vec![u32::MAX]);
    let (mut self_w, mut calls) = (vec![tree.self_time(0)], vec![tree.calls(0)]);
    let mut kids: Vec<Vec<u32>> = vec![Vec::new()];
    let mut index = std::collections::HashMap::new();
    let mut map = vec![0u32; tree.len()];
    for n in 0..tree.len() as NodeId {
        for c in tree.children(n) {
            let (p, f) = (map[n as usize], tree.func(c));
            let mut joined = None;
            let mut a = p;
            while !funcs.is_synthetic(f) && a != u32::MAX && joined.is_none() {
                joined = (func[a as usize] == f).then_some(a);
                a = parent[a as usize];
            }
            let mut add = || {
                let id = func.len() as u32;
                func.push(f);
                parent.push(p);
                self_w.push(0);
                calls.push(0);
                kids.push(Vec::new());
                kids[p as usize].push(id);
                id
            };
            let target = match joined {
                Some(anc) => anc,
                None if counts => *index.entry((p, f)).or_insert_with(add),
                None => add(),
            };
            if joined.is_none() {
                calls[target as usize] += tree.calls(c);
            }
            self_w[target as usize] += tree.self_time(c);
            map[c as usize] = target;
        }
    }
    let mut total = self_w.clone();
    for n in (1..func.len()).rev() {
        total[parent[n] as usize] += total[n];
    }
    let mut out = tree.empty_like();
    let mut depths = Vec::new();
    let mut stack = vec![(0u32, 0u32)];
    while let Some((n, d)) = stack.pop() {
        let i = n as usize;
        out.push(func[i], total[i], self_w[i], counts.then_some(calls[i]));
        depths.push(d);
        stack.extend(kids[i].iter().rev().map(|&c| (c, d + 1)));
    }
    out.set_sizes_from_depths(&depths);
    out
}

proptest! {
    #[test]
    fn recursion_folding_matches_the_child_vectors_version(
        rows in arb_tree(),
        contexts in any::<bool>(),
        merged in any::<bool>(),
    ) {
        let (t, funcs) = build(&rows);
        let t = if merged { merge::merge(&t, &funcs, &modules(&funcs, AB)) } else { t };
        let t = if contexts { crate::calltree::fold_paths(&t, &funcs) } else { t };
        prop_assert_eq!(recursion::fold_recursion(&t, &funcs), fold_by_child_vectors(&t, &funcs));
    }
}

/// A `--keep` pattern.
fn pattern(text: &str) -> crate::symbols::FuncPattern {
    crate::symbols::FuncPattern::parse(text).unwrap()
}
