//! The threshold sweep of `calltrace compare --sweep START:END:STEP`: the
//! thresholds at which method 1 (alone and after merging) is run to draw
//! node count against threshold, like the paper's fig. 13. Points come from
//! integer step indices (START + i x STEP, rounded to [`DECIMALS`] places),
//! so `0:1:0.05` gives exactly 21 points ending at 1.0 and every run prints
//! the same numbers.

use std::fmt;

use crate::abstraction::{Share, ShareError};

/// Decimal places thresholds are rounded to (and printed with).
pub(crate) use crate::format::DECIMALS;

/// Most points a sweep may have: each is a row per pattern and swept method.
pub(crate) const MAX_POINTS: usize = 10_001;

/// An inclusive range of thresholds in [0, 1] walked in equal steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sweep {
    /// First threshold. Default is 0.
    pub start: f64,
    /// Last threshold (reached when END - START is a multiple of STEP). Default is 1.
    pub end: f64,
    /// Distance between points, > 0. Default is 0.05.
    pub step: f64,
}

impl Default for Sweep {
    fn default() -> Self {
        Sweep {
            start: 0.0,
            end: 1.0,
            step: 0.05,
        }
    }
}

impl fmt::Display for Sweep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.start, self.end, self.step)
    }
}

/// Why a text is not a [`Sweep`]; the command line adds the flag's name.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SweepError {
    /// Not three parts separated by `:`.
    #[error("expected START:END:STEP (e.g. 0:1:0.05), found `{0}`")]
    Shape(String),
    /// A part is not a share.
    #[error("{part}: {error}")]
    Part {
        /// `START`, `END` or `STEP`.
        part: &'static str,
        /// What is wrong with it.
        error: ShareError,
    },
    /// START above END.
    #[error("START {start} is above END {end}")]
    Reversed {
        /// START.
        start: f64,
        /// END.
        end: f64,
    },
    /// STEP below the rounding of the points.
    #[error("STEP must be at least 0.000001, found {0}")]
    TinyStep(f64),
    /// More than [`MAX_POINTS`] points.
    #[error("{0} points is too many (at most {MAX_POINTS}); use a larger STEP")]
    TooMany(usize),
}

impl Sweep {
    /// Parses `START:END:STEP`; each part is a share: a number from 0 to 1
    /// or a percentage (`5%`).
    pub fn parse(s: &str) -> Result<Sweep, SweepError> {
        let parts: Vec<&str> = s.split(':').collect();
        let [start, end, step] = parts[..] else {
            return Err(SweepError::Shape(s.to_string()));
        };
        let sweep = Sweep {
            start: share("START", start)?,
            end: share("END", end)?,
            step: share("STEP", step)?,
        };
        sweep.validate()?;
        Ok(sweep)
    }

    fn validate(&self) -> Result<(), SweepError> {
        if self.start > self.end {
            return Err(SweepError::Reversed {
                start: self.start,
                end: self.end,
            });
        }
        if self.step < 10f64.powi(-DECIMALS) {
            return Err(SweepError::TinyStep(self.step));
        }
        if self.count() > MAX_POINTS {
            return Err(SweepError::TooMany(self.count()));
        }
        Ok(())
    }

    /// Number of points.
    pub fn count(&self) -> usize {
        // The small slack absorbs binary rounding: (1 - 0) / 0.05 is 19.999...
        ((self.end - self.start) / self.step + 1e-9).floor() as usize + 1
    }

    /// The thresholds, ascending, each rounded to [`DECIMALS`] places.
    pub fn points(&self) -> Vec<f64> {
        (0..self.count())
            .map(|i| round(self.start + i as f64 * self.step).min(self.end))
            .collect()
    }
}

/// `x` rounded to [`DECIMALS`] places.
pub(crate) fn round(x: f64) -> f64 {
    let scale = 10f64.powi(DECIMALS);
    (x * scale).round() / scale
}

fn share(part: &'static str, s: &str) -> Result<f64, SweepError> {
    s.parse::<Share>()
        .map(Share::get)
        .map_err(|error| SweepError::Part { part, error })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sweep_has_21_points_ending_at_one() {
        let p = Sweep::default().points();
        assert_eq!(p.len(), 21);
        assert_eq!((p[0], p[1], p[20]), (0.0, 0.05, 1.0));
        assert_eq!(p[7], 0.35);
        assert!(p.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn parses_numbers_and_percentages() {
        let s = Sweep::parse("10%:0.9:10%").unwrap();
        assert_eq!(s.points(), [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
        assert_eq!(Sweep::parse("0.5:0.5:0.1").unwrap().points(), [0.5]);
        // END is not a multiple of STEP away: the last point stays below it.
        assert_eq!(
            Sweep::parse("0:1:0.3").unwrap().points(),
            [0.0, 0.3, 0.6, 0.9]
        );
    }

    #[test]
    fn bad_sweeps_say_what_is_wrong() {
        for (arg, expect) in [
            ("0:1", "expected START:END:STEP"),
            ("0:1:0.1:2", "expected START:END:STEP"),
            ("a:1:0.1", "START: \"a\" is not a share"),
            (
                "0:1.5:0.1",
                "END: \"1.5\" is not a share: did you mean 1.5%?",
            ),
            ("0:1:-0.1", "STEP: \"-0.1\" is not a share"),
            ("0:1:0", "STEP must be at least"),
            ("0.8:0.2:0.1", "START 0.8 is above END 0.2"),
            ("0:1:0.00001", "too many"),
        ] {
            let err = Sweep::parse(arg).unwrap_err().to_string();
            assert!(err.contains(expect), "{arg}: {err}");
        }
    }
}
