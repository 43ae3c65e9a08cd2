//! What a trace's weights count. The format says it (E/X and binary
//! timestamps are nanoseconds; an untimed trace counts calls; indented text
//! may state a unit per number; a freestanding buffer whose clock rate is
//! unknown counts processor cycles) and it travels with the tree to the
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
    /// Clock cycles of a target whose clock rate is unknown (a
    /// freestanding buffer without `CALLTRACE_CLOCK_HZ` or `--clock-hz`):
    /// durations, but not in seconds.
    Cycles,
}

impl Unit {
    /// Short name as used in CSV columns (`total_ns`) and JSON: `ns`,
    /// `calls`, `cycles`, or `units` for numbers of unknown unit.
    pub fn suffix(self) -> &'static str {
        match self {
            Unit::Calls => "calls",
            Unit::Nanos => "ns",
            Unit::Number => "units",
            Unit::Cycles => "cycles",
        }
    }

    /// True for units of duration: nanoseconds, and cycles (a call's
    /// cycles are its duration, with per-call statistics, on a clock of
    /// unknown rate). Only [`Unit::Nanos`] converts to seconds.
    pub fn is_time(self) -> bool {
        matches!(self, Unit::Nanos | Unit::Cycles)
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
        assert_eq!(Unit::Cycles.suffix(), "cycles");
        assert!(Unit::Cycles.is_time() && Unit::Nanos.is_time());
        assert!(!Unit::Calls.is_time() && !Unit::Number.is_time());
        assert_eq!(nanos_per("µs"), Some(1e3));
        assert_eq!(nanos_per("min"), None);
    }
}
