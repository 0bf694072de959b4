//! Time windows given as `from` and `to` query parameters: `from` inclusive, `to`
//! exclusive, either side open when absent, `from` before `to` (400
//! `invalid_parameter` otherwise), clamped to the years both databases store.
//! The admin metrics, the feedback list and export, and a teacher's lists all read
//! their windows here.

use chrono::{DateTime, Datelike, Utc};
use parley_entity::query::metrics::Window;
use parley_protocol::error::ErrorCode;

use crate::error::Problem;

/// The window of `from` and `to` as given (an absent side is open); `from` must be
/// before `to` (400 `invalid_parameter`).
pub fn span(
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
) -> Result<Window, Box<Problem>> {
    if let (Some(from), Some(to)) = (from, to)
        && from >= to
    {
        return Err(Box::new(Problem::new(
            ErrorCode::InvalidParameter,
            "parameter `from`: must be before `to`",
        )));
    }
    Ok(Window {
        from: from.map(storable),
        to: to.map(storable),
    })
}

/// `at` within the years 1 to 9999, which both databases store and order correctly
/// (SQLite compares times as text); no row lies outside them, so the window's rows are
/// the same.
fn storable(at: DateTime<Utc>) -> DateTime<Utc> {
    let first = DateTime::<Utc>::MIN_UTC
        .with_year(1)
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    let last = DateTime::<Utc>::MAX_UTC
        .with_year(9999)
        .unwrap_or(DateTime::<Utc>::MAX_UTC);
    at.clamp(first, last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn from_must_come_before_to_and_bounds_stay_storable() {
        assert!(
            span(
                Some(at("2026-01-02T00:00:00Z")),
                Some(at("2026-01-01T00:00:00Z"))
            )
            .is_err()
        );
        assert!(
            span(
                Some(at("2026-01-01T00:00:00Z")),
                Some(at("2026-01-01T00:00:00Z"))
            )
            .is_err()
        );
        let late = at("9999-12-31T23:59:59-23:59");
        let w = span(None, Some(late)).unwrap();
        assert_eq!(w.to.unwrap().year(), 9999);
        assert!(w.from.is_none());
    }
}
