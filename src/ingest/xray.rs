//! LLVM XRay's basic-mode logs (`xray-log.PROGRAM.XXXXXX`), written by a
//! program built with `clang -fxray-instrument` and run with
//! `XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic"`
//! (`XRAY_BASIC_OPTIONS=func_duration_threshold_us=0` keeps the short
//! calls too). The layout, little-endian, is compiler-rt's
//! `xray_records.h` as LLVM's `lib/XRay/Trace.cpp` reads it: a 32-byte
//! header (version u16, 1 to 3; log type u16, 0 for basic mode, 1 for the
//! flight data recorder, which is not read; flags u32, bit 0 constant TSC,
//! bit 1 non-stop TSC; cycle frequency u64; 16 free bytes), then 32-byte
//! records (record type u16: 0 an entry or exit, 1 the arguments of the
//! record before, skipped; CPU u8; entry type u8: 0 entry, 1 exit, 2 tail
//! exit, 3 entry with arguments; function id i32; TSC u64; thread id u32;
//! process id u32; 8 bytes of padding).
//!
//! Function ids are not addresses: they are interned as
//! [`FuncKey::Addr`](super::FuncKey::Addr)`(id)` with
//! [`TraceMeta::xray_ids`] set, and the `symbols` stage turns them into
//! the functions of the binary's `xray_instr_map`; without the binary the
//! names cannot be had, which is an error there. Times are TSC ticks,
//! converted to nanoseconds with the header's cycle frequency (a header
//! without one leaves ticks, [`Unit::Number`]). The runtime writes a
//! thread's records a buffer at a time, so threads come in blocks: the
//! reader merges them by time (ties in the order the threads first
//! appear), each thread's records in file order. That takes the events in
//! memory, 24 bytes per record of 32 in the file.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{
    BATCH, Event, EventKind, FuncTable, Input, ParseOptions, Sink, ThreadIds, TraceFormat,
    TraceMeta, Unit, skip_or_fail,
};
use crate::error::{Error, Result};

/// The format's `--format` name.
pub(crate) const NAME: &str = "xray";
/// Length of the file header and of each record.
const RECORD: usize = 32;
/// The first bytes of the logs this LLVM writes: version 3, basic mode.
const MAGIC: &[u8] = b"\x03\x00\x00\x00";
/// Log versions LLVM reads in basic mode.
const VERSIONS: std::ops::RangeInclusive<u16> = 1..=3;

/// LLVM XRay's basic-mode log.
pub(crate) struct XRayFormat;

impl TraceFormat for XRayFormat {
    fn name(&self) -> &'static str {
        NAME
    }
    fn help(&self) -> &'static str {
        "LLVM XRay basic-mode log (`xray-log.*`); give the instrumented program as BINARY"
    }
    fn magic(&self) -> Option<&'static [u8]> {
        Some(MAGIC)
    }
    fn piece(&self) -> &'static str {
        "record"
    }

    /// An XRay header: a small version and log type 0 or 1, which no text
    /// trace begins with (versions past 3 are claimed too, so that the
    /// reader can say which version it found).
    fn sniff(&self, head: &[u8]) -> bool {
        head.len() >= 4
            && (1..=9).contains(&head[0])
            && head[1] == 0
            && head[2] <= 1
            && head[3] == 0
    }

    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let data: &[u8] = input;
        let name = input.name();
        let header = Header::read(name, data)?;
        let mut meta = TraceMeta {
            format: NAME,
            xray_ids: true,
            timed: true,
            unit: header.unit(),
            ..TraceMeta::default()
        };
        let mut threads = Threads::default();
        for (i, bytes) in data[RECORD..].chunks(RECORD).enumerate() {
            let at = RECORD * (i + 1);
            match decode(bytes) {
                Ok(Some(r)) => {
                    meta.pid.get_or_insert(u64::from(r.pid));
                    threads.push(r.tid, header.nanos(r.tsc), funcs.addr(r.id), r.kind);
                }
                Ok(None) => {}
                Err(msg) => {
                    let err = Error::Input(format!("{name}: record {} (byte {at}): {msg}", i + 1));
                    skip_or_fail(&mut meta, opts, err)?;
                }
            }
        }
        if threads.events.is_empty() {
            meta.warnings.push(format!(
                "{name}: the XRay log holds no entries or exits; functions are patched only \
                 with XRAY_OPTIONS=\"patch_premain=true ...\" (or by the program calling \
                 __xray_patch), and basic mode drops calls shorter than \
                 XRAY_BASIC_OPTIONS=func_duration_threshold_us (5 by default)"
            ));
        }
        meta.threads = threads.merge_into(sink);
        Ok(meta)
    }
}

/// What the file header says.
struct Header {
    /// TSC ticks per second; 0 when unknown.
    frequency: u64,
}

impl Header {
    /// Reads and checks the header of the log `name`.
    fn read(name: &str, data: &[u8]) -> Result<Header> {
        let fail = |msg: String| Error::Input(format!("{name}: header: {msg}"));
        if data.len() < RECORD {
            return Err(fail(format!(
                "the log ends at byte {} inside its {RECORD}-byte XRay file header (cut off?)",
                data.len()
            )));
        }
        let version = u16::from_le_bytes([data[0], data[1]]);
        let kind = u16::from_le_bytes([data[2], data[3]]);
        if kind == 1 {
            return Err(fail(
                "an XRay flight data recorder log (xray_mode=xray-fdr), which is not read; \
                 record a basic-mode log (XRAY_OPTIONS=\"xray_mode=xray-basic\")"
                    .to_string(),
            ));
        }
        if kind != 0 || !VERSIONS.contains(&version) {
            return Err(fail(format!(
                "XRay log version {version} of type {kind}; expected a basic-mode log \
                 (type 0) of version 1 to 3"
            )));
        }
        let frequency = u64::from_le_bytes(data[8..16].try_into().expect("8 bytes"));
        Ok(Header { frequency })
    }

    /// Nanoseconds when the frequency is known, ticks otherwise.
    fn unit(&self) -> Unit {
        match self.frequency {
            0 => Unit::Number,
            _ => Unit::Nanos,
        }
    }

    /// `tsc` in the trace's unit.
    fn nanos(&self, tsc: u64) -> u64 {
        match self.frequency {
            0 | 1_000_000_000 => tsc,
            f => (u128::from(tsc) * 1_000_000_000 / u128::from(f)) as u64,
        }
    }
}

/// An entry or exit record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    /// The function id as an unsigned key (ids start at 1).
    id: u64,
    tsc: u64,
    tid: u32,
    pid: u32,
    kind: EventKind,
}

/// Decodes one 32-byte record: Some entry or exit, None for an arguments
/// record, or what was wrong with it.
fn decode(b: &[u8]) -> std::result::Result<Option<Record>, String> {
    if b.len() < RECORD {
        return Err(format!(
            "the log ends {} bytes into this {RECORD}-byte record (cut off?)",
            b.len()
        ));
    }
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    match u16::from_le_bytes([b[0], b[1]]) {
        0 => {}
        1 => return Ok(None),
        t => {
            return Err(format!(
                "record type {t}; expected 0 (an entry or exit) or 1 (arguments)"
            ));
        }
    }
    let kind = match b[3] {
        0 | 3 => EventKind::Enter,
        1 | 2 => EventKind::Exit,
        t => {
            return Err(format!(
                "entry type {t}; expected 0 (entry), 1 (exit), 2 (tail exit) or 3 (entry with arguments)"
            ));
        }
    };
    Ok(Some(Record {
        id: u64::from(u32_at(4)),
        tsc: u64::from_le_bytes(b[8..16].try_into().expect("8 bytes")),
        tid: u32_at(16),
        pid: u32_at(20),
        kind,
    }))
}

/// Each thread's events in file order, threads in order of first
/// appearance.
#[derive(Default)]
struct Threads {
    ids: ThreadIds,
    events: Vec<Vec<Event>>,
}

impl Threads {
    fn push(&mut self, tid: u32, time: u64, func: u32, kind: EventKind) {
        let thread = self.ids.index(u64::from(tid));
        if thread as usize == self.events.len() {
            self.events.push(Vec::new());
        }
        self.events[thread as usize].push(Event {
            time,
            func,
            thread,
            kind,
        });
    }

    /// Hands the events to `sink` merged by time, each thread's in its own
    /// order; returns the thread ids, numbered in the merged order.
    fn merge_into(self, sink: &mut dyn Sink) -> Vec<u64> {
        let tids = self.ids.into_ids();
        let mut heap: BinaryHeap<Reverse<(u64, usize, usize)>> = self
            .events
            .iter()
            .enumerate()
            .filter_map(|(t, ev)| ev.first().map(|e| Reverse((e.time, t, 0))))
            .collect();
        let mut merged = ThreadIds::default();
        let mut batch = Vec::with_capacity(BATCH);
        while let Some(Reverse((_, t, i))) = heap.pop() {
            let mut e = self.events[t][i];
            e.thread = merged.index(tids[t]);
            batch.push(e);
            if let Some(next) = self.events[t].get(i + 1) {
                heap.push(Reverse((next.time, t, i + 1)));
            }
            if batch.len() == BATCH {
                sink.events(&batch);
                batch.clear();
            }
        }
        sink.events(&batch);
        merged.into_ids()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::testing::parse;

    /// A header of `version` and `kind` with frequency `freq`.
    fn header(version: u16, kind: u16, freq: u64) -> Vec<u8> {
        let mut h = Vec::new();
        h.extend(version.to_le_bytes());
        h.extend(kind.to_le_bytes());
        h.extend(3u32.to_le_bytes());
        h.extend(freq.to_le_bytes());
        h.extend([0u8; 16]);
        h
    }

    /// A record of entry type `kind` for function `id`.
    fn record(kind: u8, id: i32, tsc: u64, tid: u32) -> Vec<u8> {
        let mut r = vec![0, 0, 1, kind];
        r.extend(id.to_le_bytes());
        r.extend(tsc.to_le_bytes());
        r.extend(tid.to_le_bytes());
        r.extend(77u32.to_le_bytes());
        r.extend([0u8; 8]);
        r
    }

    fn log(freq: u64, records: &[Vec<u8>]) -> Vec<u8> {
        let mut v = header(3, 0, freq);
        for r in records {
            v.extend(r);
        }
        v
    }

    #[test]
    fn entries_exits_and_tail_exits_become_events_in_nanoseconds() {
        // 2 GHz: 2 ticks a nanosecond.
        let bytes = log(
            2_000_000_000,
            &[
                record(0, 3, 1000, 9),
                record(3, 1, 1200, 9),
                record(2, 1, 1400, 9),
                record(1, 3, 2000, 9),
            ],
        );
        assert!(XRayFormat.sniff(&bytes));
        let (sink, meta, funcs) = parse(&XRayFormat, "xray-log.t.x", &bytes, false).unwrap();
        let kinds: Vec<_> = sink.events.iter().map(|e| (e.time, e.kind)).collect();
        use EventKind::*;
        assert_eq!(
            kinds,
            [(500, Enter), (600, Enter), (700, Exit), (1000, Exit)]
        );
        assert_eq!(
            funcs.keys()[1..],
            [
                super::super::FuncKey::Addr(3),
                super::super::FuncKey::Addr(1)
            ]
        );
        assert!(meta.xray_ids);
        assert_eq!(meta.unit, Unit::Nanos);
        assert_eq!(meta.threads, [9]);
        assert_eq!(meta.pid, Some(77));
    }

    #[test]
    fn threads_written_in_blocks_are_merged_by_time_each_in_its_order() {
        let bytes = log(
            1_000_000_000,
            &[
                record(0, 2, 50, 2),
                record(1, 2, 60, 2),
                record(0, 1, 10, 1),
                record(1, 1, 90, 1),
            ],
        );
        let (sink, meta, _) = parse(&XRayFormat, "x", &bytes, false).unwrap();
        let times: Vec<_> = sink.events.iter().map(|e| (e.time, e.thread)).collect();
        assert_eq!(times, [(10, 0), (50, 1), (60, 1), (90, 0)]);
        assert_eq!(meta.threads, [1, 2]);
    }

    #[test]
    fn argument_records_are_skipped_and_no_frequency_keeps_ticks() {
        let mut args = record(0, 1, 0, 1);
        args[0] = 1;
        let bytes = log(0, &[record(3, 1, 5, 1), args, record(1, 1, 9, 1)]);
        let (sink, meta, _) = parse(&XRayFormat, "x", &bytes, false).unwrap();
        assert_eq!(sink.events.len(), 2);
        assert_eq!(sink.events[1].time, 9);
        assert_eq!(meta.unit, Unit::Number);
    }

    #[test]
    fn bad_headers_and_records_name_the_file_and_the_record() {
        let err = |bytes: &[u8]| match parse(&XRayFormat, "log", bytes, false) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("read"),
        };
        assert!(err(&header(3, 0, 1)[..20]).contains("log: header: the log ends at byte 20"));
        let v9 = err(&header(9, 0, 1));
        assert!(v9.contains("log: header: XRay log version 9"), "{v9}");
        assert!(err(&header(3, 1, 1)).contains("flight data recorder"));
        let mut cut = log(1, &[record(0, 1, 5, 1), record(1, 1, 6, 1)]);
        cut.truncate(cut.len() - 10);
        let msg = err(&cut);
        assert!(
            msg.contains("log: record 2 (byte 64): the log ends 22 bytes into"),
            "{msg}"
        );
        let typed = err(&log(1, &[record(7, 1, 5, 1)]));
        assert!(
            typed.contains("record 1 (byte 32): entry type 7"),
            "{typed}"
        );
        let mut rt = record(0, 1, 5, 1);
        rt[0] = 4;
        assert!(err(&log(1, &[rt])).contains("record type 4"));
    }

    #[test]
    fn lenient_reads_skip_bad_records_and_count_them() {
        let mut cut = log(
            1,
            &[record(0, 1, 5, 1), record(7, 1, 6, 1), record(1, 1, 7, 1)],
        );
        cut.truncate(cut.len() - 1);
        let (sink, meta, _) = parse(&XRayFormat, "log", &cut, true).unwrap();
        assert_eq!(sink.events.len(), 1);
        assert_eq!(meta.skipped_lines, 2);
        assert!(meta.first_skipped.unwrap().contains("record 2"));
    }

    #[test]
    fn a_log_without_records_says_how_to_get_some() {
        let (sink, meta, _) = parse(&XRayFormat, "log", &header(3, 0, 1), false).unwrap();
        assert!(sink.events.is_empty());
        assert!(
            meta.warnings[0].contains("patch_premain=true"),
            "{:?}",
            meta.warnings
        );
    }

    #[test]
    fn text_traces_and_calltrace_binaries_are_not_sniffed() {
        for head in [
            &b"E0x401136 1 2\n"[..],
            b"main (1 / 2)\n",
            b"CALLTRC\0",
            b"\x03\x00",
        ] {
            assert!(!XRayFormat.sniff(head), "{head:?}");
        }
    }
}
