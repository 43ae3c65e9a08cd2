//! One loaded object (executable or shared library), read once: its ELF
//! layout and symbols (`elf`) and its DWARF (`dwarf`), which may live in
//! a separate debug file (`debugfile`: by build-id or `.gnu_debuglink`).
//! A stripped object's symbols come from its debug file's `.symtab`. An
//! object names an address from its DWARF (name, source file, line) and
//! its symbol table (linkage name), the symbol table alone when it has no
//! or damaged debug information; what was missing is said once, with the
//! cause (`debug_warnings`).

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use object::Object as _;

use super::FuncInfo;
use super::debugfile::{self, DebugSearch, Links, Missing};
use super::demangle::{Demangle, demangle};
use super::dwarf::{Dwarf, Frame};
use super::elf::Elf;
use crate::error::{Error, Result};

/// One opened object.
pub(super) struct Object {
    /// Its segments and symbols.
    pub elf: Elf,
    /// Its debug information, when there is some.
    dwarf: Option<Dwarf>,
    /// The file read.
    path: PathBuf,
    /// Where its debug information came from.
    debug: DebugFrom,
    /// Its names come from its MiniDebugInfo (`.gnu_debugdata`).
    mini: bool,
    /// It is the traced executable.
    is_exe: bool,
    /// Functions named from DWARF, and from the symbol table alone.
    named: Cell<(usize, usize)>,
    /// Addresses looked up.
    asked: Cell<usize>,
}

/// Where an object's debug information came from.
enum DebugFrom {
    /// The object itself.
    Own,
    /// A separate debug file.
    Separate(PathBuf),
    /// Nowhere: the object's links, and where they were looked for.
    Missing(Box<(Links, Missing)>),
    /// It could not be read (warned about on opening).
    Unreadable,
}

/// How one address was named.
pub(super) struct Named {
    /// The name, source file and line.
    pub info: FuncInfo,
    /// Named from the symbol table because DWARF had nothing.
    pub from_symtab: bool,
    /// The function is local to its object (a `static`).
    pub local: bool,
    /// A local function's compilation unit (see [`super::elf::Symbol::unit`]).
    pub unit: Option<Arc<str>>,
}

impl Object {
    /// Opens `path`, its debug file looked for in the system's debug
    /// directory; unreadable debug information becomes a warning.
    pub(super) fn open(path: &Path, is_exe: bool, warnings: &mut Vec<String>) -> Result<Object> {
        Object::open_with(path, None, is_exe, &DebugSearch::system(), warnings)
    }

    /// Opens `path` for its code and layout, with the separate debug file
    /// `debug` when given, else the one `search` finds when `path` has no
    /// DWARF of its own.
    pub(super) fn open_with(
        path: &Path,
        debug: Option<&Path>,
        is_exe: bool,
        search: &DebugSearch,
        warnings: &mut Vec<String>,
    ) -> Result<Object> {
        let data = read(path)?;
        let file = parse(path, &data)?;
        let (found, mut from) = debug_source(path, &file, debug, search)?;
        let debug_file = match &found {
            Some(f) => Some(parse(&f.path, &f.data)?),
            None => None,
        };
        // Without a debug file, a stripped program's MiniDebugInfo (an
        // xz-compressed symbol table) names its functions.
        let mini_data = match (&debug_file, file.symbol_table()) {
            (None, None) => debugfile::mini_debug_info(&file),
            _ => None,
        };
        let mini = mini_data
            .as_deref()
            .and_then(|d| object::File::parse(d).ok());
        let mut elf = Elf::from_file(&file, debug_file.as_ref().or(mini.as_ref()));
        if debugfile::is_debug_only(&file) {
            elf.guess_file_layout();
        }
        let (dwarf_file, dwarf_path) = match (&debug_file, &found) {
            (Some(d), Some(f)) => (d, f.path.as_path()),
            _ => (&file, path),
        };
        let dwarf = load_dwarf(dwarf_file, dwarf_path, path, search);
        let dwarf = match dwarf {
            Ok(d) => d,
            Err(e) => {
                warnings.push(e);
                from = DebugFrom::Unreadable;
                None
            }
        };
        Ok(Object {
            elf,
            dwarf,
            path: path.to_path_buf(),
            debug: from,
            mini: mini.is_some(),
            is_exe,
            named: Cell::new((0, 0)),
            asked: Cell::new(0),
        })
    }

    /// Names the function at file address `probe`.
    pub(super) fn lookup(&self, probe: u64, style: Demangle) -> Option<Named> {
        self.asked.set(self.asked.get() + 1);
        // The symbol that starts exactly at the entry address has the full
        // linkage name; DWARF's name lacks the scope of functions without
        // DW_AT_linkage_name (anonymous namespaces, lambdas), so DWARF gives
        // the location and, failing a symbol, the name.
        let exact = self.elf.symbol_at(probe);
        let local = exact.is_none_or(|s| s.local);
        let unit = exact.and_then(|s| s.unit.clone());
        let frame = self.dwarf.as_ref().and_then(|d| d.frame(probe));
        if let Some(info) = frame.and_then(|f| dwarf_info(f, exact.map(|s| &*s.name), style)) {
            let (dwarf, symtab) = self.named.get();
            self.named.set((dwarf + 1, symtab));
            return Some(Named {
                info,
                from_symtab: false,
                local,
                unit,
            });
        }
        let sym = self.elf.symbol_containing(probe)?;
        let (dwarf, symtab) = self.named.get();
        self.named.set((dwarf, symtab + 1));
        Some(Named {
            info: FuncInfo {
                name: demangle(&sym.name, style),
                ..FuncInfo::default()
            },
            from_symtab: true,
            local: sym.local,
            unit: sym.unit.clone(),
        })
    }

    /// The file addresses of the other functions with the linkage name of
    /// the function at `probe`: their display names are told apart from
    /// its name whether or not the trace calls them, so that a function's
    /// name does not depend on what a run happened to call.
    pub(super) fn namesakes(&self, probe: u64) -> Vec<u64> {
        match self.elf.symbol_at(probe) {
            // Not `probe`: a Thumb function's symbol is one above an even probe.
            Some(s) => self.elf.namesakes(&s.name, s.addr).collect(),
            None => Vec::new(),
        }
    }

    /// What this object lacked, once its addresses were looked up, each
    /// with its cause: a debug file not found (or of another build), a
    /// supplementary or split DWARF file not found, no debug information
    /// at all. An object that named none of the trace's functions from
    /// its symbol table is not warned about for missing files and lines
    /// unless it was built with `-finstrument-functions`: a system
    /// library such as `libstdc++.so` is not the user's to rebuild.
    pub(super) fn debug_warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let name = self.path.display();
        let (dwarf, symtab) = self.named.get();
        let asked = self.asked.get() > 0;
        let what = match (self.elf.stripped, self.mini) {
            (true, _) => "its functions keep addresses for names",
            (false, true) => {
                "names come from its MiniDebugInfo (.gnu_debugdata), without source files and lines"
            }
            (false, false) => "names come from the symbol table, without source files and lines",
        };
        match &self.debug {
            DebugFrom::Missing(m) if asked || self.is_exe => {
                out.extend(missing_debug_file(self, &m.0, &m.1, what));
            }
            DebugFrom::Own | DebugFrom::Separate(_)
                if dwarf == 0 && symtab > 0 && self.elf.instrumented =>
            {
                let info = match &self.debug {
                    DebugFrom::Separate(p) => format!("debug file {}", p.display()),
                    _ => "debug information".to_string(),
                };
                out.push(format!(
                    "{name}'s {info} describes none of its traced functions: \
                     names come from the symbol table, without source files and lines"
                ));
            }
            _ => {}
        }
        if let Some(d) = self.dwarf.as_ref().filter(|_| asked) {
            out.extend(dwarf_gaps(self, d));
        }
        out
    }
}

/// Where the DWARF of the object at `path` (parsed as `file`) is: the
/// debug file `debug` when given, the object itself when it has DWARF,
/// else the separate debug file `search` finds (with the bytes read), or
/// where it was looked for.
fn debug_source(
    path: &Path,
    file: &object::File<'_>,
    debug: Option<&Path>,
    search: &DebugSearch,
) -> Result<(Option<debugfile::Found>, DebugFrom)> {
    let links = Links::of(file);
    let separate = match debug {
        Some(d) => Ok(debugfile::Found {
            path: d.to_path_buf(),
            data: read(d)?,
        }),
        None if debugfile::has_dwarf(file) => return Ok((None, DebugFrom::Own)),
        None => debugfile::find_debug_file(path, &links, search),
    };
    Ok(match separate {
        Ok(f) => {
            let from = DebugFrom::Separate(f.path.clone());
            (Some(f), from)
        }
        Err(m) => (None, DebugFrom::Missing(Box::new((links, m)))),
    })
}

/// The DWARF of `file`, read from `path` for the object at `object`
/// (None when it has none), or the warning that it cannot be read.
fn load_dwarf(
    file: &object::File<'_>,
    path: &Path,
    object: &Path,
    search: &DebugSearch,
) -> std::result::Result<Option<Dwarf>, String> {
    if !debugfile::has_dwarf(file) {
        return Ok(None);
    }
    let sup = Links::of(file).sup;
    Dwarf::load(file, path, object, sup.as_ref(), search)
        .map(Some)
        .map_err(|e| {
            format!(
                "{}: cannot read debug information ({e}); names come from the ELF symbol table, without source files",
                path.display()
            )
        })
}

/// Why an object without DWARF has none: its `.gnu_debuglink` target not
/// found, or found with another CRC; no link and no build-id file.
fn missing_debug_file(obj: &Object, links: &Links, m: &Missing, what: &str) -> Option<String> {
    let name = obj.path.display();
    let (_, symtab) = obj.named.get();
    if let Some((link, _)) = &links.debuglink {
        if let Some(wrong) = m.wrong.iter().find(|p| p.ends_with(link)) {
            return Some(format!(
                "{name}: debug file {} found (its .gnu_debuglink) but its CRC does not match: \
                 it is another build's, not used; {what}",
                wrong.display()
            ));
        }
        return Some(format!(
            "{name} has a .gnu_debuglink to {link}, not found in: {}; pass --debug-dir DIR \
             (a directory holding it, or a tree of .build-id/): {what}",
            m.tried_list()
        ));
    }
    let ids = match m.tried.is_empty() {
        true => String::new(),
        false => format!(" (no debug file by build-id either: {})", m.tried_list()),
    };
    if obj.mini {
        return Some(format!(
            "{name}: {what}: it has no debug file{ids}; pass --debug-dir DIR holding one"
        ));
    }
    if obj.elf.stripped {
        return obj.is_exe.then(|| {
            format!(
                "{name} has no symbols (stripped?): its functions keep addresses for names{ids}"
            )
        });
    }
    (symtab > 0 && obj.elf.instrumented).then(|| {
        format!(
            "{name} has no debug information (built without -g?): names come from the symbol table, \
             without source files and lines (rebuild with -g to get them){ids}"
        )
    })
}

/// The files an object's DWARF refers to that were not found.
fn dwarf_gaps(obj: &Object, d: &Dwarf) -> Vec<String> {
    let name = obj.path.display();
    let mut out = Vec::new();
    if let Some(sup) = &d.missing_sup {
        let why = match sup.missing.wrong.first() {
            Some(w) => format!("{} is another build's", w.display()),
            None => format!("looked in: {}", sup.missing.tried_list()),
        };
        out.push(format!(
            "{name}: dwz supplementary file {} not found ({why}): the debug information it holds is missing \
             (types, and the names, files and lines of functions described only there); \
             pass --debug-dir or --search-path DIR holding it",
            sup.name
        ));
    }
    let dwos = d.missing_dwo.borrow();
    if let Some((first, tried)) = dwos.first() {
        let names: Vec<&str> = dwos.iter().map(|(n, _)| n.as_str()).collect();
        out.push(format!(
            "{name}: split DWARF file{} {} not found ({first} looked for in: {tried}): \
             names come from the symbol table, files and lines from the line table; \
             pass --search-path DIR holding them",
            if names.len() > 1 { "s" } else { "" },
            names.join(", ")
        ));
    }
    out
}

/// A DWARF frame as a trace function's info: the symbol's name when the
/// address has one (`exact`), else DWARF's.
fn dwarf_info(frame: Frame, exact: Option<&str>, style: Demangle) -> Option<FuncInfo> {
    let name = match exact {
        Some(sym) => demangle(sym, style),
        None => demangle(frame.name.as_deref()?, style),
    };
    // A frame without a function (a unit whose split DWARF is missing)
    // still gives the line table's location, named by the symbol.
    Some(FuncInfo {
        name,
        file: frame.file.as_deref().map(clean_path),
        line: frame.line,
    })
}

fn read(path: &Path) -> Result<Vec<u8>> {
    let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    crate::ingest::opened::note(path);
    Ok(data)
}

fn parse<'d>(path: &Path, data: &'d [u8]) -> Result<object::File<'d>> {
    object::File::parse(data).map_err(|e| {
        Error::Input(format!(
            "{}: not an executable this tool can read: {e}",
            path.display()
        ))
    })
}

/// Whether the ELF file at `path` is a separate debug file (code
/// sections without bytes) of the build `build_id`. Only its headers and
/// notes are read (mapped, not read whole): the file is read once, later,
/// by the object that uses it.
pub(super) fn is_debug_file_of(path: &Path, build_id: Option<&str>) -> bool {
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    // SAFETY: the map is read-only and lives only for this check of a
    // few header pages; an ELF file truncated in those few microseconds
    // could fault, as for any reader of a mapped file.
    let Ok(data) = (unsafe { memmap2::Mmap::map(&f) }) else {
        return false;
    };
    crate::ingest::opened::note(path);
    let Ok(file) = object::File::parse(&*data) else {
        return false;
    };
    let id = file.build_id().ok().flatten().map(super::elf::hex);
    debugfile::is_debug_only(&file) && (build_id.is_none() || id.as_deref() == build_id)
}

/// `path` without `.` components and with `dir/..` pairs folded, so that
/// one file has one spelling: brotli's nested `#include "./x.h"` gives
/// DWARF paths like `enc/./././fast_log.h` and `enc/././././fast_log.h`.
/// (Lexical: a symbolic link before a `..` is not followed.)
pub(super) fn clean_path(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}
