//! The bytes of one input: a memory-mapped file, bytes already in memory,
//! or standard input (`-`). Formats that need the whole input see it as one
//! byte slice (`Deref`); the E/X reader instead walks it in [`Chunks`] cut
//! at line ends ([`chunks`]), so a trace of many gigabytes never has to be
//! resident: a file's chunks are read into reused buffers (the map serves
//! the formats that need the whole input, and its pages are handed back to
//! the page cache once parsed, [`Input::release`]) and standard input is
//! read block by block. Pipes, FIFOs and `--trace <(cmd)` are streamed like
//! standard input; a directory or a device is refused with a clear message.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, Result};

mod chunks;
mod fetch;

pub(crate) use chunks::{Chunk, Chunks, Cut, Unread};
use chunks::{Source, cut};

/// How many bytes of a stream are read up front for sniffing.
const STREAM_HEAD: usize = 64 * 1024;

/// How many bytes of the input formats see when sniffing.
pub const HEAD: usize = 8192;

/// How far into the input the first event line may be: leading blank and
/// `#` lines beyond this are not skipped when sniffing. 1 MiB is about
/// 8,000 `# map` lines, far more than any real program's libraries.
pub const HEADER_BOUND: usize = 1 << 20;

/// Length of the complete blank and `#` lines at the start of `bytes`.
pub fn header_len(bytes: &[u8]) -> usize {
    let mut pos = 0;
    while let Some(i) = memchr::memchr(b'\n', &bytes[pos..]) {
        let line = &bytes[pos..pos + i];
        let n = line.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if line.get(n).is_some_and(|&b| b != b'#') {
            break;
        }
        pos += i + 1;
    }
    pos
}

/// An input trace: mapped, in memory, or streamed from stdin.
pub struct Input {
    name: String,
    data: Data,
    /// Bytes of a mapping consumed so far (to a page).
    released: AtomicUsize,
    /// Bytes of a mapping already handed back to the page cache.
    advised: AtomicUsize,
    /// How a file's chunks are fetched (`fetch`).
    fetch: fetch::Fetch,
}

/// Consumed bytes are handed back to the page cache this many at a time:
/// each hand-back unmaps pages on every core the process runs on (a TLB
/// shootdown), which per 1 MiB chunk cost a tenth of the CPU time of the
/// fastest readers.
const RELEASE_BATCH: usize = 8 << 20;

enum Data {
    /// A regular file: its map, and the file its chunks are read from.
    Mapped(memmap2::Mmap, File),
    Owned(Vec<u8>),
    Stream(Stream),
}

/// Standard input: the head is read at open (for sniffing); the rest is
/// either streamed by [`Chunks`] or read whole on first `Deref`.
struct Stream {
    head: Vec<u8>,
    reader: Mutex<Option<Box<dyn Read + Send>>>,
    all: OnceLock<Vec<u8>>,
}

impl Input {
    /// Opens `path`, or standard input when `path` is `-`.
    /// A directory is refused: a recorded trace (uftrace's) is opened by
    /// [`super::guess::open_trace`], which picks the file to sniff in it.
    pub fn open(path: &Path) -> Result<Input> {
        if path.as_os_str() == "-" {
            return Input::from_reader("<stdin>", Box::new(std::io::stdin()));
        }
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        super::opened::note_meta(path, &meta);
        let kind = meta.file_type();
        if kind.is_dir() {
            return Err(Error::Input(format!(
                "{name}: is a directory; expected a trace file"
            )));
        }
        if kind.is_fifo() || kind.is_socket() {
            // A pipe or `<(cmd)`: no size and no mapping, so stream it.
            return Input::from_reader(&name, Box::new(file));
        }
        if !kind.is_file() {
            return Err(Error::Input(format!(
                "{name}: is a device, not a trace file (use `--trace -` to read standard input)"
            )));
        }
        if meta.len() == 0 {
            return Ok(Input::from_bytes(&name, Vec::new()));
        }
        truncation::install();
        // SAFETY: the map is read-only. A trace rewritten while we read it
        // can give wrong results, as for any reader of a changing file; one
        // truncated under us makes reads past its new end raise SIGBUS,
        // which `truncation` turns into a clean error exit.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        let _ = map.advise(memmap2::Advice::Sequential);
        // The chunked readers read the file itself (`chunks`): the same
        // hint for its reads, so the kernel reads ahead far on a cold file.
        // SAFETY: a hint on an open descriptor; it reads no memory.
        let _ = unsafe {
            libc::posix_fadvise(
                std::os::fd::AsRawFd::as_raw_fd(&file),
                0,
                0,
                libc::POSIX_FADV_SEQUENTIAL,
            )
        };
        Ok(Input::new(name, Data::Mapped(map, file)))
    }

    /// Wraps bytes already in memory (tests, generated traces).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Input {
        Input::new(name.to_string(), Data::Owned(bytes))
    }

    /// The bytes of an input made by [`Input::from_bytes`], back for reuse.
    pub fn into_bytes(self) -> Option<Vec<u8>> {
        match self.data {
            Data::Owned(v) => Some(v),
            _ => None,
        }
    }

    /// Streams `reader` (standard input, a pipe); `name` is used in messages.
    pub fn from_reader(name: &str, mut reader: Box<dyn Read + Send>) -> Result<Input> {
        let mut head = Vec::with_capacity(STREAM_HEAD);
        (&mut reader)
            .take(STREAM_HEAD as u64)
            .read_to_end(&mut head)
            .map_err(|e| Error::io(name, e))?;
        // A long header of `#` lines: read on to the sniffing window.
        let wanted = header_len(&head) + HEAD;
        if head.len() == STREAM_HEAD && wanted > head.len() {
            let most = HEADER_BOUND + HEAD - head.len();
            (&mut reader)
                .take(most as u64)
                .read_to_end(&mut head)
                .map_err(|e| Error::io(name, e))?;
        }
        let stream = Stream {
            head,
            reader: Mutex::new(Some(reader)),
            all: OnceLock::new(),
        };
        Ok(Input::new(name.to_string(), Data::Stream(stream)))
    }

    fn new(name: String, data: Data) -> Input {
        Input {
            name,
            data,
            released: AtomicUsize::new(0),
            advised: AtomicUsize::new(0),
            fetch: fetch::Fetch::default(),
        }
    }

    /// The name used in messages (the path as given, `<stdin>` for `-`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// This input under another name (a recording's directory).
    pub fn renamed(self, name: String) -> Input {
        Input { name, ..self }
    }

    /// The first `n` bytes (or fewer), for sniffing. Never reads a stream whole.
    pub fn head(&self, n: usize) -> &[u8] {
        let bytes: &[u8] = match &self.data {
            Data::Stream(s) => s.all.get().unwrap_or(&s.head),
            _ => self,
        };
        &bytes[..n.min(bytes.len())]
    }

    /// True for standard input or a pipe, which can be read only once.
    pub(crate) fn is_stream(&self) -> bool {
        matches!(self.data, Data::Stream(_))
    }

    /// Walks the input in pieces of about `size` bytes, each ending at a
    /// line end (or the end of input).
    pub(crate) fn chunks(&self, size: usize) -> Chunks<'_> {
        let source = match &self.data {
            Data::Stream(s) if s.all.get().is_none() => {
                let reader = s.reader.lock().expect("stdin lock").take();
                match reader {
                    Some(r) => Source::reader(r, s.head.clone()),
                    None => Source::Slice(&[]),
                }
            }
            Data::Mapped(m, file) => Source::file(file, m, &self.fetch),
            _ => Source::Slice(self),
        };
        Chunks::new(source, 0, size, cut)
    }

    /// Walks the whole input from byte `start` in pieces of about `size`
    /// bytes, each ending where `cut(data, start, size)` says (for binary
    /// traces: at a block boundary). A stream is read whole first.
    pub(crate) fn chunks_cut_by(&self, start: usize, size: usize, cut: Cut) -> Chunks<'_> {
        Chunks::new(Source::Slice(self), start, size, cut)
    }

    /// Hands the mapped pages before byte `upto` back to the page cache:
    /// they were parsed and are not needed again, and resident file pages
    /// would otherwise count against the process as the file is read.
    /// Size of a mapped file, the only input whose reading can be followed
    /// ([`Input::consumed`]); None for memory and standard input.
    pub fn mapped_len(&self) -> Option<usize> {
        match &self.data {
            Data::Mapped(m, _) => Some(m.len()),
            _ => None,
        }
    }

    /// Bytes of a mapped file consumed so far (to a page), for progress bars.
    pub fn consumed(&self) -> usize {
        self.released.load(Ordering::Relaxed)
    }

    /// Starts following a new pass over the input from its first byte (a
    /// second parse releases its pages again and reports its own progress).
    pub(crate) fn rewind(&self) {
        self.released.store(0, Ordering::Relaxed);
        self.advised.store(0, Ordering::Relaxed);
    }

    pub(crate) fn release(&self, upto: usize) {
        let Data::Mapped(map, _) = &self.data else {
            return;
        };
        const PAGE: usize = 4096;
        let end = upto.min(map.len()) / PAGE * PAGE;
        self.released.fetch_max(end, Ordering::Relaxed);
        let done = self.advised.load(Ordering::Relaxed);
        if end < done + RELEASE_BATCH && upto < map.len() {
            return;
        }
        let start = self.advised.fetch_max(end, Ordering::Relaxed);
        if end > start {
            // SAFETY: a read-only private file mapping: dropped pages are
            // read back from the file if touched again, so no data is lost.
            let _ = unsafe {
                map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
            };
        }
    }
}

impl Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.data {
            Data::Mapped(m, _) => m,
            Data::Owned(v) => v,
            Data::Stream(s) => s.all.get_or_init(|| read_all(s)),
        }
    }
}

/// Reads what is left of a stream after its head; a read error ends it
/// (the bytes read so far are parsed and a torn last line is reported).
fn read_all(s: &Stream) -> Vec<u8> {
    let mut all = s.head.clone();
    if let Some(mut r) = s.reader.lock().expect("stdin lock").take() {
        let _ = r.read_to_end(&mut all);
    }
    all
}

/// Why `head` cannot be a trace in any of our formats because of its text
/// encoding (a byte-order mark or UTF-16), or None. Our text formats are
/// ASCII/UTF-8 without a BOM.
pub(super) fn encoding_problem(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\xEF\xBB\xBF") {
        return Some(
            "starts with a UTF-8 byte-order mark (EF BB BF); save the trace without it \
             (e.g. `sed -i '1s/^\\xEF\\xBB\\xBF//' FILE`)",
        );
    }
    // Without a byte-order mark, UTF-16 shows as text characters beside
    // zero bytes; binary headers (an XRay log's `01 00 01 00`) are not text.
    let text = |b: u8| b.is_ascii_graphic() || b.is_ascii_whitespace();
    let utf16 = head.starts_with(b"\xFF\xFE")
        || head.starts_with(b"\xFE\xFF")
        || (head.len() >= 4 && text(head[0]) && head[1] == 0 && text(head[2]) && head[3] == 0)
        || (head.len() >= 4 && head[0] == 0 && text(head[1]) && head[2] == 0 && text(head[3]));
    utf16.then_some(
        "is UTF-16 text; convert it to UTF-8 without a byte-order mark \
         (e.g. `iconv -f UTF-16 -t UTF-8`)",
    )
}

/// A mapped file truncated by another process while we read it raises
/// SIGBUS on the first access past its new end. Rust cannot recover from
/// that fault, so the handler reports it and ends the process with exit
/// code 2, as for any bad input, instead of dying with a bus error. Reads
/// happen before any output is written, so no output file is left behind.
mod truncation {
    use std::sync::Once;

    const MESSAGE: &[u8] =
        b"calltrace: error: an input file was truncated while it was being read \
(SIGBUS on its memory map); run again once the file is complete\n";

    static INSTALL: Once = Once::new();

    extern "C" fn on_sigbus(_: libc::c_int) {
        // SAFETY: write(2) and _exit(2) are async-signal-safe.
        unsafe {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::_exit(2);
        }
    }

    /// Installs the SIGBUS handler (once).
    pub(super) fn install() {
        INSTALL.call_once(|| {
            // SAFETY: a plain sigaction with an async-signal-safe handler.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_reads_whole_on_deref_and_sniffs_from_its_head() {
        let text = b"E main\nX main\n".repeat(10_000);
        let input = Input::from_reader("<stdin>", Box::new(std::io::Cursor::new(text.clone())));
        let input = input.unwrap();
        assert_eq!(input.head(6), b"E main");
        assert_eq!(&input[..], &text[..]);
    }

    #[test]
    fn a_directory_and_a_device_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let err = Input::open(dir.path()).err().unwrap().to_string();
        assert!(
            err.ends_with("is a directory; expected a trace file"),
            "{err}"
        );
        let err = Input::open(Path::new("/dev/zero"))
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("/dev/zero: is a device"), "{err}");
    }

    #[test]
    fn a_fifo_is_streamed() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a fresh path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let text = b"E main\nX main\n".repeat(20_000);
        let writer = {
            let (fifo, text) = (fifo.clone(), text.clone());
            std::thread::spawn(move || std::fs::write(fifo, text).unwrap())
        };
        let input = Input::open(&fifo).unwrap();
        assert_eq!(input.head(6), b"E main");
        assert_eq!(&input[..], &text[..]);
        writer.join().unwrap();
    }

    #[test]
    fn a_file_truncated_while_mapped_ends_with_an_error_not_a_bus_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        std::fs::write(&path, b"E main\nX main\n".repeat(4096)).unwrap();
        let mut fds = [0; 2];
        // SAFETY: pipe(2) into a local array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child only maps, truncates and reads, then exits.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            unsafe { libc::dup2(fds[1], 2) };
            let input = Input::open(&path).unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(0)
                .unwrap();
            let byte = std::hint::black_box(input[40_000]);
            unsafe { libc::_exit(i32::from(byte)) };
        }
        unsafe { libc::close(fds[1]) };
        let mut status = 0;
        // SAFETY: waiting for our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        let mut err = String::new();
        let mut pipe = unsafe { <File as std::os::fd::FromRawFd>::from_raw_fd(fds[0]) };
        pipe.read_to_string(&mut err).unwrap();
        assert!(
            libc::WIFEXITED(status),
            "killed by signal {}",
            libc::WTERMSIG(status)
        );
        assert_eq!(libc::WEXITSTATUS(status), 2);
        assert!(err.contains("truncated while it was being read"), "{err}");
    }

    #[test]
    fn binary_headers_with_zero_bytes_are_not_utf16() {
        // An XRay flight-data-recorder log: version 1, type 1.
        assert_eq!(encoding_problem(b"\x01\x00\x01\x00\x03\x00\x00\x00"), None);
    }

    #[test]
    fn byte_order_marks_and_utf16_are_named() {
        let utf16le: Vec<u8> = "E main\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let utf16be: Vec<u8> = "E main\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        let cases: [(&[u8], &str); 5] = [
            (b"\xEF\xBB\xBFE main\n", "UTF-8 byte-order mark"),
            (b"\xFF\xFEE\0", "UTF-16"),
            (b"\xFE\xFF\0E", "UTF-16"),
            (&utf16le, "UTF-16"),
            (&utf16be, "UTF-16"),
        ];
        for (head, want) in cases {
            let got = encoding_problem(head).unwrap_or_default();
            assert!(got.contains(want), "{head:?}: {got}");
        }
        for fine in [&b"E main\n"[..], b"CALLTRC\0\x01\0", b"", b"m"] {
            assert_eq!(encoding_problem(fine), None, "{fine:?}");
        }
    }
}
