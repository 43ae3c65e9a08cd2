//! The traced program a read names its functions against: BINARY when
//! given (checked up front, so a trace or a directory given there is
//! refused before anything is read), else the executable the trace
//! recorded, when that file can be found. What a file is from its first
//! bytes (ELF or a trace) is decided once, in [`crate::ingest::guess`].

use std::path::{Path, PathBuf};

use super::InputOptions;
use crate::error::{Error, Result};
use crate::ingest::{TraceMeta, guess};
use crate::symbols;

/// A BINARY given on the command line must be there, whatever the trace
/// (one with mappings would otherwise name nothing, with a warning only).
pub(crate) fn check_binary(binary: Option<&Path>) -> Result<()> {
    let Some(binary) = binary else {
        return Ok(());
    };
    let meta = std::fs::metadata(binary).map_err(|e| Error::io(binary, e))?;
    if let Some((format, _)) = guess::recording(binary) {
        let (name, format) = (binary.display(), format.name());
        return Err(Error::Input(format!(
            "{name} is a {format} recording; did you mean `--trace {name}`?"
        )));
    }
    if meta.is_dir() {
        return Err(Error::Input(format!(
            "{}: is a directory; expected the traced executable",
            binary.display()
        )));
    }
    if meta.is_file() {
        check_is_program(binary)?;
    }
    Ok(())
}

/// A BINARY that is not an ELF file is refused: a trace given there
/// (`calltrace graph mytrace.txt`) would otherwise leave `trace.txt` read
/// in its place, its names missing, with exit code 0.
fn check_is_program(binary: &Path) -> Result<()> {
    let head = guess::head_of(binary).map_err(|e| Error::io(binary, e))?;
    if guess::is_elf(&head) {
        return Ok(());
    }
    let name = binary.display();
    if guess::is_trace(&head) {
        return Err(Error::Input(format!(
            "{name} is a trace; did you mean `--trace {name}`?"
        )));
    }
    Err(Error::Input(format!(
        "{name}: not an ELF executable; BINARY is the traced program (built with `gcc -g -finstrument-functions`)"
    )))
}

/// True when `path` is a regular file that is a trace rather than a program.
pub(crate) fn is_trace_file(path: &Path) -> bool {
    path.is_file() && guess::head_of(path).is_ok_and(|h| !guess::is_elf(&h) && guess::is_trace(&h))
}

/// The traced program to read: BINARY, else the executable the trace
/// recorded (or its copy in the search path), when that file exists.
pub(crate) fn program(opts: &InputOptions, meta: &TraceMeta) -> Option<PathBuf> {
    opts.binary.clone().or_else(|| {
        let path = meta.exe_path.as_deref()?;
        symbols::locate(path, &opts.symbols.search_path)
    })
}
