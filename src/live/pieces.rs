//! Cutting the bytes the follower reads (any length, cut anywhere) into
//! batches that a format's parser reads whole: complete lines of a text
//! trace, complete records of a binary one. Each batch of a binary trace
//! is led by the file header, so that it parses on its own; a text trace's
//! leading comment lines (`# base`, `# map`) lead the first batch only:
//! the monitor keeps what they say, and a batch that starts with them is
//! read line by line, several times slower than by the E/X reader's fast
//! scan. Each byte is copied once on the way, in big batches: this is
//! `live`'s hot path besides the parser itself.
//!
//! A binary trace's thread-buffer records are left out: they hold what a
//! thread recorded and had not written yet, which the runtime writes again
//! as blocks (a file followed while the program runs sees them change).
//! Its dropped-events records, and a text trace's `# dropped N` lines, are
//! counted here.

use crate::ingest::binary;

/// How a trace is cut into pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Framing {
    /// Text: pieces end with a newline.
    Lines,
    /// Binary of this format version: pieces are records.
    Records(u16),
}

/// A batch ready for the parser.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Batch {
    /// The header, then whole pieces.
    pub(super) bytes: Vec<u8>,
    /// Events its pieces said the runtime dropped.
    pub(super) dropped: u64,
}

/// Cuts a followed trace into batches.
#[derive(Debug)]
pub(super) struct Cutter {
    framing: Framing,
    /// What the next batch starts with (every batch, for records).
    header: Vec<u8>,
    /// Bytes of a piece not complete yet.
    tail: Vec<u8>,
    /// A batch's bytes given back after parsing: the next batch reuses
    /// them rather than touching fresh pages.
    spare: Vec<u8>,
}

impl Cutter {
    /// A cutter for a trace of `framing` whose header is `header`.
    pub(super) fn new(framing: Framing, header: Vec<u8>) -> Cutter {
        Cutter {
            framing,
            header,
            tail: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// Takes back a batch's bytes once parsed.
    pub(super) fn give_back(&mut self, bytes: Vec<u8>) {
        self.spare = bytes;
    }

    /// An empty buffer for a batch of `len` bytes.
    fn buffer(&mut self, len: usize) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.spare);
        out.clear();
        out.reserve(len);
        out
    }

    /// Adds the next `bytes` of the trace; the batch of the pieces they
    /// complete, if any.
    pub(super) fn push(&mut self, bytes: &[u8]) -> Option<Batch> {
        match self.framing {
            Framing::Lines => self.lines(bytes),
            Framing::Records(version) => self.records(bytes, version),
        }
    }

    fn lines(&mut self, bytes: &[u8]) -> Option<Batch> {
        let Some(last) = memchr::memrchr(b'\n', bytes) else {
            self.tail.extend_from_slice(bytes);
            return None;
        };
        let mut out = self.buffer(self.header.len() + self.tail.len() + last + 1);
        out.extend_from_slice(&self.header);
        out.extend_from_slice(&self.tail);
        out.extend_from_slice(&bytes[..=last]);
        self.tail.clear();
        self.tail.extend_from_slice(&bytes[last + 1..]);
        let dropped = dropped_lines(&out[self.header.len()..]);
        self.header = Vec::new();
        Some(Batch {
            bytes: out,
            dropped,
        })
    }

    fn records(&mut self, bytes: &[u8], version: u16) -> Option<Batch> {
        self.tail.extend_from_slice(bytes);
        let mut out = self.buffer(self.header.len() + self.tail.len());
        out.extend_from_slice(&self.header);
        let (mut pos, mut dropped) = (0, 0);
        while let Some((tag, len)) = binary::record_at(&self.tail[pos..], version) {
            let record = &self.tail[pos..pos + len];
            match tag {
                binary::TAG_RAW => {}
                binary::TAG_DROPPED => dropped += dropped_count(record),
                _ => out.extend_from_slice(record),
            }
            pos += len;
        }
        if self.damaged(pos, version) {
            // Not a record header: the parser skips to the next intact
            // record (lenient) and says what it skipped.
            out.extend_from_slice(&self.tail[pos..]);
            pos = self.tail.len();
        }
        self.tail.drain(..pos);
        (out.len() > self.header.len() || dropped > 0).then_some(Batch {
            bytes: out,
            dropped,
        })
    }

    /// Whether the bytes at `pos` are a whole record header's worth that
    /// does not start with the marker (version 2 on).
    fn damaged(&self, pos: usize, version: u16) -> bool {
        let rest = &self.tail[pos..];
        version >= 2 && rest.len() >= RECORD_HEAD && !rest.starts_with(binary::SYNC)
    }
}

/// Length of a version-2 record header; a dropped-events record's count follows it.
const RECORD_HEAD: usize = 28;

/// The count of a dropped-events record.
fn dropped_count(record: &[u8]) -> u64 {
    record
        .get(RECORD_HEAD..RECORD_HEAD + 8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// Sum of the `# dropped N` lines a lossy runtime writes, in whole lines.
fn dropped_lines(lines: &[u8]) -> u64 {
    const MARK: &[u8] = b"# dropped ";
    memchr::memmem::find_iter(lines, MARK)
        .filter(|&at| at == 0 || lines[at - 1] == b'\n')
        .filter_map(|at| {
            let rest = &lines[at + MARK.len()..];
            let end = rest
                .iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(rest.len());
            std::str::from_utf8(&rest[..end]).ok()?.parse::<u64>().ok()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cut_at_the_last_newline_and_the_first_batch_led_by_the_header() {
        let mut c = Cutter::new(Framing::Lines, b"# base 0x1\n".to_vec());
        assert_eq!(
            c.push(b"E a 1 1\nX a"),
            Some(batch("# base 0x1\nE a 1 1\n", 0))
        );
        assert_eq!(c.push(b" 2 1"), None);
        assert_eq!(
            c.push(b"\n# dropped 7\n# dropped 5 more\nE b 3 1\nX"),
            Some(batch(
                "X a 2 1\n# dropped 7\n# dropped 5 more\nE b 3 1\n",
                12
            ))
        );
    }

    #[test]
    fn records_are_cut_whole_without_thread_buffers() {
        let header = b"CALLTRC\0\x02\0\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
        let block = record(b'B', &[4, 2, 5, 3]);
        let raw = record(binary::TAG_RAW, &[0; 16]);
        let dropped = record(binary::TAG_DROPPED, &9u64.to_le_bytes());
        let mut stream = [block.clone(), raw, dropped, block.clone()].concat();
        stream.extend_from_slice(&block[..10]);
        let mut c = Cutter::new(Framing::Records(2), header.clone());
        // Fed a byte at a time, whole records come out as they complete.
        let mut got = Vec::new();
        let mut drops = 0;
        for b in &stream {
            if let Some(out) = c.push(std::slice::from_ref(b)) {
                assert!(out.bytes.starts_with(&header));
                got.extend_from_slice(&out.bytes[header.len()..]);
                drops += out.dropped;
            }
        }
        assert_eq!(got, [block.clone(), block].concat());
        assert_eq!(drops, 9);
        assert_eq!(c.tail.len(), 10, "the torn record waits");
    }

    #[test]
    fn a_damaged_record_goes_to_the_parser_rather_than_stalling() {
        let mut c = Cutter::new(Framing::Records(2), Vec::new());
        let junk = [0xffu8; 40];
        assert_eq!(c.push(&junk).map(|b| b.bytes.len()), Some(40));
    }

    fn batch(text: &str, dropped: u64) -> Batch {
        Batch {
            bytes: text.as_bytes().to_vec(),
            dropped,
        }
    }

    fn record(tag: u8, payload: &[u8]) -> Vec<u8> {
        let mut r = binary::SYNC.to_vec();
        r.extend_from_slice(&[0; 4]);
        r.extend_from_slice(&[tag, 0, 0, 0]);
        r.extend_from_slice(&[0; 12]);
        r.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        r.extend_from_slice(payload);
        r
    }
}
