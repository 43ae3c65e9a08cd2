//! How numbers are printed, in every output and message: weights as text
//! (exact fixed-point, durations with their unit), percentages (shares
//! that never round to 0% or 100%, thresholds), thousands separators and
//! counts with their noun (`1 pattern`, `2 patterns`). The tree says what
//! its weights count ([`Unit`]); the unit a time is shown in is picked here
//! ([`TimeUnit`], `--time-unit`). A leaf: it imports only the unit of
//! weights ([`crate::ingest::Unit`]), so every stage may print numbers
//! (`emit` re-exports it as `emit::format`).

use crate::ingest::Unit;

/// Decimal places of `compare`'s thresholds and of its CSV tables' floats
/// ([`fixed`]).
pub(crate) const DECIMALS: i32 = 6;

/// The unit times are shown in (`--time-unit`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TimeUnit {
    /// Whatever suits each number: `850 ns`, `12.3 us`, `4.56 ms`. Default.
    #[default]
    Auto,
    /// Nanoseconds, exact.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
}

impl TimeUnit {
    /// The fixed unit's symbol and size in nanoseconds; None for auto.
    fn fixed(self) -> Option<(&'static str, u64)> {
        match self {
            TimeUnit::Auto => None,
            TimeUnit::Ns => Some(("ns", 1)),
            TimeUnit::Us => Some(("us", 1_000)),
            TimeUnit::Ms => Some(("ms", 1_000_000)),
            TimeUnit::S => Some(("s", 1_000_000_000)),
        }
    }
}

/// A weight of a tree with `unit` for people: a time with its unit
/// (in `shown`), a call count, or the plain number when the unit is unknown.
pub fn quantity(v: u64, unit: Unit, decimals: u8, shown: TimeUnit) -> String {
    match unit {
        Unit::Nanos => match shown.fixed() {
            None => duration(v),
            Some((sym, 1)) => format!("{v} {sym}"),
            Some((sym, scale)) => {
                let int = format!(
                    "{}.{:0w$}",
                    v / scale,
                    v % scale,
                    w = scale.ilog10() as usize
                );
                let int = int.trim_end_matches('0').trim_end_matches('.');
                format!("{int} {sym}")
            }
        },
        Unit::Calls if v == 1 => "1 call".to_string(),
        Unit::Calls => format!("{v} calls"),
        Unit::Number => weight(v, decimals),
        Unit::Cycles if v == 1 => "1 cycle".to_string(),
        Unit::Cycles => format!("{v} cycles"),
    }
}

/// A fixed-point weight with `decimals` places, trailing zeros trimmed.
pub fn weight(v: u64, decimals: u8) -> String {
    if decimals == 0 {
        return v.to_string();
    }
    let scale = 10u64.pow(decimals as u32);
    let frac = format!("{:0width$}", v % scale, width = decimals as usize);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        (v / scale).to_string()
    } else {
        format!("{}.{frac}", v / scale)
    }
}

/// A duration in nanoseconds for people: `850 ns`, `12.3 us`, `4.56 ms`,
/// `1.23 s`: three significant digits. The duration is rounded to them
/// before the unit and the decimals are chosen, so that 9,996 ns shows as
/// `10.0 us` (not `10.00 us`) and 999,999 ns as `1.00 ms` (not `1000 us`):
/// the text then reads back as the value it shows.
pub fn duration(ns: u64) -> String {
    let ns = three_digits(ns);
    let (v, unit) = match ns {
        0..1_000 => return format!("{ns} ns"),
        1_000..1_000_000 => (ns as f64 / 1e3, "us"),
        1_000_000..1_000_000_000 => (ns as f64 / 1e6, "ms"),
        _ => (ns as f64 / 1e9, "s"),
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

/// `ns` rounded to three significant digits (half up); below 1,000 ns and
/// from 1,000 s on (shown as whole seconds) as is.
fn three_digits(ns: u64) -> u64 {
    if !(1_000..1_000_000_000_000).contains(&ns) {
        return ns;
    }
    let step = 10u64.pow(ns.ilog10() - 2);
    (ns / step + u64::from(ns % step >= step.div_ceil(2))).saturating_mul(step)
}

/// A timed weight for people, in the unit that suits it.
pub fn time(v: u64, unit: Unit, decimals: u8) -> String {
    quantity(v, unit, decimals, TimeUnit::Auto)
}

/// `1 function`, `2 functions`: `n` and its noun, `one` or `many` (every
/// count a user reads takes the plural only when it is not 1).
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A share as a percentage that never rounds a non-zero share to 0 or a
/// share below one to 100: `decimals` places, more when needed.
pub fn percent(x: f64, decimals: usize) -> String {
    if x <= 0.0 || x >= 1.0 {
        return format!("{}%", if x <= 0.0 { 0 } else { 100 });
    }
    let mut d = decimals;
    loop {
        let s = format!("{:.*}", d, 100.0 * x);
        let v: f64 = s.parse().unwrap_or(0.0);
        if (v > 0.0 && v < 100.0) || d >= 9 {
            return format!("{s}%");
        }
        d += 1;
    }
}

/// A percentage (already scaled to 0-100) with exactly `decimals` places,
/// as the call graph's labels show shares: `12.50%`. Unlike [`percent`] a
/// tiny share may show as `0.00%`, which keeps the labels one width.
pub(crate) fn percentage(p: f64, decimals: usize) -> String {
    format!("{p:.decimals$}%")
}

/// `44455` → `44,455`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A threshold (a fraction) as a percentage without the sign: 0.9 is
/// `90`, 0.125 is `12.5`; at most two decimals, trailing zeros trimmed.
pub(crate) fn fmt_percent(t: f64) -> String {
    let s = format!("{:.2}", t * 100.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A float for compare's CSV tables: exactly [`DECIMALS`] decimals, the
/// thresholds' precision (`-0` printed as `0`).
pub fn fixed(x: f64) -> String {
    let s = format!("{:.*}", DECIMALS as usize, x);
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_are_honest() {
        assert_eq!(percent(0.0, 2), "0%");
        assert_eq!(percent(0.00001, 2), "0.001%");
        assert_eq!(percent(0.9999999, 1), "99.99999%");
        assert_eq!(percent(0.915, 1), "91.5%");
        assert_eq!(percent(1.0, 1), "100%");
        assert_eq!(thousands(44455), "44,455");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn graph_percentages_have_fixed_places() {
        assert_eq!(percentage(12.5, 2), "12.50%");
        assert_eq!(percentage(0.001, 2), "0.00%");
        assert_eq!(percentage(100.0, 2), "100.00%");
    }

    #[test]
    fn thresholds_show_as_plain_percentages() {
        assert_eq!(fmt_percent(0.9), "90");
        assert_eq!(fmt_percent(0.125), "12.5");
        assert_eq!(fmt_percent(0.001), "0.1");
        assert_eq!(fmt_percent(1.0), "100");
    }

    #[test]
    fn weights_are_exact() {
        assert_eq!(weight(1500, 0), "1500");
        assert_eq!(weight(150, 2), "1.5");
        assert_eq!(weight(1000, 2), "10");
        assert_eq!(weight(5, 3), "0.005");
    }

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(duration(850), "850 ns");
        assert_eq!(duration(12_345), "12.3 us");
        assert_eq!(duration(4_560_000), "4.56 ms");
        assert_eq!(duration(123_400_000_000), "123 s");
    }

    #[test]
    fn durations_round_before_choosing_unit_and_decimals() {
        assert_eq!(duration(9_994), "9.99 us");
        assert_eq!(duration(9_995), "10.0 us");
        assert_eq!(duration(9_999), "10.0 us");
        assert_eq!(duration(99_960), "100 us");
        assert_eq!(duration(999_999), "1.00 ms");
        assert_eq!(duration(999_499), "999 us");
        assert_eq!(duration(1_000), "1.00 us");
        assert_eq!(duration(999_600_000_000), "1000 s");
        assert_eq!(duration(u64::MAX), "18446744074 s");
        // What is shown reads back as the value shown: rounding it again
        // changes nothing.
        for ns in [9_995u64, 10_049, 99_950, 999_500, 1_234_567, 999_999_999] {
            assert_eq!(three_digits(three_digits(ns)), three_digits(ns), "{ns}");
        }
    }

    #[test]
    fn quantities_carry_their_unit() {
        assert_eq!(
            quantity(1_234_500, Unit::Nanos, 0, TimeUnit::Ms),
            "1.2345 ms"
        );
        assert_eq!(quantity(2_000_000, Unit::Nanos, 0, TimeUnit::Ms), "2 ms");
        assert_eq!(
            quantity(1_234_500, Unit::Nanos, 0, TimeUnit::Ns),
            "1234500 ns"
        );
        assert_eq!(
            quantity(1_234_500, Unit::Nanos, 0, TimeUnit::Auto),
            "1.23 ms"
        );
        assert_eq!(quantity(7, Unit::Calls, 0, TimeUnit::Ms), "7 calls");
        assert_eq!(quantity(1, Unit::Calls, 0, TimeUnit::Ms), "1 call");
        assert_eq!(quantity(150, Unit::Number, 2, TimeUnit::Auto), "1.5");
        assert_eq!(quantity(1500, Unit::Cycles, 0, TimeUnit::Ms), "1500 cycles");
        assert_eq!(quantity(1, Unit::Cycles, 0, TimeUnit::Auto), "1 cycle");
    }

    #[test]
    fn floats_have_six_decimals_and_no_negative_zero() {
        assert_eq!(fixed(0.9), "0.900000");
        assert_eq!(fixed(1.0 - 1.0), "0.000000");
        assert_eq!(fixed(-0.0), "0.000000");
        assert_eq!(fixed(-1e-9), "0.000000");
        assert_eq!(fixed(2.0 / 3.0), "0.666667");
    }
}
