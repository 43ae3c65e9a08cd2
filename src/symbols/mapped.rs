//! The source of a trace with mappings (our runtime's `# map` records):
//! an address is placed in the mapping that held it when its function was
//! first seen (`mapindex`), and named through that mapping's object
//! (`objects`), found on disk and opened on first use. An object that
//! cannot be read names its addresses by file offset, `libx.so+0x1139`,
//! the same in every run.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::distinct::Identity;
use super::executable::mismatch;
use super::mapindex::{MapIndex, holders_when};
use super::objects::{self, Objects};
use super::source::{Naming, Place, Span, SymbolSource, name_one};
use super::{FuncInfo, SymbolOptions, elf};
use crate::error::{Error, Result};
use crate::ingest::{FuncId, FuncKey, FuncTable, Mapping, TraceMeta};

/// The loaded objects of a trace, as its mappings recorded them.
pub(super) struct Mapped<'a> {
    meta: &'a TraceMeta,
    maps: &'a [Mapping],
    binary: Option<&'a Path>,
    /// The mapping of the executable.
    exe: Option<usize>,
    objects: Objects<'a>,
    index: MapIndex,
    /// The mapping that held each function's address when the function
    /// was first seen, by function id ([`holders`]).
    held: Vec<Option<usize>>,
    /// Addresses in the executable, and those on a function start there.
    exe_addrs: usize,
    exe_starts: usize,
    /// The objects that hold traced functions, in order of first use.
    opened: Vec<Opened>,
    opened_objects: HashSet<usize>,
}

/// An object that holds traced functions, as `Objects::get` finds it.
struct Opened {
    object: usize,
    recorded: String,
    build_id: Option<String>,
    is_exe: bool,
}

impl<'a> Mapped<'a> {
    /// The objects of `meta.maps`; `binary`, when given, is read in place
    /// of the recorded executable.
    pub(super) fn new(
        funcs: &FuncTable,
        meta: &'a TraceMeta,
        binary: Option<&'a Path>,
        opts: &'a SymbolOptions,
    ) -> Mapped<'a> {
        let maps = &meta.maps;
        let index = MapIndex::new(maps);
        Mapped {
            meta,
            maps,
            binary,
            exe: executable_map(maps, meta.exe_path.as_deref()),
            objects: Objects::new(binary, opts),
            held: holders(funcs, &index, maps),
            index,
            exe_addrs: 0,
            exe_starts: 0,
            opened: Vec::new(),
            opened_objects: HashSet::new(),
        }
    }

    /// Whether mapping `m` is of the executable, and the path its object
    /// was recorded as.
    fn recorded(&self, m: usize) -> (bool, &'a str) {
        let (maps, map) = (self.maps, &self.maps[m]);
        let is_exe = self.exe.is_some_and(|e| maps[e].path == map.path);
        let recorded = match (is_exe, map.path.is_empty(), self.meta.exe_path.as_deref()) {
            (true, true, Some(p)) => p,
            _ => map.path.as_str(),
        };
        (is_exe, recorded)
    }
}

impl SymbolSource for Mapped<'_> {
    fn place(&mut self, func: usize, addr: u64) -> Option<Place> {
        let m = self.held.get(func).copied().flatten()?;
        let map = &self.maps[m];
        Some(Place {
            object: self.index.object(m),
            at: m,
            offset: addr - map.start + map.offset,
        })
    }

    fn name(
        &mut self,
        place: Place,
        addr: u64,
        naming: &mut Naming,
    ) -> (FuncInfo, Option<Identity>) {
        let (m, object, offset) = (place.at, place.object, place.offset);
        let (is_exe, recorded) = self.recorded(m);
        let build_id = self.maps[m].build_id.as_deref();
        let probe = self
            .objects
            .get(recorded, build_id, is_exe)
            .and_then(|o| Some((o, o.elf.vaddr_of_offset(offset)?)));
        // Unnamed, an address is named by its object and file offset, the
        // same in every run (the process address moves with ASLR).
        let in_object = || FuncInfo {
            name: format!("{}+{:#x}", objects::file_name(recorded), offset),
            ..FuncInfo::default()
        };
        let Some((obj, probe)) = probe else {
            naming.stats.unresolved += 1;
            return (in_object(), None);
        };
        if is_exe {
            self.exe_addrs += 1;
            self.exe_starts += usize::from(obj.elf.is_func_start(probe));
        }
        if self.opened_objects.insert(object) {
            self.opened.push(Opened {
                object,
                recorded: recorded.to_string(),
                build_id: build_id.map(str::to_string),
                is_exe,
            });
        }
        let no_starts = is_exe && obj.elf.stripped;
        let (info, id) = name_one(obj, object, probe, addr, naming);
        self.exe_starts += usize::from(no_starts);
        (if id.is_some() { info } else { in_object() }, id)
    }

    fn finish(&mut self, ids: &[Option<Identity>], naming: &mut Naming) -> Result<()> {
        let (maps, exe, binary, meta) = (self.maps, self.exe, self.binary, self.meta);
        if self.exe_addrs > 0 && self.exe_starts == 0 {
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
        if let Some(refused) = self.objects.refused.take() {
            return Err(refused);
        }
        namesakes_elsewhere(&mut self.objects, &self.opened, ids, naming);
        let mut warnings = self.objects.debug_warnings();
        warnings.append(&mut self.objects.warnings);
        naming.stats.warnings.append(&mut warnings);
        Ok(())
    }

    fn spans(&self) -> Vec<Span> {
        let span = |(m, map): (usize, &Mapping)| Span {
            start: map.start,
            end: map.end,
            what: format!("{}, mapped by the trace", self.recorded(m).1),
        };
        self.maps.iter().enumerate().map(span).collect()
    }
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
    naming: &mut Naming,
) {
    if opened.len() < 2 {
        return;
    }
    let mut done = HashSet::new();
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
                    naming.namesakes.push(obj, to.object, addr, naming.style);
                }
            }
        }
    }
}

/// The mapping that held each function's address when the function was
/// first seen, after the trace's first `seen` mapping records (see
/// [`FuncTable::maps_seen`]): the latest of those that holds it (an object
/// loaded where an unloaded one was replaces it), else the first later one
/// (a record that came after the events it is for). By function id; None
/// for names and for addresses no mapping holds.
fn holders(funcs: &FuncTable, index: &MapIndex, maps: &[Mapping]) -> Vec<Option<usize>> {
    let mut held = vec![None; funcs.len()];
    // The latest holder of all is the latest one before `seen` too when it
    // came before: the common case, a binary search. The addresses whose
    // holder was recorded after their function was first seen (a replaced
    // object, a record that came late) are answered together.
    let mut late = Vec::new();
    for (func, key) in funcs.keys().iter().enumerate() {
        let FuncKey::Addr(addr) = *key else { continue };
        let seen = funcs.maps_seen(func as FuncId);
        match index.find(addr) {
            Some(m) if m < seen => held[func] = Some(m),
            Some(_) => late.push((func, (addr, seen))),
            None => {}
        }
    }
    let questions: Vec<(u64, usize)> = late.iter().map(|&(_, q)| q).collect();
    for ((func, _), m) in late.into_iter().zip(holders_when(maps, &questions)) {
        held[func] = m;
    }
    held
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
