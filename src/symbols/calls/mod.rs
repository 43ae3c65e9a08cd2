//! Which functions' machine code calls the entry hook
//! (`__cyg_profile_func_enter`), for `coverage`'s "not instrumented". Each
//! instruction set has a file that finds the calls in a function's bytes
//! (`x86_64.rs`, `arm.rs` for A32 and Thumb-2, `aarch64.rs`, `riscv.rs` for
//! RV32 and RV64) and decodes the stubs a call may land on: PLT entries,
//! which jump through the hook's GOT slot, and linker veneers, which jump
//! to it. A call reaches the hook when it lands on the hook's definition,
//! on a stub (or a stub's stub) that goes there or reads one of its GOT
//! slots, or when it reads such a slot itself (`-fno-plt`).
//!
//! Only little-endian objects of these instruction sets are decoded; for
//! others [`HookCalls::of`] gives None and the caller falls back to the
//! object as a whole.

mod aarch64;
mod arm;
mod riscv;
mod x86_64;

use std::collections::{HashMap, HashSet};

use object::{
    Architecture, Object as _, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationTarget,
    SectionKind,
};

/// The entry hook `-finstrument-functions` calls.
pub(super) const ENTER_HOOK: &str = "__cyg_profile_func_enter";

/// Stubs followed from a call before giving up (a veneer to a PLT entry
/// is two).
const STUB_DEPTH: u32 = 3;

/// Where a call found in a function's code goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    /// To this address (on Arm, odd when the target is Thumb code).
    To(u64),
    /// Through the pointer held at this address (a GOT slot).
    Through(u64),
}

/// What one instruction set decodes.
trait Isa {
    /// Reports every call (and every load of a code pointer from memory
    /// that a call may use) in `code`, the bytes of the function at `addr`.
    fn calls(&self, addr: u64, code: &[u8], found: &mut dyn FnMut(Call));

    /// Where the stub at `addr`, whose bytes start `code`, goes: a PLT
    /// entry's GOT slot or a veneer's destination. None when `code` is
    /// not a stub.
    fn stub(&self, addr: u64, code: &[u8]) -> Option<Call>;

    /// The address of the first byte of the code at `addr` (Arm clears
    /// the Thumb bit).
    fn code_addr(&self, addr: u64) -> u64 {
        addr
    }
}

/// The instruction set of `file`, when its calls can be decoded.
fn isa(file: &object::File<'_>) -> Option<Box<dyn Isa>> {
    if !file.is_little_endian() {
        return None;
    }
    Some(match file.architecture() {
        Architecture::X86_64 => Box::new(x86_64::X86_64),
        Architecture::Arm => Box::new(arm::Arm),
        Architecture::Aarch64 => Box::new(aarch64::Aarch64),
        Architecture::Riscv64 => Box::new(riscv::Riscv { rv32: false }),
        Architecture::Riscv32 => Box::new(riscv::Riscv { rv32: true }),
        _ => return None,
    })
}

/// Finds the functions of one object that call the entry hook.
pub(super) struct HookCalls<'d> {
    isa: Box<dyn Isa>,
    /// Executable sections: address and bytes, sorted by address.
    code: Vec<(u64, &'d [u8])>,
    /// Where the hook's definitions start (Thumb bit cleared).
    defs: HashSet<u64>,
    /// GOT slots holding the hook's address.
    slots: HashSet<u64>,
    /// Whether a call to an address reaches the hook, once decoded.
    reached: HashMap<u64, bool>,
}

impl<'d> HookCalls<'d> {
    /// The decoder for `file`; None for an instruction set (or byte order)
    /// it cannot decode.
    pub(super) fn of(file: &object::File<'d>) -> Option<HookCalls<'d>> {
        let isa = isa(file)?;
        let mut code: Vec<(u64, &'d [u8])> = file
            .sections()
            .filter(|s| s.kind() == SectionKind::Text)
            .filter_map(|s| Some((s.address(), s.data().ok()?)))
            .collect();
        code.sort_by_key(|&(a, _)| a);
        let defs = file
            .symbols()
            .chain(file.dynamic_symbols())
            .filter(|s| s.name() == Ok(ENTER_HOOK) && s.is_definition() && s.address() != 0)
            .map(|s| isa.code_addr(s.address()))
            .collect();
        Some(HookCalls {
            isa,
            code,
            defs,
            slots: hook_slots(file),
            reached: HashMap::new(),
        })
    }

    /// Whether the function at `addr` (its symbol's value) of `size`
    /// bytes calls the hook.
    pub(super) fn called_by(&mut self, addr: u64, size: u64) -> bool {
        let Some(code) = self.bytes(self.isa.code_addr(addr), size) else {
            return false;
        };
        let mut calls = Vec::new();
        self.isa.calls(addr, code, &mut |c| calls.push(c));
        calls.into_iter().any(|c| self.reaches(c, 0))
    }

    /// Whether `call` reaches the hook, through at most `STUB_DEPTH` stubs.
    fn reaches(&mut self, call: Call, depth: u32) -> bool {
        let to = match call {
            Call::Through(slot) => return self.slots.contains(&slot),
            Call::To(to) => to,
        };
        if self.defs.contains(&self.isa.code_addr(to)) {
            return true;
        }
        if let Some(&known) = self.reached.get(&to) {
            return known;
        }
        let next = match depth < STUB_DEPTH {
            true => self
                .rest(self.isa.code_addr(to))
                .and_then(|c| self.isa.stub(to, c)),
            false => None,
        };
        let reached = next.is_some_and(|n| self.reaches(n, depth + 1));
        self.reached.insert(to, reached);
        reached
    }

    /// The `size` bytes of code at `addr`.
    fn bytes(&self, addr: u64, size: u64) -> Option<&'d [u8]> {
        let rest = self.rest(addr)?;
        rest.get(..usize::try_from(size).ok()?)
    }

    /// The bytes of code from `addr` to the end of its section.
    fn rest(&self, addr: u64) -> Option<&'d [u8]> {
        let i = self.code.partition_point(|&(a, _)| a <= addr);
        let &(start, data) = self.code.get(i.checked_sub(1)?)?;
        data.get(usize::try_from(addr - start).ok()?..)
            .filter(|r| !r.is_empty())
    }
}

/// The GOT slots the dynamic relocations fill with the hook's address
/// (`JUMP_SLOT` for PLT entries, `GLOB_DAT` for `-fno-plt` loads).
fn hook_slots(file: &object::File<'_>) -> HashSet<u64> {
    let mut slots = HashSet::new();
    let (Some(relocs), Some(dynsyms)) = (file.dynamic_relocations(), file.dynamic_symbol_table())
    else {
        return slots;
    };
    for (offset, r) in relocs {
        let RelocationTarget::Symbol(i) = r.target() else {
            continue;
        };
        if dynsyms
            .symbol_by_index(i)
            .is_ok_and(|s| s.name() == Ok(ENTER_HOOK))
        {
            slots.insert(offset);
        }
    }
    slots
}

/// The little-endian 16-bit word at `at` of `code`.
fn half(code: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(code.get(at..at + 2)?.try_into().ok()?))
}

/// The little-endian 32-bit word at `at` of `code`.
fn word(code: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(code.get(at..at + 4)?.try_into().ok()?))
}

/// The little-endian 64-bit word at `at` of `code`.
fn dword(code: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(code.get(at..at + 8)?.try_into().ok()?))
}

/// `value`'s low `bits` bits, sign-extended.
fn sext(value: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((value << shift) as i64) >> shift
}

/// `base + offset`, wrapping as the processor's address arithmetic does.
fn add(base: u64, offset: i64) -> u64 {
    base.wrapping_add_signed(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_extension_of_a_field() {
        assert_eq!(sext(0x3ff_ffff, 26), -1);
        assert_eq!(sext(0x1ff_ffff, 26), 0x1ff_ffff);
        assert_eq!(sext(0x800, 12), -2048);
    }

    /// A stub chain: a call to a veneer that jumps to a PLT entry that
    /// reads the hook's slot reaches the hook; the same chain to another
    /// slot does not; a stub that loops on itself ends.
    #[test]
    fn calls_reach_the_hook_through_stubs_and_loops_end() {
        struct Fake;
        impl Isa for Fake {
            fn calls(&self, _: u64, _: &[u8], _: &mut dyn FnMut(Call)) {}
            fn stub(&self, addr: u64, _: &[u8]) -> Option<Call> {
                match addr {
                    0x100 => Some(Call::To(0x200)),
                    0x200 => Some(Call::Through(0x9000)),
                    0x300 => Some(Call::Through(0x9008)),
                    0x400 => Some(Call::To(0x400)),
                    _ => None,
                }
            }
        }
        let bytes = [0u8; 0x1000];
        let mut h = HookCalls {
            isa: Box::new(Fake),
            code: vec![(0, &bytes[..])],
            defs: HashSet::from([0x800]),
            slots: HashSet::from([0x9000]),
            reached: HashMap::new(),
        };
        assert!(h.reaches(Call::To(0x100), 0));
        assert!(h.reaches(Call::To(0x800), 0));
        assert!(!h.reaches(Call::To(0x300), 0));
        assert!(!h.reaches(Call::To(0x400), 0));
        assert!(!h.reaches(Call::To(0x5000), 0), "outside the code");
    }
}
