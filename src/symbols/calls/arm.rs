//! 32-bit Arm calls. A function whose symbol is odd is Thumb code (the
//! symbol's bit 0, as in a function pointer); it is searched at every
//! halfword for Thumb-2 `bl` (T1, to Thumb) and `blx` (T2, to A32), so a
//! literal pool in the middle cannot put the search out of step. A32 code
//! is searched word by word for `bl` (to A32) and `blx imm` (to Thumb).
//! Targets keep the Arm convention: odd for Thumb code.
//!
//! Stubs: GNU ld's A32 PLT entry (`add ip, pc, #..`, more `add ip, ip,
//! #..`, `ldr pc, [ip, #..]!`), its Thumb entry point (`bx pc; nop` before
//! it), the Thumb-2 PLT entry of Thumb-only cores (`movw ip; movt ip;
//! add ip, pc; ldr.w pc, [ip]`), and long-branch veneers (`ldr pc, [pc,
//! #-4]` or `ldr.w pc, [pc]` followed by the destination).

use super::{Call, Isa, add, half, sext, word};

/// The 32-bit Arm decoder (A32 and Thumb-2).
pub(super) struct Arm;

impl Isa for Arm {
    fn calls(&self, addr: u64, code: &[u8], found: &mut dyn FnMut(Call)) {
        let start = addr & !1;
        match addr & 1 == 1 {
            true => thumb_calls(start, code, found),
            false => a32_calls(start, code, found),
        }
    }

    fn stub(&self, addr: u64, code: &[u8]) -> Option<Call> {
        match addr & 1 == 1 {
            true => thumb_stub(addr & !1, code),
            false => a32_stub(addr, code),
        }
    }

    fn code_addr(&self, addr: u64) -> u64 {
        addr & !1
    }
}

/// Thumb-2 `bl`/`blx` at every halfword of `code` (at `addr`).
fn thumb_calls(addr: u64, code: &[u8], found: &mut dyn FnMut(Call)) {
    for i in (0..code.len().saturating_sub(3)).step_by(2) {
        if let (Some(hw1), Some(hw2)) = (half(code, i), half(code, i + 2))
            && let Some(t) = thumb_bl(addr + i as u64, hw1, hw2)
        {
            found(Call::To(t));
        }
    }
}

/// The target of the Thumb-2 `bl` (odd: Thumb) or `blx` (even: A32)
/// made of `hw1`, `hw2` at `at`.
fn thumb_bl(at: u64, hw1: u16, hw2: u16) -> Option<u64> {
    if hw1 & 0xf800 != 0xf000 || hw2 & 0xc000 != 0xc000 {
        return None;
    }
    let (hw1, hw2) = (u64::from(hw1), u64::from(hw2));
    let s = (hw1 >> 10) & 1;
    let i1 = !((hw2 >> 13) ^ s) & 1;
    let i2 = !((hw2 >> 11) ^ s) & 1;
    let imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3ff) << 12) | ((hw2 & 0x7ff) << 1);
    let offset = sext(imm, 25);
    match hw2 & 0x1000 != 0 {
        true => Some(add(at + 4, offset) | 1),
        // blx: H (bit 0) must be 0; the base is the word-aligned PC.
        false if hw2 & 1 == 0 => Some(add((at + 4) & !3, offset)),
        false => None,
    }
}

/// A32 `bl` and `blx imm` in each word of `code` (at `addr`).
fn a32_calls(addr: u64, code: &[u8], found: &mut dyn FnMut(Call)) {
    for i in (0..code.len().saturating_sub(3)).step_by(4) {
        if let Some(t) = word(code, i).and_then(|w| a32_bl(addr + i as u64, w)) {
            found(Call::To(t));
        }
    }
}

/// The target of the A32 `bl` (even) or `blx imm` (odd: Thumb) `w` at `at`.
fn a32_bl(at: u64, w: u32) -> Option<u64> {
    let imm = sext(u64::from(w & 0x00ff_ffff) << 2, 26);
    if w & 0xfe00_0000 == 0xfa00_0000 {
        let h = u64::from((w >> 24) & 1) << 1;
        return Some((add(at + 8, imm) + h) | 1);
    }
    (w & 0x0f00_0000 == 0x0b00_0000 && w >> 28 != 0xf).then(|| add(at + 8, imm))
}

/// The A32 stub at `addr`: a PLT entry (its GOT slot) or a veneer.
fn a32_stub(addr: u64, code: &[u8]) -> Option<Call> {
    let first = word(code, 0)?;
    if first == 0xe51f_f004 {
        // ldr pc, [pc, #-4]; .word destination
        return word(code, 4).map(|d| Call::To(u64::from(d)));
    }
    // add ip, pc, #imm
    if first & 0x0fff_f000 != 0x028f_c000 {
        return None;
    }
    let mut ip = (addr + 8).wrapping_add(rotated(first));
    for k in 1..4 {
        let w = word(code, 4 * k)?;
        match w & 0x0fff_f000 {
            0x028c_c000 => ip = ip.wrapping_add(rotated(w)), // add ip, ip, #imm
            // ldr pc, [ip, #imm]! (or without writeback), up or down
            0x05bc_f000 | 0x059c_f000 => return Some(slot(ip.wrapping_add(u64::from(w & 0xfff)))),
            0x053c_f000 | 0x051c_f000 => return Some(slot(ip.wrapping_sub(u64::from(w & 0xfff)))),
            _ => return None,
        }
    }
    None
}

/// A GOT slot at `addr`, in the 32-bit address space.
fn slot(addr: u64) -> Call {
    Call::Through(addr & 0xffff_ffff)
}

/// An A32 modified immediate: 8 bits rotated right by twice the top 4.
fn rotated(w: u32) -> u64 {
    u64::from((w & 0xff).rotate_right(((w >> 8) & 0xf) * 2))
}

/// The Thumb stub at `addr` (even).
fn thumb_stub(addr: u64, code: &[u8]) -> Option<Call> {
    let (hw1, hw2) = (half(code, 0)?, half(code, 2)?);
    if (hw1, hw2) == (0x4778, 0x46c0) {
        // bx pc; nop: the A32 stub follows.
        return a32_stub(addr + 4, code.get(4..)?);
    }
    if (hw1, hw2) == (0xf8df, 0xf000) {
        // ldr.w pc, [pc, #0]; .word destination
        return word(code, 4).map(|d| Call::To(u64::from(d)));
    }
    // movw ip, #lo; movt ip, #hi; add ip, pc; ldr.w pc, [ip]
    let lo = movw_ip(word_t(code, 0)?, 0xf240)?;
    let hi = movw_ip(word_t(code, 4)?, 0xf2c0)?;
    let tail = (half(code, 8)?, half(code, 10)?, half(code, 12)?);
    // ip = the movw/movt value + the `add`'s PC (its address + 4)
    (tail == (0x44fc, 0xf8dc, 0xf000))
        .then(|| slot((addr + 8 + 4).wrapping_add(u64::from(lo | (hi << 16)))))
}

/// The two halfwords of a 32-bit Thumb instruction at `at`, first in
/// the high half.
fn word_t(code: &[u8], at: usize) -> Option<u32> {
    Some((u32::from(half(code, at)?) << 16) | u32::from(half(code, at + 2)?))
}

/// The 16-bit immediate of a Thumb-2 `movw ip` (`op` 0xf240) or
/// `movt ip` (`op` 0xf2c0).
fn movw_ip(w: u32, op: u32) -> Option<u32> {
    let (hw1, hw2) = (w >> 16, w & 0xffff);
    (hw1 & 0xfbf0 == op && hw2 & 0x8f00 == 0x0c00).then_some(
        ((hw1 & 0xf) << 12) | (((hw1 >> 10) & 1) << 11) | (((hw2 >> 12) & 7) << 8) | (hw2 & 0xff),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(addr: u64, code: &[u8]) -> Vec<Call> {
        let mut v = Vec::new();
        Arm.calls(addr, code, &mut |c| v.push(c));
        v
    }

    fn halves(hws: &[u16]) -> Vec<u8> {
        hws.iter().flat_map(|h| h.to_le_bytes()).collect()
    }

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Encodings from GNU as and ld (`objdump -d`), at the addresses
    /// they were linked at: Thumb `bl` forward, backward and far, and
    /// `blx` to A32.
    #[test]
    fn thumb_bl_and_blx() {
        let code = halves(&[
            0xf008, 0xfcfc, 0xf7ff, 0xff6a, 0xf7ef, 0xef9e, 0xf07f, 0xfd66,
        ]);
        assert_eq!(
            calls(0x10525, &code),
            [
                Call::To(0x18f21),
                Call::To(0x10401),
                Call::To(0x46c),
                Call::To(0x9_0001)
            ]
        );
        // After a 16-bit instruction (mov r8, r0), from an armhf program.
        let code = halves(&[0x4680, 0xf7ff, 0xef36]);
        assert_eq!(calls(0x5fd, &code), [Call::To(0x46c)]);
        assert_eq!(calls(0x5fd, &halves(&[0x4680, 0x4770])), []);
    }

    #[test]
    fn a32_bl_and_blx() {
        // 10544: bl 0x8100; blx 0x7ff0 (to Thumb); bleq 0x8000; mov r0, r0
        let code = words(&[0xebff_deed, 0xfaff_dea8, 0x0bff_deab, 0xe1a0_0000]);
        assert_eq!(
            calls(0x10544, &code),
            [Call::To(0x8100), Call::To(0x7ff1), Call::To(0x8000)]
        );
    }

    /// GNU ld's A32 PLT entry, from an armhf executable, and its Thumb
    /// entry point.
    #[test]
    fn plt_entries() {
        // 46c: add ip, pc, #0, 12; add ip, ip, #4096; ldr pc, [ip, #2980]!
        let plt = words(&[0xe28f_c600, 0xe28c_ca01, 0xe5bc_fba4]);
        assert_eq!(Arm.stub(0x46c, &plt), Some(Call::Through(0x2018)));
        let mut thumb = halves(&[0x4778, 0x46c0]);
        thumb.extend(words(&[0xe28f_c600, 0xe28c_ca01, 0xe5bc_fba4]));
        assert_eq!(Arm.stub(0x469, &thumb), Some(Call::Through(0x2018)));
        // Long PLT at 10550: three adds, then the load.
        let long = words(&[0xe28f_c401, 0xe28c_c601, 0xe28c_ca01, 0xe5bc_f010]);
        assert_eq!(
            Arm.stub(0x10550, &long),
            Some(Call::Through(
                0x10558 + 0x100_0000 + 0x10_0000 + 0x1000 + 16
            ))
        );
        assert_eq!(Arm.stub(0x1000, &words(&[0xe92d_4800, 0, 0])), None);
    }

    #[test]
    fn thumb2_plt_entries_and_veneers() {
        // 10534: movw ip, #0x1234; movt ip, #1; add ip, pc; ldr.w pc, [ip]
        let plt = halves(&[0xf241, 0x2c34, 0xf2c0, 0x0c01, 0x44fc, 0xf8dc, 0xf000]);
        assert_eq!(
            Arm.stub(0x10535, &plt),
            Some(Call::Through(0x10540 + 0x1_1234))
        );
        let mut veneer = halves(&[0xf8df, 0xf000]);
        veneer.extend(words(&[0x0009_0001]));
        assert_eq!(Arm.stub(0x301, &veneer), Some(Call::To(0x9_0001)));
        let a32 = words(&[0xe51f_f004, 0x0009_0000]);
        assert_eq!(Arm.stub(0x300, &a32), Some(Call::To(0x9_0000)));
    }
}
