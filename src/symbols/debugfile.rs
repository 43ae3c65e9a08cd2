//! Where an object's debug information is when the object does not hold
//! it, looked up as gdb looks: a separate debug file found by GNU
//! build-id (`DIR/.build-id/xx/rest.debug` in each debug directory) or by
//! the object's `.gnu_debuglink` (beside the object, in `.debug/` beside
//! it, then under each debug directory plus the object's directory, its
//! CRC32 checked); and the supplementary file that `dwz -m` shares between
//! objects (`.gnu_debugaltlink`, DWARF 5 `.debug_sup`), checked by
//! build-id. A stripped program without any of these may carry
//! MiniDebugInfo (`.gnu_debugdata`), an xz-compressed symbol table:
//! names, no files or lines. The debug directories are the `--debug-dir`s, then
//! `/usr/lib/debug`. Every file read here is an input (`ingest::opened`)
//! and is read once: the bytes found are handed on.

use std::path::{Path, PathBuf};

use object::{Object as _, ObjectSection as _, SectionKind};

/// The system's debug directory, always searched after `--debug-dir`s.
pub(super) const SYSTEM_DEBUG_DIR: &str = "/usr/lib/debug";

/// Where separate debug files are looked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DebugSearch {
    /// Debug directories in order: the `--debug-dir`s, then `/usr/lib/debug`.
    pub dirs: Vec<PathBuf>,
    /// The `--search-path` directories, where split DWARF (`.dwo`,
    /// `.dwp`) and supplementary files are also looked for by file name.
    pub search_path: Vec<PathBuf>,
}

impl DebugSearch {
    /// The `extra` debug directories, then the system's; `search_path` for
    /// files found by name.
    pub(crate) fn new(extra: &[PathBuf], search_path: &[PathBuf]) -> DebugSearch {
        let mut dirs = extra.to_vec();
        dirs.push(PathBuf::from(SYSTEM_DEBUG_DIR));
        DebugSearch {
            dirs,
            search_path: search_path.to_vec(),
        }
    }

    /// The system's debug directory alone.
    pub(crate) fn system() -> DebugSearch {
        DebugSearch::new(&[], &[])
    }
}

/// The links an object carries to files holding its debug information.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Links {
    /// Its GNU build-id.
    pub build_id: Option<Vec<u8>>,
    /// `.gnu_debuglink`: the debug file's name and the CRC32 of its bytes.
    pub debuglink: Option<(String, u32)>,
    /// The supplementary file (`.gnu_debugaltlink`, or DWARF 5's
    /// `.debug_sup`): its name and build-id (empty when not recorded).
    pub sup: Option<(String, Vec<u8>)>,
}

impl Links {
    /// The links of `file`.
    pub(super) fn of(file: &object::File<'_>) -> Links {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let altlink = file
            .gnu_debugaltlink()
            .ok()
            .flatten()
            .map(|(name, id)| (text(name), id.to_vec()));
        Links {
            build_id: file.build_id().ok().flatten().map(<[u8]>::to_vec),
            debuglink: file
                .gnu_debuglink()
                .ok()
                .flatten()
                .map(|(name, crc)| (text(name), crc)),
            sup: altlink.or_else(|| {
                debug_sup(file).and_then(|(is_sup, name, sum)| (!is_sup).then_some((name, sum)))
            }),
        }
    }
}

/// DWARF 5's `.debug_sup`: version (2 bytes), `is_supplementary` (1),
/// the file name (NUL terminated; empty in the supplementary file), the
/// checksum's length (ULEB128) and the checksum, the same in the file
/// that uses the supplementary file and in that file itself.
fn debug_sup(file: &object::File<'_>) -> Option<(bool, String, Vec<u8>)> {
    let data = file
        .section_by_name(".debug_sup")?
        .uncompressed_data()
        .ok()?;
    let (&is_sup, rest) = data.get(2..)?.split_first()?;
    let end = rest.iter().position(|&b| b == 0)?;
    let name = String::from_utf8_lossy(&rest[..end]).into_owned();
    let mut rest = &rest[end + 1..];
    let (mut len, mut shift) = (0usize, 0u32);
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        len |= usize::from(b & 0x7f) << shift.min(56);
        shift += 7;
        if b & 0x80 == 0 {
            break;
        }
    }
    let sum = rest.get(..len).unwrap_or_default().to_vec();
    Some((is_sup != 0, name, sum))
}

/// Whether `file` holds DWARF of its own (a `.debug_info` with bytes).
pub(super) fn has_dwarf(file: &object::File<'_>) -> bool {
    file.section_by_name(".debug_info")
        .is_some_and(|s| s.size() > 0 && s.kind() != SectionKind::UninitializedData)
}

/// Whether `file` is a separate debug file (`objcopy --only-keep-debug`):
/// its code sections keep their addresses but not their bytes.
pub(super) fn is_debug_only(file: &object::File<'_>) -> bool {
    file.section_by_name(".text")
        .is_some_and(|s| s.kind() == SectionKind::UninitializedData)
}

/// The symbol table a stripped program carries as MiniDebugInfo: its
/// `.gnu_debugdata` section, an xz-compressed ELF file holding the
/// `.symtab` of the functions `.dynsym` lacks (Fedora's and others'
/// distribution binaries). None when there is none or it does not
/// decompress.
pub(super) fn mini_debug_info(file: &object::File<'_>) -> Option<Vec<u8>> {
    let packed = file.section_by_name(".gnu_debugdata")?.data().ok()?;
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut std::io::Cursor::new(packed), &mut out).ok()?;
    Some(out)
}

/// A file read whole.
pub(super) struct Found {
    /// Where it was.
    pub path: PathBuf,
    /// Its bytes.
    pub data: Vec<u8>,
}

/// What the search for a separate file found, when it found nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Missing {
    /// The paths looked at, in order.
    pub tried: Vec<PathBuf>,
    /// Files of the right name whose CRC32 (debuglink) or build-id
    /// (build-id path, supplementary file) is another build's.
    pub wrong: Vec<PathBuf>,
    /// What each debuginfod server said (when `DEBUGINFOD_URLS` is set).
    pub servers: Vec<String>,
}

impl Missing {
    /// The paths looked at and what the debuginfod servers said, for a
    /// message.
    pub(super) fn tried_list(&self) -> String {
        let shown: Vec<String> = self.tried.iter().map(|p| p.display().to_string()).collect();
        match self.servers.is_empty() {
            true => shown.join(", "),
            false => format!(
                "{}; debuginfod: {}",
                shown.join(", "),
                self.servers.join("; ")
            ),
        }
    }
}

/// The separate debug file of the object at `path`, which carries
/// `links`: by build-id in each debug directory, then by debuglink.
pub(super) fn find_debug_file(
    path: &Path,
    links: &Links,
    search: &DebugSearch,
) -> Result<Found, Missing> {
    let mut missing = Missing::default();
    if let Some(id) = links.build_id.as_deref().filter(|id| id.len() > 1) {
        for dir in &search.dirs {
            let candidate = build_id_path(dir, id, ".debug");
            let found = try_candidate(&candidate, &mut missing, |data| {
                build_id_in(data).as_deref() == Some(id)
            });
            if found.is_some() {
                return found.ok_or(missing);
            }
        }
    }
    if let Some((name, crc)) = &links.debuglink {
        for candidate in debuglink_paths(path, name, &search.dirs) {
            if same_file(&candidate, path) {
                continue;
            }
            let found = try_candidate(&candidate, &mut missing, |data| {
                crc32fast::hash(data) == *crc
            });
            if found.is_some() {
                return found.ok_or(missing);
            }
        }
    }
    match links.build_id.as_deref().filter(|id| id.len() > 1) {
        Some(id) => from_debuginfod(id, missing),
        None => Err(missing),
    }
}

/// The debug file of build-id `id` from the debuginfod client cache, else
/// fetched from the servers into it; only when `DEBUGINFOD_URLS` is set.
fn from_debuginfod(id: &[u8], mut missing: Missing) -> Result<Found, Missing> {
    if super::debuginfod::servers().is_empty() {
        return Err(missing);
    }
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let fits = |data: &[u8]| build_id_in(data).as_deref() == Some(id);
    if let Some(cached) = super::debuginfod::cached(&hex)
        && let Some(found) = try_candidate(&cached, &mut missing, fits)
    {
        return Ok(found);
    }
    match super::debuginfod::fetch(&hex) {
        Ok(path) => match try_candidate(&path, &mut missing, fits) {
            Some(found) => Ok(found),
            None => Err(missing),
        },
        Err(said) => {
            missing.servers = said;
            Err(missing)
        }
    }
}

/// The supplementary file `name` with build-id `id` (any when empty) of
/// the file at `holder`: `name` itself when absolute, else beside
/// `holder`; then by build-id in each debug directory; then by file name
/// in the search path.
pub(super) fn find_sup(
    holder: &Path,
    name: &str,
    id: &[u8],
    search: &DebugSearch,
) -> Result<Found, Missing> {
    let mut missing = Missing::default();
    let named = Path::new(name);
    let mut candidates = vec![match holder.parent() {
        Some(dir) if named.is_relative() => dir.join(named),
        _ => named.to_path_buf(),
    }];
    if id.len() > 1 {
        candidates.extend(search.dirs.iter().map(|d| build_id_path(d, id, ".debug")));
    }
    if let Some(file) = named.file_name() {
        candidates.extend(search.search_path.iter().map(|d| d.join(file)));
    }
    for candidate in candidates {
        let found = try_candidate(&candidate, &mut missing, |data| {
            id.is_empty() || sup_id_in(data).as_deref() == Some(id)
        });
        if found.is_some() {
            return found.ok_or(missing);
        }
    }
    Err(missing)
}

/// Reads `candidate` when it is a file and `fits` its bytes; records it
/// as tried, or as another build's.
fn try_candidate(
    candidate: &Path,
    missing: &mut Missing,
    fits: impl Fn(&[u8]) -> bool,
) -> Option<Found> {
    missing.tried.push(candidate.to_path_buf());
    if !candidate.is_file() {
        return None;
    }
    let data = std::fs::read(candidate).ok()?;
    crate::ingest::opened::note(candidate);
    if !fits(&data) {
        missing.wrong.push(candidate.to_path_buf());
        return None;
    }
    Some(Found {
        path: candidate.to_path_buf(),
        data,
    })
}

/// `DIR/.build-id/xx/rest.SUFFIX` for build-id `id`.
pub(super) fn build_id_path(dir: &Path, id: &[u8], suffix: &str) -> PathBuf {
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    dir.join(".build-id")
        .join(&hex[..2])
        .join(format!("{}{suffix}", &hex[2..]))
}

/// Where gdb looks for a debuglink's `name` of the object at `path`:
/// beside it, in `.debug/` beside it, then in each debug directory under
/// the object's (absolute) directory.
fn debuglink_paths(path: &Path, name: &str, dirs: &[PathBuf]) -> Vec<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let under = absolute.strip_prefix("/").unwrap_or(&absolute);
    let mut paths = vec![dir.join(name), dir.join(".debug").join(name)];
    paths.extend(dirs.iter().map(|d| d.join(under).join(name)));
    paths
}

/// The GNU build-id of the ELF file whose bytes are `data`.
fn build_id_in(data: &[u8]) -> Option<Vec<u8>> {
    let file = object::File::parse(data).ok()?;
    file.build_id().ok().flatten().map(<[u8]>::to_vec)
}

/// What identifies the supplementary file whose bytes are `data`: its
/// GNU build-id (`.gnu_debugaltlink`), else its `.debug_sup` checksum.
fn sup_id_in(data: &[u8]) -> Option<Vec<u8>> {
    let file = object::File::parse(data).ok()?;
    match file.build_id().ok().flatten() {
        Some(id) => Some(id.to_vec()),
        None => debug_sup(&file).map(|(_, _, sum)| sum),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_id_paths_split_the_first_byte_off() {
        let p = build_id_path(Path::new("/usr/lib/debug"), &[0xab, 0xcd, 0x01], ".debug");
        assert_eq!(p, Path::new("/usr/lib/debug/.build-id/ab/cd01.debug"));
    }

    #[test]
    fn debuglinks_are_looked_for_where_gdb_looks() {
        let paths = debuglink_paths(
            Path::new("/opt/app/bin/app"),
            "app.debug",
            &[PathBuf::from("/d1"), PathBuf::from("/usr/lib/debug")],
        );
        let want = [
            "/opt/app/bin/app.debug",
            "/opt/app/bin/.debug/app.debug",
            "/d1/opt/app/bin/app.debug",
            "/usr/lib/debug/opt/app/bin/app.debug",
        ];
        assert_eq!(paths, want.map(PathBuf::from));
    }

    #[test]
    fn debug_directories_come_before_the_system_one() {
        let s = DebugSearch::new(&[PathBuf::from("x")], &[]);
        assert_eq!(
            s.dirs,
            [PathBuf::from("x"), PathBuf::from(SYSTEM_DEBUG_DIR)]
        );
    }

    #[test]
    fn a_debuglink_with_another_crc_is_not_taken() {
        let dir = tempfile::tempdir().unwrap();
        let obj = dir.path().join("app");
        std::fs::write(dir.path().join("app.debug"), b"not this build").unwrap();
        let links = Links {
            debuglink: Some(("app.debug".into(), crc32fast::hash(b"this build"))),
            ..Links::default()
        };
        let search = DebugSearch::new(&[], &[]);
        let missing = find_debug_file(&obj, &links, &search).err().unwrap();
        assert_eq!(missing.wrong, [dir.path().join("app.debug")]);
        std::fs::write(dir.path().join("app.debug"), b"this build").unwrap();
        let found = find_debug_file(&obj, &links, &search).ok().unwrap();
        assert_eq!(found.data, b"this build");
    }
}
