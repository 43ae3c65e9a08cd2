//! Atomic output: write to a temporary file beside the target, then rename.
//! Atomic replacement applies to regular files only. `-` means standard
//! output; an output that is not a regular file is written in place, never
//! renamed over: a device, a FIFO or a terminal (`/dev/null`, `/dev/tty`),
//! and a path naming one of our open descriptors (`/dev/stdout`,
//! `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`), which is written through
//! that descriptor, so `-o /dev/stdout >> log` appends to `log` like `-o -`
//! does. [`write_atomic_with`] streams big outputs the same way, and
//! [`write_atomic_set`] puts several files in place all or nothing. A
//! file the run read, however it was found ([`crate::ingest::opened`]),
//! is never replaced: staging and the rename both refuse it.
//!
//! The temporary file is created by the `tempfile` crate in the target's
//! directory with `O_EXCL` under an unpredictable name (so a planted
//! symlink is never followed), gets the target's permissions when the
//! target exists, is synced to disk and only then renamed over the target.
//! Live temporary files are listed in a registry that a SIGINT or SIGTERM
//! empties before the process dies ([`super::signals`]), so an
//! interrupted run leaves nothing behind.

use std::fs::Permissions;
use std::io::{BufWriter, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::signals;
use crate::error::{Error, Result};

/// Writes `bytes` to `path` atomically, or to stdout when `path` is `-`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |out| out.write_all(bytes))
}

/// Like [`write_atomic`], with the content written by `fill` as it is
/// produced (for outputs too big to build in memory first).
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    stage_with(path, fill)?.commit()
}

/// Writes every `(path, bytes)` to a temporary file first and renames them
/// into place only when all were written: a failure leaves every target
/// as it was.
pub fn write_atomic_set(files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    let staged = files
        .iter()
        .map(|(path, bytes)| stage_with(path, |out| out.write_all(bytes)))
        .collect::<Result<Vec<_>>>()?;
    staged.into_iter().try_for_each(Staged::commit)
}

/// An output written to its temporary file but not yet in place. Dropping
/// it removes the temporary file.
pub struct Staged {
    /// The temporary file and the target it will be renamed to; None when
    /// the output went straight to stdout or a device.
    pending: Option<(tempfile::NamedTempFile, PathBuf)>,
}

impl Staged {
    /// Renames the temporary file over the target.
    pub fn commit(mut self) -> Result<()> {
        let Some((tmp, target)) = self.pending.take() else {
            return Ok(());
        };
        let tmp_path = tmp.path().to_path_buf();
        // Checked again here: an object may have been read since staging.
        let result = not_an_input(&target);
        let result = result.and_then(|()| {
            tmp.persist(&target)
                .map(drop)
                .map_err(|e| Error::io(&target, e.error))
        });
        signals::forget(&tmp_path);
        result?;
        sync_dir(&target);
        Ok(())
    }
}

/// Refuses to replace a file this run read (a trace, the executable a
/// trace names, a `--search-path` copy, a mapped library, a module table).
fn not_an_input(target: &Path) -> Result<()> {
    match crate::ingest::opened::input_at(target) {
        None => Ok(()),
        Some(input) => Err(Error::Input(format!(
            "{} is the same file as the input {}; refusing to overwrite an input",
            target.display(),
            input.display()
        ))),
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some((tmp, _)) = self.pending.take() {
            let path = tmp.path().to_path_buf();
            drop(tmp);
            signals::forget(&path);
        }
    }
}

/// Why no file can be made beside `target`, naming `target` (tempfile's
/// own message names its hidden temporary file).
fn unwritable(target: &Path, e: &std::io::Error) -> Error {
    match (e.kind(), target.parent()) {
        (std::io::ErrorKind::NotFound, Some(dir)) if !dir.as_os_str().is_empty() => {
            Error::Input(format!(
                "{}: the directory {} does not exist",
                target.display(),
                dir.display()
            ))
        }
        (kind, _) => Error::io(target, std::io::Error::from(kind)),
    }
}

/// Writes `fill`'s output to a synced temporary file beside `path` (or
/// straight to stdout / a device), ready for [`Staged::commit`].
pub fn stage_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<Staged> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        fill(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| Error::io("<stdout>", e))?;
        return Ok(Staged { pending: None });
    }
    if let Some(file) = in_place(path).map_err(|e| Error::io(path, e))? {
        // Renaming over these would replace the device, the pipe or the
        // file the descriptor points to (and drop what others appended).
        fill_in_place(file, fill).map_err(|e| Error::io(path, e))?;
        return Ok(Staged { pending: None });
    }
    let target = resolve_link(path);
    not_an_input(&target)?;
    if target.is_dir() {
        // Found now, not at the rename, so a set fails before any file moves.
        let e = std::io::Error::from(std::io::ErrorKind::IsADirectory);
        return Err(Error::io(&target, e));
    }
    let tmp = temp_beside(&target).map_err(|e| unwritable(&target, &e))?;
    let staged = Staged {
        pending: Some((tmp, target.clone())),
    };
    let (tmp, _) = staged.pending.as_ref().expect("just set");
    fill_synced(tmp.as_file(), fill).map_err(|e| Error::io(&target, e))?;
    Ok(staged)
}

/// The file a symlinked output points to (we replace it, not the link).
fn resolve_link(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// A new temporary file in `target`'s directory, registered for removal
/// on SIGINT/SIGTERM, with `target`'s permissions when it exists (else the
/// usual 0666 less the umask).
fn temp_beside(target: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    signals::install();
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let existing = std::fs::metadata(target).ok().map(|m| m.permissions());
    let mut live = signals::lock_live();
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    live.push(tmp.path().to_path_buf());
    drop(live);
    if let Some(perm) = existing {
        tmp.as_file().set_permissions(perm)?;
    }
    Ok(tmp)
}

/// Runs `fill` on `file` through a buffer, then flushes and syncs it.
fn fill_synced(
    file: &std::fs::File,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, file);
    fill(&mut out)?;
    out.flush()?;
    drop(out);
    file.sync_all()
}

/// Syncs the directory holding `target` so the rename itself is durable
/// (best effort: some file systems refuse to sync directories).
fn sync_dir(target: &Path) {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Writes `fill`'s output through `file` (no sync: pipes and terminals
/// refuse one).
fn fill_in_place(
    file: std::fs::File,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, file);
    fill(&mut out)?;
    out.flush()
}

/// The open file an output that must be written in place goes to; None
/// for a path to replace atomically (a regular file, or nothing yet).
fn in_place(path: &Path) -> std::io::Result<Option<std::fs::File>> {
    use std::os::fd::{FromRawFd, OwnedFd};
    match descriptor(path) {
        Some(Descriptor::Own(fd)) => {
            // SAFETY: dup only reads the descriptor table; a closed `fd`
            // gives -1 (EBADF), a valid one a new descriptor we own.
            let copy = unsafe { libc::dup(fd) };
            if copy < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: `copy` was just opened and nothing else owns it.
            Ok(Some(unsafe { OwnedFd::from_raw_fd(copy) }.into()))
        }
        // Another process's descriptor: its offset is not ours to share;
        // appending never overwrites what it wrote.
        Some(Descriptor::Foreign) => std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map(Some),
        None if is_special(path) => std::fs::OpenOptions::new().write(true).open(path).map(Some),
        None => Ok(None),
    }
}

/// True when `path` names a file descriptor (`/dev/stdout`, `/dev/fd/N`,
/// `/proc/self/fd/N`), written in place as `-` is.
pub fn names_descriptor(path: &Path) -> bool {
    descriptor(path).is_some()
}

/// A path that names an open file descriptor rather than a file.
#[derive(Debug, PartialEq, Eq)]
enum Descriptor {
    /// One of ours: `/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/3`.
    Own(i32),
    /// Another process's: `/proc/1234/fd/1`.
    Foreign,
}

/// Whether `path`, or a symlink on the way to its target, names a file
/// descriptor (`/dev/stdout` -> `/proc/self/fd/1` -> the file behind
/// it). Resolving such a link yields the file the descriptor points to
/// (or `/path (deleted)`), which is not where the output should go.
fn descriptor(path: &Path) -> Option<Descriptor> {
    let mut here = path.to_path_buf();
    for _ in 0..40 {
        if let Some(d) = descriptor_name(&here) {
            return Some(d);
        }
        let next = std::fs::read_link(&here).ok()?;
        here = match here.parent() {
            Some(dir) if next.is_relative() => dir.join(next),
            _ => next,
        };
    }
    None
}

/// [`descriptor`] for one path, by its name alone.
fn descriptor_name(path: &Path) -> Option<Descriptor> {
    let s = path.to_str()?;
    let own = |n: &str| n.parse().ok().map(Descriptor::Own);
    match s {
        "/dev/stdin" => return Some(Descriptor::Own(0)),
        "/dev/stdout" => return Some(Descriptor::Own(1)),
        "/dev/stderr" => return Some(Descriptor::Own(2)),
        _ => {}
    }
    if let Some(n) = s.strip_prefix("/dev/fd/") {
        return own(n);
    }
    let (pid, n) = s.strip_prefix("/proc/")?.split_once("/fd/")?;
    match pid {
        "self" | "thread-self" => own(n),
        _ if pid == std::process::id().to_string() => own(n),
        _ if pid.split("/task/").all(|p| p.parse::<u32>().is_ok()) => {
            n.parse::<u32>().ok().map(|_| Descriptor::Foreign)
        }
        _ => None,
    }
}

/// True when `path` exists and (after following links) is not a regular file.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_paths_are_recognised_through_links() {
        use Descriptor::{Foreign, Own};
        assert_eq!(descriptor(Path::new("/dev/stdout")), Some(Own(1)));
        assert_eq!(descriptor(Path::new("/dev/fd/7")), Some(Own(7)));
        assert_eq!(descriptor(Path::new("/proc/self/fd/2")), Some(Own(2)));
        let me = format!("/proc/{}/fd/5", std::process::id());
        assert_eq!(descriptor(Path::new(&me)), Some(Own(5)));
        assert_eq!(descriptor(Path::new("/proc/1/fd/1")), Some(Foreign));
        assert_eq!(descriptor(Path::new("/proc/1/fdinfo/1")), None);
        assert_eq!(descriptor(Path::new("/tmp/out.dot")), None);
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("out");
        std::os::unix::fs::symlink("/dev/stderr", &link).unwrap();
        assert_eq!(descriptor(&link), Some(Own(2)));
    }

    #[test]
    fn a_symlinked_output_writes_the_link_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.dot");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.dot");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.dot");
        std::fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn failure_keeps_the_old_file_and_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomic(&dir.path().join("missing/out.dot"), b"x").unwrap_err();
        assert!(err.to_string().contains("missing/out.dot"), "{err}");
    }

    #[test]
    fn the_targets_permissions_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.csv");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"new").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn a_new_file_is_not_private_to_the_owner() {
        // tempfile creates 0600 files by default; an output is an ordinary file.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new.dot");
        write_atomic(&p, b"x").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_ne!(
            mode & 0o044,
            0,
            "readable by others per the umask: {mode:o}"
        );
    }

    #[test]
    fn a_failed_fill_removes_its_temporary_and_keeps_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        std::fs::write(&p, "old").unwrap();
        let err = write_atomic_with(&p, |out| {
            out.write_all(b"partial")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(
            !signals::lock_live()
                .iter()
                .any(|t| t.starts_with(dir.path()))
        );
    }

    #[test]
    fn a_set_is_written_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        std::fs::write(&a, "old a").unwrap();
        let files = vec![
            (a.clone(), b"new a".to_vec()),
            (dir.path().join("missing/b.csv"), b"new b".to_vec()),
        ];
        assert!(write_atomic_set(&files).is_err());
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let files = vec![
            (a.clone(), b"new a".to_vec()),
            (dir.path().join("b.csv"), b"new b".to_vec()),
        ];
        write_atomic_set(&files).unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("b.csv")).unwrap(),
            "new b"
        );
    }

    #[test]
    fn temporary_names_are_unpredictable_and_registered_while_live() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.dot");
        let mut names = Vec::new();
        for _ in 0..2 {
            let staged = stage_with(&p, |out| out.write_all(b"x")).unwrap();
            let (tmp, _) = staged.pending.as_ref().unwrap();
            assert!(signals::lock_live().contains(&tmp.path().to_path_buf()));
            names.push(tmp.path().to_path_buf());
        }
        assert_ne!(names[0], names[1]);
        assert!(
            !names[0]
                .to_string_lossy()
                .contains(&std::process::id().to_string())
        );
        assert!(
            names.iter().all(|n| !n.exists()),
            "dropped stages are removed"
        );
    }
}
