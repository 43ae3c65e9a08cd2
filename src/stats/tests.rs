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
    let f = find(&rows, "f").unwrap();
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
    let mut rows = rows(&t, &funcs, &names, By::Context);
    let paths: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(paths, ["main", "main;f", "main;f;f", "main;g", "main;g;f"]);
    sort(&mut rows, Sort::Max, false);
    assert_eq!(rows[0].name, "main");
    assert_eq!(rows[1].name, "main;f");
    sort(&mut rows, Sort::Calls, false);
    assert_eq!((rows[0].name.as_str(), rows[0].calls), ("main;f", 2));
    sort(&mut rows, Sort::Max, true);
    assert_eq!(rows[0].name, "main;f", "self max 27 beats main's 0+");
}
