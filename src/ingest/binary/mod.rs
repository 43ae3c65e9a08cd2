//! The compact binary trace written by the runtime with
//! `CALLTRACE_FORMAT=binary`, specified in docs/binary-format.md (the one
//! place its layout is described). What matters here: blocks decode
//! independently, which is what lets big traces be read in parallel, and
//! every record carries a marker and a checksum (version 2), so a lenient
//! read skips a damaged block and picks up at the next intact one.
//!
//! The reader is a folder of files, one concern each: `framing` (record
//! headers, checksums, cutting chunks), `decode` (block payloads and
//! varints), `records` (reading records one by one), `ring` (thread
//! buffers left by a process that died), the two roles of the chunked
//! reader (`reader` on the parsing threads, `inorder` on the calling
//! one) and `encode` (writing traces, for tests and benchmarks).

mod decode;
mod encode;
mod framing;
mod inorder;
mod reader;
mod records;
mod ring;
#[cfg(test)]
mod tests;

pub use encode::{Block, encode, encode_version};
pub use framing::checksum;
pub(crate) use reader::{BinaryScan, BinaryScanned};

use framing::{cut_records_v1, cut_records_v2};
use inorder::InOrder;
use reader::Parser;
use records::Records;

use super::chunked;
use super::{FuncTable, Input, ParseOptions, Sink, TraceFormat, TraceMeta};
use crate::error::Result;

/// The first eight bytes of every binary trace.
pub const MAGIC: &[u8; 8] = b"CALLTRC\0";
/// The version the runtime writes; every version from 1 up to it is read.
pub const VERSION: u16 = 2;
const FLAG_TIMED: u16 = 1;
const TAG_BLOCK: u8 = b'B';
const TAG_MAP: u8 = b'M';
const TAG_METHOD: u8 = b'N';
const TAG_THREAD: u8 = b'T';
/// The tag of a thread-buffer record, which a reader of a growing file skips.
pub const TAG_RAW: u8 = b'R';
/// The tag of a dropped-events record (payload: the count, u64).
pub const TAG_DROPPED: u8 = b'D';
/// Where a raw buffer's events start in its region (the runtime's `CT_HDR`).
const RAW_EVENTS_AT: usize = 4096;
/// The timed flag of an untimed raw buffer whose events are 8 bytes.
const RAW_SLOTS_8: u64 = 2;
/// The event address of method 0 of the runtime's interpreter API
/// (`calltrace.h`): method `i` is entered at `METHOD_BASE + i`.
pub const METHOD_BASE: u64 = 0x3f00_0000_0000_0000;
/// The marker that starts every record from version 2 on.
pub const SYNC: &[u8; 4] = b"CTR\x1a";

/// The length of a binary trace's file header (magic to executable path)
/// and its format version, once `data` holds all of it: where records
/// start, for a reader that gets the file in pieces (`calltrace live`).
pub fn header_end(data: &[u8]) -> Option<(usize, u16)> {
    let field = |at: usize, n: usize| data.get(at..at + n);
    let version = u16::from_le_bytes(field(8, 2)?.try_into().ok()?);
    let path_len = u32::from_le_bytes(field(24, 4)?.try_into().ok()?) as usize;
    let end = 28usize.checked_add(path_len)?;
    (data.len() >= end).then_some((end, version))
}

/// The tag and length of the record at the start of `data` in a file of
/// `version`, once the whole record is there (checksum not checked): how
/// a reader that gets the file in pieces cuts whole records. None while
/// the record is incomplete or its header is not one (no marker).
pub fn record_at(data: &[u8], version: u16) -> Option<(u8, usize)> {
    let layout = framing::Layout {
        version,
        timed: true,
    };
    layout.step(data, 0).map(|(head, end)| (head.tag, end))
}

/// Binary calltrace trace (`CALLTRACE_FORMAT=binary`).
pub struct BinaryFormat;

impl TraceFormat for BinaryFormat {
    fn name(&self) -> &'static str {
        "binary"
    }

    fn help(&self) -> &'static str {
        "Binary trace of the runtime (CALLTRACE_FORMAT=binary)"
    }

    fn magic(&self) -> Option<&'static [u8]> {
        Some(MAGIC)
    }

    fn piece(&self) -> &'static str {
        "record"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        head.starts_with(MAGIC)
    }

    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let data: &[u8] = input;
        let mut r = Records {
            data,
            pos: 0,
            name: input.name(),
        };
        let (meta, layout) = r.header()?;
        let mut seq = InOrder::new(data, input.name(), opts, funcs, meta, layout);
        // Binary events are ~2 bytes each: for a sink that takes decoded
        // events, smaller chunks keep those of the chunks in flight in
        // cache. A sink that summarises chunks on the parsing threads
        // never holds a chunk's events, and pays per chunk for handing its
        // summary on (per-function distributions: a pass over each
        // function's buckets), so it takes chunks as large as text's.
        let size = match (opts.chunk_bytes, sink.chunk_work().is_some()) {
            (0, true) => chunked::DEFAULT_CHUNK,
            (0, false) => chunked::DEFAULT_CHUNK / 8,
            (n, _) => n,
        };
        let cut = match layout.version {
            1 => cut_records_v1 as super::input::Cut,
            _ => cut_records_v2 as super::input::Cut,
        };
        let first_record = r.pos;
        let chunks = input.chunks_cut_by(r.pos, size, cut);
        chunked::read(input, chunks, opts, sink, || Parser::new(layout), &mut seq)?;
        seq.drop_written(first_record);
        seq.pending(sink);
        Ok(seq.finish())
    }
}
