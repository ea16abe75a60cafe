//! Calendar days (UTC) as the console's items name them: `yyyy-mm-dd`, day numbers since
//! 1970-01-01 (H. Hinnant's civil-date algorithms), and the day of a unix time.

use crate::error::{Error, Result};
use crate::Reason;

/// The UTC day of `unix` seconds, `yyyy-mm-dd`.
pub fn day_of(unix: i64) -> String {
    day_name(unix.div_euclid(86_400))
}

/// Unix seconds as ISO 8601 UTC, `2026-11-27T02:17:12Z`.
pub fn iso(unix: i64) -> String {
    let secs = unix.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        crate::days::day_of(unix),
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month 1-12, day 1-31) of `days` since 1970-01-01.
pub fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The civil date of a day number since 1970-01-01, as `yyyy-mm-dd`.
pub fn day_name(days: i64) -> String {
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `yyyy-mm-dd` as a day number, else INVALID_PARAMETER on `field`.
pub fn parse_day(field: &'static str, s: &str) -> Result<i64> {
    let bad = || {
        Error::field(
            Reason::INVALID_PARAMETER,
            field,
            "日期格式应为 yyyy-mm-dd",
            "Use a date as yyyy-mm-dd",
        )
    };
    let parts: Vec<&str> = s.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return Err(bad());
    };
    let num = |p: &str, len: usize| {
        (p.len() == len && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<i64>().ok())
            .flatten()
    };
    let (Some(y), Some(m), Some(d)) = (num(y, 4), num(m, 2), num(d, 2)) else {
        return Err(bad());
    };
    let days = days_from_civil(y, m, d);
    // Round trip: rejects a 31st of February.
    if !(1..=12).contains(&m) || day_name(days) != s {
        return Err(bad());
    }
    Ok(days)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_utc_calendar_days_both_ways() {
        assert_eq!(day_of(0), "1970-01-01");
        assert_eq!(day_of(1_800_000_000), "2027-01-15");
        assert_eq!(day_of(951_782_400), "2000-02-29");
        assert_eq!(day_of(951_868_799), "2000-02-29");
        assert_eq!(day_of(951_868_800), "2000-03-01");
        assert_eq!(day_of(-1), "1969-12-31");
        assert_eq!(parse_day("day", "2000-02-29").ok(), Some(11_016));
        assert!(parse_day("day", "2001-02-29").is_err());
        assert!(parse_day("day", "2026-13").is_err());
    }
}
