//! A small decoder of the freestanding buffer format (docs/binary-format.md,
//! "The freestanding buffer format"), written from the specification alone,
//! so that the runtime's tests do not depend on calltrace's own reader: the
//! header, the task table, and the slots in order with contexts and
//! unwrapped times.

use std::collections::BTreeMap;

/// The header's fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub version: u16,
    pub header_size: u16,
    pub pointer_size: u8,
    pub event_size: u8,
    pub mode: u8,
    pub clock: u8,
    pub clock_hz: u32,
    pub capacity: u32,
    pub count: u32,
    pub write_index: u32,
    pub dropped: u32,
    pub task_capacity: u16,
    pub task_name_size: u16,
    pub tasks_used: u16,
    pub context: u16,
    pub flags: u32,
    pub buffer_address: u32,
}

/// One slot, in reading order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A function event: address (kind bit cleared), exit or entry, the
    /// unwrapped time, the context it belongs to.
    Func {
        addr: u64,
        exit: bool,
        time: u64,
        ctx: u16,
    },
    /// A context-switch record.
    Switch { from: u16, to: u16 },
}

/// A decoded dump.
#[derive(Debug, Clone)]
pub struct Dump {
    pub header: Header,
    /// The task table's used entries: (task pointer, name).
    pub tasks: Vec<(u64, String)>,
    pub slots: Vec<Slot>,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn word_at(b: &[u8], at: usize, p: usize) -> u64 {
    if p == 4 {
        u64::from(u32_at(b, at))
    } else {
        u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
    }
}

fn header(b: &[u8]) -> Result<Header, String> {
    if b.len() < 64 || &b[..8] != b"CALLTRF\0" {
        return Err("no CALLTRF header".into());
    }
    let h = Header {
        version: u16_at(b, 8),
        header_size: u16_at(b, 10),
        pointer_size: b[12],
        event_size: b[13],
        mode: b[14],
        clock: b[15],
        clock_hz: u32_at(b, 16),
        capacity: u32_at(b, 20),
        count: u32_at(b, 24),
        write_index: u32_at(b, 28),
        dropped: u32_at(b, 32),
        task_capacity: u16_at(b, 36),
        task_name_size: u16_at(b, 38),
        tasks_used: u16_at(b, 40),
        context: u16_at(b, 42),
        flags: u32_at(b, 44),
        buffer_address: u32_at(b, 48),
    };
    if b[52..64].iter().any(|&x| x != 0) {
        return Err("reserved bytes are not 0".into());
    }
    Ok(h)
}

fn tasks(b: &[u8], h: &Header) -> Vec<(u64, String)> {
    let p = usize::from(h.pointer_size);
    let size = usize::from(h.task_name_size);
    let entry = (p + size).div_ceil(p) * p;
    (0..usize::from(h.tasks_used))
        .map(|i| {
            let at = 64 + i * entry;
            let name = &b[at + p..at + p + size];
            let len = name.iter().position(|&c| c == 0).unwrap_or(size);
            let name = String::from_utf8_lossy(&name[..len]).into_owned();
            (word_at(b, at, p), name)
        })
        .collect()
}

/// The slot indexes in reading order.
fn order(h: &Header) -> Vec<u32> {
    if h.flags & 4 != 0 {
        (h.write_index..h.capacity)
            .chain(0..h.write_index)
            .collect()
    } else if h.mode == 0 && h.write_index == 0 && h.count >= h.capacity {
        (0..h.capacity).collect() // a full stop buffer
    } else {
        (0..h.write_index).collect()
    }
}

/// Decodes a dump of `calltrace_buffer`: checks every size the header
/// gives, then reads the slots in order.
pub fn decode(b: &[u8]) -> Result<Dump, String> {
    let h = header(b)?;
    let p = usize::from(h.pointer_size);
    if h.version != 1 || !(p == 4 || p == 8) || usize::from(h.event_size) != 2 * p {
        return Err(format!("unexpected header {h:?}"));
    }
    let entry = (p + usize::from(h.task_name_size)).div_ceil(p) * p;
    let table_end = 64 + usize::from(h.task_capacity) * entry;
    if usize::from(h.header_size) != table_end.div_ceil(8) * 8 {
        return Err(format!(
            "header_size {} for a table ending at {table_end}",
            h.header_size
        ));
    }
    let want = usize::from(h.header_size) + h.capacity as usize * 2 * p;
    if b.len() != want {
        return Err(format!("{} bytes, the header says {want}", b.len()));
    }
    let all_ones = if p == 4 {
        u64::from(u32::MAX)
    } else {
        u64::MAX
    };
    let mut slots = Vec::new();
    let (mut time, mut last, mut ctx) = (0u64, None::<u32>, None::<u16>);
    for i in order(&h) {
        let at = usize::from(h.header_size) + i as usize * 2 * p;
        let (w0, w1) = (word_at(b, at, p), u32_at(b, at + p));
        if p == 8 && u32_at(b, at + 12) != 0 {
            return Err(format!("slot {i}: padding is not 0"));
        }
        if w0 | 0xf == all_ones {
            if w0 & 0xf != 0xe {
                return Err(format!("slot {i}: special record of type {:#x}", w0 & 0xf));
            }
            let (from, to) = ((w1 >> 16) as u16, w1 as u16);
            if ctx.is_some_and(|c| c != from) {
                return Err(format!("slot {i}: a switch from {from:#x} in {ctx:?}"));
            }
            ctx = Some(to);
            slots.push(Slot::Switch { from, to });
            continue;
        }
        time = match last {
            None => u64::from(w1),
            Some(prev) => time + u64::from(w1.wrapping_sub(prev)),
        };
        last = Some(w1);
        slots.push(Slot::Func {
            addr: w0 & !1,
            exit: w0 & 1 == 1,
            time,
            ctx: u16::MAX, // filled in below, once the first switch is known
        });
    }
    let first = slots.iter().find_map(|s| match s {
        Slot::Switch { from, .. } => Some(*from),
        _ => None,
    });
    let mut ctx = first.unwrap_or(h.context);
    for s in &mut slots {
        match s {
            Slot::Switch { to, .. } => ctx = *to,
            Slot::Func { ctx: c, .. } => *c = ctx,
        }
    }
    Ok(Dump {
        tasks: tasks(b, &h),
        header: h,
        slots,
    })
}

impl Dump {
    /// The function events only.
    pub fn funcs(&self) -> Vec<(u64, bool, u64, u16)> {
        self.slots
            .iter()
            .filter_map(|s| match *s {
                Slot::Func {
                    addr,
                    exit,
                    time,
                    ctx,
                } => Some((addr, exit, time, ctx)),
                Slot::Switch { .. } => None,
            })
            .collect()
    }

    /// Entries per (context, function name), names from `names`
    /// (address → name); an unknown address is named by its hex.
    pub fn entries(&self, names: &BTreeMap<u64, String>) -> BTreeMap<(u16, String), u64> {
        let mut counts = BTreeMap::new();
        for (addr, exit, _, ctx) in self.funcs() {
            if !exit {
                let name = names
                    .get(&addr)
                    .cloned()
                    .unwrap_or_else(|| format!("{addr:#x}"));
                *counts.entry((ctx, name)).or_insert(0) += 1;
            }
        }
        counts
    }

    /// The context-switch records, in order.
    pub fn switches(&self) -> Vec<(u16, u16)> {
        self.slots
            .iter()
            .filter_map(|s| match *s {
                Slot::Switch { from, to } => Some((from, to)),
                Slot::Func { .. } => None,
            })
            .collect()
    }
}
