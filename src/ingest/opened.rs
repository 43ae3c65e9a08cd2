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
    let key = (m.dev(), m.ino());
    let mut read = lock();
    // A path noted before under this inode stays, unless the inode has
    // changed hands since (that input was deleted).
    // (The same path noted again, as a recording's files are per chunk,
    // was just stat'ed by the caller: no second look.)
    if !read.get(&key).is_some_and(|p| p == path || is_at(p, key)) {
        read.insert(key, path.to_path_buf());
    }
}

/// Whether the file at `path` is the one with inode `key`.
fn is_at(path: &Path, key: (u64, u64)) -> bool {
    std::fs::metadata(path).is_ok_and(|m| (m.dev(), m.ino()) == key)
}

/// The path an input was read from when `target` (after following links)
/// is that same file. An input that is no longer at its path with its
/// inode was deleted (or replaced) since: its inode may now be another
/// file's, which is no input (a freed inode is soon given to a new file).
pub fn input_at(target: &Path) -> Option<PathBuf> {
    let m = std::fs::metadata(target).ok()?;
    let key = (m.dev(), m.ino());
    let read = lock().get(&key).cloned()?;
    is_at(&read, key).then_some(read)
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

    #[test]
    fn a_deleted_inputs_inode_given_to_a_new_file_is_no_input() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.csv");
        std::fs::write(&new, "x").unwrap();
        let m = std::fs::metadata(&new).unwrap();
        // As if an input, since deleted, had had the inode `new` now has.
        let gone = dir.path().join("deleted-input.txt");
        lock().insert((m.dev(), m.ino()), gone);
        assert_eq!(input_at(&new), None);
        note(&new);
        assert_eq!(input_at(&new), Some(new.clone()));
    }
}
