//! UTC days as the numbers name them: `yyyy-mm-dd`, the month `yyyy-mm`, the ISO week
//! `yyyy-Www` and the weekday 1 (Monday) to 7 (Sunday). Civil dates from days since 1970 by
//! Howard Hinnant's algorithms (proleptic Gregorian), so no date crate is needed.

const DAY_SECS: i64 = 86_400;

/// One UTC day, as days since 1970-01-01.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Day(pub i64);

use crate::days::{civil, days_from_civil};

impl Day {
    /// The UTC day of a unix time.
    pub fn of(unix: i64) -> Day {
        Day(unix.div_euclid(DAY_SECS))
    }

    /// `n` days earlier.
    pub fn minus(self, n: i64) -> Day {
        Day(self.0 - n)
    }

    /// `yyyy-mm-dd`.
    pub fn date(self) -> String {
        let (y, m, d) = civil(self.0);
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// `yyyy-mm`.
    pub fn month(self) -> String {
        let (y, m, _) = civil(self.0);
        format!("{y:04}-{m:02}")
    }

    /// The first day of this day's month.
    pub fn first_of_month(self) -> Day {
        let (y, m, _) = civil(self.0);
        Day(days_from_civil(y, m, 1))
    }

    /// 1 (Monday) to 7 (Sunday); 1970-01-01 was a Thursday.
    pub fn weekday(self) -> i64 {
        (self.0 + 3).rem_euclid(7) + 1
    }

    /// The ISO 8601 week, `yyyy-Www`: the week (Monday to Sunday) belongs to the year of its
    /// Thursday.
    pub fn iso_week(self) -> String {
        let thursday = self.0 - (self.weekday() - 1) + 3;
        let (y, _, _) = civil(thursday);
        let week = (thursday - days_from_civil(y, 1, 1)) / 7 + 1;
        format!("{y:04}-W{week:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i64, m: i64, d: i64) -> Day {
        Day(days_from_civil(y, m, d))
    }

    #[test]
    fn dates_round_trip_and_weekdays_are_iso() {
        assert_eq!(Day(0).date(), "1970-01-01");
        assert_eq!(Day(0).weekday(), 4);
        assert_eq!(Day::of(1_800_000_000).date(), "2027-01-15");
        assert_eq!(Day::of(1_800_000_000).weekday(), 5, "a Friday");
        for n in [-800_000, -1, 0, 59, 11_016, 20_000, 2_000_000] {
            let (y, m, d) = civil(n);
            assert_eq!(days_from_civil(y, m, d), n);
        }
        assert_eq!(day(2024, 2, 29).month(), "2024-02");
        assert_eq!(day(2024, 3, 17).first_of_month().date(), "2024-03-01");
        assert_eq!(day(2024, 3, 1).minus(1).date(), "2024-02-29");
    }

    #[test]
    fn iso_weeks_cross_years_as_the_standard_says() {
        for ((y, m, d), week) in [
            ((2026, 11, 26), "2026-W48"),
            ((2021, 1, 3), "2020-W53"),
            ((2021, 1, 4), "2021-W01"),
            ((2024, 12, 30), "2025-W01"),
            ((2026, 12, 31), "2026-W53"),
            ((2027, 1, 3), "2026-W53"),
            ((2027, 1, 4), "2027-W01"),
            ((2008, 12, 29), "2009-W01"),
        ] {
            assert_eq!(day(y, m, d).iso_week(), week, "{y}-{m}-{d}");
        }
    }
}
