//! The 64-byte header and the task table of a freestanding buffer
//! (docs/binary-format.md, "The freestanding buffer"), read and checked:
//! every field that decides where the slots are is checked against the
//! file's length before a slot is read, and a bad one is an error naming
//! the byte offset of the field and what was expected.

use crate::error::{Error, Result};

/// The bytes every freestanding buffer begins with.
pub(super) const MAGIC: &[u8; 8] = b"CALLTRF\0";
/// Length of the fixed header; the task table follows it.
pub(super) const HEADER: usize = 64;
/// The one version this reader reads.
const VERSION: u16 = 1;

/// `mode`: what the runtime does when the buffer is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Stops recording and counts what it drops (`CALLTRACE_MODE_STOP`).
    Stop,
    /// Overwrites the oldest slots (`CALLTRACE_MODE_RING`).
    Ring,
}

/// `clock` 3: no clock, the time of an event is its sequence number.
pub(super) const NO_CLOCK: u8 = 3;
/// `flags` bit 0: recording is on.
const RECORDING: u32 = 1;
/// `flags` bit 1: tasks past the table share one context.
const TASKS_OVERFLOWED: u32 = 1 << 1;
/// `flags` bit 2: the ring has wrapped.
const WRAPPED: u32 = 1 << 2;

/// What the header says, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Header {
    /// Pointer size of the target: 4 or 8.
    pub pointer: usize,
    /// Bytes per slot: 8 or 16.
    pub event_size: usize,
    /// Byte offset of slot 0.
    pub header_size: usize,
    pub mode: Mode,
    /// 0 user clock, 1 cycle counter, 2 SysTick, 3 none.
    pub clock: u8,
    /// Clock rate in Hz; 0 unknown.
    pub clock_hz: u32,
    pub capacity: u32,
    /// Slots written since reset or clear (saturating).
    pub count: u32,
    pub write_index: u32,
    /// Stop mode: slots not recorded (saturating).
    pub dropped: u32,
    pub task_capacity: u16,
    pub task_name_size: u16,
    pub tasks_used: u16,
    /// The context current when the header was last written.
    pub context: u16,
    pub flags: u32,
}

impl Header {
    /// Reads and checks the header of the buffer `name` (`data` is the
    /// whole file).
    pub(super) fn read(name: &str, data: &[u8]) -> Result<Header> {
        let fail = |at: usize, msg: String| Error::Input(format!("{name}: byte {at}: {msg}"));
        if data.len() < HEADER {
            return Err(fail(
                data.len(),
                format!(
                    "the file ends inside the {HEADER}-byte header of a freestanding buffer \
                     (expected at least {HEADER} bytes; cut off?)"
                ),
            ));
        }
        if &data[..8] != MAGIC {
            return Err(fail(0, "expected the magic `CALLTRF\\0`".to_string()));
        }
        let u16_at = |o: usize| u16::from_le_bytes([data[o], data[o + 1]]);
        let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().expect("4 bytes"));
        check_version(u16_at(8)).map_err(|m| fail(8, m))?;
        let h = Header {
            pointer: data[12] as usize,
            event_size: data[13] as usize,
            header_size: u16_at(10) as usize,
            mode: match data[14] {
                0 => Mode::Stop,
                1 => Mode::Ring,
                m => {
                    return Err(fail(14, format!("mode {m}; expected 0 (stop) or 1 (ring)")));
                }
            },
            clock: data[15],
            clock_hz: u32_at(16),
            capacity: u32_at(20),
            count: u32_at(24),
            write_index: u32_at(28),
            dropped: u32_at(32),
            task_capacity: u16_at(36),
            task_name_size: u16_at(38),
            tasks_used: u16_at(40),
            context: u16_at(42),
            flags: u32_at(44),
        };
        h.check().map_err(|(at, m)| fail(at, m))?;
        Ok(h)
    }

    /// The checks of the fields past the version, each with the offset of
    /// the field it is about.
    fn check(&self) -> std::result::Result<(), (usize, String)> {
        let (p, e) = (self.pointer, self.event_size);
        if p != 4 && p != 8 {
            return Err((12, format!("pointer size {p}; expected 4 or 8")));
        }
        if e != 2 * p {
            return Err((
                13,
                format!("event size {e}; expected {} for {p}-byte pointers", 2 * p),
            ));
        }
        if self.clock > NO_CLOCK {
            return Err((
                15,
                format!(
                    "clock {}; expected 0 (user), 1 (cycle counter), 2 (SysTick) or 3 (none)",
                    self.clock
                ),
            ));
        }
        let table = self.table_end();
        if self.header_size < table || !self.header_size.is_multiple_of(8) {
            return Err((
                10,
                format!(
                    "header size {}; expected a multiple of 8 of at least {table} \
                     (the 64-byte header and {} task entries of {} bytes)",
                    self.header_size,
                    self.task_capacity,
                    self.entry_size()
                ),
            ));
        }
        if self.capacity == 0 {
            return Err((20, "capacity 0; expected 1 or more event slots".to_string()));
        }
        self.check_index()?;
        if self.tasks_used > self.task_capacity {
            return Err((
                40,
                format!(
                    "{} tasks in use; expected at most the table's {}",
                    self.tasks_used, self.task_capacity
                ),
            ));
        }
        Ok(())
    }

    /// `write_index` lies in the slots: below `capacity`, or equal to it
    /// in a full stop-mode buffer.
    fn check_index(&self) -> std::result::Result<(), (usize, String)> {
        let (w, c) = (self.write_index, self.capacity);
        if w < c || (w == c && self.mode == Mode::Stop && !self.wrapped()) {
            return Ok(());
        }
        Err((
            28,
            format!("write index {w}; expected one below the capacity, {c}"),
        ))
    }

    /// Bytes of one task table entry: the pointer and the name, rounded
    /// up to a whole number of pointers.
    pub(super) fn entry_size(&self) -> usize {
        (self.pointer + self.task_name_size as usize).div_ceil(self.pointer) * self.pointer
    }

    /// Where the task table ends, rounded up to 8: the least header size.
    fn table_end(&self) -> usize {
        (HEADER + self.task_capacity as usize * self.entry_size()).div_ceil(8) * 8
    }

    /// One past the last byte of the buffer.
    pub(super) fn end(&self) -> u64 {
        self.header_size as u64 + u64::from(self.capacity) * self.event_size as u64
    }

    /// True when the ring has wrapped: the slots start at `write_index`.
    pub(super) fn wrapped(&self) -> bool {
        self.flags & WRAPPED != 0
    }

    /// True when recording was on (not paused by `calltrace_stop`).
    pub(super) fn recording(&self) -> bool {
        self.flags & RECORDING != 0
    }

    /// True when tasks past the table share context 0x7FFE.
    pub(super) fn tasks_overflowed(&self) -> bool {
        self.flags & TASKS_OVERFLOWED != 0
    }

    /// The slots holding events, oldest first.
    pub(super) fn slot_order(&self) -> impl Iterator<Item = u32> {
        let (w, c) = (self.write_index, self.capacity);
        let (first, second) = if self.wrapped() {
            (w..c, 0..w)
        } else if self.mode == Mode::Stop && w == 0 && self.count >= c {
            // A full stop-mode buffer whose index went back to 0.
            (0..c, 0..0)
        } else {
            (0..w, 0..0)
        };
        first.chain(second)
    }

    /// The name of task table entry `i` (its bytes up to the first NUL),
    /// None when empty. `data` holds the whole buffer.
    pub(super) fn task_name(&self, data: &[u8], i: u16) -> Option<String> {
        let at = HEADER + i as usize * self.entry_size() + self.pointer;
        let bytes = data.get(at..at + self.task_name_size as usize)?;
        let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        (len > 0).then(|| String::from_utf8_lossy(&bytes[..len]).into_owned())
    }
}

/// Version 1, or what is wrong with `v`: a byte-swapped 1 is a
/// big-endian target's buffer.
fn check_version(v: u16) -> std::result::Result<(), String> {
    match v {
        VERSION => Ok(()),
        0x0100 => Err(
            "version 256, which is version 1 byte-swapped: the buffer of a big-endian \
             target, which is not supported (expected a little-endian buffer)"
                .to_string(),
        ),
        v => Err(format!(
            "version {v}; expected version {VERSION} of the freestanding buffer"
        )),
    }
}
