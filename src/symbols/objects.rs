//! The loaded objects of a trace (executable, shared libraries), each
//! found on disk, opened once when its first address needs it and kept.
//! An object names an address from its DWARF (name, source file, line)
//! and its ELF symbol table (linkage name), the symbol table alone when
//! it has no or damaged debug information.

use std::cell::Cell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::demangle::{Demangle, demangle};
use super::elf::Elf;
use super::{FuncInfo, SymbolOptions};
use crate::error::{Error, Result};

/// One opened object.
pub(super) struct Object {
    /// Its segments and symbols.
    pub elf: Elf,
    /// Its debug information, when readable.
    dwarf: Option<addr2line::Loader>,
    /// The file read.
    path: PathBuf,
    /// Functions named from DWARF, and from the symbol table alone.
    named: Cell<(usize, usize)>,
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
    /// Opens `path`; unreadable debug information and a stripped
    /// executable (`is_exe`) become warnings.
    pub(super) fn open(path: &Path, is_exe: bool, warnings: &mut Vec<String>) -> Result<Object> {
        let elf = Elf::open(path)?;
        let dwarf = match addr2line::Loader::new(path) {
            Ok(l) => Some(l),
            Err(e) => {
                warnings.push(format!(
                    "{}: cannot read debug information ({e}); names come from the ELF symbol table, without source files",
                    path.display()
                ));
                None
            }
        };
        if is_exe && elf.stripped {
            warnings.push(format!(
                "{} has no symbols (stripped?): its functions keep addresses for names",
                path.display()
            ));
        }
        Ok(Object {
            elf,
            dwarf,
            path: path.to_path_buf(),
            named: Cell::new((0, 0)),
        })
    }

    /// The warning for an object whose debug information named none of
    /// the functions looked up while its symbol table named some: built
    /// without `-g`, file and line are missing from every output (the
    /// tooltips, callgrind's `fl=`), which nothing else would tell.
    /// (Unreadable debug information was warned about on opening.) Only
    /// for objects built with `-finstrument-functions`: a system library
    /// such as `libstdc++.so` that the user did not build is not theirs to
    /// rebuild with `-g`.
    pub(super) fn debug_warning(&self) -> Option<String> {
        let (dwarf, symtab) = self.named.get();
        let bare = self.dwarf.is_some() && dwarf == 0 && symtab > 0;
        (bare && self.elf.instrumented).then(|| {
            format!(
                "{} has no debug information (built without -g?): names come from the symbol table, \
                 without source files and lines (rebuild with -g to get them)",
                self.path.display()
            )
        })
    }

    /// Names the function at file address `probe`.
    pub(super) fn lookup(&self, probe: u64, style: Demangle) -> Option<Named> {
        // The symbol that starts exactly at the entry address has the full
        // linkage name; DWARF's name lacks the scope of functions without
        // DW_AT_linkage_name (anonymous namespaces, lambdas), so DWARF gives
        // the location and, failing a symbol, the name.
        let exact = self.elf.symbol_at(probe);
        let local = exact.is_none_or(|s| s.local);
        let unit = exact.and_then(|s| s.unit.clone());
        if let Some(mut info) = self
            .dwarf
            .as_ref()
            .and_then(|d| dwarf_frame(d, probe, style))
        {
            if let Some(sym) = exact {
                info.name = demangle(&sym.name, style);
            }
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
}

/// The outermost DWARF frame at `probe` (entry addresses have exactly one).
impl Object {
    /// The file addresses of the other functions with the linkage name of
    /// the function at `probe`: their display names are told apart from
    /// its name whether or not the trace calls them, so that a function's
    /// name does not depend on what a run happened to call.
    pub(super) fn namesakes(&self, probe: u64) -> Vec<u64> {
        match self.elf.symbol_at(probe) {
            Some(s) => self.elf.namesakes(&s.name, probe).collect(),
            None => Vec::new(),
        }
    }
}

fn dwarf_frame(loader: &addr2line::Loader, probe: u64, style: Demangle) -> Option<FuncInfo> {
    let mut frames = loader.find_frames(probe).ok()?;
    let mut last = None;
    while let Ok(Some(frame)) = frames.next() {
        last = Some(frame);
    }
    let frame = last?;
    let name = demangle(&frame.function.as_ref()?.raw_name().ok()?, style);
    let (file, line) = match frame.location {
        Some(loc) => (loc.file.map(clean_path), loc.line),
        None => (None, None),
    };
    Some(FuncInfo { name, file, line })
}

/// Where the objects of a trace are and which of them are open.
/// `path` without `.` components and with `dir/..` pairs folded, so that
/// one file has one spelling: brotli's nested `#include "./x.h"` gives
/// DWARF paths like `enc/./././fast_log.h` and `enc/././././fast_log.h`.
/// (Lexical: a symbolic link before a `..` is not followed.)
fn clean_path(path: &str) -> String {
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

pub(super) struct Objects<'a> {
    /// The executable given on the command line, read in place of the
    /// recorded executable.
    binary: Option<&'a Path>,
    /// Directories searched first, by file name, for moved objects.
    search_path: &'a [PathBuf],
    /// Name from an object of another build, with a warning.
    allow_mismatch: bool,
    /// Objects by recorded path; None when not found or unreadable.
    cache: HashMap<String, Option<Object>>,
    /// One line per object that was missing, differed or was damaged.
    pub warnings: Vec<String>,
    /// Set when an object's build-id differs from the traced one's and
    /// mismatches are not allowed: its names would be wrong.
    pub refused: Option<Error>,
}

impl<'a> Objects<'a> {
    /// No object open yet.
    pub(super) fn new(binary: Option<&'a Path>, opts: &'a SymbolOptions) -> Self {
        Objects {
            binary,
            search_path: &opts.search_path,
            allow_mismatch: opts.allow_mismatch,
            cache: HashMap::new(),
            warnings: Vec::new(),
            refused: None,
        }
    }

    /// The object recorded as `path` (the executable when `is_exe`), opened
    /// on first use; a build-id other than `build_id` is warned about once.
    pub(super) fn get(
        &mut self,
        path: &str,
        build_id: Option<&str>,
        is_exe: bool,
    ) -> Option<&Object> {
        if !self.cache.contains_key(path) {
            let obj = self.open(path, build_id, is_exe);
            self.cache.insert(path.to_string(), obj);
        }
        self.cache.get(path)?.as_ref()
    }

    fn open(&mut self, recorded: &str, build_id: Option<&str>, is_exe: bool) -> Option<Object> {
        let Some(file) = self.locate(recorded, build_id, is_exe) else {
            self.warnings.push(format!(
                "{recorded}: not found; its functions are named by file offset, {}+0x... (--search-path DIR finds a copy named {})",
                file_name(recorded),
                file_name(recorded)
            ));
            return None;
        };
        let obj = match Object::open(&file, is_exe, &mut self.warnings) {
            Ok(o) => o,
            Err(e) => {
                self.warnings
                    .push(format!("{e}; its functions are named by file offset"));
                return None;
            }
        };
        if let (Some(want), Some(have)) = (build_id, obj.elf.build_id.as_deref())
            && want != have
        {
            self.mismatch(&file, have, recorded, want);
        }
        Some(obj)
    }

    /// The warnings of the opened objects built without debug
    /// information, in path order.
    pub(super) fn debug_warnings(&self) -> Vec<String> {
        let mut opened: Vec<_> = self.cache.iter().collect();
        opened.sort_by(|a, b| a.0.cmp(b.0));
        opened
            .into_iter()
            .filter_map(|(_, o)| o.as_ref()?.debug_warning())
            .collect()
    }

    /// `file`, read for the object traced as `recorded`, is another build
    /// of it: refused, or with `--allow-mismatch` a warning.
    fn mismatch(&mut self, file: &Path, have: &str, recorded: &str, want: &str) {
        let what = format!(
            "{}: build-id {have} differs from the traced {recorded}'s {want}",
            file.display()
        );
        if self.allow_mismatch {
            self.warnings.push(format!(
                "{what} (--allow-mismatch): the names of its functions may be wrong"
            ));
        } else {
            self.refused.get_or_insert(Error::Input(format!(
                "{what}: it was rebuilt after tracing (or is another program), so the names of its functions would be wrong; \
                 point --search-path DIR at a directory holding the traced build, trace the program again, \
                 or pass --allow-mismatch to name them anyway"
            )));
        }
    }

    /// The file to read for the recorded `path`: of BINARY (for the
    /// executable; else the recorded path, last) and the copies in the
    /// search path, the first with the recorded build-id, or the first
    /// when none has it (or none was recorded).
    fn locate(&self, path: &str, build_id: Option<&str>, is_exe: bool) -> Option<PathBuf> {
        let found = match self.binary.filter(|_| is_exe) {
            // BINARY, or a copy of the traced build in the search path.
            Some(b) => {
                let copies = candidates(path, self.search_path);
                let copies = copies.into_iter().filter(|c| c.as_path() != path);
                std::iter::once(b.to_path_buf()).chain(copies).collect()
            }
            None => candidates(path, self.search_path),
        };
        if let Some(want) = build_id
            && found.len() > 1
            && let Some(p) = found
                .iter()
                .find(|p| super::elf::build_id_of(p).as_deref() == Some(want))
        {
            return Some(p.clone());
        }
        found.into_iter().next()
    }
}

/// The files that may be the object recorded as `path`, in order: a file
/// of its name in each search directory, then the recorded path.
fn candidates(path: &str, search_path: &[PathBuf]) -> Vec<PathBuf> {
    let name = file_name(path);
    if name.is_empty() {
        return Vec::new();
    }
    search_path
        .iter()
        .map(|d| d.join(name))
        .chain(std::iter::once(PathBuf::from(path)))
        .filter(|p| p.is_file())
        .collect()
}

/// A copy of `path` in one of `search_path` (by file name), else `path`
/// itself, when it exists.
pub fn locate(path: &str, search_path: &[PathBuf]) -> Option<PathBuf> {
    candidates(path, search_path).into_iter().next()
}

pub(super) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_paths_get_one_spelling() {
        assert_eq!(
            clean_path("/src/enc/./././fast_log.h"),
            "/src/enc/fast_log.h"
        );
        assert_eq!(
            clean_path("/src/enc/../common/port.h"),
            "/src/common/port.h"
        );
        assert_eq!(clean_path("enc/./x.h"), "enc/x.h");
        assert_eq!(clean_path("../x.h"), "../x.h");
        assert_eq!(clean_path("a/../../x.h"), "../x.h");
        assert_eq!(clean_path("/../x.h"), "/x.h");
        assert_eq!(clean_path("/usr//include/stdio.h"), "/usr/include/stdio.h");
        assert_eq!(clean_path("./"), ".");
    }

    #[test]
    fn search_directories_come_before_the_recorded_path() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("libx.so");
        std::fs::write(&lib, b"x").unwrap();
        let dirs = [dir.path().to_path_buf()];
        assert_eq!(locate("/nowhere/libx.so", &dirs), Some(lib.clone()));
        assert_eq!(locate("/nowhere/liby.so", &dirs), None);
        let recorded = lib.to_str().unwrap();
        assert_eq!(locate(recorded, &[]), Some(lib.clone()));
        assert_eq!(locate("", &dirs), None);
    }
}
