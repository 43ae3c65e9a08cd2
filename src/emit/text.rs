//! Formatting shared by the writers: weights as text (exact fixed-point,
//! durations with their unit) and DOT string escaping. The tree says what
//! its weights count ([`Unit`]); the unit a time is shown in is picked here
//! ([`TimeUnit`], `--time-unit`).

use crate::ingest::Unit;

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
    }
}

use crate::error::escape_controls;

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

/// Escapes a string for a quoted DOT attribute, the one rule of the DOT
/// outputs (call graph and tree): `\` becomes `\\`, `"` becomes `\"`, and
/// every control character, newline and carriage return included, is
/// shown as `\xNN` (`\u{NN}` above ASCII), so a name can never add a line
/// to a label (Graphviz reads `\n`, `\l` and `\r` as line breaks). `<`,
/// `>` and `&` need nothing in a quoted label; invalid UTF-8 was already
/// replaced by U+FFFD when the trace was read.
pub fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            // Graphviz rejects NUL and chokes on other controls: show them.
            c if c.is_control() => {
                out.push_str(&escape_controls(&c.to_string()).replace('\\', "\\\\"))
            }
            c => out.push(c),
        }
    }
    out
}

/// `1 function`, `2 functions`: `n` and its noun, `one` or `many` (every
/// count a user reads takes the plural only when it is not 1).
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_labels_get_no_line_break_from_a_name() {
        assert_eq!(
            dot_escape("evil\nx\r\t\0\"q\"\\n<a>"),
            r#"evil\\x0ax\\x0d\\x09\\x00\"q\"\\n<a>"#
        );
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
    }

    #[test]
    fn dot_strings_escape_quotes_and_backslashes() {
        assert_eq!(
            dot_escape("operator\"\"_x\\n\r\n"),
            "operator\\\"\\\"_x\\\\n\\\\x0d\\\\x0a"
        );
        assert_eq!(dot_escape("a\0b\x1b"), "a\\\\x00b\\\\x1b");
        assert_eq!(
            dot_escape("ns::Box<int>::get() const"),
            "ns::Box<int>::get() const"
        );
    }
}
