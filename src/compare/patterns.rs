//! Which traces are the test patterns, and what they are called. Each
//! `TRACE` argument is one pattern named by its file stem, or `NAME=PATH`;
//! a directory stands for every trace in it (regular, non-hidden files
//! that a trace format reads, so the traced binary, a README or a script
//! may sit beside the traces: [`from_args_noting`] lists them). The list comes back
//! sorted by name, names unique.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// One test pattern: a name and its trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    /// The name in every output.
    pub name: String,
    /// The trace file.
    pub path: PathBuf,
}

/// Turns `TRACE` arguments into patterns sorted by name. Errors are
/// [`Error::Value`]s: the caller names the argument ([`Error::for_flag`]).
pub(crate) fn from_args<S: AsRef<str>>(args: &[S]) -> Result<Vec<Pattern>> {
    from_args_noting(args, &mut Vec::new())
}

/// [`from_args`], and the files of directories among `args` left out as
/// not traces (regular, non-hidden, not executables, but no format reads
/// them) added to `skipped`, sorted.
pub(crate) fn from_args_noting<S: AsRef<str>>(
    args: &[S],
    skipped: &mut Vec<PathBuf>,
) -> Result<Vec<Pattern>> {
    let mut patterns = Vec::new();
    for arg in args {
        patterns.extend(from_arg(arg.as_ref(), skipped)?);
    }
    skipped.sort();
    if patterns.is_empty() {
        return Err(Error::value("no trace files given"));
    }
    patterns.sort_by(|a, b| a.name.cmp(&b.name));
    check_unique(&patterns)?;
    Ok(patterns)
}

/// One argument: `NAME=PATH`, a file or a directory of traces.
fn from_arg(arg: &str, skipped: &mut Vec<PathBuf>) -> Result<Vec<Pattern>> {
    if let Some((name, path)) = split_named(arg) {
        return Ok(vec![Pattern {
            name: name.to_string(),
            path: PathBuf::from(path),
        }]);
    }
    if arg == "-" {
        return Err(Error::value(
            "standard input cannot be a pattern: name trace files",
        ));
    }
    let path = Path::new(arg);
    if path.is_dir() && crate::ingest::guess::recording(path).is_none() {
        return dir_patterns(path, skipped);
    }
    Ok(vec![Pattern {
        name: stem(path),
        path: path.to_path_buf(),
    }])
}

/// `NAME=PATH` when the part before the first `=` looks like a name (not a path).
fn split_named(arg: &str) -> Option<(&str, &str)> {
    let (name, path) = arg.split_once('=')?;
    let is_name = !name.is_empty() && !name.contains(['/', '\\']) && !Path::new(arg).exists();
    (is_name && !path.is_empty()).then_some((name, path))
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// The traces in `dir`, by file name; other files it holds go to `skipped`.
fn dir_patterns(dir: &Path, skipped: &mut Vec<PathBuf>) -> Result<Vec<Pattern>> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden || !path.is_file() {
            continue;
        }
        // Unreadable files are left to the reader to report.
        let head = crate::ingest::guess::head_of(&path).ok();
        if head.as_deref().is_some_and(crate::ingest::guess::is_elf) {
            continue; // the traced program beside its traces
        }
        if head.is_none_or(|h| crate::ingest::guess::may_be_trace(&h)) {
            out.push(Pattern {
                name: stem(&path),
                path,
            });
        } else {
            skipped.push(path);
        }
    }
    if out.is_empty() {
        return Err(Error::value(format!(
            "directory {} holds no trace files",
            dir.display()
        )));
    }
    Ok(out)
}

fn check_unique(sorted: &[Pattern]) -> Result<()> {
    match sorted.windows(2).find(|w| w[0].name == w[1].name) {
        Some(w) => Err(Error::value(format!(
            "two patterns are named `{}` ({} and {}); name them apart with NAME=PATH",
            w[0].name,
            w[0].path.display(),
            w[1].path.display()
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &[Pattern]) -> Vec<&str> {
        p.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn names_are_stems_or_given_and_sorted() {
        let p = from_args(&["b/scan.trace", "fax=x/y.txt", "a/copy.trace"]).unwrap();
        assert_eq!(names(&p), ["copy", "fax", "scan"]);
        assert_eq!(p[1].path, PathBuf::from("x/y.txt"));
        // A `=` inside a path is not a name.
        let p = from_args(&["dir/a=b.trace"]).unwrap();
        assert_eq!(names(&p), ["a=b"]);
    }

    #[test]
    fn duplicate_names_are_refused() {
        let err = from_args(&["a/copy.trace", "b/copy.txt"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("two patterns are named `copy`")
                && err.contains("a/copy.trace")
                && err.contains("NAME=PATH"),
            "{err}"
        );
        assert!(
            from_args(&["-"])
                .unwrap_err()
                .to_string()
                .contains("standard input")
        );
        assert!(from_args::<&str>(&[]).is_err());
    }

    #[test]
    fn a_directory_means_its_traces_but_not_the_binary() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.trace"), "E main\nX main\n").unwrap();
        std::fs::write(dir.path().join("a.txt"), "E main\nX main\n").unwrap();
        std::fs::write(dir.path().join("app"), b"\x7fELF\x02\x01").unwrap();
        std::fs::write(dir.path().join(".hidden"), "x").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        // A README and a script beside the traces are not patterns; an
        // empty file is (its reader says it is empty).
        std::fs::write(
            dir.path().join("README.md"),
            "# Runs
One per test.
",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("run.sh"),
            "#!/bin/sh
./app > out
",
        )
        .unwrap();
        std::fs::write(dir.path().join("c.txt"), "").unwrap();
        let arg = dir.path().to_str().unwrap();
        let mut skipped = Vec::new();
        let p = from_args_noting(&[arg], &mut skipped).unwrap();
        assert_eq!(names(&p), ["a", "b", "c"]);
        assert_eq!(
            skipped,
            [dir.path().join("README.md"), dir.path().join("run.sh")]
        );
        let mut skipped = Vec::new();
        from_args_noting(&["x=y", "a/copy.trace"], &mut skipped).unwrap();
        assert!(skipped.is_empty());
        let empty = tempfile::tempdir().unwrap();
        let err = from_args(&[empty.path().to_str().unwrap()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("holds no trace files"), "{err}");
    }
}
