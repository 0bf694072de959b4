//! Percentiles by sorting (nearest rank), and millisecond formatting.

use std::time::Duration;

/// p50 and p99 of a sample (nearest rank); None when it is empty.
#[derive(Debug, Clone, Copy)]
pub struct Percentiles {
    pub p50: Duration,
    pub p99: Duration,
}

impl Percentiles {
    pub fn of(samples: &[Duration]) -> Option<Self> {
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        Some(Self {
            p50: nearest_rank(&sorted, 50.0)?,
            p99: nearest_rank(&sorted, 99.0)?,
        })
    }
}

/// The smallest value with at least `p` % of the sample at or below it.
pub fn nearest_rank<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A duration in ms, or "–" when absent.
pub fn fmt_ms(d: Option<Duration>) -> String {
    d.map_or_else(|| "–".to_owned(), |d| format!("{:.2}", ms(d)))
}

/// `a − b` in ms (signed), or "–".
pub fn fmt_diff(a: Option<Duration>, b: Option<Duration>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:+.2}", ms(a) - ms(b)),
        _ => "–".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u32> = (1..=100).collect();
        assert_eq!(nearest_rank(&v, 50.0), Some(50));
        assert_eq!(nearest_rank(&v, 99.0), Some(99));
        assert_eq!(nearest_rank(&[7], 99.0), Some(7));
        assert_eq!(nearest_rank::<u32>(&[], 50.0), None);
    }
}
