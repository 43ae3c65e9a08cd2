//! Runs of leaf calls ([`LeafRun`](super::LeafRun)) add up to what their
//! calls add one by one.

use crate::calltree::builder::tests::{built, built_with_dists, per_function_dists, read_as};
use crate::calltree::{Builder, Keep, View};
use crate::ingest::EventKind::{self, Enter, Exit};
use crate::ingest::binary::{Block, encode};
use crate::ingest::slice::Window;

/// One step of a generated trace: (thread, function, what), where what
/// is 0 an entry, 1 an exit, and n >= 2 a run of n - 1 leaf calls.
type Step = (u8, u8, u8);

/// The events of `steps` as (thread, kind, function, time). Times mostly
/// grow; `backwards` makes some leaves start before the call before them
/// and exit before they enter, `huge`
/// some take about 2^63, so that a run's sum saturates (times a binary
/// trace holds, and text lines of more than 16 digits, which the
/// scanner leaves to the line parser).
fn events(steps: &[Step], backwards: &[bool], huge: &[bool]) -> Vec<(u8, EventKind, u8, u64)> {
    let mut out = Vec::new();
    let mut time = 1000u64;
    for (i, &(thread, func, what)) in steps.iter().enumerate() {
        match what {
            0 => out.push((thread, Enter, func, time)),
            1 => out.push((thread, Exit, func, time)),
            n => {
                for k in 0..usize::from(n - 1) {
                    let (enter, exit) =
                        match (backwards[(i + k) % backwards.len()], huge[i % huge.len()]) {
                            // Earlier than the call before, and exiting before it enters.
                            (true, _) => (time - 7, time - 9),
                            (false, true) => (time, time + (1 << 63) + k as u64),
                            (false, false) => (time, time + 1 + (i * 7 + k * 13) as u64 % 300),
                        };
                    out.push((thread, Enter, func, enter));
                    out.push((thread, Exit, func, exit));
                    // Without going backwards or a huge call, times grow.
                    time = enter.max(exit.min(time + 300)) + 3;
                }
            }
        }
        time += 11;
    }
    out
}

/// The text trace of `events` (address, timestamp and thread columns).
/// With `sequential`, the first line is written `E 0x..`, which only the
/// line parser reads: the chunk takes the sequential path, event by
/// event, the reference.
fn text(events: &[(u8, EventKind, u8, u64)], sequential: bool) -> String {
    let mut t = String::new();
    for &(thread, kind, func, time) in events {
        let kind = if kind == Enter { 'E' } else { 'X' };
        let sep = if sequential && t.is_empty() { " " } else { "" };
        let (addr, tid) = (0x40 + func as u64, 100 + thread as u64);
        t.push_str(&format!("{kind}{sep}0x{addr:x} {time} {tid}\n"));
    }
    t
}

/// The same events in the binary format, a block per run of one thread's.
fn binary(events: &[(u8, EventKind, u8, u64)]) -> Vec<u8> {
    let mut blocks: Vec<Block> = Vec::new();
    for &(thread, kind, func, time) in events {
        let (tid, event) = (100 + thread as u64, (kind, 0x40 + func as u64, time));
        match blocks.last_mut() {
            Some((t, events)) if *t == tid => events.push(event),
            _ => blocks.push((tid, vec![event])),
        }
    }
    encode(0, "", &blocks)
}

/// The contexts tree of `bytes`, with the per-call distributions `keep`.
fn tree(name: &str, bytes: &[u8], keep: Keep, threads: usize, chunk: usize) -> String {
    let (input, format, opts) = read_as(name, bytes, threads, chunk);
    let builder = Builder::with_dists(View::Contexts, keep);
    let b = crate::calltree::build_with(&input, format, &opts, builder).unwrap();
    format!("{:?}", b.tree)
}

/// The contexts tree of the text `text` built through `window`, with its
/// repairs and distributions by function.
fn windowed(text: &str, window: Window, threads: usize, chunk: usize) -> String {
    let (input, format, opts) = read_as("t.txt", text.as_bytes(), threads, chunk);
    let mut builder = Builder::with_dists(View::Contexts, Keep::TotalByFunction);
    builder.set_origin(0);
    builder.set_window(window);
    let mut funcs = crate::ingest::FuncTable::default();
    let meta = format
        .parse(&input, &opts, &mut funcs, &mut builder)
        .unwrap();
    let b = builder.finish(funcs, meta);
    format!("{:?}\n{:?}", b.tree, b.repairs)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
    /// Runs of a leaf, broken by another thread, another function, an
    /// entry, an exit or a chunk's end, give the tree, weights, repairs
    /// and distributions (by context and by function) of the same events
    /// taken one by one, in text and binary traces.
    #[test]
    fn runs_of_one_leaf_weigh_what_their_calls_do(
        steps in proptest::collection::vec((0u8..2, 0u8..3, proptest::prop_oneof![
            2 => 0u8..2,
            3 => 2u8..8,
        ]), 1..120),
        backwards in proptest::collection::vec(proptest::bool::weighted(0.1), 1..20),
        huge in proptest::collection::vec(proptest::bool::weighted(0.1), 1..20),
        chunk in 40usize..2000,
        window in (0u64..3000, 0u64..3000),
    ) {
        // Binary traces hold times that only grow on each thread.
        for (events, with_binary) in [
            (events(&steps, &backwards, &huge), false),
            (events(&steps, &[false], &[false]), true),
        ] {
            let (fast, reference) = (text(&events, false), text(&events, true));
            let one_by_one = built(&reference, View::Contexts, 1, 1 << 30);
            for (threads, chunk) in [(1, 1 << 30), (2, chunk)] {
                proptest::prop_assert_eq!(&built(&fast, View::Contexts, threads, chunk), &one_by_one);
                proptest::prop_assert_eq!(
                    built_with_dists(&fast, threads, chunk),
                    built_with_dists(&reference, 1, 1 << 30)
                );
                proptest::prop_assert_eq!(
                    per_function_dists(&fast, Keep::TotalByFunction, threads, chunk),
                    per_function_dists(&reference, Keep::TotalByFunction, 1, 1 << 30)
                );
                // Through a time window: calls outside it leave a run as
                // it was. (Not with path nodes: a summary makes none for
                // a leaf before the window, which nothing is kept below,
                // and only the tree cut from them is the same.)
                let window = Window {
                    start: 1000 + window.0,
                    end: 1000 + window.0 + window.1,
                };
                proptest::prop_assert_eq!(
                    windowed(&fast, window, threads, chunk),
                    windowed(&reference, window, 1, 1 << 30)
                );
                for keep in [Keep::TotalAndSelf, Keep::TotalByFunction] {
                    if with_binary {
                        proptest::prop_assert_eq!(
                            tree("t.bin", &binary(&events), keep, threads, chunk),
                            tree("t.txt", reference.as_bytes(), keep, 1, 1 << 30)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_run_whose_times_overflow_saturates_as_its_calls_do() {
    // One thread's three blocks, each a call: the first of nearly 2^64,
    // the two others of 2^63, whose sum wraps to 0 in 64 bits. (A text
    // line of more than 16 digits is read by the line parser, and a
    // binary block's times only grow: a run only sums this much across
    // blocks.)
    let call = |took: u64| vec![(Enter, 0x40, 0), (Exit, 0x40, took)];
    let tooks = [u64::MAX - 1, 1 << 63, 1 << 63];
    let bin = encode(0, "", &tooks.map(|took| (100, call(took))));
    let events: Vec<_> = tooks
        .iter()
        .flat_map(|&took| [(0, Enter, 0, 0), (0, Exit, 0, took)])
        .collect();
    let reference = text(&events, true);
    for keep in [Keep::TotalAndSelf, Keep::TotalByFunction] {
        let got = tree("t.bin", &bin, keep, 1, 1 << 30);
        assert!(got.contains(&format!("{}", u64::MAX)), "{got}");
        assert_eq!(got, tree("t.txt", reference.as_bytes(), keep, 1, 1 << 30));
    }
}
