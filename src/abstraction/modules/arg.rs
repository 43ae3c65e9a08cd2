//! What the user names with `--modules`, parsed once at the command line:
//! one of the automatic sources (`auto`, `auto:file`, `auto:dir`,
//! `auto:prefix`) or the path of a `function,module` table. Everything
//! downstream takes this value; nothing looks at the string again, so a
//! table named `autos.csv` is a table and `auto` is never a file.

use std::fmt;
use std::path::{Path, PathBuf};

/// A `--modules` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModulesArg {
    /// `auto`: file, directory or prefix, whichever partitions usefully.
    Auto,
    /// `auto:file`: the DWARF source file of each function.
    AutoFile,
    /// `auto:dir`: the directory of each function's source file.
    AutoDir,
    /// `auto:prefix`: function-name prefixes.
    AutoPrefix,
    /// A `function,module` CSV file (read when the command runs).
    Table(PathBuf),
}

impl ModulesArg {
    /// Parses a `--modules` value; an `auto:` value that names no
    /// automatic source is refused rather than read as a file.
    pub fn parse(arg: &str) -> Result<ModulesArg, String> {
        match arg {
            "auto" => Ok(ModulesArg::Auto),
            "auto:file" => Ok(ModulesArg::AutoFile),
            "auto:dir" => Ok(ModulesArg::AutoDir),
            "auto:prefix" => Ok(ModulesArg::AutoPrefix),
            a if a.starts_with("auto:") => Err(format!(
                "unknown `{a}`; expected auto, auto:file, auto:dir, auto:prefix or a CSV file"
            )),
            path => Ok(ModulesArg::Table(PathBuf::from(path))),
        }
    }

    /// The table file, the one kind of value that is an input file.
    pub fn table(&self) -> Option<&Path> {
        match self {
            ModulesArg::Table(p) => Some(p),
            _ => None,
        }
    }
}

impl fmt::Display for ModulesArg {
    /// The value as the user gave it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModulesArg::Auto => f.write_str("auto"),
            ModulesArg::AutoFile => f.write_str("auto:file"),
            ModulesArg::AutoDir => f.write_str("auto:dir"),
            ModulesArg::AutoPrefix => f.write_str("auto:prefix"),
            ModulesArg::Table(p) => write!(f, "{}", p.display()),
        }
    }
}

impl serde::Serialize for ModulesArg {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_values_are_sources_and_everything_else_is_a_table() {
        assert_eq!(ModulesArg::parse("auto"), Ok(ModulesArg::Auto));
        assert_eq!(ModulesArg::parse("auto:prefix"), Ok(ModulesArg::AutoPrefix));
        let t = ModulesArg::parse("autos.csv").unwrap();
        assert_eq!(t.table(), Some(Path::new("autos.csv")));
        assert_eq!(t.to_string(), "autos.csv");
        assert_eq!(ModulesArg::Auto.table(), None);
        let err = ModulesArg::parse("auto:function").unwrap_err();
        assert!(err.starts_with("unknown `auto:function`"), "{err}");
    }
}
