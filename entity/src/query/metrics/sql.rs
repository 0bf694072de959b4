//! The few pieces of SQL the metrics write by hand, because the rollups need statements
//! sea-query does not build on both backends (`INSERT … SELECT … GROUP BY … ON
//! CONFLICT DO UPDATE`, `UPDATE … RETURNING` in a `WITH`): placeholders numbered for
//! PostgreSQL and anonymous for SQLite, the UTC day of a time, and the histograms'
//! bounds and bucket expressions.

use sea_orm::{DbBackend, Statement, Value};

/// Upper bounds (inclusive, ms) of the latency and time-to-first-token buckets; one more
/// bucket holds the longer ones. Roughly 1.5× apart, so a percentile read from them is
/// within half a bucket of the exact one (it is reported as the bucket's bound, never
/// above the largest value seen).
pub const LATENCY_BOUNDS: [i64; 15] = [
    50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 20000, 60000,
];
/// Upper bounds (inclusive, ms) of the module runs' duration buckets (and one more).
pub const DURATION_BOUNDS: [i64; 11] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000];

/// A statement being written: its text and the values bound so far.
pub struct Sql {
    pub backend: DbBackend,
    pub text: String,
    values: Vec<Value>,
}

impl Sql {
    pub fn new(backend: DbBackend) -> Self {
        Self {
            backend,
            text: String::new(),
            values: Vec::new(),
        }
    }

    pub fn pg(&self) -> bool {
        self.backend == DbBackend::Postgres
    }

    pub fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    /// Binds `value` and returns its placeholder.
    pub fn bind(&mut self, value: impl Into<Value>) -> String {
        self.values.push(value.into());
        match self.backend {
            DbBackend::Postgres => format!("${}", self.values.len()),
            _ => "?".to_owned(),
        }
    }

    pub fn statement(self) -> Statement {
        Statement::from_sql_and_values(self.backend, self.text, self.values)
    }
}

/// The UTC day (`YYYY-MM-DD`) of the timestamp column `col`. SQLite stores times as
/// UTC text that starts with the date.
pub fn day_expr(backend: DbBackend, col: &str) -> String {
    match backend {
        DbBackend::Postgres => format!("to_char({col} AT TIME ZONE 'UTC', 'YYYY-MM-DD')"),
        _ => format!("substr({col}, 1, 10)"),
    }
}

/// The larger of two values (`GREATEST` on PostgreSQL, the two-argument `MAX` on SQLite).
pub fn greatest(backend: DbBackend, a: &str, b: &str) -> String {
    match backend {
        DbBackend::Postgres => format!("GREATEST({a}, {b})"),
        _ => format!("MAX({a}, {b})"),
    }
}

/// The names of `n` histogram columns: `prefix00`, `prefix01`, …
pub fn bucket_columns(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i:02}")).collect()
}

/// One `CASE` per bucket of `bounds` (and the overflow bucket): 1 when `value` falls in
/// it, else 0 (a `NULL` value falls in none).
pub fn bucket_cases(value: &str, bounds: &[i64]) -> Vec<String> {
    let mut cases = Vec::with_capacity(bounds.len() + 1);
    let mut lower: Option<i64> = None;
    for bound in bounds {
        cases.push(match lower {
            None => format!("CASE WHEN {value} <= {bound} THEN 1 ELSE 0 END"),
            Some(lower) => {
                format!("CASE WHEN {value} > {lower} AND {value} <= {bound} THEN 1 ELSE 0 END")
            }
        });
        lower = Some(*bound);
    }
    let last = lower.unwrap_or(i64::MIN);
    cases.push(format!("CASE WHEN {value} > {last} THEN 1 ELSE 0 END"));
    cases
}

/// The `p`-th percentile (nearest rank) of a histogram: the bound of the bucket that
/// holds the rank, at most `max` (the largest value); `None` for an empty histogram.
pub fn bucket_percentile(counts: &[i64], bounds: &[i64], max: i64, p: u32) -> Option<i64> {
    let total: i64 = counts.iter().sum();
    if total <= 0 {
        return None;
    }
    let rank = (total * i64::from(p) + 99) / 100;
    let rank = rank.clamp(1, total);
    let mut seen = 0;
    for (i, count) in counts.iter().enumerate() {
        seen += count;
        if seen >= rank {
            return Some(bounds.get(i).map_or(max, |bound| (*bound).min(max)));
        }
    }
    Some(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_bucket_bounds_capped_by_the_largest_value() {
        let bounds = [10, 20, 50];
        // Values 5, 15, 15, 40: buckets ≤10: 1, ≤20: 2, ≤50: 1, >50: 0.
        let counts = [1, 2, 1, 0];
        assert_eq!(bucket_percentile(&counts, &bounds, 40, 50), Some(20));
        assert_eq!(bucket_percentile(&counts, &bounds, 40, 95), Some(40));
        // The overflow bucket reports the largest value.
        assert_eq!(
            bucket_percentile(&[0, 0, 0, 3], &bounds, 900, 50),
            Some(900)
        );
        assert_eq!(bucket_percentile(&[0, 0, 0, 0], &bounds, 0, 50), None);
        // One value: every percentile is at most that value.
        assert_eq!(bucket_percentile(&[1, 0, 0, 0], &bounds, 7, 95), Some(7));
    }

    #[test]
    fn bucket_cases_cover_every_value_once() {
        let cases = bucket_cases("v", &[10, 20]);
        assert_eq!(
            cases,
            [
                "CASE WHEN v <= 10 THEN 1 ELSE 0 END",
                "CASE WHEN v > 10 AND v <= 20 THEN 1 ELSE 0 END",
                "CASE WHEN v > 20 THEN 1 ELSE 0 END",
            ]
        );
    }
}
