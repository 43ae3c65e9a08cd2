//! What a trace's weights count. The format says it (E/X and binary
//! timestamps are nanoseconds; an untimed trace counts calls; indented text
//! may state a unit per number) and it travels with the tree to the
//! writers, which pick a display unit at the edge (`emit::format`).

/// The unit of a tree's weights.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Each call weighs 1: totals are numbers of calls. Default.
    #[default]
    Calls,
    /// Nanoseconds.
    Nanos,
    /// Numbers of unknown unit (indented text that states none).
    Number,
}

impl Unit {
    /// Short name as used in CSV columns (`total_ns`) and JSON: `ns`,
    /// `calls`, or `units` for numbers of unknown unit.
    pub fn suffix(self) -> &'static str {
        match self {
            Unit::Calls => "calls",
            Unit::Nanos => "ns",
            Unit::Number => "units",
        }
    }

    /// True for time units.
    pub fn is_time(self) -> bool {
        self == Unit::Nanos
    }
}

/// Nanoseconds in one of the time unit symbols indented text may carry
/// (`ns`, `us`, `µs`, `ms`, `s`).
pub fn nanos_per(symbol: &str) -> Option<f64> {
    match symbol {
        "ns" => Some(1.0),
        "us" | "µs" => Some(1e3),
        "ms" => Some(1e6),
        "s" => Some(1e9),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_and_scales() {
        assert_eq!(Unit::Nanos.suffix(), "ns");
        assert_eq!(Unit::default().suffix(), "calls");
        assert_eq!(nanos_per("µs"), Some(1e3));
        assert_eq!(nanos_per("min"), None);
    }
}
