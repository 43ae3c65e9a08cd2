//! Fuzzing every parser, bounded in time: proptest feeds each trace format
//! (address E/X, symbolic E/X, indented, binary, XRay, freestanding) and the module-table
//! reader with random bytes and with lines shaped like their grammar
//! (near misses included), through format sniffing and both tree
//! builders, on one thread and on two threads with tiny chunks. Nothing may
//! panic, and one and two threads must agree exactly (same tree or same
//! error). A few hundred cases per parser keep the whole file to seconds.

use calltrace::ModuleTable;
use calltrace::calltree::{self, View};
use calltrace::ingest::{EventKind, Input, ParseOptions, binary, guess};
use proptest::prelude::*;

const CASES: u32 = 200;

/// Parses `bytes` with every format that takes it (sniffed or forced),
/// both views, strict and lenient; one thread and two must agree.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let input = Input::from_bytes("fuzz", bytes.to_vec());
    for forced in [
        None,
        Some("addr"),
        Some("symbolic"),
        Some("indented"),
        Some("binary"),
        Some("xray"),
        Some("freestanding"),
    ] {
        let Ok(format) = guess::detect(&input, forced) else {
            continue;
        };
        for view in [View::Calls, View::Contexts] {
            for lenient in [false, true] {
                let outcome = |threads, chunk_bytes| {
                    let opts = ParseOptions {
                        lenient,
                        threads,
                        chunk_bytes,
                        ..Default::default()
                    };
                    match calltree::build(&input, format, &opts, view) {
                        Ok(b) => format!("{:?} {:?} {:?}", b.tree, b.funcs, b.repairs),
                        Err(e) => format!("error: {e}"),
                    }
                };
                let one = outcome(1, 0);
                prop_assert_eq!(
                    &one,
                    &outcome(2, 7),
                    "{:?} {:?} lenient {}",
                    forced,
                    view,
                    lenient
                );
            }
        }
    }
    Ok(())
}

/// Text lines joined with `\n` or `\r\n`.
fn lines(line: impl Strategy<Value = String>) -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(line, 0..30), any::<bool>())
        .prop_map(|(lines, crlf)| lines.join(if crlf { "\r\n" } else { "\n" }).into_bytes())
}

fn addr_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[EX]0x[0-9a-f]{1,3}",
        "[EX]0x[0-9a-f]{1,3} [0-9]{1,4} [1-3]",
        "[EX] ?0x[0-9a-fA-F]{0,18}( [0-9]{0,21}){0,3}",
        "# base 0x[0-9a-f]{1,8}( /[a-z]{1,4})?",
        "#[ -~]{0,10}",
        "",
        "[EX]?[ -~]{0,12}",
    ]
}

fn symbolic_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[EX] [a-c]",
        "[EX] [a-c] [0-9]{1,4}( [1-3])?",
        "[EX] [a-z#\\\\()]{1,4}( [0-9]{0,21}){0,3}",
        "[EX] \\PC{0,6}",
    ]
}

fn indented_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "( {0,3}|\t){0,3}[a-c] \\([0-9]{1,3} / [0-9]{1,3}\\)( x[0-9]{1,2})?",
        "( {0,3}|\t){0,3}(\\PC|[\\\\#x ]){1,6} \\([0-9.]{1,5} / [0-9.]{0,5}\\)( x[0-9]{0,21})?",
        "\\[thread [0-9]{1,2}\\] \\([0-9] / [0-9]\\)",
        " *\\\\(x[0-9a-f]{0,2}|u\\{[0-9a-f]{0,7}\\}?|#|\\\\)? \\(1 / 1\\)",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&bytes)?;
    }

    #[test]
    fn address_traces(bytes in lines(addr_line())) {
        check(&bytes)?;
    }

    #[test]
    fn symbolic_traces(bytes in lines(symbolic_line())) {
        check(&bytes)?;
    }

    #[test]
    fn indented_traces(bytes in lines(indented_line())) {
        check(&bytes)?;
    }

    #[test]
    fn xray_logs(
        records in prop::collection::vec((0u16..3, 0u8..5, 0i32..4, 0u64..100, 1u32..3), 0..20),
        cut in 0usize..40,
    ) {
        // A version 3 basic-mode header at 1 GHz, then records of near-valid fields.
        let mut bytes = vec![3, 0, 0, 0, 3, 0, 0, 0];
        bytes.extend(1_000_000_000u64.to_le_bytes());
        bytes.extend([0u8; 16]);
        for (record, kind, id, tsc, tid) in records {
            bytes.extend(record.to_le_bytes());
            bytes.extend([0, kind]);
            bytes.extend(id.to_le_bytes());
            bytes.extend(tsc.to_le_bytes());
            bytes.extend(tid.to_le_bytes());
            bytes.extend([0u8; 12]);
        }
        bytes.truncate(bytes.len().saturating_sub(cut));
        check(&bytes)?;
    }

    #[test]
    fn binary_traces(tail in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&[&binary::MAGIC[..], &tail].concat())?;
    }

    #[test]
    fn damaged_binary_traces(
        blocks in prop::collection::vec(
            (0u64..3, prop::collection::vec((any::<bool>(), 0x1000u64..0x1010, 0u64..50), 0..12)),
            0..5,
        ),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut in any::<prop::sample::Index>(),
    ) {
        // A well-formed trace (times made increasing), then damaged: a few
        // bytes overwritten and maybe cut short.
        let blocks: Vec<binary::Block> = blocks
            .into_iter()
            .map(|(tid, evs)| {
                let mut t = 0;
                let evs = evs
                    .into_iter()
                    .map(|(exit, addr, dt)| {
                        t += dt;
                        let kind = if exit { EventKind::Exit } else { EventKind::Enter };
                        (kind, addr, t)
                    })
                    .collect();
                (tid, evs)
            })
            .collect();
        let mut bytes = binary::encode(0, "/tmp/app", &blocks);
        check(&bytes)?;
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        check(&bytes)?;
    }

    #[test]
    fn freestanding_buffers(
        slots in prop::collection::vec((0u8..6, 0u64..4, any::<u32>()), 0..40),
        (wide, ring) in (any::<bool>(), any::<bool>()),
        flips in prop::collection::vec((0usize..64, any::<u8>()), 0..3),
        cut in any::<prop::sample::Index>(),
    ) {
        // Entries, exits and context switches (to main, a task, an
        // exception, or past the task table) of a few functions, then a
        // damaged header and maybe a cut.
        let mut b = super::freestanding_read::Buf {
            pointer: if wide { 8 } else { 4 },
            mode: u8::from(ring),
            capacity: 16,
            tasks: vec!["a", "b"],
            ..Default::default()
        };
        for (what, f, t) in slots {
            let addr = 0x1000 + 0x40 * f;
            match what {
                0 | 1 => drop(b.enter(addr, t)),
                2 | 3 => drop(b.exit(addr, t)),
                4 => drop(b.switch(0x7FFF, [0, 1, 0x7FFF, 0x800F, 9][t as usize % 5])),
                _ => b.slots.push((!0xF | u64::from(t & 0xF), t)),
            }
        }
        let mut bytes = b.bytes();
        check(&bytes)?;
        for (at, v) in flips {
            bytes[at] = v;
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        check(&bytes)?;
    }

    #[test]
    fn module_tables(text in "([a-z*?\"\\\\, ]{0,8}(,[a-z\" ]{0,4}){0,2}\r?\n){0,8}") {
        // Only errors, never a panic; a good table names every line it read.
        let _ = ModuleTable::parse("m.csv", &text);
    }
}
