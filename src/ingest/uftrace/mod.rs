//! uftrace's recordings (`uftrace record` writes a `uftrace.data`
//! directory), read in place: `--trace uftrace.data`. The directory's
//! `info` file is what the format sniffs (its magic `Ftrace!`); `Input`
//! opens that file for a directory that has one, under the directory's
//! name. The reader then takes the sessions from `task.txt`, each session's
//! objects from its `sid-<SID>.map` (they become [`TraceMeta::maps`], so
//! the `symbols` stage names addresses from the ELF files, `--search-path`
//! included), function starts and PLT names from the `.sym` files uftrace
//! saved (`syms`), and the threads' entries and exits from the `<TID>.dat`
//! files, merged in time order. Times are nanoseconds. Kernel, perf and
//! event records are not read; lost records are counted in a warning.
//! File versions 3 and 4 are read (uftrace v0.13 writes 4).

mod files;
mod records;
mod syms;
#[cfg(test)]
mod tests;

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::{
    BATCH, Event, FuncId, FuncTable, Input, Mapping, ParseOptions, Sink, ThreadIds, TraceFormat,
    TraceMeta, Unit, add_mapping,
};
use crate::error::{Error, Result};
use syms::SymTable;

pub(crate) use files::MAGIC;

/// What `task.txt` holds, in messages.
const TASKS: &str = "uftrace's list of sessions and tasks";
/// What a `sid-<SID>.map` holds, in messages.
const MAP: &str = "the session's memory map as uftrace saved it";

/// uftrace's recording directory (`uftrace record -d DIR`).
pub(crate) struct UftraceFormat;

impl TraceFormat for UftraceFormat {
    fn name(&self) -> &'static str {
        "uftrace"
    }
    fn help(&self) -> &'static str {
        "uftrace's recording directory (`uftrace record -d DIR`)"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        head.starts_with(MAGIC)
    }

    fn recording_entry(&self, dir: &Path) -> Option<PathBuf> {
        is_recording(dir).then(|| dir.join("info"))
    }

    fn parse(
        &self,
        input: &Input,
        opts: &ParseOptions,
        funcs: &mut FuncTable,
        sink: &mut dyn Sink,
    ) -> Result<TraceMeta> {
        let dir = recording_dir(input)?;
        let info_name = dir.join("info").display().to_string();
        let info = files::parse_info(&info_name, input)?;
        let task_path = dir.join("task.txt");
        let tasks = files::parse_tasks(
            &task_path.display().to_string(),
            &read_text(&task_path, TASKS)?,
        )?;
        let threads = thread_files(&dir)?;
        let mut merge = records::Merge::open(&threads, opts.lenient)?;
        let mut meta = TraceMeta {
            format: "uftrace",
            exe_path: info
                .exe
                .clone()
                .or_else(|| Some(tasks.sessions[0].exe.clone())),
            timed: true,
            unit: Unit::Nanos,
            ..TraceMeta::default()
        };
        let mut loads = Loads::new(&dir, &info, tasks);
        let mut ids = ThreadIds::default();
        let mut batch = Vec::with_capacity(BATCH);
        while let Some((tid, rec)) = merge.next()? {
            loads.until(rec.time, &mut meta, funcs)?;
            batch.push(Event {
                time: rec.time,
                func: loads.func(rec.addr, funcs),
                thread: ids.index(tid),
                kind: rec.kind,
            });
            if batch.len() == BATCH {
                sink.events(&batch);
                batch.clear();
            }
        }
        sink.events(&batch);
        loads.until(u64::MAX, &mut meta, funcs)?;
        meta.warnings.extend(loads.missing.warnings());
        meta.warnings.append(&mut loads.warnings);
        meta.threads = ids.into_ids();
        finish(&mut meta, &merge);
        Ok(meta)
    }
}

/// The warnings for lost and (under `--lenient`) skipped records.
fn finish(meta: &mut TraceMeta, merge: &records::Merge) {
    let lost = merge.lost();
    if lost > 0 {
        meta.warnings.push(format!(
            "uftrace lost {lost} record(s) while recording (its buffers were full): calls \
             around the gaps are repaired, and the time of a gap counts toward the functions \
             open across it"
        ));
    }
    meta.skipped_lines = merge.skipped.len() as u64;
    meta.first_skipped = merge.skipped.first().cloned();
}

/// Whether `dir` is a uftrace recording: a directory whose `info` file
/// starts with uftrace's magic. An `info` that is not a regular file is
/// not read (a FIFO would wait for a writer forever).
pub(crate) fn is_recording(dir: &Path) -> bool {
    let mut head = [0u8; 8];
    files::open_regular(&dir.join("info"), "")
        .is_ok_and(|mut f| std::io::Read::read_exact(&mut f, &mut head).is_ok() && head == *MAGIC)
}

/// The recording directory `input` was opened from: the directory it is
/// named after, or the one holding it when it is the `info` file itself.
fn recording_dir(input: &Input) -> Result<PathBuf> {
    let path = Path::new(input.name());
    if !input.is_stream() && path.is_dir() {
        return Ok(path.to_path_buf());
    }
    if !input.is_stream() && path.file_name().is_some_and(|n| n == "info") {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        return Ok(parent.unwrap_or(Path::new(".")).to_path_buf());
    }
    Err(Error::Input(format!(
        "{}: a uftrace recording is a directory (`uftrace record -d DIR` writes one); \
         give that directory with --trace",
        input.name()
    )))
}

/// Reads a text file of the recording; `what` says what it holds.
fn read_text(path: &Path, what: &str) -> Result<String> {
    let bytes = files::read_regular(path, what)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The `<TID>.dat` files of `dir`, by thread id.
fn thread_files(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let tid = name
            .to_str()
            .and_then(|n| n.strip_suffix(".dat"))
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|t| t.parse::<u64>().ok());
        if let Some(tid) = tid {
            found.push((tid, entry.path()));
        }
    }
    if found.is_empty() {
        return Err(Error::Input(format!(
            "{}: expected the threads' records in `<TID>.dat` files; the recording has none",
            dir.display()
        )));
    }
    found.sort();
    Ok(found)
}

/// Sessions and dlopen'ed libraries, in time order, whose objects are
/// added to the trace's mappings as the records reach their start.
struct Loads<'a> {
    dir: &'a Path,
    info: &'a files::Info,
    /// (time, session or library), latest first.
    pending: Vec<(u64, Load)>,
    /// The symbols of each object looked for so far (None: it has none),
    /// by path.
    tables: HashMap<String, Option<Rc<SymTable>>>,
    /// The loaded objects that have symbols, by start: (end, symbols).
    /// They do not overlap; a search tree, as a recording may load tens
    /// of thousands of libraries.
    layout: BTreeMap<u64, (u64, Rc<SymTable>)>,
    /// The functions of the addresses seen since the layout last changed.
    seen: FxHashMap<u64, FuncId>,
    /// `.sym` files left out, for the trace's warnings.
    warnings: Vec<String>,
    /// Libraries loaded with dlopen that are not on disk.
    missing: Missing,
}

enum Load {
    Session(files::Session),
    Dlopen(files::Dlopen),
}

impl<'a> Loads<'a> {
    fn new(dir: &'a Path, info: &'a files::Info, tasks: files::Tasks) -> Loads<'a> {
        let mut pending: Vec<(u64, Load)> = Vec::new();
        for (i, s) in tasks.sessions.into_iter().enumerate() {
            // The first session holds the records from the start.
            let time = if i == 0 { 0 } else { s.time };
            pending.push((time, Load::Session(s)));
        }
        pending.extend(tasks.dlopens.into_iter().map(|d| (d.time, Load::Dlopen(d))));
        pending.sort_by_key(|&(t, _)| Reverse(t));
        Loads {
            dir,
            info,
            pending,
            tables: HashMap::new(),
            layout: BTreeMap::new(),
            seen: FxHashMap::default(),
            warnings: Vec::new(),
            missing: Missing::default(),
        }
    }

    /// The function recorded at runtime address `addr`: the one whose
    /// start holds it by its object's symbols, else `addr` itself.
    fn func(&mut self, addr: u64, funcs: &mut FuncTable) -> FuncId {
        if let Some(&id) = self.seen.get(&addr) {
            return id;
        }
        let start = match self.layout.range(..=addr).next_back() {
            Some((s, (e, syms))) if addr < *e => syms
                .function_at(addr - s)
                .map_or(addr, |f| s.wrapping_add(f.start)),
            _ => addr,
        };
        let id = funcs.addr(start);
        self.seen.insert(addr, id);
        id
    }

    /// Makes `map`'s symbols (when it has a `.sym` file) the ones for its
    /// range, and its PLT entries intern as their names.
    fn load_symbols(&mut self, map: &Mapping, funcs: &mut FuncTable) {
        let (start, end) = (map.start, map.end);
        // The symbols of objects it replaces go, whether it has any or not.
        let overlapped: Vec<u64> = (self.layout.range(..end).rev())
            .take_while(|(_, (e, _))| *e > start)
            .map(|(&s, _)| s)
            .collect();
        for s in overlapped {
            self.layout.remove(&s);
        }
        let Some(syms) = self.symbols_of(&map.path) else {
            return;
        };
        let relative = self.info.relative_symbols();
        let at = |rel: u64| {
            if relative {
                start.wrapping_add(rel)
            } else {
                rel
            }
        };
        for plt in syms.plt() {
            funcs.alias_addr(at(plt.start), &plt.name);
        }
        if relative {
            self.layout.insert(start, (end, syms));
        }
    }

    /// The symbols of the object at `path`, read once. A `.sym` file that
    /// cannot be read (one that is not a regular file, say) is left out
    /// with a warning: the ELF file names the functions without it.
    fn symbols_of(&mut self, path: &str) -> Option<Rc<SymTable>> {
        if let Some(t) = self.tables.get(path) {
            return t.clone();
        }
        let file = files::sym_file(self.dir, path)?;
        let table = match files::read_regular(&file, "uftrace's symbol list of an object") {
            Ok(bytes) => Some(Rc::new(SymTable::parse(&String::from_utf8_lossy(&bytes)))),
            Err(Error::Io { source, .. }) if source.kind() == ErrorKind::NotFound => None,
            Err(e) => {
                self.warnings.push(format!(
                    "{e}: left out; its object's functions are named from the ELF file"
                ));
                None
            }
        };
        self.tables.insert(path.to_string(), table.clone());
        table
    }

    /// Adds the objects of everything loaded at or before `time`.
    fn until(&mut self, time: u64, meta: &mut TraceMeta, funcs: &mut FuncTable) -> Result<()> {
        while self.pending.last().is_some_and(|&(t, _)| t <= time) {
            let (_, load) = self.pending.pop().expect("checked");
            let maps = match load {
                Load::Session(s) => {
                    let path = self.dir.join(format!("sid-{}.map", s.sid));
                    files::parse_map(&path.display().to_string(), &read_text(&path, MAP)?)?
                }
                Load::Dlopen(d) => dlopen_mapping(d, &mut self.missing).into_iter().collect(),
            };
            // Interned addresses may stand for other functions from here on.
            // (A new map, not `clear`, which costs the capacity each time:
            // after many addresses, every later load would pay for them all.)
            self.seen = FxHashMap::default();
            for map in maps {
                // After the mapping, which drops the aliases of an object it replaces.
                add_mapping(meta, funcs, map.clone());
                self.load_symbols(&map, funcs);
            }
        }
        Ok(())
    }
}

/// The mapping of a dlopen'ed library: from its load address over the
/// length of its file (the map file, written at the session's start, does
/// not have it). A library that is not there is left out: its path is
/// added to `missing` (once).
fn dlopen_mapping(d: files::Dlopen, missing: &mut Missing) -> Option<Mapping> {
    match std::fs::metadata(&d.path) {
        Ok(m) if m.is_file() => Some(Mapping {
            start: d.base,
            end: d.base.saturating_add(m.len()),
            offset: 0,
            path: d.path,
            build_id: None,
        }),
        _ => {
            if missing.seen.insert(d.path.clone()) {
                missing.paths.push(d.path);
            }
            None
        }
    }
}

/// The libraries loaded with dlopen that are not on disk, in the order
/// first loaded.
#[derive(Default)]
struct Missing {
    seen: std::collections::HashSet<String>,
    paths: Vec<String>,
}

impl Missing {
    /// The warnings: one per library, or for more than [`Missing::LISTED`]
    /// one that counts them and names the first (a program that loads
    /// plug-ins in a loop may name thousands).
    fn warnings(&self) -> Vec<String> {
        let tail = "keep hex names";
        if self.paths.len() <= Self::LISTED {
            let one = |p| {
                format!(
                    "{p}: loaded with dlopen during the recording but not found: its functions {tail}"
                )
            };
            return self.paths.iter().map(one).collect();
        }
        let first = self.paths[..Self::LISTED].join(", ");
        vec![format!(
            "{} libraries loaded with dlopen during the recording were not found (the first: \
             {first}, ...): their functions {tail}",
            self.paths.len()
        )]
    }

    /// The most libraries named one warning each.
    const LISTED: usize = 3;
}
