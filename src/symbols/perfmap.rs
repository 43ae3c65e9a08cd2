//! Names for code that no loaded object holds, from a perf map: the text
//! file a JIT compiler writes for `perf` (`/tmp/perf-PID.map`, one
//! `START SIZE NAME` line per generated function, START and SIZE in hex
//! with or without `0x`, NAME to the end of the line; Linux
//! `tools/perf/Documentation/jit-interface.txt`). It is a source after the
//! first (`perf-map` in `LATER`, `mod.rs`): an address the executable or
//! the mapped objects do not hold and a range of the map does gets that
//! range's name, with
//! `[perf-map]` for its source file (so `--modules auto:file` puts such
//! functions in a module `[perf-map]`). Where ranges overlap, the later
//! line wins (a JIT that reuses freed code memory writes the new function
//! after the old one). Names are bounded at 1 MiB, as in every trace
//! format; a longer one is refused without reading its line into memory.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::distinct::Identity;
use super::mapindex::MapIndex;
use super::source::{Boxed, Naming, Place, SymbolSource};
use super::{FuncInfo, SymbolOptions};
use crate::error::{Error, Result};
use crate::ingest::{MAX_NAME, name_bound};
use crate::ingest::{Mapping, TraceMeta};

/// The source file of the functions a perf map names.
const PERF_MAP_FILE: &str = "[perf-map]";

/// The object index of perf-map functions in their identities: no
/// mapping of the trace has it.
const OBJECT: usize = usize::MAX;

/// A perf map, read.
pub(super) struct PerfMap {
    /// Its ranges as mappings whose path is the function's name.
    ranges: Vec<Mapping>,
    index: MapIndex,
}

/// The perf map of this trace as a source in `LATER`, or None when it
/// has none: no `--perf-map` and no `/tmp/perf-PID.map` of its process.
pub(super) fn open(opts: &SymbolOptions, meta: &TraceMeta) -> Result<Option<Boxed>> {
    let found = PerfMap::find(opts.perf_map.as_deref(), meta.pid)?;
    Ok(found.map(|map| Box::new(map) as Boxed))
}

impl PerfMap {
    /// The perf map to name code outside the objects with: `explicit`
    /// (`--perf-map FILE`) when given, else the traced process's
    /// `/tmp/perf-PID.map` when the trace records its `pid` and the file
    /// exists.
    pub(super) fn find(explicit: Option<&Path>, pid: Option<u64>) -> Result<Option<PerfMap>> {
        if let Some(path) = explicit {
            return PerfMap::read(path).map(Some);
        }
        let Some(pid) = pid else {
            return Ok(None);
        };
        let path = PathBuf::from(format!("/tmp/perf-{pid}.map"));
        match path.is_file() {
            true => PerfMap::read(&path).map(Some),
            false => Ok(None),
        }
    }

    /// Reads the perf map at `path` (an input that `-o` may not overwrite).
    pub(super) fn read(path: &Path) -> Result<PerfMap> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        crate::ingest::opened::note(path);
        let ranges = parse(&path.display().to_string(), BufReader::new(file))?;
        let index = MapIndex::new(&ranges);
        Ok(PerfMap { ranges, index })
    }
}

impl SymbolSource for PerfMap {
    fn place(&mut self, _func: usize, addr: u64) -> Option<Place> {
        let at = self.index.find(addr)?;
        Some(Place {
            object: OBJECT,
            at,
            offset: addr - self.ranges[at].start,
        })
    }

    fn name(
        &mut self,
        place: Place,
        addr: u64,
        _naming: &mut Naming,
    ) -> (FuncInfo, Option<Identity>) {
        let range = &self.ranges[place.at];
        let info = FuncInfo {
            name: range.path.clone(),
            file: Some(PERF_MAP_FILE.to_string()),
            line: None,
        };
        // Each range is a function of its own: two of one name (code
        // generated again elsewhere) are told apart by address.
        let id = Identity {
            object: OBJECT,
            addr: range.start,
            runtime: addr,
            local: true,
            unit: None,
        };
        (info, Some(id))
    }
}

/// The longest line read whole: a name at the bound, after its start and
/// size with room for any blanks a writer pads them with.
const LINE_BOUND: usize = MAX_NAME + 4096;

/// The ranges of the perf map read from `text` (`path` names it in
/// messages), in line order; blank lines are skipped. A line is read
/// whole only up to [`LINE_BOUND`]: a longer one is refused after
/// counting its bytes, never held in memory.
fn parse(path: &str, mut text: impl BufRead) -> Result<Vec<Mapping>> {
    let mut ranges = Vec::new();
    let mut buf = Vec::new();
    for number in 1u64.. {
        buf.clear();
        let io = |e| Error::io(path, e);
        let got = (&mut text)
            .take(LINE_BOUND as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(io)?;
        if got == 0 {
            break;
        }
        let err = |msg: String| Error::parse(path, number, msg);
        if buf.len() > LINE_BOUND && buf.last() != Some(&b'\n') {
            let rest = skip_line(&mut text).map_err(io)?;
            return Err(err(overlong(&buf, rest)));
        }
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        ranges.push(parse_line(line).map_err(err)?);
    }
    Ok(ranges)
}

/// What the rest of a line past `LINE_BOUND` held: its length up to the
/// newline (which it consumes) and how many blanks it ends with.
fn skip_line(text: &mut impl BufRead) -> std::io::Result<(u64, u64)> {
    let (mut len, mut blanks) = (0u64, 0u64);
    loop {
        let chunk = text.fill_buf()?;
        if chunk.is_empty() {
            return Ok((len, blanks));
        }
        let end = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..end.unwrap_or(chunk.len())];
        let trailing = part.len() - part.trim_ascii_end().len();
        blanks = match trailing == part.len() {
            true => blanks + trailing as u64,
            false => trailing as u64,
        };
        len += part.len() as u64;
        let used = part.len() + usize::from(end.is_some());
        text.consume(used);
        if end.is_some() {
            return Ok((len, blanks));
        }
    }
}

/// What was expected of a line longer than [`LINE_BOUND`] whose first
/// `head` bytes were read and whose rest was `(length, trailing blanks)`:
/// a name within the bound when it starts as a range, else a range.
fn overlong(head: &[u8], (rest, blanks): (u64, u64)) -> String {
    let (start, after) = word(head);
    let (size, after) = word(after);
    let name_at = head.len() - after.trim_ascii_start().len();
    if hex(start).is_none() || hex(size).is_none() || name_at == head.len() {
        return malformed(head);
    }
    let len = (head.len() - name_at) as u64 + rest - blanks;
    format!(
        "expected {}",
        name_bound(usize::try_from(len).unwrap_or(usize::MAX))
    )
}

/// What a perf map line is, for a `line` that is not one.
fn malformed(line: &[u8]) -> String {
    let shown = crate::error::escape_bytes(line, 60);
    format!(
        "expected a perf map line `START SIZE NAME` (START and SIZE in hex, a range below 2^64), found `{shown}`"
    )
}

/// `START SIZE NAME` as a mapping of `NAME` over `START..START+SIZE`, or
/// what was expected instead.
fn parse_line(line: &[u8]) -> std::result::Result<Mapping, String> {
    let (start, rest) = word(line);
    let (size, rest) = word(rest);
    let name = rest.trim_ascii();
    let range = hex(start).and_then(|s| Some((s, s.checked_add(hex(size)?)?)));
    let Some((start, end)) = range.filter(|_| !name.is_empty()) else {
        return Err(malformed(line));
    };
    if name.len() > MAX_NAME {
        return Err(format!("expected {}", name_bound(name.len())));
    }
    Ok(Mapping {
        start,
        end,
        offset: 0,
        path: String::from_utf8_lossy(name).into_owned(),
        build_id: None,
    })
}

/// The first word of `text` (after blanks) and what follows it.
fn word(text: &[u8]) -> (&[u8], &[u8]) {
    let text = text.trim_ascii_start();
    let end = text
        .iter()
        .position(u8::is_ascii_whitespace)
        .unwrap_or(text.len());
    text.split_at(end)
}

/// A hex number with or without `0x`.
fn hex(word: &[u8]) -> Option<u64> {
    let digits = word
        .strip_prefix(b"0x")
        .or_else(|| word.strip_prefix(b"0X"))
        .unwrap_or(word);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u64::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(text: &str) -> Vec<(u64, u64, String)> {
        parse("p.map", text.as_bytes())
            .unwrap()
            .into_iter()
            .map(|m| (m.start, m.end, m.path))
            .collect()
    }

    #[test]
    fn reads_start_size_and_the_rest_of_the_line_as_the_name() {
        let text = "7f0000001000 20 jit_add\n0x7f0000002000 0x10 LazyCompile:*f a.js:1\r\n\n";
        assert_eq!(
            ranges(text),
            [
                (0x7f00_0000_1000, 0x7f00_0000_1020, "jit_add".to_string()),
                (
                    0x7f00_0000_2000,
                    0x7f00_0000_2010,
                    "LazyCompile:*f a.js:1".to_string()
                ),
            ]
        );
    }

    #[test]
    fn a_malformed_line_names_the_file_the_line_and_the_form() {
        for bad in [
            "1000 20\n",
            "xyz 20 f\n",
            "1000 -1 f\n",
            "ffffffffffffffff 2 f\n",
            "1000 10000000000000000 f\n",
        ] {
            let text = format!("1000 10 ok\n{bad}");
            let err = parse("/tmp/p.map", text.as_bytes())
                .unwrap_err()
                .to_string();
            assert!(err.starts_with("/tmp/p.map:2: expected"), "{err}");
            assert!(err.contains("`START SIZE NAME`"), "{err}");
        }
    }

    #[test]
    fn the_later_of_overlapping_ranges_names_an_address() {
        let ranges = parse("p.map", &b"1000 100 old\n1080 10 new\n"[..]).unwrap();
        let mut map = PerfMap {
            index: MapIndex::new(&ranges),
            ranges,
        };
        let at = |map: &mut PerfMap, a| map.place(0, a).map(|p| map.ranges[p.at].path.clone());
        assert_eq!(at(&mut map, 0x1084).as_deref(), Some("new"));
        assert_eq!(at(&mut map, 0x1090).as_deref(), Some("old"));
        assert_eq!(at(&mut map, 0x1100), None);
    }

    #[test]
    fn a_name_at_the_bound_is_read_and_one_past_it_is_refused_with_its_length() {
        let at = "n".repeat(MAX_NAME);
        assert_eq!(ranges(&format!("1000 10 {at}\n"))[0].2, at);
        let over = format!("1000 10 ok\n1000 10 {at}x  \r\n");
        let err = parse("p.map", over.as_bytes()).unwrap_err().to_string();
        let want = format!(
            "p.map:2: expected a function name of at most 1 MiB, not one of {} bytes",
            MAX_NAME + 1
        );
        assert_eq!(err, want);
    }

    #[test]
    fn a_line_past_the_read_bound_is_measured_not_read_whole() {
        // 3 MiB of name and 5000 blanks, streamed: only LINE_BOUND is held.
        let len = 3 << 20;
        let line = Read::chain(
            &b"1000 10 ok\n0x2000\t20  "[..],
            Read::chain(
                std::io::repeat(b'n').take(len as u64),
                Read::chain(std::io::repeat(b' ').take(5000), &b"\n3000 1 z\n"[..]),
            ),
        );
        let err = parse("p.map", BufReader::with_capacity(4096, line))
            .unwrap_err()
            .to_string();
        assert_eq!(err, format!("p.map:2: expected {}", name_bound(len)));
        // A long line that is not a range says what a line is.
        let blanks = Read::chain(std::io::repeat(b' ').take(2 << 20), &b"x\n"[..]);
        let err = parse("p.map", BufReader::new(blanks))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("p.map:1: expected a perf map line `START SIZE NAME`"),
            "{err}"
        );
    }

    #[test]
    fn skipping_a_long_line_reads_on_after_it() {
        let mut text = BufReader::with_capacity(8, &b"abcdefghijklmnop  \t\nnext"[..]);
        assert_eq!(skip_line(&mut text).unwrap(), (19, 3));
        let mut rest = String::new();
        text.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "next");
    }
}
