//! Tests of the indented reader: the chunked paths against the two-pass
//! reference, the fast line path against the general one.

use std::borrow::Cow;

use super::*;
use crate::ingest::{NodeRecord, NodeSink};

fn parse(text: &str) -> Result<(Vec<NodeRecord>, TraceMeta)> {
    let (sink, meta, _) =
        crate::ingest::testing::parse(&IndentedFormat, "fig1.txt", text.as_bytes(), false)?;
    Ok((sink.nodes, meta))
}

#[test]
fn reads_paper_figure_1() {
    let fig1 = "Main (3000 / 10000)\n  funcA (1500 / 4000)\n    funcC (1300 / 1300)\n    funcD (1200 / 1200)\n  funcB (1700 / 3000)\n    funcE (800 / 1300)\n      funcF (500 / 500)\n";
    let (nodes, meta) = parse(fig1).unwrap();
    let depths: Vec<_> = nodes.iter().map(|n| n.depth).collect();
    assert_eq!(depths, [0, 1, 2, 2, 1, 2, 3]);
    assert_eq!((nodes[4].self_time, nodes[4].total), (1700, 3000));
    assert_eq!(meta.decimals, 0);
}

#[test]
fn decimals_tabs_and_call_counts() {
    let (nodes, meta) = parse("main (1.5 / 10)\n\tf(int) (2.25 / 8.5) x3\n").unwrap();
    assert_eq!(meta.decimals, 2);
    assert_eq!((nodes[0].self_time, nodes[0].total), (150, 1000));
    assert_eq!(
        (nodes[1].depth, nodes[1].self_time, nodes[1].calls),
        (1, 225, 3)
    );
}

#[test]
fn fixed_point_scales_to_the_file_precision_and_saturates() {
    assert_eq!(fixed("1.5", 3), 1500);
    assert_eq!(fixed("12", 2), 1200);
    assert_eq!(fixed("0.007", 3), 7);
    assert_eq!(fixed("999999999999999999", 9), u64::MAX);
    assert_eq!(fixed("18446744073709551615", 0), u64::MAX);
    assert_eq!(fixed("18446744073709551616", 0), u64::MAX);
}

#[test]
fn bad_lines_and_bad_dedent_are_located() {
    let err = parse("a (1 / 2)\n  b (1 / x)\n").unwrap_err().to_string();
    assert!(
        err.starts_with("fig1.txt:2: expected `name (self / total)`"),
        "{err}"
    );
    let err = parse("a (1 / 2)\n    b (1 / 1)\n  c (1 / 1)\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("fig1.txt:3: expected an indentation of an enclosing line"),
        "{err}"
    );
}

#[test]
fn awkward_names_are_escaped_and_read_back() {
    let names = [
        "#hash",
        "f x3",
        "g (a / b)",
        "nb\u{a0}",
        "\u{a0}lead",
        "new\nline",
        "tab\there",
        "nul\0",
        " spaced ",
        "back\\slash",
        "\\x41",
        "operator()(int) const",
    ];
    let mut text = String::new();
    for (i, n) in names.iter().enumerate() {
        text.push_str(&format!("{} (1 / 1) x{}\n", escape_name(n), i + 2));
    }
    let (sink, _, funcs) =
        crate::ingest::testing::parse(&IndentedFormat, "t", text.as_bytes(), false).unwrap();
    let got: Vec<&str> = sink
        .nodes
        .iter()
        .map(|n| match &funcs.keys()[n.func as usize] {
            crate::ingest::FuncKey::Name(s) => &**s,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(got, names, "{text}");
    let calls: Vec<u64> = sink.nodes.iter().map(|n| n.calls).collect();
    assert_eq!(calls, (2..2 + names.len() as u64).collect::<Vec<_>>());
    assert!(!text.contains('\u{a0}') && text.lines().count() == names.len());
}

#[test]
fn plain_names_are_written_as_they_are() {
    for n in ["main", "f(int, char*)", "ns::a<b>::c", "a#b", "[thread 3]"] {
        assert!(matches!(escape_name(n), Cow::Borrowed(_)), "{n}");
    }
    assert_eq!(
        unescape_name("a\\qb\\x4"),
        "a\\qb\\x4",
        "unknown escapes stand for themselves"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    #[test]
    fn any_name_round_trips(name in "\\PC{1,12}|[ #\\\\x()/\u{a0}\n\t0-9]{1,12}") {
        let line = format!("  {} (3 / 4) x2", escape_name(&name));
        let parsed = parse_line(line.trim_start()).map_err(proptest::test_runner::TestCaseError::fail)?;
        proptest::prop_assert_eq!(unescape_name(parsed.name), name.as_str());
        proptest::prop_assert_eq!(parsed.calls, 2);
    }
}

/// The line-by-line, two-pass parser this reader replaced: every row
/// kept, the precision found, then the nodes fed. The reference.
fn sequential(input: &Input, lenient: bool) -> String {
    let opts = ParseOptions {
        lenient,
        ..Default::default()
    };
    let mut funcs = FuncTable::default();
    let mut sink = crate::ingest::testing::Collect::default();
    let result = parse_whole(input, &opts, &mut funcs, &mut sink);
    shown(result, &sink, &funcs)
}

/// Nodes, keys and meta, or the error, as text.
fn shown(
    result: Result<TraceMeta>,
    sink: &crate::ingest::testing::Collect,
    funcs: &FuncTable,
) -> String {
    match result {
        Ok(meta) => format!("{:?}\n{:?}\n{meta:?}", sink.nodes, funcs.keys()),
        Err(e) => format!("error: {e}"),
    }
}

/// What the chunked reader reports with `threads` and `chunk` bytes.
fn chunked(input: &Input, lenient: bool, threads: usize, chunk: usize) -> String {
    let opts = ParseOptions {
        lenient,
        threads,
        chunk_bytes: chunk,
        ..Default::default()
    };
    let mut funcs = FuncTable::default();
    let mut sink = crate::ingest::testing::Collect::default();
    let result = IndentedFormat.parse(input, &opts, &mut funcs, &mut sink);
    shown(result, &sink, &funcs)
}

/// Hands a stream out a few bytes per read.
struct Trickle(std::io::Cursor<Vec<u8>>);
impl std::io::Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(5);
        self.0.read(&mut buf[..n])
    }
}

/// Traces that exercise every path of the chunked reader; the last one
/// has a byte that is not UTF-8.
fn cases() -> Vec<Vec<u8>> {
    let good = "main (3 / 10)\n  f (1 / 4) x2\n    g (3 / 3)\n  h (2 / 3)\r\n    g (1 / 1)\n";
    let mut cases = vec![
        good.repeat(20),
        // the precision grows late, also past saturating numbers
        format!("{}  k (0.5 / 1.25)\n{}", good.repeat(15), good.repeat(3)),
        format!("a (999999999999999999 / 999999999999999999)\n{good}  b (1.000000001 / 2)\n"),
        "a (18446744073.709551615 / 1.5)\n b (0.0 / 12345678901234567.123456789)\n".to_string(),
        // errors, as a line and as an indentation
        format!("{}  f (1 / x)\n{}", good.repeat(10), good.repeat(10)),
        format!(
            "{}    deep (1 / 1)\n   odd (1 / 1)\n{}",
            good.repeat(10),
            good
        ),
        format!("{}  f (1 / 1.1234567891)\n{good}", good.repeat(5)),
        format!("{good}f (1 / 2) x99999999999999999999\n{good}"),
        // tabs, NBSP, odd spacing, comments, blank lines, no final line end
        format!(
            "{good}\tt (1 / 1)\n\u{a0}n (1 / 1)\n# c\n\n   \n{good}x ( 1 /2 )  x3\ny (1 / 2)"
        ),
        format!("{good}e\\x20 (1 / 1)\n  \\#h (1 / 1)\ns p (2 / 2) x4\nend\u{a0} (1 / 1)\n"),
        // synthetic thread nodes: only at depth 0
        format!("[thread 7] (0 / 10)\n{good}  [thread 8] (1 / 1)\n[thread 8] (0 / 1)\n"),
        // units: throughout, a time unit late after integers only (no
        // reread) or after decimals (read again whole), calls
        format!("main (1.5 us / 2 ms)\n  f (700ns / 1.9985 ms) x2\n{good}"),
        format!(
            "{}  k (1 ms / 2.5 ms)\n{}  j (1.5 / 2)\n",
            good.repeat(12),
            good
        ),
        format!("a (0.5 / 1)\n{}  k (1 us / 2 us)\n{good}", good.repeat(12)),
        format!(
            "{}  k (1 calls / 2.5 calls)\n{good}  q (1 min / 2 min)\n",
            good.repeat(9)
        ),
        // a line that starts like the last fast-path line, after a
        // sibling the general path read: it is not the last line's node
        "main (1 us / 9 us)\n  f (1 us / 2 us)\n  g ( 5 us /6 us )\n  f (3 us / 4 us)\n"
            .repeat(8),
        // anchors at every depth (lines climbing below a chunk's first)
        format!(
            "{}e (1 / 1)\n",
            "a (1 / 9)\n  b (1 / 1)\n    c (1 / 1)\n      d (1 / 1)\n    c (2 / 2)\n  b (1 / 1)\n"
                .repeat(6)
        ),
        // fast-path units, threads, long names
        "[thread 1] (0 / 10 ms)\n  main (2.31 us / 25.3 ms)\n    a_name_longer_than_sixteen_1 (188 ns / 1.72 s) x2\n    a_name_longer_than_sixteen_2 (1 ns / 1 ns)\n[thread 2] (0 / 1 s)\n main (1 s / 1 s)\n"
            .repeat(10),
        // unit-less decimals after time units: not nanoseconds by themselves
        format!("a (1 us / 9 ms)\n{}  b (0.5 / 1.5)\n{}", good.repeat(8), good.repeat(8)),
        format!("a (7 / 9)\n{}  b (1 us / 1.5 us)\n{}", good.repeat(8), good.repeat(8)),
        // not UTF-8: fatal wherever it is, before any line error
        format!(
            "{}  f (1 / x)\n{}g\u{ff} (1 / 1)\n",
            good.repeat(4),
            good.repeat(8)
        ),
    ];
    let last = cases.pop().expect("cases").into_bytes();
    let mut cases: Vec<Vec<u8>> = cases.into_iter().map(String::into_bytes).collect();
    let mut bad = last;
    let at = bad.len() - 10;
    bad[at] = 0xff;
    cases.push(bad);
    cases
}

#[test]
fn chunks_and_threads_read_like_one_sequential_pass() {
    for (i, bytes) in cases().into_iter().enumerate() {
        for lenient in [false, true] {
            let whole = Input::from_bytes("t.txt", bytes.clone());
            let reference = sequential(&whole, lenient);
            for threads in 1..=8 {
                for chunk in [1, 7, 64, 0] {
                    assert_eq!(
                        chunked(&whole, lenient, threads, chunk),
                        reference,
                        "case {i} lenient {lenient} threads {threads} chunk {chunk}"
                    );
                }
            }
            let reader = Trickle(std::io::Cursor::new(bytes.clone()));
            let stream = Input::from_reader("t.txt", Box::new(reader)).unwrap();
            assert_eq!(chunked(&stream, lenient, 2, 10), reference, "stream {i}");
        }
    }
}

/// The calling-context tree of `input` (and its functions, meta or
/// error) read by the two-pass reference, line by line.
fn contexts_sequential(input: &Input, lenient: bool) -> String {
    let opts = ParseOptions {
        lenient,
        ..Default::default()
    };
    let mut funcs = FuncTable::default();
    let mut sink = crate::calltree::ContextsBuilder::default();
    let result = parse_whole(input, &opts, &mut funcs, &mut sink);
    contexts_shown(result, sink, funcs)
}

/// The same by the chunked reader, which summarises chunks into
/// partial context trees for this sink.
fn contexts_chunked(input: &Input, lenient: bool, threads: usize, chunk: usize) -> String {
    let opts = ParseOptions {
        lenient,
        threads,
        chunk_bytes: chunk,
        ..Default::default()
    };
    let mut funcs = FuncTable::default();
    let mut sink = crate::calltree::ContextsBuilder::default();
    assert!(NodeSink::takes_node_chunks(&sink));
    let result = IndentedFormat.parse(input, &opts, &mut funcs, &mut sink);
    contexts_shown(result, sink, funcs)
}

fn contexts_shown(
    result: Result<TraceMeta>,
    sink: crate::calltree::ContextsBuilder,
    mut funcs: FuncTable,
) -> String {
    match result {
        Ok(meta) => {
            let (tree, stats) = sink.finish(&meta, &mut funcs);
            format!("{tree:?}\n{stats:?}\n{:?}\n{meta:?}", funcs.keys())
        }
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn summarised_chunks_build_the_tree_one_sequential_pass_builds() {
    for (i, bytes) in cases().into_iter().enumerate() {
        for lenient in [false, true] {
            let whole = Input::from_bytes("t.txt", bytes.clone());
            let reference = contexts_sequential(&whole, lenient);
            for threads in 1..=8 {
                for chunk in [1, 7, 20, 64, 0] {
                    assert_eq!(
                        contexts_chunked(&whole, lenient, threads, chunk),
                        reference,
                        "case {i} lenient {lenient} threads {threads} chunk {chunk}"
                    );
                }
            }
            let reader = Trickle(std::io::Cursor::new(bytes.clone()));
            let stream = Input::from_reader("t.txt", Box::new(reader)).unwrap();
            let got = contexts_chunked(&stream, lenient, 2, 10);
            assert_eq!(got, reference, "stream {i}");
        }
    }
}

#[test]
fn the_reference_sees_what_the_cases_are_about() {
    let whole = |s: &str| Input::from_bytes("t.txt", s.as_bytes().to_vec());
    let late = sequential(&whole("a (1 / 2)\n b (0.25 / 0.5)\n"), false);
    assert!(late.contains("self_time: 100, total: 200"), "{late}");
    let bad = sequential(
        &Input::from_bytes("t.txt", b"a (1 / x)\n\xff".to_vec()),
        false,
    );
    assert!(bad.starts_with("error: t.txt:2: expected UTF-8"), "{bad}");
}

/// `text` at the start of a zero-padded window.
fn window(text: &[u8]) -> line::Window {
    let mut win = [0; line::WINDOW];
    win[..text.len()].copy_from_slice(text);
    win
}

#[test]
fn a_line_is_read_from_its_parenthesis_only_when_it_starts_like_the_last() {
    // Prefixes (indentation, name, ` (`) of every length the fast path
    // takes: a change in any of their bytes is seen, a change after them
    // is not a reason to read the line from its start.
    for width in [0, 3, 9] {
        for name_len in 1..=(61 - width) {
            let name: String = (0..name_len)
                .map(|k| (b'a' + (k % 26) as u8) as char)
                .collect();
            let text = format!("{}{name} (1 / 2)\n", " ".repeat(width));
            let win = window(text.as_bytes());
            let f = line::scan(&win, &line::Prefix::default()).unwrap();
            let prefix = line::Prefix::of(&win, &f);
            let again = line::scan(&win, &prefix).unwrap();
            assert!(again.hinted, "{text:?}");
            assert_eq!(again.name, f.name);
            let len = width + name_len + 2;
            for at in 0..text.len() - 1 {
                let mut other = text.clone().into_bytes();
                other[at] = if other[at] == b'z' { b'y' } else { b'z' };
                let Some(g) = line::scan(&window(&other), &prefix) else {
                    continue;
                };
                assert_eq!(g.hinted, at >= len, "{text:?} changed at {at}");
            }
        }
    }
}

#[test]
fn the_fast_path_reads_what_the_general_path_reads() {
    type Value = (u64, u8, u64);
    type Read = (String, Value, Value, u64, u8);
    fn value(n: Number) -> Value {
        (n.digits, n.decimals, n.nanos())
    }
    /// What the fast path reads of `line` (a line end and padding added).
    fn fast(line: &str) -> Option<(usize, Read)> {
        let text = format!("{line}\n");
        let b = text.as_bytes();
        let win = window(b);
        let f = line::scan(&win, &line::Prefix::default())?;
        assert!(!f.hinted);
        // The line's own start as the last line's, or another's, reads the
        // same; only the right one is taken.
        fn of(win: &line::Window) -> line::Prefix<'_> {
            line::Prefix::of(win, &line::scan(win, &line::Prefix::default()).unwrap())
        }
        let short = window(b"main (1 / 2)\n");
        let long = window(b" zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz (1 / 2)\n");
        for (hint, taken) in [
            (line::Prefix::of(&win, &f), true),
            (of(&short), false),
            (of(&long), false),
        ] {
            let hinted = line::scan(&win, &hint).expect("read with a hint too");
            assert_eq!(hinted.hinted, taken, "{line}");
            let same = line::Fast {
                hinted: false,
                ..hinted
            };
            assert_eq!(format!("{same:?}"), format!("{f:?}"), "{line}");
        }
        assert_eq!(f.next, line.len() + 1, "{line}");
        let name = std::str::from_utf8(&b[f.name.0..f.name.1])
            .unwrap()
            .to_string();
        let read = (name, value(f.self_time), value(f.total), f.calls, f.units);
        Some((f.width, read))
    }
    fn slow(line: &str) -> Option<(usize, Read)> {
        let body = line.trim_start();
        let l = parse_line(body.trim_end()).ok()?;
        let units = [l.self_unit, l.total_unit]
            .into_iter()
            .flatten()
            .fold(0, |u, _| u | Rec::TIME);
        let read = (
            l.name.to_string(),
            value(Number::of(l.self_time, l.self_unit)),
            value(Number::of(l.total, l.total_unit)),
            l.calls,
            units,
        );
        Some((indent_width(&line[..line.len() - body.len()]), read))
    }
    for line in [
        "f (1 / 2)",
        "   f (1.5 / 2) x3",
        "a b (0.000000001 / 999999.999999999) x9999999999999999999",
        "f() const (12 / 34)",
        "g (a / b) (12 / 34)",
        "(anon) (1 / 2)",
        "                    deep (1234567 / 12345678)",
        "f (2.31 us / 25.3 ms)",
        "f (188 ns / 1.72 s) x2",
        "f (0.5 s / 7 us)",
        "f (1 / 2 ms)",
        "f (0.0015 ns / 0.001 ms)",
        "f (9007199254.740991 s / 1 s)",
        "a_name_longer_than_sixteen_bytes (1 / 2)\r",
    ] {
        let got = fast(line);
        assert!(got.is_some(), "{line}");
        let line = line.trim_end_matches('\r');
        assert_eq!(got, slow(line), "{line}");
    }
    // Lines whose `(` is past the window's reach: long (C++) names and
    // deep indentation, read by `line::long` from the line's last `(`.
    fn long(line: &str) -> Option<(usize, Read)> {
        let text = format!("{line}\n");
        let f = line::long(text.as_bytes(), text.len() - 1)?;
        assert_eq!(f.next, text.len(), "{line}");
        let name = text[f.name.0..f.name.1].to_string();
        let read = (name, value(f.self_time), value(f.total), f.calls, f.units);
        Some((f.width, read))
    }
    let cxx = "std::_Rb_tree<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::pair<int const, int> >::_M_insert_unique(std::pair<int const, int>&&)";
    let deep = " ".repeat(80);
    for line in [
        format!("{cxx} (1 / 2)"),
        format!("    {cxx} (2.31 us / 25.3 ms) x12"),
        format!("{cxx} (188 ns / 1.72 s)\r"),
        format!("{deep}f (1 / 2)"),
        format!("{deep}operator() (1 / 2) x3"),
        format!("{deep}   {cxx} const (0.5 s / 7 us)"),
        format!("g (a / b) {} (12 / 34)", "(x)".repeat(30)),
    ] {
        let got = long(&line);
        assert!(got.is_some(), "{line}");
        let line = line.trim_end_matches('\r');
        assert_eq!(got, slow(line), "{line}");
    }
    for line in [
        format!("{cxx}  (1 / 2)"),
        format!("{cxx}\t(1 / 2)"),
        format!("{cxx}(1 / 2)"),
        format!("{cxx} (1 / 2) "),
        format!("{cxx} (1 / 2)x3"),
        format!("{cxx} (1 / 2) x"),
        format!("{cxx} (1 /2)"),
        format!("{cxx} (1 / 2) (3 / 4) junk"),
        format!("{cxx}é (1 / 2)"),
        format!("\t{cxx} (1 / 2)"),
        format!("{deep}# {cxx} (1 / 2)"),
        deep.clone(),
        format!("{deep} (1 / 2)"),
    ] {
        assert_eq!(long(&line), None, "{line}");
    }
    // Left to the general path, which accepts some and rejects others.
    for line in [
        "f (1 / 2) x18446744073709551615",
        "g (1 / 2)x3",
        "g (1 / 2)  x3",
        "g (1 / 2) ",
        "g (1. / 2)",
        "g (.1 / 2)",
        "g (1 /2)",
        "g(1 / 2)",
        "g  (1 / 2)",
        " (1 / 2)",
        "\tg (1 / 2)",
        "g (1 / 2.1234567890)",
        "g (1234567890123456789 / 2)",
        "g (9007199254740992 / 2)",
        "g (1 ms/ 2 ms)",
        "g (1ms / 2 ms)",
        "g (1 µs / 2 ms)",
        "g (1 calls / 2 calls)",
        "g (1 min / 2 ms)",
        "g\u{a0} (1 / 2)",
        "# g (1 / 2)",
    ] {
        assert_eq!(fast(line), None, "{line}");
    }
}

#[test]
fn numbers_and_spaces_of_every_length_read_like_the_general_path() {
    for n in 0..40 {
        let digits = "1234567890".repeat(4);
        let int = &digits[..n.clamp(1, 18)];
        for frac in ["", ".5", ".25", ".123456", ".0000001"] {
            for unit in ["", " ns", " us", " ms", " s"] {
                let line = format!("{}f ({int}{frac}{unit} / 1{unit})", " ".repeat(n));
                let fast = line::scan(
                    &window(format!("{line}\n").as_bytes()),
                    &line::Prefix::default(),
                );
                let slow = parse_line(line.trim_start()).unwrap();
                let want = Number::of(slow.self_time, slow.self_unit);
                if let Some(f) = fast {
                    assert_eq!(f.width, n, "{line}");
                    let got = (
                        f.self_time.digits,
                        f.self_time.decimals,
                        f.self_time.nanos(),
                    );
                    assert_eq!(got, (want.digits, want.decimals, want.nanos()), "{line}");
                } else {
                    assert!(
                        n > 15 || want.digits >= EXACT_F64 || line.len() > 64,
                        "{line}"
                    );
                }
            }
        }
    }
}

#[test]
fn nanoseconds_by_integers_match_the_doubles() {
    use proptest::prelude::*;
    let mut runner = proptest::test_runner::TestRunner::default();
    let strategy = (0u64..10_000_000_000, 0u8..=9, 1usize..5);
    runner
        .run(&strategy, |(digits, decimals, unit)| {
            let text = format!(
                "{}.{:0width$}",
                digits / POW10[decimals as usize],
                digits % POW10[decimals as usize],
                width = decimals as usize
            );
            let text = text.trim_end_matches('.');
            let symbol = ["", "ns", "us", "ms", "s"][unit];
            let n = Number {
                digits,
                decimals,
                nanos: None,
            };
            prop_assert_eq!(
                line::nanos(n, unit),
                in_nanos(text, Some(symbol)),
                "{}",
                text
            );
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_trees_scale_times_read_before_the_precision_grew() {
    use crate::calltree::{CallsBuilder, ContextsBuilder};
    let text = "a (1 / 3)\n  b (2 / 2)\na (1 / 999999999999999999)\n  b (0.5 / 0.75)\n";
    let input = Input::from_bytes("t.txt", text.as_bytes().to_vec());
    let opts = ParseOptions::default();
    let mut funcs = FuncTable::default();
    let mut calls = CallsBuilder::default();
    let meta = IndentedFormat
        .parse(&input, &opts, &mut funcs, &mut calls)
        .unwrap();
    let (tree, _) = calls.finish(&meta, &mut funcs);
    assert_eq!(tree.total, [u64::MAX, 300, 200, u64::MAX, 75]);
    assert_eq!(tree.self_time, [0, 100, 200, 100, 50]);
    let mut funcs = FuncTable::default();
    let mut ctx = ContextsBuilder::default();
    let meta = IndentedFormat
        .parse(&input, &opts, &mut funcs, &mut ctx)
        .unwrap();
    let (tree, _) = ctx.finish(&meta, &mut funcs);
    assert_eq!(tree.total, [u64::MAX, u64::MAX, 275]);
    assert_eq!(tree.self_time, [0, 200, 250]);
}

/// A line of an indented trace: mostly usual ones, some odd or wrong.
fn line_strategy() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let number = prop_oneof![
        (0u64..100_000).prop_map(|n| n.to_string()),
        (0u64..100_000, 1usize..4).prop_map(|(n, d)| format!("{}.{:0d$}", n / 1000, n % 1000)),
    ];
    let usual = (
        prop_oneof![4 => 0usize..5, 1 => 30usize..36],
        prop::sample::select(vec![
            "main",
            "f",
            "g(int)",
            "[thread 2]",
            "a\\x20b",
            "std::vector<std::pair<int, int>, std::allocator<std::pair<int, int> > >::push_back(std::pair<int, int>&&)",
            "operator() const",
        ]),
        number.clone(),
        number,
        prop::option::of(1u64..5),
        prop::bool::ANY,
    )
        .prop_map(|(depth, name, s, t, n, crlf)| {
            let calls = n.map(|n| format!(" x{n}")).unwrap_or_default();
            let end = if crlf { "\r\n" } else { "\n" };
            format!("{}{name} ({s} / {t}){calls}{end}", "  ".repeat(depth))
        });
    let odd = prop::sample::select(vec![
        "\n",
        "# note\n",
        "\tt (1 / 1)\n",
        "   o (1 / 1)\n",
        "w (1 / x)\n",
        "  w ( 1 /2 )  x2 \n",
        "w (1 / 0.0000000001)\n",
        "u (1 us / 2.5 ms)\n",
        "c (1 calls / 2 calls)\n",
    ])
    .prop_map(str::to_string);
    prop_oneof![20 => usual, 1 => odd]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn chunked_parsing_matches_one_sequential_pass(
        lines in proptest::collection::vec(line_strategy(), 1..120),
        chunk in 1usize..300,
        threads in 1usize..5,
        lenient in proptest::bool::ANY,
    ) {
        let input = Input::from_bytes("t.txt", lines.concat().into_bytes());
        let reference = sequential(&input, lenient);
        proptest::prop_assert_eq!(&chunked(&input, lenient, threads, chunk), &reference);
        let reference = contexts_sequential(&input, lenient);
        proptest::prop_assert_eq!(&contexts_chunked(&input, lenient, threads, chunk), &reference);
    }
}

#[test]
fn unescaped_len_is_the_length_of_the_unescaped_name() {
    let written = [
        "plain",
        "back\\\\slash",
        "\\#h",
        "e\\x20",
        "nb\\u{a0}",
        "\\u{1f600}x",
        "lone\\",
        "\\q",
        "\\x",
        "\\u{zz}",
        "",
    ];
    for s in written {
        assert_eq!(escape::unescaped_len(s), unescape_name(s).len(), "{s:?}");
    }
}

/// Traces whose names reach the bound on names: on the fast path for long
/// lines, on the general path (a tab, an NBSP), escaped, and read again
/// whole (a time unit after decimals). Each has one name too long.
fn long_name_cases() -> Vec<(String, u64)> {
    use crate::ingest::funcs::MAX_NAME;
    let good = "main (3 / 10)\n  f (1 / 4) x2\n    g (3 / 3)\n";
    let at = |n: usize| "n".repeat(n);
    // Written longer than the bound, MAX_NAME bytes once unescaped.
    let escaped = format!("{}{}", "\\\\".repeat(4), at(MAX_NAME - 4));
    vec![
        (format!("{good}  {} (1 / 1)\n{good}", at(MAX_NAME + 1)), 4),
        (format!("{good}\t{} (1 / 1)\n{good}", at(MAX_NAME + 1)), 4),
        (
            format!("{good}  n\u{a0}{} (1 / 1)\n{good}", at(MAX_NAME - 2)),
            4,
        ),
        (
            format!(
                "{good}  {} (1 / 1)\n  {escaped} (1 / 1)\n  \\\\{escaped} (1 / 1) x2\n",
                at(MAX_NAME)
            ),
            6,
        ),
        (
            format!(
                "a (0.5 / 1)\n  {} (1 / 1)\n  k (1 us / 2 us)\n",
                at(MAX_NAME + 1)
            ),
            2,
        ),
    ]
}

#[test]
fn names_over_the_bound_are_refused_or_skipped_on_every_path() {
    use crate::ingest::funcs::MAX_NAME;
    for (i, (text, line)) in long_name_cases().into_iter().enumerate() {
        let whole = Input::from_bytes("t.txt", text.into_bytes());
        let err = sequential(&whole, false);
        let want = format!("error: t.txt:{line}: expected a function name of at most 1 MiB");
        let shown: String = err.chars().take(200).collect();
        assert!(err.starts_with(&want), "case {i}: {shown}");
        assert!(err.contains(&format!("not one of {} bytes", MAX_NAME + 1)));
        assert!(
            err.len() < 300,
            "case {i}: the message shows the line's start"
        );
        let skipped = sequential(&whole, true);
        assert!(skipped.contains("skipped_lines: 1,"), "case {i}");
        for lenient in [false, true] {
            let reference = sequential(&whole, lenient);
            let contexts = contexts_sequential(&whole, lenient);
            for (threads, chunk) in [(1, 0), (1, 7), (2, 1), (3, 64), (2, 0)] {
                let got = chunked(&whole, lenient, threads, chunk);
                let what = format!("case {i} lenient {lenient} threads {threads} chunk {chunk}");
                assert!(got == reference, "{what}");
                let got = contexts_chunked(&whole, lenient, threads, chunk);
                assert!(got == contexts, "{what}: contexts");
            }
        }
    }
}
