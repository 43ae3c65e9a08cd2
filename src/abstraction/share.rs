//! [`Share`]: a part of a whole, from 0 to 1, the one type of every
//! share-valued setting (`--threshold`, `--min-total`, `--min-edge`, ...).
//! It reads `5%` and `0.05` alike and prints as a percentage, so a flag
//! means the same in every command. A bare number above 1 is refused
//! rather than read as a percentage: `5` could mean 5% or 500%, and the
//! error says which spelling was probably meant.

use std::fmt;
use std::str::FromStr;

/// A share of a whole: a finite number from 0 to 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Share(f64);

impl Share {
    /// All of it.
    pub const ALL: Share = Share(1.0);
    /// None of it.
    pub const NONE: Share = Share(0.0);

    /// `v` as a share, if it is from 0 to 1.
    pub fn new(v: f64) -> Option<Share> {
        (0.0..=1.0).contains(&v).then_some(Share(v))
    }

    /// A share known at compile time (defaults); `v` must be from 0 to 1.
    pub const fn constant(v: f64) -> Share {
        assert!(v >= 0.0 && v <= 1.0, "a share is from 0 to 1");
        Share(v)
    }

    /// The share as a fraction from 0 to 1.
    pub fn get(self) -> f64 {
        self.0
    }

    /// The share as a percentage from 0 to 100, rounded to nine decimals
    /// so that `0.9%` gives back exactly 0.9.
    pub fn percent(self) -> f64 {
        (self.0 * 100.0 * 1e9).round() / 1e9
    }
}

/// Why a text is not a [`Share`]; the command line adds the flag's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShareError {
    /// Neither a number nor a percentage.
    #[error(
        "\"{0}\" is not a share: expected a fraction from 0 to 1 such as 0.05, or a percentage such as 5%"
    )]
    NotANumber(String),
    /// A bare number above 1, most likely a percentage without its `%`.
    #[error("\"{0}\" is not a share: did you mean {0}%?")]
    MissingPercent(String),
    /// Below 0, above 100% or not finite.
    #[error("\"{0}\" is not a share: expected 0 to 1, or 0% to 100%")]
    OutOfRange(String),
}

impl FromStr for Share {
    type Err = ShareError;

    /// `5%`, `0.05`, `1` and `100%` are shares; `5` is not.
    fn from_str(s: &str) -> Result<Share, ShareError> {
        let t = s.trim();
        let number = |x: &str| {
            x.trim()
                .parse::<f64>()
                .map_err(|_| ShareError::NotANumber(s.to_string()))
        };
        let v = match t.strip_suffix('%') {
            Some(p) => number(p)? / 100.0,
            None => {
                let v = number(t)?;
                if v.is_finite() && v > 1.0 && v <= 100.0 {
                    return Err(ShareError::MissingPercent(t.to_string()));
                }
                v
            }
        };
        Share::new(v).ok_or_else(|| ShareError::OutOfRange(s.to_string()))
    }
}

impl fmt::Display for Share {
    /// As a percentage with up to six decimals, trailing zeros dropped:
    /// `90%`, `0.1%`. Reading it back gives the same share.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = format!("{:.6}", self.percent());
        let s = s.trim_end_matches('0').trim_end_matches('.');
        write!(f, "{s}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(s: &str) -> Result<f64, ShareError> {
        s.parse::<Share>().map(Share::get)
    }

    #[test]
    fn percentages_and_fractions_are_the_same_share() {
        assert_eq!(share("5%"), share("0.05"));
        assert_eq!(share("5%").unwrap(), 0.05);
        assert_eq!(share("1").unwrap(), 1.0);
        assert_eq!(share("100%").unwrap(), 1.0);
        assert_eq!(share(" 0.1 % ").unwrap(), 0.001);
        assert_eq!(share("0").unwrap(), 0.0);
    }

    #[test]
    fn a_bare_number_above_one_asks_for_the_percent_sign() {
        let err = share("5").unwrap_err();
        assert_eq!(err, ShareError::MissingPercent("5".into()));
        assert_eq!(err.to_string(), "\"5\" is not a share: did you mean 5%?");
        assert!(matches!(share("100"), Err(ShareError::MissingPercent(_))));
    }

    #[test]
    fn nonsense_and_out_of_range_values_are_refused() {
        for bad in ["abc", "", "%", "5%%"] {
            assert!(
                matches!(share(bad), Err(ShareError::NotANumber(_))),
                "{bad}"
            );
        }
        for bad in ["-1", "-0.1%", "101%", "150", "NaN", "inf", "1e9"] {
            assert!(
                matches!(share(bad), Err(ShareError::OutOfRange(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn shares_print_as_percentages_that_read_back() {
        for (v, shown) in [
            (0.9, "90%"),
            (0.001, "0.1%"),
            (0.005, "0.5%"),
            (1.0, "100%"),
        ] {
            let s = Share::new(v).unwrap();
            assert_eq!(s.to_string(), shown);
            assert_eq!(shown.parse::<Share>().unwrap(), s);
        }
        assert_eq!(Share::NONE.to_string(), "0%");
    }
}
