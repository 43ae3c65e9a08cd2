//! Times and durations of a rules file's events: text in a radix (2 to 36;
//! radix 10 also takes decimals such as uftrace's `1.234`) and a unit,
//! converted exactly to nanoseconds.

/// Nanoseconds in one `unit`.
pub(super) fn unit_factor(unit: &str) -> Result<u64, String> {
    match unit.trim() {
        "ns" | "nsec" | "nsecs" => Ok(1),
        "us" | "µs" | "usec" | "usecs" => Ok(1_000),
        "ms" | "msec" | "msecs" => Ok(1_000_000),
        "s" | "sec" | "secs" => Ok(1_000_000_000),
        other => Err(format!(
            "unknown time unit `{other}`; expected ns, us, ms or s"
        )),
    }
}

/// `text` (in `radix`, in `unit`) as nanoseconds.
pub(super) fn to_ns(text: &str, unit: &str, radix: u32) -> Result<u64, String> {
    let factor = unit_factor(unit)?;
    let t = text.trim();
    let bad = || format!("`{t}` is not a number in radix {radix}");
    let (int, frac) = match t.split_once('.') {
        Some((i, f)) if radix == 10 => (i, f),
        _ => (t, ""),
    };
    let digits_ok = |s: &str| s.chars().all(|c| c.is_digit(radix));
    if (int.is_empty() && frac.is_empty()) || !digits_ok(int) || !digits_ok(frac) {
        return Err(bad());
    }
    let whole = if int.is_empty() {
        0
    } else {
        u128::from_str_radix(int, radix).map_err(|_| bad())?
    };
    let frac_ns = fraction(frac, factor).ok_or_else(bad)?;
    u64::try_from(whole * factor as u128 + frac_ns).map_err(|_| format!("`{t}` is too large"))
}

/// The decimal fraction `.frac` of `factor` nanoseconds, rounded down.
fn fraction(frac: &str, factor: u64) -> Option<u128> {
    let frac = &frac[..frac.len().min(30)];
    if frac.is_empty() {
        return Some(0);
    }
    let num: u128 = frac.parse().ok()?;
    Some(num * factor as u128 / 10u128.pow(frac.len() as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_units_radixes_and_decimals() {
        assert_eq!(to_ns("11005954", "us", 10), Ok(11_005_954_000));
        assert_eq!(to_ns("1.234", "us", 10), Ok(1_234));
        assert_eq!(to_ns("1234.567890", "s", 10), Ok(1_234_567_890_000));
        assert_eq!(to_ns("ff", "ns", 16), Ok(255));
        assert_eq!(to_ns(" z ", "ms", 36), Ok(35_000_000));
        assert_eq!(to_ns(".5", "ms", 10), Ok(500_000));
    }

    #[test]
    fn rejects_what_is_not_a_number() {
        assert!(to_ns("12a", "ns", 10).unwrap_err().contains("radix 10"));
        assert!(to_ns("1.5", "ns", 16).is_err());
        assert!(to_ns("", "ns", 10).is_err());
        assert!(to_ns("1", "hours", 10).unwrap_err().contains("hours"));
        assert!(
            to_ns("99999999999999999999", "s", 10)
                .unwrap_err()
                .contains("too large")
        );
    }
}
