//! An object's DWARF, wherever it is: in the object, in a separate debug
//! file (`debugfile`), with the supplementary file `dwz` shares between
//! objects (`DW_FORM_GNU_ref_alt`/`GNU_strp_alt` and DWARF 5's
//! `ref_sup`/`strp_sup` resolved through gimli's `Dwarf::sup`), and with
//! split DWARF: a `.dwp` package beside the object (or in a search
//! directory), else each unit's `.dwo` through `DW_AT_comp_dir`, then
//! beside the object, then by file name in the `--search-path` and debug
//! directories (a build directory that moved). The sections are copied
//! out of the file's bytes, so the file itself is not kept. What could
//! not be found is kept for the object's warnings.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use addr2line::{LookupContinuation, LookupResult, SplitDwarfLoad};
use gimli::Reader as _;
use object::{Object as _, ObjectSection as _};

use super::debugfile::{DebugSearch, Missing, find_sup};

/// The reader: owned, reference-counted section bytes.
type R = gimli::EndianArcSlice<gimli::RunTimeEndian>;

/// A frame's function name (linkage or plain) and location.
pub(super) struct Frame {
    /// The function's name, when DWARF has the function.
    pub name: Option<String>,
    /// Source file of the address.
    pub file: Option<String>,
    /// Line of the address.
    pub line: Option<u32>,
}

/// A supplementary file that was needed and not found.
pub(super) struct MissingSup {
    /// Its name as the link gives it.
    pub name: String,
    /// Where it was looked for.
    pub missing: Missing,
}

/// An object's debug information, ready for lookups.
pub(super) struct Dwarf {
    ctx: addr2line::Context<R>,
    /// The `.dwp` package, when there is one.
    dwp: Option<gimli::DwarfPackage<R>>,
    /// The object's directory and the directories `.dwo` files are looked
    /// for in by name, after `DW_AT_comp_dir`.
    dwo_dirs: Vec<PathBuf>,
    /// `.dwo` files by DWO id, loaded or not found.
    dwos: RefCell<HashMap<u64, Option<Arc<gimli::Dwarf<R>>>>>,
    /// The `.dwo` files not found (as `DW_AT_dwo_name` gives them), and
    /// where they were looked for.
    pub missing_dwo: RefCell<BTreeSet<(String, String)>>,
    /// The supplementary file, when one was needed and not found.
    pub missing_sup: Option<MissingSup>,
}

impl Dwarf {
    /// The DWARF of `file` (read from `path`, for the object at `object`),
    /// with its supplementary file and split DWARF looked up through
    /// `search`.
    pub(super) fn load(
        file: &object::File<'_>,
        path: &Path,
        object: &Path,
        sup: Option<&(String, Vec<u8>)>,
        search: &DebugSearch,
    ) -> Result<Dwarf, gimli::Error> {
        let endian = endian(file);
        let mut dwarf = gimli::Dwarf::load(|id| section(file, Some(id.name()), endian))?;
        let mut missing_sup = None;
        if let Some((name, id)) = sup {
            match find_sup(path, name, id, search) {
                Ok(found) => {
                    if let Ok(sup_file) = object::File::parse(&*found.data) {
                        dwarf.load_sup(|id| section(&sup_file, Some(id.name()), endian))?;
                    }
                }
                Err(missing) => {
                    missing_sup = Some(MissingSup {
                        name: name.clone(),
                        missing,
                    })
                }
            }
        }
        dwarf.populate_abbreviations_cache(gimli::AbbreviationsCacheStrategy::Duplicates);
        let ctx = addr2line::Context::from_dwarf(dwarf)?;
        let dir = object.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut dwo_dirs = vec![dir];
        dwo_dirs.extend(search.search_path.iter().cloned());
        dwo_dirs.extend(search.dirs.iter().cloned());
        Ok(Dwarf {
            ctx,
            dwp: dwp(object, &dwo_dirs, endian),
            dwo_dirs,
            dwos: RefCell::new(HashMap::new()),
            missing_dwo: RefCell::new(BTreeSet::new()),
            missing_sup,
        })
    }

    /// The outermost frame at `probe` (an entry address has one), or the
    /// line table's location alone when no unit describes the function.
    pub(super) fn frame(&self, probe: u64) -> Option<Frame> {
        let mut lookup = self.ctx.find_frames(probe);
        let mut frames = loop {
            match lookup {
                LookupResult::Output(r) => break r.ok()?,
                LookupResult::Load { load, continuation } => {
                    lookup = continuation.resume(self.dwo(load));
                }
            }
        };
        let mut last = None;
        while let Ok(Some(frame)) = frames.next() {
            last = Some(frame);
        }
        let (name, location) = match last {
            Some(f) => {
                let name = f.function.as_ref().and_then(|n| {
                    let raw = n.raw_name().ok()?;
                    Some(raw.into_owned())
                });
                (name, f.location)
            }
            None => (None, self.ctx.find_location(probe).ok().flatten()),
        };
        let (file, line) = location.map_or((None, None), |l| (l.file.map(str::to_string), l.line));
        (name.is_some() || file.is_some()).then_some(Frame { name, file, line })
    }

    /// The split DWARF unit `load` asks for: from the package, else its
    /// `.dwo` file, each loaded once.
    fn dwo(&self, load: SplitDwarfLoad<R>) -> Option<Arc<gimli::Dwarf<R>>> {
        if let Some(dwp) = &self.dwp
            && let Ok(Some(cu)) = dwp.find_cu(load.dwo_id, &load.parent)
        {
            return Some(Arc::new(cu));
        }
        if let Some(known) = self.dwos.borrow().get(&load.dwo_id.0) {
            return known.clone();
        }
        let found = self.find_dwo(&load);
        self.dwos.borrow_mut().insert(load.dwo_id.0, found.clone());
        found
    }

    fn find_dwo(&self, load: &SplitDwarfLoad<R>) -> Option<Arc<gimli::Dwarf<R>>> {
        let text = |r: &Option<R>| {
            r.as_ref()
                .and_then(|r| r.to_string_lossy().ok().map(|s| s.into_owned()))
        };
        let name = text(&load.path)?;
        let mut candidates = Vec::new();
        if let Some(dir) = text(&load.comp_dir) {
            candidates.push(Path::new(&dir).join(&name));
        }
        candidates.extend(self.dwo_dirs.iter().map(|d| d.join(&name)));
        if let Some(base) = Path::new(&name).file_name() {
            candidates.extend(self.dwo_dirs.iter().map(|d| d.join(base)));
        }
        candidates.dedup();
        for c in &candidates {
            if let Some(dwo) = read_dwo(c, load) {
                return Some(dwo);
            }
        }
        let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        self.missing_dwo
            .borrow_mut()
            .insert((name, tried.join(", ")));
        None
    }
}

/// The `.dwo` file at `path` when it holds the unit `load` asks for.
fn read_dwo(path: &Path, load: &SplitDwarfLoad<R>) -> Option<Arc<gimli::Dwarf<R>>> {
    if !path.is_file() {
        return None;
    }
    let data = std::fs::read(path).ok()?;
    crate::ingest::opened::note(path);
    let file = object::File::parse(&*data).ok()?;
    let endian = endian(&file);
    let mut dwo = gimli::Dwarf::load(|id| section(&file, id.dwo_name(), endian)).ok()?;
    let header = dwo.units().next().ok()??;
    let unit = dwo.unit(header).ok()?;
    if unit.dwo_id != Some(load.dwo_id) {
        return None;
    }
    dwo.make_dwo(&load.parent);
    Some(Arc::new(dwo))
}

/// The `.dwp` package of the object at `object`: `NAME.dwp` beside it,
/// else in one of `dirs`.
fn dwp(
    object: &Path,
    dirs: &[PathBuf],
    endian: gimli::RunTimeEndian,
) -> Option<gimli::DwarfPackage<R>> {
    let mut name = object.file_name()?.to_os_string();
    name.push(".dwp");
    let path = dirs.iter().map(|d| d.join(&name)).find(|p| p.is_file())?;
    let data = std::fs::read(&path).ok()?;
    crate::ingest::opened::note(&path);
    let file = object::File::parse(&*data).ok()?;
    let empty = R::new(Arc::from(&[][..]), endian);
    gimli::DwarfPackage::load(|id| section(&file, id.dwo_name(), endian), empty).ok()
}

fn endian(file: &object::File<'_>) -> gimli::RunTimeEndian {
    if file.is_little_endian() {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    }
}

/// The bytes of section `name` of `file`, uncompressed (`-gz`), or none.
fn section(
    file: &object::File<'_>,
    name: Option<&str>,
    endian: gimli::RunTimeEndian,
) -> Result<R, gimli::Error> {
    let data = name
        .and_then(|n| file.section_by_name(n))
        .and_then(|s| s.uncompressed_data().ok())
        .map_or_else(|| Arc::from(&[][..]), |d| Arc::from(&*d));
    Ok(R::new(data, endian))
}
