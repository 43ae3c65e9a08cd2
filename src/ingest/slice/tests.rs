use super::*;

/// Keeps what it is given.
#[derive(Default)]
struct Recorder {
    events: Vec<Event>,
    nodes: usize,
}

impl EventSink for Recorder {
    fn events(&mut self, events: &[Event]) {
        self.events.extend_from_slice(events);
    }
}

impl NodeSink for Recorder {
    fn node(&mut self, _: NodeRecord) {
        self.nodes += 1;
    }
}

fn enter(func: FuncId, time: u64) -> Event {
    Event {
        time,
        func,
        thread: 0,
        kind: EventKind::Enter,
    }
}

fn leave(func: FuncId, time: u64) -> Event {
    Event {
        kind: EventKind::Exit,
        ..enter(func, time)
    }
}

/// What `slice` passes on of `events`, and what it saw.
fn run(slice: &Slice, events: &[Event]) -> (Vec<Event>, SliceStats) {
    let mut rec = Recorder::default();
    let mut sink = SliceSink::new(slice, &mut rec);
    // In two batches: nothing may depend on where a batch ends.
    let (a, b) = events.split_at(events.len() / 2);
    sink.events(a);
    sink.events(b);
    let stats = sink.finish();
    (rec.events, stats)
}

fn flags(n: usize, on: &[FuncId]) -> Vec<bool> {
    (0..n).map(|f| on.contains(&(f as FuncId))).collect()
}

fn range(start: u64, end: Option<u64>) -> Slice {
    Slice {
        range: Some(TimeRange { start, end }),
        ..Slice::default()
    }
}

#[test]
fn range_keeps_calls_starting_inside_and_cuts_them_at_its_end() {
    // A 100..180 { B 110..170 { C 150..160 } }; range 5ns..40ns from 100.
    let events = [
        enter(1, 100),
        enter(2, 110),
        enter(3, 150),
        leave(3, 160),
        leave(2, 170),
        leave(1, 180),
    ];
    let (out, stats) = run(&range(5, Some(40)), &events);
    assert_eq!(out, vec![enter(2, 110), leave(2, 140)]);
    assert_eq!(stats.kept_calls, 1);
    assert_eq!(stats.first_time, Some(100));
}

#[test]
fn range_origin_is_the_first_event_even_of_a_dropped_thread() {
    let mut other = enter(1, 100);
    other.thread = 1;
    let slice = Slice {
        threads: Some(vec![true, false]),
        ..range(10, None)
    };
    let (out, _) = run(
        &slice,
        &[
            other,
            enter(2, 105),
            leave(2, 106),
            enter(2, 111),
            leave(2, 112),
        ],
    );
    assert_eq!(out, vec![enter(2, 111), leave(2, 112)]);
}

#[test]
fn an_exit_unwinding_a_dropped_frame_closes_the_kept_frames_above_it() {
    // A { B { C, then A's exit unwinds C and B }: --function B keeps B and C.
    let slice = Slice {
        function: Some(flags(4, &[2])),
        ..Slice::default()
    };
    let events = [enter(1, 0), enter(2, 1), enter(3, 2), leave(1, 9)];
    let (out, stats) = run(&slice, &events);
    assert_eq!(
        out,
        vec![enter(2, 1), enter(3, 2), leave(3, 9), leave(2, 9)]
    );
    assert_eq!(stats.unclosed, 0);
}

#[test]
fn an_exit_unwinding_to_a_kept_frame_goes_on_as_it_is() {
    let events = [enter(1, 0), enter(2, 1), enter(3, 2), leave(1, 9)];
    let (out, _) = run(&Slice::default(), &events);
    assert_eq!(out, events.to_vec());
}

#[test]
fn exclude_drops_the_function_and_its_subtree() {
    let slice = Slice {
        exclude: flags(4, &[2]),
        ..Slice::default()
    };
    let events = [
        enter(1, 0),
        enter(2, 1),
        enter(3, 2),
        leave(3, 3),
        leave(2, 4),
        enter(3, 5),
        leave(3, 6),
        leave(1, 9),
    ];
    let (out, _) = run(&slice, &events);
    assert_eq!(
        out,
        vec![enter(1, 0), enter(3, 5), leave(3, 6), leave(1, 9)]
    );
}

#[test]
fn function_keeps_recursion_until_the_outermost_call_returns() {
    // main { F { F { G } H } } I: --function F keeps F F G H, not main or I.
    let slice = Slice {
        function: Some(flags(6, &[2])),
        ..Slice::default()
    };
    let events = [
        enter(1, 0),
        enter(2, 1),
        enter(2, 2),
        enter(3, 3),
        leave(3, 4),
        leave(2, 5),
        enter(4, 6),
        leave(4, 7),
        leave(2, 8),
        enter(5, 9),
        leave(5, 10),
        leave(1, 11),
    ];
    let (out, stats) = run(&slice, &events);
    assert_eq!(out, events[1..9].to_vec());
    assert_eq!(stats.kept_calls, 4);
}

#[test]
fn orphan_exits_are_dropped() {
    let events = [leave(7, 0), enter(1, 1), leave(2, 2), leave(1, 3)];
    let (out, stats) = run(&Slice::default(), &events);
    assert_eq!(out, vec![enter(1, 1), leave(1, 3)]);
    assert_eq!(stats.orphan_exits, 2);
}

#[test]
fn tid_drops_other_threads() {
    let mut t1 = [enter(1, 0), leave(1, 1)];
    for e in &mut t1 {
        e.thread = 1;
    }
    let slice = Slice {
        threads: Some(vec![false, true]),
        ..Slice::default()
    };
    let (out, _) = run(&slice, &[enter(2, 0), t1[0], leave(2, 2), t1[1]]);
    assert_eq!(out, t1.to_vec());
}

#[test]
fn calls_open_at_the_end_close_at_the_last_time_or_the_range_end() {
    let (out, stats) = run(&Slice::default(), &[enter(1, 0), enter(2, 5), leave(2, 7)]);
    assert_eq!(out.last(), Some(&leave(1, 7)));
    assert_eq!(stats.unclosed, 1);
    let (out, _) = run(&range(0, Some(4)), &[enter(1, 0), enter(2, 5), leave(2, 7)]);
    assert_eq!(out, vec![enter(1, 0), leave(1, 4)]);
}

#[test]
fn nodes_pass_only_when_nothing_but_the_thread_is_filtered() {
    let node = NodeRecord {
        depth: 0,
        func: 1,
        self_time: 1,
        total: 1,
        calls: 1,
    };
    let cases = [
        (Slice::default(), 1),
        (
            Slice {
                threads: Some(vec![false]),
                ..Slice::default()
            },
            0,
        ),
        (range(0, Some(5)), 0),
    ];
    for (slice, want) in cases {
        let mut rec = Recorder::default();
        let mut sink = SliceSink::new(&slice, &mut rec);
        sink.node(node);
        assert!(sink.finish().got_nodes);
        assert_eq!(rec.nodes, want, "{slice:?}");
    }
}

#[test]
fn time_ranges_read_units_and_refuse_bare_numbers() {
    let r: TimeRange = "10ms..250ms".parse().unwrap();
    assert_eq!((r.start, r.end), (10_000_000, Some(250_000_000)));
    let r: TimeRange = "..1.5us".parse().unwrap();
    assert_eq!((r.start, r.end), (0, Some(1_500)));
    let r: TimeRange = "2s..".parse().unwrap();
    assert_eq!((r.start, r.end), (2_000_000_000, None));
    assert_eq!(r.to_string(), "2s..");
    for (bad, says) in [
        ("10..20ms", "add one"),
        ("10ms", "START..END"),
        ("..", "start"),
        ("5ms..5ms", "before the end"),
        ("9ms..1ms", "before the end"),
        ("1h..", "unknown unit"),
        ("x..1ms", "expected a time"),
    ] {
        let e = bad.parse::<TimeRange>().unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
}
