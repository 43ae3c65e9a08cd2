//! Buffers written by a small encoder of the contract
//! (docs/binary-format.md), read back field by field.

use super::*;
use crate::ingest::testing::parse;
use crate::ingest::{EventKind, FuncKey, Unit};

/// A buffer as the runtime would leave it; [`Buf::bytes`] lays it out.
#[derive(Clone)]
struct Buf {
    pointer: usize,
    mode: u8,
    clock: u8,
    clock_hz: u32,
    capacity: u32,
    count: Option<u32>,
    write_index: Option<u32>,
    dropped: u32,
    task_capacity: u16,
    task_name_size: u16,
    tasks: Vec<(u64, &'static str)>,
    context: u16,
    flags: u32,
    /// (word0, word1) of slots 0.., in slot order.
    slots: Vec<(u64, u32)>,
}

impl Default for Buf {
    fn default() -> Buf {
        Buf {
            pointer: 4,
            mode: 0,
            clock: 1,
            clock_hz: 0,
            capacity: 16,
            count: None,
            write_index: None,
            dropped: 0,
            task_capacity: 2,
            task_name_size: 8,
            tasks: Vec::new(),
            context: 0x7FFF,
            flags: 1,
            slots: Vec::new(),
        }
    }
}

fn enter(addr: u64, t: u32) -> (u64, u32) {
    (addr, t)
}
fn exit(addr: u64, t: u32) -> (u64, u32) {
    (addr | 1, t)
}
fn switch(p: usize, from: u16, to: u16) -> (u64, u32) {
    let ones = if p == 4 { 0xFFFF_FFFF } else { u64::MAX };
    (ones & !0xF | 0xE, (u32::from(from) << 16) | u32::from(to))
}

impl Buf {
    fn entry_size(&self) -> usize {
        (self.pointer + self.task_name_size as usize).div_ceil(self.pointer) * self.pointer
    }

    fn header_size(&self) -> usize {
        (64 + self.task_capacity as usize * self.entry_size()).div_ceil(8) * 8
    }

    fn bytes(&self) -> Vec<u8> {
        let p = self.pointer;
        let n = self.slots.len() as u32;
        let mut b = b"CALLTRF\0".to_vec();
        b.extend(1u16.to_le_bytes());
        b.extend((self.header_size() as u16).to_le_bytes());
        b.extend([p as u8, 2 * p as u8, self.mode, self.clock]);
        for v in [
            self.clock_hz,
            self.capacity,
            self.count.unwrap_or(n),
            self.write_index.unwrap_or(n % self.capacity),
            self.dropped,
        ] {
            b.extend(v.to_le_bytes());
        }
        for v in [
            self.task_capacity,
            self.task_name_size,
            self.tasks.len() as u16,
            self.context,
        ] {
            b.extend(v.to_le_bytes());
        }
        b.extend(self.flags.to_le_bytes());
        b.extend(0x2000_0000u32.to_le_bytes());
        b.resize(64, 0);
        for (i, (task, name)) in self.tasks.iter().enumerate() {
            let at = 64 + i * self.entry_size();
            b.resize(at, 0);
            b.extend(&task.to_le_bytes()[..p]);
            let mut name = name.as_bytes().to_vec();
            name.truncate(self.task_name_size as usize - 1);
            b.extend(name);
        }
        b.resize(self.header_size(), 0);
        let mut slots = vec![0u8; self.capacity as usize * 2 * p];
        for (i, (w0, w1)) in self.slots.iter().enumerate() {
            let s = &mut slots[(i % self.capacity as usize) * 2 * p..][..2 * p];
            s[..p].copy_from_slice(&w0.to_le_bytes()[..p]);
            s[p..p + 4].copy_from_slice(&w1.to_le_bytes());
        }
        b.extend(slots);
        b
    }
}

fn read(b: &Buf) -> (Vec<Event>, TraceMeta, FuncTable) {
    read_with(b, None)
}

fn read_with(b: &Buf, hz: Option<u64>) -> (Vec<Event>, TraceMeta, FuncTable) {
    let input = Input::from_bytes("fw.bin", b.bytes());
    let mut funcs = FuncTable::default();
    let mut sink = crate::ingest::testing::Collect::default();
    let opts = ParseOptions {
        clock_hz: hz,
        ..Default::default()
    };
    let meta = FreestandingFormat
        .parse(&input, &opts, &mut funcs, &mut sink)
        .expect("reads");
    (sink.events, meta, funcs)
}

fn error(bytes: &[u8]) -> String {
    match parse(&FreestandingFormat, "fw.bin", bytes, false) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("read"),
    }
}

/// (address, kind, time, thread) of each event.
fn shape(events: &[Event], funcs: &FuncTable) -> Vec<(u64, EventKind, u64, u32)> {
    events
        .iter()
        .map(|e| match funcs.key(e.func) {
            FuncKey::Addr(a) => (*a, e.kind, e.time, e.thread),
            k => panic!("{k:?}"),
        })
        .collect()
}

#[test]
fn entries_and_exits_of_a_32_bit_buffer_are_read_in_cycles() {
    let b = Buf {
        slots: vec![
            enter(0x100, 10),
            enter(0x200, 15),
            exit(0x200, 40),
            exit(0x100, 41),
        ],
        ..Buf::default()
    };
    assert!(FreestandingFormat.sniff(&b.bytes()));
    let (events, meta, funcs) = read(&b);
    use EventKind::*;
    assert_eq!(
        shape(&events, &funcs),
        [
            (0x100, Enter, 10, 0),
            (0x200, Enter, 15, 0),
            (0x200, Exit, 40, 0),
            (0x100, Exit, 41, 0)
        ]
    );
    assert_eq!(meta.unit, Unit::Cycles);
    assert!(meta.timed);
    assert_eq!(meta.threads, [0]);
    assert_eq!(meta.thread_names, ["main"]);
    assert!(meta.warnings.is_empty(), "{:?}", meta.warnings);
}

#[test]
fn a_64_bit_buffer_reads_like_a_32_bit_one() {
    let slots = vec![enter(0x5555_0000_1000, 7), exit(0x5555_0000_1000, 9)];
    let b = Buf {
        pointer: 8,
        slots: slots.clone(),
        ..Buf::default()
    };
    let (events, _, funcs) = read(&b);
    use EventKind::*;
    assert_eq!(
        shape(&events, &funcs),
        [
            (0x5555_0000_1000, Enter, 7, 0),
            (0x5555_0000_1000, Exit, 9, 0)
        ]
    );
    // The same events in a 32-bit buffer, at 32-bit addresses.
    let narrow = Buf {
        slots: vec![enter(0x1000, 7), exit(0x1000, 9)],
        ..Buf::default()
    };
    let (events32, _, _) = read(&narrow);
    let kinds = |e: &[Event]| e.iter().map(|e| (e.kind, e.time)).collect::<Vec<_>>();
    assert_eq!(kinds(&events), kinds(&events32));
}

#[test]
fn the_clock_rate_of_the_header_or_of_the_flag_makes_nanoseconds() {
    let slots = vec![enter(0x100, 0), exit(0x100, 72)];
    let b = Buf {
        clock_hz: 72_000_000,
        slots,
        ..Buf::default()
    };
    let (events, meta, _) = read(&b);
    assert_eq!(meta.unit, Unit::Nanos);
    assert_eq!(events[1].time, 1000);
    // --clock-hz overrides the header's rate.
    let (events, meta, _) = read_with(&b, Some(8_000_000));
    assert_eq!(meta.unit, Unit::Nanos);
    assert_eq!(events[1].time, 9000);
    let cycles = Buf {
        clock_hz: 0,
        ..b.clone()
    };
    let (events, meta, _) = read_with(&cycles, Some(36_000_000));
    assert_eq!((meta.unit, events[1].time), (Unit::Nanos, 2000));
}

#[test]
fn the_32_bit_clock_is_unwrapped() {
    let b = Buf {
        slots: vec![
            enter(0x100, 0xFFFF_FFF0),
            enter(0x200, 0x10),
            exit(0x200, 0x20),
            exit(0x100, 0xFFFF_FFF0),
            enter(0x100, 0x5),
            exit(0x100, 0x6),
        ],
        ..Buf::default()
    };
    let (events, _, _) = read(&b);
    let times: Vec<u64> = events.iter().map(|e| e.time).collect();
    let base = 0xFFFF_FFF0u64;
    assert_eq!(
        times,
        [
            base,
            base + 0x20,
            base + 0x30,
            base + 0x1_0000_0000,
            base + 0x1_0000_0015,
            base + 0x1_0000_0016
        ]
    );
}

#[test]
fn a_buffer_without_a_clock_is_untimed() {
    let b = Buf {
        clock: 3,
        slots: vec![enter(0x100, 0), exit(0x100, 1)],
        ..Buf::default()
    };
    let (events, meta, _) = read_with(&b, Some(1000));
    assert!(!meta.timed);
    assert_eq!(meta.unit, Unit::Calls);
    assert!(events.iter().all(|e| e.time == 0));
    assert!(
        meta.warnings[0].contains("--clock-hz is ignored"),
        "{:?}",
        meta.warnings
    );
}

#[test]
fn tasks_main_and_exceptions_are_threads_named_as_the_buffer_says() {
    let b = Buf {
        task_capacity: 3,
        tasks: vec![(0x2000_0100, "sensor"), (0x2000_0200, "a-long-task-name")],
        slots: vec![
            enter(0x100, 1),
            switch(4, 0x7FFF, 0),
            enter(0x200, 2),
            switch(4, 0, 0x800F),
            enter(0x300, 3),
            enter(0x310, 4),
            exit(0x310, 5),
            exit(0x300, 6),
            switch(4, 0x800F, 1),
            enter(0x400, 7),
            switch(4, 1, 0x8010),
            exit(0x500, 8),
            switch(4, 0x8010, 2),
            exit(0x600, 9),
            switch(4, 2, 0x7FFE),
            enter(0x700, 10),
        ],
        capacity: 16,
        ..Buf::default()
    };
    let (events, meta, funcs) = read(&b);
    assert_eq!(events.len(), 10);
    assert_eq!(meta.threads, [0, 1, 0x800F, 2, 0x8010, 3, 0x7FFF]);
    assert_eq!(
        meta.thread_names,
        [
            "main",
            "sensor",
            "exception 15",
            "a-long-",
            "exception 16",
            "task 2",
            "other tasks"
        ]
    );
    // Exception 15 is named by its first entry; 16 entered nothing.
    let handler = funcs.keys().iter().position(|k| *k == FuncKey::Addr(0x300));
    assert_eq!(meta.entry_named, [(2, handler.unwrap() as u32)]);
    let mut named = meta.clone();
    named.name_threads_by_entry(|f| (f == handler.unwrap() as u32).then_some("SysTick_Handler"));
    assert_eq!(named.thread_names[2], "SysTick_Handler");
    let mut hex = meta.clone();
    hex.name_threads_by_entry(|_| Some("0x300"));
    assert_eq!(hex.thread_names[2], "exception 15");
}

#[test]
fn events_before_the_first_switch_belong_to_its_from_else_to_the_headers_context() {
    let b = Buf {
        tasks: vec![(1, "idle"), (2, "net")],
        context: 1,
        slots: vec![enter(0x100, 1), switch(4, 0, 1), enter(0x200, 2)],
        ..Buf::default()
    };
    let (_, meta, _) = read(&b);
    assert_eq!(meta.thread_names, ["idle", "net"]);
    let none = Buf {
        slots: vec![enter(0x100, 1)],
        ..b
    };
    let (_, meta, _) = read(&none);
    assert_eq!(meta.thread_names, ["net"]);
}

#[test]
fn a_wrapped_ring_is_read_from_the_write_index_and_says_so() {
    // 7 events into 4 slots: slots hold events 3..7 (the last 4).
    let all = [
        enter(0x100, 1),
        enter(0x200, 2),
        exit(0x200, 3),
        enter(0x300, 4),
        exit(0x300, 5),
        exit(0x100, 6),
        enter(0x400, 7),
    ];
    let b = Buf {
        mode: 1,
        capacity: 4,
        flags: 1 | 4,
        slots: all.to_vec(),
        ..Buf::default()
    };
    let (events, meta, _) = read(&b);
    let times: Vec<u64> = events.iter().map(|e| e.time).collect();
    assert_eq!(times, [4, 5, 6, 7]);
    assert!(
        meta.warnings[0].contains("the ring wrapped: it holds the last 4 of 7 slots written"),
        "{:?}",
        meta.warnings
    );
}

#[test]
fn a_full_stop_buffer_says_how_many_events_it_dropped() {
    let full = |write_index| Buf {
        capacity: 2,
        dropped: 5,
        write_index: Some(write_index),
        slots: vec![enter(0x100, 1), enter(0x200, 2)],
        ..Buf::default()
    };
    // The runtime's index goes back to 0 and it sets the wrapped flag;
    // an index at the capacity reads the same.
    for (w, flags) in [(0, 1 | 4), (0, 1), (2, 1)] {
        let (events, meta, _) = read(&Buf { flags, ..full(w) });
        assert_eq!(events.len(), 2, "write index {w}");
        assert_eq!(meta.warnings.len(), 1, "{:?}", meta.warnings);
        assert!(meta.warnings[0].contains("5 event(s) were dropped"));
        assert!(meta.warnings[0].contains("CALLTRACE_EVENTS"));
    }
}

#[test]
fn an_empty_buffer_says_so_and_whether_recording_was_on() {
    let (events, meta, _) = read(&Buf::default());
    assert!(events.is_empty() && meta.threads.is_empty());
    assert!(
        meta.warnings[0].contains("the buffer holds no events"),
        "{:?}",
        meta.warnings
    );
    assert!(
        meta.warnings[0].ends_with("recording is on"),
        "{:?}",
        meta.warnings
    );
    let (_, meta, _) = read(&Buf {
        flags: 0,
        ..Buf::default()
    });
    assert!(meta.warnings[0].ends_with("recording is off (calltrace_stop)"));
}

#[test]
fn tasks_past_the_table_and_bytes_past_the_buffer_are_reported() {
    let b = Buf {
        flags: 1 | 2,
        slots: vec![enter(0x100, 1)],
        ..Buf::default()
    };
    let mut bytes = b.bytes();
    bytes.extend([0u8; 5]);
    let (_, meta, _) = parse(&FreestandingFormat, "fw.bin", &bytes, false).unwrap();
    assert!(meta.warnings[0].contains("the task table's 2 entries (CALLTRACE_TASKS)"));
    assert!(meta.warnings[1].contains("5 byte(s) after the buffer's last slot"));
}

#[test]
fn bad_headers_name_the_field_and_what_was_expected() {
    let good = Buf {
        slots: vec![enter(0x100, 1)],
        ..Buf::default()
    }
    .bytes();
    let with = |at: usize, v: &[u8]| {
        let mut b = good.clone();
        b[at..at + v.len()].copy_from_slice(v);
        error(&b)
    };
    assert!(
        error(&good[..40]).contains("fw.bin: byte 40: the file ends inside the 64-byte header")
    );
    let swapped = with(8, &[0, 1]);
    assert!(swapped.contains("fw.bin: byte 8: version 256") && swapped.contains("big-endian"));
    assert!(with(8, &[2, 0]).contains("byte 8: version 2; expected version 1"));
    assert!(
        with(10, &[64, 0])
            .contains("byte 10: header size 64; expected a multiple of 8 of at least 88")
    );
    assert!(with(12, &[2]).contains("byte 12: pointer size 2"));
    assert!(with(13, &[16]).contains("byte 13: event size 16; expected 8"));
    assert!(with(14, &[7]).contains("byte 14: mode 7"));
    assert!(with(15, &[4]).contains("byte 15: clock 4"));
    assert!(with(20, &[0, 0, 0, 0]).contains("byte 20: capacity 0"));
    assert!(
        with(28, &[17, 0, 0, 0])
            .contains("byte 28: write index 17; expected one below the capacity, 16")
    );
    assert!(with(40, &[3, 0]).contains("byte 40: 3 tasks in use; expected at most the table's 2"));
    let cut = error(&good[..good.len() - 9]);
    assert!(
        cut.contains("fw.bin: byte 207: the file ends inside slot 14; expected 216 bytes"),
        "{cut}"
    );
    assert!(error(&good[..70]).contains("inside the header and task table"));
}

#[test]
fn bad_slots_name_the_slot_and_lenient_reads_skip_them() {
    let b = Buf {
        slots: vec![
            enter(0x100, 1),
            (0xFFFF_FFF3, 0),
            switch(4, 0x7FFF, 9),
            exit(0x100, 2),
        ],
        ..Buf::default()
    };
    let msg = error(&b.bytes());
    assert!(
        msg.contains("fw.bin: slot 1 (byte 96): a special record of type 0x3"),
        "{msg}"
    );
    let (sink, meta, _) = parse(&FreestandingFormat, "fw.bin", &b.bytes(), true).unwrap();
    assert_eq!(sink.events.len(), 2);
    assert_eq!(meta.skipped_lines, 2);
    let wrong = Buf {
        slots: vec![switch(4, 0x7FFF, 9)],
        ..Buf::default()
    };
    assert!(
        error(&wrong.bytes())
            .contains("slot 0 (byte 88): context 0x9; expected a task table entry below 2")
    );
}
