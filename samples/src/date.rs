//! Calendar dates as day numbers (proleptic Gregorian, 1970-01-01 = 0) for deadline arithmetic
//! in the regulatory tasks: days between dates, weekdays, trading days (Monday–Friday; the
//! sample's rules say so explicitly, public holidays are not modelled).

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date(pub i64);

impl Date {
    /// From year, month (1–12) and day (1–31).
    pub fn ymd(y: i32, m: u32, d: u32) -> Date {
        // Howard Hinnant's days_from_civil.
        let y = i64::from(y) - i64::from(m <= 2);
        let era = if y >= 0 { y } else { y - 399 } / 400;
        let yoe = y - era * 400;
        let m = i64::from(m);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        Date(era * 146_097 + doe - 719_468)
    }

    /// (year, month, day).
    pub fn parts(self) -> (i32, u32, u32) {
        let z = self.0 + 719_468;
        let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let y = yoe + era * 400;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        ((y + i64::from(m <= 2)) as i32, m, d)
    }

    /// `self + n` days.
    pub fn plus(self, n: i64) -> Date {
        Date(self.0 + n)
    }

    /// Days from `self` to `other` (positive when `other` is later).
    pub fn days_until(self, other: Date) -> i64 {
        other.0 - self.0
    }

    /// 0 = Monday … 6 = Sunday.
    pub fn weekday(self) -> i64 {
        (self.0 + 3).rem_euclid(7)
    }

    /// Monday to Friday.
    pub fn is_trading_day(self) -> bool {
        self.weekday() < 5
    }

    /// Trading days strictly after `self` up to and including `other`.
    pub fn trading_days_until(self, other: Date) -> i64 {
        (self.0 + 1..=other.0).filter(|&d| Date(d).is_trading_day()).count() as i64
    }

    /// `2024-03-05`.
    pub fn iso(self) -> String {
        let (y, m, d) = self.parts();
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// `2024年3月5日`.
    pub fn zh(self) -> String {
        let (y, m, d) = self.parts();
        format!("{y}年{m}月{d}日")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(Date::ymd(1970, 1, 1), Date(0));
        assert_eq!(Date::ymd(2000, 3, 1).0, 11_017);
        assert_eq!(Date::ymd(2024, 2, 29).parts(), (2024, 2, 29));
        assert_eq!(Date::ymd(2024, 2, 28).plus(2).iso(), "2024-03-01");
        // 2024-06-03 was a Monday.
        assert_eq!(Date::ymd(2024, 6, 3).weekday(), 0);
        // Friday 2024-06-07 → Tuesday 2024-06-11: Monday and Tuesday are trading days.
        assert_eq!(Date::ymd(2024, 6, 7).trading_days_until(Date::ymd(2024, 6, 11)), 2);
        assert_eq!(Date::ymd(2024, 1, 31).zh(), "2024年1月31日");
    }
}
