//! `[BINARY] TRACE...`: the one place a command's positional arguments are
//! split into the traced program and the traces. The first argument is
//! the program when it is an ELF file (a program is never a trace);
//! everything after it, and everything when it is not, is a trace, a
//! `NAME=PATH` or a directory of traces. `compare` and `coverage` take
//! such a list; the single-trace commands take `[BINARY]` alone and the
//! trace by `--trace` ([`super::InputArgs`]).

use std::path::{Path, PathBuf};

use crate::ingest::guess::is_elf_file;

/// `args` split into the program, when the first is one, and the traces.
/// A program named already (`given`, the hidden `--binary`) is kept and
/// nothing is split off.
pub(crate) fn split(
    mut args: Vec<String>,
    given: Option<PathBuf>,
) -> (Option<PathBuf>, Vec<String>) {
    if given.is_some() || !args.first().is_some_and(|a| is_elf_file(Path::new(a))) {
        return (given, args);
    }
    let binary = PathBuf::from(args.remove(0));
    (Some(binary), args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_argument_is_the_program_only_when_it_is_an_elf_file() {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("app");
        std::fs::write(&app, b"\x7fELF\x02\x01").unwrap();
        let trace = dir.path().join("t.txt");
        std::fs::write(&trace, "E main\nX main\n").unwrap();
        let s = |p: &Path| p.display().to_string();
        let (binary, traces) = split(vec![s(&app), s(&trace)], None);
        assert_eq!((binary, traces), (Some(app.clone()), vec![s(&trace)]));
        let (binary, traces) = split(vec![s(&trace), s(&app)], None);
        assert_eq!((binary, traces), (None, vec![s(&trace), s(&app)]));
        let (binary, traces) = split(vec![s(dir.path())], None);
        assert_eq!((binary, traces), (None, vec![s(dir.path())]));
        let given = Some(PathBuf::from("other"));
        let (binary, traces) = split(vec![s(&app)], given.clone());
        assert_eq!((binary, traces), (given, vec![s(&app)]));
    }
}
