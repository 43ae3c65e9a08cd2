//! Every function an object has code for, named as the trace's functions
//! are named, and whether its code calls the entry hook
//! (`__cyg_profile_func_enter`): what `coverage` lists, since a trace only
//! names the functions that ran. A function whose code never calls the
//! hook (`no_instrument_function`, a file built without
//! `-finstrument-functions`, the runtime itself) can never be in a trace.
//!
//! The calls are found in each function's machine code (`calls`: x86-64,
//! 32-bit Arm in A32 and Thumb-2, AArch64, RISC-V), direct or through the
//! PLT. For another instruction set every function of an object that
//! calls the hook anywhere counts as instrumented, with a warning.
//!
//! Function addresses are the symbols' values, as the trace's are the
//! hook's `this_fn`: a Thumb function's is odd in both.

use std::path::{Path, PathBuf};

use object::Object as _;

use super::FuncInfo;
use super::calls::HookCalls;
use super::debugfile::DebugSearch;
use super::demangle::Demangle;
use super::objects::Object;
use crate::error::{Error, Result};

/// One function with code in an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// File (link-time) address of its first instruction.
    pub addr: u64,
    /// Size of its code in bytes.
    pub size: u64,
    /// Its name, source file and line, as a trace's functions get them.
    pub info: FuncInfo,
    /// Its code calls the entry hook.
    pub instrumented: bool,
}

/// The functions of one object, sorted by address (one per address).
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    /// The object's segments and symbols.
    pub elf: super::Elf,
    /// The functions.
    pub functions: Vec<Function>,
    /// Whether calls were found per function (the instruction set is
    /// decoded) or the object's use of the hook stands for all of its
    /// functions.
    pub per_function: bool,
}

impl Inventory {
    /// The function whose code holds file address `addr` (in an Arm
    /// object, an even `addr` may be the first byte of a Thumb function,
    /// one below its odd symbol: the freestanding runtime's addresses).
    pub fn at(&self, addr: u64) -> Option<usize> {
        let addr = self.elf.thumb_twin(addr).unwrap_or(addr);
        let i = self.functions.partition_point(|f| f.addr <= addr);
        let f = self.functions.get(i.checked_sub(1)?)?;
        (addr < f.addr + f.size).then_some(i - 1)
    }
}

/// Where [`inventory`] looks for an object's separate debug file: the
/// `--debug-dir`s (then the system's) and the `--search-path`.
#[derive(Debug, Clone, Copy, Default)]
pub struct DebugPlaces<'a> {
    /// The `--debug-dir` directories. Default is none.
    pub debug_dirs: &'a [PathBuf],
    /// The `--search-path` directories. Default is none.
    pub search_path: &'a [PathBuf],
}

/// Lists the functions of the object at `path`, its separate debug file
/// looked for in `places`; problems reading its debug information become
/// `warnings`.
pub fn inventory(
    path: &Path,
    style: Demangle,
    places: DebugPlaces<'_>,
    warnings: &mut Vec<String>,
) -> Result<Inventory> {
    let search = DebugSearch::new(places.debug_dirs, places.search_path);
    let obj = Object::open_with(path, None, false, &search, warnings)?;
    let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let file = object::File::parse(&*data).map_err(|e| {
        Error::Input(format!(
            "{}: not an executable this tool can read: {e}",
            path.display()
        ))
    })?;
    let mut hooks = HookCalls::of(&file);
    let per_function = hooks.is_some();
    if !per_function && obj.elf.instrumented {
        warnings.push(format!(
            "{}: calls to {} are not decoded for {:?} code: all of its functions count as instrumented",
            path.display(),
            super::calls::ENTER_HOOK,
            file.architecture()
        ));
    }
    let mut functions: Vec<Function> = Vec::new();
    for sym in obj.elf.symbols.iter().filter(|s| s.size > 0) {
        if functions.last().is_some_and(|f| f.addr == sym.addr) {
            continue; // an alias of the function just listed
        }
        let Some(named) = obj.lookup(sym.addr, style) else {
            continue;
        };
        let instrumented = match &mut hooks {
            Some(h) => h.called_by(sym.addr, sym.size),
            None => obj.elf.instrumented,
        };
        functions.push(Function {
            addr: sym.addr,
            size: sym.size,
            info: named.info,
            instrumented,
        });
    }
    Ok(Inventory {
        elf: obj.elf.clone(),
        functions,
        per_function,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An x86-64 program built with `-finstrument-functions`, where `plain`
    /// is `no_instrument_function`; None without gcc.
    fn program(dir: &Path) -> Option<PathBuf> {
        let src = dir.join("a.c");
        std::fs::write(
            &src,
            "__attribute__((no_instrument_function)) int plain(int x) { return x; }\n\
             int f(int x) { return plain(x) + 1; }\nint main(void) { return f(0) - 1; }\n",
        )
        .expect("write a.c");
        let exe = dir.join("a");
        let built = std::process::Command::new("gcc")
            .args(["-finstrument-functions", "-o"])
            .arg(&exe)
            .arg(&src)
            .status();
        if !built.is_ok_and(|s| s.success()) {
            assert!(
                std::env::var_os("CALLTRACE_REQUIRE_TOOLS").is_none(),
                "gcc is needed"
            );
            return None;
        }
        Some(exe)
    }

    #[test]
    fn an_even_address_is_the_thumb_function_one_below_its_symbol_in_arm_objects() {
        let function = |addr, size| Function {
            addr,
            size,
            info: FuncInfo::default(),
            instrumented: true,
        };
        let mut inv = Inventory {
            elf: super::super::Elf {
                thumb: true,
                ..Default::default()
            },
            functions: vec![function(0x8141, 0x20), function(0x8161, 0x10)],
            per_function: true,
        };
        assert_eq!(inv.at(0x8140), Some(0));
        assert_eq!(inv.at(0x8141), Some(0));
        assert_eq!(inv.at(0x8160), Some(1));
        assert_eq!(inv.at(0x8172), None);
        inv.elf.thumb = false;
        assert_eq!(inv.at(0x8160), Some(0));
    }

    fn instrumented(inv: &Inventory, name: &str) -> bool {
        let f = inv.functions.iter().find(|f| f.info.name == name);
        f.unwrap_or_else(|| panic!("no {name}")).instrumented
    }

    /// Decoded, `plain` is not instrumented; an object of an instruction
    /// set that is not decoded (the same file marked as PowerPC) counts
    /// every function as instrumented and says so.
    #[test]
    fn undecoded_instruction_sets_fall_back_to_the_object_with_a_warning() {
        let dir = tempfile::tempdir().expect("temp dir");
        let Some(exe) = program(dir.path()) else {
            return;
        };
        let mut warnings = Vec::new();
        let inv = inventory(&exe, Demangle::Full, DebugPlaces::default(), &mut warnings)
            .expect("inventory");
        assert!(inv.per_function && warnings.is_empty(), "{warnings:?}");
        assert!(instrumented(&inv, "f") && !instrumented(&inv, "plain"));
        let mut bytes = std::fs::read(&exe).expect("read the program");
        bytes[18..20].copy_from_slice(&21u16.to_le_bytes()); // e_machine = EM_PPC64
        let ppc = dir.path().join("ppc");
        std::fs::write(&ppc, bytes).expect("write the copy");
        let inv = inventory(&ppc, Demangle::Full, DebugPlaces::default(), &mut warnings)
            .expect("inventory");
        assert!(!inv.per_function);
        assert!(instrumented(&inv, "f") && instrumented(&inv, "plain"));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("not decoded"), "{warnings:?}");
    }
}
