//! Every function an object has code for, named as the trace's functions
//! are named, and whether its code calls the entry hook
//! (`__cyg_profile_func_enter`): what `coverage` lists, since a trace only
//! names the functions that ran. A function whose code never calls the
//! hook (`no_instrument_function`, a file built without
//! `-finstrument-functions`, the runtime itself) can never be in a trace.
//!
//! The calls are found in the machine code (x86-64): a direct `call`
//! (`e8 rel32`) to the hook's definition or to its PLT stub, or an
//! indirect `call *GOT(%rip)` (`ff 15 disp32`, `-fno-plt`) through its GOT
//! slot. On other architectures every function of an object that calls
//! the hook anywhere counts as instrumented.

use std::collections::HashSet;
use std::path::Path;

use object::{
    Architecture, Object as _, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationTarget,
};

use super::FuncInfo;
use super::demangle::Demangle;
use super::objects::Object;
use crate::error::{Error, Result};

/// The entry hook `-finstrument-functions` calls.
const ENTER_HOOK: &str = "__cyg_profile_func_enter";

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
    /// Whether calls were found per function (x86-64) or the object's
    /// use of the hook stands for all of its functions.
    pub per_function: bool,
}

impl Inventory {
    /// The function whose code holds file address `addr`.
    pub fn at(&self, addr: u64) -> Option<usize> {
        let i = self.functions.partition_point(|f| f.addr <= addr);
        let f = self.functions.get(i.checked_sub(1)?)?;
        (addr < f.addr + f.size).then_some(i - 1)
    }
}

/// Lists the functions of the object at `path`; problems reading its
/// debug information become `warnings`.
pub fn inventory(path: &Path, style: Demangle, warnings: &mut Vec<String>) -> Result<Inventory> {
    let obj = Object::open(path, false, warnings)?;
    let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let file = object::File::parse(&*data).map_err(|e| {
        Error::Input(format!(
            "{}: not an executable this tool can read: {e}",
            path.display()
        ))
    })?;
    let hooks = HookTargets::of(&file);
    let per_function = file.architecture() == Architecture::X86_64;
    let mut functions: Vec<Function> = Vec::new();
    for sym in obj.elf.symbols.iter().filter(|s| s.size > 0) {
        if functions.last().is_some_and(|f| f.addr == sym.addr) {
            continue; // an alias of the function just listed
        }
        let Some(named) = obj.lookup(sym.addr, style) else {
            continue;
        };
        let instrumented = match per_function {
            true => code(&file, sym.addr, sym.size).is_some_and(|c| hooks.called_by(sym.addr, c)),
            false => obj.elf.instrumented,
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

/// The bytes of the function at `addr` of `size` bytes, from the section
/// that holds them.
fn code<'d>(file: &object::File<'d>, addr: u64, size: u64) -> Option<&'d [u8]> {
    let section = file
        .sections()
        .find(|s| s.address() <= addr && addr + size <= s.address() + s.size())?;
    let data = section.data().ok()?;
    let start = usize::try_from(addr - section.address()).ok()?;
    data.get(start..start + usize::try_from(size).ok()?)
}

/// Where a call to the entry hook goes: its definition and PLT stubs, and
/// the GOT slots an indirect call reads it from.
#[derive(Debug, Default)]
struct HookTargets {
    /// Addresses a direct `call` to the hook lands on.
    direct: HashSet<u64>,
    /// GOT slots holding the hook's address.
    slots: HashSet<u64>,
}

impl HookTargets {
    fn of(file: &object::File<'_>) -> HookTargets {
        let mut t = HookTargets::default();
        for s in file.symbols().chain(file.dynamic_symbols()) {
            if s.name() == Ok(ENTER_HOOK) && s.is_definition() && s.address() != 0 {
                t.direct.insert(s.address());
            }
        }
        if let (Some(relocs), Some(dynsyms)) =
            (file.dynamic_relocations(), file.dynamic_symbol_table())
        {
            for (offset, r) in relocs {
                let RelocationTarget::Symbol(i) = r.target() else {
                    continue;
                };
                if dynsyms
                    .symbol_by_index(i)
                    .is_ok_and(|s| s.name() == Ok(ENTER_HOOK))
                {
                    t.slots.insert(offset);
                }
            }
        }
        t.add_plt_stubs(file);
        t
    }

    /// Adds the PLT entries (16 bytes each) whose `jmp *slot(%rip)`
    /// (`ff 25 disp32`) reads a slot of the hook.
    fn add_plt_stubs(&mut self, file: &object::File<'_>) {
        for section in file.sections() {
            let is_plt = section.name().is_ok_and(|n| n.starts_with(".plt"));
            let Some(data) = is_plt.then(|| section.data().ok()).flatten() else {
                continue;
            };
            let base = section.address();
            for i in 0..data.len().saturating_sub(5) {
                if data[i] == 0xff && data[i + 1] == 0x25 {
                    let next = base + i as u64 + 6;
                    if self.slots.contains(&rip_target(next, &data[i + 2..i + 6])) {
                        self.direct.insert(base + (i as u64 & !15));
                    }
                }
            }
        }
    }

    /// Whether `code`, at `addr`, calls the hook.
    fn called_by(&self, addr: u64, code: &[u8]) -> bool {
        (0..code.len().saturating_sub(4)).any(|i| {
            let at = addr + i as u64;
            match code[i] {
                0xe8 => self
                    .direct
                    .contains(&rip_target(at + 5, &code[i + 1..i + 5])),
                0xff if code.get(i + 1) == Some(&0x15) && i + 6 <= code.len() => self
                    .slots
                    .contains(&rip_target(at + 6, &code[i + 2..i + 6])),
                _ => false,
            }
        })
    }
}

/// `next + disp32` (the target of a RIP-relative operand).
fn rip_target(next: u64, disp: &[u8]) -> u64 {
    let d = i32::from_le_bytes([disp[0], disp[1], disp[2], disp[3]]);
    next.wrapping_add_signed(i64::from(d))
}
