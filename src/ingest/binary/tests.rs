use super::decode::{varint, varint_slow};
use super::encode::{put_record, put_varint};
use super::framing::*;
use super::reader::SLOTS;
use super::ring::raw_events;
use super::*;
use crate::ingest::{Event, EventKind, EventSink, Mapping, ThreadIds};

fn parse(bytes: Vec<u8>, lenient: bool) -> Result<(Vec<Event>, TraceMeta, FuncTable)> {
    let (sink, meta, funcs) =
        crate::ingest::testing::parse(&BinaryFormat, "t.bin", &bytes, lenient)?;
    Ok((sink.events, meta, funcs))
}

fn sample() -> Vec<u8> {
    use EventKind::*;
    encode(
        0x5555_0000_0000,
        "/tmp/app",
        &[
            (
                42,
                vec![
                    (Enter, 0x5555_0000_1139, 10),
                    (Enter, 0x5555_0000_1100, 15),
                    (Exit, 0x5555_0000_1100, 20),
                ],
            ),
            (
                43,
                vec![(Enter, 0x5555_0000_1200, 12), (Exit, 0x5555_0000_1200, 30)],
            ),
            (42, vec![(Exit, 0x5555_0000_1139, 40)]),
        ],
    )
}

#[test]
fn round_trips_encoded_blocks() {
    let (ev, meta, funcs) = parse(sample(), false).unwrap();
    assert_eq!(meta.base, Some(0x5555_0000_0000));
    assert_eq!(meta.exe_path.as_deref(), Some("/tmp/app"));
    assert_eq!(meta.threads, vec![42, 43]);
    assert_eq!(ev.len(), 6);
    assert_eq!(
        funcs.key(ev[1].func),
        &crate::ingest::FuncKey::Addr(0x5555_0000_1100)
    );
    assert_eq!((ev[2].kind, ev[2].time), (EventKind::Exit, 20));
    assert_eq!((ev[3].thread, ev[3].time), (1, 12));
    assert_eq!((ev[5].thread, ev[5].time, ev[5].func), (0, 40, ev[0].func));
}

#[test]
fn truncated_trace_is_an_error_or_skipped_when_lenient() {
    let mut bytes = sample();
    bytes.truncate(bytes.len() - 2);
    let err = parse(bytes.clone(), false).unwrap_err().to_string();
    assert!(
        err.starts_with("t.bin: byte ") && err.contains("truncated"),
        "{err}"
    );
    let (ev, meta, _) = parse(bytes, true).unwrap();
    assert_eq!(ev.len(), 5, "the torn block's complete events are kept");
    assert_eq!(meta.skipped_lines, 1);
}

#[test]
fn unknown_flag_bits_are_rejected() {
    let mut bytes = sample();
    bytes[10] |= 0x02;
    let err = parse(bytes, false).unwrap_err().to_string();
    assert_eq!(
        err,
        "t.bin: byte 10: expected header flags with only bit 0 set, found 0x0003 (a newer format?)"
    );
}

#[test]
fn wrong_version_is_named() {
    let mut bytes = sample();
    bytes[8] = 9;
    let err = parse(bytes, false).unwrap_err().to_string();
    assert_eq!(
        err,
        "t.bin: byte 8: expected format version 1 to 2, found 9"
    );
}

fn maps() -> Vec<Mapping> {
    vec![
        Mapping {
            start: 0x5555_0000_1000,
            end: 0x5555_0000_2000,
            offset: 0x1000,
            path: "/tmp/app".into(),
            build_id: Some("0a1bff".into()),
        },
        Mapping {
            start: 0x7f00_0000_0000,
            end: 0x7f00_0000_0800,
            offset: 0,
            path: "/tmp/lib with space.so".into(),
            build_id: None,
        },
    ]
}

/// Blocks of `n` entry/exit pairs each, on threads 42 and 43 in turn.
fn blocks(count: u64, n: u64) -> Vec<Block> {
    (0..count)
        .map(|b| {
            let events = (0..n)
                .flat_map(|i| {
                    let addr = 0x5555_0000_1000 + (i % 5) * 0x40;
                    let t = b * 1000 + i * 10;
                    [(EventKind::Enter, addr, t), (EventKind::Exit, addr, t + 5)]
                })
                .collect();
            (42 + b % 2, events)
        })
        .collect()
}

#[test]
fn mapping_records_fill_the_meta_maps_in_order() {
    let bytes = encode_version(2, 0x5555_0000_0000, "/tmp/app", &maps(), &blocks(3, 4));
    let (ev, meta, _) = parse(bytes, false).unwrap();
    assert_eq!(meta.maps, maps());
    assert_eq!(ev.len(), 24);
}

#[test]
fn version_1_traces_still_read() {
    let v1 = encode_version(1, 0x5555_0000_0000, "/tmp/app", &[], &blocks(3, 4));
    let v2 = encode_version(2, 0x5555_0000_0000, "/tmp/app", &[], &blocks(3, 4));
    assert_eq!(u16::from_le_bytes([v1[8], v1[9]]), 1);
    assert!(
        v1.len() < v2.len(),
        "version 1 blocks have no marker or checksum"
    );
    let (ev1, meta1, _) = parse(v1, false).unwrap();
    let (ev2, meta2, _) = parse(v2, false).unwrap();
    assert_eq!(ev1, ev2);
    assert_eq!(meta1, meta2);
    assert_eq!(ev1.len(), 24);
}

/// Offsets of the records (after the header) of a version-2 trace.
fn record_starts(bytes: &[u8]) -> Vec<usize> {
    memchr::memmem::find_iter(bytes, SYNC).collect()
}

#[test]
fn a_checksum_taken_a_word_at_a_time_is_the_checksum_of_the_whole() {
    // The record checksum as docs/binary-format.md and the runtime
    // define it, written out here on its own.
    fn reference(bytes: &[u8]) -> u32 {
        let mut h = 0x9e37_79b9_7f4a_7c15u64 ^ bytes.len() as u64;
        for w in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..w.len()].copy_from_slice(w);
            h = (h ^ u64::from_le_bytes(word)).wrapping_mul(0xff51_afd7_ed55_8ccd);
            h ^= h >> 32;
        }
        (h ^ (h >> 29)) as u32
    }
    let bytes: Vec<u8> = (0..100u32).map(|i| (i * 37 + 11) as u8).collect();
    for len in 0..bytes.len() {
        let b = &bytes[..len];
        assert_eq!(checksum(b), reference(b), "{len} bytes");
        // Stepped after each of any number of events (more than the
        // words there are, too), then finished.
        for steps in 0..16 {
            let mut sum = Sum::new(b);
            (0..steps).for_each(|_| sum.step(b));
            assert_eq!(sum.rest(b), reference(b), "{len} bytes, {steps} steps");
        }
    }
}

#[test]
fn a_damaged_block_is_skipped_and_the_reader_resynchronises() {
    let good = encode(0x5555_0000_0000, "/tmp/app", &blocks(9, 50));
    let starts = record_starts(&good);
    assert_eq!(starts.len(), 9);
    for damage in [starts[3] + 40, starts[3] + 1, starts[3] + 25] {
        // In the payload, in the marker, in the payload length.
        let mut bad = good.clone();
        bad[damage] ^= 0x5a;
        let err = parse(bad.clone(), false).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("t.bin: byte {}: expected ", starts[3])),
            "{err}"
        );
        let (ev, meta, _) = parse(bad, true).unwrap();
        assert_eq!(
            ev.len(),
            8 * 100,
            "damage at {damage}: only block 3 is lost"
        );
        assert_eq!(meta.skipped_lines, 1);
        assert!(meta.first_skipped.unwrap().contains("skipped the"));
        assert_eq!(meta.threads, vec![42, 43]);
    }
}

#[test]
fn an_intact_record_of_an_unknown_kind_is_rejected_even_when_lenient() {
    let mut bytes = encode(0x5555_0000_0000, "/tmp/app", &blocks(2, 3));
    let at = record_starts(&bytes)[1];
    bytes[at + 8] = b'Z';
    let end = bytes.len();
    let sum = checksum(&bytes[at + 8..end]);
    bytes[at + 4..at + 8].copy_from_slice(&sum.to_le_bytes());
    for lenient in [false, true] {
        let err = parse(bytes.clone(), lenient).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "t.bin: byte {at}: expected a record tag `B`, `M`, `N` or `T`, found 0x5a (a newer format?)"
            )
        );
    }
}

#[test]
fn thread_names_and_dropped_counts_reach_the_meta() {
    let mut bytes = encode(0x5555_0000_0000, "/tmp/app", &blocks(2, 3));
    let mut name = vec![0u8; 4];
    name.extend_from_slice(&6u32.to_le_bytes());
    name.extend_from_slice(b"worker");
    put_record(&mut bytes, VERSION, TAG_THREAD, 43, 0, &name);
    put_record(&mut bytes, VERSION, TAG_DROPPED, 0, 0, &7u64.to_le_bytes());
    put_record(&mut bytes, VERSION, TAG_DROPPED, 0, 0, &5u64.to_le_bytes());
    let (ev, meta, _) = parse(bytes, false).unwrap();
    assert_eq!(ev.len(), 12);
    assert_eq!(meta.threads, vec![42, 43]);
    assert_eq!(meta.thread_names, vec![String::new(), "worker".to_string()]);
    assert_eq!(meta.warnings.len(), 1);
    assert!(
        meta.warnings[0].contains("dropped 12 event(s)"),
        "{:?}",
        meta.warnings
    );
}

#[test]
fn a_method_name_over_the_bound_is_refused_or_skipped() {
    use crate::ingest::FuncKey;
    use crate::ingest::funcs::MAX_NAME;
    // Payload: line, name length, name, file; name and file count.
    let method = |name_len: usize| {
        let mut p = 7u32.to_le_bytes().to_vec();
        p.extend_from_slice(&(name_len as u32).to_le_bytes());
        p.resize(8 + name_len, b'm');
        p.extend_from_slice(b"a.py");
        let mut bytes = encode(0x5555_0000_0000, "/tmp/app", &blocks(2, 3));
        let at = bytes.len();
        put_record(&mut bytes, VERSION, TAG_METHOD, 0, 5, &p);
        (bytes, at)
    };
    let (bytes, _) = method(MAX_NAME - 4);
    let (_, _, funcs) = parse(bytes, false).unwrap();
    let named = |k: &FuncKey| matches!(k, FuncKey::Name(n) if n.ends_with("@a.py:7"));
    assert!(funcs.keys().iter().any(named), "at the bound");
    let (bytes, at) = method(MAX_NAME - 3);
    let err = parse(bytes.clone(), false).unwrap_err().to_string();
    let payload = at + 28; // marker, checksum, tag, tid, count, length
    assert_eq!(
        err,
        format!(
            "t.bin: byte {payload}: expected a function name of at most 1 MiB, not one of {} bytes",
            MAX_NAME + 1
        )
    );
    let (ev, meta, funcs) = parse(bytes, true).unwrap();
    assert_eq!((ev.len(), meta.skipped_lines), (12, 1));
    assert!(!funcs.keys().iter().any(named));
}

/// Events, keys and meta (or the error) of a parse, as text.
fn outcome(bytes: &[u8], lenient: bool, threads: usize, chunk: usize) -> String {
    let input = Input::from_bytes("t.bin", bytes.to_vec());
    let opts = ParseOptions {
        lenient,
        threads,
        chunk_bytes: chunk,
        ..Default::default()
    };
    crate::ingest::testing::outcome(&BinaryFormat, &input, &opts)
}

/// [`outcome`] of reading every block in order on one thread: the reference.
fn block_by_block(bytes: &[u8], lenient: bool) -> String {
    let opts = ParseOptions {
        lenient,
        ..Default::default()
    };
    let mut funcs = FuncTable::default();
    let mut sink = crate::ingest::testing::Collect::default();
    let mut r = Records {
        data: bytes,
        pos: 0,
        name: "t.bin",
    };
    let result = r.header().and_then(|(meta, layout)| {
        let mut seq = InOrder::new(bytes, "t.bin", &opts, &mut funcs, meta, layout);
        seq.records(r.pos, bytes.len(), &mut sink)?;
        seq.pending(&mut sink);
        Ok(seq.finish())
    });
    match result {
        Ok(meta) => format!("{:?}\n{:?}\n{meta:?}", sink.events, funcs.keys()),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn parallel_decoding_matches_reading_block_by_block() {
    use EventKind::*;
    let blocks: Vec<Block> = (0..40u64)
        .map(|b| {
            let events = (0..25u64)
                .flat_map(|i| {
                    let addr = 0x5555_0000_1000 + (i * 7 + b) % 13 * 0x40;
                    [
                        (Enter, addr, b * 1000 + i * 10),
                        (Exit, addr, b * 1000 + i * 10 + 5),
                    ]
                })
                .collect();
            (40 + b % 3, events)
        })
        .collect();
    let good = encode_version(2, 0x5555_0000_0000, "/tmp/app", &maps(), &blocks);
    let mut torn = good.clone();
    torn.truncate(good.len() - 7);
    let mut bad = good.clone();
    let mid = good.len() / 2;
    bad[mid] ^= 0xff;
    for bytes in [&good, &torn, &bad] {
        for lenient in [false, true] {
            let reference = block_by_block(bytes, lenient);
            for (threads, chunk) in [(1, 1), (2, 1), (2, 100), (3, 1000), (2, 0)] {
                assert_eq!(
                    outcome(bytes, lenient, threads, chunk),
                    reference,
                    "lenient {lenient}, {threads} threads, {chunk}-byte chunks"
                );
            }
        }
    }
}

/// An 'R' payload: the five clock parameters (ns clock, timed), the
/// ring size when given, and a region holding `len`, `flushed`, thread
/// 7 and `slots` events whose raw time is 1000 + the slot.
fn raw_region(ring: Option<u64>, len: u32, flushed: u32, slots: usize) -> Vec<u8> {
    let at = 64usize;
    let mut p = Vec::new();
    for v in [at as u64, 0, 0, 0, 1] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    if let Some(r) = ring {
        p.extend_from_slice(&r.to_le_bytes());
    }
    p.resize(at, 0);
    p.extend_from_slice(&len.to_le_bytes());
    p.extend_from_slice(&[0; 4]);
    p.extend_from_slice(&flushed.to_le_bytes());
    p.extend_from_slice(&[0; 4]);
    p.extend_from_slice(&7u64.to_le_bytes());
    p.resize(at + RAW_EVENTS_AT, 0);
    for slot in 0..slots as u64 {
        let exit = slot % 2;
        p.extend_from_slice(&(0x1000 + slot).to_le_bytes());
        p.extend_from_slice(&((1000 + slot) | exit << 63).to_le_bytes());
    }
    p
}

#[test]
fn ring_times_take_the_factor_of_the_threads_last_block() {
    // A TSC trace: tsc0 100, factor 2.0 at start; the last block was
    // written with 3.0, noted in the region at 40.
    let mut p = raw_region(Some(8), 2, 0, 8);
    p[8..16].copy_from_slice(&100u64.to_le_bytes());
    p[24..32].copy_from_slice(&(2u64 << 32).to_le_bytes());
    assert_eq!(raw_times(&p), Some(vec![1800, 1802]));
    p[64 + 40..64 + 48].copy_from_slice(&(3u64 << 32).to_le_bytes());
    assert_eq!(raw_times(&p), Some(vec![2700, 2703]));
}

fn raw_times(payload: &[u8]) -> Option<Vec<u64>> {
    let (mut funcs, mut threads, mut out) = (FuncTable::default(), ThreadIds::default(), vec![]);
    raw_events(payload, &mut funcs, &mut threads, &mut out)?;
    Some(out.iter().map(|e| e.time).collect())
}

/// A version-2 trace of thread 7: its ring of 8 (events `flushed` to
/// `len` unwritten, slot k holding address 0x1000 + k), then a block of
/// ring events `from..to` marked with its sequence; `cut` bytes are
/// taken off the end (a write the process did not live to finish).
fn ring_then_block(len: u32, flushed: u32, from: u32, to: u32, cut: usize) -> Vec<u8> {
    ring_then_blocks(len, flushed, &[(from, to)], cut)
}

/// A ring of 8 (thread 7, events `flushed..len` unwritten), then blocks
/// of that thread's events `from..to`, the last `cut` bytes cut off.
fn ring_then_blocks(len: u32, flushed: u32, blocks: &[(u32, u32)], cut: usize) -> Vec<u8> {
    let mut bytes = encode(0x5555_0000_0000, "/tmp/app", &[]);
    let raw = raw_region(Some(8), len, flushed, 8);
    let at = bytes.len();
    put_record(&mut bytes, VERSION, TAG_RAW, 0, 0, &raw);
    // A ring's checksum covers its header only.
    let sum = checksum(&bytes[at + 8..at + 28]);
    bytes[at + 4..at + 8].copy_from_slice(&sum.to_le_bytes());
    for &(from, to) in blocks {
        let events: Vec<_> = (from..to)
            .map(|k| {
                let kind = [EventKind::Enter, EventKind::Exit][k as usize % 2];
                (kind, 0x1000 + u64::from(k % 8), 1000 + u64::from(k))
            })
            .collect();
        let block = encode(0x5555_0000_0000, "/tmp/app", &[(7, events)]);
        let header = encode(0x5555_0000_0000, "/tmp/app", &[]).len();
        let at = bytes.len();
        bytes.extend_from_slice(&block[header..]);
        bytes[at + 9] = FLAG_SEQ;
        bytes[at + 10..at + 12].copy_from_slice(&(from as u16).to_le_bytes());
        let sum = checksum(&bytes[at + 8..]);
        bytes[at + 4..at + 8].copy_from_slice(&sum.to_le_bytes());
    }
    bytes.truncate(bytes.len() - cut);
    bytes
}

fn addrs(events: &[Event], funcs: &FuncTable) -> Vec<u64> {
    let addr = |e: &Event| match funcs.key(e.func) {
        crate::ingest::FuncKey::Addr(a) => *a,
        other => panic!("{other:?}"),
    };
    events.iter().map(addr).collect()
}

#[test]
fn ring_events_a_block_holds_already_are_not_read_twice() {
    // Events 2..6 unwritten, says the ring; but the block of 2..4 made
    // it to the file before the process died.
    let (ev, _, funcs) = parse(ring_then_block(6, 2, 2, 4, 0), false).unwrap();
    assert_eq!(addrs(&ev, &funcs), [0x1002, 0x1003, 0x1004, 0x1005]);
    // A block written earlier, ending where the ring starts: all four
    // ring events are new.
    let (ev, _, funcs) = parse(ring_then_block(6, 2, 0, 2, 0), false).unwrap();
    assert_eq!(
        addrs(&ev, &funcs),
        [0x1000, 0x1001, 0x1002, 0x1003, 0x1004, 0x1005]
    );
}

#[test]
fn a_torn_last_block_whose_events_are_in_its_ring_is_left_out_quietly() {
    let (ev, meta, funcs) = parse(ring_then_block(6, 2, 2, 4, 3), false).unwrap();
    assert_eq!(addrs(&ev, &funcs), [0x1002, 0x1003, 0x1004, 0x1005]);
    assert_eq!(meta.skipped_lines, 0);
    // Not the ring's next events: the damage is reported as before.
    let err = parse(ring_then_block(6, 2, 0, 2, 3), false).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn blocks_written_together_and_torn_in_the_second_are_read_once_with_the_ring() {
    // Events 2..8 unwritten, says the ring; the runtime wrote the blocks
    // of 2..4 and 4..7 in one write and died during it.
    let all = [0x1002, 0x1003, 0x1004, 0x1005, 0x1006, 0x1007];
    let (ev, meta, funcs) = parse(ring_then_blocks(8, 2, &[(2, 4), (4, 7)], 3), false).unwrap();
    assert_eq!(addrs(&ev, &funcs), all);
    assert_eq!(meta.skipped_lines, 0);
    // Both made it: the ring's first five events were written after all.
    let (ev, _, funcs) = parse(ring_then_blocks(8, 2, &[(2, 4), (4, 7)], 0), false).unwrap();
    assert_eq!(addrs(&ev, &funcs), all);
    // The second one's header torn, its sequence there or not.
    let full = ring_then_blocks(8, 2, &[(2, 4), (4, 7)], 0);
    let second = full.windows(4).rposition(|w| w == SYNC).unwrap();
    for kept in 1..28 {
        let cut = full.len() - second - kept;
        let (ev, _, funcs) = parse(ring_then_blocks(8, 2, &[(2, 4), (4, 7)], cut), false)
            .unwrap_or_else(|e| panic!("{kept}: {e}"));
        assert_eq!(addrs(&ev, &funcs), all, "{kept}");
    }
    // A torn block that starts past the ring's unwritten events is damage.
    let err = parse(ring_then_blocks(8, 2, &[(2, 4), (9, 11)], 3), false).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn a_torn_header_of_a_block_whose_events_are_in_its_ring_is_left_out_quietly() {
    let full = ring_then_block(6, 2, 2, 4, 0);
    let block = full.windows(4).rposition(|w| w == SYNC).unwrap();
    for kept in 1..28 {
        let cut = full.len() - block - kept;
        let (ev, meta, funcs) = parse(ring_then_block(6, 2, 2, 4, cut), false).unwrap();
        assert_eq!(
            addrs(&ev, &funcs),
            [0x1002, 0x1003, 0x1004, 0x1005],
            "{kept}"
        );
        assert_eq!(meta.skipped_lines, 0);
        // Once its sequence is there, a header that is not the ring's
        // next block is reported as before.
        let other = parse(ring_then_block(6, 2, 0, 2, cut), false);
        if kept > 10 {
            let err = other.unwrap_err().to_string();
            assert!(err.contains("truncated"), "{kept}: {err}");
        } else {
            assert!(other.is_ok(), "{kept}");
        }
    }
    // Without unwritten ring events, a torn header is still an error.
    let mut plain = encode(0x5555_0000_0000, "/tmp/app", &[]);
    plain.extend_from_slice(&SYNC[..3]);
    let err = parse(plain, false).unwrap_err().to_string();
    assert!(err.contains("record header"), "{err}");
}

#[test]
fn a_thread_ring_gives_its_unwritten_events_in_order_across_its_end() {
    // Ring of 4: events 6, 7, 8 are in slots 2, 3 and 0.
    assert_eq!(
        raw_times(&raw_region(Some(4), 9, 6, 4)),
        Some(vec![1002, 1003, 1000])
    );
    // The counters wrap at 2^32 and still name the same slots.
    let wrapped = raw_region(Some(4), 1, u32::MAX - 1, 4);
    assert_eq!(raw_times(&wrapped), Some(vec![1002, 1003, 1000]));
    // Everything written: nothing left.
    assert_eq!(raw_times(&raw_region(Some(4), 9, 9, 4)), Some(vec![]));
    // More unwritten events than the ring holds is damage.
    assert_eq!(raw_times(&raw_region(Some(4), 9, 4, 4)), None);
}

#[test]
fn an_untimed_ring_of_8_byte_slots_gives_addresses_and_kinds() {
    use crate::ingest::FuncKey;
    // The 16-byte test region, read as 8-byte slots: slot k is the
    // k-th word after the events' start.
    let mut p = raw_region(Some(4), 9, 6, 4);
    p[32..40].copy_from_slice(&RAW_SLOTS_8.to_le_bytes());
    let events = 64 + RAW_EVENTS_AT;
    for (k, word) in [0x1000u64, 0x1001 | 1 << 63, 0x1002, 0x1003 | 1 << 63]
        .iter()
        .enumerate()
    {
        p[events + 8 * k..events + 8 * k + 8].copy_from_slice(&word.to_le_bytes());
    }
    let (mut funcs, mut threads, mut out) = (FuncTable::default(), ThreadIds::default(), vec![]);
    assert!(raw_events(&p, &mut funcs, &mut threads, &mut out).is_some());
    // Events 6, 7, 8 are in slots 2, 3 and 0; no times.
    let got: Vec<_> = out
        .iter()
        .map(|e| (funcs.key(e.func).clone(), e.kind, e.time))
        .collect();
    assert_eq!(
        got,
        vec![
            (FuncKey::Addr(0x1002), EventKind::Enter, 0),
            (FuncKey::Addr(0x1003), EventKind::Exit, 0),
            (FuncKey::Addr(0x1000), EventKind::Enter, 0),
        ]
    );
}

#[test]
fn a_buffer_without_a_ring_size_is_read_from_flushed_to_len() {
    // Older runtimes: no sixth parameter (zero padding), no wrap.
    assert_eq!(
        raw_times(&raw_region(None, 3, 1, 4)),
        Some(vec![1001, 1002])
    );
    assert_eq!(raw_times(&raw_region(None, 1, 3, 4)), Some(vec![]));
}

#[test]
fn varints_of_every_length_read_like_byte_by_byte() {
    for bits in 0..64 {
        for v in [1u64 << bits, (1u64 << bits) - 1, (1u64 << bits) | 0x55] {
            let mut bytes = Vec::new();
            put_varint(&mut bytes, v);
            let n = bytes.len();
            bytes.extend_from_slice(&[0x81, 0x82, 0x03]);
            // Everywhere from far from the end of the data to right at it.
            for end in [bytes.len(), n + 1, n] {
                let data = &bytes[..end];
                let (mut fast, mut slow) = (0, 0);
                assert_eq!(varint(data, &mut fast), Some(v), "{v:#x}");
                assert_eq!(varint_slow(data, &mut slow), Some(v), "{v:#x}");
                assert_eq!((fast, slow), (n, n), "{v:#x}");
            }
        }
    }
    // Unterminated: the same failure and position either way.
    let bytes = [0x80u8; 12];
    for end in [3, 9, 12] {
        let (mut fast, mut slow) = (0, 0);
        assert_eq!(varint(&bytes[..end], &mut fast), None);
        assert_eq!(varint_slow(&bytes[..end], &mut slow), None);
        assert_eq!(fast, slow);
    }
}

/// The calling-context tree, keys and meta of a parse, as text.
fn contexts(bytes: &[u8], threads: usize, chunk: usize) -> String {
    let input = Input::from_bytes("t.bin", bytes.to_vec());
    let opts = ParseOptions {
        threads,
        chunk_bytes: chunk,
        ..Default::default()
    };
    let mut funcs = FuncTable::default();
    let mut sink = crate::calltree::ContextsBuilder::default();
    let meta = BinaryFormat
        .parse(&input, &opts, &mut funcs, &mut sink)
        .unwrap();
    let (tree, stats) = sink.finish(&meta, &mut funcs);
    format!("{tree:?}\n{stats:?}\n{:?}\n{meta:?}", funcs.keys())
}

#[test]
fn summarised_chunks_build_the_tree_of_every_event_in_order() {
    use EventKind::*;
    // More functions than the decoder's cache has slots, nested deep
    // across blocks and chunk borders.
    let mut blocks: Vec<Block> = Vec::new();
    let (mut t, mut open) = (0u64, Vec::new());
    for b in 0..60u64 {
        let mut events = Vec::new();
        for i in 0..60u64 {
            t += 3;
            let addr = 0x5555_0000_0000 + ((b * 61 + i * 17) % 3000) * 0x10;
            if open.len() < 8 && (i + b) % 3 != 0 {
                events.push((Enter, addr, t));
                open.push(addr);
            } else if let Some(a) = open.pop() {
                events.push((Exit, a, t));
            }
        }
        blocks.push((77, events));
    }
    let bytes = encode(0x5555_0000_0000, "/tmp/app", &blocks);
    // The reference: every event fed in order.
    let (collect, meta, mut funcs) =
        crate::ingest::testing::parse(&BinaryFormat, "t.bin", &bytes, false).unwrap();
    let mut sink = crate::calltree::ContextsBuilder::default();
    sink.events(&collect.events);
    let (tree, stats) = sink.finish(&meta, &mut funcs);
    let reference = format!("{tree:?}\n{stats:?}\n{:?}\n{meta:?}", funcs.keys());
    assert!(funcs.keys().len() > SLOTS, "{}", funcs.keys().len());
    for threads in 1..=4 {
        for chunk in [1, 300, 5000, 0] {
            let got = contexts(&bytes, threads, chunk);
            assert_eq!(got, reference, "{threads} threads, {chunk}-byte chunks");
        }
    }
}
