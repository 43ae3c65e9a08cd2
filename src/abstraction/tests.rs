use super::*;
use crate::ingest::FuncId;
use proptest::prelude::*;

/// Builds a tree below the synthetic root from (depth >= 1, name, self) rows;
/// totals are self plus the children's totals.
fn tree_of(funcs: &mut FuncTable, rows: &[(u32, &str, u64)]) -> Tree {
    let mut t = Tree::empty(true, 0);
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
    let method = Method {
        merge: true,
        threshold: Some(0.5),
    };
    let out = apply(&t, &funcs, &m, method);
    // Merged Main (4500/10000) keeps funcB (intermediate, 3000), then funcC
    // (1300 -> 4300), stops before funcD (4300 < 5000? no: keeps funcD too).
    assert_eq!(
        render(&out.tree, &funcs),
        "Main (4500 / 10000)\n  funcC (1300 / 1300)\n  funcD (1200 / 1200)\n  funcB (2500 / 3000)\n    funcF (500 / 500)\n"
    );
    let out = apply(
        &t,
        &funcs,
        &m,
        Method {
            merge: true,
            threshold: Some(0.4),
        },
    );
    assert_eq!(
        render(&out.tree, &funcs),
        "Main (5700 / 10000)\n  funcC (1300 / 1300)\n  funcB (2500 / 3000)\n    funcF (500 / 500)\n"
    );
    let s = Summary::of(&t, &out, &funcs);
    assert_eq!((s.nodes_before, s.nodes_after), (7, 4));
    assert!((s.time_explained - 0.88).abs() < 1e-12);
}

#[test]
fn thresholds_parse_as_fraction_or_percent() {
    assert_eq!(parse_threshold("0.9").unwrap(), 0.9);
    assert_eq!(parse_threshold("90%").unwrap(), 0.9);
    let err = parse_threshold("150%").unwrap_err().to_string();
    assert!(
        err.starts_with("--threshold: expected a number in [0, 1]"),
        "{err}"
    );
    assert!(parse_threshold("abc").is_err());
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
        let out = apply(&t, &funcs, &m, Method { merge, threshold: Some(th) });
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
