use std::time::Duration;

use super::backoff;

#[test]
fn retries_back_off_exponentially_with_jitter() {
    let base = Duration::from_millis(100);
    for n in 1..=4u32 {
        let exponential = base * 2u32.pow(n - 1);
        let pauses: Vec<Duration> = (0..200).map(|_| backoff(base, n)).collect();
        for pause in &pauses {
            assert!(
                *pause >= exponential / 2 && *pause < exponential * 3 / 2,
                "retry {n}: {pause:?} outside 50–150 % of {exponential:?}"
            );
        }
        let below = pauses.iter().filter(|p| **p < exponential).count();
        assert!(
            (40..=160).contains(&below),
            "retry {n}: the pauses spread around {exponential:?} ({below} of 200 below)"
        );
    }
}
