//! Whether an executable can write a trace at all: built with
//! `-finstrument-functions`, it calls `__cyg_profile_func_enter` on every
//! function entry, and only calltrace's runtime (`calltrace runtime`)
//! defines that hook to record the call. Without the runtime the program
//! still links, against glibc's hooks that do nothing, runs and writes no
//! trace; the missing trace then says why.

use std::path::Path;

use object::{Object, ObjectSymbol};

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
    let build = format!(
        "(`calltrace runtime > calltrace.c`, then `gcc -g -finstrument-functions {name}.c calltrace.c -o {name}`)"
    );
    match hooks(path)? {
        Hooks::Defined => None,
        Hooks::Imported => Some(format!(
            "{shown} calls {ENTER_HOOK} but calltrace's runtime is not linked into it, \
             so glibc's empty hooks ran and wrote nothing: link the runtime in {build} and run {shown} again"
        )),
        Hooks::Absent => Some(format!(
            "{shown} was not built with -finstrument-functions (it never calls {ENTER_HOOK}), so it records no calls: \
             build it with the runtime {build} and run {shown} again"
        )),
    }
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
