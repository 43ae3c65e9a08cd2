//! `calltrace coverage`: which functions the traces (test patterns)
//! called, which none did, and which cannot appear in a trace at all,
//! without a `--coverage` rebuild. The functions listed are those of the
//! objects that hold traced functions and were built with
//! `-finstrument-functions` ([`crate::symbols::inventory`]); each traced
//! address is placed in its object through the trace's `# map` lines (or,
//! for a trace without them, the executable and its load bias), so the
//! functions are matched by object and address, never by name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::calltree::hot;
use crate::error::{Error, Result};
use crate::ingest::{FuncKey, Mapping};
use crate::pipeline::Loaded;
use crate::symbols::distinct::{Identity, disambiguate};
use crate::symbols::inventory::{DebugPlaces, Inventory, inventory};
use crate::symbols::{Demangle, Elf, FuncInfo, GivenSegment, locate};

/// What became of a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Some trace called it.
    Called,
    /// Its code calls the entry hook, and no trace called it.
    NeverCalled,
    /// Its code never calls the entry hook: no trace can show it.
    NotInstrumented,
}

impl Status {
    /// The label in every output.
    pub fn label(self) -> &'static str {
        match self {
            Status::Called => "called",
            Status::NeverCalled => "never called",
            Status::NotInstrumented => "not instrumented",
        }
    }
}

/// One function of a listed object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its name, source file and line.
    pub info: FuncInfo,
    /// The object it belongs to (index into [`Coverage::objects`]).
    pub object: usize,
    /// Calls in each pattern, in [`Coverage::patterns`]' order.
    pub calls: Vec<u64>,
    /// Called, never called or not instrumented.
    pub status: Status,
}

impl Entry {
    /// Calls over all patterns.
    pub fn total_calls(&self) -> u64 {
        self.calls.iter().fold(0u64, |a, &c| a.saturating_add(c))
    }
}

/// Every function of the listed objects, sorted by source file, line and
/// name. Functions of one name are told apart as every other output tells
/// them apart (`mf_ptr [lz_encoder_mf.c]`, see `symbols::distinct`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// The patterns' names.
    pub patterns: Vec<String>,
    /// The objects whose functions are listed.
    pub objects: Vec<PathBuf>,
    /// Those of them without a symbol table (stripped): only their
    /// exported functions are listed, and the calls to the entry hook
    /// cannot be found.
    pub stripped: Vec<PathBuf>,
    /// The functions.
    pub entries: Vec<Entry>,
}

/// Counts of one group (a source file, a module, the whole).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Functions whose code calls the entry hook.
    pub instrumented: usize,
    /// Of those (and others), the ones some trace called.
    pub called: usize,
    /// Instrumented and never called.
    pub never_called: usize,
    /// Not instrumented.
    pub not_instrumented: usize,
}

impl Counts {
    /// Adds one function.
    pub fn add(&mut self, status: Status) {
        match status {
            Status::Called => {
                self.called += 1;
                self.instrumented += 1;
            }
            Status::NeverCalled => {
                self.never_called += 1;
                self.instrumented += 1;
            }
            Status::NotInstrumented => self.not_instrumented += 1,
        }
    }

    /// The share of instrumented functions that were called (1 when none is).
    pub fn share(&self) -> f64 {
        match self.instrumented {
            0 => 1.0,
            n => self.called.min(n) as f64 / n as f64,
        }
    }
}

impl Coverage {
    /// The counts over every listed function.
    pub fn totals(&self) -> Counts {
        let mut c = Counts::default();
        for e in &self.entries {
            c.add(e.status);
        }
        c
    }
}

/// How objects are found and functions named.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lookup<'a> {
    /// The executable given on the command line, if any.
    pub binary: Option<&'a Path>,
    /// Directories searched first for the trace's objects.
    pub search_path: &'a [PathBuf],
    /// Directories searched for separate debug files (`--debug-dir`).
    pub debug_dirs: &'a [PathBuf],
    /// How names are shown.
    pub style: Demangle,
    /// Where the `--object` objects lie at runtime, sorted by address.
    pub given: &'a [GivenSegment],
}

/// Builds the coverage from each pattern's loaded trace.
#[derive(Default)]
pub(crate) struct Collector {
    patterns: Vec<String>,
    objects: Vec<(PathBuf, Inventory)>,
    /// Calls by object and function index, per pattern.
    calls: BTreeMap<(usize, usize), Vec<u64>>,
    /// Problems worth a warning (objects that could not be read).
    pub warnings: Vec<String>,
}

/// A traced function's place, before its object is read: the object's
/// path on this machine and where in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The object (executable or library) that holds the function.
    pub object: PathBuf,
    /// Where in it.
    pub at: At,
    /// Calls of the function in the trace.
    pub calls: u64,
}

/// Where in its object a traced function is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// A file offset (from a `# map` line).
    Offset(u64),
    /// A link-time address (the executable and its load bias).
    Addr(u64),
}

/// The places of `loaded`'s called functions. Cheap (no object is read),
/// so it can run where each trace is loaded, in parallel.
pub(crate) fn placed(loaded: &Loaded, look: &Lookup<'_>) -> Vec<Placed> {
    let (tree, funcs, meta) = (&loaded.built.tree, &loaded.built.funcs, &loaded.built.meta);
    let stats = hot::func_stats(tree, funcs);
    let exe = || {
        look.binary.map(Path::to_path_buf).or_else(|| {
            meta.exe_path
                .as_deref()
                .and_then(|p| locate(p, look.search_path))
        })
    };
    let no_maps = meta.maps.is_empty().then(exe).flatten();
    let bias = loaded.resolve.as_ref().map_or(0, |r| r.bias);
    let mut out = Vec::new();
    for (f, key) in funcs.keys().iter().enumerate() {
        let FuncKey::Addr(addr) = *key else { continue };
        let calls = stats[f].calls;
        if calls == 0 {
            continue;
        }
        if let Some(g) = given_at(look.given, addr) {
            out.push(Placed {
                object: g.path.clone(),
                at: At::Addr(addr - g.bias),
                calls,
            });
            continue;
        }
        if meta.maps.is_empty() {
            if let Some(exe) = &no_maps {
                out.push(Placed {
                    object: exe.clone(),
                    at: At::Addr(addr.wrapping_sub(bias)),
                    calls,
                });
            }
            continue;
        }
        let Some(map) = meta
            .maps
            .iter()
            .rev()
            .find(|m| m.start <= addr && addr < m.end)
        else {
            continue;
        };
        if let Some(object) = object_path(map, meta, look) {
            let at = At::Offset(addr - map.start + map.offset);
            out.push(Placed { object, at, calls });
        }
    }
    out
}

/// The `--object` segment that holds `addr`, if any.
fn given_at(given: &[GivenSegment], addr: u64) -> Option<&GivenSegment> {
    let i = given.partition_point(|g| g.start <= addr);
    given[..i].last().filter(|g| addr < g.end)
}

impl Collector {
    /// Adds one pattern's trace.
    pub(crate) fn add(&mut self, pattern: &str, loaded: &Loaded, look: &Lookup<'_>) -> Result<()> {
        self.add_placed(pattern, &placed(loaded, look), look)
    }

    /// Adds one pattern's placed functions ([`placed`]).
    pub(crate) fn add_placed(
        &mut self,
        pattern: &str,
        placed: &[Placed],
        look: &Lookup<'_>,
    ) -> Result<()> {
        let p = self.patterns.len();
        self.patterns.push(pattern.to_string());
        for pl in placed {
            let Some(object) = self.object(&pl.object, look)? else {
                continue;
            };
            let inv = &self.objects[object].1;
            let addr = match pl.at {
                At::Addr(a) => Some(a),
                At::Offset(o) => inv.elf.vaddr_of_offset(o),
            };
            let Some(i) = addr.and_then(|a| inv.at(a)) else {
                continue;
            };
            let v = self.calls.entry((object, i)).or_default();
            v.resize(p + 1, 0);
            v[p] = v[p].saturating_add(pl.calls);
        }
        Ok(())
    }

    /// The index of the object at `path`, read on first use; None when it
    /// was not built with `-finstrument-functions` (a system library).
    fn object(&mut self, path: &Path, look: &Lookup<'_>) -> Result<Option<usize>> {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if let Some(i) = self.objects.iter().position(|(p, _)| *p == key) {
            return Ok(Some(i));
        }
        let places = DebugPlaces {
            debug_dirs: look.debug_dirs,
            search_path: look.search_path,
        };
        let inv = inventory(path, look.style, places, &mut self.warnings)?;
        if !inv.elf.instrumented {
            // Remember it, listing nothing, so it is read once.
            self.objects.push((key, Inventory::default()));
            return Ok(Some(self.objects.len() - 1));
        }
        self.objects.push((key, inv));
        Ok(Some(self.objects.len() - 1))
    }

    /// Every function of the instrumented objects, with its calls per pattern.
    pub(crate) fn finish(self) -> Coverage {
        let n = self.patterns.len();
        let mut entries = Vec::new();
        let mut ids = Vec::new();
        let mut objects = Vec::new();
        let mut stripped = Vec::new();
        for (o, (path, inv)) in self.objects.into_iter().enumerate() {
            if inv.functions.is_empty() {
                continue;
            }
            let object = objects.len();
            if inv.elf.stripped {
                stripped.push(path.clone());
            }
            objects.push(path);
            for (i, f) in inv.functions.into_iter().enumerate() {
                ids.push(Some(identity(&inv.elf, object, f.addr)));
                let mut calls = self.calls.get(&(o, i)).cloned().unwrap_or_default();
                calls.resize(n, 0);
                let status = if calls.iter().any(|&c| c > 0) {
                    Status::Called
                } else if f.instrumented {
                    Status::NeverCalled
                } else {
                    Status::NotInstrumented
                };
                entries.push(Entry {
                    info: f.info,
                    object,
                    calls,
                    status,
                });
            }
        }
        let mut infos: Vec<FuncInfo> = entries
            .iter_mut()
            .map(|e| std::mem::take(&mut e.info))
            .collect();
        disambiguate(&mut infos, &ids);
        for (e, info) in entries.iter_mut().zip(infos) {
            e.info = info;
        }
        entries.sort_by(|a, b| {
            let key = |e: &Entry| {
                (
                    e.info.file.clone(),
                    e.info.line,
                    e.info.name.clone(),
                    e.object,
                )
            };
            key(a).cmp(&key(b))
        });
        Coverage {
            patterns: self.patterns,
            objects,
            stripped,
            entries,
        }
    }
}

/// What makes the function at `addr` of `elf` (the `object`-th listed)
/// itself, as the trace's functions are told apart: its first symbol
/// there (a global one first) says whether it is local and its unit.
fn identity(elf: &Elf, object: usize, addr: u64) -> Identity {
    let first = elf.symbols.partition_point(|s| s.addr < addr);
    let sym = elf.symbols.get(first).filter(|s| s.addr == addr);
    Identity {
        object,
        addr,
        runtime: addr,
        local: sym.is_some_and(|s| s.local),
        unit: sym.and_then(|s| s.unit.clone()),
    }
}

/// Where the object of mapping `map` is on this machine: the executable
/// given on the command line for the traced executable, else the path
/// the trace recorded (or a copy in `--search-path`).
fn object_path(
    map: &Mapping,
    meta: &crate::ingest::TraceMeta,
    look: &Lookup<'_>,
) -> Option<PathBuf> {
    let is_exe = meta.exe_path.as_deref() == Some(map.path.as_str());
    match (is_exe, look.binary) {
        (true, Some(b)) => Some(b.to_path_buf()),
        _ => locate(&map.path, look.search_path),
    }
}

/// The error for traces that name no instrumented object.
pub(crate) fn nothing_listed(traces: &[PathBuf]) -> Error {
    let names: Vec<String> = traces.iter().map(|t| t.display().to_string()).collect();
    Error::Input(format!(
        "no function to list: {} name(s) no program or library built with -finstrument-functions that can be read (give BINARY or --search-path DIR when the trace was recorded elsewhere)",
        names.join(", ")
    ))
}
