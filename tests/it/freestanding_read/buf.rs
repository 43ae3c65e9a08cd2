//! A small encoder of the freestanding buffer, from the contract
//! (docs/binary-format.md): the layout the runtime leaves in memory.

use std::path::{Path, PathBuf};

/// A buffer as the runtime leaves it; [`Buf::bytes`] lays it out.
#[derive(Clone)]
pub struct Buf {
    pub pointer: usize,
    /// 0 stop, 1 ring.
    pub mode: u8,
    /// 1 cycle counter, 3 none.
    pub clock: u8,
    pub clock_hz: u32,
    pub capacity: u32,
    pub dropped: u32,
    pub task_capacity: u16,
    pub task_name_size: u16,
    pub tasks: Vec<&'static str>,
    pub context: u16,
    /// (word0, word1) of every slot ever written, oldest first: the last
    /// `capacity` stay, and the ring's flag says it wrapped.
    pub slots: Vec<(u64, u32)>,
}

impl Default for Buf {
    fn default() -> Buf {
        Buf {
            pointer: 4,
            mode: 0,
            clock: 1,
            clock_hz: 0,
            capacity: 64,
            dropped: 0,
            task_capacity: 4,
            task_name_size: 16,
            tasks: Vec::new(),
            context: 0x7FFF,
            slots: Vec::new(),
        }
    }
}

impl Buf {
    /// Enters the function at `addr` at clock `t`.
    pub fn enter(&mut self, addr: u64, t: u32) -> &mut Buf {
        self.slots.push((addr & !1, t));
        self
    }

    /// Leaves the function at `addr` at clock `t`.
    pub fn exit(&mut self, addr: u64, t: u32) -> &mut Buf {
        self.slots.push((addr & !1 | 1, t));
        self
    }

    /// Switches from context `from` to `to`.
    pub fn switch(&mut self, from: u16, to: u16) -> &mut Buf {
        let ones = if self.pointer == 4 {
            0xFFFF_FFFF
        } else {
            u64::MAX
        };
        let word1 = (u32::from(from) << 16) | u32::from(to);
        self.slots.push((ones & !0xF | 0xE, word1));
        self
    }

    fn entry_size(&self) -> usize {
        (self.pointer + self.task_name_size as usize).div_ceil(self.pointer) * self.pointer
    }

    fn header_size(&self) -> usize {
        (64 + self.task_capacity as usize * self.entry_size()).div_ceil(8) * 8
    }

    /// The buffer's bytes, as a dump holds them.
    pub fn bytes(&self) -> Vec<u8> {
        let (p, cap) = (self.pointer, self.capacity as usize);
        let n = self.slots.len();
        let ring = self.mode == 1;
        // As the runtime does, a ring and a full stop buffer both go back
        // to slot 0 and set the wrapped flag.
        let kept = if ring { n } else { n.min(cap) };
        let (wrapped, index) = (kept >= cap, kept % cap);
        let mut b = b"CALLTRF\0".to_vec();
        b.extend(1u16.to_le_bytes());
        b.extend((self.header_size() as u16).to_le_bytes());
        b.extend([p as u8, 2 * p as u8, self.mode, self.clock]);
        let dropped = self.dropped + (n - kept) as u32;
        for v in [
            self.clock_hz,
            self.capacity,
            kept as u32,
            index as u32,
            dropped,
        ] {
            b.extend(v.to_le_bytes());
        }
        let used = self.tasks.len() as u16;
        for v in [self.task_capacity, self.task_name_size, used, self.context] {
            b.extend(v.to_le_bytes());
        }
        b.extend((1u32 | if wrapped { 4 } else { 0 }).to_le_bytes());
        b.resize(64, 0);
        for (i, name) in self.tasks.iter().enumerate() {
            b.resize(64 + i * self.entry_size(), 0);
            b.extend(&(0x2000_1000u64 + 0x100 * i as u64).to_le_bytes()[..p]);
            b.extend(name.bytes().take(self.task_name_size as usize - 1));
        }
        b.resize(self.header_size(), 0);
        let mut slots = vec![0u8; cap * 2 * p];
        for (i, (w0, w1)) in self.slots.iter().enumerate().take(kept) {
            let s = &mut slots[(i % cap) * 2 * p..][..2 * p];
            s[..p].copy_from_slice(&w0.to_le_bytes()[..p]);
            s[p..p + 4].copy_from_slice(&w1.to_le_bytes());
        }
        b.extend(slots);
        b
    }

    /// Writes the buffer to `dir/name`.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, self.bytes()).expect("write the buffer");
        path
    }
}
