//! The admin dashboard's metrics (DESIGN §7): usage of models ([`usage`]), what modules
//! blocked or changed ([`blocks`]), the prompts' state distribution ([`prompt_stats`]),
//! the providers' recent calls and failures ([`providers`]) and one session's
//! moderation record ([`audit`]).
//!
//! Usage and block figures are summed by the database over daily rollups kept by a
//! worker pass ([`rollup`]) plus the rows the rollups do not cover ([`Split`]);
//! percentiles are read from histograms, the same way on both databases (SQLite has no
//! percentile function). docs/decisions.md, "Admin metrics at scale".

pub mod audit;
pub mod blocks;
pub mod calls;
pub mod prompt_stats;
pub mod providers;
pub mod rollup;
pub mod sql;
pub mod usage;

use chrono::{Duration, NaiveTime};
use sea_orm::prelude::DateTimeUtc;

use sql::Sql;

/// A time window: `from` inclusive, `to` exclusive; `None` leaves that side open.
#[derive(Debug, Clone, Copy, Default)]
pub struct Window {
    pub from: Option<DateTimeUtc>,
    pub to: Option<DateTimeUtc>,
}

/// A span of `created_at` (`from` inclusive, `to` exclusive; `None`: open).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Range {
    pub from: Option<DateTimeUtc>,
    pub to: Option<DateTimeUtc>,
}

impl Range {
    /// Appends ` AND col >= from AND col < to` for the sides that are bounded.
    pub(crate) fn filter(&self, sql: &mut Sql, col: &str) {
        if let Some(from) = self.from {
            let p = sql.bind(from);
            sql.push(&format!(" AND {col} >= {p}"));
        }
        if let Some(to) = self.to {
            let p = sql.bind(to);
            sql.push(&format!(" AND {col} < {p}"));
        }
    }
}

/// How a window is read: the whole UTC days inside it from a rollup (`days`: first day
/// inclusive, last exclusive, `YYYY-MM-DD`; `None`: no whole day), and from the rows
/// themselves the partial days at its edges (`edges`) and, within the whole days, the
/// rows the pass has not rolled up yet (`unrolled`). The parts do not overlap, so each
/// row counts once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    pub days: Option<(Option<String>, Option<String>)>,
    pub edges: Vec<Range>,
    pub unrolled: Option<Range>,
}

impl Split {
    pub(crate) fn of(window: Window) -> Self {
        let midnight = |at: DateTimeUtc| at.date_naive().and_time(NaiveTime::MIN).and_utc();
        let lo = window.from.map(|from| {
            let day = midnight(from);
            if day == from {
                day
            } else {
                day + Duration::days(1)
            }
        });
        let hi = window.to.map(midnight);
        if let (Some(lo), Some(hi)) = (lo, hi)
            && lo >= hi
        {
            return Self {
                days: None,
                edges: vec![Range {
                    from: window.from,
                    to: window.to,
                }],
                unrolled: None,
            };
        }
        let mut edges = Vec::new();
        if let (Some(from), Some(lo)) = (window.from, lo)
            && from < lo
        {
            edges.push(Range {
                from: Some(from),
                to: Some(lo),
            });
        }
        if let (Some(to), Some(hi)) = (window.to, hi)
            && hi < to
        {
            edges.push(Range {
                from: Some(hi),
                to: Some(to),
            });
        }
        Self {
            days: Some((lo.map(day_of), hi.map(day_of))),
            edges,
            unrolled: Some(Range { from: lo, to: hi }),
        }
    }

    /// The parts read from rows: each range, and whether only the rows not rolled up.
    pub(crate) fn raw_ranges(&self) -> Vec<(Range, bool)> {
        self.edges
            .iter()
            .map(|r| (*r, false))
            .chain(self.unrolled.map(|r| (r, true)))
            .collect()
    }
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

    fn at(rfc3339: &str) -> DateTimeUtc {
        chrono::DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .with_timezone(&chrono::Utc)
    }

    #[test]
    fn a_window_splits_into_whole_days_and_edges() {
        let w = Window {
            from: Some(at("2026-11-01T06:00:00Z")),
            to: Some(at("2026-11-04T12:00:00Z")),
        };
        let split = Split::of(w);
        assert_eq!(
            split.days,
            Some((Some("2026-11-02".into()), Some("2026-11-04".into())))
        );
        assert_eq!(
            split.edges,
            [
                Range {
                    from: w.from,
                    to: Some(at("2026-11-02T00:00:00Z"))
                },
                Range {
                    from: Some(at("2026-11-04T00:00:00Z")),
                    to: w.to
                },
            ]
        );
        assert_eq!(
            split.unrolled,
            Some(Range {
                from: Some(at("2026-11-02T00:00:00Z")),
                to: Some(at("2026-11-04T00:00:00Z"))
            })
        );
        // Aligned bounds have no edges; an open end reads the unrolled rows to the end.
        let aligned = Split::of(Window {
            from: Some(at("2026-11-01T00:00:00Z")),
            to: None,
        });
        assert!(aligned.edges.is_empty());
        assert_eq!(aligned.days, Some((Some("2026-11-01".into()), None)));
        // Within one day: rows only.
        let inside = Split::of(Window {
            from: Some(at("2026-11-01T06:00:00Z")),
            to: Some(at("2026-11-01T18:00:00Z")),
        });
        assert_eq!((&inside.days, inside.unrolled), (&None, None));
        assert_eq!(inside.raw_ranges().len(), 1);
    }

    #[test]
    fn days_are_utc_dates() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-23T23:30:00-02:00")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(day_of(at), "2026-11-24");
    }
}

#[cfg(test)]
mod rollup_tests;
