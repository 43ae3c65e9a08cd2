//! RISC-V calls, RV32 and RV64, with or without the compressed
//! instructions. The code is decoded in order (an instruction's length
//! is in its low bits and RISC-V keeps no data among instructions):
//! `jal ra` (or the alternate link register `t0`), the `call` pair
//! `auipc r, hi` + `jalr ra, lo(r)` (`-mno-relax`, or out of `jal`'s
//! reach), RV32's `c.jal`, and a GOT slot loaded by `auipc r, hi` +
//! `l[wd] _, lo(r)` (also compressed). Stubs: the PLT entry (`auipc t3;
//! l[wd] t3, lo(t3); jalr t1, t3`), `auipc r; jr lo(r)` and `j`.

use super::{Call, Isa, add, half, sext, word};

/// The RISC-V decoder.
pub(super) struct Riscv {
    /// RV32: `c.jal` exists (RV64 uses its encoding for `c.addiw`).
    pub(super) rv32: bool,
}

/// `ra` and `t0`, the registers a call links in.
fn links(rd: u32) -> bool {
    rd == 1 || rd == 5
}

/// One decoded instruction, as far as calls are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Insn {
    /// `jal rd, target`.
    Jal { rd: u32, target: u64 },
    /// `auipc rd, hi` (`value` = its address + hi).
    Auipc { rd: u32, value: u64 },
    /// `jalr rd, imm(rs1)`.
    Jalr { rd: u32, rs1: u32, imm: i64 },
    /// A load `l[wd] _, imm(rs1)`, also compressed.
    Load { rs1: u32, imm: i64 },
    /// Anything else.
    Other,
}

impl Riscv {
    /// The instruction at `at` of `code` (at `addr`) and its length.
    fn decode(&self, addr: u64, code: &[u8], at: usize) -> Option<(Insn, usize)> {
        let hw = half(code, at)?;
        if hw & 3 != 3 {
            return Some((self.compressed(addr + at as u64, hw), 2));
        }
        Some((full(addr + at as u64, word(code, at)?), 4))
    }

    /// A compressed instruction `hw` at `pc`.
    fn compressed(&self, pc: u64, hw: u16) -> Insn {
        let h = u64::from(hw);
        let rs1 = u32::from((hw >> 7) & 7) + 8;
        match hw & 0xe003 {
            0x2001 if self.rv32 => {
                // c.jal: imm[11|4|9:8|10|6|7|3:1|5] in bits 12..2
                let bit = |from: u32, to: u32| ((h >> from) & 1) << to;
                let imm = bit(12, 11)
                    | bit(11, 4)
                    | bit(10, 9)
                    | bit(9, 8)
                    | bit(8, 10)
                    | bit(7, 6)
                    | bit(6, 7)
                    | (((h >> 3) & 7) << 1)
                    | bit(2, 5);
                Insn::Jal {
                    rd: 1,
                    target: add(pc, sext(imm, 12)),
                }
            }
            // c.lw: uimm[5:3] in 12..10, [2] in 6, [6] in 5
            0x4000 => Insn::Load {
                rs1,
                imm: (((h >> 10) & 7) << 3 | ((h >> 6) & 1) << 2 | ((h >> 5) & 1) << 6) as i64,
            },
            // c.ld (RV64): uimm[5:3] in 12..10, [7:6] in 6..5
            0x6000 if !self.rv32 => Insn::Load {
                rs1,
                imm: (((h >> 10) & 7) << 3 | ((h >> 5) & 3) << 6) as i64,
            },
            _ => Insn::Other,
        }
    }
}

/// A 32-bit instruction `w` at `pc`.
fn full(pc: u64, w: u32) -> Insn {
    let (rd, rs1) = ((w >> 7) & 0x1f, (w >> 15) & 0x1f);
    let imm_i = sext(u64::from(w >> 20), 12);
    match (w & 0x7f, (w >> 12) & 7) {
        (0x6f, _) => {
            let w = u64::from(w);
            let imm = ((w >> 31) & 1) << 20
                | ((w >> 21) & 0x3ff) << 1
                | ((w >> 20) & 1) << 11
                | ((w >> 12) & 0xff) << 12;
            Insn::Jal {
                rd,
                target: add(pc, sext(imm, 21)),
            }
        }
        (0x17, _) => Insn::Auipc {
            rd,
            value: add(pc, sext(u64::from(w & 0xffff_f000), 32)),
        },
        (0x67, 0) => Insn::Jalr {
            rd,
            rs1,
            imm: imm_i,
        },
        (0x03, 2 | 3) => Insn::Load { rs1, imm: imm_i },
        _ => Insn::Other,
    }
}

impl Isa for Riscv {
    fn calls(&self, addr: u64, code: &[u8], found: &mut dyn FnMut(Call)) {
        let mut at = 0;
        let mut prev = Insn::Other;
        while let Some((insn, len)) = self.decode(addr, code, at) {
            match (prev, insn) {
                (_, Insn::Jal { rd, target }) if links(rd) => found(Call::To(target)),
                (Insn::Auipc { rd, value }, Insn::Jalr { rd: link, rs1, imm })
                    if rs1 == rd && links(link) =>
                {
                    found(Call::To(add(value, imm)));
                }
                (Insn::Auipc { rd, value }, Insn::Load { rs1, imm }) if rs1 == rd => {
                    found(Call::Through(add(value, imm)));
                }
                _ => {}
            }
            prev = insn;
            at += len;
        }
    }

    fn stub(&self, addr: u64, code: &[u8]) -> Option<Call> {
        let (first, len) = self.decode(addr, code, 0)?;
        let (second, _) = self.decode(addr, code, len)?;
        match (first, second) {
            (Insn::Jal { rd: 0, target }, _) => Some(Call::To(target)),
            (Insn::Auipc { rd, value }, Insn::Load { rs1, imm }) if rs1 == rd => {
                Some(Call::Through(add(value, imm)))
            }
            (Insn::Auipc { rd, value }, Insn::Jalr { rd: 0, rs1, imm }) if rs1 == rd => {
                Some(Call::To(add(value, imm)))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RV64: Riscv = Riscv { rv32: false };
    const RV32: Riscv = Riscv { rv32: true };

    /// Little-endian bytes of instructions given as (bits, length).
    fn code(insns: &[(u32, usize)]) -> Vec<u8> {
        insns
            .iter()
            .flat_map(|&(w, n)| w.to_le_bytes()[..n].to_vec())
            .collect()
    }

    fn calls(isa: &Riscv, addr: u64, code: &[u8]) -> Vec<Call> {
        let mut v = Vec::new();
        isa.calls(addr, code, &mut |c| v.push(c));
        v
    }

    /// Encodings from GNU as and ld at 0x10000 (`objdump -d`).
    #[test]
    fn jal_call_pairs_and_got_loads() {
        let text = code(&[
            (0x1000_00ef, 4), // jal 0x10100
            (0xefdf_f0ef, 4), // jal 0xff00
            (0x0000_1097, 4), // auipc ra, 0x1
            (0xff00_80e7, 4), // jalr -16(ra) -> 0x10ff8
            (0x0000_2317, 4), // auipc t1, 0x2
            (0x0203_00e7, 4), // jalr ra, 32(t1) -> 0x12030
            (0x1141, 2),      // addi sp, sp, -16
            (0x0000_3517, 4), // auipc a0, 0x3   (at 0x1001a)
            (0x6508, 2),      // ld a0, 8(a0)   -> slot 0x13022
            (0x9502, 2),      // jalr a0
        ]);
        assert_eq!(
            calls(&RV64, 0x10000, &text),
            [
                Call::To(0x10100),
                Call::To(0xff00),
                Call::To(0x10ff8),
                Call::To(0x12030),
                Call::Through(0x1_3022)
            ]
        );
    }

    #[test]
    fn a_jump_without_a_link_is_no_call() {
        // j 0x10100; auipc t1, 0x5; jr 8(t1)
        let text = code(&[(0x1000_006f, 4), (0x0000_5317, 4), (0x0083_0067, 4)]);
        assert_eq!(calls(&RV64, 0x10000, &text), []);
    }

    /// `c.jal` is RV32's; on RV64 the same bits are `c.addiw`.
    #[test]
    fn compressed_jal_on_rv32_only() {
        // 10000: nop; 10002: jal 0x10108; 10004: jal 0x10000; 10006: jalr a5
        let text = code(&[(0x0001, 2), (0x2219, 2), (0x3ff5, 2), (0x9782, 2)]);
        assert_eq!(
            calls(&RV32, 0x10000, &text),
            [Call::To(0x10108), Call::To(0x10000)]
        );
        assert_eq!(calls(&RV64, 0x10000, &text), []);
    }

    #[test]
    fn plt_entries_and_veneers() {
        // 10022: auipc t3, 0x2; ld t3, 24(t3); jalr t1, t3; nop
        let plt = code(&[
            (0x0000_2e17, 4),
            (0x018e_3e03, 4),
            (0x000e_0367, 4),
            (0x0001, 2),
        ]);
        assert_eq!(RV64.stub(0x10022, &plt), Some(Call::Through(0x1203a)));
        // RV32's: lw t3, 24(t3)
        let plt32 = code(&[(0x0000_2e17, 4), (0x018e_2e03, 4), (0x000e_0367, 4)]);
        assert_eq!(RV32.stub(0x10030, &plt32), Some(Call::Through(0x12048)));
        // auipc t1, 0x5; jr 8(t1)
        let tail = code(&[(0x0000_5317, 4), (0x0083_0067, 4)]);
        assert_eq!(RV64.stub(0x10038, &tail), Some(Call::To(0x15040)));
        // A function's start is no stub: addi sp, sp, -32; sd s1, 8(sp)
        assert_eq!(RV64.stub(0x10000, &code(&[(0x1101, 2), (0xe426, 2)])), None);
    }
}
