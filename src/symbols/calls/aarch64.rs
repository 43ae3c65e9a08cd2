//! AArch64 calls: `bl imm26` in every word, and the load of a GOT slot
//! that `-fno-plt` code calls through (`adrp xN, page` followed within
//! four instructions by `ldr xM, [xN, #off]`). Stubs: the PLT entry
//! (`adrp x16; ldr x17, [x16, #off]; add x16; br x17`, after an optional
//! `bti c`) and linker veneers (`adrp x16; add x16, x16, #lo; br x16`,
//! `b imm26`, `ldr x16, =dest; br x16`).

use super::{Call, Isa, add, dword, sext, word};

/// The AArch64 decoder.
pub(super) struct Aarch64;

/// `bti c`, the landing pad a PLT entry may start with.
const BTI_C: u32 = 0xd503_245f;

/// Instructions after an `adrp` searched for the load that uses it.
const ADRP_REACH: usize = 4;

impl Isa for Aarch64 {
    fn calls(&self, addr: u64, code: &[u8], found: &mut dyn FnMut(Call)) {
        for i in (0..code.len().saturating_sub(3)).step_by(4) {
            let (at, Some(w)) = (addr + i as u64, word(code, i)) else {
                continue;
            };
            if w & 0xfc00_0000 == 0x9400_0000 {
                found(Call::To(branch(at, w)));
            } else if let Some((rd, page)) = adrp(at, w) {
                let loads = (1..=ADRP_REACH).filter_map(|k| word(code, i + 4 * k));
                if let Some(off) = loads.filter_map(|l| load(l, rd)).next() {
                    found(Call::Through(page + off));
                }
            }
        }
    }

    fn stub(&self, addr: u64, code: &[u8]) -> Option<Call> {
        let skip = usize::from(word(code, 0)? == BTI_C) * 4;
        let (at, first) = (addr + skip as u64, word(code, skip)?);
        if first & 0xfc00_0000 == 0x1400_0000 {
            return Some(Call::To(branch(at, first))); // b dest
        }
        if (first, word(code, skip + 4)?) == (0x5800_0050, 0xd61f_0200) {
            return dword(code, skip + 8).map(Call::To); // ldr x16, .+8; br x16
        }
        let (16, page) = adrp(at, first)? else {
            return None;
        };
        let second = word(code, skip + 4)?;
        if let Some(off) = load(second, 16) {
            return Some(Call::Through(page + off));
        }
        // add x16, x16, #lo12; br x16
        let br = word(code, skip + 8)?;
        (second & 0xffc0_03ff == 0x9100_0210 && br == 0xd61f_0200)
            .then(|| Call::To(page + u64::from((second >> 10) & 0xfff)))
    }
}

/// The target of the `b`/`bl` `w` at `at`.
fn branch(at: u64, w: u32) -> u64 {
    add(at, sext(u64::from(w & 0x03ff_ffff) << 2, 28))
}

/// The register and page an `adrp` `w` at `at` sets.
fn adrp(at: u64, w: u32) -> Option<(u32, u64)> {
    (w & 0x9f00_0000 == 0x9000_0000).then(|| {
        let imm = (u64::from((w >> 5) & 0x7_ffff) << 2) | u64::from((w >> 29) & 3);
        (w & 0x1f, add(at & !0xfff, sext(imm << 12, 33)))
    })
}

/// The offset a 64-bit (or ILP32's 32-bit) `ldr xT, [xN, #off]` `w`
/// loads from, when its base is register `n`.
fn load(w: u32, n: u32) -> Option<u64> {
    let scale = match w & 0xffc0_0000 {
        0xf940_0000 => 8,
        0xb940_0000 => 4,
        _ => return None,
    };
    ((w >> 5) & 0x1f == n).then(|| u64::from((w >> 10) & 0xfff) * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn calls(addr: u64, code: &[u8]) -> Vec<Call> {
        let mut v = Vec::new();
        Aarch64.calls(addr, code, &mut |c| v.push(c));
        v
    }

    /// Encodings from GNU as and ld at 0x400800 (`objdump -d`).
    #[test]
    fn bl_forward_backward_and_through_the_got() {
        // bl 0x800900; bl 0x7f0804; bl 0x400700 (back 0x100);
        // adrp x2, 0x41f000; ldr x2, [x2, #4072]; blr x2
        let code = words(&[
            0x9410_0040,
            0x940f_c000,
            0x97ff_ffbe,
            0xf000_00e2,
            0xf947_f442,
            0xd63f_0040,
        ]);
        assert_eq!(
            calls(0x40_0800, &code),
            [
                Call::To(0x80_0900),
                Call::To(0x7f_0804),
                Call::To(0x40_0700),
                Call::Through(0x41_ffe8)
            ]
        );
    }

    #[test]
    fn plt_entries_with_and_without_bti() {
        // 400814: adrp x16, 0x420000; ldr x17, [x16, #24]; add x16, x16, #0x18; br x17
        let plt = words(&[0x9000_0110, 0xf940_0e11, 0x9100_6210, 0xd61f_0220]);
        assert_eq!(
            Aarch64.stub(0x40_0814, &plt),
            Some(Call::Through(0x42_0018))
        );
        // 400824: bti c; adrp x16, 0x420000; ldr x17, [x16, #24]
        let bti = words(&[BTI_C, 0x9000_0110, 0xf940_0e11]);
        assert_eq!(
            Aarch64.stub(0x40_0824, &bti),
            Some(Call::Through(0x42_0018))
        );
        // A function's first instructions are no stub.
        let prologue = words(&[0xa9bd_7bfd, 0x9000_0002, 0xf940_0042]);
        assert_eq!(Aarch64.stub(0x40_0000, &prologue), None);
    }

    #[test]
    fn veneers() {
        // 400830: adrp x16, 0x500000; add x16, x16, #0x123; br x16
        let adrp_add = words(&[0x9000_0810, 0x9104_8e10, 0xd61f_0200]);
        assert_eq!(
            Aarch64.stub(0x40_0830, &adrp_add),
            Some(Call::To(0x50_0123))
        );
        // 40083c: b 0x80083c
        assert_eq!(
            Aarch64.stub(0x40_083c, &words(&[0x1410_0000])),
            Some(Call::To(0x80_083c))
        );
        // 400840: ldr x16, 400848; br x16; .quad 0x1234_5678_9abc
        let mut lit = words(&[0x5800_0050, 0xd61f_0200]);
        lit.extend(0x1234_5678_9abc_u64.to_le_bytes());
        assert_eq!(
            Aarch64.stub(0x40_0840, &lit),
            Some(Call::To(0x1234_5678_9abc))
        );
    }
}
