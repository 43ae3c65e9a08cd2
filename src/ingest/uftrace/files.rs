//! The small files of a uftrace recording: the `info` header (magic,
//! version, byte order, feature bits, then `key:value` text lines), the
//! `task.txt` list of sessions, tasks and dlopen'ed libraries, the
//! `sid-<SID>.map` copy of the session's memory map (one line per object,
//! its segments merged, with the object's build-id), and where the
//! `<object>.sym` symbol lists are (`syms`). Layouts as uftrace writes
//! them (`uftrace.h`, `utils/data-file.c`, `libmcount/record.c`). Every
//! file of a recording is opened through [`open_regular`]: a FIFO or a
//! device in its place is refused (an optional `.sym` left out with a
//! warning), never waited on.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::error::{Error, Result};
use crate::ingest::Mapping;

/// The first eight bytes of a recording's `info` file.
pub(crate) const MAGIC: &[u8; 8] = b"Ftrace!\0";

/// Length of the fixed `info` header: magic, version (u32), header size
/// (u16), byte order, ELF class, feature mask, info mask (u64 each), stack
/// depth (u16) and padding.
const HEADER_LEN: usize = 40;

/// The file versions read: 4 (uftrace v0.6 on, what v0.13 here writes) and
/// 3, whose records are version 4's without argument data.
pub(crate) const VERSIONS: [u32; 2] = [3, 4];

/// Feature bit: `.sym` addresses are relative to the object's load address.
const SYM_REL_ADDR: u64 = 1 << 5;

/// What the `info` file says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Info {
    /// File version (see [`VERSIONS`]).
    pub version: u32,
    /// Feature bits.
    pub features: u64,
    /// The traced executable (`exename:` line), if recorded.
    pub exe: Option<String>,
}

impl Info {
    /// Whether `.sym` addresses are relative to their object's start.
    pub(super) fn relative_symbols(&self) -> bool {
        self.features & SYM_REL_ADDR != 0
    }
}

/// Reads the `info` file's bytes; `name` is its path for messages.
pub(crate) fn parse_info(name: &str, bytes: &[u8]) -> Result<Info> {
    let at = |pos: usize, what: &str| Error::Input(format!("{name}: byte {pos}: expected {what}"));
    if bytes.len() < HEADER_LEN {
        return Err(at(
            bytes.len(),
            &format!("the {HEADER_LEN}-byte header of uftrace's info file (the file is cut off)"),
        ));
    }
    if &bytes[..8] != MAGIC {
        return Err(at(0, "the magic `Ftrace!\\0` of uftrace's info file"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if !VERSIONS.contains(&version) {
        return Err(at(
            8,
            &format!(
                "uftrace data version 3 or 4, found {version}; record again with a uftrace \
                 that writes version 4 (v0.6 or later)"
            ),
        ));
    }
    let header = usize::from(u16::from_le_bytes([bytes[12], bytes[13]]));
    let (endian, class) = (bytes[14], bytes[15]);
    if endian != 1 || class != 2 {
        return Err(at(
            14,
            &format!(
                "a recording of a little-endian 64-bit program (byte order 1, class 2), \
                 found byte order {endian}, class {class}"
            ),
        ));
    }
    let features = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    let text = bytes.get(header.max(HEADER_LEN)..).unwrap_or_default();
    let exe = text
        .split(|&b| b == b'\n')
        .find_map(|l| l.strip_prefix(b"exename:"))
        .map(|e| String::from_utf8_lossy(e).into_owned());
    Ok(Info {
        version,
        features,
        exe,
    })
}

/// A session: a process image started (by exec) under uftrace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Session {
    /// When it started, in nanoseconds of the records' clock.
    pub time: u64,
    /// Its id, naming its `sid-<SID>.map`.
    pub sid: String,
    /// The executable.
    pub exe: String,
}

/// A library loaded with dlopen (a `DLOP` line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dlopen {
    /// When it was loaded, in nanoseconds of the records' clock.
    pub time: u64,
    /// Its load address.
    pub base: u64,
    /// Its path.
    pub path: String,
}

/// What `task.txt` lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tasks {
    /// Sessions in file order.
    pub sessions: Vec<Session>,
    /// dlopen'ed libraries in file order.
    pub dlopens: Vec<Dlopen>,
}

/// Reads `task.txt` (`name` is its path for messages). Lines of kinds it
/// does not need (`TASK`, `FORK`, newer ones) are passed over.
pub(crate) fn parse_tasks(name: &str, text: &str) -> Result<Tasks> {
    let mut tasks = Tasks::default();
    for (i, line) in text.lines().enumerate() {
        let err = |what: &str| Error::parse(name, i as u64 + 1, format!("expected {what}"));
        let Some((kind, rest)) = line.split_once(' ') else {
            continue;
        };
        let field = |key: &str| field(rest, key);
        let time = || field("timestamp").and_then(parse_timestamp);
        match kind {
            "SESS" => {
                let what = "`SESS timestamp=S.NS pid=N sid=SID exename=\"PATH\"`";
                let (Some(time), Some(sid), Some(exe)) = (time(), field("sid"), field("exename"))
                else {
                    return Err(err(what));
                };
                if sid.is_empty() || !sid.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(err(what));
                }
                tasks.sessions.push(Session {
                    time,
                    sid: sid.to_string(),
                    exe: unquote(exe).to_string(),
                });
            }
            "DLOP" => {
                let what = "`DLOP timestamp=S.NS tid=N sid=SID base=HEX libname=\"PATH\"`";
                let base = field("base").and_then(|b| u64::from_str_radix(b, 16).ok());
                let (Some(time), Some(base), Some(path)) = (time(), base, field("libname")) else {
                    return Err(err(what));
                };
                tasks.dlopens.push(Dlopen {
                    time,
                    base,
                    path: unquote(path).to_string(),
                });
            }
            _ => {}
        }
    }
    if tasks.sessions.is_empty() {
        return Err(Error::Input(format!(
            "{name}: expected a `SESS` line naming the recorded session; the file has none"
        )));
    }
    Ok(tasks)
}

/// The value of `key=` in the space-separated fields of `rest`; a quoted
/// `exename`/`libname` runs to the end of the line (paths may hold spaces).
fn field<'a>(rest: &'a str, key: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(i) = rest[from..].find(key) {
        let at = from + i;
        let starts = at == 0 || rest.as_bytes()[at - 1] == b' ';
        let value = &rest[at + key.len()..];
        if starts && let Some(value) = value.strip_prefix('=') {
            if value.starts_with('"') {
                return Some(value);
            }
            return Some(value.split(' ').next().unwrap_or_default());
        }
        from = at + key.len();
    }
    None
}

/// A `"quoted"` value without its quotes.
fn unquote(v: &str) -> &str {
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
}

/// `SECONDS.NANOSECONDS` as nanoseconds.
fn parse_timestamp(s: &str) -> Option<u64> {
    let (secs, nanos) = s.split_once('.')?;
    if nanos.len() != 9 || !nanos.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    secs.parse::<u64>()
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(nanos.parse().ok()?)
}

/// Reads a session map (`name` is its path for messages): the objects
/// with an executable segment, each spanning all of its segments from its
/// load address (the first segment, at file offset `offset`).
pub(crate) fn parse_map(name: &str, text: &str) -> Result<Vec<Mapping>> {
    let mut maps = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let err = || {
            Error::parse(
                name,
                i as u64 + 1,
                "expected `START-END PERMS OFFSET DEV INODE PATH [build-id:HEX]`",
            )
        };
        let mut parts = line.split_whitespace();
        let (Some(range), Some(perms), Some(offset)) = (parts.next(), parts.next(), parts.next())
        else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(err());
        };
        let (start, end) = range.split_once('-').ok_or_else(err)?;
        let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|_| err());
        let (start, end, offset) = (hex(start)?, hex(end)?, hex(offset)?);
        let path = parts.nth(2).unwrap_or_default();
        if path.is_empty() || path.starts_with('[') || !perms.contains('x') {
            continue;
        }
        let build_id = parts
            .next()
            .and_then(|b| b.strip_prefix("build-id:"))
            .filter(|b| !b.is_empty())
            .map(str::to_ascii_lowercase);
        maps.push(Mapping {
            start,
            end,
            offset,
            path: path.to_string(),
            build_id,
        });
    }
    Ok(maps)
}

/// The `.sym` file uftrace saved for the object at `path`: the object's
/// file name with `.sym` added, in the recording directory `dir`.
pub(crate) fn sym_file(dir: &Path, path: &str) -> Option<std::path::PathBuf> {
    let base = Path::new(path).file_name()?;
    let mut name = base.to_os_string();
    name.push(".sym");
    Some(dir.join(name))
}

/// Opens `path` for reading when it is a regular file; `what` says what
/// the recording keeps there, for the message when it is not. The file is
/// opened without blocking and then looked at, so a FIFO (which would wait
/// for a writer forever) or a device is refused, never read.
pub(crate) fn open_regular(path: &Path, what: &str) -> Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let kind = file.metadata().map_err(|e| Error::io(path, e))?.file_type();
    if !kind.is_file() {
        return Err(Error::Input(format!(
            "{}: expected {what} (a regular file), found {}",
            path.display(),
            kind_name(kind)
        )));
    }
    Ok(file)
}

/// What a file that is not a regular file is, in messages.
fn kind_name(kind: std::fs::FileType) -> &'static str {
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "a special file"
    }
}

/// The bytes of the regular file `path` (see [`open_regular`]).
pub(crate) fn read_regular(path: &Path, what: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_regular(path, what)?
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    crate::ingest::opened::note(path);
    Ok(bytes)
}
