//! The load bias: how far the traced process's code was shifted from the
//! addresses in the file (ASLR of a PIE). Given the runtime base of the
//! lowest loadable segment (`# base` header), bias = base - min_vaddr.
//! Without it, entry addresses are function starts and the bias is a whole
//! number of pages, so every symbol whose low 12 bits match a sampled
//! address proposes a bias; the one under which most sampled addresses land
//! on function starts wins. Addresses outside the executable under a bias
//! (shared libraries of a trace without mappings) do not count against it:
//! at least one address must land on a function start, and at least 90% of
//! those inside the executable must.

use super::elf::Elf;

/// Where the bias came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BiasSource {
    /// The trace's header gave the load base.
    #[default]
    Header,
    /// Inferred from the addresses.
    Inferred,
    /// The binary is stripped: nothing to check against; bias 0 assumed
    /// (or the header's).
    Assumed,
}

/// Most addresses checked per candidate bias.
const SAMPLES: usize = 64;
/// Addresses whose symbol matches propose candidates.
const PROPOSERS: usize = 4;

/// Finds the bias for sorted distinct runtime `addrs`; None when nothing fits.
pub(super) fn find(elf: &Elf, addrs: &[u64], base: Option<u64>) -> Option<(u64, BiasSource)> {
    if elf.stripped || elf.func_starts.is_empty() || addrs.is_empty() {
        let bias = base.map_or(0, |b| b.wrapping_sub(elf.min_vaddr));
        return Some((
            bias,
            if base.is_some() {
                BiasSource::Header
            } else {
                BiasSource::Assumed
            },
        ));
    }
    let sample = spread(addrs, SAMPLES);
    if let Some(b) = base {
        let bias = b.wrapping_sub(elf.min_vaddr);
        return fits(elf, &sample, bias).then_some((bias, BiasSource::Header));
    }
    let mut best: Option<(usize, u64)> = None;
    for bias in candidates(elf, &sample) {
        let hits = hits(elf, &sample, bias);
        if best.is_none_or(|(h, b)| hits > h || (hits == h && bias < b)) {
            best = Some((hits, bias));
        }
    }
    let (_, bias) = best.filter(|&(_, bias)| fits(elf, &sample, bias))?;
    Some((bias, BiasSource::Inferred))
}

/// Up to `n` addresses spread evenly over `addrs`.
fn spread(addrs: &[u64], n: usize) -> Vec<u64> {
    let step = addrs.len().div_ceil(n).max(1);
    addrs.iter().step_by(step).copied().collect()
}

/// Bias 0 plus every page-aligned shift that puts a proposer on a function start.
fn candidates(elf: &Elf, sample: &[u64]) -> Vec<u64> {
    let mut out = vec![0];
    for &a in sample.iter().take(PROPOSERS) {
        // An even address of an Arm object is a Thumb start without its bit.
        let even = elf.thumb_twin(a).is_some();
        out.extend(
            elf.func_starts
                .iter()
                .map(|&s| if even { s & !1 } else { s })
                .filter(|&s| s <= a && (a - s) & 0xfff == 0)
                .map(|s| a - s),
        );
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn hits(elf: &Elf, sample: &[u64], bias: u64) -> usize {
    sample
        .iter()
        .filter(|&&a| elf.is_func_start(a.wrapping_sub(bias)))
        .count()
}

/// Some of the sample, and at least 90% of the part inside the
/// executable, lands on function starts.
fn fits(elf: &Elf, sample: &[u64], bias: u64) -> bool {
    let inside = sample
        .iter()
        .filter(|&&a| elf.contains(a.wrapping_sub(bias)))
        .count();
    let hits = hits(elf, sample, bias);
    hits > 0 && hits * 10 >= inside * 9
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elf() -> Elf {
        Elf {
            min_vaddr: 0,
            max_vaddr: 0x3000,
            func_starts: vec![0x1120, 0x1139, 0x1160, 0x11a0, 0x2000],
            segments: vec![super::super::elf::Segment {
                vaddr: 0,
                offset: 0,
                filesz: 0x3000,
                memsz: 0x3000,
            }],
            ..Elf::default()
        }
    }

    #[test]
    fn infers_a_pie_shift_from_function_starts() {
        let bias = 0x5555_5555_4000;
        let addrs: Vec<u64> = [0x1139, 0x1160, 0x11a0].iter().map(|a| a + bias).collect();
        assert_eq!(
            find(&elf(), &addrs, None),
            Some((bias, BiasSource::Inferred))
        );
    }

    #[test]
    fn non_pie_addresses_need_no_shift() {
        assert_eq!(
            find(&elf(), &[0x1139, 0x2000], None),
            Some((0, BiasSource::Inferred))
        );
    }

    #[test]
    fn header_base_is_checked() {
        let e = Elf {
            min_vaddr: 0,
            ..elf()
        };
        assert_eq!(
            find(&e, &[0x7000_1139], Some(0x7000_0000)),
            Some((0x7000_0000, BiasSource::Header))
        );
        assert_eq!(find(&e, &[0x7000_1139], Some(0x7100_0000)), None);
    }

    #[test]
    fn library_addresses_do_not_count_against_the_executable() {
        let bias = 0x5555_5555_4000;
        let mut addrs: Vec<u64> = [0x1139, 0x1160].iter().map(|a| a + bias).collect();
        addrs.extend([0x7f00_0000_1234, 0x7f00_0000_5678, 0x7f00_0000_9abc]);
        assert_eq!(
            find(&elf(), &addrs, None),
            Some((bias, BiasSource::Inferred))
        );
        assert_eq!(
            find(&elf(), &addrs, Some(bias)),
            Some((bias, BiasSource::Header))
        );
    }

    #[test]
    fn foreign_addresses_do_not_fit() {
        assert_eq!(
            find(&elf(), &[0x5555_0000_1234, 0x5555_0000_1777], None),
            None
        );
    }

    #[test]
    fn even_addresses_of_thumb_functions_fit_their_odd_starts() {
        let thumb = Elf {
            thumb: true,
            ..elf()
        };
        // 0x1139 is a Thumb function's symbol; the trace holds 0x1138.
        let shifted: Vec<u64> = [0x1138, 0x1160].iter().map(|a| a + 0x4000).collect();
        assert_eq!(
            find(&thumb, &shifted, None),
            Some((0x4000, BiasSource::Inferred))
        );
        assert_eq!(
            find(&thumb, &[0x1138, 0x2000], None),
            Some((0, BiasSource::Inferred))
        );
        assert_eq!(find(&elf(), &[0x1138, 0x1148], None), None);
    }
}
