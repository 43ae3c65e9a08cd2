//! Naming the functions of a trace. Every address is attributed to the
//! loaded object whose mapping holds it (the trace's `# map` records) and
//! resolved with that object's DWARF (name, source file, line; read by
//! `dwarf` over addr2line's `Context`, from the object or a separate debug
//! file that `debugfile` finds), its ELF symbol table second, the hex
//! address last (`objects`, `object_file`). A trace without mappings (pvtrace's format) is resolved
//! against the executable alone: runtime addresses of a PIE are shifted by
//! the load bias, taken from the trace's `# base` header or inferred
//! (`bias`), and addresses outside it stay hex. These two are symbol
//! sources (`source`: place an address in an object, then name it there,
//! `mapped` and `executable`); after them come the sources of one list,
//! `LATER` (objects the user names with their load address,
//! `objects_given`, and a perf map, `perfmap`, naming JIT-compiled code
//! that no object holds). Each distinct address is
//! resolved once; functions that end up with one name are told apart
//! (`distinct`). Symbolic and indented traces already carry names. An
//! LLVM XRay log's function ids are named through the binary's
//! `xray_instr_map` (`xray`).

mod bias;
mod calls;
mod debugfile;
mod debuginfod;
mod demangle;
pub(crate) mod distinct;
mod dwarf;
mod elf;
mod executable;
mod hooks;
pub mod inventory;
mod mapindex;
mod mapped;
mod object_file;
mod objects;
mod objects_given;
mod pattern;
mod perfmap;
mod source;
mod xray;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::ingest::{FuncKey, FuncTable, TraceMeta};

pub use bias::BiasSource;
pub use demangle::{Demangle, demangle, short_form, simplify};
pub use elf::Elf;
pub use elf::build_id_of;
pub use hooks::runtime_hint;
pub use objects::locate;
pub use objects_given::{GivenSegment, ObjectArg, given_segments};
pub use pattern::{FuncPattern, glob as pattern_glob};

/// How functions are named. Default is `nm -C` names and no search path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SymbolOptions {
    /// Directories searched first, by file name, for the trace's objects
    /// (copies of the executable and libraries of another machine). Default is none.
    pub search_path: Vec<PathBuf>,
    /// How linkage names are shown. Default is [`Demangle::Full`].
    pub demangle: Demangle,
    /// Name functions from an object whose build-id differs from the
    /// traced one's (with a warning) instead of refusing. Default is false.
    pub allow_mismatch: bool,
    /// The perf map (`START SIZE NAME` lines) naming code outside the
    /// loaded objects, JIT-compiled code. Default is none: the traced
    /// process's `/tmp/perf-PID.map`, when the trace records its PID and
    /// that file exists.
    pub perf_map: Option<PathBuf>,
    /// Directories holding separate debug files (`.build-id/xx/rest.debug`
    /// trees, or the directories of `.gnu_debuglink` targets), searched
    /// before `/usr/lib/debug`. Default is none: `/usr/lib/debug` alone.
    pub debug_dirs: Vec<PathBuf>,
    /// Objects the trace does not record, each at its link addresses or
    /// at the load base given (`--object FILE[@ADDRESS]`), naming the
    /// addresses no recorded object holds. Default is none.
    pub objects: Vec<ObjectArg>,
}

/// What the trace's functions are called and where they are defined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FuncInfo {
    /// Demangled name, or `0x...` when nothing resolved.
    pub name: String,
    /// Source file from DWARF, if known.
    pub file: Option<String>,
    /// Line of the function's first instruction, if known.
    pub line: Option<u32>,
}

/// How resolution went, for the summary on stderr.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolveStats {
    /// Load bias subtracted from runtime addresses.
    pub bias: u64,
    /// Where the bias came from.
    pub bias_source: BiasSource,
    /// Distinct addresses resolved.
    pub addresses: usize,
    /// Named from the symbol table because DWARF had nothing.
    pub from_symtab: usize,
    /// Distinct addresses each symbol source placed, by the source's
    /// name: the first source's (`executable`, `objects` or `xray`; an
    /// address it placed may still be unresolved), then those of
    /// `LATER` (`perf-map`: named from a perf map, outside every object).
    /// A source that placed nothing has no entry.
    pub by_source: BTreeMap<&'static str, usize>,
    /// Left as hex because nothing resolved.
    pub unresolved: usize,
    /// The functions (ids) of `unresolved`.
    pub hex: Vec<usize>,
    /// Functions at addresses outside the executable in a trace without
    /// mappings (shared libraries): they keep hex names.
    pub outside: Vec<usize>,
    /// One line per object that was missing, differed or was damaged.
    pub warnings: Vec<String>,
}

/// Names every function of `funcs` without a binary: names as given,
/// addresses as hex, synthetic nodes as `(root)` and `[thread N]`.
pub fn names_without_binary(funcs: &FuncTable) -> Vec<FuncInfo> {
    funcs.keys().iter().map(plain_info).collect()
}

fn plain_info(key: &FuncKey) -> FuncInfo {
    let name = match key {
        FuncKey::Root => "(root)".to_string(),
        FuncKey::Thread(t) => format!("[thread {t}]"),
        FuncKey::Addr(a) => format!("{a:#x}"),
        FuncKey::Name(n) => n.to_string(),
    };
    FuncInfo {
        name,
        ..FuncInfo::default()
    }
}

/// Names the addresses of `funcs`: through the loaded objects when the
/// trace recorded them (`meta.maps`), against the executable `binary`
/// alone otherwise; then, for addresses none of those holds, through the
/// sources of `LATER` that apply, in its order. `binary`, when
/// given, is read in place of the recorded executable.
pub fn resolve(
    funcs: &FuncTable,
    meta: &TraceMeta,
    binary: Option<&Path>,
    opts: &SymbolOptions,
) -> Result<(Vec<FuncInfo>, ResolveStats)> {
    let addrs = addresses(funcs);
    let mut naming = source::Naming {
        style: opts.demangle,
        stats: ResolveStats {
            addresses: addrs.len(),
            ..ResolveStats::default()
        },
        namesakes: source::Namesakes::default(),
    };
    let resolved = if meta.xray_ids {
        let binary = binary.ok_or_else(xray::no_binary)?;
        let mut map = xray::XRay::open(binary, &addrs, &mut naming.stats)?;
        // Function ids are no runtime addresses: no later source applies.
        source::resolve(funcs, &mut [("xray", &mut map)], naming)?
    } else if meta.maps.is_empty() {
        let binary = binary.ok_or_else(|| {
            Error::Input("no binary to name the trace's addresses with".to_string())
        })?;
        let mut exe = executable::Executable::open(binary, opts, meta, &addrs, &mut naming.stats)?;
        with_later(funcs, ("executable", &mut exe), meta, opts, naming)?
    } else {
        let mut mapped = mapped::Mapped::new(funcs, meta, binary, opts);
        with_later(funcs, ("objects", &mut mapped), meta, opts, naming)?
    };
    let source::Resolved {
        mut infos,
        mut ids,
        namesakes,
        mut stats,
    } = resolved;
    // The traced functions' namesakes the trace does not call are told
    // apart with them, then dropped.
    let traced = infos.len();
    for (info, id) in namesakes {
        infos.push(info);
        ids.push(Some(id));
    }
    distinct::disambiguate(&mut infos, &ids);
    infos.truncate(traced);
    ids.truncate(traced);
    let mut outside = vec![false; ids.len()];
    for &i in &stats.outside {
        outside[i] = true;
    }
    stats.hex = funcs
        .keys()
        .iter()
        .enumerate()
        .filter(|&(i, k)| matches!(k, FuncKey::Addr(_)) && ids[i].is_none() && !outside[i])
        .map(|(i, _)| i)
        .collect();
    Ok((infos, stats))
}

/// How a symbol source after the first opens for a trace: None when it
/// does not apply (its file is not named and not found).
type Open = fn(&SymbolOptions, &TraceMeta) -> Result<Option<source::Boxed>>;

/// The symbol sources after the first, each as its name (the key of its
/// count in [`ResolveStats::by_source`]), the flag that names its files
/// (which names the [`Error::Value`]s of its opening) and how it opens,
/// in the order they are asked (an address the first source does not
/// place goes to the first of these that places it):
/// 1. `object`: objects the trace does not record, from `--object
///    FILE[@ADDRESS]`.
/// 2. `perf-map`: JIT-compiled code outside every object, from
///    `--perf-map FILE` or the traced process's `/tmp/perf-PID.map`.
///
/// A new source is one line here, in its place in that order.
const LATER: &[(&str, &str, Open)] = &[
    ("object", "--object", objects_given::open),
    ("perf-map", "--perf-map", perfmap::open),
];

/// The sources of [`LATER`] that apply to the trace of `meta`, in order,
/// each with its name.
fn later_sources(
    opts: &SymbolOptions,
    meta: &TraceMeta,
) -> Result<Vec<(&'static str, source::Boxed)>> {
    let mut found = Vec::new();
    for &(name, flag, open) in LATER {
        if let Some(source) = open(opts, meta).map_err(|e| e.for_flag(flag))? {
            found.push((name, source));
        }
    }
    Ok(found)
}

/// Refuses a source of `later` whose spans overlap those of a source
/// before it: the earlier one places those addresses, so the later one
/// claims addresses it could never name (an object at a wrong ADDRESS).
fn refuse_overlaps(
    first: &dyn source::SymbolSource,
    later: &[(&'static str, source::Boxed)],
) -> Result<()> {
    let claimed: Vec<_> = later.iter().map(|(n, s)| (*n, s.spans())).collect();
    if claimed.iter().all(|(_, spans)| spans.is_empty()) {
        return Ok(());
    }
    let mut before = first.spans();
    for (name, spans) in claimed {
        for a in &spans {
            if let Some(b) = before.iter().find(|b| a.start < b.end && b.start < a.end) {
                let flag = LATER.iter().find(|l| l.0 == name).map_or("", |l| l.1);
                let msg = format!(
                    "{} ({:#x}..{:#x}) overlaps {} ({:#x}..{:#x}); expected an object where the trace has none",
                    a.what, a.start, a.end, b.what, b.start, b.end
                );
                return Err(Error::value(msg).for_flag(flag));
            }
        }
        before.extend(spans);
    }
    Ok(())
}

/// Resolves through `first`, then the sources of [`LATER`] that apply.
fn with_later(
    funcs: &FuncTable,
    first: source::Listed<'_>,
    meta: &TraceMeta,
    opts: &SymbolOptions,
    naming: source::Naming,
) -> Result<source::Resolved> {
    let mut later = later_sources(opts, meta)?;
    let (first_name, first_source) = first;
    refuse_overlaps(first_source, &later)?;
    let mut list: Vec<source::Listed<'_>> = vec![(first_name, first_source)];
    for (name, source) in &mut later {
        list.push((*name, source.as_mut()));
    }
    source::resolve(funcs, &mut list, naming)
}

/// The distinct runtime addresses of `funcs`, sorted.
fn addresses(funcs: &FuncTable) -> Vec<u64> {
    let mut addrs: Vec<u64> = funcs
        .keys()
        .iter()
        .filter_map(|k| match k {
            FuncKey::Addr(a) => Some(*a),
            _ => None,
        })
        .collect();
    addrs.sort_unstable();
    addrs
}

fn hex_info(addr: u64) -> FuncInfo {
    FuncInfo {
        name: format!("{addr:#x}"),
        ..FuncInfo::default()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::ingest::Mapping;

    /// The names of the numbered list in [`LATER`]'s doc comment, in
    /// order: `/// 1. \`perf-map\`: ...`.
    fn documented_order() -> Vec<String> {
        let text = include_str!("mod.rs");
        let doc = text
            .split("const LATER")
            .next()
            .and_then(|before| before.rsplit("\n\n").next())
            .unwrap_or_default();
        doc.lines()
            .filter_map(|l| l.trim_start().strip_prefix("///")?.trim().split_once(". `"))
            .filter(|(number, _)| number.parse::<u32>().is_ok())
            .filter_map(|(_, rest)| Some(rest.split_once('`')?.0.to_string()))
            .collect()
    }

    #[test]
    fn later_sources_are_listed_once_each_in_the_documented_order() {
        let names: Vec<&str> = LATER.iter().map(|&(name, _, _)| name).collect();
        let documented = documented_order();
        assert!(!documented.is_empty(), "no numbered list above LATER");
        assert_eq!(names, documented);
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(
            unique.len(),
            names.len(),
            "a source listed twice: {names:?}"
        );
        // The first sources' names are keys of the same counts.
        for first in ["executable", "objects", "xray"] {
            assert!(!names.contains(&first), "{first} is a first source");
        }
    }

    fn perf_map(text: &str) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        file
    }

    fn names(found: &[(&'static str, source::Boxed)]) -> Vec<&'static str> {
        found.iter().map(|(name, _)| *name).collect()
    }

    #[test]
    fn a_later_source_applies_only_when_its_file_is_named_or_found() {
        let meta = TraceMeta::default();
        let none = later_sources(&SymbolOptions::default(), &meta).unwrap();
        assert!(none.is_empty());
        let map = perf_map("1000 10 jit\n");
        let opts = SymbolOptions {
            perf_map: Some(map.path().to_path_buf()),
            ..SymbolOptions::default()
        };
        assert_eq!(names(&later_sources(&opts, &meta).unwrap()), ["perf-map"]);
        let gone = SymbolOptions {
            perf_map: Some(PathBuf::from("/nonexistent/jit.map")),
            ..SymbolOptions::default()
        };
        let err = later_sources(&gone, &meta).err().unwrap().to_string();
        assert!(err.contains("/nonexistent/jit.map"), "{err}");
    }

    #[test]
    fn resolve_asks_the_later_sources_after_the_objects_and_counts_each_by_name() {
        let meta = TraceMeta {
            maps: vec![Mapping {
                start: 0x1000,
                end: 0x2000,
                offset: 0,
                path: "/nonexistent/libgone.so".to_string(),
                build_id: None,
            }],
            ..TraceMeta::default()
        };
        let mut funcs = FuncTable::default();
        let in_lib = funcs.addr(0x1100) as usize;
        let in_map = funcs.addr(0x7f00_0000_1004) as usize;
        let nowhere = funcs.addr(0x9000) as usize;
        // The map's first range covers the library too: the objects win.
        let map = perf_map("1000 200 shadowed\n7f0000001000 20 jit_add\n");
        let opts = SymbolOptions {
            perf_map: Some(map.path().to_path_buf()),
            ..SymbolOptions::default()
        };
        let (infos, stats) = resolve(&funcs, &meta, None, &opts).unwrap();
        assert_eq!(infos[in_lib].name, "libgone.so+0x100");
        assert_eq!(infos[in_map].name, "jit_add");
        assert_eq!(infos[nowhere].name, "0x9000");
        let counts: Vec<_> = stats.by_source.into_iter().collect();
        assert_eq!(counts, [("objects", 1), ("perf-map", 1)]);
    }
}
