//! The admin dashboard's metrics (DESIGN §7): usage of models ([`usage`]), what modules
//! blocked or changed ([`blocks`]), the prompts' state distribution ([`prompt_stats`]),
//! the providers' recent calls and failures ([`providers`]) and one session's
//! moderation record ([`audit`]).
//!
//! Aggregates are computed here in Rust from the rows of the requested window rather
//! than in SQL: SQLite has no percentile function, and one computation serves both
//! databases with the same numbers (docs/decisions.md, "Admin metrics").

pub mod audit;
pub mod blocks;
pub mod prompt_stats;
pub mod providers;
pub mod usage;

use sea_orm::prelude::DateTimeUtc;

/// A time window: `from` inclusive, `to` exclusive; `None` leaves that side open.
#[derive(Debug, Clone, Copy, Default)]
pub struct Window {
    pub from: Option<DateTimeUtc>,
    pub to: Option<DateTimeUtc>,
}

/// The 50th and 95th percentiles of a set of durations, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Percentiles {
    pub p50: i64,
    pub p95: i64,
}

impl Percentiles {
    /// The percentiles of `values` (nearest rank), or `None` when there are none.
    pub fn of(mut values: Vec<i64>) -> Option<Self> {
        values.sort_unstable();
        Some(Self {
            p50: nearest_rank(&values, 50)?,
            p95: nearest_rank(&values, 95)?,
        })
    }
}

/// The `p`-th percentile of sorted `values` by the nearest-rank method: the smallest
/// value with at least `p`% of the values at or below it (always one of the values).
pub fn nearest_rank(sorted: &[i64], p: u32) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len();
    let rank = (n * p as usize).div_ceil(100).clamp(1, n);
    Some(sorted[rank - 1])
}

/// `UTC` day of a time, as `YYYY-MM-DD` (the key of `group_by=day`).
pub fn day_of(at: DateTimeUtc) -> String {
    at.date_naive().format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<i64> = (1..=100).collect();
        assert_eq!(nearest_rank(&values, 50), Some(50));
        assert_eq!(nearest_rank(&values, 95), Some(95));
        assert_eq!(nearest_rank(&[7], 50), Some(7));
        assert_eq!(nearest_rank(&[7], 95), Some(7));
        // Two values: the median is the lower one, p95 the upper one.
        assert_eq!(nearest_rank(&[10, 20], 50), Some(10));
        assert_eq!(nearest_rank(&[10, 20], 95), Some(20));
        assert_eq!(nearest_rank(&[], 50), None);
    }

    #[test]
    fn percentiles_sort_their_values_first() {
        let got = Percentiles::of(vec![300, 100, 200, 400, 500]).unwrap();
        assert_eq!(got, Percentiles { p50: 300, p95: 500 });
        assert_eq!(Percentiles::of(Vec::new()), None);
    }

    #[test]
    fn days_are_utc_dates() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-23T23:30:00-02:00")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(day_of(at), "2026-11-24");
    }
}
