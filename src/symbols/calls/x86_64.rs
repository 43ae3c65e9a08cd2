//! x86-64 calls: a direct `call rel32` (`e8`) and an indirect
//! `call *disp32(%rip)` (`ff 15`, `-fno-plt`) through a GOT slot, looked
//! for at every byte (instructions are not decoded; a stray match would
//! have to land exactly on the hook). Stubs: `jmp *disp32(%rip)`
//! (`ff 25`), after an optional `endbr64` and `bnd` prefix, as in `.plt`,
//! `.plt.sec` and `.plt.got`, and a `jmp rel32` (`e9`).

use super::{Call, Isa, add, word};

/// The x86-64 decoder.
pub(super) struct X86_64;

impl Isa for X86_64 {
    fn calls(&self, addr: u64, code: &[u8], found: &mut dyn FnMut(Call)) {
        for i in 0..code.len() {
            let at = addr + i as u64;
            match (code[i], code.get(i + 1)) {
                (0xe8, _) => {
                    if let Some(t) = relative(code, i + 1, at + 5) {
                        found(Call::To(t));
                    }
                }
                (0xff, Some(0x15)) => {
                    if let Some(s) = relative(code, i + 2, at + 6) {
                        found(Call::Through(s));
                    }
                }
                _ => {}
            }
        }
    }

    fn stub(&self, addr: u64, code: &[u8]) -> Option<Call> {
        let mut i = 0;
        if code.starts_with(&[0xf3, 0x0f, 0x1e, 0xfa]) {
            i += 4; // endbr64
        }
        if code.get(i) == Some(&0xf2) {
            i += 1; // bnd
        }
        let at = addr + i as u64;
        match (code.get(i)?, code.get(i + 1)?) {
            (0xff, 0x25) => relative(code, i + 2, at + 6).map(Call::Through),
            (0xe9, _) => relative(code, i + 1, at + 5).map(Call::To),
            _ => None,
        }
    }
}

/// `next + disp32`, the disp32 at `at` of `code` (a RIP-relative operand).
fn relative(code: &[u8], at: usize, next: u64) -> Option<u64> {
    let d = word(code, at)? as i32;
    Some(add(next, i64::from(d)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(addr: u64, code: &[u8]) -> Vec<Call> {
        let mut v = Vec::new();
        X86_64.calls(addr, code, &mut |c| v.push(c));
        v
    }

    #[test]
    fn direct_and_got_calls() {
        // 1000: call 0x1100 ; 1005: call *0x2000(%rip)
        let code = [
            0xe8, 0xfb, 0x00, 0x00, 0x00, 0xff, 0x15, 0xf5, 0x0f, 0x00, 0x00,
        ];
        assert_eq!(
            calls(0x1000, &code),
            [Call::To(0x1100), Call::Through(0x2000)]
        );
        // A backward call: 1000: call 0xff0.
        assert_eq!(
            calls(0x1000, &[0xe8, 0xeb, 0xff, 0xff, 0xff]),
            [Call::To(0xff0)]
        );
    }

    #[test]
    fn plt_entries_with_and_without_ibt() {
        // .plt: jmp *0x2fe2(%rip) at 0x1020 -> slot 0x4008.
        let plt = [0xff, 0x25, 0xe2, 0x2f, 0x00, 0x00, 0x68, 0, 0, 0, 0];
        assert_eq!(X86_64.stub(0x1020, &plt), Some(Call::Through(0x4008)));
        // .plt.sec: endbr64; bnd jmp *0x2fdd(%rip) at 0x1060 -> slot 0x4048.
        let sec = [
            0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xdd, 0x2f, 0x00, 0x00,
        ];
        assert_eq!(X86_64.stub(0x1060, &sec), Some(Call::Through(0x4048)));
        assert_eq!(
            X86_64.stub(0x1000, &[0xe9, 0xfb, 0, 0, 0]),
            Some(Call::To(0x1100))
        );
        assert_eq!(X86_64.stub(0x1000, &[0x55, 0x48, 0x89, 0xe5]), None);
    }
}
