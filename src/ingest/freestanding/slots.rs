//! The event slots of a freestanding buffer: each decoded into a function
//! entry or exit or a context switch, the 32-bit clock unwrapped into a
//! time, and each context (a task, `main`, an exception) made a thread
//! with the name the buffer gives it.

use super::header::{Header, NO_CLOCK};
use crate::ingest::{EventKind, FuncId, ThreadIds, Unit};

/// Context of tasks past the task table.
pub(super) const OTHER_TASKS: u16 = 0x7FFE;
/// Context of thread mode before any task switch.
pub(super) const MAIN: u16 = 0x7FFF;
/// Bit of an exception's context (`0x8000 | n`).
const EXCEPTION: u16 = 0x8000;
/// Special record type of a context switch.
const SWITCH: u64 = 0xE;

/// One decoded slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// A function entry or exit at `addr` (the Thumb bit dropped), at
    /// the low 32 bits `clock` of the clock.
    Func {
        addr: u64,
        kind: EventKind,
        clock: u32,
    },
    /// The following events belong to context `to`.
    Switch { from: u16, to: u16 },
}

/// Decodes the slot `b` of a buffer with `pointer`-byte words, or says
/// what it holds instead.
pub(super) fn decode(b: &[u8], pointer: usize) -> Result<Slot, String> {
    let mut w = [0u8; 8];
    w[..pointer].copy_from_slice(&b[..pointer]);
    let word0 = u64::from_le_bytes(w);
    let word1 = u32::from_le_bytes(b[pointer..pointer + 4].try_into().expect("4 bytes"));
    let ones = match pointer {
        4 => u64::from(u32::MAX),
        _ => u64::MAX,
    };
    if word0 | 0xF != ones {
        let kind = match word0 & 1 {
            0 => EventKind::Enter,
            _ => EventKind::Exit,
        };
        return Ok(Slot::Func {
            addr: word0 & !1,
            kind,
            clock: word1,
        });
    }
    match word0 & 0xF {
        SWITCH => Ok(Slot::Switch {
            from: (word1 >> 16) as u16,
            to: word1 as u16,
        }),
        t => Err(format!(
            "a special record of type {t:#x}; expected a function entry or exit, \
             or a context switch (type 0xe)"
        )),
    }
}

/// What is wrong with context `c` in a buffer whose task table has
/// `tasks` entries, if anything.
pub(super) fn check_context(c: u16, tasks: u16) -> Result<(), String> {
    if c < tasks || c >= OTHER_TASKS {
        return Ok(());
    }
    Err(format!(
        "context {c:#x}; expected a task table entry below {tasks}, 0x7ffe (other tasks), \
         0x7fff (main) or 0x8000|n (exception n)"
    ))
}

/// The thread id the reader gives context `c`: main 0, task entry i
/// i + 1, other tasks 0x7FFF, exception n 0x8000|n.
pub(super) fn thread_id(c: u16) -> u64 {
    match c {
        MAIN => 0,
        c if c & EXCEPTION != 0 => u64::from(c),
        c => u64::from(c) + 1,
    }
}

/// The threads of the buffer's contexts, in order of first event, with
/// their names; an exception's thread waits for the function of its
/// first entry to be named.
#[derive(Default)]
pub(super) struct Threads {
    ids: ThreadIds,
    /// The name of each thread, by index.
    pub names: Vec<String>,
    /// Exception threads (by index) and the function of their first entry.
    pub entries: Vec<(u32, FuncId)>,
    /// Exception threads that have no first entry yet.
    waiting: Vec<u32>,
}

impl Threads {
    /// The index of context `c`'s thread, named from the header and the
    /// task table in `data` when new.
    pub(super) fn index(&mut self, c: u16, h: &Header, data: &[u8]) -> u32 {
        let i = self.ids.index(thread_id(c));
        if i as usize == self.names.len() {
            self.names.push(name_of(c, h, data));
            if c & EXCEPTION != 0 {
                self.waiting.push(i);
            }
        }
        i
    }

    /// Notes an entry of `func` on thread `i`: the first one names an
    /// exception's thread.
    pub(super) fn entered(&mut self, i: u32, func: FuncId) {
        if let Some(at) = self.waiting.iter().position(|&t| t == i) {
            self.waiting.swap_remove(at);
            self.entries.push((i, func));
        }
    }

    /// The thread ids in order of first appearance.
    pub(super) fn into_ids(self) -> (Vec<u64>, Vec<String>, Vec<(u32, FuncId)>) {
        let mut entries = self.entries;
        entries.sort_unstable();
        (self.ids.into_ids(), self.names, entries)
    }
}

/// The name of context `c`'s thread, before any function names it.
fn name_of(c: u16, h: &Header, data: &[u8]) -> String {
    match c {
        MAIN => "main".to_string(),
        OTHER_TASKS => "other tasks".to_string(),
        c if c & EXCEPTION != 0 => format!("exception {}", c & !EXCEPTION),
        c => h.task_name(data, c).unwrap_or_else(|| format!("task {c}")),
    }
}

/// The 32-bit clock unwrapped and turned into the trace's unit.
pub(super) struct Clock {
    /// Hz to convert cycles to nanoseconds; None keeps cycles.
    hz: Option<u64>,
    /// No clock (header clock 3): every time is 0.
    untimed: bool,
    /// Cycles since the clock's 0, unwrapped.
    cycles: u64,
    /// The last low 32 bits seen.
    last: Option<u32>,
}

impl Clock {
    /// The clock of `h`, at `hz` when given (`--clock-hz`), else at the
    /// buffer's rate when it records one.
    pub(super) fn new(h: &Header, hz: Option<u64>) -> Clock {
        let recorded = (h.clock_hz != 0).then_some(u64::from(h.clock_hz));
        Clock {
            hz: hz.or(recorded),
            untimed: h.clock == NO_CLOCK,
            cycles: 0,
            last: None,
        }
    }

    /// True when events have times.
    pub(super) fn timed(&self) -> bool {
        !self.untimed
    }

    /// What times count: nanoseconds at a known rate, else cycles; calls
    /// when untimed.
    pub(super) fn unit(&self) -> Unit {
        match (self.untimed, self.hz) {
            (true, _) => Unit::Calls,
            (false, Some(_)) => Unit::Nanos,
            (false, None) => Unit::Cycles,
        }
    }

    /// The time of an event whose clock reads `low`: the clock advances by
    /// `low - last` modulo 2^32 from the event before.
    pub(super) fn time(&mut self, low: u32) -> u64 {
        if self.untimed {
            return 0;
        }
        self.cycles = match self.last {
            None => u64::from(low),
            Some(last) => self.cycles + u64::from(low.wrapping_sub(last)),
        };
        self.last = Some(low);
        match self.hz {
            None | Some(1_000_000_000) => self.cycles,
            Some(hz) => (u128::from(self.cycles) * 1_000_000_000 / u128::from(hz)) as u64,
        }
    }
}
