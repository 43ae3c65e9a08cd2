use super::inorder::InOrder;
use super::*;
use crate::ingest::{EventKind, FuncTable, ParseOptions, TraceMeta};

use crate::ingest::Event;

fn parse(
    fmt: &dyn TraceFormat,
    text: &str,
    lenient: bool,
) -> Result<(Vec<Event>, TraceMeta, FuncTable)> {
    let (sink, meta, funcs) =
        crate::ingest::testing::parse(fmt, "t.txt", text.as_bytes(), lenient)?;
    Ok((sink.events, meta, funcs))
}

#[test]
fn reads_seed_format_with_variants() {
    let text =
        "# base 0x555555554000 /tmp/app\r\nE0x401136\r\n\nE 0X40114A\nX0x40114a\nX0x401136\n";
    let (ev, meta, funcs) = parse(&AddrFormat, text, false).unwrap();
    assert_eq!(meta.base, Some(0x555555554000));
    assert_eq!(meta.exe_path.as_deref(), Some("/tmp/app"));
    assert!(!meta.timed);
    assert_eq!(ev.len(), 4);
    assert_eq!(ev[1].func, ev[2].func, "upper-case hex is the same address");
    assert_eq!(
        funcs.key(ev[0].func),
        &crate::ingest::FuncKey::Addr(0x401136)
    );
    assert_eq!(ev[3].kind, EventKind::Exit);
}

#[test]
fn dropped_lines_of_a_lossy_runtime_are_counted_and_warned_about() {
    let text = "E main 1 1\nE f 2 1\n# dropped 5\nX f 3 1\n# dropped 7\nX main 4 1\n";
    let (ev, meta, _) = parse(&SymbolicFormat, text, false).unwrap();
    assert_eq!(ev.len(), 4);
    assert_eq!(meta.warnings.len(), 1, "{:?}", meta.warnings);
    assert!(meta.warnings[0].contains("dropped 12 event(s)"));
    let (_, clean, _) = parse(&SymbolicFormat, "E main 1 1\n# other\nX main 4 1\n", false).unwrap();
    assert!(clean.warnings.is_empty());
    let err = parse(&SymbolicFormat, "E main 1 1\n# dropped many\n", false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("t.txt:2") && err.contains("`# dropped N`"),
        "{err}"
    );
}

#[test]
fn paths_of_base_and_map_lines_are_unescaped() {
    let text = "# base 0x5000 /t/new\\nline\\\\x  two\\r\\q\n\
                # map 0x5000 0x6000 0x0 - /t/new\\nline\\\\x  two\\r\\q\nE0x5010\n";
    let (_, meta, _) = parse(&AddrFormat, text, false).unwrap();
    let path = "/t/new\nline\\x  two\r\\q";
    assert_eq!(meta.exe_path.as_deref(), Some(path));
    assert_eq!(meta.maps[0].path, path);
}

#[test]
fn the_process_line_gives_the_pid() {
    let text = "# base 0x5000 /bin/app\n# process 4242 4200\nE0x5010\nX0x5010\n";
    let (_, meta, _) = parse(&AddrFormat, text, false).unwrap();
    assert_eq!(meta.pid, Some(4242));
    let (_, meta, _) = parse(&AddrFormat, "# process of it\nE0x5010\n", false).unwrap();
    assert_eq!(meta.pid, None);
}

#[test]
fn reads_map_headers() {
    let text = "# base 0x5000 /bin/app\n# map 0x5000 0x6000 0x1000 ABcd01 /bin/app\n\
                E0x5010\n# map 0x7f00 0x8f00 0x0 - /lib/my lib.so\n# map 0x9000 0x9100 0x0 - \nX0x5010\n";
    let (_, meta, _) = parse(&AddrFormat, text, false).unwrap();
    let map = |start, end, offset, build_id: Option<&str>, path: &str| crate::ingest::Mapping {
        start,
        end,
        offset,
        path: path.to_string(),
        build_id: build_id.map(str::to_string),
    };
    assert_eq!(
        meta.maps,
        [
            map(0x5000, 0x6000, 0x1000, Some("abcd01"), "/bin/app"),
            map(0x7f00, 0x8f00, 0, None, "/lib/my lib.so"),
            map(0x9000, 0x9100, 0, None, ""),
        ]
    );
    for bad in [
        "# map 0x1 0x2\n",
        "# map 0x2 0x1 0x0 - /x\n",
        "# map 0x1 0x2 0x0 xyz! /x\n",
    ] {
        let err = parse(&AddrFormat, &format!("{bad}E0x1\n"), false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("t.txt:1") && err.contains("# map 0xSTART"),
            "{err}"
        );
    }
}

#[test]
fn reads_time_and_thread_columns() {
    let (ev, meta, _) = parse(
        &AddrFormat,
        "E0x10 5 7\nE0x20 6 9\nX0x20 8 9\nX0x10 9 7\n",
        false,
    )
    .unwrap();
    assert!(meta.timed);
    assert_eq!(meta.threads, vec![7, 9]);
    assert_eq!((ev[1].time, ev[1].thread), (6, 1));
}

#[test]
fn symbolic_names_and_glued_addresses() {
    let (ev, _, funcs) = parse(
        &SymbolicFormat,
        "E main 1 1\nE0x40 2 1\nX0x40 3 1\nX main 4 1\n",
        false,
    )
    .unwrap();
    assert_eq!(
        funcs.key(ev[0].func),
        &crate::ingest::FuncKey::Name("main".into())
    );
    assert_eq!(funcs.key(ev[1].func), &crate::ingest::FuncKey::Addr(0x40));
}

#[test]
fn bad_line_names_file_line_and_expectation() {
    let err = parse(&AddrFormat, "E0x10\nQ0x20\n", false)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("t.txt:2: expected an event line"), "{err}");
    let err = parse(&AddrFormat, "E0x10 5\nE0x20\n", false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("t.txt:2: expected one timestamp column after the function, as on line 1"),
        "{err}"
    );
    let err = parse(&AddrFormat, "E main\n", false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("--format symbolic"), "{err}");
    let err = parse(&AddrFormat, "E0xzz\n", false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("t.txt:1: expected a hex address"), "{err}");
}

#[test]
fn lenient_counts_skipped_lines() {
    let (ev, meta, _) = parse(&AddrFormat, "E0x10\ngarbage\nX0x10\nE0xq\n", true).unwrap();
    assert_eq!(ev.len(), 2);
    assert_eq!(meta.skipped_lines, 2);
    assert!(meta.first_skipped.unwrap().contains("t.txt:2"));
}

#[test]
fn sniffing_tells_addresses_from_names() {
    assert!(AddrFormat.sniff(b"# c\nE0x10\nX0x10\n"));
    assert!(!AddrFormat.sniff(b"E main\n"));
    assert!(SymbolicFormat.sniff(b"\nE main 1 1\nX main 2 1\n"));
    assert!(!SymbolicFormat.sniff(b"main (1 / 2)\n"));
}

#[test]
fn a_bad_line_near_the_top_is_reported_not_a_format_mystery() {
    assert!(AddrFormat.sniff(b"E0x10\nQ0x20\nX0x10\n"));
    assert!(SymbolicFormat.sniff(b"E main\nhello\nX main\n"));
    assert!(!AddrFormat.sniff(b"hello\nE0x10\n"));
    let err = parse(&AddrFormat, "E0x10\nQ0x20\nX0x10\n", false)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("t.txt:2: expected an event line"), "{err}");
}

/// A reader that hands out at most 3 bytes per call, so stream buffers
/// end anywhere: mid-line, between `\r` and `\n`, inside a header.
struct Trickle(std::io::Cursor<Vec<u8>>);
impl std::io::Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(3);
        self.0.read(&mut buf[..n])
    }
}

/// Everything a parse reports, as text: events, keys, meta or the error.
fn outcome(input: &Input, lenient: bool, threads: usize, chunk: usize) -> String {
    let opts = ParseOptions {
        lenient,
        threads,
        chunk_bytes: chunk,
        ..Default::default()
    };
    crate::ingest::testing::outcome(&AddrFormat, input, &opts)
}

/// [`outcome`] of the line-by-line parser alone, without fast scanning
/// or chunking: the reference.
fn sequential(input: &Input, lenient: bool) -> String {
    sequential_as(&AddrFormat, input, lenient)
}

/// [`sequential`] for `fmt` (addresses or names).
fn sequential_as(fmt: &dyn TraceFormat, input: &Input, lenient: bool) -> String {
    let opts = ParseOptions {
        lenient,
        ..Default::default()
    };
    let mut funcs = FuncTable::default();
    let mut sink = crate::ingest::testing::Collect::default();
    let symbolic = fmt.name() == "symbolic";
    let mut seq = InOrder::new(fmt.name(), symbolic, "t.txt", &opts, &mut funcs);
    let result = seq.chunk(input, None, &mut sink).map(|()| seq.finish());
    match result {
        Ok(meta) => format!("{:?}\n{:?}\n{meta:?}", sink.events, funcs.keys()),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn errors_and_lenient_counts_do_not_depend_on_chunking() {
    let good = "E0x10 1 5\nE0x20 2 5\r\nX0x20 3 5\nX0x10 4 5\n".repeat(30);
    let cases = [
        format!("# base 0x1000\n{good}E0x30 7\n{good}"),
        format!("{good}garbage here\n{good}E0xzz 1 5\n{good}"),
        format!("{good}# base nothing\n{good}"),
        format!("E0x10\n{good}"),
        format!("{good}E0x10 99999999999999999999 5\n"),
        format!("{good}E0x10 1 2 3\n{good}"),
        format!("\n\n# c\n{good}# base 0x2000 /a b\n{good}"),
        format!(
            "# map 0x1000 0x2000 0x0 ab12 /a b.so\n{good}# map 0x3000 0x4000 0x1000 - x\n{good}"
        ),
        format!("{good}# map 0x1000 zz 0x0 - /a\n{good}"),
        // past the stream head that is read up front for sniffing
        format!("{}E0x40 1\n{good}", good.repeat(70)),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (i, text) in cases.iter().enumerate() {
        // The same bytes as a file, whose chunks are read, not borrowed.
        let path = dir.path().join(format!("{i}.txt"));
        std::fs::write(&path, text).unwrap();
        let file = Input::open(&path).unwrap().renamed("t.txt".into());
        for lenient in [false, true] {
            let whole = Input::from_bytes("t.txt", text.clone().into_bytes());
            let reference = sequential(&whole, lenient);
            for (threads, chunk) in [(1, 1), (2, 5), (3, 100), (2, 0)] {
                assert_eq!(
                    outcome(&whole, lenient, threads, chunk),
                    reference,
                    "{text:?} lenient {lenient} threads {threads} chunk {chunk}"
                );
            }
            for (threads, chunk) in [(1, 1), (2, 7), (3, 100)] {
                assert_eq!(
                    outcome(&file, lenient, threads, chunk),
                    reference,
                    "file {text:?} lenient {lenient} threads {threads} chunk {chunk}"
                );
            }
            let reader = Trickle(std::io::Cursor::new(text.clone().into_bytes()));
            let stream = Input::from_reader("t.txt", Box::new(reader)).unwrap();
            assert_eq!(
                outcome(&stream, lenient, 2, 10),
                reference,
                "stream {text:?}"
            );
        }
    }
}

/// Runs of lines of one shape, as the fast scanner predicts them, with
/// one byte of a line in the middle changed: wherever the change is,
/// the result must be that of the line-by-line parser.
#[test]
fn predicted_lines_agree_with_the_line_parser_whatever_byte_is_off() {
    let shapes = [
        ("5582a1f173a0", "1234567890", "22808", "\n"),
        ("5582a1f173a0", "1234567890", "22808", "\r\n"),
        ("1", "7", "3", "\n"),
        ("abcdef01", "12345678", "12345678", "\n"),
        ("ABCDEF0123456", "1234567890123456", "1", "\r\n"),
        ("ABCDEF0123456", "12345678901234567", "123456789", "\n"),
        ("123456789abcdef0", "99", "42", "\n"),
    ];
    // Each shape with both columns, the timestamp only, and neither
    // (the seed format).
    let variants = shapes.into_iter().flat_map(|(addr, time, tid, end)| {
        [
            (addr, format!(" {time} {tid}"), end),
            (addr, format!(" {time}"), end),
            (addr, String::new(), end),
        ]
    });
    for (addr, cols, end) in variants {
        let line = |k: usize| {
            let kind = if k.is_multiple_of(3) { 'X' } else { 'E' };
            format!("{kind}0x{addr}{cols}{end}")
        };
        let before: String = (0..20).map(line).collect();
        let after: String = (21..40).map(line).collect();
        let middle = line(20).into_bytes();
        for pos in 0..middle.len() {
            for c in *b" xX0g/:9E\n\r" {
                let mut bad = middle.clone();
                bad[pos] = c;
                let mut text = before.clone().into_bytes();
                text.extend_from_slice(&bad);
                text.extend_from_slice(after.as_bytes());
                let input = Input::from_bytes("t.txt", text);
                for lenient in [false, true] {
                    assert_eq!(
                        outcome(&input, lenient, 1, 1 << 30),
                        sequential(&input, lenient),
                        "{:?} lenient {lenient}",
                        String::from_utf8_lossy(&bad)
                    );
                }
            }
        }
    }
}

/// Symbolic lines as the fast scanner reads them, one byte of a line in
/// the middle changed: the result must be the line parser's. Names of
/// one length are read at the last line's shape, others are not.
#[test]
fn symbolic_lines_agree_with_the_line_parser_whatever_byte_is_off() {
    let lists = [
        &["main", "f", "deflate_slow", "a_name_of_15_ch", "operator<<"][..],
        &["deflate", "inflate", "zcalloc", "deflate"][..],
    ];
    for (names, cols) in lists
        .into_iter()
        .flat_map(|n| ["", " 12", " 1234567890 22808"].map(|c| (n, c)))
    {
        for end in ["\n", "\r\n"] {
            let line = |k: usize| {
                let kind = if k.is_multiple_of(3) { 'X' } else { 'E' };
                format!("{kind} {}{cols}{end}", names[k % names.len()])
            };
            let before: String = (0..20).map(line).collect();
            let after: String = (21..40).map(line).collect();
            let middle = line(20).into_bytes();
            for pos in 0..middle.len() {
                for c in *b" xX0g/:9E\n\r\t\x01\0" {
                    let mut bad = middle.clone();
                    bad[pos] = c;
                    let mut text = before.clone().into_bytes();
                    text.extend_from_slice(&bad);
                    text.extend_from_slice(after.as_bytes());
                    let input = Input::from_bytes("t.txt", text);
                    for lenient in [false, true] {
                        let opts = ParseOptions {
                            lenient,
                            threads: 1,
                            chunk_bytes: 1 << 30,
                            ..Default::default()
                        };
                        assert_eq!(
                            crate::ingest::testing::outcome(&SymbolicFormat, &input, &opts),
                            sequential_as(&SymbolicFormat, &input, lenient),
                            "{:?} lenient {lenient}",
                            String::from_utf8_lossy(&bad)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn symbolic_chunks_match_one_sequential_pass() {
    // Column widths that change from line to line, and line ends too;
    // with and without address lines (a chunk with one is read line by line).
    let lines = "E main 1 7\nE f 2 7\nE g 5 9\nX g 6 9\nX f 7 7\n\
                 E h 12345 123\r\nX h 123456 1234\nE h 1234567 12\nX h 1234567 12\n";
    let long = "E a_function_name_longer_than_sixteen_bytes 8 7\n\
                X a_function_name_longer_than_sixteen_bytes 9 7\n";
    for text in [
        lines.repeat(40) + long,
        format!("{lines}E 0x40 3 7\nX 0x40 4 7\n").repeat(40) + long,
    ] {
        let input = Input::from_bytes("t.txt", text.into_bytes());
        let reference = sequential_as(&SymbolicFormat, &input, false);
        for (threads, chunk) in [(1, 1 << 30), (2, 7), (2, 100), (3, 1000)] {
            let opts = ParseOptions {
                lenient: false,
                threads,
                chunk_bytes: chunk,
                ..Default::default()
            };
            assert_eq!(
                crate::ingest::testing::outcome(&SymbolicFormat, &input, &opts),
                reference,
                "threads {threads} chunk {chunk}"
            );
        }
    }
}

/// One line of a generated trace: mostly well-formed lines of varying
/// shape with `columns` columns after the address, some malformed ones.
fn line_strategy(columns: u8) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let event = (
        prop::bool::ANY,
        0u64..u64::MAX,
        0u32..4,
        prop::num::u64::ANY,
        1u64..100_000,
        prop::bool::ANY,
    )
        .prop_map(move |(enter, addr, shift, time, tid, crlf)| {
            let kind = if enter { 'E' } else { 'X' };
            let addr = addr >> (16 * shift);
            let time = time >> (time % 64);
            let end = if crlf { "\r\n" } else { "\n" };
            match columns {
                0 => format!("{kind}0x{addr:x}{end}"),
                1 => format!("{kind}0x{addr:x} {time}{end}"),
                _ => format!("{kind}0x{addr:x} {time} {tid}{end}"),
            }
        });
    let odd = prop::sample::select(vec![
        "\n",
        "# note\n",
        "# base 0x1000 /x\n",
        "E0x10  5 6\n",
        "E 0x10 5 6\n",
        "E0x10 5\n",
        "Q\n",
        "X0x1\t5 6\n",
        "E0x10 5 6 \n",
        "\r\n",
    ])
    .prop_map(str::to_string);
    prop_oneof![20 => event, 1 => odd]
}

/// One line of a generated symbolic trace with `columns` columns:
/// mostly well-formed lines of varying widths, some odd ones.
fn symbolic_line_strategy(columns: u8) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let name = prop::sample::select(vec![
        "main",
        "f",
        "deflate_stored",
        "a_name_of_15_ch",
        "a_name_of_sixteen",
        "operator()",
        "0x40",
        "é",
    ]);
    let event = (
        prop::bool::ANY,
        name,
        prop::num::u64::ANY,
        1u64..1_000_000_000,
        prop::bool::ANY,
    )
        .prop_map(move |(enter, name, time, tid, crlf)| {
            let kind = if enter { 'E' } else { 'X' };
            let time = time >> (time % 64);
            let end = if crlf { "\r\n" } else { "\n" };
            match columns {
                0 => format!("{kind} {name}{end}"),
                1 => format!("{kind} {name} {time}{end}"),
                _ => format!("{kind} {name} {time} {tid}{end}"),
            }
        });
    let odd = prop::sample::select(vec![
        "\n",
        "# note\n",
        "E  main 5 6\n",
        "E\tmain 5 6\n",
        "E main 5\n",
        "X main\t5 6\n",
        "E main 5 6 \n",
        "E0x10 5 6\n",
        "E main\x01x 5 6\n",
    ])
    .prop_map(str::to_string);
    prop_oneof![20 => event, 1 => odd]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn symbolic_chunked_parsing_matches_one_sequential_pass(
        lines in proptest::strategy::Strategy::prop_flat_map(0u8..3, |c| {
            proptest::collection::vec(symbolic_line_strategy(c), 1..120)
        }),
        chunk in 1usize..300,
        lenient in proptest::bool::ANY,
    ) {
        let text = lines.concat();
        let input = Input::from_bytes("t.txt", text.into_bytes());
        let reference = sequential_as(&SymbolicFormat, &input, lenient);
        for (threads, chunk) in [(1, 1 << 30), (2, chunk)] {
            let opts = ParseOptions { lenient, threads, chunk_bytes: chunk ,    ..Default::default()};
            proptest::prop_assert_eq!(
                &crate::ingest::testing::outcome(&SymbolicFormat, &input, &opts),
                &reference
            );
        }
    }

    #[test]
    fn chunked_parsing_matches_one_sequential_pass(
        lines in proptest::strategy::Strategy::prop_flat_map(0u8..3, |c| {
            proptest::collection::vec(line_strategy(c), 1..120)
        }),
        chunk in 1usize..300,
        lenient in proptest::bool::ANY,
    ) {
        let text = lines.concat();
        let input = Input::from_bytes("t.txt", text.into_bytes());
        let reference = sequential(&input, lenient);
        proptest::prop_assert_eq!(&outcome(&input, lenient, 1, 1 << 30), &reference);
        proptest::prop_assert_eq!(&outcome(&input, lenient, 2, chunk), &reference);
    }
}
