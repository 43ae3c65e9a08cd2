use super::*;
use crate::calltree::ContextsBuilder;
use crate::ingest::{Event, EventKind, EventSink, TraceMeta};

fn ev(kind: EventKind, func: u32, time: u64) -> Event {
    Event {
        time,
        func,
        thread: 0,
        kind,
    }
}

/// main calls f(10), g, f(30) where g calls f(5) and recursion f -> f.
fn tree() -> (Tree, FuncTable, Vec<FuncInfo>) {
    use EventKind::*;
    let mut funcs = FuncTable::default();
    let (m, f, g) = (funcs.name("main"), funcs.name("f"), funcs.name("g"));
    let mut b = ContextsBuilder::with_dists(crate::calltree::Keep::TotalAndSelf);
    b.events(&[
        ev(Enter, m, 0),
        ev(Enter, f, 0),
        ev(Exit, f, 10),
        ev(Enter, g, 10),
        ev(Enter, f, 12),
        ev(Exit, f, 17),
        ev(Exit, g, 20),
        ev(Enter, f, 20),
        ev(Enter, f, 22),
        ev(Exit, f, 25),
        ev(Exit, f, 50),
        ev(Exit, m, 50),
    ]);
    let meta = TraceMeta {
        timed: true,
        threads: vec![1],
        ..TraceMeta::default()
    };
    let (t, _) = b.finish(&meta, &mut funcs);
    let names = crate::symbols::names_without_binary(&funcs);
    (t, funcs, names)
}

#[test]
fn function_rows_count_every_call_and_recursion_once_in_total() {
    let (t, funcs, names) = tree();
    let rows = rows(&t, &funcs, &names, By::Function);
    let f = rows.find("f").unwrap();
    assert_eq!(f.calls, 4);
    // Outermost calls: 10 + 5 + 30; the nested 3 is inside the 30.
    assert_eq!(f.total, 45);
    assert_eq!((f.dist.total.min, f.dist.total.max), (3, 30));
    assert_eq!(f.dist.total.max_at.start, 20);
    assert_eq!(f.dist.self_time.max, 27);
    assert_eq!(f.dist.total.count, 4);
}

#[test]
fn context_rows_are_paths_and_sorting_is_by_the_chosen_column() {
    let (t, funcs, names) = tree();
    let mut all = rows(&t, &funcs, &names, By::Context);
    let paths =
        |all: &Rows| -> Vec<String> { all.rows.iter().map(|r| all.path(r).into_owned()).collect() };
    assert_eq!(
        paths(&all),
        ["main", "main;f", "main;f;f", "main;g", "main;g;f"]
    );
    sort(&mut all.rows, Sort::Max, false);
    assert_eq!(paths(&all)[..2], ["main", "main;f"]);
    sort(&mut all.rows, Sort::Calls, false);
    assert_eq!((paths(&all)[0].as_str(), all.rows[0].calls), ("main;f", 2));
    sort(&mut all.rows, Sort::Max, true);
    assert_eq!(paths(&all)[0], "main;f", "self max 27 beats main's 0+");
    let f = all.find("main;g;f").unwrap();
    assert_eq!((f.name.as_str(), f.calls), ("f", 1));
    assert!(all.find("main;g;g").is_none());
}

/// A trace whose functions `a;b` and `a:b` differ only in the separator.
fn semicolon_tree() -> (Tree, FuncTable, Vec<FuncInfo>) {
    use EventKind::*;
    let mut funcs = FuncTable::default();
    let (m, semi, colon) = (funcs.name("main"), funcs.name("a;b"), funcs.name("a:b"));
    let mut b = ContextsBuilder::with_dists(crate::calltree::Keep::Total);
    b.events(&[
        ev(Enter, m, 0),
        ev(Enter, semi, 1),
        ev(Exit, semi, 11),
        ev(Enter, colon, 20),
        ev(Exit, colon, 40),
        ev(Exit, m, 50),
    ]);
    let meta = TraceMeta {
        timed: true,
        threads: vec![1],
        ..TraceMeta::default()
    };
    let (t, _) = b.finish(&meta, &mut funcs);
    let names = crate::symbols::names_without_binary(&funcs);
    (t, funcs, names)
}

#[test]
fn names_with_a_semicolon_keep_rows_of_their_own() {
    let (t, funcs, names) = semicolon_tree();
    let all = rows(&t, &funcs, &names, By::Function);
    assert_eq!(all.find("a;b").map(|r| r.total), Some(10));
    assert_eq!(all.find("a:b").map(|r| r.total), Some(20));
    let all = rows(&t, &funcs, &names, By::Context);
    let semi = all.find(r"main;a\;b").expect("the escaped path finds it");
    assert_eq!((semi.name.as_str(), semi.total), ("a;b", 10));
    assert_eq!(all.path(semi), r"main;a\;b");
    assert_eq!(all.find("main;a:b").map(|r| r.total), Some(20));
    assert!(all.find("main;a;b").is_none(), "three names: no such path");
}
