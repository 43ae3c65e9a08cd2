//! Whether an executable can write a trace at all: built with
//! `-finstrument-functions`, it calls `__cyg_profile_func_enter` on every
//! function entry, and only calltrace's runtime (`calltrace runtime`)
//! defines that hook to record the call. Without the runtime the program
//! still links, against glibc's hooks that do nothing, runs and writes no
//! trace; the missing trace then says why. When the instrumented code is
//! in a shared library the executable loads (an uninstrumented program over
//! an instrumented `libfoo.so`), the hint names that library.

use std::path::{Path, PathBuf};

use object::{Object, ObjectSection, ObjectSymbol};

/// The entry hook `-finstrument-functions` calls.
const ENTER_HOOK: &str = "__cyg_profile_func_enter";

/// How an executable's function entries are hooked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hooks {
    /// The executable defines the hook: a runtime is linked in.
    Defined,
    /// It calls the hook but takes it from a shared library (glibc's,
    /// which does nothing).
    Imported,
    /// Its symbol table names no hook: not built with `-finstrument-functions`.
    Absent,
}

/// What the ELF file at `path` does with the entry hook; None when it
/// cannot be read or is stripped of the symbols that would tell.
fn hooks(path: &Path) -> Option<Hooks> {
    let data = std::fs::read(path).ok()?;
    let file = object::File::parse(&*data).ok()?;
    hooks_of(&file)
}

/// [`hooks`] of a parsed ELF file.
fn hooks_of(file: &object::File) -> Option<Hooks> {
    let mut found = None;
    for sym in file.symbols().chain(file.dynamic_symbols()) {
        if sym.name() != Ok(ENTER_HOOK) {
            continue;
        }
        if !sym.is_undefined() {
            return Some(Hooks::Defined);
        }
        found = Some(Hooks::Imported);
    }
    // A stripped executable may have the runtime without a symbol for it.
    found.or_else(|| file.symbol_table().map(|_| Hooks::Absent))
}

/// Why the executable at `path` wrote no trace, with the commands that
/// build it so that it does; None when it has the runtime (or cannot be
/// read).
pub fn runtime_hint(path: &Path) -> Option<String> {
    let shown = path.display();
    let name = path
        .file_name()
        .map_or_else(|| "app".into(), |n| n.to_string_lossy());
    let build = build_line(path, &name);
    match hooks(path)? {
        Hooks::Defined => None,
        Hooks::Imported => Some(format!(
            "{shown} calls {ENTER_HOOK} but calltrace's runtime is not linked into it, \
             so glibc's empty hooks ran and wrote nothing: link the runtime in {build} and run {shown} again"
        )),
        Hooks::Absent => match instrumented_library(path) {
            Some(lib) => Some(format!(
                "{shown} loads {}, whose code calls {ENTER_HOOK}, but calltrace's runtime is linked into \
                 neither, so glibc's empty hooks ran and wrote nothing: link the runtime into the \
                 executable, which then records the library's calls too {build}, and run {shown} again",
                lib.display()
            )),
            None => Some(format!(
                "{shown} was not built with -finstrument-functions (it never calls {ENTER_HOOK}), \
                 so it records no calls: build it with the runtime {build} and run {shown} again"
            )),
        },
    }
}

/// How to build `name` with the runtime: `NAME.c` as the source when that
/// file is beside the executable or in the working directory, else a
/// placeholder (the executable's name says nothing about its sources).
fn build_line(path: &Path, name: &str) -> String {
    let source = format!("{name}.c");
    let beside = path.parent().map(|d| d.join(&source));
    let known = Path::new(&source).is_file() || beside.is_some_and(|p| p.is_file());
    let sources = match known {
        true => source,
        false => "YOUR-SOURCES.c".to_string(),
    };
    format!(
        "(`calltrace runtime > calltrace.c`, then add calltrace.c where {name} is linked: \
         `gcc -g -finstrument-functions {sources} calltrace.c -o {name}`)"
    )
}

/// The first shared library that the executable at `path` needs and finds
/// whose code calls the entry hook (built with `-finstrument-functions`).
/// The C library, which defines an empty hook, is not one.
fn instrumented_library(path: &Path) -> Option<PathBuf> {
    let data = std::fs::read(path).ok()?;
    let file = object::File::parse(&*data).ok()?;
    let dirs = library_dirs(path, &file);
    needed(&file).into_iter().find_map(|lib| {
        let found = dirs.iter().map(|d| d.join(&lib)).find(|p| p.is_file())?;
        let bytes = std::fs::read(&found).ok()?;
        let obj = object::File::parse(&*bytes).ok()?;
        (hooks_of(&obj) == Some(Hooks::Imported)).then_some(found)
    })
}

/// Dynamic section entries: `DT_NEEDED`, `DT_RPATH`, `DT_RUNPATH`.
const DT_NEEDED: u64 = 1;
const DT_RPATH: u64 = 15;
const DT_RUNPATH: u64 = 29;

/// The `(tag, string)` entries of `file`'s dynamic section whose value is
/// a string of `.dynstr` (little-endian ELF only; others give none).
fn dynamic_strings(file: &object::File) -> Vec<(u64, String)> {
    let (Some(dynamic), Some(strings)) = (
        file.section_by_name(".dynamic").and_then(|s| s.data().ok()),
        file.section_by_name(".dynstr").and_then(|s| s.data().ok()),
    ) else {
        return Vec::new();
    };
    if !file.is_little_endian() {
        return Vec::new();
    }
    let word = if file.is_64() { 8 } else { 4 };
    let read = |b: &[u8]| b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x));
    let string = |off: u64| {
        let tail = strings.get(usize::try_from(off).ok()?..)?;
        let end = tail.iter().position(|&b| b == 0)?;
        Some(String::from_utf8_lossy(&tail[..end]).into_owned())
    };
    dynamic
        .chunks_exact(2 * word)
        .map(|e| (read(&e[..word]), read(&e[word..])))
        .take_while(|&(tag, _)| tag != 0)
        .filter(|&(tag, _)| matches!(tag, DT_NEEDED | DT_RPATH | DT_RUNPATH))
        .filter_map(|(tag, off)| Some((tag, string(off)?)))
        .collect()
}

/// The libraries `file` needs, by file name, the C library left out.
fn needed(file: &object::File) -> Vec<String> {
    dynamic_strings(file)
        .into_iter()
        .filter(|(tag, name)| *tag == DT_NEEDED && !name.starts_with("libc.so"))
        .map(|(_, name)| name)
        .collect()
}

/// Where the dynamic loader looks for the libraries of the executable at
/// `path`: its run path (`$ORIGIN` is its directory), `LD_LIBRARY_PATH`,
/// then the system's directories.
fn library_dirs(path: &Path, file: &object::File) -> Vec<PathBuf> {
    let origin = path.parent().unwrap_or(Path::new("."));
    let origin = origin.to_string_lossy();
    let mut dirs: Vec<PathBuf> = dynamic_strings(file)
        .into_iter()
        .filter(|(tag, _)| matches!(*tag, DT_RPATH | DT_RUNPATH))
        .flat_map(|(_, list)| {
            list.split(':')
                .map(|d| PathBuf::from(d.replace("${ORIGIN}", &origin).replace("$ORIGIN", &origin)))
                .collect::<Vec<_>>()
        })
        .collect();
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        dirs.extend(std::env::split_paths(&paths));
    }
    for d in ["/lib", "/usr/lib", "/usr/local/lib", "/lib64", "/usr/lib64"] {
        dirs.push(PathBuf::from(d));
        dirs.push(Path::new(d).join(format!("{}-linux-gnu", std::env::consts::ARCH)));
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_elf_gives_no_hint() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app");
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        assert_eq!(runtime_hint(&path), None);
        assert_eq!(runtime_hint(&dir.path().join("missing")), None);
    }
}
