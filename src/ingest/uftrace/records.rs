//! The `<TID>.dat` files of a recording: one per thread, a sequence of
//! 16-byte records (a 64-bit timestamp in nanoseconds, then a 64-bit word
//! holding type:2 more:1 magic:3 depth:10 address:48, least significant
//! first), each thread's in time order. An event record with `more` set is
//! followed by a 16-bit length and that many bytes, padded to 8 bytes with
//! the length; an entry or exit with `more` set is followed by arguments
//! or a return value whose length only the recording's argument
//! specifications give (`-A`/`-R`/`-a`), which are not read: such records
//! are refused. A lost record (written when uftrace's buffers were full)
//! carries the number of records lost in its address field.
//!
//! [`Merge`] reads the files side by side, each a chunk at a time,
//! and yields their entries and exits in time order across threads (ties
//! in the order of the files, by thread id), the way other formats'
//! events interleave threads. A recording of more than [`KEEP_OPEN`]
//! threads keeps no file open between chunks (each is opened, read from
//! where it was and closed), so a program of thousands of threads reads
//! under the usual limit of 1,024 open files, or a lower one.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::ingest::EventKind;

/// Length of a record.
const RECORD: usize = 16;
/// The magic every version 4 record carries (`RECORD_MAGIC_V4`).
const RECORD_MAGIC: u64 = 5;
const TYPE_ENTRY: u64 = 0;
const TYPE_EXIT: u64 = 1;
const TYPE_LOST: u64 = 2;

/// One entry or exit of a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    /// Nanoseconds.
    pub time: u64,
    /// Runtime address of the function (inside it, for `-pg` programs).
    pub addr: u64,
    /// Entry or exit.
    pub kind: EventKind,
}

/// Bytes read from a `.dat` file at a time.
const CHUNK: usize = 16 * 1024;

/// The most threads whose files stay open through the read; past it, a
/// file is open only while a chunk of it is read. An open and a seek per
/// 16 KiB chunk cost little next to decoding its 1,024 records.
pub(crate) const KEEP_OPEN: usize = 64;

/// What a `.dat` file holds, in messages.
const WHAT: &str = "a thread's records as uftrace wrote them";

/// Reads one thread's `.dat` file, a chunk at a time.
pub(crate) struct DatFile {
    /// The file as named in messages.
    name: String,
    path: PathBuf,
    /// The open file; None between chunks when it is not kept open.
    file: Option<File>,
    keep_open: bool,
    /// Bytes read from the file so far (where the next read starts).
    read: u64,
    /// Bytes read and not yet decoded start at `at`.
    buf: Vec<u8>,
    at: usize,
    /// Byte offset in the file of `buf[at]`.
    pos: u64,
    eof: bool,
    /// Records lost, as lost records said.
    pub lost: u64,
}

impl DatFile {
    /// Opens `path` (refused unless it is a regular file); `keep_open`
    /// keeps it open between chunks, else it is closed until the next.
    pub(super) fn open(path: &Path, keep_open: bool) -> Result<DatFile> {
        let file = open_dat(path)?;
        crate::ingest::opened::note(path);
        Ok(DatFile {
            name: path.display().to_string(),
            path: path.to_path_buf(),
            file: keep_open.then_some(file),
            keep_open,
            read: 0,
            buf: Vec::new(),
            at: 0,
            pos: 0,
            eof: false,
            lost: 0,
        })
    }

    fn err(&self, pos: u64, what: &str) -> Error {
        Error::Input(format!(
            "{}: byte {pos} (record {}): expected {what}",
            self.name,
            pos / RECORD as u64
        ))
    }

    /// Makes `n` bytes ready to take (fewer only at the end of the file);
    /// how many are.
    fn want(&mut self, n: usize) -> Result<usize> {
        while self.buf.len() - self.at < n && !self.eof {
            self.buf.drain(..self.at);
            self.at = 0;
            let got = self.read_chunk();
            if !self.keep_open {
                self.file = None;
            }
            let got = got?;
            self.read += got as u64;
            self.eof = got == 0;
        }
        Ok((self.buf.len() - self.at).min(n))
    }

    /// Appends up to a chunk to `buf` from where the last read ended,
    /// opening the file again if it was closed; how many bytes came. The
    /// buffer grows only as far as the file has bytes: a short file (one
    /// of thousands of threads) costs its length, not a chunk.
    fn read_chunk(&mut self) -> Result<usize> {
        let file = match &mut self.file {
            Some(file) => file,
            None => {
                let mut file = open_dat(&self.path)?;
                file.seek(SeekFrom::Start(self.read))
                    .map_err(|e| Error::io(&self.path, e))?;
                self.file.insert(file)
            }
        };
        file.take(CHUNK as u64)
            .read_to_end(&mut self.buf)
            .map_err(|e| Error::io(&self.name, e))
    }

    /// The bytes the buffer holds room for.
    #[cfg(test)]
    pub(super) fn buffered(&self) -> usize {
        self.buf.capacity()
    }

    /// The next `n` bytes, which [`DatFile::want`] made ready.
    fn take(&mut self, n: usize) -> &[u8] {
        let bytes = &self.buf[self.at..self.at + n];
        self.at += n;
        self.pos += n as u64;
        bytes
    }

    /// The next entry or exit, None at the end of the file. Lost records
    /// are counted, other events passed over. An error names the file,
    /// the byte offset and what was expected there.
    pub(super) fn next(&mut self) -> Result<Option<Record>> {
        loop {
            let at = self.pos;
            match self.want(RECORD)? {
                0 => {
                    // Done: the buffer goes (thousands of threads end early).
                    self.buf = Vec::new();
                    return Ok(None);
                }
                RECORD => {}
                n => {
                    return Err(self.err(
                        at,
                        &format!("a {RECORD}-byte record, found {n} byte(s): the file is cut off"),
                    ));
                }
            }
            let rec = self.take(RECORD);
            let time = u64::from_le_bytes(rec[..8].try_into().expect("8 bytes"));
            let word = u64::from_le_bytes(rec[8..].try_into().expect("8 bytes"));
            let (kind, more, magic, addr) = (word & 3, word >> 2 & 1, word >> 3 & 7, word >> 16);
            if magic != RECORD_MAGIC {
                return Err(self.err(
                    at,
                    &format!("a record with magic {RECORD_MAGIC} (bits 3-5), found {magic}"),
                ));
            }
            let kind = match kind {
                TYPE_ENTRY => EventKind::Enter,
                TYPE_EXIT => EventKind::Exit,
                TYPE_LOST => {
                    self.lost = self.lost.saturating_add(addr);
                    continue;
                }
                _ => {
                    if more == 1 {
                        self.skip_event_data(at)?;
                    }
                    continue;
                }
            };
            if more == 1 {
                return Err(self.err(
                    at,
                    "a record without argument data: this recording holds arguments or return \
                     values (`uftrace record -A/-R/-a`), which calltrace does not read; record \
                     again without them",
                ));
            }
            return Ok(Some(Record { time, addr, kind }));
        }
    }

    /// Passes over the data of an event record at `at`: a 16-bit length,
    /// then the bytes, padded to 8 with the length.
    fn skip_event_data(&mut self, at: u64) -> Result<()> {
        if self.want(2)? < 2 {
            return Err(self.err(at, "the length of the event's data: the file is cut off"));
        }
        let len = self.take(2);
        let size = (usize::from(u16::from_le_bytes([len[0], len[1]])) + 2).div_ceil(8) * 8;
        if self.want(size - 2)? < size - 2 {
            return Err(self.err(at, "the event's data: the file is cut off"));
        }
        self.take(size - 2);
        Ok(())
    }
}

/// Opens a `.dat` file, which must be a regular file. Out of file
/// descriptors even for one, the error says which limit to raise.
fn open_dat(path: &Path) -> Result<File> {
    super::files::open_regular(path, WHAT).map_err(|e| match e {
        Error::Io { source, .. } if source.raw_os_error() == Some(libc::EMFILE) => {
            Error::Input(format!(
                "{}: {source}: the open-file limit (`ulimit -n`) is too low to read the \
                 recording; raise it",
                path.display()
            ))
        }
        e => e,
    })
}

/// The entries and exits of every thread's file, in time order.
pub(crate) struct Merge {
    files: Vec<(u64, DatFile)>,
    /// The next record of each file not yet at its end, by (time, file).
    heap: BinaryHeap<Reverse<(u64, usize, u64, bool)>>,
    /// Under `--lenient`, a file's damaged rest is skipped, not an error.
    lenient: bool,
    /// The errors skipped under `--lenient`, one per file at most.
    pub skipped: Vec<String>,
}

impl Merge {
    /// Opens the files of `threads` (thread id, path), in that order;
    /// `lenient` skips the rest of a file from a damaged record on.
    pub(super) fn open(threads: &[(u64, PathBuf)], lenient: bool) -> Result<Merge> {
        let mut merge = Merge {
            files: Vec::with_capacity(threads.len()),
            heap: BinaryHeap::with_capacity(threads.len()),
            lenient,
            skipped: Vec::new(),
        };
        let keep_open = threads.len() <= KEEP_OPEN;
        for (tid, path) in threads {
            merge.files.push((*tid, DatFile::open(path, keep_open)?));
            merge.refill(merge.files.len() - 1)?;
        }
        Ok(merge)
    }

    fn refill(&mut self, i: usize) -> Result<()> {
        match self.files[i].1.next() {
            Ok(Some(r)) => {
                let enter = r.kind == EventKind::Enter;
                self.heap.push(Reverse((r.time, i, r.addr, enter)));
            }
            Ok(None) => {}
            Err(e) if self.lenient => self.skipped.push(e.to_string()),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// The next record of any thread, with its thread id.
    pub(super) fn next(&mut self) -> Result<Option<(u64, Record)>> {
        let Some(Reverse((time, i, addr, enter))) = self.heap.pop() else {
            return Ok(None);
        };
        self.refill(i)?;
        let kind = match enter {
            true => EventKind::Enter,
            false => EventKind::Exit,
        };
        Ok(Some((self.files[i].0, Record { time, addr, kind })))
    }

    /// Records lost, over all files (read so far).
    pub(super) fn lost(&self) -> u64 {
        self.files
            .iter()
            .fold(0u64, |n, (_, f)| n.saturating_add(f.lost))
    }
}
