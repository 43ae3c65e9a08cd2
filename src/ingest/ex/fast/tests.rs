use super::*;

fn scan(text: &str) -> Option<FastChunk> {
    Parser::default().scan(text.as_bytes(), FastChunk::default())
}

#[test]
fn reads_runtime_lines_with_local_ids() {
    let c = scan("# calltrace 1 text\nE0x10 5 7\r\nE0x20 6 9\n\nX0x20 8 9\nX0x10 9 7").unwrap();
    let events = c.local.events;
    let addrs: Vec<u64> = events
        .iter()
        .map(|e| c.local.addrs[e.func as usize])
        .collect();
    assert_eq!(addrs, [0x10, 0x20, 0x20, 0x10]);
    assert_eq!(c.local.tids, [7, 9]);
    assert_eq!(c.columns, Some((true, true, 1)));
    assert_eq!(c.lines, 5);
    let e = &events[2];
    assert_eq!((e.kind, e.thread, e.time), (EventKind::Exit, 1, 8));
}

#[test]
fn gives_up_on_anything_unusual() {
    for text in [
        "# base 0x1000\nE0x10\n",
        "# map 0x1000 0x2000 0x0 - /bin/x\nE0x10\n",
        "E0x10 5\nE0x20\n",
        " E0x10\n",
        "E 0x10\n",
        "E0x10  5\n",
        "E0x10 5 6 7\n",
        "E0x10 5x\n",
        "E main\n",
        "E0x\n",
        "E0x10 99999999999999999999\n",
    ] {
        assert!(scan(text).is_none(), "{text:?}");
    }
    assert!(scan("# note\n\r\nE0x10\nX0X10\r").is_some());
}

#[test]
fn an_address_keeps_one_local_id_whatever_the_cache_evicted() {
    // More addresses than cache slots: some evict others.
    let n = 3 * SLOTS;
    let mut text = String::new();
    for _ in 0..2 {
        for a in 0..n {
            text.push_str(&format!("E0x{:x}\n", 0x5555_0000_0000u64 + 16 * a as u64));
        }
    }
    let c = scan(&text).unwrap();
    assert_eq!(c.local.addrs.len(), n);
    let ids: Vec<u32> = c.local.events.iter().map(|e| e.func).collect();
    assert_eq!(ids[..n], ids[n..]);
}

#[test]
fn reads_untimed_and_timestamp_only_lines() {
    for (text, time) in [
        ("E0x10\nE0x20\r\nX0x20\nX0x10\n", 0),
        ("E0x10 5\nE0x20 5\r\nX0x20 5\nX0x10 5\n", 5),
    ] {
        let text = text.repeat(50);
        let c = scan(&text).unwrap();
        assert_eq!(c.local.events.len(), 200);
        assert_eq!(c.local.addrs, [0x10, 0x20]);
        assert_eq!(c.local.tids, [0]);
        assert!(
            c.local
                .events
                .iter()
                .all(|e| e.time == time && e.thread == 0)
        );
        assert_eq!(c.columns, Some((time > 0, false, 0)));
    }
}

#[test]
fn predicted_timestamps_read_right_across_their_cached_leading_digits() {
    // 16-digit timestamps stepping over 4-, 8- and 12-digit borders, so
    // the cached leading digits change now and then; in every shape.
    let mut times = Vec::new();
    for base in [9_990u64, 99_999_990, 999_999_999_990, 1_234_567_899_999_990] {
        times.extend((0..40u64).map(|k| base + k));
    }
    for (symbolic, line) in [(false, "E0x10"), (false, "E0x401136"), (true, "E main")] {
        for tid in ["", " 7"] {
            let text: String = times.iter().map(|t| format!("{line} {t}{tid}\n")).collect();
            let c = Parser::new(symbolic)
                .scan(text.as_bytes(), FastChunk::default())
                .unwrap();
            let got: Vec<u64> = c.local.events.iter().map(|e| e.time).collect();
            assert_eq!(got, times, "{line}{tid}");
        }
    }
    // A byte that is not a digit, in any place of a timestamp of a run
    // of predicted lines (and of the cached digits), is not taken.
    let line = "E0x10 1234567890123456\n";
    let good = line.repeat(30);
    for at in 0..16 {
        for bad in [b'/', b':', b'a', b' '] {
            let mut text = good.clone().into_bytes();
            // The timestamp of the 21st line.
            text[20 * line.len() + "E0x10 ".len() + at] = bad;
            assert!(
                scan(std::str::from_utf8(&text).unwrap()).is_none(),
                "{at} {bad}"
            );
        }
    }
}

#[test]
fn lines_of_real_addresses_have_a_shape_whatever_their_timestamps_length() {
    // Timestamps are read as two words ending at their end, which must
    // start within the line: true from five address digits on.
    for len in 1..=16 {
        let time = "9".repeat(len);
        for line in [
            format!("E0x40113 {time}"),
            format!("X0x55d4c3a2b1c9 {time} 77\r"),
        ] {
            let sh = Shape::of(line.as_bytes());
            assert!(sh.is_some_and(|sh| sh.words_fit()), "{line}");
        }
    }
    // Where they cannot, the line has no shape (and is read field by field).
    assert!(Shape::of(b"E0x1 123456789").is_none());
    // A symbolic line's columns get a shape once its name is long enough.
    let tail = Shape::of_tail(b" 1234567890 7").unwrap();
    assert!(Shape::with_name(&tail, 1).is_none());
    assert!(Shape::with_name(&tail, 3).is_some());
}

#[test]
fn a_reused_scanner_forgets_the_last_chunks_ids() {
    // Local ids are per chunk: the address of the last line of one chunk
    // must be looked up again in the next, where its id differs.
    for (symbolic, a, b, c, d) in [
        (false, "0x10", "0x20", "0x30", "0x40"),
        (true, "fa", "fb", "fc", "fd"),
    ] {
        let mut scanner = Parser::new(symbolic);
        let sep = if symbolic { " " } else { "" };
        let line = |k: &str, f: &str| format!("{k}{sep}{f}\n");
        // `b` is the third address of the first chunk, the second of the
        // next (whose first line the general path reads).
        // A long comment at the end: predicted lines need 80 bytes ahead.
        let pad = format!("#{}\n", "-".repeat(100));
        let one = [
            line("E", a),
            line("E", c),
            line("E", b),
            line("X", b),
            pad.clone(),
        ]
        .concat();
        let two = [line("E", d), line("X", b), line("X", d), pad].concat();
        let first = scanner.scan(one.as_bytes(), FastChunk::default()).unwrap();
        let ids: Vec<u32> = first.local.events.iter().map(|e| e.func).collect();
        assert_eq!(ids, [0, 1, 2, 2], "symbolic {symbolic}");
        let second = scanner.scan(two.as_bytes(), FastChunk::default()).unwrap();
        let ids: Vec<u32> = second.local.events.iter().map(|e| e.func).collect();
        assert_eq!(ids, [0, 1, 0], "symbolic {symbolic}");
    }
}

#[test]
fn reads_symbolic_lines_with_local_names() {
    let text = "E main 1 7\nE deflate 2 7\r\nX deflate 3 9\nX main 4 7\n".repeat(40);
    let c = Parser::new(true)
        .scan(text.as_bytes(), FastChunk::default())
        .unwrap();
    assert_eq!(c.local.names, ["main", "deflate"]);
    assert!(c.local.addrs.is_empty());
    assert_eq!(c.local.tids, [7, 9]);
    let e = &c.local.events[2];
    assert_eq!(
        (e.kind, e.func, e.thread, e.time),
        (EventKind::Exit, 1, 1, 3)
    );
    // Addresses in a symbolic chunk, names in an address one: the line
    // parser reads the chunk.
    let mixed = Parser::new(true).scan(b"E main 1 7\nE0x40 2 7\n", FastChunk::default());
    assert!(mixed.is_none());
    assert!(scan("E main 1 7\n").is_none());
}

#[test]
fn symbolic_lines_with_names_of_one_length_are_read_at_the_predicted_shape() {
    // `deflate`, `inflate` and `zcalloc` have one length: after the
    // first line, each is read where the last line's shape puts it.
    let text = "E deflate 1 7\nX deflate 2 7\nE inflate 3 7\nX inflate 14 7\n\
                E zcalloc 15 7\nX zcalloc 16 8\n"
        .repeat(20);
    let c = Parser::new(true)
        .scan(text.as_bytes(), FastChunk::default())
        .unwrap();
    assert_eq!(c.local.names, ["deflate", "inflate", "zcalloc"]);
    assert_eq!(c.local.tids, [7, 8]);
    let got: Vec<_> = c.local.events[6..12]
        .iter()
        .map(|e| (e.kind, e.func, e.time, e.thread))
        .collect();
    use EventKind::{Enter, Exit};
    assert_eq!(
        got,
        [
            (Enter, 0, 1, 0),
            (Exit, 0, 2, 0),
            (Enter, 1, 3, 0),
            (Exit, 1, 14, 0),
            (Enter, 2, 15, 0),
            (Exit, 2, 16, 1)
        ]
    );
    // A line that fits the shape without being a name of that length:
    // the line parser reads the chunk (and reports the line).
    for odd in ["E defla e 3 7\n", "E 0x12345 3 7\n", "E defl\0te 3 7\n"] {
        let text = format!(
            "{}{odd}{}",
            "E deflate 1 7\n".repeat(8),
            "X deflate 2 7\n".repeat(8)
        );
        let c = Parser::new(true).scan(text.as_bytes(), FastChunk::default());
        assert!(c.is_none(), "{odd:?}");
    }
}

#[test]
fn long_symbolic_names_read_as_written() {
    // C++ names: 16 to 40 bytes, two of one length with the same first
    // and last words (one cache slot), one longer than the scanner
    // reads itself, leaf calls and calls with callees, `\r\n` too.
    use EventKind::{Enter, Exit};
    let pair = [
        "_ZNSt6vectorIiSaIiEE9push_backERKi",
        "_ZNSt6vectorIjSaIiEE9push_backERKi",
    ];
    let mut names: Vec<String> = pair.iter().map(|n| n.to_string()).collect();
    names.extend((16..=40).map(|n| format!("_ZN{}", "q".repeat(n - 3))));
    names.push("main".into());
    names.push(format!("_Z{}", "x".repeat(5000)));
    let (mut text, mut want) = (String::new(), Vec::new());
    let mut t = 1000;
    let mut line = |text: &mut String, kind, name: usize, cr: bool| {
        t += 3;
        let (letter, nl) = (
            if kind == Enter { 'E' } else { 'X' },
            if cr { "\r\n" } else { "\n" },
        );
        *text += &format!("{letter} {} {t} 7{nl}", names[name]);
        want.push((kind, names[name].clone(), t));
    };
    for round in 0..3 {
        for k in 0..names.len() {
            let cr = round == 1 && k % 3 == 0;
            // A leaf call, then a call of the next name inside this one.
            line(&mut text, Enter, k, cr);
            line(&mut text, Exit, k, cr);
            line(&mut text, Enter, k, false);
            line(&mut text, Enter, (k + 1) % names.len(), false);
            line(&mut text, Exit, (k + 1) % names.len(), cr);
            line(&mut text, Exit, k, false);
        }
        // An exit right after an entry of another name of its length.
        line(&mut text, Enter, 0, false);
        line(&mut text, Exit, 1, false);
    }
    let c = Parser::new(true)
        .scan(text.as_bytes(), FastChunk::default())
        .unwrap();
    let got: Vec<_> = c
        .local
        .events
        .iter()
        .map(|e| (e.kind, c.local.names[e.func as usize].clone(), e.time))
        .collect();
    assert_eq!(got, want);
    assert_eq!(c.local.names.len(), names.len());
    // A control byte inside a long name: the line parser's to judge.
    let nul = format!("E {}\0x 1 7\nX {}\0x 2 7\n", pair[0], pair[0]);
    assert!(
        Parser::new(true)
            .scan(nul.as_bytes(), FastChunk::default())
            .is_none()
    );
    // Untimed lines with long names.
    let untimed = format!(
        "E {}\nX {}\nE {}\nX {}\n",
        pair[0], pair[0], pair[1], pair[1]
    )
    .repeat(20);
    let c = Parser::new(true)
        .scan(untimed.as_bytes(), FastChunk::default())
        .unwrap();
    let funcs: Vec<u32> = c.local.events.iter().map(|e| e.func).collect();
    assert_eq!(funcs, [0, 0, 1, 1].repeat(20));
    assert_eq!(c.local.names, pair);
}

#[test]
fn symbolic_lines_with_names_of_every_length_read_as_written() {
    // Names of 1 to 17 bytes, each line's name of another length than
    // the last line's: each line's shape comes from its name's length
    // (16 and 17 bytes: the line-by-line way).
    use EventKind::{Enter, Exit};
    let names: Vec<String> = (1..=17)
        .map(|n| "abcdefghijklmnopq"[..n].to_string())
        .collect();
    let (mut text, mut want) = (String::new(), Vec::new());
    for round in 0..3 {
        for (k, name) in names.iter().enumerate() {
            let t = 100 + 40 * round + 2 * k as u64;
            text += &format!("E {name} {t} 7\nX {name} {} 7\n", t + 1);
            want.extend([(Enter, k as u32, t), (Exit, k as u32, t + 1)]);
        }
    }
    let c = Parser::new(true)
        .scan(text.as_bytes(), FastChunk::default())
        .unwrap();
    assert_eq!(c.local.names, names);
    let got: Vec<_> = c
        .local
        .events
        .iter()
        .map(|e| (e.kind, e.func, e.time))
        .collect();
    assert_eq!(got, want);
    assert_eq!(c.lines, 6 * 17);
}

/// Counts the events it is fed; gives up at the `limit`-th.
struct Upto {
    seen: usize,
    limit: usize,
}

impl EventConsumer for Upto {
    fn event(&mut self, _: Event) -> bool {
        self.seen += 1;
        self.seen < self.limit
    }
}

/// What `run` gives for `text` with a consumer giving up at `limit`.
fn run(text: &str, limit: usize) -> (Option<FastChunk>, usize) {
    let mut scanner = Parser::default();
    let scan = TextScan::new(&mut scanner, text.as_bytes(), FastChunk::default());
    let mut consumer = Upto { seen: 0, limit };
    let done = scan.run(&mut consumer, |c| Box::new(c.seen));
    (done.0, consumer.seen)
}

#[test]
fn fused_scans_summarise_or_fall_back_to_stored_events() {
    let text = "E0x10 5 7\nE0x20 6 7\nX0x20 8 7\nX0x10 9 7\n";
    let (chunk, seen) = run(text, usize::MAX);
    let chunk = chunk.unwrap();
    assert_eq!(seen, 4);
    assert!(chunk.local.events.is_empty());
    let summary = chunk.local.summary.unwrap().downcast::<usize>().unwrap();
    assert_eq!((*summary, chunk.lines), (4, 4));
    // Given up: the chunk's events are stored for the sequential path.
    let (chunk, seen) = run(text, 2);
    let chunk = chunk.unwrap();
    assert_eq!(seen, 2);
    assert!(chunk.local.summary.is_none());
    assert_eq!(chunk.local.events.len(), 4);
    // A line the scanner does not take: the line parser reads the chunk.
    assert!(run("E0x10 5 7\nE main 6 7\n", usize::MAX).0.is_none());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    /// Untimed leaf calls repeated by a loop are taken from their bytes
    /// alone: every event is the one written, whatever the address's
    /// length (pairs of lines of 12 to 42 bytes) and wherever a next
    /// call's address differs by one digit.
    #[test]
    fn repeated_untimed_leaves_read_as_written(
        digits in 1usize..=16,
        first in proptest::num::u64::ANY,
        changes in proptest::collection::vec((0usize..16, 1u64..16), 2),
        crlf in proptest::bool::ANY,
        steps in proptest::collection::vec((0usize..3, 0u8..4, 1usize..6), 1..60),
    ) {
        let mask = if digits == 16 { u64::MAX } else { (1u64 << (4 * digits)) - 1 };
        // The first digit is never 0, so that every address has `digits`.
        let top = 4 * (digits as u32 - 1);
        let a = (first & mask) | (1u64 << top);
        let addrs: Vec<u64> = std::iter::once(a)
            .chain(changes.iter().map(|&(p, d)| {
                let p = 4 * (p % digits) as u32;
                let digit = ((a >> p) & 15) ^ d;
                let digit = if p == top && digit == 0 { 1 } else { digit };
                (a & !(15 << p)) | (digit << p)
            }))
            .collect();
        let end = if crlf { "\r\n" } else { "\n" };
        let mut text = String::new();
        let mut want = Vec::new();
        for &(which, what, times) in &steps {
            let addr = addrs[which];
            let mut line = |kind: EventKind| {
                let k = if kind == EventKind::Enter { 'E' } else { 'X' };
                text.push_str(&format!("{k}0x{addr:x}{end}"));
                want.push((kind, addr));
            };
            match what {
                0 => line(EventKind::Enter),
                1 => line(EventKind::Exit),
                _ => {
                    for _ in 0..times {
                        line(EventKind::Enter);
                        line(EventKind::Exit);
                    }
                }
            }
        }
        let c = scan(&text).unwrap();
        let got: Vec<(EventKind, u64)> = c
            .local
            .events
            .iter()
            .map(|e| (e.kind, c.local.addrs[e.func as usize]))
            .collect();
        proptest::prop_assert_eq!(&got, &want);
        proptest::prop_assert_eq!(c.lines, want.len() as u64);
    }
}
