//! Reading the records of a binary trace one at a time, in file order:
//! the file header, event blocks, and the records that are not blocks
//! (mappings, method names, thread names, dropped counts, thread buffers).

use super::decode::decode_block;
use super::framing::{FLAG_SEQ, Layout, known_tag};
use super::ring::{Ring, raw_events};
use super::{
    FLAG_TIMED, MAGIC, METHOD_BASE, SYNC, TAG_BLOCK, TAG_DROPPED, TAG_MAP, TAG_METHOD, TAG_RAW,
    TAG_THREAD, VERSION,
};
use crate::error::{Error, Result};
use crate::ingest::funcs::{MAX_NAME, name_bound};
use crate::ingest::{Event, FuncTable, Mapping, ThreadIds, TraceMeta};

/// Where records other than blocks put what they say.
pub(super) struct Side<'s> {
    pub(super) meta: &'s mut TraceMeta,
    pub(super) pending: &'s mut Vec<Event>,
    pub(super) rings: &'s mut Vec<Ring>,
    pub(super) dropped: &'s mut u64,
}

/// A record that could not be read: `fatal` when skipping it would risk
/// misreading the file (an intact record of an unknown kind).
pub(super) struct Bad {
    pub(super) err: Error,
    pub(super) fatal: bool,
}

impl From<Error> for Bad {
    fn from(err: Error) -> Self {
        Bad { err, fatal: false }
    }
}

pub(super) struct Records<'a> {
    pub(super) data: &'a [u8],
    pub(super) pos: usize,
    pub(super) name: &'a str,
}

impl Records<'_> {
    fn err(&self, what: &str) -> Error {
        Error::Input(format!("{}: byte {}: expected {what}", self.name, self.pos))
    }

    fn bytes(&mut self, n: usize, what: &str) -> Result<&[u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| self.err(what))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u16(&mut self, what: &str) -> Result<u16> {
        Ok(u16::from_le_bytes(
            self.bytes(2, what)?.try_into().expect("2 bytes"),
        ))
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.bytes(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.bytes(8, what)?.try_into().expect("8 bytes"),
        ))
    }

    pub(super) fn header(&mut self) -> Result<(TraceMeta, Layout)> {
        if self.bytes(8, "the magic `CALLTRC\\0`")? != MAGIC {
            self.pos = 0;
            return Err(self.err("the magic `CALLTRC\\0` of a binary calltrace trace"));
        }
        let version = self.u16("the format version")?;
        if !(1..=VERSION).contains(&version) {
            self.pos -= 2;
            return Err(self.err(&format!("format version 1 to {VERSION}, found {version}")));
        }
        let flags = self.u16("the header flags")?;
        if flags & !FLAG_TIMED != 0 {
            self.pos -= 2;
            return Err(self.err(&format!(
                "header flags with only bit 0 set, found {flags:#06x} (a newer format?)"
            )));
        }
        self.u32("the reserved header field")?;
        let base = self.u64("the load base address")?;
        let len = self.u32("the executable path length")? as usize;
        let path = String::from_utf8_lossy(self.bytes(len, "the executable path")?).into_owned();
        let meta = TraceMeta {
            format: "binary",
            base: (base != 0).then_some(base),
            exe_path: (!path.is_empty()).then_some(path),
            ..TraceMeta::default()
        };
        let layout = Layout {
            version,
            timed: flags & FLAG_TIMED != 0,
        };
        Ok((meta, layout))
    }

    /// Reads the record at the current position: a block's events go to
    /// `out`, a mapping to `maps`.
    pub(super) fn record(
        &mut self,
        layout: Layout,
        funcs: &mut FuncTable,
        threads: &mut ThreadIds,
        out: &mut Vec<Event>,
        side: &mut Side<'_>,
    ) -> std::result::Result<(), Bad> {
        let start = self.pos;
        let Some(head) = layout.head(self.data, start) else {
            if self.torn_ring_header(layout, side.rings) {
                self.pos = self.data.len();
                return Ok(());
            }
            return Err(self.torn_or_unmarked(layout).into());
        };
        let payload_start = start + layout.header_len();
        let complete = payload_start
            .checked_add(head.nbytes)
            .is_some_and(|e| e <= self.data.len());
        if layout.checked() {
            // The process died while writing a block from its thread's ring:
            // the ring still holds all of the block's events.
            let in_ring = |q: u16| side.rings.iter().any(|r| r.tid == head.tid && r.holds(q));
            if !complete
                && head.tag == TAG_BLOCK
                && head.seq.is_some_and(in_ring)
                && layout.resync(self.data, start) == self.data.len()
            {
                self.pos = self.data.len();
                return Ok(());
            }
            // A torn final block (a crash or a full disk mid-write) cannot be
            // checked: its complete events are kept, as in version 1. A record
            // that only seems to run past the end (a damaged length) has
            // intact records after it.
            let keep_torn = !complete
                && head.tag == TAG_BLOCK
                && layout.resync(self.data, start) == self.data.len();
            if !complete && !keep_torn {
                return Err(self
                    .err("a complete record (the trace may be truncated)")
                    .into());
            }
            if complete && layout.intact(self.data, start).is_none() {
                return Err(self
                    .err("a record whose checksum matches (a damaged block)")
                    .into());
            }
        }
        if !known_tag(layout, head.tag) {
            let err = self.err(&format!(
                "a record tag `B`, `M`, `N` or `T`, found {:#04x} (a newer format?)",
                head.tag
            ));
            return Err(Bad {
                err,
                fatal: layout.checked(),
            });
        }
        self.pos = payload_start;
        let payload = &self.data
            [payload_start..payload_start + head.nbytes.min(self.data.len() - payload_start)];
        match head.tag {
            TAG_MAP => {
                let map = mapping(payload).ok_or_else(|| self.err("a mapping record"))?;
                crate::ingest::add_mapping(side.meta, funcs, map);
                self.pos += head.nbytes;
                return Ok(());
            }
            TAG_METHOD => {
                // The name and the file it is shown with.
                let text = payload.len().saturating_sub(8);
                if text > MAX_NAME {
                    return Err(self.err(&name_bound(text)).into());
                }
                let name = method_name(payload, head.nevents)
                    .ok_or_else(|| self.err("a method record"))?;
                funcs.alias_addr(METHOD_BASE + head.nevents as u64, &name);
                self.pos += head.nbytes;
                return Ok(());
            }
            TAG_THREAD => {
                let name = thread_name(payload).ok_or_else(|| self.err("a thread name record"))?;
                let ix = threads.index(head.tid) as usize;
                let names = &mut side.meta.thread_names;
                if names.len() <= ix {
                    names.resize(ix + 1, String::new());
                }
                names[ix] = name;
                self.pos += head.nbytes;
                return Ok(());
            }
            TAG_DROPPED => {
                let n = payload
                    .get(..8)
                    .ok_or_else(|| self.err("a dropped-events record"))?;
                *side.dropped += u64::from_le_bytes(n.try_into().expect("8 bytes"));
                self.pos += head.nbytes;
                return Ok(());
            }
            TAG_RAW => {
                let ring = raw_events(payload, funcs, threads, side.pending)
                    .ok_or_else(|| self.err("a thread buffer record"))?;
                side.rings.extend(ring);
                self.pos += head.nbytes;
                return Ok(());
            }
            _ => {}
        }
        let thread = threads.index(head.tid);
        // A torn final block (crash mid-write, version 1): decode what is there, then report it.
        let avail = head.nbytes.min(self.data.len() - payload_start);
        let payload = &self.data[payload_start..payload_start + avail];
        self.pos += avail;
        let decoded = decode_block(
            payload,
            head.nevents,
            layout.timed,
            thread,
            |a| funcs.addr(a),
            out,
            || {},
        );
        if avail < head.nbytes {
            return Err(self
                .err("a complete block payload (the trace may be truncated)")
                .into());
        }
        decoded.map_err(|off| {
            // A `Vec` takes every event: the offset is always there.
            self.pos = payload_start + off.unwrap_or_default();
            self.err(&format!("{} well-formed events in the block", head.nevents))
                .into()
        })
    }

    /// Whether the bytes left at the current position are the start of a
    /// block header that the process died writing, for a block of a ring
    /// that still holds its events (see `record`): fewer bytes than a
    /// header, and the record marker, tag `B`, the ring flag, a sequence
    /// and a thread that match a ring with unwritten events, as far as the
    /// bytes go.
    fn torn_ring_header(&self, layout: Layout, rings: &[Ring]) -> bool {
        let h = &self.data[self.pos..];
        if !layout.checked() || h.len() >= layout.header_len() || rings.is_empty() {
            return false;
        }
        let n = h.len().min(SYNC.len());
        if h[..n] != SYNC[..n]
            || h.get(8).is_some_and(|&t| t != TAG_BLOCK)
            || h.get(9).is_some_and(|&f| f & FLAG_SEQ == 0)
        {
            return false;
        }
        // Bytes 10-11: the sequence; 12-19: the thread.
        rings.iter().any(|r| {
            let seq = match (h.get(10), h.get(11)) {
                (Some(&lo), Some(&hi)) => r.holds(u16::from_le_bytes([lo, hi])),
                (Some(&lo), None) => (0..r.count.min(1 << 16))
                    .any(|k| (r.flushed as u16).wrapping_add(k as u16) as u8 == lo),
                _ => true,
            };
            let tid = r.tid.to_le_bytes();
            seq && (12..h.len().min(20)).all(|o| h[o] == tid[o - 12])
        })
    }

    /// The error for a record header that is not there.
    fn torn_or_unmarked(&self, layout: Layout) -> Error {
        if self.data.len() - self.pos < layout.header_len() {
            self.err("a record header (the trace may be truncated)")
        } else if layout.checked() {
            self.err("the record marker `CTR\\x1a`")
        } else {
            self.err("a block tag `B`")
        }
    }
}

/// A thread name record's name: 4 zero bytes, u32 length, the name.
pub(super) fn thread_name(p: &[u8]) -> Option<String> {
    let len = u32::from_le_bytes(p.get(4..8)?.try_into().ok()?) as usize;
    Some(String::from_utf8_lossy(p.get(8..8usize.checked_add(len)?)?).into_owned())
}

/// The name a method record gives method `id`: `NAME@FILE:LINE`, or NAME
/// without a file. Payload: line (u32), name length (u32), name, file.
pub(super) fn method_name(p: &[u8], id: u32) -> Option<String> {
    let line = u32::from_le_bytes(p.get(0..4)?.try_into().ok()?);
    let len = u32::from_le_bytes(p.get(4..8)?.try_into().ok()?) as usize;
    let name = String::from_utf8_lossy(p.get(8..8usize.checked_add(len)?)?);
    let file = String::from_utf8_lossy(p.get(8 + len..)?);
    let name = if name.is_empty() {
        format!("method#{id}")
    } else {
        name.into_owned()
    };
    Some(if file.is_empty() {
        name
    } else {
        format!("{name}@{file}:{line}")
    })
}

/// A mapping record's payload: start, end and offset (u64 each), the
/// build-id's length (u8) and bytes, then the path.
pub(super) fn mapping(p: &[u8]) -> Option<Mapping> {
    let u64_at = |o: usize| Some(u64::from_le_bytes(p.get(o..o + 8)?.try_into().ok()?));
    let id_len = *p.get(24)? as usize;
    let id = p.get(25..25 + id_len)?;
    let path = p.get(25 + id_len..)?;
    Some(Mapping {
        start: u64_at(0)?,
        end: u64_at(8)?,
        offset: u64_at(16)?,
        path: String::from_utf8_lossy(path).into_owned(),
        build_id: (!id.is_empty()).then(|| id.iter().map(|b| format!("{b:02x}")).collect()),
    })
}
