//! Naming the functions of a trace. Every address is attributed to the
//! loaded object whose mapping holds it (the trace's `# map` records) and
//! resolved with that object's DWARF through `addr2line` (name, source
//! file, line), its ELF symbol table second, the hex address last
//! (`objects`). A trace without mappings (pvtrace's format) is resolved
//! against the executable alone: runtime addresses of a PIE are shifted by
//! the load bias, taken from the trace's `# base` header or inferred
//! (`bias`), and addresses outside it stay hex. Each distinct address is
//! resolved once; functions that end up with one name are told apart
//! (`distinct`). Symbolic and indented traces already carry names.

mod bias;
mod demangle;
mod distinct;
mod elf;
mod hooks;
mod mapindex;
mod objects;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::ingest::{FuncId, FuncKey, FuncTable, Mapping, TraceMeta};

pub use bias::BiasSource;
pub use demangle::{Demangle, demangle, short_form, simplify};
pub use elf::Elf;
pub use hooks::runtime_hint;
pub use objects::locate;

use distinct::Identity;
use objects::Objects;

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
/// alone otherwise. `binary`, when given, is read in place of the
/// recorded executable.
pub fn resolve(
    funcs: &FuncTable,
    meta: &TraceMeta,
    binary: Option<&Path>,
    opts: &SymbolOptions,
) -> Result<(Vec<FuncInfo>, ResolveStats)> {
    let (mut infos, ids, namesakes, stats) = if meta.maps.is_empty() {
        let binary = binary.ok_or_else(|| {
            Error::Input("no binary to name the trace's addresses with".to_string())
        })?;
        resolve_in_executable(funcs, meta, binary, opts)?
    } else {
        resolve_in_objects(funcs, meta, binary, opts)?
    };
    // The traced functions' namesakes the trace does not call are told
    // apart with them, then dropped.
    let (mut ids, traced) = (ids, infos.len());
    for (info, id) in namesakes {
        infos.push(info);
        ids.push(Some(id));
    }
    distinct::disambiguate(&mut infos, &ids);
    infos.truncate(traced);
    ids.truncate(traced);
    let mut stats = stats;
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

/// Names and identities of the trace's functions, and the namesakes of
/// those that share their linkage name in their object (see
/// [`Namesakes`]).
type Resolved = (
    Vec<FuncInfo>,
    Vec<Option<Identity>>,
    Vec<(FuncInfo, Identity)>,
    ResolveStats,
);

/// The functions of the trace's objects that have the linkage name of a
/// traced function, each once (by object and address), with their names
/// and identities.
#[derive(Default)]
struct Namesakes {
    seen: std::collections::HashSet<(usize, u64)>,
    found: Vec<(FuncInfo, Identity)>,
}

impl Namesakes {
    /// Adds the namesakes of the function at `probe` of `obj`, the
    /// `object`-th.
    fn add(&mut self, obj: &objects::Object, object: usize, probe: u64, style: Demangle) {
        for addr in obj.namesakes(probe) {
            self.push(obj, object, addr, style);
        }
    }

    /// Adds the function at `addr` of `obj`, the `object`-th, once.
    fn push(&mut self, obj: &objects::Object, object: usize, addr: u64, style: Demangle) {
        if !self.seen.insert((object, addr)) {
            return;
        }
        if let Some(named) = obj.lookup(addr, style) {
            let id = Identity {
                object,
                addr,
                runtime: 0,
                local: named.local,
                unit: named.unit,
            };
            self.found.push((named.info, id));
        }
    }
}

/// An object that holds traced functions, as `Objects::get` finds it.
struct Opened {
    object: usize,
    recorded: String,
    build_id: Option<String>,
    is_exe: bool,
}

/// Adds the namesakes of the traced functions (`ids`) in the other objects
/// that hold traced functions: bzip2's own static `myfeof` and
/// libbz2.so's were `myfeof` in a run that called one and `myfeof
/// [bzip2.c]` in a run that called both, so `compare` took one function for
/// two. (Objects the run called nothing in are not read: most are system
/// libraries.)
fn namesakes_elsewhere(
    objects: &mut Objects,
    opened: &[Opened],
    ids: &[Option<Identity>],
    style: Demangle,
    namesakes: &mut Namesakes,
) {
    if opened.len() < 2 {
        return;
    }
    let mut done = std::collections::HashSet::new();
    for id in ids.iter().flatten() {
        let Some(from) = opened.iter().find(|o| o.object == id.object) else {
            continue;
        };
        let name = objects
            .get(&from.recorded, from.build_id.as_deref(), from.is_exe)
            .and_then(|o| o.elf.symbol_at(id.addr))
            .map(|s| s.name.clone());
        let Some(name) = name else { continue };
        for to in opened.iter().filter(|o| o.object != id.object) {
            if !done.insert((to.object, name.clone())) {
                continue;
            }
            if let Some(obj) = objects.get(&to.recorded, to.build_id.as_deref(), to.is_exe) {
                let addrs: Vec<u64> = obj.elf.functions_named(&name).collect();
                for addr in addrs {
                    namesakes.push(obj, to.object, addr, style);
                }
            }
        }
    }
}

/// A trace without mappings: everything against `binary`, shifted by the
/// load bias; addresses outside it stay hex.
fn resolve_in_executable(
    funcs: &FuncTable,
    meta: &TraceMeta,
    binary: &Path,
    opts: &SymbolOptions,
) -> Result<Resolved> {
    let mut warnings = Vec::new();
    let obj = objects::Object::open(binary, true, &mut warnings)?;
    let obj = &obj;
    let addrs = addresses(funcs);
    let (bias, bias_source) = bias::find(&obj.elf, &addrs, meta.base)
        .ok_or_else(|| mismatch(binary, meta.base, meta.exe_path.as_deref()))?;
    let mut stats = ResolveStats {
        bias,
        bias_source,
        addresses: addrs.len(),
        ..ResolveStats::default()
    };
    let mut infos = Vec::with_capacity(funcs.len());
    let mut ids = Vec::with_capacity(funcs.len());
    let mut namesakes = Namesakes::default();
    for (i, key) in funcs.keys().iter().enumerate() {
        let FuncKey::Addr(a) = key else {
            infos.push(plain_info(key));
            ids.push(None);
            continue;
        };
        let probe = a.wrapping_sub(bias);
        if !obj.elf.stripped && !obj.elf.contains(probe) {
            stats.outside.push(i);
            infos.push(plain_info(key));
            ids.push(None);
            continue;
        }
        let (info, id) = name_one(obj, 0, probe, *a, opts.demangle, &mut stats, &mut namesakes);
        infos.push(info);
        ids.push(id);
    }
    warnings.extend(obj.debug_warning());
    stats.warnings = warnings;
    Ok((infos, ids, namesakes.found, stats))
}

/// Names `probe` (file address in object number `object`), counting how.
fn name_one(
    obj: &objects::Object,
    object: usize,
    probe: u64,
    runtime: u64,
    style: Demangle,
    stats: &mut ResolveStats,
    namesakes: &mut Namesakes,
) -> (FuncInfo, Option<Identity>) {
    match obj.lookup(probe, style) {
        Some(named) => {
            stats.from_symtab += usize::from(named.from_symtab);
            namesakes.add(obj, object, probe, style);
            let id = Identity {
                object,
                addr: probe,
                runtime,
                local: named.local,
                unit: named.unit,
            };
            (named.info, Some(id))
        }
        None => {
            stats.unresolved += 1;
            (hex_info(runtime), None)
        }
    }
}

fn hex_info(addr: u64) -> FuncInfo {
    FuncInfo {
        name: format!("{addr:#x}"),
        ..FuncInfo::default()
    }
}

/// A trace with mappings: each address through the object that held it.
fn resolve_in_objects(
    funcs: &FuncTable,
    meta: &TraceMeta,
    binary: Option<&Path>,
    opts: &SymbolOptions,
) -> Result<Resolved> {
    let maps = &meta.maps;
    let exe = executable_map(maps, meta.exe_path.as_deref());
    let mut objects = Objects::new(binary, opts);
    let mut stats = ResolveStats {
        addresses: addresses(funcs).len(),
        ..ResolveStats::default()
    };
    let (mut exe_addrs, mut exe_starts) = (0usize, 0usize);
    let mut infos = Vec::with_capacity(funcs.len());
    let mut ids = Vec::with_capacity(funcs.len());
    let mut namesakes = Namesakes::default();
    let mut opened: Vec<Opened> = Vec::new();
    let mut opened_objects = std::collections::HashSet::new();
    let index = mapindex::MapIndex::new(maps);
    for (i, key) in funcs.keys().iter().enumerate() {
        let FuncKey::Addr(a) = key else {
            infos.push(plain_info(key));
            ids.push(None);
            continue;
        };
        let Some((m, map)) = mapping_of(&index, maps, *a, funcs.maps_seen(i as FuncId)) else {
            stats.unresolved += 1;
            infos.push(hex_info(*a));
            ids.push(None);
            continue;
        };
        let is_exe = exe.is_some_and(|e| maps[e].path == map.path);
        let object = index.object(m);
        let recorded = match (is_exe, map.path.is_empty(), meta.exe_path.as_deref()) {
            (true, true, Some(p)) => p,
            _ => map.path.as_str(),
        };
        let probe = objects
            .get(recorded, map.build_id.as_deref(), is_exe)
            .and_then(|o| Some((o, o.elf.vaddr_of_offset(a - map.start + map.offset)?)));
        // Unnamed, an address is named by its object and file offset, the
        // same in every run (the process address moves with ASLR).
        let in_object = || FuncInfo {
            name: format!(
                "{}+{:#x}",
                objects::file_name(recorded),
                a - map.start + map.offset
            ),
            ..FuncInfo::default()
        };
        let Some((obj, probe)) = probe else {
            stats.unresolved += 1;
            infos.push(in_object());
            ids.push(None);
            continue;
        };
        if is_exe {
            exe_addrs += 1;
            exe_starts += usize::from(obj.elf.is_func_start(probe));
        }
        if opened_objects.insert(object) {
            opened.push(Opened {
                object,
                recorded: recorded.to_string(),
                build_id: map.build_id.clone(),
                is_exe,
            });
        }
        let no_starts = is_exe && obj.elf.stripped;
        let (info, id) = name_one(
            obj,
            object,
            probe,
            *a,
            opts.demangle,
            &mut stats,
            &mut namesakes,
        );
        exe_starts += usize::from(no_starts);
        infos.push(if id.is_some() { info } else { in_object() });
        ids.push(id);
    }
    if exe_addrs > 0 && exe_starts == 0 {
        let path = binary.map_or_else(
            || PathBuf::from(exe.map_or("", |e| maps[e].path.as_str())),
            Path::to_path_buf,
        );
        if let Some(lib) = binary.and_then(|b| loaded_library(b, maps, exe)) {
            let recorded = match Path::new(&lib) == path {
                true => String::new(),
                false => format!(" (recorded as {lib})"),
            };
            return Err(Error::Input(format!(
                "{}: a library the trace loaded{recorded}, not its executable; give the executable{} as BINARY, or leave BINARY out (the trace records where its objects are)",
                path.display(),
                meta.exe_path
                    .as_deref()
                    .map(|p| format!(" ({p})"))
                    .unwrap_or_default()
            )));
        }
        return Err(mismatch(&path, None, meta.exe_path.as_deref()));
    }
    // Another build of an object: refused once what else is wrong is said.
    if let Some(refused) = objects.refused.take() {
        return Err(refused);
    }
    namesakes_elsewhere(&mut objects, &opened, &ids, opts.demangle, &mut namesakes);
    stats.warnings = objects.debug_warnings();
    stats.warnings.append(&mut objects.warnings);
    Ok((infos, ids, namesakes.found, stats))
}

/// The mapping that held `addr` when the function was first seen, after
/// the trace's first `seen` mapping records: the latest of those that holds
/// it (an object loaded where an unloaded one was replaces it), else the
/// first later one (a record that came after the events it is for).
fn mapping_of<'m>(
    index: &mapindex::MapIndex,
    maps: &'m [Mapping],
    addr: u64,
    seen: usize,
) -> Option<(usize, &'m Mapping)> {
    // The latest holder of all is the latest one before `seen` too when it
    // came before: the common case, a binary search. Only an address whose
    // holder was recorded after the function was first seen (a replaced
    // object, a record that came late) scans.
    match index.find(addr) {
        Some(m) if m < seen => return Some((m, &maps[m])),
        None => return None,
        Some(_) => {}
    }
    let holds = |(_, m): &(usize, &Mapping)| m.start <= addr && addr < m.end;
    let (before, after) = maps.split_at(seen.min(maps.len()));
    let later = after.iter().enumerate().map(|(k, m)| (before.len() + k, m));
    before
        .iter()
        .enumerate()
        .rev()
        .find(holds)
        .or_else(|| later.into_iter().find(holds))
}

/// The recorded path of the library (not the executable's mapping `exe`)
/// that `binary` is: the one with its GNU build-id.
fn loaded_library(binary: &Path, maps: &[Mapping], exe: Option<usize>) -> Option<String> {
    let id = elf::build_id_of(binary)?;
    maps.iter()
        .enumerate()
        .filter(|&(i, m)| Some(i) != exe && exe.is_none_or(|e| maps[e].path != m.path))
        .find(|(_, m)| m.build_id.as_deref() == Some(id.as_str()))
        .map(|(_, m)| m.path.clone())
}

/// The mapping of the executable: the one with the recorded executable
/// path, an unnamed one (how the loader names the main program), or the
/// first (the loader lists the main program first).
fn executable_map(maps: &[Mapping], exe_path: Option<&str>) -> Option<usize> {
    maps.iter()
        .position(|m| Some(m.path.as_str()) == exe_path)
        .or_else(|| maps.iter().position(|m| m.path.is_empty()))
        .or((!maps.is_empty()).then_some(0))
}

fn mismatch(binary: &Path, base: Option<u64>, recorded: Option<&str>) -> Error {
    let how = match base {
        Some(b) => format!("with the load base {b:#x} from the trace header, "),
        None => String::new(),
    };
    let from = match recorded {
        Some(p) => format!("; the trace was recorded from {p}"),
        None => String::new(),
    };
    Error::Input(format!(
        "trace does not match binary {}: {how}none of its addresses falls on the binary's function starts \
         (was the program rebuilt after tracing, or is this another program's trace?){from}",
        binary.display()
    ))
}
