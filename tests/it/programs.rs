//! Real programs: each `testdata/` program is compiled with
//! `-finstrument-functions` and the runtime, run, and its graph checked edge
//! by edge against the calls its source makes (the `EXPECTED CALLS` comment
//! at the top of each program, restated here).

use super::util::*;

/// testdata/hello/main.c, EXPECTED CALLS.
const HELLO_EDGES: &[(&str, &str, u64)] = &[
    ("main", "greet", 1),
    ("main", "total_area", 1),
    ("main", "factorial", 1),
    ("main", "log_value", 3),
    ("greet", "log_value", 1),
    ("total_area", "square_area", 1),
    ("total_area", "rect_area", 1),
    ("total_area", "triangle_area", 1),
    ("total_area", "sum3", 1),
    ("square_area", "rect_area", 1),
    ("rect_area", "multiply", 2),
    ("triangle_area", "multiply", 1),
    ("triangle_area", "half", 1),
    ("sum3", "add", 2),
    ("factorial", "factorial", 3),
    ("factorial", "multiply", 3),
];

/// testdata/threads/threads.c, EXPECTED CALLS (all threads).
const THREAD_EDGES: &[(&str, &str, u64)] = &[
    ("main", "start_workers", 1),
    ("main", "main_work", 1),
    ("main", "join_workers", 1),
    ("main_work", "leaf_main", 2),
    ("worker_a", "leaf_a", 3),
    ("worker_b", "leaf_b", 5),
];

/// testdata/longjmp/longjmp.c as the trace shows it: `c -> d` where the
/// source has `run -> d` (the jump leaves no record in the trace).
const LONGJMP_EDGES: &[(&str, &str, u64)] = &[
    ("main", "run", 1),
    ("main", "e", 1),
    ("run", "a", 1),
    ("a", "b", 1),
    ("b", "c", 1),
    ("c", "d", 1),
];

const PLUS: &str = "ns::operator+(ns::Point const&, ns::Point const&)";
const EQ: &str = "ns::operator==(ns::Point const&, ns::Point const&)";
const SHOW: &str = "ns::operator<<(ns::Printer&, ns::Point const&)";
const HELPER: &str = "(anonymous namespace)::helper(int)";

/// testdata/cpp/names.cpp, EXPECTED CALLS (names as c++filt prints them).
const CPP_EDGES: &[(&str, &str, u64)] = &[
    ("main", "ns::Box<int>::Box(int)", 1),
    ("main", "ns::Box<int>::get() const", 2),
    ("main", "ns::Box<int>::set(int)", 1),
    ("main", "ns::Box<double>::Box(double)", 1),
    ("main", "ns::Box<double>::get() const", 1),
    ("main", "int ns::twice<int>(int)", 1),
    ("main", "double ns::twice<double>(double)", 1),
    ("main", "ns::Pair<int, double>::Pair(int, double)", 1),
    ("main", "ns::Pair<int, double>::sum() const", 1),
    ("main", "ns::Point::Point(int, int)", 2),
    ("main", PLUS, 1),
    ("main", EQ, 1),
    ("main", "main::{lambda(int)#1}::operator()(int) const", 1),
    ("main", "ns::Printer::operator<<(char const*)", 2),
    ("main", SHOW, 1),
    ("main", "ns::Point::norm2() const", 1),
    ("main", "ns::detail::count_chars(char const*, char)", 1),
    ("main", HELPER, 1),
    ("main", "operator\"\" _km(unsigned long long)", 1),
    (PLUS, "ns::Point::x() const", 2),
    (PLUS, "ns::Point::y() const", 2),
    (PLUS, "ns::Point::Point(int, int)", 1),
    (EQ, "ns::Point::x() const", 2),
    (SHOW, "ns::Printer::operator<<(char const*)", 3),
    (SHOW, "ns::Printer::operator<<(int)", 2),
    (SHOW, "ns::Point::x() const", 1),
    (SHOW, "ns::Point::y() const", 1),
    ("ns::Point::norm2() const", "int ns::twice<int>(int)", 2),
    (HELPER, "ns::Box<int>::Box(int)", 1),
    (HELPER, "ns::Box<int>::get() const", 1),
];

/// `e_type` of an ELF file: 2 = ET_EXEC (-no-pie), 3 = ET_DYN (PIE).
fn elf_type(p: &Program) -> u16 {
    let bytes = std::fs::read(&p.exe).expect("read executable");
    u16::from_le_bytes([bytes[16], bytes[17]])
}

/// Event lines of a text trace.
fn events(trace: &str) -> Vec<&str> {
    trace.lines().filter(|l| !l.starts_with('#')).collect()
}

fn check_hello(p: &Program) {
    let trace = p.text_trace();
    assert_eq!(events(&trace.text()).len(), 50, "25 calls, 50 E/X lines");
    let g = graph(p.exe(), &trace.path);
    assert_eq!(g.edges(), edges(HELLO_EDGES));
    assert!(
        g.stderr.contains("(12 functions, 16 edges)"),
        "{}",
        g.stderr
    );
    assert_eq!(csv_total_unit(&g.csv), "ns");
    // Every edge has a time. A call of a trivial leaf may take 0 ns: two
    // `rdtsc` reads a few instructions apart can return the same tick
    // count (seen on an AMD EPYC machine: `half` entered and left at the
    // same ns), so only the edges below `main` must have taken some time.
    let mut below_main = 0;
    for [caller, callee, _, time] in csv_rows(&g.csv) {
        let t = time.parse::<u64>();
        assert!(
            t.is_ok(),
            "{caller} -> {callee}: a timed trace has a total_ns, got `{time}`"
        );
        if caller == "main" {
            below_main += t.unwrap_or(0);
        }
    }
    assert!(
        below_main > 0,
        "the calls from main took no time:\n{}",
        String::from_utf8_lossy(&g.csv)
    );
}

#[test]
fn hello_pie_gives_the_exact_edges_and_counts_of_the_source() {
    assert_eq!(elf_type(hello_pie()), 3, "a PIE");
    check_hello(hello_pie());
}

#[test]
fn hello_no_pie_gives_the_exact_edges_and_counts_of_the_source() {
    assert_eq!(elf_type(hello_no_pie()), 2, "not a PIE");
    check_hello(hello_no_pie());
}

#[test]
fn pie_and_no_pie_builds_give_identical_graphs() {
    let (pie, fixed) = (hello_pie(), hello_no_pie());
    let (pie_trace, fixed_trace) = (pie.text_trace().text(), fixed.text_trace().text());
    assert_ne!(
        events(&pie_trace)[0].split(' ').next(),
        events(&fixed_trace)[0].split(' ').next(),
        "the two builds run at different addresses"
    );
    // Untimed, the whole DOT (names, tooltips, counts) must be the same bytes,
    // whether the load base comes from the header or is inferred.
    for strip in [untimed, headerless] {
        let (_d1, a) = temp_file("pie.txt", strip(&pie_trace));
        let (_d2, b) = temp_file("no-pie.txt", strip(&fixed_trace));
        let (ga, gb) = (graph(pie.exe(), &a), graph(fixed.exe(), &b));
        assert_eq!(ga.dot, gb.dot);
        assert_eq!(ga.csv, gb.csv);
        assert_eq!(ga.edges(), edges(HELLO_EDGES));
        assert!(
            !ga.dot.contains("0x"),
            "every address resolved:\n{}",
            ga.dot
        );
    }
}

#[test]
fn binary_traces_give_the_same_graph_as_text_traces() {
    for p in [hello_pie(), hello_no_pie(), threads()] {
        let text = graph(p.exe(), &p.text_trace().path);
        let binary = graph(p.exe(), &p.binary_trace().path);
        assert_eq!(binary.edges(), text.edges(), "{}", p.exe());
    }
    // One thread: same first-appearance order and tree shape too.
    let p = hello_pie();
    let rows = |path| -> Vec<_> {
        csv_rows(&graph(p.exe(), path).csv)
            .into_iter()
            .map(|[a, b, n, _]| (a, b, n))
            .collect()
    };
    assert_eq!(rows(&p.binary_trace().path), rows(&p.text_trace().path));
    let contexts = |path| shape(&tree(p.exe(), path, &["--view", "contexts"]));
    assert_eq!(
        contexts(&p.binary_trace().path),
        contexts(&p.text_trace().path)
    );
}

#[test]
fn hello_untimed_tree_counts_calls() {
    let p = hello_pie();
    let (_d, path) = temp_file("trace.txt", untimed(&p.text_trace().text()));
    let text = tree(p.exe(), &path, &[]);
    assert!(text.starts_with("main (1 call / 25 calls)\n"), "{text}");
    assert_eq!(text.lines().count(), 25, "one line per call");
    let factorial: Vec<_> = text.lines().filter(|l| l.contains("factorial")).collect();
    assert_eq!(
        factorial,
        [
            "  factorial (1 call / 7 calls)",
            "    factorial (1 call / 5 calls)",
            "      factorial (1 call / 3 calls)",
            "        factorial (1 call / 1 call)"
        ]
    );
}

#[test]
fn threads_get_one_node_each_and_no_edge_crosses_threads() {
    let p = threads();
    let trace = p.text_trace();
    assert_eq!(events(&trace.text()).len(), 32, "16 calls, 32 E/X lines");
    assert_eq!(graph(p.exe(), &trace.path).edges(), edges(THREAD_EDGES));

    let text = tree(p.exe(), &trace.path, &["--view", "contexts"]);
    let mut blocks: Vec<(u64, String)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("[thread ") {
            let (tid, weights) = rest.split_once("] ").expect("[thread N] (0 / T)");
            assert!(
                weights.starts_with("(0 ns / "),
                "threads are not calls: {line}"
            );
            blocks.push((tid.parse().expect("numeric tid"), String::new()));
        } else {
            let block = &mut blocks.last_mut().expect("a thread node comes first").1;
            block.push_str(&shape(line));
        }
    }
    let main = blocks
        .iter()
        .find(|(_, b)| b.starts_with("  main\n"))
        .expect("main's thread");
    assert_eq!(main.0, trace.pid as u64, "the main thread's tid is the pid");
    let mut tids: Vec<u64> = blocks.iter().map(|b| b.0).collect();
    tids.sort();
    tids.dedup();
    assert_eq!(tids.len(), 3, "three distinct threads: {text}");
    let mut shapes: Vec<&str> = blocks.iter().map(|b| b.1.as_str()).collect();
    shapes.sort();
    assert_eq!(
        shapes,
        [
            "  main\n    start_workers\n    main_work\n      leaf_main x2\n    join_workers\n",
            "  worker_a\n    leaf_a x3\n",
            "  worker_b\n    leaf_b x5\n",
        ]
    );
}

#[test]
fn longjmp_frames_are_closed_at_the_exit_of_the_function_that_set_the_jump() {
    let p = longjmp();
    let trace = p.text_trace();
    let g = graph(p.exe(), &trace.path);
    assert_eq!(g.edges(), edges(LONGJMP_EDGES));
    assert!(
        g.stderr.contains(
            "repaired unbalanced trace: 3 frame(s) closed by the exit of a caller further down the stack"
        ),
        "{}",
        g.stderr
    );

    let (_d, untimed_path) = temp_file("trace.txt", untimed(&trace.text()));
    assert_eq!(
        tree(p.exe(), &untimed_path, &[]),
        "main (1 call / 7 calls)\n  run (1 call / 5 calls)\n    a (1 call / 4 calls)\n      b (1 call / 3 calls)\n        c (1 call / 2 calls)\n          d (1 call / 1 call)\n  e (1 call / 1 call)\n"
    );

    // Timed: a, b and c end when run returns (X run), not at the jump.
    let text = trace.text();
    let ev: Vec<(&str, u64)> = events(&text)
        .iter()
        .map(|l| {
            let mut cols = l.split(' ');
            let kind_addr = cols.next().unwrap();
            (kind_addr, cols.next().unwrap().parse().unwrap())
        })
        .collect();
    let kinds: String = ev.iter().map(|(k, _)| &k[..1]).collect();
    assert_eq!(
        kinds, "EEEEEEXXEXX",
        "E main, run, a, b, c, d; X d, run; E e, X e, main"
    );
    let addr = |i: usize| &ev[i].0[1..];
    assert_eq!(
        (addr(6), addr(7), addr(9), addr(10)),
        (addr(5), addr(1), addr(8), addr(0))
    );
    let t = |i: usize| ev[i].1;
    let (d, e) = (t(6) - t(5), t(9) - t(8));
    let closed_at_x_run = |entry: usize| t(7) - t(entry);
    let (run, a, b, c) = (
        closed_at_x_run(1),
        closed_at_x_run(2),
        closed_at_x_run(3),
        closed_at_x_run(4),
    );
    let main = t(10) - t(0);
    let expected = format!(
        "main ({} ns / {main} ns)\n  run ({} ns / {run} ns)\n    a ({} ns / {a} ns)\n      b ({} ns / {b} ns)\n        c ({} ns / {c} ns)\n          d ({d} ns / {d} ns)\n  e ({e} ns / {e} ns)\n",
        main - run - e,
        run - a,
        a - b,
        b - c,
        c - d,
    );
    assert_eq!(tree(p.exe(), &trace.path, &["--time-unit", "ns"]), expected);
}

#[test]
fn cpp_names_are_demangled_quoted_and_escaped() {
    let p = cpp();
    let trace = p.text_trace();
    assert_eq!(events(&trace.text()).len(), 82, "41 calls, 82 E/X lines");
    let g = graph(p.exe(), &trace.path);
    // Parsed back from CSV: names with commas and quotes survived quoting.
    assert_eq!(g.edges(), edges(CPP_EDGES));
    assert!(
        g.stderr.contains("(23 functions, 30 edges)"),
        "{}",
        g.stderr
    );
    // Every function appears as exactly one escaped, quoted DOT label.
    let mut names: Vec<&str> = CPP_EDGES.iter().flat_map(|e| [e.0, e.1]).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 23);
    for name in names {
        let label = format!(
            "[label=\"{}\\ntotal ",
            name.replace('\\', "\\\\").replace('"', "\\\"")
        );
        assert_eq!(g.dot.matches(&label).count(), 1, "{label} in\n{}", g.dot);
    }
    assert!(
        g.dot
            .contains(r#"[label="operator\"\" _km(unsigned long long)\ntotal "#)
    );
}
