//! Every function's module once assigned ([`Modules`]), and the modules a
//! source file or directory stands for (`auto:file`, `auto:dir`). A leaf:
//! the module sources (the table in `mod.rs`, name prefixes in
//! `super::super::prefix`) build on it.

use std::collections::HashMap;
use std::path::Path;

use crate::ingest::FuncId;

/// Index of a module in [`Modules::names`].
pub(crate) type ModuleId = u32;

/// The module of synthetic nodes (root, threads): differs from every real module.
pub(crate) const NO_MODULE: ModuleId = ModuleId::MAX;

/// Name of the module of functions that nothing matched.
pub(crate) const UNASSIGNED: &str = "(unassigned)";

/// Every function's module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modules {
    /// Module of each function id ([`NO_MODULE`] for synthetic nodes).
    pub of: Vec<ModuleId>,
    /// Module names, indexed by [`ModuleId`].
    pub names: Vec<String>,
    /// For `auto`: which source it picked, e.g. `auto:file (7 modules)`.
    pub picked: Option<String>,
    /// Id of each name, so assigning modules stays linear in the functions.
    pub(super) index: HashMap<String, ModuleId>,
}

fn parent_dir(file: &str) -> String {
    match Path::new(file).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
        _ => ".".to_string(),
    }
}

/// The `auto:file` module of a function from source file `file`: the file,
/// or the system library whose header it is (see [`system_library`]).
pub(crate) fn source_file_module(file: &str) -> String {
    system_library(file).unwrap_or_else(|| file.to_string())
}

/// The `auto:dir` module of a function from source file `file`: its
/// directory, or the system library whose header it is.
pub(crate) fn source_dir_module(file: &str) -> String {
    system_library(file).unwrap_or_else(|| parent_dir(file))
}

/// The library a system header belongs to, as one module: every header of
/// the C++ standard library (`/usr/include/c++/12/bits/stl_vector.h` is
/// `/usr/include/c++/12`), the compiler's own headers, the other system
/// headers (`/usr/include`). Optimised C++ calls the standard library's
/// accessors and iterators everywhere; as a module per header they made
/// `auto:file` abstractions of RE2 hundreds of nodes of accessor chains
/// (`std::unique_ptr::get` into `std::get` into `std::__get_helper`).
pub(crate) fn system_library(file: &str) -> Option<String> {
    if let Some(at) = file.find("/include/c++/") {
        let version = &file[at + "/include/c++/".len()..];
        let end = version.find('/').unwrap_or(version.len());
        return Some(file[..at + "/include/c++/".len() + end].to_string());
    }
    ["/usr/lib/gcc/", "/usr/include/", "/usr/local/include/"]
        .iter()
        .find(|root| file.starts_with(*root))
        .map(|root| {
            // The compiler's headers: /usr/lib/gcc/<target>/<version>/include.
            match (*root, file.find("/include/")) {
                ("/usr/lib/gcc/", Some(i)) => file[..i + "/include".len()].to_string(),
                _ => root.trim_end_matches('/').to_string(),
            }
        })
}

impl Modules {
    /// Builds modules from one name per function (None for synthetic ones).
    pub fn from_names(names: impl IntoIterator<Item = Option<String>>) -> Modules {
        let mut m = Modules {
            of: Vec::new(),
            names: Vec::new(),
            picked: None,
            index: HashMap::new(),
        };
        for name in names {
            let id = name.map_or(NO_MODULE, |n| m.intern(n));
            m.of.push(id);
        }
        m
    }

    pub(crate) fn intern(&mut self, name: String) -> ModuleId {
        if let Some(&id) = self.index.get(&name) {
            return id;
        }
        let id = self.names.len() as ModuleId;
        self.names.push(name.clone());
        self.index.insert(name, id);
        id
    }

    /// Module of function `f`.
    pub fn of(&self, f: FuncId) -> ModuleId {
        self.of[f as usize]
    }

    /// How many functions have a module other than [`UNASSIGNED`].
    pub fn assigned(&self) -> usize {
        let unassigned = self.index.get(UNASSIGNED).copied();
        self.of
            .iter()
            .filter(|&&m| m != NO_MODULE && Some(m) != unassigned)
            .count()
    }
}
