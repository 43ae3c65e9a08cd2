//! Objects the trace does not record, named by the user: code linked
//! separately from the program (a bootloader, a ROM library, a second
//! firmware image) at its link addresses, or a shared library of a trace
//! without `# map` lines at the load base the user knows (from
//! `/proc/PID/maps`, `LD_DEBUG`, `dladdr`): runtime address = ADDRESS +
//! link address. It is a source after the first (`object` in `LATER`,
//! `mod.rs`): an address the executable or the recorded objects do not
//! hold and one of these objects' loadable segments does (a binary
//! search over all their segments) is named
//! through that object (`object_file`: DWARF, symbol table, separate
//! debug file, demangling, Thumb twins) exactly as the same file mapped
//! by a `# map` line would be, `libx.so+0x1139` when nothing names it.
//! Objects whose segments overlap each other's are refused here; those
//! that overlap what an earlier source holds (the executable, a recorded
//! mapping) are refused through [`SymbolSource::spans`]. An object that holds no
//! address of the trace is warned about: its ADDRESS is likely wrong.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::Elf;
use super::debugfile::DebugSearch;
use super::distinct::Identity;
use super::objects::{Object, file_name};
use super::source::{Boxed, Naming, Place, Span, SymbolSource, name_one};
use super::{FuncInfo, SymbolOptions};
use crate::error::{Error, Result};
use crate::ingest::TraceMeta;

/// An object the user names, `FILE[@ADDRESS]`, parsed once at the command
/// line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectArg {
    /// The ELF file.
    pub path: PathBuf,
    /// Where it was loaded: runtime address = `base` + link address. None
    /// for an object at its link addresses (firmware, an `ET_EXEC`
    /// program); a shared object (`ET_DYN`) must have one.
    pub base: Option<u64>,
}

impl FromStr for ObjectArg {
    type Err = String;

    /// `FILE` or `FILE@ADDRESS`, ADDRESS in hex with `0x` or in decimal,
    /// split at the last `@` (a file whose name has an `@` is given with
    /// its ADDRESS: `FILE@0` is its link addresses).
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let (path, base) = match s.rsplit_once('@') {
            Some((path, address)) => (path, Some(address)),
            None => (s, None),
        };
        // clap shows the value beside the message.
        let expected = || {
            "expected FILE or FILE@ADDRESS, ADDRESS the load base in hex (0x7f3a1c000000) or decimal"
                .to_string()
        };
        if path.is_empty() {
            return Err(expected());
        }
        let base = match base {
            Some(a) => Some(address(a).ok_or_else(expected)?),
            None => None,
        };
        Ok(ObjectArg {
            path: PathBuf::from(path),
            base,
        })
    }
}

impl std::fmt::Display for ObjectArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        match self.base {
            Some(b) => write!(f, "@{b:#x}"),
            None => Ok(()),
        }
    }
}

/// `0x` hex or decimal.
fn address(text: &str) -> Option<u64> {
    let hex = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"));
    let (digits, radix) = match hex {
        Some(d) => (d, 16),
        None => (text, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// The object index of these objects in their identities: counted down
/// below the perf map's `usize::MAX`, so no recorded mapping has it.
fn object_index(i: usize) -> usize {
    usize::MAX - 1 - i
}

/// One object the user named, opened.
struct Given {
    arg: ObjectArg,
    obj: Object,
    /// Runtime address minus file address.
    bias: u64,
    /// Its runtime extent, `start..end`: its lowest segment's start, its
    /// highest one's end.
    start: u64,
    end: u64,
    /// Distinct addresses of the trace it placed.
    placed: usize,
}

/// A loadable segment of an object at runtime, `start..end`, of the
/// `object`-th given.
#[derive(Debug, Clone, Copy)]
struct Segment {
    start: u64,
    end: u64,
    object: usize,
}

/// The objects of `--object`.
pub(super) struct GivenObjects {
    given: Vec<Given>,
    /// Their loadable segments at runtime, sorted by address, none
    /// overlapping another (a firmware's flash and RAM lie far apart, and
    /// another image may sit between them).
    segments: Vec<Segment>,
    warnings: Vec<String>,
}

/// The objects the user named as a source in `LATER`, or None when none
/// was named. Errors are [`Error::Value`]s: `LATER` names the flag.
pub(super) fn open(opts: &SymbolOptions, _meta: &TraceMeta) -> Result<Option<Boxed>> {
    if opts.objects.is_empty() {
        return Ok(None);
    }
    let search = DebugSearch::new(&opts.debug_dirs, &opts.search_path);
    let mut warnings = Vec::new();
    let mut given = Vec::with_capacity(opts.objects.len());
    for arg in &opts.objects {
        given.push(open_one(arg, &search, &mut warnings)?);
    }
    let segments = segments(&given)?;
    Ok(Some(Box::new(GivenObjects {
        given,
        segments,
        warnings,
    })))
}

/// Where an `--object` object lies at runtime, one loadable segment: what
/// `coverage` needs to place a traced address in that object's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenSegment {
    /// The object's file.
    pub path: PathBuf,
    /// Runtime address minus the object's own (link) address.
    pub bias: u64,
    /// The segment at runtime, `start..end`.
    pub start: u64,
    /// End of the segment at runtime (exclusive).
    pub end: u64,
}

/// The loadable segments of the objects of `opts.objects` at runtime,
/// sorted by address: only their ELF layout is read (no debug files, no
/// DWARF); a file the symbol source would refuse for its type or missing
/// ADDRESS is refused the same way, as an [`Error::Value`] the command
/// names by its flag. Overlaps are refused where the traces are named.
pub fn given_segments(opts: &SymbolOptions) -> Result<Vec<GivenSegment>> {
    let mut all = Vec::new();
    for arg in &opts.objects {
        let bias = base_of(arg)?;
        let elf = Elf::open(&arg.path).map_err(|e| Error::value(format!("{e}; {EXPECTED}")))?;
        for s in elf.segments.iter().filter(|s| s.memsz > 0) {
            all.push(GivenSegment {
                path: arg.path.clone(),
                bias,
                start: s.vaddr.wrapping_add(bias),
                end: (s.vaddr + s.memsz).wrapping_add(bias),
            });
        }
    }
    all.sort_by_key(|g| (g.start, g.end));
    Ok(all)
}

/// What `--object` expects, the end of each refusal of a file.
const EXPECTED: &str = "expected an ELF executable or shared library";

/// Where `arg`'s object was loaded: its ADDRESS, else 0 for an object at
/// its link addresses; a shared object without ADDRESS or a file that is
/// no ELF executable or shared object is refused.
fn base_of(arg: &ObjectArg) -> Result<u64> {
    let kind = elf_kind(&arg.path)
        .map_err(|what| Error::value(format!("{}: {what}; {EXPECTED}", arg.path.display())))?;
    match (kind, arg.base) {
        (_, Some(b)) => Ok(b),
        (ElfKind::Executable, None) => Ok(0),
        (ElfKind::Shared, None) => Err(no_base(&arg.path)),
    }
}

/// The loadable segments of `given` at runtime, sorted by address; an
/// error when two of different objects overlap.
fn segments(given: &[Given]) -> Result<Vec<Segment>> {
    let mut all = Vec::new();
    for (object, g) in given.iter().enumerate() {
        for s in g.obj.elf.segments.iter().filter(|s| s.memsz > 0) {
            all.push(Segment {
                start: s.vaddr + g.bias,
                end: s.vaddr + s.memsz + g.bias,
                object,
            });
        }
    }
    all.sort_by_key(|s| (s.start, s.end));
    for pair in all.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if b.start < a.end && a.object != b.object {
            return Err(overlap((&given[b.object], b), (&given[a.object], a)));
        }
    }
    Ok(all)
}

/// Opens the object `arg` names, checking that it is an executable or a
/// shared object and that a shared object has its load base.
fn open_one(arg: &ObjectArg, search: &DebugSearch, warnings: &mut Vec<String>) -> Result<Given> {
    let base = base_of(arg)?;
    let obj = Object::open_with(&arg.path, None, false, search, warnings)
        .map_err(|e| Error::value(format!("{e}; {EXPECTED}")))?;
    // Past the end of `max_vaddr` no segment reaches: each segment's
    // runtime range is below 2^64 when the extent's is.
    let (lo, hi) = (obj.elf.min_vaddr, obj.elf.max_vaddr);
    let range = base
        .checked_add(lo)
        .zip(base.checked_add(hi))
        .filter(|_| hi > lo);
    let Some((start, end)) = range else {
        return Err(Error::value(format!(
            "{arg}: {}; expected an object with loadable segments, below 2^64 at its ADDRESS",
            match hi > lo {
                true => "its segments would lie past the end of the address space",
                false => "no loadable segment",
            }
        )));
    };
    Ok(Given {
        arg: arg.clone(),
        obj,
        bias: base,
        start,
        end,
        placed: 0,
    })
}

/// An object with its own ELF type: its addresses are fixed (`ET_EXEC`)
/// or it is loaded anywhere (`ET_DYN`: a shared library or a PIE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ElfKind {
    Executable,
    Shared,
}

/// The ELF type of the file at `path`, from its header, or what it is
/// instead.
fn elf_kind(path: &Path) -> std::result::Result<ElfKind, String> {
    let mut head = [0u8; 18];
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
    let got = file
        .read(&mut head)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if got < head.len() || &head[..4] != b"\x7fELF" {
        return Err("not an ELF file".to_string());
    }
    let kind = match head[5] {
        2 => u16::from_be_bytes([head[16], head[17]]),
        _ => u16::from_le_bytes([head[16], head[17]]),
    };
    match kind {
        2 => Ok(ElfKind::Executable),
        3 => Ok(ElfKind::Shared),
        1 => Err("a relocatable object (ET_REL, a .o), not linked".to_string()),
        4 => Err("a core dump (ET_CORE)".to_string()),
        other => Err(format!("an ELF file of type {other}")),
    }
}

fn no_base(path: &Path) -> Error {
    Error::value(format!(
        "{}: a shared object (ET_DYN: a library or a PIE), loaded where the trace does not say; \
         expected FILE@ADDRESS with its load base (dladdr's dli_fbase, or the start of its first line in /proc/PID/maps)",
        path.display()
    ))
}

/// Segment `a` of one object the user gave overlaps segment `b` of
/// another.
fn overlap((a, sa): (&Given, Segment), (b, sb): (&Given, Segment)) -> Error {
    Error::value(format!(
        "{} ({:#x}..{:#x}) overlaps {} ({:#x}..{:#x}); expected objects at distinct addresses",
        a.arg, sa.start, sa.end, b.arg, sb.start, sb.end
    ))
}

impl GivenObjects {
    /// The object that holds runtime address `addr` in a loadable
    /// segment, with the address in its terms.
    fn find(&self, addr: u64) -> Option<(usize, u64)> {
        let at = self
            .segments
            .partition_point(|s| s.start <= addr)
            .checked_sub(1)?;
        let s = self.segments[at];
        (addr < s.end).then(|| (s.object, addr - self.given[s.object].bias))
    }
}

impl SymbolSource for GivenObjects {
    fn place(&mut self, _func: usize, addr: u64) -> Option<Place> {
        let (i, probe) = self.find(addr)?;
        self.given[i].placed += 1;
        Some(Place {
            object: object_index(i),
            at: i,
            offset: probe,
        })
    }

    fn name(
        &mut self,
        place: Place,
        addr: u64,
        naming: &mut Naming,
    ) -> (FuncInfo, Option<Identity>) {
        let g = &self.given[place.at];
        let (info, id) = name_one(&g.obj, place.object, place.offset, addr, naming);
        if id.is_some() {
            return (info, id);
        }
        // As a mapped object names what nothing names: by file offset.
        let offset = file_offset(&g.obj, place.offset).unwrap_or(place.offset);
        let name = file_name(&g.arg.path.to_string_lossy()).to_string();
        let info = FuncInfo {
            name: format!("{name}+{offset:#x}"),
            ..FuncInfo::default()
        };
        (info, None)
    }

    fn finish(&mut self, _ids: &[Option<Identity>], naming: &mut Naming) -> Result<()> {
        let warnings = &mut naming.stats.warnings;
        warnings.append(&mut self.warnings);
        for g in &self.given {
            if g.placed == 0 {
                warnings.push(format!(
                    "--object {} ({:#x}..{:#x}): no address of the trace falls in it; is ADDRESS its load base?",
                    g.arg, g.start, g.end
                ));
            }
            warnings.extend(g.obj.debug_warnings());
        }
        Ok(())
    }

    fn spans(&self) -> Vec<Span> {
        let span = |s: &Segment| Span {
            start: s.start,
            end: s.end,
            what: self.given[s.object].arg.to_string(),
        };
        self.segments.iter().map(span).collect()
    }
}

/// The file offset of file address `vaddr` of `obj`, when a segment
/// holds its bytes.
fn file_offset(obj: &Object, vaddr: u64) -> Option<u64> {
    obj.elf
        .segments
        .iter()
        .find(|s| s.vaddr <= vaddr && vaddr < s.vaddr + s.filesz)
        .map(|s| vaddr - s.vaddr + s.offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(s: &str) -> std::result::Result<(String, Option<u64>), String> {
        s.parse::<ObjectArg>()
            .map(|o| (o.path.display().to_string(), o.base))
    }

    #[test]
    fn file_and_address_are_split_at_the_last_at_sign() {
        let own = |p: &str, b| Ok((p.to_string(), b));
        assert_eq!(parsed("boot.elf"), own("boot.elf", None));
        assert_eq!(
            parsed("lib.so@0x7f3a1c000000"),
            own("lib.so", Some(0x7f3a_1c00_0000))
        );
        assert_eq!(parsed("lib.so@0X10"), own("lib.so", Some(16)));
        assert_eq!(parsed("lib.so@4096"), own("lib.so", Some(4096)));
        assert_eq!(parsed("a@b.elf@0"), own("a@b.elf", Some(0)));
        for bad in [
            "lib.so@",
            "lib.so@0x",
            "lib.so@12ab",
            "lib.so@0xfg",
            "@0x1000",
            "",
            "a@b.elf",
            "lib.so@0x10000000000000000",
            "lib.so@-1",
        ] {
            let err = parsed(bad).unwrap_err();
            assert!(
                err.starts_with("expected FILE or FILE@ADDRESS"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn an_object_shows_as_the_user_names_it_with_its_address_in_hex() {
        let arg: ObjectArg = "lib.so@4096".parse().unwrap();
        assert_eq!(arg.to_string(), "lib.so@0x1000");
        let arg: ObjectArg = "boot.elf".parse().unwrap();
        assert_eq!(arg.to_string(), "boot.elf");
    }

    fn file(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, bytes).unwrap();
        f
    }

    /// An ELF header's first 18 bytes of `class`, `data` and `kind`.
    fn header(data: u8, kind: u16) -> Vec<u8> {
        let mut h = b"\x7fELF".to_vec();
        h.extend([2, data, 1]);
        h.resize(16, 0);
        match data {
            2 => h.extend(kind.to_be_bytes()),
            _ => h.extend(kind.to_le_bytes()),
        }
        h
    }

    #[test]
    fn the_elf_type_comes_from_the_header_in_either_byte_order() {
        let kind = |bytes: &[u8]| elf_kind(file(bytes).path());
        assert_eq!(kind(&header(1, 2)), Ok(ElfKind::Executable));
        assert_eq!(kind(&header(2, 3)), Ok(ElfKind::Shared));
        assert!(kind(&header(1, 1)).unwrap_err().contains("ET_REL"));
        assert_eq!(
            kind(b"#!/bin/sh\necho hello\n").unwrap_err(),
            "not an ELF file"
        );
        assert_eq!(kind(b"\x7fELF").unwrap_err(), "not an ELF file");
        let gone = elf_kind(Path::new("/nonexistent/boot.elf")).unwrap_err();
        assert!(gone.starts_with("cannot open it"), "{gone}");
    }

    #[test]
    fn an_unusable_object_is_a_value_error_naming_the_file_and_what_was_expected() {
        let text = file(b"not an object at all\n");
        let opts = SymbolOptions {
            objects: vec![ObjectArg {
                path: text.path().to_path_buf(),
                base: Some(0x1000),
            }],
            ..SymbolOptions::default()
        };
        let err = open(&opts, &TraceMeta::default()).err().unwrap();
        let Error::Value(msg) = err else {
            panic!("{err:?}")
        };
        assert!(msg.starts_with(&text.path().display().to_string()), "{msg}");
        assert!(
            msg.contains("expected an ELF executable or shared library"),
            "{msg}"
        );
        let none = open(&SymbolOptions::default(), &TraceMeta::default()).unwrap();
        assert!(none.is_none());
    }

    /// A PIE with symbols and DWARF, committed: `job_load` is at 0x37c6.
    fn printer() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/printer/traces/printer")
    }

    /// A trace that maps one library, which is not on disk, at 0x1000.
    fn mapped() -> TraceMeta {
        TraceMeta {
            maps: vec![crate::ingest::Mapping {
                start: 0x1000,
                end: 0x2000,
                offset: 0,
                path: "/nonexistent/libgone.so".to_string(),
                build_id: None,
            }],
            ..TraceMeta::default()
        }
    }

    fn with_objects(objects: &[&str]) -> SymbolOptions {
        let parse = |o: &&str| format!("{}{o}", printer().display()).parse().unwrap();
        SymbolOptions {
            objects: objects.iter().map(parse).collect(),
            ..SymbolOptions::default()
        }
    }

    const BASE: u64 = 0x40_0000_0000;

    #[test]
    fn an_object_names_what_no_recorded_object_holds_and_counts_under_object() {
        let mut funcs = crate::ingest::FuncTable::default();
        let in_lib = funcs.addr(0x1100) as usize;
        let job_load = funcs.addr(BASE + 0x37c6) as usize;
        let elsewhere = funcs.addr(BASE + 0x10_0000) as usize;
        // In the object, in no function: by file offset, as a mapping's.
        let in_header = funcs.addr(BASE + 0x10) as usize;
        let opts = with_objects(&["@0x4000000000"]);
        let (infos, stats) = super::super::resolve(&funcs, &mapped(), None, &opts).unwrap();
        assert_eq!(infos[in_lib].name, "libgone.so+0x100");
        assert_eq!(infos[job_load].name, "job_load");
        assert!(infos[job_load].file.as_deref().unwrap().ends_with(".c"));
        assert_eq!(infos[elsewhere].name, format!("{:#x}", BASE + 0x10_0000));
        assert_eq!(infos[in_header].name, "printer+0x10");
        let counts: Vec<_> = stats.by_source.into_iter().collect();
        assert_eq!(counts, [("object", 2), ("objects", 1)]);
        assert!(
            !stats.warnings.iter().any(|w| w.contains("no address")),
            "{:?}",
            stats.warnings
        );
    }

    #[test]
    fn an_object_over_a_recorded_mapping_or_another_object_is_refused_by_its_flag() {
        let mut funcs = crate::ingest::FuncTable::default();
        funcs.addr(0x1100);
        let resolve = |objects: &[&str]| {
            let opts = with_objects(objects);
            super::super::resolve(&funcs, &mapped(), None, &opts)
                .err()
                .unwrap()
        };
        let Error::Usage { flag, msg } = resolve(&["@0"]) else {
            panic!("not a usage error")
        };
        assert_eq!(flag, "--object");
        assert!(msg.contains("printer@0x0 (0x0..0x"), "{msg}");
        assert!(msg.contains("overlaps /nonexistent/libgone.so"), "{msg}");
        let Error::Usage { flag, msg } = resolve(&["@0x4000000000", "@0x4000010000"]) else {
            panic!("not a usage error")
        };
        assert_eq!(flag, "--object");
        assert!(msg.contains("printer@0x4000010000"), "{msg}");
        assert!(msg.contains("overlaps"), "{msg}");
        let Error::Usage { flag, msg } = resolve(&[""]) else {
            panic!("not a usage error")
        };
        assert_eq!(flag, "--object");
        assert!(
            msg.contains("ET_DYN") && msg.contains("FILE@ADDRESS"),
            "{msg}"
        );
    }

    #[test]
    fn an_object_that_holds_no_address_is_warned_about() {
        let mut funcs = crate::ingest::FuncTable::default();
        funcs.addr(0x1100);
        let opts = with_objects(&["@0x4000000000"]);
        let (_, stats) = super::super::resolve(&funcs, &mapped(), None, &opts).unwrap();
        let warned = stats.warnings.iter().find(|w| w.contains("no address"));
        let warned = warned.unwrap_or_else(|| panic!("{:?}", stats.warnings));
        assert!(warned.contains("printer@0x4000000000"), "{warned}");
        assert!(!stats.by_source.contains_key("object"));
    }
}
