use super::*;

thread_local! {
    /// The names of the runs a test compares.
    static CAT: std::cell::RefCell<Catalog> = Default::default();
}

fn key(name: &str) -> u32 {
    CAT.with(|c| {
        c.borrow_mut().key_id(Key {
            name: name.to_string(),
            file: "a.c".to_string(),
        })
    })
}

/// Two runs alike: a side whose time changes can be tested.
fn twice(p: Profile) -> Vec<Profile> {
    vec![p.clone(), p]
}

/// [`diff`] with the test's names.
fn diffed(base: &[Profile], new: &[Profile], opts: &ChangeRule) -> Diff {
    CAT.with(|c| diff(base, new, &c.borrow(), opts))
}

/// A timed profile of `(name, calls, self)` rows; totals equal selves.
fn run(rows: &[(&str, u64, u64)]) -> Profile {
    let mut p = Profile {
        unit: Unit::Nanos,
        ..Profile::default()
    };
    for &(name, calls, self_weight) in rows {
        p.total += self_weight;
        let s = Stats {
            calls,
            self_weight,
            total: self_weight,
        };
        p.rows.insert(key(name), s);
    }
    p
}

fn change_of<'d>(d: &'d Diff, name: &str) -> &'d Row {
    d.rows.iter().find(|r| r.key.name == name).unwrap()
}

#[test]
fn a_run_against_itself_is_the_same_everywhere() {
    let r = run(&[("main", 1, 100), ("a", 10, 500), ("b", 3, 400)]);
    let d = diffed(
        std::slice::from_ref(&r),
        std::slice::from_ref(&r),
        &ChangeRule::default(),
    );
    assert!(d.rows.iter().all(|r| r.change == Change::Same));
    assert!(d.rows.iter().all(|r| r.delta_self() == 0));
    assert!(d.grown_above(0.0).is_empty());
}

#[test]
fn the_larger_term_names_the_change() {
    let base = run(&[("main", 1, 1000), ("slow", 10, 1000), ("often", 10, 1000)]);
    // slow: same calls, each call 3x as long; often: twice the calls, same per call.
    let new = run(&[("main", 1, 1000), ("slow", 10, 3000), ("often", 20, 2000)]);
    let d = diffed(&twice(base), &twice(new), &ChangeRule::default());
    assert_eq!(d.rows[0].key.name, "slow", "largest |delta_self| first");
    assert_eq!(change_of(&d, "slow").change, Change::SlowerPerCall);
    assert_eq!(change_of(&d, "often").change, Change::MoreCalls);
    assert_eq!(change_of(&d, "main").change, Change::Same);
    assert_eq!(change_of(&d, "often").new.calls, 20);
}

#[test]
fn the_attribution_terms_add_up_to_the_change() {
    let b = Stats {
        calls: 40,
        self_weight: 12_100,
        total: 0,
    };
    let n = Stats {
        calls: 80,
        self_weight: 15_300,
        total: 0,
    };
    let (calls, per_call) = attribute(b, n);
    assert!((calls + per_call - 3200.0).abs() < 1e-6);
    assert!(calls > 0.0 && per_call < 0.0);
}

#[test]
fn functions_on_one_side_only_are_added_or_removed() {
    let base = run(&[("main", 1, 100), ("gone", 2, 50)]);
    let new = run(&[("main", 1, 100), ("fresh", 5, 70)]);
    let d = diffed(&[base], &[new], &ChangeRule::default());
    assert_eq!(change_of(&d, "gone").change, Change::Removed);
    assert_eq!(change_of(&d, "fresh").change, Change::Added);
    assert_eq!(change_of(&d, "fresh").base, Stats::default());
}

#[test]
fn small_time_changes_are_the_same_but_count_changes_never_are() {
    let base = run(&[("main", 1, 100_000), ("tiny", 10, 100)]);
    let new = run(&[("main", 1, 100_500), ("tiny", 11, 110)]);
    let d = diffed(&[base], &[new], &ChangeRule::default());
    assert_eq!(change_of(&d, "main").change, Change::Same, "0.5% < 1%");
    assert_eq!(change_of(&d, "tiny").change, Change::MoreCalls);
}

#[test]
fn repeated_runs_take_medians_and_ignore_changes_within_their_noise() {
    let side = |v: &[u64]| -> Vec<Profile> {
        v.iter()
            .map(|&t| run(&[("main", 1, 1000), ("jitter", 5, t)]))
            .collect()
    };
    let base = side(&[900, 1000, 1100, 950, 1050]);
    let overlapping = side(&[1000, 1150, 1200, 990, 1180]);
    let d = diffed(&base, &overlapping, &ChangeRule::default());
    let row = change_of(&d, "jitter");
    assert_eq!(row.base.self_weight, 1000);
    assert_eq!(row.new.self_weight, 1150);
    assert_eq!(row.change, Change::Same, "ranges overlap: noise");
    let barely_apart = side(&[1110, 1120, 1150, 1140, 1150]);
    let d = diffed(&base, &barely_apart, &ChangeRule::default());
    assert_eq!(
        change_of(&d, "jitter").change,
        Change::Same,
        "apart, but by less than the base runs' own spread"
    );
    let apart = side(&[1300, 1350, 1400, 1310, 1320]);
    let d = diffed(&base, &apart, &ChangeRule::default());
    assert_eq!(change_of(&d, "jitter").change, Change::SlowerPerCall);
    assert_eq!(d.runs, (5, 5));
}

#[test]
fn normalize_total_scales_base_times_not_counts() {
    let base = run(&[("a", 10, 500), ("b", 10, 500)]);
    let new = run(&[("a", 10, 1000), ("b", 10, 1000)]);
    let opts = ChangeRule {
        normalize: Normalize::Total,
        ..ChangeRule::default()
    };
    let d = diffed(
        std::slice::from_ref(&base),
        std::slice::from_ref(&new),
        &opts,
    );
    assert_eq!(d.base_total, 2000);
    assert!(d.rows.iter().all(|r| r.change == Change::Same));
    assert_eq!(change_of(&d, "a").base.calls, 10);
    let d = diffed(&twice(base), &twice(new), &ChangeRule::default());
    assert!(d.rows.iter().all(|r| r.change == Change::SlowerPerCall));
}

/// Regression (issue 39): with one run a side, noise was reported as
/// `slower per call`; such rows are `untested`, and counts stay exact.
#[test]
fn one_run_a_side_leaves_time_changes_untested() {
    let base = run(&[("main", 1, 1000), ("slow", 10, 1000), ("often", 10, 1000)]);
    let new = run(&[("main", 1, 1000), ("slow", 10, 3000), ("often", 20, 2000)]);
    let d = diffed(&[base], &[new], &ChangeRule::default());
    assert!(!d.time_tested());
    assert_eq!(change_of(&d, "slow").change, Change::Untested);
    assert_eq!(change_of(&d, "often").change, Change::MoreCalls);
    assert_eq!(change_of(&d, "main").change, Change::Same);
    assert!(!Change::Untested.is_finding() && Change::MoreCalls.is_finding());
    // The gate still counts it: one run a side must not pass a gate by
    // being unable to test.
    let grown: Vec<&str> = d.grown_above(0.5).iter().map(|r| r.function()).collect();
    assert_eq!(grown, ["slow"], "+2000 of 3000; often grew by 1000");
}

#[test]
fn untimed_runs_diff_counts_only() {
    let mut base = run(&[("a", 10, 10), ("b", 4, 4)]);
    let mut new = run(&[("a", 10, 10), ("b", 8, 8)]);
    base.unit = Unit::Calls;
    new.unit = Unit::Calls;
    let d = diffed(&[base], &[new], &ChangeRule::default());
    assert!(!d.timed());
    assert_eq!(change_of(&d, "b").change, Change::MoreCalls);
    assert_eq!(change_of(&d, "a").change, Change::Same);
}

#[test]
fn the_gate_counts_only_real_growth_above_the_share() {
    let base = run(&[("main", 1, 1000), ("slow", 10, 1000)]);
    let new = run(&[("main", 1, 1000), ("slow", 10, 1300)]);
    let d = diffed(&[base], &[new], &ChangeRule::default());
    assert_eq!(
        d.grown_above(0.10).len(),
        1,
        "grew by 15% of the base total"
    );
    assert!(d.grown_above(0.20).is_empty());
}

#[test]
fn medians_of_even_counts_average_the_middle_two() {
    assert_eq!(median([4, 1, 3, 2].into_iter()), 2);
    assert_eq!(median([5].into_iter()), 5);
    assert_eq!(median(std::iter::empty()), 0);
    assert_eq!(
        per_call(Stats {
            calls: 3,
            self_weight: 10,
            total: 0
        }),
        Some(3)
    );
    assert_eq!(per_call(Stats::default()), None);
}
