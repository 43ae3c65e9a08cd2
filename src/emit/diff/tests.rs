use super::*;
use crate::diff::{By as ByRow, Catalog, Key, Profile, Stats, diff};
use crate::emit::format::TimeUnit;
use crate::ingest::Unit;

thread_local! {
    /// The names of the runs a test compares.
    static CAT: std::cell::RefCell<Catalog> = Default::default();
}

fn k(name: &str) -> u32 {
    CAT.with(|c| {
        c.borrow_mut().key_id(Key {
            name: name.to_string(),
            file: String::new(),
        })
    })
}

/// A profile of `(path, calls, weight)` rows: by function when every path
/// is one name, else by context.
fn profile(unit: Unit, rows: &[(&str, u64, u64)]) -> Profile {
    let by = match rows.iter().any(|r| r.0.contains('/')) {
        true => ByRow::Context,
        false => ByRow::Function,
    };
    let mut p = Profile {
        unit,
        by,
        ..Profile::default()
    };
    for &(path, calls, w) in rows {
        p.total += w;
        let names: Vec<&str> = path.split('/').collect();
        let id = match by {
            ByRow::Function => k(path),
            ByRow::Context => CAT.with(|c| c.borrow_mut().context_of(&names)),
        };
        let s = Stats {
            calls,
            self_weight: w,
            total: w,
        };
        p.rows.insert(id, s);
    }
    p
}

/// [`diff`] with the test's names.
fn diffed(base: &[Profile], new: &[Profile]) -> Diff {
    CAT.with(|c| diff(base, new, &c.borrow(), &ChangeRule::default()))
}

fn sample(unit: Unit) -> Diff {
    let base = profile(unit, &[("main", 1, 1000), ("slow,\"x\"\nforged", 10, 1000)]);
    let new = profile(unit, &[("main", 1, 1000), ("slow,\"x\"\nforged", 10, 3000)]);
    diffed(&[base.clone(), base], &[new.clone(), new])
}

#[test]
fn csv_columns_carry_the_unit_and_names_cannot_add_rows() {
    let d = sample(Unit::Nanos);
    let text = String::from_utf8(csv(&d, By::Function).unwrap()).unwrap();
    let mut r = ::csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header.join(","),
        "function,file,calls_base,calls_new,self_base_ns,self_new_ns,total_base_ns,total_new_ns,\
         delta_self_ns,delta_total_ns,per_call_base_ns,per_call_new_ns,change"
    );
    let rows: Vec<_> = r.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(&rows[0][0], "slow,\"x\"\nforged");
    assert_eq!(&rows[0][8], "2000");
    assert_eq!(&rows[0][10], "100");
    assert_eq!(&rows[0][12], "slower per call");
    assert_eq!(&rows[1][12], "same");
}

#[test]
fn untimed_and_per_context_columns() {
    let d = sample(Unit::Calls);
    let cols = columns(&d, By::Context);
    assert_eq!(cols[4], "self_base_calls");
    assert_eq!(cols.last().unwrap(), "path");
}

#[test]
fn json_rows_have_the_csv_names() {
    let d = sample(Unit::Nanos);
    let v: Value = serde_json::from_slice(&json(&d, By::Function, &ChangeRule::default())).unwrap();
    assert_eq!(v["unit"], "ns");
    assert_eq!(v["rows"][0]["delta_self_ns"], 2000);
    assert_eq!(v["rows"][0]["change"], "slower per call");
    assert_eq!(v["base"]["runs"], 2);
    assert_eq!(v["time_tested"], true);
}

#[test]
fn the_table_states_the_direction_and_escapes_names() {
    let d = sample(Unit::Nanos);
    let text = String::from_utf8(table(&d, 20, TimeUnit::Auto)).unwrap();
    assert!(
        text.starts_with("base → new; + means new spends more"),
        "{text}"
    );
    assert!(text.contains("+2.00 us"), "{text}");
    assert!(text.contains("slow,\"x\"\\x0aforged"), "{text}");
    assert!(text.contains("1 row unchanged"), "{text}");
    let same = diffed(
        &[profile(Unit::Nanos, &[("a", 1, 5)])],
        &[profile(Unit::Nanos, &[("a", 1, 5)])],
    );
    let text = String::from_utf8(table(&same, 20, TimeUnit::Auto)).unwrap();
    assert!(text.contains("no change"), "{text}");
}

/// A diff of two runs a side where `gone` was removed, `fresh` added and
/// `slow` got slower.
fn changes() -> (Diff, Vec<Profile>, Vec<Profile>) {
    let mut base = profile(
        Unit::Nanos,
        &[("main", 1, 100), ("slow", 2, 100), ("gone", 1, 300)],
    );
    let mut new = profile(
        Unit::Nanos,
        &[("main", 1, 100), ("slow", 2, 500), ("fresh", 1, 300)],
    );
    let w = |calls| crate::diff::EdgeWeight { calls, total: 100 };
    base.edges.insert((k("main"), k("slow")), w(2));
    base.edges.insert((k("main"), k("gone")), w(1));
    new.edges.insert((k("main"), k("slow")), w(2));
    new.edges.insert((k("main"), k("fresh")), w(1));
    let (base, new) = (vec![base.clone(), base], vec![new.clone(), new]);
    let d = diffed(&base, &new);
    (d, base, new)
}

/// The same by context, with `main` a little slower but within noise.
fn context_changes() -> Diff {
    let side = |rows: &[(&str, u64, u64)]| {
        let p = profile(Unit::Nanos, rows);
        vec![p.clone(), p]
    };
    let base = side(&[
        ("main", 1, 1000),
        ("main/slow", 2, 100),
        ("main/gone", 1, 300),
    ]);
    let mut new = side(&[
        ("main", 1, 1005),
        ("main/slow", 2, 500),
        ("main/fresh", 1, 300),
    ]);
    // One new run's main is slower: its range overlaps nothing, but the
    // change is within the new runs' own spread.
    let main = CAT.with(|c| c.borrow_mut().context_of(&["main"]));
    new[1].rows.get_mut(&main).unwrap().self_weight = 1300;
    diffed(&base, &new)
}

#[test]
fn the_union_graph_outlines_added_dashes_removed_and_colours_by_change() {
    let (d, base, new) = changes();
    let u = crate::diff::union(&d, &base, &new, crate::diff::Prune::default());
    assert_eq!(u.nodes.len(), 4);
    assert_eq!(u.edges.len(), 3, "the union of both sides' edges");
    let text = String::from_utf8(dot(&d, &u, TimeUnit::Auto)).unwrap();
    let line = |name: &str| {
        text.lines()
            .find(|l| l.contains(&format!("label=\"{name}\\n")))
            .unwrap_or_else(|| panic!("no node {name} in\n{text}"))
            .to_string()
    };
    assert!(line("fresh").contains("penwidth=3"), "{text}");
    assert!(line("gone").contains("dashed"), "{text}");
    assert!(!line("main").contains("dashed") && !line("main").contains("penwidth"));
    assert!(
        line("slow").contains(&format!("fillcolor=\"{}\"", diverging(1.0))),
        "{text}"
    );
    assert!(line("main").contains("fillcolor=\"#ffffff\""), "{text}");
    assert!(
        line("slow").contains("100 ns → 500 ns (+400%) · 2 → 2 calls"),
        "{text}"
    );
    assert!(
        text.contains("→ 0×\", style=dashed"),
        "the removed edge: {text}"
    );
    assert_eq!(diverging(-1.0), "#2166ac");
}

#[test]
fn the_removed_flame_graph_keeps_removed_stacks_wide() {
    let d = context_changes();
    let (new, cut) = flame::lines(&d, Widths::New);
    assert_eq!(cut, None);
    let (base, _) = flame::lines(&d, Widths::Base);
    assert!(new.contains(&"main;gone 300 0".to_string()), "{new:?}");
    assert!(base.contains(&"main;gone 0 300".to_string()), "{base:?}");
    assert!(base.contains(&"main;fresh 300 0".to_string()), "{base:?}");
    let mut svg = Vec::new();
    flamegraph(&d, Widths::Base, "t", &mut svg).unwrap();
    let svg = String::from_utf8(svg).unwrap();
    assert!(svg.contains("gone"), "removed code is drawn");
}

/// Regression (issue 39): the flame graph coloured every frame by the
/// change in its self weight, noise or not, so a frame the table called
/// `same` could be the reddest.
#[test]
fn frames_the_table_calls_same_are_drawn_neutral() {
    let d = context_changes();
    let main = d.rows.iter().find(|r| d.path(r) == "main").unwrap();
    assert_eq!(main.change, crate::diff::Change::Same);
    assert_ne!(main.delta_self(), 0);
    let (lines, _) = flame::lines(&d, Widths::New);
    let line = |stack: &str| {
        lines
            .iter()
            .find(|l| l.rsplitn(3, ' ').nth(2) == Some(stack))
            .unwrap_or_else(|| panic!("no {stack} in {lines:?}"))
            .clone()
    };
    // `main`'s median moved 1000 -> 1152: no difference drawn.
    assert_eq!(line("main"), "main 1152 1152");
    assert_eq!(line("main;slow"), "main;slow 100 500");
}

#[test]
fn the_within_noise_label_and_untested_single_runs() {
    let (d, base, new) = changes();
    let u = crate::diff::union(&d, &base, &new, crate::diff::Prune::default());
    let text = String::from_utf8(dot(&d, &u, TimeUnit::Auto)).unwrap();
    assert!(
        !text.contains("within noise"),
        "nothing moved in main: {text}"
    );
    let d = context_changes();
    let main = d.rows.iter().find(|r| d.path(r) == "main").unwrap();
    assert_eq!(dot::change_label(main), "within noise");
    // One run a side: slow's time alone changed, so it is untested.
    let one = diffed(&base[..1], &new[..1]);
    let slow = one.rows.iter().find(|r| r.key.name == "slow").unwrap();
    assert_eq!(slow.change, crate::diff::Change::Untested);
    assert_eq!(
        one.rows
            .iter()
            .find(|r| r.key.name == "fresh")
            .unwrap()
            .change,
        crate::diff::Change::Added
    );
    let table = String::from_utf8(table(&one, 20, TimeUnit::Auto)).unwrap();
    assert!(table.contains("one run on a side"), "{table}");
    let doc = |d: &Diff, by| -> Value {
        serde_json::from_slice(&json(d, by, &ChangeRule::default())).unwrap()
    };
    assert_eq!(doc(&one, By::Function)["time_tested"], false);
    assert_eq!(doc(&d, By::Context)["time_tested"], true);
}
