//! Walking an input in [`Chunk`]s that end at line ends (or where a
//! format's [`Cut`] says), for the chunked readers (`super::super::chunked`).
//!
//! A regular file's chunks are read with `pread` into reused buffers, or
//! taken from its memory map with their pages mapped in one call, whichever
//! the kernel does faster for this file (`fetch`: it depends on how the
//! page cache holds it). Where a chunk ends is decided with a
//! small read at its nominal end ([`Chunks::next_unread`], under the
//! chunk source's lock); the chunk itself is fetched by the thread that parses
//! it ([`Unread::load`]), so the fetches of two chunks run in parallel. A
//! chunk whose last line does not end within that small read (a line of
//! kilobytes, or a name of hundreds of megabytes that the readers refuse)
//! is borrowed from the map instead, so that no line is ever copied whole.
//! Standard input and pipes are read block by block, carrying a partial
//! last line over to the next chunk; bytes in memory are borrowed.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::os::unix::fs::FileExt;

use super::fetch::{Fetch, Way, populate, thread_cpu_ns};
use crate::error::{Error, Result};

/// How many bytes past a chunk's nominal end are read at a time to find
/// the line end that closes it: trace lines are a few dozen bytes.
const WINDOW: usize = 4096;

/// How many chunk buffers are kept for reuse.
const SPARE: usize = 8;

/// One piece of the input, ending at a line end.
pub(crate) struct Chunk<'a> {
    /// Offset of the first byte in the input.
    pub start: usize,
    /// The bytes.
    pub bytes: ChunkBytes<'a>,
}

/// The bytes of a chunk: borrowed from the input, or read from a file or
/// a stream.
pub(crate) enum ChunkBytes<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl Deref for ChunkBytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            ChunkBytes::Borrowed(b) => b,
            ChunkBytes::Owned(v) => v,
        }
    }
}

/// A chunk whose place is known but whose bytes may not be read yet:
/// [`Unread::load`] reads them, outside any lock.
pub(crate) struct Unread<'a>(Pending<'a>);

enum Pending<'a> {
    Ready(Chunk<'a>),
    File {
        file: &'a File,
        map: &'a [u8],
        fetch: &'a Fetch,
        start: usize,
        end: usize,
        buf: Vec<u8>,
    },
}

impl<'a> Unread<'a> {
    /// The chunk with its bytes; `name` names the input in errors. A file
    /// that shrank under us is an error, not a short chunk.
    pub(crate) fn load(self, name: &str) -> Result<Chunk<'a>> {
        match self.0 {
            Pending::Ready(chunk) => Ok(chunk),
            Pending::File {
                file,
                map,
                fetch,
                start,
                end,
                mut buf,
            } => {
                let (way, timed) = fetch.choose();
                let clock = || if timed { thread_cpu_ns() } else { 0 };
                if way == Way::Map {
                    let before = clock();
                    if populate(&map[start..end]) {
                        if timed {
                            let took = thread_cpu_ns().saturating_sub(before);
                            fetch.note(Way::Map, end - start, took);
                        }
                        // A file cut short within the chunk's last page
                        // maps zeros there, where `pread` finds its end.
                        if file.metadata().map_or(true, |m| m.len() < end as u64) {
                            return Err(truncated(name));
                        }
                        return Ok(Chunk {
                            start,
                            bytes: ChunkBytes::Borrowed(&map[start..end]),
                        });
                    }
                }
                // Bytes past the old length need no zeroing: they are
                // read over. A recycled buffer keeps its length, so this
                // zeroes only what it grows by (not part of the copy's
                // cost: it is paid once per buffer).
                buf.resize(end - start, 0);
                let before = clock();
                read_at(file, &mut buf, start, name)?;
                if timed {
                    let took = thread_cpu_ns().saturating_sub(before);
                    fetch.note(Way::Copy, end - start, took);
                }
                Ok(Chunk {
                    start,
                    bytes: ChunkBytes::Owned(buf),
                })
            }
        }
    }
}

/// Fills `buf` from byte `at` of `file`; running out of file is the
/// truncation error.
fn read_at(file: &File, buf: &mut [u8], at: usize, name: &str) -> Result<()> {
    file.read_exact_at(buf, at as u64).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            truncated(name)
        } else {
            Error::io(name, e)
        }
    })
}

/// The error for a file that got shorter while it was being read.
pub(crate) fn truncated(name: &str) -> Error {
    Error::Input(format!(
        "{name}: the file was truncated while it was being read; \
         run again once the file is complete"
    ))
}

/// Where a chunk starting at `start` of `data` ends, given the wanted size.
pub(crate) type Cut = fn(data: &[u8], start: usize, size: usize) -> usize;

/// Successive [`Chunk`]s of an input.
pub(crate) struct Chunks<'a> {
    source: Source<'a>,
    pos: usize,
    size: usize,
    cut: Cut,
}

pub(super) enum Source<'a> {
    Slice(&'a [u8]),
    /// A regular file, cut at line ends; `map` is its mapping, for chunks
    /// with a long last line and for those `fetch` says to map.
    File {
        file: &'a File,
        map: &'a [u8],
        fetch: &'a Fetch,
        /// The bytes read at a chunk's nominal end.
        window: Vec<u8>,
        /// Buffers handed back by [`Chunks::recycle`].
        spare: Vec<Vec<u8>>,
    },
    Reader {
        reader: Box<dyn Read + Send>,
        /// Bytes read but not yet handed out (a partial last line).
        carry: Vec<u8>,
        eof: bool,
        /// Buffers handed back by [`Chunks::recycle`].
        spare: Vec<Vec<u8>>,
    },
}

impl<'a> Source<'a> {
    /// A regular file mapped at `map`, read with `pread` or from the map
    /// as `fetch` finds cheaper.
    pub(super) fn file(file: &'a File, map: &'a [u8], fetch: &'a Fetch) -> Source<'a> {
        Source::File {
            file,
            map,
            fetch,
            window: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// A stream whose first bytes, `head`, were read already.
    pub(super) fn reader(reader: Box<dyn Read + Send>, head: Vec<u8>) -> Source<'a> {
        Source::Reader {
            reader,
            carry: head,
            eof: false,
            spare: Vec::new(),
        }
    }
}

impl<'a> Chunks<'a> {
    /// Chunks of about `size` bytes from byte `pos` of `source`, ending
    /// where `cut` says (for a file or a stream: at line ends).
    pub(super) fn new(source: Source<'a>, pos: usize, size: usize, cut: Cut) -> Chunks<'a> {
        Chunks {
            source,
            pos,
            size: size.max(1),
            cut,
        }
    }

    /// The next chunk, or None at the end of input (the chunked readers
    /// take [`Chunks::next_unread`] and load it outside their lock).
    #[cfg(test)]
    pub(crate) fn next_chunk(&mut self, name: &str) -> Result<Option<Chunk<'a>>> {
        match self.next_unread(name)? {
            Some(unread) => unread.load(name).map(Some),
            None => Ok(None),
        }
    }

    /// Where the next chunk is, or None at the end of input; a file's
    /// chunk is read by [`Unread::load`], other inputs' are read already.
    pub(crate) fn next_unread(&mut self, name: &str) -> Result<Option<Unread<'a>>> {
        let start = self.pos;
        let bytes = match &mut self.source {
            Source::Slice(data) => {
                let data: &'a [u8] = data;
                if start >= data.len() {
                    return Ok(None);
                }
                let end = (self.cut)(data, start, self.size);
                ChunkBytes::Borrowed(&data[start..end])
            }
            Source::File {
                file,
                map,
                fetch,
                window,
                spare,
            } => {
                let (file, map, fetch): (&'a File, &'a [u8], &'a Fetch) = (file, map, fetch);
                if start >= map.len() {
                    return Ok(None);
                }
                let Some(end) = file_cut(file, map.len(), start, self.size, window, name)? else {
                    let end = (self.cut)(map, start, self.size);
                    self.pos = end;
                    let bytes = ChunkBytes::Borrowed(&map[start..end]);
                    return Ok(Some(Unread(Pending::Ready(Chunk { start, bytes }))));
                };
                self.pos = end;
                let buf = spare.pop().unwrap_or_default();
                return Ok(Some(Unread(Pending::File {
                    file,
                    map,
                    fetch,
                    start,
                    end,
                    buf,
                })));
            }
            Source::Reader {
                reader,
                carry,
                eof,
                spare,
            } => match read_chunk(reader, carry, eof, spare, self.size) {
                Ok(Some(v)) => ChunkBytes::Owned(v),
                Ok(None) => return Ok(None),
                Err(e) => return Err(Error::io(name, e)),
            },
        };
        self.pos += bytes.len();
        Ok(Some(Unread(Pending::Ready(Chunk { start, bytes }))))
    }

    /// Gives a parsed chunk's buffer back for reuse.
    pub(crate) fn recycle(&mut self, bytes: ChunkBytes<'_>) {
        let spare = match &mut self.source {
            Source::Reader { spare, .. } => {
                if let ChunkBytes::Owned(mut v) = bytes
                    && spare.len() < SPARE
                {
                    // A stream's buffer is appended to.
                    v.clear();
                    spare.push(v);
                }
                return;
            }
            Source::File { spare, .. } => spare,
            Source::Slice(_) => return,
        };
        // A file's buffer keeps its length: it is read over, not zeroed.
        if let ChunkBytes::Owned(v) = bytes
            && spare.len() < SPARE
        {
            spare.push(v);
        }
    }
}

/// End of the chunk starting at `start`: the line end at or after `start + size`.
pub(super) fn cut(data: &[u8], start: usize, size: usize) -> usize {
    let from = start.saturating_add(size).min(data.len());
    match memchr::memchr(b'\n', &data[from..]) {
        Some(i) => from + i + 1,
        None => data.len(),
    }
}

/// [`cut`] for a file of `len` bytes, from one window read at `start +
/// size` (into `window`): None when the line there does not end within it.
fn file_cut(
    file: &File,
    len: usize,
    start: usize,
    size: usize,
    window: &mut Vec<u8>,
    name: &str,
) -> Result<Option<usize>> {
    let from = start.saturating_add(size).min(len);
    if from == len {
        return Ok(Some(len));
    }
    let n = WINDOW.min(len - from);
    window.resize(n, 0);
    read_at(file, window, from, name)?;
    Ok(memchr::memchr(b'\n', window).map(|i| from + i + 1))
}

/// Reads until the buffer holds `size` bytes and a line end (or the stream
/// ends); returns everything up to the last line end, keeping the rest.
fn read_chunk(
    reader: &mut Box<dyn Read + Send>,
    carry: &mut Vec<u8>,
    eof: &mut bool,
    spare: &mut Vec<Vec<u8>>,
    size: usize,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = spare.pop().unwrap_or_default();
    buf.append(carry);
    let mut scanned = 0;
    loop {
        if let Some(end) = line_end_after(&buf, size, &mut scanned) {
            carry.extend_from_slice(&buf[end..]);
            buf.truncate(end);
            return Ok(Some(buf));
        }
        if *eof {
            return Ok((!buf.is_empty()).then_some(buf));
        }
        let want = size.clamp(64 * 1024, 16 << 20) as u64;
        let n = (&mut *reader).take(want).read_to_end(&mut buf)?;
        *eof = (n as u64) < want;
    }
}

/// The end of the first line ending at or after byte `size` of `buf`, if any.
fn line_end_after(buf: &[u8], size: usize, scanned: &mut usize) -> Option<usize> {
    if buf.len() < size {
        return None;
    }
    let from = (size.saturating_sub(1)).max(*scanned);
    *scanned = buf.len();
    memchr::memchr(b'\n', &buf[from..]).map(|i| from + i + 1)
}

#[cfg(test)]
mod tests {
    use super::super::Input;
    use super::{ChunkBytes, WINDOW, Way};
    use std::path::Path;

    fn pieces(input: &Input, size: usize) -> Vec<(usize, Vec<u8>)> {
        let mut chunks = input.chunks(size);
        let mut out = Vec::new();
        while let Some(c) = chunks.next_chunk("t").unwrap() {
            out.push((c.start, c.bytes.to_vec()));
            chunks.recycle(c.bytes);
        }
        out
    }

    fn concat(pieces: &[(usize, Vec<u8>)]) -> Vec<u8> {
        let mut all = Vec::new();
        for (start, b) in pieces {
            assert_eq!(*start, all.len());
            all.extend_from_slice(b);
        }
        all
    }

    /// `text` as a file, a stream and bytes in memory.
    fn three_ways(text: &[u8], dir: &Path) -> [Input; 3] {
        let path = dir.join("t.trace");
        std::fs::write(&path, text).unwrap();
        let reader = Box::new(std::io::Cursor::new(text.to_vec()));
        [
            Input::from_bytes("t", text.to_vec()),
            Input::from_reader("t", reader).unwrap(),
            Input::open(&path).unwrap(),
        ]
    }

    #[test]
    fn chunks_end_at_line_ends_and_cover_everything() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"E1\nX1\n\nE22\nX22".to_vec();
        for size in [1, 2, 3, 5, 100] {
            for input in three_ways(&text, dir.path()) {
                let got = pieces(&input, size);
                assert_eq!(concat(&got), text, "size {size}");
                for (start, bytes) in &got[..got.len() - 1] {
                    assert!(bytes.ends_with(b"\n"), "size {size} at {start}");
                }
            }
        }
    }

    #[test]
    fn a_file_cuts_like_its_bytes_in_memory_past_lines_longer_than_the_window() {
        // Lines of every length around the window's, and recycled buffers
        // longer and shorter than the next chunk: each chunk must hold its
        // own bytes only, as the cut of the same bytes in memory does.
        let dir = tempfile::tempdir().unwrap();
        let mut text = Vec::new();
        for (i, n) in [10, 5000, 3, 4095, 4096, 4097, 9000, 1, 70]
            .iter()
            .enumerate()
        {
            text.extend(std::iter::repeat_n(b'a' + i as u8, *n));
            text.push(b'\n');
        }
        text.extend_from_slice(b"no line end");
        for size in [1, 7, 4096, 6000, 20_000, 1 << 20] {
            let [mem, _, file] = three_ways(&text, dir.path());
            assert_eq!(pieces(&file, size), pieces(&mem, size), "size {size}");
        }
    }

    #[test]
    fn a_file_gives_the_same_chunks_mapped_as_copied() {
        // Chunks of a few pages, with the probes of the way not preferred
        // among them: every chunk holds its own bytes either way.
        let dir = tempfile::tempdir().unwrap();
        let text: Vec<u8> = (0..40_000u32)
            .flat_map(|i| format!("E0x{:x} {} {}\n", 0x401000 + i % 97, i, 7).into_bytes())
            .collect();
        let [mem, _, _] = three_ways(&text, dir.path());
        let want = pieces(&mem, 10_000);
        assert!(want.len() > 40, "{} chunks", want.len());
        for way in [Way::Map, Way::Copy] {
            let [_, _, file] = three_ways(&text, dir.path());
            file.fetch.prefer(way);
            let mut chunks = file.chunks(10_000);
            let mut got = Vec::new();
            let mut kinds = [0, 0];
            while let Some(c) = chunks.next_chunk("t").unwrap() {
                kinds[usize::from(matches!(c.bytes, ChunkBytes::Owned(_)))] += 1;
                got.push((c.start, c.bytes.to_vec()));
                chunks.recycle(c.bytes);
            }
            assert_eq!(got, want, "{way:?}");
            // Mostly the preferred way, the other one probed.
            let (preferred, probed) = match way {
                Way::Map => (kinds[0], kinds[1]),
                Way::Copy => (kinds[1], kinds[0]),
            };
            assert!(preferred > 10 * probed && probed > 0, "{way:?}: {kinds:?}");
        }
    }

    #[test]
    fn a_line_longer_than_the_window_is_borrowed_from_the_map_not_copied() {
        // A huge name must never be copied whole (the readers refuse it
        // from the map): its chunk is the map's bytes, the others are read.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        let long = "f".repeat(3 * WINDOW);
        std::fs::write(&path, format!("E main\nE {long} 1\nX main\n")).unwrap();
        let input = Input::open(&path).unwrap();
        input.fetch.prefer(Way::Copy);
        let mut chunks = input.chunks(3);
        let mut kinds = Vec::new();
        while let Some(c) = chunks.next_chunk("t").unwrap() {
            kinds.push(matches!(c.bytes, ChunkBytes::Borrowed(_)));
        }
        assert_eq!(kinds, [false, true, false]);
    }

    #[test]
    fn a_file_truncated_before_its_chunk_is_read_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        std::fs::write(&path, b"E main\nX main\n".repeat(4096)).unwrap();
        let input = Input::open(&path).unwrap();
        let mut chunks = input.chunks(1000);
        assert!(chunks.next_chunk("t.trace").unwrap().is_some());
        let unread = chunks.next_unread("t.trace").unwrap().unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(100)
            .unwrap();
        let err = unread.load("t.trace").err().unwrap().to_string();
        assert!(err.starts_with("t.trace: the file was truncated"), "{err}");
        let err = chunks.next_chunk("t.trace").err().unwrap().to_string();
        assert!(err.contains("truncated while it was being read"), "{err}");
    }
}
