use super::*;
use crate::ingest::{EventKind::*, FuncKey};

fn ev(kind: EventKind, func: FuncId, time: u64, thread: u32) -> Event {
    Event {
        time,
        func,
        thread,
        kind,
    }
}

fn meta(timed: bool, threads: Vec<u64>) -> TraceMeta {
    TraceMeta {
        timed,
        threads,
        ..TraceMeta::default()
    }
}

/// (depth, func, total, self, calls) of every node, root first.
fn rows(t: &Tree) -> Vec<(u32, FuncId, u64, u64, u64)> {
    let d = t.depths();
    (0..t.len() as NodeId)
        .map(|n| {
            (
                d[n as usize],
                t.func(n),
                t.total(n),
                t.self_time(n),
                t.calls(n),
            )
        })
        .collect()
}

fn funcs(n: u32) -> FuncTable {
    let mut f = FuncTable::default();
    for i in 1..=n {
        f.name(&format!("f{i}"));
    }
    f
}

#[test]
fn timed_calls_get_total_and_self() {
    let mut b = CallsBuilder::default();
    // f1 [0..100] calls f2 [10..30] and f2 [40..90] which calls f3 [50..60]
    b.events(&[
        ev(Enter, 1, 0, 0),
        ev(Enter, 2, 10, 0),
        ev(Exit, 2, 30, 0),
        ev(Enter, 2, 40, 0),
        ev(Enter, 3, 50, 0),
        ev(Exit, 3, 60, 0),
        ev(Exit, 2, 90, 0),
        ev(Exit, 1, 100, 0),
    ]);
    let (t, stats) = b.finish(&meta(true, vec![1]), &mut funcs(3));
    assert!(stats.is_clean());
    assert_eq!(
        rows(&t),
        [
            (0, 0, 100, 0, 1),
            (1, 1, 100, 30, 1),
            (2, 2, 20, 20, 1),
            (2, 2, 50, 40, 1),
            (3, 3, 10, 10, 1)
        ]
    );
}

#[test]
fn untimed_calls_weigh_one_each() {
    let mut b = CallsBuilder::default();
    b.events(&[
        ev(Enter, 1, 0, 0),
        ev(Enter, 2, 0, 0),
        ev(Exit, 2, 0, 0),
        ev(Enter, 2, 0, 0),
        ev(Exit, 2, 0, 0),
        ev(Exit, 1, 0, 0),
    ]);
    let (t, _) = b.finish(&meta(false, vec![0]), &mut funcs(2));
    assert_eq!(
        rows(&t),
        [
            (0, 0, 3, 0, 1),
            (1, 1, 3, 1, 1),
            (2, 2, 1, 1, 1),
            (2, 2, 1, 1, 1)
        ]
    );
}

#[test]
fn longjmp_exit_unwinds_skipped_frames() {
    // f1 -> f2 -> f3 -> f4, then f2 exits (f3, f4 skipped), orphan exit of f5, f1 never exits.
    let mut b = CallsBuilder::default();
    b.events(&[
        ev(Enter, 1, 0, 0),
        ev(Enter, 2, 10, 0),
        ev(Enter, 3, 20, 0),
        ev(Enter, 4, 30, 0),
        ev(Exit, 2, 50, 0),
        ev(Exit, 5, 55, 0),
        ev(Enter, 3, 60, 0),
        ev(Exit, 3, 70, 0),
    ]);
    let (t, stats) = b.finish(&meta(true, vec![0]), &mut funcs(5));
    assert_eq!(
        stats,
        RepairStats {
            unwound: 2,
            orphan_exits: 1,
            unclosed: 1,
            backwards: 0,
        }
    );
    assert_eq!(
        rows(&t),
        [
            (0, 0, 70, 0, 1),
            (1, 1, 70, 20, 1),
            (2, 2, 40, 10, 1),
            (3, 3, 30, 10, 1),
            (4, 4, 20, 20, 1),
            (2, 3, 10, 10, 1)
        ]
    );
}

#[test]
fn threads_hang_under_synthetic_thread_nodes() {
    let mut b = CallsBuilder::default();
    b.events(&[
        ev(Enter, 1, 0, 0),
        ev(Enter, 2, 5, 1),
        ev(Exit, 1, 10, 0),
        ev(Exit, 2, 25, 1),
    ]);
    let mut f = funcs(2);
    let (t, _) = b.finish(&meta(true, vec![100, 200]), &mut f);
    assert_eq!(t.len(), 5);
    assert_eq!(f.key(t.func(1)), &FuncKey::Thread(100));
    assert_eq!(f.key(t.func(3)), &FuncKey::Thread(200));
    assert_eq!(
        (t.total(0), t.total(1), t.total(3), t.total(4)),
        (30, 10, 20, 20)
    );
    assert_eq!(t.call_nodes(&f), 2);
}

#[test]
fn contexts_merge_identical_paths() {
    let mut b = ContextsBuilder::default();
    b.events(&[
        ev(Enter, 1, 0, 0),
        ev(Enter, 2, 10, 0),
        ev(Exit, 2, 30, 0),
        ev(Enter, 3, 35, 0),
        ev(Exit, 3, 38, 0),
        ev(Enter, 2, 40, 0),
        ev(Exit, 2, 90, 0),
        ev(Exit, 1, 100, 0),
    ]);
    let (t, _) = b.finish(&meta(true, vec![0]), &mut funcs(3));
    assert_eq!(
        rows(&t),
        [
            (0, 0, 100, 0, 0),
            (1, 1, 100, 27, 1),
            (2, 2, 70, 70, 2),
            (2, 3, 3, 3, 1)
        ]
    );
}

#[test]
fn indented_records_build_the_same_tree_in_both_views() {
    let recs = [
        (0, 1, 30, 100, 1),
        (1, 2, 70, 70, 1),
        (1, 2, 0, 0, 1),
        (0, 3, 5, 5, 1),
    ];
    let mut calls = CallsBuilder::default();
    let mut ctx = ContextsBuilder::default();
    for (depth, func, self_time, total, n) in recs {
        let r = NodeRecord {
            depth,
            func,
            self_time,
            total,
            calls: n,
        };
        calls.node(r);
        ctx.node(r);
    }
    let (t, _) = calls.finish(&meta(true, vec![0]), &mut funcs(3));
    assert_eq!(
        rows(&t),
        [
            (0, 0, 105, 0, 1),
            (1, 1, 100, 30, 1),
            (2, 2, 70, 70, 1),
            (2, 2, 0, 0, 1),
            (1, 3, 5, 5, 1)
        ]
    );
    let (c, _) = ctx.finish(&meta(true, vec![0]), &mut funcs(3));
    assert_eq!(
        rows(&c),
        [
            (0, 0, 105, 0, 0),
            (1, 1, 100, 30, 1),
            (2, 2, 70, 70, 2),
            (1, 3, 5, 5, 1)
        ]
    );
}

#[test]
fn threads_are_ordered_by_their_first_event() {
    // Thread index 0 (tid 200) comes first in the file but starts later.
    let evs = [
        ev(Enter, 2, 50, 0),
        ev(Exit, 2, 60, 0),
        ev(Enter, 1, 10, 1),
        ev(Exit, 1, 90, 1),
    ];
    let m = meta(true, vec![200, 100]);
    let mut calls = CallsBuilder::default();
    calls.events(&evs);
    let mut ctx = ContextsBuilder::default();
    ctx.events(&evs);
    let mut f = funcs(2);
    let (a, _) = calls.finish(&m, &mut f);
    let (b, _) = ctx.finish(&m, &mut f);
    for t in [a, b] {
        assert_eq!(
            f.key(t.func(1)),
            &FuncKey::Thread(100),
            "the thread that started first comes first"
        );
        assert_eq!((t.func(2), t.func(4)), (1, 2));
    }
}

#[test]
fn repair_summary_names_only_what_happened() {
    let s = RepairStats {
        unwound: 3,
        orphan_exits: 0,
        unclosed: 1,
        backwards: 0,
    };
    assert_eq!(
        s.to_string(),
        "3 frame(s) closed by the exit of a caller further down the stack (longjmp/exceptions), 1 frame(s) still open at the end closed at the last timestamp"
    );
}

/// A trace exercising every kind of line the parallel reader meets:
/// headers, comments and blank lines between events, CRLF line ends,
/// interleaved threads, addresses of every length, timestamps past eight
/// digits, an unbalanced exit and no line end on the last line.
fn tricky_trace() -> String {
    let mut t = String::from("# calltrace 1 text\r\n# base 0x555555554000 /tmp/app\n");
    let addrs = [
        0x5555_5555_5139u64,
        0x5555_5555_5200,
        0x10,
        0xffff_ffff_ffff_fff0,
    ];
    let mut time = 99_999_990u64;
    for i in 0..400u64 {
        let tid = [41, 42, 7][(i % 3) as usize];
        let (a, b) = (addrs[(i % 4) as usize], addrs[((i / 4) % 4) as usize]);
        for (kind, addr) in [('E', a), ('E', b), ('X', b), ('X', a)] {
            time += 1 + i % 7;
            let end = if i % 5 == 0 { "\r\n" } else { "\n" };
            t.push_str(&format!("{kind}0x{addr:x} {time} {tid}{end}"));
        }
        match i % 50 {
            10 => t.push_str("# a comment in the middle\n\n"),
            20 => t.push_str("\r\n"),
            30 => t.push_str(&format!("X0x999 {time} {tid}\n")),
            // longjmp: an exit that closes two frames above it
            40 => {
                for (kind, addr) in [('E', 0x20), ('E', 0x30), ('E', 0x40), ('X', 0x20)] {
                    t.push_str(&format!("{kind}0x{addr:x} {time} {tid}\n"));
                }
            }
            _ => {}
        }
    }
    t.push_str("E0x10 999999999999 41");
    t
}

/// A trace of `bytes` named `name`, its format as sniffed, and parse
/// options of `threads` threads and `chunk`-byte chunks.
pub(super) fn read_as(
    name: &str,
    bytes: &[u8],
    threads: usize,
    chunk: usize,
) -> (
    crate::ingest::Input,
    &'static dyn crate::ingest::TraceFormat,
    crate::ingest::ParseOptions,
) {
    let input = crate::ingest::Input::from_bytes(name, bytes.to_vec());
    let format = crate::ingest::guess::detect(&input, None).unwrap();
    let opts = crate::ingest::ParseOptions {
        threads,
        chunk_bytes: chunk,
        ..Default::default()
    };
    (input, format, opts)
}

/// The tree, function keys and metadata `calltree::build` gives for `text`.
pub(super) fn built(
    text: &str,
    view: crate::calltree::View,
    threads: usize,
    chunk: usize,
) -> String {
    let (input, format, opts) = read_as("t.txt", text.as_bytes(), threads, chunk);
    let b = crate::calltree::build(&input, format, &opts, view).unwrap();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}",
        b.tree,
        b.funcs.keys(),
        b.meta,
        b.repairs
    )
}

/// [`built`] in the contexts view with per-call distributions kept.
pub(super) fn built_with_dists(text: &str, threads: usize, chunk: usize) -> String {
    let (input, format, opts) = read_as("t.txt", text.as_bytes(), threads, chunk);
    let builder = crate::calltree::Builder::with_dists(
        crate::calltree::View::Contexts,
        crate::calltree::Keep::TotalAndSelf,
    );
    let b = crate::calltree::build_with(&input, format, &opts, builder).unwrap();
    assert!(b.tree.has_dists());
    format!("{:?}\n{:?}", b.tree, b.repairs)
}

#[test]
fn distributions_are_the_same_for_any_thread_count_and_chunk_size() {
    let text = tricky_trace();
    let reference = built_with_dists(&text, 1, 1 << 30);
    assert!(reference.contains("max_at: At { thread: 2"), "{reference}");
    for (threads, chunk) in [(1, 1), (2, 1), (4, 7), (3, 64), (2, 90), (2, 1000), (8, 0)] {
        assert_eq!(
            built_with_dists(&text, threads, chunk),
            reference,
            "{threads} threads and {chunk}-byte chunks"
        );
    }
}

/// The per-function distributions of `text`'s contexts tree built with
/// `keep`, and the tree itself without them.
pub(super) fn per_function_dists(
    text: &str,
    keep: crate::calltree::Keep,
    threads: usize,
    chunk: usize,
) -> (String, String) {
    let (input, format, opts) = read_as("t.txt", text.as_bytes(), threads, chunk);
    let builder = crate::calltree::Builder::with_dists(crate::calltree::View::Contexts, keep);
    let mut b = crate::calltree::build_with(&input, format, &opts, builder).unwrap();
    let dists = crate::calltree::dist::per_function(&b.tree, b.funcs.len());
    b.tree.dist.clear();
    b.tree.func_dist.clear();
    (
        format!("{dists:?}"),
        format!("{:?}\n{:?}", b.tree, b.repairs),
    )
}

#[test]
fn distributions_kept_by_function_are_the_merged_context_ones_for_any_chunking() {
    use crate::calltree::Keep;
    let text = tricky_trace();
    let reference = per_function_dists(&text, Keep::Total, 1, 1 << 30);
    assert!(
        reference.0.contains("max_at: At { thread: 2"),
        "{}",
        reference.0
    );
    for (threads, chunk) in [
        (1, 1 << 30),
        (1, 1),
        (2, 1),
        (4, 7),
        (3, 64),
        (2, 90),
        (8, 0),
    ] {
        assert_eq!(
            per_function_dists(&text, Keep::TotalByFunction, threads, chunk),
            reference,
            "{threads} threads and {chunk}-byte chunks"
        );
    }
}

#[test]
fn distributions_kept_by_function_cost_one_per_function_not_per_context() {
    // f recurses 50 deep: 50 contexts of f, one distribution.
    let mut text = String::from("# base 0x1000\n");
    for i in 0..50u64 {
        text.push_str(&format!("E0x41 {} 1\n", 100 + i));
    }
    for i in 0..50u64 {
        text.push_str(&format!("X0x41 {} 1\n", 200 + i));
    }
    let input = crate::ingest::Input::from_bytes("t.txt", text.into_bytes());
    let format = crate::ingest::guess::detect(&input, None).unwrap();
    let keep = crate::calltree::Keep::TotalByFunction;
    let builder = crate::calltree::Builder::with_dists(crate::calltree::View::Contexts, keep);
    let b = crate::calltree::build_with(&input, format, &Default::default(), builder).unwrap();
    assert_eq!(b.tree.len(), 51);
    assert!(b.tree.dist.is_empty());
    assert!(b.tree.func_dist.len() <= b.funcs.len());
    let f = b.tree.func(1) as usize;
    let d = &b.tree.func_dist[f].total;
    // Each call once: the outermost took 149, the innermost 51.
    assert_eq!((d.count, d.min, d.max, d.max_at.start), (50, 51, 149, 0));
}

#[test]
fn any_thread_count_and_chunk_size_builds_the_same_tree() {
    let text = tricky_trace();
    for view in [
        crate::calltree::View::Calls,
        crate::calltree::View::Contexts,
    ] {
        let reference = built(&text, view, 1, 1 << 30);
        assert!(
            reference.contains("base: Some(93824992231424)"),
            "{reference}"
        );
        for (threads, chunk) in [(1, 1), (2, 1), (4, 7), (3, 64), (2, 90), (2, 1000), (8, 0)] {
            assert_eq!(
                built(&text, view, threads, chunk),
                reference,
                "{view:?} with {threads} threads and {chunk}-byte chunks"
            );
        }
    }
}

/// A trace from (thread, function, enter?) steps: entries are always
/// written; exits name the function given, so they may close the top
/// frame, unwind several, or match nothing (orphans).
fn trace_of(steps: &[(u8, u8, bool)]) -> String {
    let mut t = String::from("# base 0x1000\n");
    for (i, &(thread, func, enter)) in steps.iter().enumerate() {
        let kind = if enter { 'E' } else { 'X' };
        let time = 1000 + i as u64 * 7;
        t.push_str(&format!(
            "{kind}0x{:x} {time} {}\n",
            0x40 + func as u64,
            100 + thread as u64
        ));
    }
    t
}

/// The same steps as one thread's seed-format trace (`E0x41`), or with
/// every timestamp 0 (`E0x41 0`) when `zeros`.
fn seed_of(steps: &[(u8, u8, bool)], zeros: bool) -> String {
    let mut t = String::from("# base 0x1000\n");
    for &(_, func, enter) in steps {
        let kind = if enter { 'E' } else { 'X' };
        let time = if zeros { " 0" } else { "" };
        t.push_str(&format!("{kind}0x{:x}{time}\n", 0x40 + func as u64));
    }
    t
}

/// The same trace in the binary format: one block per run of steps of one thread.
fn binary_of(steps: &[(u8, u8, bool)]) -> Vec<u8> {
    use crate::ingest::binary::{Block, encode};
    let mut blocks: Vec<Block> = Vec::new();
    for (i, &(thread, func, enter)) in steps.iter().enumerate() {
        let tid = 100 + thread as u64;
        let kind = if enter { Enter } else { Exit };
        let event = (kind, 0x40 + func as u64, 1000 + i as u64 * 7);
        match blocks.last_mut() {
            Some((t, events)) if *t == tid => events.push(event),
            _ => blocks.push((tid, vec![event])),
        }
    }
    encode(0x1000, "", &blocks)
}

/// Tree and function keys built from a binary trace.
fn built_binary(bytes: &[u8], view: crate::calltree::View, threads: usize, chunk: usize) -> String {
    let input = crate::ingest::Input::from_bytes("t.bin", bytes.to_vec());
    let opts = crate::ingest::ParseOptions {
        threads,
        chunk_bytes: chunk,
        ..Default::default()
    };
    let b = crate::calltree::build(&input, &crate::ingest::BinaryFormat, &opts, view).unwrap();
    format!("{:?}\n{:?}\n{:?}", b.tree, b.funcs.keys(), b.repairs)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn chunk_summaries_merge_to_the_sequential_tree(
        steps in proptest::collection::vec((0u8..3, 0u8..5, proptest::bool::weighted(0.55)), 1..200),
        chunk in 1usize..400,
    ) {
        let text = trace_of(&steps);
        for view in [crate::calltree::View::Contexts, crate::calltree::View::Calls] {
            let reference = built(&text, view, 1, 1 << 30);
            proptest::prop_assert_eq!(&built(&text, view, 2, chunk), &reference);
            proptest::prop_assert_eq!(&built(&text, view, 1, chunk), &reference);
            // The binary trace of the same events builds the same tree.
            let tree_and_keys: Vec<&str> = reference.lines().take(2).collect();
            let bin = built_binary(&binary_of(&steps), view, 2, chunk);
            let bin_tree: Vec<&str> = bin.lines().take(2).collect();
            proptest::prop_assert_eq!(bin_tree, tree_and_keys);
        }
        let reference = built_with_dists(&text, 1, 1 << 30);
        proptest::prop_assert_eq!(&built_with_dists(&text, 2, chunk), &reference);
        let by_context = per_function_dists(&text, crate::calltree::Keep::Total, 1, 1 << 30);
        let by_function = per_function_dists(&text, crate::calltree::Keep::TotalByFunction, 2, chunk);
        proptest::prop_assert_eq!(by_function, by_context);
        // Untimed chunks are summarised without time arithmetic: the
        // tree's shape and calls, the functions and the repairs are those
        // of the same events timed at 0 (the weights differ: an untimed
        // tree counts calls).
        let untimed = built(&seed_of(&steps, false), crate::calltree::View::Contexts, 2, chunk);
        let zeros = built(&seed_of(&steps, true), crate::calltree::View::Contexts, 2, chunk);
        let parts = |s: &str| {
            let l: Vec<&str> = s.lines().collect();
            let field = |name: &str| {
                let from = l[0].find(&format!("{name}: [")).map_or(0, |i| i + name.len() + 2);
                l[0][from..].split(']').next().unwrap_or("").to_string()
            };
            (field("func"), field("size"), field("calls"), l[1].to_string(), l[3].to_string())
        };
        proptest::prop_assert_eq!(parts(&untimed), parts(&zeros));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Leaf calls (an entry directly followed by its exit) are summarised
    /// as one step on the fast path: the tree, weights and repairs are
    /// those of the sequential path, which takes every event on its own,
    /// whatever the timestamps (going backwards, up to 16 digits), for
    /// address and symbolic lines.
    #[test]
    fn leaf_calls_summed_at_once_weigh_what_their_two_events_do(
        steps in proptest::collection::vec(
            (0u8..4, proptest::bool::weighted(0.55), 0u64..10_000_000_000_000_000),
            1..300,
        ),
        leaves in proptest::collection::vec(
            proptest::option::of(0u64..10_000_000_000_000_000),
            300,
        ),
        timed in proptest::bool::ANY,
        symbolic in proptest::bool::ANY,
    ) {
        // Each step opens a call; a chosen one is a leaf (its exit on the
        // next line), the others close later or never.
        let mut lines = Vec::new();
        for (k, &(func, enter, time)) in steps.iter().enumerate() {
            let kind = if enter { 'E' } else { 'X' };
            lines.push((kind, func, time));
            if enter && let Some(exit) = leaves[k] {
                lines.push(('X', func, exit));
            }
        }
        let text = |glued: bool| {
            // No `# base` header: the scanner leaves chunks with one to
            // the line parser.
            let mut t = String::new();
            for (n, &(kind, func, time)) in lines.iter().enumerate() {
                // `E 0x41` and `E  f1` are lines only the line parser
                // reads: they make the whole (single) chunk take the
                // sequential path.
                let sep = if glued || n > 0 { "" } else { " " };
                let time = if timed { format!(" {time:016}") } else { String::new() };
                if symbolic {
                    // Short and long (C++) names, two of one length.
                    let name = ["f0", "_ZNSt6vectorIiSaIiEE9push_backERKi", "f2", "_ZNSt6vectorIjSaIiEE9push_backERKi"][func as usize];
                    t.push_str(&format!("{kind} {sep}{name}{time}\n"));
                } else {
                    t.push_str(&format!("{kind}{sep}0x{:x}{time}\n", 0x40 + func as u64));
                }
            }
            t
        };
        let view = crate::calltree::View::Contexts;
        proptest::prop_assert_eq!(built(&text(true), view, 2, 1 << 30), built(&text(false), view, 2, 1 << 30));
    }
}

#[test]
fn backwards_timestamps_are_counted_and_weigh_zero() {
    // f2 exits at 5 after entering at 50; f1's total stays 100, not wrapped.
    let events = [
        ev(Enter, 1, 0, 0),
        ev(Enter, 2, 50, 0),
        ev(Exit, 2, 5, 0),
        ev(Exit, 1, 100, 0),
    ];
    let mut b = CallsBuilder::default();
    b.events(&events);
    let (t, stats) = b.finish(&meta(true, vec![1]), &mut funcs(2));
    assert_eq!(stats.backwards, 1);
    assert_eq!(
        rows(&t),
        [(0, 0, 100, 0, 1), (1, 1, 100, 100, 1), (2, 2, 0, 0, 1)]
    );
    assert!(
        stats
            .to_string()
            .contains("1 exit(s) timed before their entry")
    );
    let mut b = ContextsBuilder::default();
    b.events(&events);
    let (t, stats) = b.finish(&meta(true, vec![1]), &mut funcs(2));
    assert_eq!(stats.backwards, 1);
    assert_eq!(t.total(1), 100);
}

#[test]
fn huge_timestamps_saturate_instead_of_wrapping() {
    // Two calls of u64::MAX - 1 each: their sum does not fit in 64 bits.
    let mut b = ContextsBuilder::default();
    b.events(&[
        ev(Enter, 1, 0, 0),
        ev(Exit, 1, u64::MAX - 1, 0),
        ev(Enter, 1, 0, 1),
        ev(Exit, 1, u64::MAX - 1, 1),
    ]);
    let (t, _) = b.finish(&meta(true, vec![1, 2]), &mut funcs(1));
    assert!(
        (0..t.len() as NodeId).all(|n| t.total(n) >= u64::MAX - 1),
        "{:?}",
        rows(&t)
    );
}

#[test]
fn orphan_exits_against_a_deep_stack_cost_no_search() {
    // 200,000 frames deep, then 200,000 exits of a function never entered:
    // with a search of the stack per exit this took minutes.
    const DEEP: u32 = 200_000;
    let mut events: Vec<Event> = (0..DEEP).map(|i| ev(Enter, 1, u64::from(i), 0)).collect();
    events.extend((0..DEEP).map(|i| ev(Exit, 2, u64::from(DEEP + i), 0)));
    events.extend((0..DEEP).map(|i| ev(Exit, 1, u64::from(2 * DEEP + i), 0)));
    let start = std::time::Instant::now();
    let mut b = CallsBuilder::default();
    b.events(&events);
    let (t, stats) = b.finish(&meta(true, vec![1]), &mut funcs(2));
    assert_eq!(
        (stats.orphan_exits, t.len()),
        (u64::from(DEEP), DEEP as usize + 1)
    );
    assert!(
        start.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn contexts_keep_per_call_distributions_and_where_the_maximum_was() {
    let mut b = ContextsBuilder::with_dists(crate::calltree::Keep::TotalAndSelf);
    let mut events = Vec::new();
    // main (thread 0) calls f three times (10, 40, 20), then thread 1's f (40).
    events.push(ev(Enter, 1, 100, 0));
    for (start, len) in [(110, 10), (130, 40), (180, 20)] {
        events.push(ev(Enter, 2, start, 0));
        events.push(ev(Exit, 2, start + len, 0));
    }
    events.push(ev(Exit, 1, 300, 0));
    events.push(ev(Enter, 2, 400, 1));
    events.push(ev(Exit, 2, 440, 1));
    b.events(&events);
    let (t, _) = b.finish(&meta(true, vec![7, 8]), &mut funcs(3));
    assert!(t.has_dists());
    let f_nodes: Vec<NodeId> = (0..t.len() as NodeId).filter(|&n| t.func(n) == 2).collect();
    assert_eq!(f_nodes.len(), 2, "one context per thread");
    let d = t.dist(f_nodes[0]).unwrap();
    assert_eq!((d.total.min, d.total.max, d.total.count), (10, 40, 3));
    assert_eq!(
        d.total.max_at,
        crate::calltree::At {
            thread: 0,
            start: 30
        }
    );
    assert_eq!(d.total.quantile(0.5), 20);
    let main = (0..t.len() as NodeId).find(|&n| t.func(n) == 1).unwrap();
    let m = t.dist(main).unwrap();
    assert_eq!((m.total.max, m.self_time.max), (200, 130));
    let other = t.dist(f_nodes[1]).unwrap();
    assert_eq!(
        other.total.max_at,
        crate::calltree::At {
            thread: 1,
            start: 300
        }
    );
}

#[test]
fn folding_paths_merges_distributions() {
    let mut b = ContextsBuilder::with_dists(crate::calltree::Keep::TotalAndSelf);
    b.events(&[
        ev(Enter, 1, 0, 0),
        ev(Enter, 2, 0, 0),
        ev(Exit, 2, 5, 0),
        ev(Exit, 1, 10, 0),
        ev(Enter, 2, 20, 1),
        ev(Exit, 2, 29, 1),
    ]);
    let mut f = funcs(3);
    let (t, _) = b.finish(&meta(true, vec![1, 2]), &mut f);
    // Both threads' nodes renamed to one thread: the f paths fold.
    let mut t2 = t.clone();
    let th = t.func(1);
    t2.rename_funcs(|x| if f.is_synthetic(x) && x != 0 { th } else { x });
    let folded = crate::calltree::fold_paths(&t2, &f);
    assert!(folded.has_dists());
    let total: u64 = (0..folded.len() as NodeId)
        .filter(|&n| folded.func(n) == 2)
        .map(|n| folded.dist(n).unwrap().total.count)
        .sum();
    assert_eq!(total, 2);
}

#[test]
fn start_times_count_from_the_earliest_event_not_the_first_in_the_file() {
    // A worker's block comes first in the file, though main started earlier.
    let mut b = ContextsBuilder::with_dists(crate::calltree::Keep::Total);
    b.events(&[
        ev(Enter, 2, 500, 1),
        ev(Exit, 2, 520, 1),
        ev(Enter, 1, 100, 0),
        ev(Exit, 1, 160, 0),
    ]);
    let (t, _) = b.finish(&meta(true, vec![8, 7]), &mut funcs(3));
    let at = |f: FuncId| {
        let n = (0..t.len() as NodeId).find(|&n| t.func(n) == f).unwrap();
        t.dist(n).unwrap().total.max_at
    };
    assert_eq!(
        at(1),
        crate::calltree::At {
            thread: 0,
            start: 0
        }
    );
    assert_eq!(
        at(2),
        crate::calltree::At {
            thread: 1,
            start: 400
        }
    );
}
