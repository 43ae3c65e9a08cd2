//! Outputs never destroy inputs: before anything is read, every output of a
//! command is compared with its inputs (trace, binary, module table) and
//! with its other outputs by device and inode, so `graph --trace t.txt -o
//! t.txt`, a symlink or hard link to the trace, or `-o x --csv x` is
//! refused with an error naming both flags. Outputs that do not exist yet
//! are compared by their canonical path. Standard input and output (`-`,
//! `/dev/stdout`) and devices (`/dev/null`) are never in conflict.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::Outcome;
use crate::abstraction::ModulesArg;
use crate::error::{Error, Result};
use crate::pipeline::InputOptions;

/// The files a command reads and writes, each with the flag that named it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Files {
    /// Files read: (flag, path).
    pub inputs: Vec<(&'static str, PathBuf)>,
    /// Files written: (flag, path).
    pub outputs: Vec<(&'static str, PathBuf)>,
}

/// A command whose options name files.
pub trait CommandFiles {
    /// What the command will read and write.
    fn files(&self) -> Result<Files>;
}

/// Checks `opts`' files ([`check`]), then runs the command.
pub fn run_checked<O: CommandFiles>(
    opts: &O,
    run: impl FnOnce(&O) -> Result<Outcome>,
) -> Result<Outcome> {
    check(&opts.files()?)?;
    run(opts)
}

/// Refuses an output that is the same file as an input or another output.
pub fn check(files: &Files) -> Result<()> {
    let inputs: Vec<_> = files
        .inputs
        .iter()
        .filter_map(|(flag, p)| identity(p).map(|id| (*flag, p, id)))
        .collect();
    let mut seen: Vec<(&str, &PathBuf, Identity)> = Vec::new();
    for (flag, path) in &files.outputs {
        let Some(id) = identity(path) else { continue };
        if let Some((in_flag, in_path, _)) = inputs.iter().find(|(_, _, i)| *i == id) {
            return Err(Error::usage(
                flag,
                format!(
                    "{} is the same file as the input {in_flag} {}; refusing to overwrite an input",
                    path.display(),
                    in_path.display()
                ),
            ));
        }
        if let Some((other, other_path, _)) = seen.iter().find(|(_, _, i)| *i == id) {
            return Err(Error::usage(
                flag,
                format!(
                    "{} is the same file as the output {other} {}; give each output its own file",
                    path.display(),
                    other_path.display()
                ),
            ));
        }
        seen.push((flag, path, id));
    }
    Ok(())
}

/// What makes two paths the same file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    /// An existing file: device and inode.
    Inode(u64, u64),
    /// A file still to be created: its canonical path.
    Path(PathBuf),
}

/// None for `-` and the descriptors it stands for (`/dev/stdout`), and
/// for devices, FIFOs and sockets, which may be shared.
fn identity(path: &Path) -> Option<Identity> {
    if path.as_os_str() == "-" || crate::emit::output::names_descriptor(path) {
        return None;
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() || m.is_dir() => Some(Identity::Inode(m.dev(), m.ino())),
        Ok(_) => None,
        Err(_) => {
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let dir = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
            Some(Identity::Path(dir.join(path.file_name()?)))
        }
    }
}

/// The inputs of a command that reads the one trace of `input`.
pub(crate) fn input_files(input: &InputOptions) -> Vec<(&'static str, PathBuf)> {
    inputs_of([("--trace", input.trace.clone())], input, None)
}

/// Every file a command reads: its `traces` (each with the flag or
/// argument that named it), then the files of the shared input flags
/// (BINARY, `--rules`, `--perf-map`, `--object`), then a `--modules` table. The one
/// list every command's inputs come from.
pub(crate) fn inputs_of(
    traces: impl IntoIterator<Item = (&'static str, PathBuf)>,
    input: &InputOptions,
    modules: Option<&ModulesArg>,
) -> Vec<(&'static str, PathBuf)> {
    let mut v: Vec<_> = traces.into_iter().collect();
    v.extend(input.binary.iter().map(|b| ("BINARY", b.clone())));
    v.extend(input.rules.iter().map(|r| ("--rules", r.clone())));
    v.extend(
        input
            .symbols
            .perf_map
            .iter()
            .map(|p| ("--perf-map", p.clone())),
    );
    let objects = &input.symbols.objects;
    v.extend(objects.iter().map(|o| ("--object", o.path.clone())));
    v.extend(module_table(modules));
    v
}

/// The `--modules` table, when the value names one (`auto` and the
/// other automatic sources are no file).
pub(crate) fn module_table(modules: Option<&ModulesArg>) -> Option<(&'static str, PathBuf)> {
    modules
        .and_then(ModulesArg::table)
        .map(|t| ("--modules", t.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(inputs: &[(&'static str, &Path)], outputs: &[(&'static str, &Path)]) -> Files {
        let own =
            |v: &[(&'static str, &Path)]| v.iter().map(|(f, p)| (*f, p.to_path_buf())).collect();
        Files {
            inputs: own(inputs),
            outputs: own(outputs),
        }
    }

    #[test]
    fn an_output_that_is_an_input_is_refused_through_links_too() {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("t.txt");
        std::fs::write(&trace, "E main\nX main\n").unwrap();
        let hard = dir.path().join("hard.txt");
        std::fs::hard_link(&trace, &hard).unwrap();
        let soft = dir.path().join("soft.txt");
        std::os::unix::fs::symlink(&trace, &soft).unwrap();
        let dotted = dir.path().join(".").join("t.txt");
        for out in [&trace, &hard, &soft, &dotted] {
            let err = check(&files(&[("--trace", &trace)], &[("--output", out)])).unwrap_err();
            let msg = err.to_string();
            assert!(
                msg.starts_with("--output: ") && msg.contains("the input --trace"),
                "{msg}"
            );
        }
        let other = dir.path().join("graph.dot");
        check(&files(&[("--trace", &trace)], &[("--output", &other)])).unwrap();
    }

    #[test]
    fn two_outputs_to_one_new_file_are_refused_but_stdout_and_devices_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("new.dot");
        let b = dir.path().join("sub/../new.dot");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let err = check(&files(&[], &[("--output", &a), ("--csv", &b)])).unwrap_err();
        assert!(err.to_string().contains("the output --output"), "{err}");
        let dash = Path::new("-");
        let null = Path::new("/dev/null");
        check(&files(
            &[("--trace", dash)],
            &[("--output", dash), ("--csv", dash)],
        ))
        .unwrap();
        check(&files(&[], &[("--output", null), ("--csv", null)])).unwrap();
    }
}
