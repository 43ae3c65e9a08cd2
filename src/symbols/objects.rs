//! The loaded objects of a trace (executable, shared libraries), each
//! found on disk (BINARY, a `--search-path` copy, the recorded path),
//! opened once when its first address needs it and kept
//! (`object_file`). BINARY may be the program's separate debug file: the
//! program itself is then read for its layout and code.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::SymbolOptions;
use super::debugfile::DebugSearch;
pub(super) use super::object_file::Object;
use super::object_file::is_debug_file_of;
use crate::error::Error;

/// Where the objects of a trace are and which of them are open.
pub(super) struct Objects<'a> {
    /// The executable given on the command line, read in place of the
    /// recorded executable.
    binary: Option<&'a Path>,
    /// Directories searched first, by file name, for moved objects.
    search_path: &'a [PathBuf],
    /// Name from an object of another build, with a warning.
    allow_mismatch: bool,
    /// Where separate debug files are looked for.
    debug: DebugSearch,
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
            debug: DebugSearch::new(&opts.debug_dirs, &opts.search_path),
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
        let (code, debug) = self.code_and_debug(file, recorded, build_id, is_exe);
        let opened = Object::open_with(
            &code,
            debug.as_deref(),
            is_exe,
            &self.debug,
            &mut self.warnings,
        );
        let obj = match opened {
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
            self.mismatch(&code, have, recorded, want);
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
            .flat_map(|(_, o)| o.as_ref().map(Object::debug_warnings).unwrap_or_default())
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

    /// The files to read for the object recorded as `recorded`, found as
    /// `file`: itself, or when it is a separate debug file (BINARY given
    /// as `app.debug`), the program of its build among the other
    /// candidates (read for layout and code) and the debug file.
    fn code_and_debug(
        &self,
        file: PathBuf,
        recorded: &str,
        build_id: Option<&str>,
        is_exe: bool,
    ) -> (PathBuf, Option<PathBuf>) {
        if !is_exe || !is_debug_file_of(&file, build_id) {
            return (file, None);
        }
        let code = candidates(recorded, self.search_path)
            .into_iter()
            .filter(|c| *c != file)
            .find(|c| {
                !is_debug_file_of(c, None)
                    && (build_id.is_none() || super::elf::build_id_of(c).as_deref() == build_id)
            });
        match code {
            Some(code) => (code, Some(file)),
            None => (file, None),
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
    use super::super::object_file::clean_path;
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
