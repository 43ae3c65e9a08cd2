//! Every file a run opens for reading is an input, wherever its name came
//! from: the trace and the files named on the command line, and also the
//! executable a trace's header names, the copy a `--search-path` supplied
//! and the libraries its `# map` lines name. Readers record each file here
//! (device and inode, with the path they opened); before an output replaces
//! a file, [`crate::emit::output`] asks [`input_at`] whether that file was
//! read, and refuses to overwrite it. `run::files` checks the files named
//! on the command line before anything is read; this registry covers the
//! ones found on the way.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The files read so far: (device, inode) to the path as first opened. A
/// map, not a list: a recording of thousands of threads notes thousands of
/// files, and a scan per note made that quadratic.
static READ: Mutex<BTreeMap<(u64, u64), PathBuf>> = Mutex::new(BTreeMap::new());

/// Records that `path` was opened for reading (nothing when it cannot be
/// stat'ed or is not a regular file: devices and pipes may be shared).
pub fn note(path: &Path) {
    if let Ok(m) = std::fs::metadata(path) {
        note_meta(path, &m);
    }
}

/// [`note`] with metadata already at hand (from the open file itself).
pub fn note_meta(path: &Path, m: &std::fs::Metadata) {
    if !m.is_file() {
        return;
    }
    lock()
        .entry((m.dev(), m.ino()))
        .or_insert_with(|| path.to_path_buf());
}

/// The path an input was read from when `target` (after following links)
/// is that same file.
pub fn input_at(target: &Path) -> Option<PathBuf> {
    let m = std::fs::metadata(target).ok()?;
    lock().get(&(m.dev(), m.ino())).cloned()
}

fn lock() -> std::sync::MutexGuard<'static, BTreeMap<(u64, u64), PathBuf>> {
    READ.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_read_is_found_through_a_hard_link_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("libl.so");
        std::fs::write(&lib, "ELF").unwrap();
        let link = dir.path().join("again.so");
        std::fs::hard_link(&lib, &link).unwrap();
        let other = dir.path().join("other");
        std::fs::write(&other, "x").unwrap();
        note(&lib);
        assert_eq!(input_at(&link), Some(lib.clone()));
        assert_eq!(input_at(&other), None);
        assert_eq!(input_at(&dir.path().join("new")), None);
    }
}
