//! Module tables: which functional unit each function belongs to. From a
//! CSV `function,module` (header optional; the function column is an exact
//! name or a glob with `*` and `?`; exact names win over globs, among globs
//! the first listed wins), from the DWARF source file or directory of each
//! function (`auto:file`, `auto:dir`), or one module for everything.
//! Functions matched by nothing belong to `(unassigned)`.

use std::collections::HashMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::ingest::{FuncId, FuncTable};
use crate::symbols::FuncInfo;

/// Index of a module in [`Modules::names`].
pub type ModuleId = u32;

/// The module of synthetic nodes (root, threads): differs from every real module.
pub const NO_MODULE: ModuleId = ModuleId::MAX;

/// Name of the module of functions that nothing matched.
pub const UNASSIGNED: &str = "(unassigned)";

/// Where modules come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ModuleSource {
    /// Every function in one module. Default.
    #[default]
    Single,
    /// A `function,module` CSV.
    Table(ModuleTable),
    /// The DWARF source file of each function.
    AutoFile,
    /// The directory of each function's source file.
    AutoDir,
}

/// A parsed `function,module` CSV.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleTable {
    exact: HashMap<String, String>,
    globs: Vec<(String, String)>,
    /// Module names in order of first mention.
    order: Vec<String>,
}

/// Every function's module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modules {
    /// Module of each function id ([`NO_MODULE`] for synthetic nodes).
    pub of: Vec<ModuleId>,
    /// Module names, indexed by [`ModuleId`].
    pub names: Vec<String>,
}

impl ModuleSource {
    /// Parses a `--modules` value: `auto:file`, `auto:dir` or a CSV path.
    pub fn from_arg(arg: &str) -> Result<ModuleSource> {
        match arg {
            "auto:file" => Ok(ModuleSource::AutoFile),
            "auto:dir" => Ok(ModuleSource::AutoDir),
            a if a.starts_with("auto:") => Err(Error::usage(
                "--modules",
                format!("unknown `{a}`; expected auto:file, auto:dir or a CSV file"),
            )),
            path => ModuleTable::read(Path::new(path)).map(ModuleSource::Table),
        }
    }

    /// Assigns a module to every function of `funcs`, named by `names`.
    pub fn assign(&self, funcs: &FuncTable, names: &[FuncInfo]) -> Result<Modules> {
        let auto = matches!(self, ModuleSource::AutoFile | ModuleSource::AutoDir);
        if auto && !names.iter().any(|n| n.file.is_some()) {
            return Err(Error::usage(
                "--modules",
                "auto:file and auto:dir need an address trace and the binary it came from (with -g debug info)",
            ));
        }
        let mut m = Modules {
            of: Vec::with_capacity(names.len()),
            names: Vec::new(),
        };
        if let ModuleSource::Table(t) = self {
            m.names = t.order.clone();
        }
        for (id, info) in names.iter().enumerate() {
            if funcs.is_synthetic(id as FuncId) {
                m.of.push(NO_MODULE);
                continue;
            }
            let name = match self {
                ModuleSource::Single => "(all)".to_string(),
                ModuleSource::Table(t) => t.module_of(&info.name).unwrap_or(UNASSIGNED).to_string(),
                ModuleSource::AutoFile => info.file.clone().unwrap_or_else(|| UNASSIGNED.into()),
                ModuleSource::AutoDir => info
                    .file
                    .as_deref()
                    .map(parent_dir)
                    .unwrap_or_else(|| UNASSIGNED.into()),
            };
            let mid = m.intern(name);
            m.of.push(mid);
        }
        Ok(m)
    }
}

fn parent_dir(file: &str) -> String {
    match Path::new(file).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
        _ => ".".to_string(),
    }
}

impl Modules {
    fn intern(&mut self, name: String) -> ModuleId {
        match self.names.iter().position(|n| *n == name) {
            Some(i) => i as ModuleId,
            None => {
                self.names.push(name);
                (self.names.len() - 1) as ModuleId
            }
        }
    }

    /// Module of function `f`.
    pub fn of(&self, f: FuncId) -> ModuleId {
        self.of[f as usize]
    }
}

impl ModuleTable {
    /// Reads a `function,module` CSV.
    pub fn read(path: &Path) -> Result<ModuleTable> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        ModuleTable::parse(&path.display().to_string(), &text)
    }

    /// Parses CSV text; `name` is used in messages.
    pub fn parse(name: &str, text: &str) -> Result<ModuleTable> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .comment(Some(b'#'))
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let mut table = ModuleTable::default();
        for (i, rec) in rdr.records().enumerate() {
            let rec = rec.map_err(|e| {
                Error::parse(
                    name,
                    e.position().map_or(i as u64 + 1, |p| p.line()),
                    e.to_string(),
                )
            })?;
            let line = rec.position().map_or(i as u64 + 1, |p| p.line());
            if rec.iter().all(str::is_empty) {
                continue;
            }
            if i == 0
                && rec
                    .get(0)
                    .is_some_and(|f| f.eq_ignore_ascii_case("function"))
            {
                continue;
            }
            table.add(name, line, &rec)?;
        }
        Ok(table)
    }

    fn add(&mut self, name: &str, line: u64, rec: &csv::StringRecord) -> Result<()> {
        let (Some(func), Some(module), None) = (rec.get(0), rec.get(1), rec.get(2)) else {
            return Err(Error::parse(
                name,
                line,
                format!(
                    "expected two columns `function,module`, found {} column(s)",
                    rec.len()
                ),
            ));
        };
        if func.is_empty() || module.is_empty() {
            return Err(Error::parse(
                name,
                line,
                "expected a function (or glob) and a module name, found an empty column",
            ));
        }
        if !self.order.iter().any(|m| m == module) {
            self.order.push(module.to_string());
        }
        if func.contains(['*', '?']) {
            self.globs.push((func.to_string(), module.to_string()));
            return Ok(());
        }
        match self.exact.insert(func.to_string(), module.to_string()) {
            Some(old) if old != module => Err(Error::parse(
                name,
                line,
                format!(
                    "expected one module per function, but `{func}` was already in module `{old}`"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The module of function `name`: exact entry, else first matching glob.
    pub fn module_of(&self, name: &str) -> Option<&str> {
        if let Some(m) = self.exact.get(name) {
            return Some(m);
        }
        self.globs
            .iter()
            .find(|(g, _)| glob_match(g.as_bytes(), name.as_bytes()))
            .map(|(_, m)| m.as_str())
    }
}

/// Matches `*` (any run) and `?` (one byte) wildcards.
fn glob_match(pat: &[u8], s: &[u8]) -> bool {
    let (mut p, mut i) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while i < s.len() {
        if p < pat.len() && (pat[p] == b'?' || pat[p] == s[i]) {
            p += 1;
            i += 1;
        } else if p < pat.len() && pat[p] == b'*' {
            star = Some((p, i));
            p += 1;
        } else if let Some((sp, si)) = star {
            p = sp + 1;
            i = si + 1;
            star = Some((sp, si + 1));
        } else {
            return false;
        }
    }
    pat[p..].iter().all(|&b| b == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match() {
        assert!(glob_match(b"lua_*", b"lua_call"));
        assert!(glob_match(b"*_area", b"rect_area"));
        assert!(glob_match(b"f?o*x", b"fooBARx"));
        assert!(!glob_match(b"lua_*", b"luaL_x"));
        assert!(glob_match(b"*", b""));
    }

    #[test]
    fn exact_beats_glob_and_first_glob_wins() {
        let t = ModuleTable::parse(
            "m.csv",
            "function,module\nraster_*,raster\nr*,other\nraster_fax,fax\n",
        )
        .unwrap();
        assert_eq!(t.module_of("raster_fax"), Some("fax"));
        assert_eq!(t.module_of("raster_line"), Some("raster"));
        assert_eq!(t.module_of("rest"), Some("other"));
        assert_eq!(t.module_of("main"), None);
    }

    #[test]
    fn bad_rows_are_located() {
        let err = ModuleTable::parse("m.csv", "main,core\nfoo\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("m.csv:2: expected two columns"), "{err}");
        let err = ModuleTable::parse("m.csv", "main,core\nmain,io\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("m.csv:2:") && err.contains("already in module `core`"),
            "{err}"
        );
    }

    #[test]
    fn unmatched_functions_are_unassigned() {
        let mut funcs = FuncTable::default();
        funcs.name("main");
        funcs.name("helper");
        let names = crate::symbols::names_without_binary(&funcs);
        let src = ModuleSource::Table(ModuleTable::parse("m", "main,core\n").unwrap());
        let m = src.assign(&funcs, &names).unwrap();
        assert_eq!(m.of, [NO_MODULE, 0, 1]);
        assert_eq!(m.names, ["core", UNASSIGNED]);
    }
}
