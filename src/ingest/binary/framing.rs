//! How records are framed: the record header of each format version
//! ([`Layout`], [`Head`]), the checksum that guards a version-2 record, and
//! cutting a file into chunks of whole records for the parsing threads.

use super::{SYNC, TAG_BLOCK, TAG_DROPPED, TAG_MAP, TAG_METHOD, TAG_RAW, TAG_THREAD};

/// How records are framed in a file of a given version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Layout {
    pub(super) version: u16,
    pub(super) timed: bool,
}

impl Layout {
    /// Length of a record header: tag, thread, event count and payload
    /// length (version 1); marker and checksum in front (version 2).
    pub(super) fn header_len(self) -> usize {
        if self.version == 1 { 17 } else { 28 }
    }

    /// Whether records carry a marker and a checksum to resynchronise on.
    pub(super) fn checked(self) -> bool {
        self.version >= 2
    }

    /// The record header at `pos`, if the bytes for it are there (and,
    /// from version 2 on, it starts with the marker).
    pub(super) fn head(self, data: &[u8], pos: usize) -> Option<Head> {
        let h = data.get(pos..pos.checked_add(self.header_len())?)?;
        let u32_at = |o: usize| u32::from_le_bytes(h[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(h[o..o + 8].try_into().expect("8 bytes"));
        if self.checked() {
            if &h[..4] != SYNC {
                return None;
            }
            Some(Head {
                tag: h[8],
                tid: u64_at(12),
                nevents: u32_at(20),
                nbytes: u32_at(24) as usize,
                checksum: Some(u32_at(4)),
                seq: (h[9] & FLAG_SEQ != 0).then(|| u16::from_le_bytes([h[10], h[11]])),
            })
        } else {
            Some(Head {
                tag: h[0],
                tid: u64_at(1),
                nevents: u32_at(9),
                nbytes: u32_at(13) as usize,
                checksum: None,
                seq: None,
            })
        }
    }

    /// The header of the record at `pos` and where the record ends, if the
    /// header is there and the record's bytes fit in `data` (checksum not
    /// checked): the step of a walk over the records.
    pub(super) fn step(self, data: &[u8], pos: usize) -> Option<(Head, usize)> {
        let head = self.head(data, pos)?;
        let end = (pos + self.header_len())
            .checked_add(head.nbytes)
            .filter(|&e| e <= data.len())?;
        Some((head, end))
    }

    /// Where the record at `pos` ends, if it is complete (and, from
    /// version 2 on, its checksum matches).
    pub(super) fn intact(self, data: &[u8], pos: usize) -> Option<usize> {
        let (head, end) = self.step(data, pos)?;
        let record = &data[pos..end];
        // A raw buffer changes while the program runs: its checksum covers
        // the header only.
        let covered = match head.tag {
            TAG_RAW => &record[8..self.header_len()],
            _ => &record[8..],
        };
        match head.checksum {
            Some(sum) if checksum(covered) != sum => None,
            _ => Some(end),
        }
    }

    /// The start of the first intact record after a damaged one at `pos`,
    /// or the end of the data.
    pub(super) fn resync(self, data: &[u8], pos: usize) -> usize {
        let mut from = pos + 1;
        while let Some(off) = memchr::memmem::find(data.get(from..).unwrap_or(&[]), SYNC) {
            let at = from + off;
            if self.intact(data, at).is_some() {
                return at;
            }
            from = at + 1;
        }
        data.len()
    }
}

/// A record header as read.
#[derive(Debug, Clone, Copy)]
pub(super) struct Head {
    pub(super) tag: u8,
    pub(super) tid: u64,
    pub(super) nevents: u32,
    pub(super) nbytes: usize,
    pub(super) checksum: Option<u32>,
    /// Block: the low 16 bits of the thread's event count at the block's
    /// first event, when the runtime wrote it from a ring.
    pub(super) seq: Option<u16>,
}

/// Byte 9 of a record header: bytes 10 and 11 hold [`Head::seq`].
pub(super) const FLAG_SEQ: u8 = 1;

/// The checksum of a version-2 record (everything after the checksum
/// field): a multiply-xor hash over little-endian 8-byte words, the last
/// one zero-padded. It is what the runtime computes; docs/binary-format.md
/// gives it in Python.
pub fn checksum(bytes: &[u8]) -> u32 {
    Sum::new(bytes).rest(bytes)
}

/// [`checksum`] a word at a time: a decoder adds a word after each event
/// it reads, so that the checksum's chain of multiplications runs beside
/// the decoding instead of in a pass of its own before it.
pub(super) struct Sum {
    h: u64,
    /// Bytes added so far (whole words).
    at: usize,
}

impl Sum {
    /// The checksum of `bytes` begun.
    pub(super) fn new(bytes: &[u8]) -> Sum {
        Sum {
            h: 0x9e37_79b9_7f4a_7c15 ^ bytes.len() as u64,
            at: 0,
        }
    }

    #[inline(always)]
    pub(super) fn add(&mut self, w: u64) {
        self.h = (self.h ^ w).wrapping_mul(0xff51_afd7_ed55_8ccd);
        self.h ^= self.h >> 32;
    }

    /// Adds the next word of `bytes`, if a whole one is left.
    #[inline(always)]
    pub(super) fn step(&mut self, bytes: &[u8]) {
        if let Some(w) = bytes.get(self.at..self.at + 8) {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
            self.at += 8;
        }
    }

    /// The checksum of `bytes`: the words not yet added, the last one
    /// zero-padded.
    pub(super) fn rest(mut self, bytes: &[u8]) -> u32 {
        let mut words = bytes[self.at..].chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            let mut w = [0u8; 8];
            w[..tail.len()].copy_from_slice(tail);
            self.add(u64::from_le_bytes(w));
        }
        (self.h ^ (self.h >> 29)) as u32
    }
}

/// [`cut_records`] for version-1 files.
pub(super) fn cut_records_v1(data: &[u8], start: usize, size: usize) -> usize {
    let layout = Layout {
        version: 1,
        timed: true,
    };
    cut_records(layout, data, start, size)
}

/// [`cut_records`] for version-2 files.
pub(super) fn cut_records_v2(data: &[u8], start: usize, size: usize) -> usize {
    let layout = Layout {
        version: 2,
        timed: true,
    };
    cut_records(layout, data, start, size)
}

/// The end of the chunk of whole records starting at `start`: the first
/// record boundary at least `size` bytes on, or the end of the data when a
/// record header is torn or wrong (that chunk then fails to decode on the
/// worker and is read record by record, which reports the problem).
pub(super) fn cut_records(layout: Layout, data: &[u8], start: usize, size: usize) -> usize {
    let mut pos = start;
    while pos - start < size && pos < data.len() {
        match layout.step(data, pos) {
            Some((head, next)) if known_tag(layout, head.tag) => pos = next,
            _ => return data.len(),
        }
    }
    pos
}

/// Whether records tagged `tag` exist in files of this layout.
pub(super) fn known_tag(layout: Layout, tag: u8) -> bool {
    match tag {
        TAG_BLOCK => true,
        TAG_MAP | TAG_METHOD | TAG_THREAD | TAG_RAW | TAG_DROPPED => layout.checked(),
        _ => false,
    }
}
