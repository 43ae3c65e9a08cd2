//! Module tables: which functional unit each function belongs to. From a
//! CSV `function,module` (header optional; the function column is an exact
//! name or a glob with `*` and `?`; exact names win over globs, among globs
//! the first listed wins), from the DWARF source file or directory of each
//! function (`auto:file`, `auto:dir`), or one module for everything.
//! Functions matched by nothing belong to `(unassigned)`. Globs are
//! compiled into one `globset::GlobSet`, so a table of thousands of globs
//! costs one automaton pass per function, not one match per glob.
//! `auto:prefix` groups functions by name prefix ([`super::prefix`]) and
//! `auto` picks file, directory or prefix, whichever partitions usefully.

use std::collections::HashMap;
use std::path::Path;

use globset::{GlobSet, GlobSetBuilder};

pub(crate) mod arg;
pub(crate) mod assigned;

pub use arg::ModulesArg;

pub(crate) use assigned::{Modules, NO_MODULE, UNASSIGNED};
pub(crate) use assigned::{source_dir_module, source_file_module};

use crate::error::{Error, Result};
use crate::ingest::{FuncId, FuncTable};
use crate::symbols::FuncInfo;

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
    /// Function-name prefixes (`sqlite3Vdbe*`, `luaH_*`, `ns::Class::`).
    AutoPrefix,
    /// File, directory or prefix, whichever gives a useful partition.
    Auto,
}

impl ModuleSource {
    /// What the modules are, for reports: `auto:file`, `a table of 7
    /// modules`, `one module (no --modules)`.
    pub fn describe(&self) -> String {
        match self {
            ModuleSource::Single => "one module (no --modules)".to_string(),
            ModuleSource::Table(t) => match t.order.len() {
                1 => "a table of 1 module".to_string(),
                n => format!("a table of {n} modules"),
            },
            ModuleSource::AutoFile => "auto:file".to_string(),
            ModuleSource::AutoDir => "auto:dir".to_string(),
            ModuleSource::AutoPrefix => "auto:prefix".to_string(),
            ModuleSource::Auto => "auto".to_string(),
        }
    }
}

/// A parsed `function,module` CSV.
#[derive(Debug, Clone, Default)]
pub struct ModuleTable {
    exact: HashMap<String, String>,
    globs: Vec<(String, String)>,
    /// Line of each glob, for messages.
    glob_lines: Vec<u64>,
    /// `globs` compiled, same order.
    set: GlobSet,
    /// Module names in order of first mention.
    order: Vec<String>,
}

impl Eq for ModuleTable {}

impl PartialEq for ModuleTable {
    fn eq(&self, other: &Self) -> bool {
        (&self.exact, &self.globs, &self.order) == (&other.exact, &other.globs, &other.order)
    }
}

impl ModuleSource {
    /// The source a `--modules` value names; a table is read here. A table
    /// that cannot be read is an [`Error::Value`]: the caller names the flag.
    pub fn from_arg(arg: &ModulesArg) -> Result<ModuleSource> {
        match arg {
            ModulesArg::AutoFile => Ok(ModuleSource::AutoFile),
            ModulesArg::AutoDir => Ok(ModuleSource::AutoDir),
            ModulesArg::AutoPrefix => Ok(ModuleSource::AutoPrefix),
            ModulesArg::Auto => Ok(ModuleSource::Auto),
            ModulesArg::Table(path) => ModuleTable::read(path).map(ModuleSource::Table),
        }
    }

    /// Assigns a module to every function of `funcs`, named by `names`
    /// (`auto:file` without source files is an [`Error::Value`]).
    pub fn assign(&self, funcs: &FuncTable, names: &[FuncInfo]) -> Result<Modules> {
        match self {
            ModuleSource::Auto => return Ok(super::prefix::auto(funcs, names)),
            ModuleSource::AutoPrefix => return Ok(super::prefix::by_prefix(funcs, names)),
            _ => {}
        }
        let auto = matches!(self, ModuleSource::AutoFile | ModuleSource::AutoDir);
        if auto && !names.iter().any(|n| n.file.is_some()) {
            return Err(Error::value(
                "auto:file and auto:dir need an address trace and the binary it came from (with -g debug info)",
            ));
        }
        let mut m = Modules {
            of: Vec::with_capacity(names.len()),
            names: Vec::new(),
            picked: None,
            index: HashMap::new(),
        };
        if let ModuleSource::Table(t) = self {
            for name in &t.order {
                m.intern(name.clone());
            }
        }
        for (id, info) in names.iter().enumerate() {
            if funcs.is_synthetic(id as FuncId) {
                m.of.push(NO_MODULE);
                continue;
            }
            let name = match self {
                ModuleSource::Single => "(all)".to_string(),
                ModuleSource::Table(t) => t.module_of(&info.name).unwrap_or(UNASSIGNED).to_string(),
                ModuleSource::AutoFile => info
                    .file
                    .as_deref()
                    .map(source_file_module)
                    .unwrap_or_else(|| UNASSIGNED.into()),
                ModuleSource::AutoDir => info
                    .file
                    .as_deref()
                    .map(source_dir_module)
                    .unwrap_or_else(|| UNASSIGNED.into()),
                ModuleSource::AutoPrefix | ModuleSource::Auto => unreachable!("handled above"),
            };
            let mid = m.intern(name);
            m.of.push(mid);
        }
        Ok(m)
    }
}

impl ModuleTable {
    /// Reads a `function,module` CSV.
    pub fn read(path: &Path) -> Result<ModuleTable> {
        crate::ingest::opened::note(path);
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::value(
                format!(
                    "{}: {e}; expected a `function,module` CSV, auto, auto:file, auto:dir or auto:prefix",
                    path.display()
                ),
            )
        })?;
        ModuleTable::parse(&path.display().to_string(), &text)
    }

    /// Parses CSV text; `name` is used in messages.
    pub fn parse(name: &str, text: &str) -> Result<ModuleTable> {
        check_quoting(name, text)?;
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
            if rec.iter().any(|f| f.contains('\n')) {
                let msg = "expected `function,module`, found a quoted field running over several lines (unterminated quote?)";
                return Err(Error::parse(name, line, msg));
            }
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
        table.compile(name)?;
        Ok(table)
    }

    fn compile(&mut self, name: &str) -> Result<()> {
        let mut b = GlobSetBuilder::new();
        for ((g, _), &line) in self.globs.iter().zip(&self.glob_lines) {
            let glob = crate::symbols::pattern_glob(g)
                .map_err(|e| Error::parse(name, line, format!("bad glob `{g}`: {e}")))?;
            b.add(glob);
        }
        self.set = b
            .build()
            .map_err(|e| Error::parse(name, 0, format!("bad globs: {e}")))?;
        Ok(())
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
            self.glob_lines.push(line);
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

    /// The module of function `name`: exact entry, else first matching
    /// glob; failing both, the same for its short form
    /// ([`crate::symbols::short_form`]: `OT::*` takes `bool
    /// OT::ArrayOf<...>::sanitize<...>(...)`, whose return type comes first).
    pub fn module_of(&self, name: &str) -> Option<&str> {
        self.module_of_exactly(name).or_else(|| {
            let short = crate::symbols::short_form(name);
            (short != name).then(|| self.module_of_exactly(&short))?
        })
    }

    fn module_of_exactly(&self, name: &str) -> Option<&str> {
        if let Some(m) = self.exact.get(name) {
            return Some(m);
        }
        let first = self.set.matches(name).into_iter().min()?;
        Some(self.globs[first].1.as_str())
    }
}

/// Finds broken CSV quoting, which the CSV reader would silently accept:
/// a quote inside an unquoted field, text after a closing quote, or a
/// quoted field left open at the end of its line (function names have no
/// line breaks).
fn check_quoting(name: &str, text: &str) -> Result<()> {
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        if let Err(what) = line_quoting(line) {
            return Err(Error::parse(name, i as u64 + 1, what));
        }
    }
    Ok(())
}

fn line_quoting(line: &str) -> std::result::Result<(), String> {
    for (col, field) in split_fields(line)?.iter().enumerate() {
        let f = field.trim();
        let inner = match f.strip_prefix('"') {
            Some(rest) => rest.strip_suffix('"').ok_or_else(|| {
                format!("expected a closing quote in column {}, found the end of the line or text after it", col + 1)
            })?,
            None if f.contains('"') => {
                return Err(format!(
                    "expected a quote only around a whole field, found one inside column {} (`{f}`)",
                    col + 1
                ));
            }
            None => continue,
        };
        if inner.replace("\"\"", "").contains('"') {
            return Err(format!(
                "expected quotes inside a quoted field to be doubled (\"\"), found a single one in column {}",
                col + 1
            ));
        }
    }
    Ok(())
}

/// Splits a line at commas outside quoted fields (a quote opens a field
/// only at its start); an open quote at the end is an error.
fn split_fields(line: &str) -> std::result::Result<Vec<&str>, String> {
    let (mut fields, mut start, mut quoted) = (Vec::new(), 0, false);
    for (i, c) in line.char_indices() {
        match c {
            '"' if quoted => quoted = false,
            '"' if line[start..i].trim().is_empty() => quoted = true,
            '"' if line[start..i].trim_start().starts_with('"') => quoted = true,
            ',' if !quoted => {
                fields.push(&line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted {
        return Err(
            "expected a closing quote before the end of the line (unterminated quoted field)"
                .into(),
        );
    }
    fields.push(&line[start..]);
    Ok(fields)
}

#[cfg(test)]
mod tests;
