//! One pattern, start to finish: load its trace, abstract the tree by each
//! registered method ([`super::Rate`]; `protect` names functions every
//! method must keep), run method 1 alone and after merging at every sweep
//! point, and keep the distinct function names of each stage's tree. Only
//! these numbers and names leave this module; the trees are dropped when
//! [`pattern`] returns, so a worker holds one pattern's trees at a time.
//!
//! Nothing is computed twice on the full per-call tree: the methods share
//! their leading passes ([`shared`]: one merge for four methods), the sweep
//! finds every point's node count in one pass per tree
//! ([`threshold::levels`]), and with nothing protected it sweeps the tree
//! method `merge` made.

use std::collections::BTreeSet;

use super::{
    Config, Pattern, PatternReport, Rate, SlowFunction, Stage, SweepPoint, TOP_FUNCTIONS,
    TopFunction, ratio,
};
use crate::abstraction::pass::Context;
use crate::abstraction::registry::{MethodParams, MethodSpec};
use crate::abstraction::{Abstracted, Modules, merge, shared, threshold};
use crate::calltree::Tree;
use crate::error::Result;
use crate::ingest::FuncTable;
use crate::pipeline::{self, InputOptions, Loaded};
use crate::symbols::FuncInfo;

/// A loaded pattern's tree with what is needed to abstract and name it.
struct Subject<'a> {
    tree: &'a Tree,
    funcs: &'a FuncTable,
    names: &'a [FuncInfo],
    modules: &'a Modules,
    protected: Vec<bool>,
    /// Call nodes of `tree`.
    nodes_before: usize,
}

/// Loads and measures one pattern, keeping the functions in `protect`.
pub(crate) fn pattern(
    p: &Pattern,
    config: &Config,
    protect: &BTreeSet<String>,
) -> Result<PatternReport> {
    let loaded = load(p, config)?;
    let (tree, funcs) = (&loaded.built.tree, &loaded.built.funcs);
    let modules = config.modules.assign(funcs, &loaded.names)?;
    let s = Subject {
        tree,
        funcs,
        names: &loaded.names,
        modules: &modules,
        protected: loaded
            .names
            .iter()
            .enumerate()
            .map(|(f, n)| !funcs.is_synthetic(f as u32) && protect.contains(&n.name))
            .collect(),
        nodes_before: tree.call_nodes(funcs),
    };
    let traced = crate::coverage::placed(&loaded, &super::lookup(config));
    let mut functions: [BTreeSet<String>; Stage::COUNT] = Default::default();
    functions[Stage::BEFORE.index()] = function_set(tree, &s);
    let points = config.sweep.points();
    let mut sweep = sweep_of(&s, Stage::threshold(), tree, &points);
    let (rates, merged_sweep) = methods(&s, config, &points, &mut functions);
    sweep.extend(merged_sweep);
    Ok(PatternReport {
        name: p.name.clone(),
        path: p.path.clone(),
        nodes_before: s.nodes_before,
        rates,
        sweep,
        functions,
        warnings: loaded.warnings,
        top: top_functions(&s),
        slowest: slowest(&s, &loaded.built.meta.threads),
        unit: tree.unit,
        traced,
    })
}

/// Reads one pattern's trace. Of the per-call distributions only the
/// slowest calls per function are shown, after `per_function` merges
/// them: kept per function, they cost by functions rather than by
/// calling contexts, and the abstracted trees carry none (nothing reads
/// theirs).
fn load(p: &Pattern, config: &Config) -> Result<Loaded> {
    let input = InputOptions {
        trace: p.path.clone(),
        per_call: Some(crate::calltree::Keep::TotalByFunction),
        ..config.input.clone()
    };
    pipeline::load(&input, config.view)
}

/// The [`TOP_FUNCTIONS`] functions with the most self weight.
fn top_functions(s: &Subject) -> Vec<TopFunction> {
    let stats = crate::calltree::hot::func_stats(s.tree, s.funcs);
    let mut top: Vec<TopFunction> = stats
        .iter()
        .enumerate()
        .filter(|(f, st)| st.calls > 0 && !s.funcs.is_synthetic(*f as u32))
        .map(|(f, st)| TopFunction {
            name: s.names[f].name.clone(),
            calls: st.calls,
            self_weight: st.self_weight,
            total: st.total,
        })
        .collect();
    top.sort_by(|a, b| b.self_weight.cmp(&a.self_weight).then(a.name.cmp(&b.name)));
    top.truncate(TOP_FUNCTIONS);
    top
}

/// The [`TOP_FUNCTIONS`] functions with the slowest single call.
fn slowest(s: &Subject, threads: &[u64]) -> Vec<SlowFunction> {
    if !s.tree.unit.is_time() {
        return Vec::new();
    }
    let kept = s.tree.has_call_counts();
    let dists = crate::calltree::dist::per_function(s.tree, s.funcs.len());
    let mut slow: Vec<SlowFunction> = dists
        .iter()
        .enumerate()
        .filter(|(f, d)| d.total.count > 0 && !s.funcs.is_synthetic(*f as u32))
        .map(|(f, d)| {
            let d = &d.total;
            let tid = threads.get(d.max_at.thread as usize).copied().unwrap_or(0);
            SlowFunction {
                name: s.names[f].name.clone(),
                calls: d.count,
                p99: d.quantile(0.99),
                max: d.max,
                at: kept.then_some((tid, d.max_at.start)),
            }
        })
        .collect();
    slow.sort_by(|a, b| b.max.cmp(&a.max).then(a.name.cmp(&b.name)));
    slow.truncate(TOP_FUNCTIONS);
    slow
}

/// Runs every method, filling in the function sets of their stages;
/// returns their rates and the sweep of merge+threshold.
fn methods(
    s: &Subject,
    config: &Config,
    points: &[f64],
    functions: &mut [BTreeSet<String>; Stage::COUNT],
) -> (Vec<Rate>, Vec<SweepPoint>) {
    let params = config.params();
    let stages: Vec<Stage> = Stage::methods().collect();
    let lists: Vec<_> = stages
        .iter()
        .map(|&st| (spec(st).passes)(&params))
        .collect();
    let cx = Context {
        funcs: s.funcs,
        modules: s.modules,
        protected: &s.protected,
    };
    // The sweep merges with nothing protected and without folding paths:
    // with no protection on a tree of calls, method `merge` gives that tree.
    let plain = !s.protected.contains(&true) && !s.tree.has_call_counts();
    let mut rates = Vec::with_capacity(stages.len());
    let mut merged_sweep = None;
    shared::run_each(s.tree, &cx, &lists, |i, after| {
        functions[stages[i].index()] = function_set(&after.tree, s);
        rates.push(rate(s, stages[i], &params, after));
        if plain && stages[i] == Stage::merge() {
            merged_sweep = Some(sweep_of(s, Stage::merge_threshold(), &after.tree, points));
        }
    });
    let merged_sweep = merged_sweep.unwrap_or_else(|| {
        let merged = merge::merge(s.tree, s.funcs, s.modules);
        sweep_of(s, Stage::merge_threshold(), &merged, points)
    });
    (rates, merged_sweep)
}

fn spec(stage: Stage) -> &'static MethodSpec {
    stage.spec().expect("a method stage")
}

/// The rate of method `stage`, which gave `after`.
fn rate(s: &Subject, stage: Stage, params: &MethodParams, after: &Abstracted) -> Rate {
    Rate {
        stage,
        threshold: spec(stage).shown_value(params),
        nodes_before: s.nodes_before,
        nodes_after: after.tree.call_nodes(s.funcs),
        time_explained: after.explained(s.tree.total(0)),
    }
}

/// Method 1 on `input` at every threshold of `points`, as the sweep of `stage`.
fn sweep_of(s: &Subject, stage: Stage, input: &Tree, points: &[f64]) -> Vec<SweepPoint> {
    let inter = threshold::intermediate(input, s.modules);
    let levels = threshold::levels(input, s.funcs, &inter, points);
    let kept = threshold::kept_calls_per_point(input, s.funcs, &levels, points.len());
    let at = points.iter().zip(kept);
    at.map(|(&t, after)| SweepPoint {
        stage,
        threshold: t,
        nodes_after: after,
        kept_ratio: ratio(after, s.nodes_before),
    })
    .collect()
}

/// The distinct names of the call nodes' functions in `tree`.
fn function_set(tree: &Tree, s: &Subject) -> BTreeSet<String> {
    let mut seen = vec![false; s.names.len()];
    for n in 0..tree.len() as u32 {
        seen[tree.func(n) as usize] = true;
    }
    seen.iter()
        .enumerate()
        .filter(|&(f, &present)| present && !s.funcs.is_synthetic(f as u32))
        .map(|(f, _)| s.names[f].name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abstraction::{ModuleSource, ModuleTable};

    /// The paper's fig. 1 with its table 1 (weights in the indented format).
    const FIG1: &str = "Main (3000 / 10000)
  funcA (1500 / 4000)
    funcC (1300 / 1300)
    funcD (1200 / 1200)
  funcB (1700 / 3000)
    funcE (800 / 1300)
      funcF (500 / 500)
";
    const TABLE1: &str = "Main,m1\nfuncA,m1\nfuncB,m2\nfuncC,m2\nfuncE,m2\nfuncD,m3\nfuncF,m4\n";

    fn fig1() -> (tempfile::TempDir, Pattern, Config) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fig1.txt");
        std::fs::write(&path, FIG1).unwrap();
        let config = Config {
            modules: ModuleSource::Table(ModuleTable::parse("t1", TABLE1).unwrap()),
            sweep: super::super::Sweep::parse("0:1:0.5").unwrap(),
            ..Config::default()
        };
        let p = Pattern {
            name: "fig1".into(),
            path,
        };
        (dir, p, config)
    }

    /// `f` called from two contexts (`main;a;f` twice, `main;b;f` once);
    /// its slowest call (40 ns, at 110) is under `b`.
    const TWO_CONTEXTS: &str = "E main 0 1\nE a 10 1\nE f 20 1\nX f 30 1\nE f 40 1\nX f 45 1\nX a 50 1\nE b 100 1\nE f 110 1\nX f 150 1\nX b 160 1\nX main 200 1\n";

    #[test]
    fn patterns_keep_distributions_per_function_not_per_context() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two.txt");
        std::fs::write(&path, TWO_CONTEXTS).unwrap();
        let p = Pattern {
            name: "two".into(),
            path,
        };
        let config = Config {
            view: crate::calltree::View::Contexts,
            ..Config::default()
        };
        let loaded = load(&p, &config).unwrap();
        let tree = &loaded.built.tree;
        assert!(tree.dist.is_empty(), "per-context distributions kept");
        assert!(!tree.func_dist.is_empty());
        let r = pattern(&p, &config, &BTreeSet::new()).unwrap();
        let f = r.slowest.iter().find(|s| s.name == "f").unwrap();
        assert_eq!((f.calls, f.max, f.p99, f.at), (3, 40, 40, Some((1, 110))));
    }

    #[test]
    fn merging_fig1_keeps_five_of_seven_nodes() {
        let (_dir, p, config) = fig1();
        let r = pattern(&p, &config, &BTreeSet::new()).unwrap();
        assert_eq!(r.nodes_before, 7);
        let merge = r.rate(Stage::named("merge").unwrap()).unwrap();
        assert_eq!((merge.nodes_after, merge.threshold), (5, None));
        assert_eq!(merge.time_explained, 1.0);
        let merged: Vec<_> = r
            .functions(Stage::named("merge").unwrap())
            .iter()
            .cloned()
            .collect();
        assert_eq!(merged, ["Main", "funcB", "funcC", "funcD", "funcF"]);
        assert_eq!(r.functions(Stage::BEFORE).len(), 7);
    }

    #[test]
    fn sweep_covers_both_swept_methods_in_order() {
        let (_dir, p, config) = fig1();
        let r = pattern(&p, &config, &BTreeSet::new()).unwrap();
        let got: Vec<_> = r.sweep.iter().map(|s| (s.stage, s.threshold)).collect();
        let t = Stage::threshold();
        let mt = Stage::merge_threshold();
        assert_eq!(
            got,
            [
                (t, 0.0),
                (t, 0.5),
                (t, 1.0),
                (mt, 0.0),
                (mt, 0.5),
                (mt, 1.0)
            ]
        );
        // At 100% method 1 keeps everything; merge+threshold keeps the merged tree.
        assert_eq!(r.sweep[2].nodes_after, 7);
        assert_eq!(r.sweep[5].nodes_after, 5);
        assert!(
            r.sweep
                .windows(2)
                .all(|w| w[0].stage != w[1].stage || w[0].nodes_after <= w[1].nodes_after)
        );
    }
}
