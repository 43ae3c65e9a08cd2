//! [`TimeRange`], the value of `--time-range`: `START..END` with units
//! (`10ms..250ms`, `..1s`, `500us..`), relative to the trace's first event.
//! A bare number is refused: `10` could be any unit.

use std::fmt;
use std::str::FromStr;

/// Start times to keep, in nanoseconds from the trace's first event:
/// `[start, end)`; a missing end is the trace's end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeRange {
    /// First kept start time. Default is 0.
    pub start: u64,
    /// Start times from here on are dropped. Default is none (no end).
    pub end: Option<u64>,
}

impl TimeRange {
    /// The range in trace time, for a trace whose first event is at `origin`.
    pub fn window(self, origin: u64) -> Window {
        let end = self.end.map_or(u64::MAX, |e| origin.saturating_add(e));
        Window {
            start: origin.saturating_add(self.start),
            end,
        }
    }
}

/// A time range in trace time, as the filters apply it: calls starting in
/// `[start, end)` are kept, and a kept call's exit after `end` counts at
/// `end`. The filtered read ([`super::SliceSink`]) and the calling-context
/// builder through a window (`calltree::ContextsBuilder::set_window`)
/// both take it from here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First kept start time.
    pub start: u64,
    /// Start times from here on are dropped.
    pub end: u64,
}

impl Window {
    /// The window that keeps every call.
    pub const ALL: Window = Window {
        start: 0,
        end: u64::MAX,
    };

    /// Whether a call starting at `time` is kept.
    #[inline(always)]
    pub fn keeps(self, time: u64) -> bool {
        self.start <= time && time < self.end
    }

    /// An exit at `time` of a kept call: at the window's end if later.
    #[inline(always)]
    pub fn clamp(self, time: u64) -> u64 {
        time.min(self.end)
    }
}

impl FromStr for TimeRange {
    type Err = String;

    fn from_str(s: &str) -> Result<TimeRange, String> {
        let Some((start, end)) = s.split_once("..") else {
            return Err(format!(
                "expected START..END with units, such as 10ms..250ms (either end may be left out), found `{s}`"
            ));
        };
        if start.trim().is_empty() && end.trim().is_empty() {
            return Err("give a start, an end or both, such as 10ms..250ms".to_string());
        }
        let start = match start.trim() {
            "" => 0,
            t => duration(t)?,
        };
        let end = match end.trim() {
            "" => None,
            t => Some(duration(t)?),
        };
        if let Some(e) = end.filter(|&e| e <= start) {
            return Err(format!(
                "the start ({}) must come before the end ({})",
                Nanos(start),
                Nanos(e)
            ));
        }
        Ok(TimeRange { start, end })
    }
}

/// `12ms`, `1.5s`, `300ns` in nanoseconds.
fn duration(text: &str) -> Result<u64, String> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    if number.is_empty() {
        return Err(format!("expected a time such as 10ms, found `{text}`"));
    }
    let per = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" => {
            return Err(format!(
                "`{text}` has no unit: add one, e.g. {text}ms (units: ns, us, ms, s)"
            ));
        }
        u => {
            return Err(format!(
                "unknown unit `{u}` in `{text}`: use ns, us, ms or s"
            ));
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("expected a time such as 10ms, found `{text}`"))?;
    let ns = (value * per).round();
    if !ns.is_finite() || ns >= u64::MAX as f64 {
        return Err(format!("`{text}` is too long a time"));
    }
    Ok(ns as u64)
}

/// Nanoseconds shown in the largest unit that keeps them whole.
struct Nanos(u64);

impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        for (per, unit) in [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")] {
            if n >= per && n.is_multiple_of(per) {
                return write!(f, "{}{unit}", n / per);
            }
        }
        write!(f, "{n}ns")
    }
}

impl fmt::Display for TimeRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.start > 0 {
            write!(f, "{}", Nanos(self.start))?;
        }
        f.write_str("..")?;
        match self.end {
            Some(e) => write!(f, "{}", Nanos(e)),
            None => Ok(()),
        }
    }
}

/// A length of time for messages (`1.234ms`).
pub fn show(ns: u64) -> String {
    match ns {
        0..1_000 => format!("{ns}ns"),
        1_000..1_000_000 => format!("{:.3}us", ns as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.3}ms", ns as f64 / 1e6),
        _ => format!("{:.3}s", ns as f64 / 1e9),
    }
}
