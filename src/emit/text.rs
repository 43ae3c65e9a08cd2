//! Formatting shared by the writers: weights as text (exact fixed-point,
//! human durations) and DOT string escaping.

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

/// A duration in nanoseconds for people: `850ns`, `12.3us`, `4.56ms`, `1.23s`.
pub fn duration(ns: u64) -> String {
    let (v, unit) = match ns {
        0..1_000 => return format!("{ns}ns"),
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
    format!("{v:.digits$}{unit}")
}

/// A timed weight for people: a duration when it is nanoseconds, else the number.
pub fn time(v: u64, nanos: bool, decimals: u8) -> String {
    if nanos {
        duration(v)
    } else {
        weight(v, decimals)
    }
}

/// Escapes a string for a quoted DOT attribute (dot-writer escapes nothing).
pub fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            // Graphviz rejects NUL and chokes on other controls: show them.
            c if c.is_control() => {
                out.push_str(&escape_controls(&c.to_string()).replace('\\', "\\\\"))
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_exact() {
        assert_eq!(weight(1500, 0), "1500");
        assert_eq!(weight(150, 2), "1.5");
        assert_eq!(weight(1000, 2), "10");
        assert_eq!(weight(5, 3), "0.005");
    }

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(duration(850), "850ns");
        assert_eq!(duration(12_345), "12.3us");
        assert_eq!(duration(4_560_000), "4.56ms");
        assert_eq!(duration(123_400_000_000), "123s");
    }

    #[test]
    fn dot_strings_escape_quotes_and_backslashes() {
        assert_eq!(
            dot_escape("operator\"\"_x\\n\r\n"),
            "operator\\\"\\\"_x\\\\n\\n"
        );
        assert_eq!(dot_escape("a\0b\x1b"), "a\\\\x00b\\\\x1b");
        assert_eq!(
            dot_escape("ns::Box<int>::get() const"),
            "ns::Box<int>::get() const"
        );
    }
}
