//! Names for code that no loaded object holds, from a perf map: the text
//! file a JIT compiler writes for `perf` (`/tmp/perf-PID.map`, one
//! `START SIZE NAME` line per generated function, START and SIZE in hex
//! with or without `0x`, NAME to the end of the line; Linux
//! `tools/perf/Documentation/jit-interface.txt`). It is the source asked
//! after the executable or the mapped objects: an address they do not
//! hold and a range of the map does gets that range's name, with
//! `[perf-map]` for its source file (so `--modules auto:file` puts such
//! functions in a module `[perf-map]`). Where ranges overlap, the later
//! line wins (a JIT that reuses freed code memory writes the new function
//! after the old one).

use std::path::{Path, PathBuf};

use super::FuncInfo;
use super::distinct::Identity;
use super::mapindex::MapIndex;
use super::source::{Naming, Place, SymbolSource};
use crate::error::{Error, Result};
use crate::ingest::Mapping;

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
        let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        crate::ingest::opened::note(path);
        let ranges = parse(&path.display().to_string(), &text)?;
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
        naming: &mut Naming,
    ) -> (FuncInfo, Option<Identity>) {
        let range = &self.ranges[place.at];
        naming.stats.from_perf_map += 1;
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

/// The ranges of the perf map `text` read from `path`, in line order;
/// blank lines are skipped.
fn parse(path: &str, text: &[u8]) -> Result<Vec<Mapping>> {
    let mut ranges = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let range = parse_line(line).ok_or_else(|| {
            let shown = crate::error::escape_bytes(line, 60);
            Error::parse(
                path,
                i as u64 + 1,
                format!(
                    "expected a perf map line `START SIZE NAME` (START and SIZE in hex, a range below 2^64), found `{shown}`"
                ),
            )
        })?;
        ranges.push(range);
    }
    Ok(ranges)
}

/// `START SIZE NAME` as a mapping of `NAME` over `START..START+SIZE`.
fn parse_line(line: &[u8]) -> Option<Mapping> {
    let (start, rest) = word(line);
    let (size, rest) = word(rest);
    let name = rest.trim_ascii();
    let start = hex(start)?;
    let end = start.checked_add(hex(size)?)?;
    if name.is_empty() {
        return None;
    }
    Some(Mapping {
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
        let ranges = parse("p.map", b"1000 100 old\n1080 10 new\n").unwrap();
        let mut map = PerfMap {
            index: MapIndex::new(&ranges),
            ranges,
        };
        let at = |map: &mut PerfMap, a| map.place(0, a).map(|p| map.ranges[p.at].path.clone());
        assert_eq!(at(&mut map, 0x1084).as_deref(), Some("new"));
        assert_eq!(at(&mut map, 0x1090).as_deref(), Some("old"));
        assert_eq!(at(&mut map, 0x1100), None);
    }
}
