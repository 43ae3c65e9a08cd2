use super::*;
use crate::diff::{Key, Profile, Stats, diff};
use crate::emit::format::TimeUnit;
use crate::ingest::Unit;

fn profile(unit: Unit, rows: &[(&str, u64, u64)]) -> Profile {
    let mut p = Profile {
        unit,
        ..Profile::default()
    };
    for &(name, calls, w) in rows {
        p.total += w;
        let key = Key {
            name: name.to_string(),
            file: String::new(),
        };
        let s = Stats {
            calls,
            self_weight: w,
            total: w,
        };
        p.rows.insert(key, s);
    }
    p
}

fn sample(unit: Unit) -> Diff {
    let base = profile(unit, &[("main", 1, 1000), ("slow,\"x\"\nforged", 10, 1000)]);
    let new = profile(unit, &[("main", 1, 1000), ("slow,\"x\"\nforged", 10, 3000)]);
    diff(&[base], &[new], &DiffOptions::default())
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
    let v: Value =
        serde_json::from_slice(&json(&d, By::Function, &DiffOptions::default())).unwrap();
    assert_eq!(v["unit"], "ns");
    assert_eq!(v["rows"][0]["delta_self_ns"], 2000);
    assert_eq!(v["rows"][0]["change"], "slower per call");
    assert_eq!(v["base"]["runs"], 1);
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
    let same = diff(
        &[profile(Unit::Nanos, &[("a", 1, 5)])],
        &[profile(Unit::Nanos, &[("a", 1, 5)])],
        &DiffOptions::default(),
    );
    let text = String::from_utf8(table(&same, 20, TimeUnit::Auto)).unwrap();
    assert!(text.contains("no change"), "{text}");
}

/// A diff where `gone` was removed, `fresh` added and `slow` got slower.
fn changes() -> (Diff, Vec<Profile>, Vec<Profile>) {
    let mut base = profile(
        Unit::Nanos,
        &[("main", 1, 100), ("slow", 2, 100), ("gone", 1, 300)],
    );
    let mut new = profile(
        Unit::Nanos,
        &[("main", 1, 100), ("slow", 2, 500), ("fresh", 1, 300)],
    );
    let k = |n: &str| Key {
        name: n.to_string(),
        file: String::new(),
    };
    let w = |calls| crate::diff::EdgeWeight { calls, total: 100 };
    base.edges.insert((k("main"), k("slow")), w(2));
    base.edges.insert((k("main"), k("gone")), w(1));
    new.edges.insert((k("main"), k("slow")), w(2));
    new.edges.insert((k("main"), k("fresh")), w(1));
    let d = diff(
        std::slice::from_ref(&base),
        std::slice::from_ref(&new),
        &DiffOptions::default(),
    );
    (d, vec![base], vec![new])
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
    let (d, _, _) = changes();
    let new = flame::lines(&d, Widths::New);
    let base = flame::lines(&d, Widths::Base);
    assert!(new.contains(&"gone 300 0".to_string()), "{new:?}");
    assert!(base.contains(&"gone 0 300".to_string()), "{base:?}");
    assert!(base.contains(&"fresh 300 0".to_string()), "{base:?}");
    let mut svg = Vec::new();
    flamegraph(&d, Widths::Base, "t", &mut svg).unwrap();
    let svg = String::from_utf8(svg).unwrap();
    assert!(svg.contains("gone"), "removed code is drawn");
}
