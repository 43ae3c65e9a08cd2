//! Format sniffing: every format looks at the first few KiB and says whether
//! the input is its own; the first that does wins (binary, indented, address
//! E/X, symbolic E/X). `--format NAME` skips the guess. The few KiB start
//! at the first line that is not blank or a `#` comment, however far into
//! the input it is (up to [`HEADER_BOUND`]): a program with 80 shared
//! libraries writes 10 KB of `# map` lines before its first event.

pub use super::input::{HEAD, HEADER_BOUND, header_len};
use std::path::Path;

use super::{Input, TraceFormat, format_by_name, formats};
use crate::error::{Error, Result};

/// The bytes formats sniff: the leading blank and `#` lines (up to
/// [`HEADER_BOUND`]), then [`HEAD`] bytes from the first other line.
pub fn sniff_window(input: &Input) -> &[u8] {
    let wide = input.head(HEADER_BOUND + HEAD);
    let start = header_len(wide).min(HEADER_BOUND);
    &wide[..(start + HEAD).min(wide.len())]
}

/// Lines of `head` that are neither blank nor `#` comments, without `\r`
/// and leading white space. A final line cut off by the head limit is dropped.
pub fn meaningful_lines(head: &[u8]) -> impl Iterator<Item = &[u8]> {
    let complete = if head.len() >= HEAD {
        match memchr::memrchr(b'\n', head) {
            Some(i) => &head[..i],
            None => head,
        }
    } else {
        head
    };
    complete
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .map(|l| {
            let n = l.iter().take_while(|b| b.is_ascii_whitespace()).count();
            &l[n..]
        })
        .filter(|l| !l.is_empty() && l[0] != b'#')
}

/// Picks the format: the one named by `forced`, or the first that sniffs the input as its own.
pub fn detect(input: &Input, forced: Option<&str>) -> Result<&'static dyn TraceFormat> {
    if let Some(problem) = super::input::encoding_problem(input.head(4)) {
        return Err(Error::Input(format!("{}: {problem}", input.name())));
    }
    let forced_format = forced.and_then(format_by_name);
    if let Some(f) = forced_format
        && let Some(magic) = f.magic()
        && input.head(magic.len()).len() == magic.len()
        && input.head(magic.len()) != magic
    {
        // Checked on the head: a stream (`<(cat /dev/zero)`) would
        // otherwise be read whole before the reader sees its first bytes.
        let shown = magic.escape_ascii().to_string().replace("\\x00", "\\0");
        return Err(Error::Input(format!(
            "{}: byte 0: expected the magic `{shown}` of a {} calltrace trace",
            input.name(),
            f.name()
        )));
    }
    // A format without a magic (or an unknown name) forced on an input
    // that begins with another format's magic.
    if let Some(name) = forced
        && forced_format.and_then(|f| f.magic()).is_none()
        && let Some((owner, magic)) = magic_of(input)
    {
        return Err(Error::Input(format!(
            "{}: byte 0: `{}` begins a {} calltrace trace, not the lines of \
             --format {name}; pass --format {} or leave --format out",
            input.name(),
            magic.escape_ascii(),
            owner.name(),
            owner.name()
        )));
    }
    if let Some(name) = forced {
        return format_by_name(name).ok_or_else(|| {
            let names: Vec<_> = formats().map(|f| f.name()).collect();
            // The command line only lets known names through; a caller of
            // the library names the flag (`Error::for_flag`).
            Error::value(format!(
                "unknown format `{name}`; expected one of {}",
                names.join(", ")
            ))
        });
    }
    let head = sniff_window(input);
    if meaningful_lines(head).next().is_none() && !head.starts_with(super::binary::MAGIC) {
        return Err(Error::Input(format!(
            "{}: the trace is empty (no events){}",
            input.name(),
            where_events_went(Path::new(input.name()))
        )));
    }
    formats().find(|f| f.sniff(head)).ok_or_else(|| {
        if let Some(what) = not_a_trace(head) {
            return Error::Input(format!("{}: {what}", input.name()));
        }
        let first = meaningful_lines(head).next().unwrap_or_default();
        let shown = crate::error::escape_bytes(first, 60);
        Error::Input(format!(
            "{}: cannot tell the trace format from `{shown}`; expected E/X lines (`E0x401136`, `E main`), \
             indented `name (self / total)` lines or a binary calltrace trace (or pass --format)",
            input.name()
        ))
    })
}

/// For an empty trace: the traces beside it named like it with a process id
/// added (`trace.1234.txt` beside `trace.txt`), which the runtime writes
/// when another traced process, or a second copy of the runtime in the same
/// process (linked into a library too), holds the name. Empty if none.
fn where_events_went(path: &Path) -> String {
    const SHOWN: usize = 4;
    let (Some(name), Some(dir)) = (path.file_name(), path.parent()) else {
        return String::new();
    };
    let name = name.to_string_lossy();
    let (stem, ext) = match name.rfind('.') {
        Some(dot) if dot > 0 => (&name[..dot], &name[dot..]),
        _ => (&name[..], ""),
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return String::new();
    };
    let mut found: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| {
            f.strip_prefix(stem)
                .and_then(|r| r.strip_prefix('.'))
                .and_then(|r| r.strip_suffix(ext))
                .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    if found.is_empty() {
        return String::new();
    }
    found.sort();
    let more = found.len().saturating_sub(SHOWN);
    found.truncate(SHOWN);
    let shown: Vec<String> = found
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect();
    format!(
        "; the events may be in {}{}: a traced process writes NAME.<pid>.EXT when another \
         one, or a second copy of the runtime in it (linked into a library as well), holds NAME",
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// The format whose magic `input` begins with, and that magic.
fn magic_of(input: &Input) -> Option<(&'static dyn TraceFormat, &'static [u8])> {
    formats().find_map(|f| {
        let magic = f.magic()?;
        (input.head(magic.len()) == magic).then_some((f, magic))
    })
}

/// Whether a file that begins with `head` (its first [`HEAD`] bytes) may
/// be a trace: some format reads it, or it holds no lines to tell (an
/// empty trace, which its reader reports).
pub fn may_be_trace(head: &[u8]) -> bool {
    head.starts_with(super::binary::MAGIC)
        || meaningful_lines(head).next().is_none()
        || formats().any(|f| f.sniff(head))
}

/// Whether a file that begins with `head` (its first [`HEAD`] bytes) is a
/// trace some format reads: unlike [`may_be_trace`], a file without lines
/// is not.
pub fn is_trace(head: &[u8]) -> bool {
    head.starts_with(super::binary::MAGIC) || formats().any(|f| f.sniff(head))
}

/// Whether a file that begins with `head` is a program or library (ELF):
/// the one test of "is this the traced program, not a trace" that every
/// command's `[BINARY] TRACE...` arguments, `compare`'s directories and
/// the pipeline's BINARY check make.
pub fn is_elf(head: &[u8]) -> bool {
    head.starts_with(b"\x7fELF")
}

/// Whether `path` is a regular file that begins like a program ([`is_elf`]).
pub fn is_elf_file(path: &Path) -> bool {
    path.is_file() && head_of(path).is_ok_and(|h| is_elf(&h))
}

/// The format and the file to open when `dir` is a recorded trace (a
/// directory some format reads: [`TraceFormat::recording_entry`]).
pub(crate) fn recording(dir: &Path) -> Option<(&'static dyn TraceFormat, std::path::PathBuf)> {
    if !dir.is_dir() {
        return None;
    }
    formats().find_map(|f| f.recording_entry(dir).map(|entry| (f, entry)))
}

/// Opens the trace at `path` as [`Input::open`] does, and a recorded
/// trace (a directory some format reads, [`recording`]) as the file of it
/// that is sniffed, the rest read beside it, under the directory's name.
pub fn open_trace(path: &Path) -> Result<Input> {
    match recording(path) {
        Some((_, entry)) => {
            let name = path.display().to_string();
            Input::open(&entry).map(|i| i.renamed(name))
        }
        None => Input::open(path),
    }
}

/// The first bytes of the file at `path`, as many as sniffing looks at
/// ([`HEAD`]).
pub fn head_of(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(HEAD);
    std::fs::File::open(path)?
        .take(HEAD as u64)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// What a file that no format reads is instead, when its first bytes say
/// so: a program given as the trace, a compressed trace, other binary data.
pub(crate) fn not_a_trace(head: &[u8]) -> Option<String> {
    const EXPECTED: &str = "expected E/X lines, indented lines or a binary calltrace trace";
    let what = if is_elf(head) {
        return Some(
            "this is a program or library (ELF), not a trace; give the program as BINARY and \
             the trace it wrote with --trace (`calltrace graph ./app --trace trace.txt`)"
                .to_string(),
        );
    } else if head.starts_with(&[0x1f, 0x8b]) {
        "gzip-compressed data; decompress it first (`gunzip -k FILE`)"
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        "zstd-compressed data; decompress it first (`zstd -d FILE`)"
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        "xz-compressed data; decompress it first (`xz -dk FILE`)"
    } else if head.starts_with(b"BZh")
        && head.get(4..10) == Some(&[0x31, 0x41, 0x59, 0x26, 0x53, 0x59])
    {
        "bzip2-compressed data; decompress it first (`bzip2 -dk FILE`)"
    } else {
        let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
        let control = first
            .iter()
            .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\r'));
        if !control && std::str::from_utf8(first).is_ok() {
            return None;
        }
        "binary data that is not a calltrace binary trace (no `CALLTRC` magic)"
    };
    Some(format!(
        "cannot tell the trace format: the file is {what}; {EXPECTED}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(text: &[u8]) -> Result<&'static str> {
        detect(&Input::from_bytes("t", text.to_vec()), None).map(|f| f.name())
    }

    /// Issue 28, item 5: a runtime linked into a library as well as the
    /// executable left `trace.txt` with headers only, and the error did not
    /// say that the events were in `trace.<pid>.txt` beside it.
    #[test]
    fn an_empty_trace_names_the_pid_named_traces_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let header = "# calltrace 1 text\n# base 0x1000 /x/app\n";
        let trace = dir.path().join("trace.txt");
        std::fs::write(&trace, header).unwrap();
        for other in [
            "trace.4242.txt",
            "trace.x1.txt",
            "trace.txt.1",
            "other.77.txt",
        ] {
            std::fs::write(dir.path().join(other), header).unwrap();
        }
        let err = detect(&Input::open(&trace).unwrap(), None).err().unwrap();
        let msg = err.to_string();
        assert!(msg.contains("the trace is empty"), "{msg}");
        let beside = dir.path().join("trace.4242.txt");
        assert!(
            msg.contains(&format!("events may be in {}:", beside.display())),
            "{msg}"
        );
        for other in ["trace.x1.txt", "trace.txt.1", "other.77.txt"] {
            assert!(!msg.contains(other), "{msg}");
        }
        std::fs::remove_file(&beside).unwrap();
        let msg = detect(&Input::open(&trace).unwrap(), None)
            .err()
            .unwrap()
            .to_string();
        assert!(msg.ends_with("the trace is empty (no events)"), "{msg}");
    }

    #[test]
    fn picks_each_format_from_its_first_lines() {
        assert_eq!(
            name_of(b"# calltrace 1 text\n# base 0x1000\nE0x1136 1 1\n").unwrap(),
            "addr"
        );
        assert_eq!(name_of(b"E main\nX main\n").unwrap(), "symbolic");
        assert_eq!(
            name_of(b"Main (3000 / 10000)\n  funcA (1500 / 4000)\n").unwrap(),
            "indented"
        );
        assert_eq!(name_of(b"CALLTRC\0\x01\0").unwrap(), "binary");
    }

    #[test]
    fn a_long_header_of_comments_is_skipped_when_sniffing() {
        let header = "# map 0x7f0000000000 0x7f0000001000 0x0 - /usr/lib/libsomething.so\n";
        let text = format!(
            "# calltrace 1 text\n{}E0x1136 1 1\nX0x1136 2 1\n",
            header.repeat(300)
        );
        assert!(text.len() > 2 * HEAD);
        assert_eq!(name_of(text.as_bytes()).unwrap(), "addr");
        assert_eq!(header_len(b"# a\n\n  # b\r\nE main\n# c\n"), 12);
        assert_eq!(header_len(b"# no line end"), 0);
    }

    #[test]
    fn unknown_and_empty_inputs_are_clear_errors() {
        let err = name_of(b"hello world\n").unwrap_err().to_string();
        assert!(
            err.contains("cannot tell the trace format from `hello world`"),
            "{err}"
        );
        assert!(
            name_of(b"# only a comment\n\n")
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
        let err = name_of(b"\x7fELF\x02\x01\x01\0\0\0")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("t: this is a program or library (ELF), not a trace"),
            "{err}"
        );
        let err = name_of(b"\x1f\x8b\x08\0\0\0").unwrap_err().to_string();
        assert!(
            err.contains("gzip-compressed") && err.contains("gunzip"),
            "{err}"
        );
        let err = name_of(b"\x01\x02\x03junk\n").unwrap_err().to_string();
        assert!(
            err.contains("binary data that is not a calltrace binary trace"),
            "{err}"
        );
        let err = detect(&Input::from_bytes("t", vec![]), Some("xml"))
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("unknown format `xml`"), "{err}");
    }

    #[test]
    fn a_forced_format_is_checked_against_the_magic_of_the_input() {
        let err = |bytes: &[u8], forced| {
            let input = Input::from_bytes("t", bytes.to_vec());
            detect(&input, Some(forced))
                .map(|f| f.name())
                .unwrap_err()
                .to_string()
        };
        let binary = b"CALLTRC\0\x02\0\x01\0";
        for forced in ["addr", "symbolic", "indented", "xml"] {
            assert_eq!(
                err(binary, forced),
                format!(
                    "t: byte 0: `CALLTRC\\x00` begins a binary calltrace trace, not the lines of \
                     --format {forced}; pass --format binary or leave --format out"
                )
            );
        }
        assert_eq!(
            err(b"E0x10\nX0x10\n", "binary"),
            "t: byte 0: expected the magic `CALLTRC\\0` of a binary calltrace trace"
        );
    }
}
