//! Atomic output: write to a temporary file beside the target, then rename.
//! `-` means standard output; devices and FIFOs (`/dev/null`) are written
//! directly. [`write_atomic_with`] streams big outputs the same way.

use std::io::Write;
use std::path::Path;

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
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        return fill(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| Error::io("<stdout>", e));
    }
    if is_special(path) {
        // /dev/null, /dev/stdout, a FIFO: renaming over them would replace
        // the device or pipe with a regular file, so write into them.
        return write_file(path, fill).map_err(|e| Error::io(path, e));
    }
    // Replace the file a symlink points to, not the link itself.
    let resolved = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).ok(),
        _ => None,
    };
    let path = resolved.as_deref().unwrap_or(path);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = write_file(&tmp, fill).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

/// Creates (or truncates) `path` and writes it with `fill`.
fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut file = std::fs::File::create(path)?;
    fill(&mut file)?;
    file.flush()
}

/// True when `path` exists and (after following links) is not a regular file.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
