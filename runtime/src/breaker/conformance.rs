//! The conformance suite every [`Breakers`] backend must pass: the same checks against
//! the in-process map and Redis. Each check uses fresh random keys (the Redis checks
//! share one server) and explicit times, so nothing waits for a clock.

use std::future::Future;
use std::time::Duration;

use super::{Admission, BreakerPolicy, BreakerState, Breakers};

/// The policy of the checks: 3 failures open it for 30 s; a probe holds it 5 s.
pub fn policy() -> BreakerPolicy {
    BreakerPolicy {
        failures_to_open: 3,
        open_for: Duration::from_secs(30),
        probe_timeout: Duration::from_secs(5),
    }
}

const T: i64 = 1_700_000_000_000;

fn fresh() -> String {
    format!("check-{}", uuid::Uuid::now_v7())
}

async fn open(breakers: &dyn Breakers, key: &str, at: i64) {
    for _ in 0..3 {
        breakers.record(key, false, at).await.expect("record");
    }
    assert_eq!(
        breakers.state(key, at).await.expect("state"),
        BreakerState::Open {
            until_ms: at + 30_000
        }
    );
}

pub async fn it_opens_after_consecutive_failures_and_a_success_resets_the_count(
    breakers: Box<dyn Breakers>,
) {
    let key = fresh();
    assert_eq!(
        breakers.admit(&key, T).await.expect("the store answers"),
        Admission::Go
    );
    let fail = |at| breakers.record(&key, false, at);
    assert_eq!(
        fail(T).await.expect("the store answers"),
        BreakerState::Closed { failures: 1 }
    );
    assert_eq!(
        fail(T).await.expect("the store answers"),
        BreakerState::Closed { failures: 2 }
    );
    assert_eq!(
        breakers
            .record(&key, true, T)
            .await
            .expect("the store answers"),
        BreakerState::Closed { failures: 0 },
        "a success resets the count"
    );
    assert_eq!(
        fail(T).await.expect("the store answers"),
        BreakerState::Closed { failures: 1 }
    );
    assert_eq!(
        fail(T).await.expect("the store answers"),
        BreakerState::Closed { failures: 2 }
    );
    assert_eq!(
        fail(T + 10).await.expect("the store answers"),
        BreakerState::Open {
            until_ms: T + 10 + 30_000
        },
        "the third in a row opens it"
    );
    assert_eq!(
        breakers
            .admit(&key, T + 1_010)
            .await
            .expect("the store answers"),
        Admission::Refused {
            retry_in: Duration::from_millis(29_000)
        }
    );
    assert_eq!(
        breakers
            .state(&key, T + 1_010)
            .await
            .expect("the store answers"),
        BreakerState::Open {
            until_ms: T + 30_010
        }
    );
}

pub async fn after_the_open_period_one_caller_probes_and_the_others_wait(
    breakers: Box<dyn Breakers>,
) {
    let key = fresh();
    open(breakers.as_ref(), &key, T).await;
    let later = T + 30_000;
    assert_eq!(
        breakers
            .state(&key, later)
            .await
            .expect("the store answers"),
        BreakerState::HalfOpen
    );
    assert_eq!(
        breakers
            .admit(&key, later)
            .await
            .expect("the store answers"),
        Admission::Probe
    );
    assert_eq!(
        breakers
            .admit(&key, later + 1_000)
            .await
            .expect("the store answers"),
        Admission::Refused {
            retry_in: Duration::from_millis(4_000)
        },
        "one probe at a time"
    );
}

pub async fn a_failed_probe_opens_it_again_and_a_good_one_closes_it(breakers: Box<dyn Breakers>) {
    let key = fresh();
    open(breakers.as_ref(), &key, T).await;
    let probe = T + 30_000;
    assert_eq!(
        breakers
            .admit(&key, probe)
            .await
            .expect("the store answers"),
        Admission::Probe
    );
    assert_eq!(
        breakers
            .record(&key, false, probe + 200)
            .await
            .expect("the store answers"),
        BreakerState::Open {
            until_ms: probe + 200 + 30_000
        },
        "one failed probe reopens it"
    );
    assert!(
        !breakers
            .admit(&key, probe + 300)
            .await
            .expect("the store answers")
            .allowed()
    );
    let next = probe + 200 + 30_000;
    assert_eq!(
        breakers.admit(&key, next).await.expect("the store answers"),
        Admission::Probe
    );
    assert_eq!(
        breakers
            .record(&key, true, next + 100)
            .await
            .expect("the store answers"),
        BreakerState::Closed { failures: 0 }
    );
    assert_eq!(
        breakers
            .admit(&key, next + 101)
            .await
            .expect("the store answers"),
        Admission::Go
    );
    assert_eq!(
        breakers
            .record(&key, false, next + 102)
            .await
            .expect("the store answers"),
        BreakerState::Closed { failures: 1 },
        "closed again: it takes three failures to open"
    );
}

pub async fn a_probe_that_never_reports_stops_holding_the_breaker(breakers: Box<dyn Breakers>) {
    let key = fresh();
    open(breakers.as_ref(), &key, T).await;
    let probe = T + 30_000;
    assert_eq!(
        breakers
            .admit(&key, probe)
            .await
            .expect("the store answers"),
        Admission::Probe
    );
    assert!(
        !breakers
            .admit(&key, probe + 4_999)
            .await
            .expect("the store answers")
            .allowed()
    );
    assert_eq!(
        breakers
            .admit(&key, probe + 5_000)
            .await
            .expect("the store answers"),
        Admission::Probe,
        "the probe timeout passed: another caller probes"
    );
}

pub async fn breakers_of_different_keys_are_independent(breakers: Box<dyn Breakers>) {
    let (one, other) = (fresh(), fresh());
    open(breakers.as_ref(), &one, T).await;
    assert_eq!(
        breakers.admit(&other, T).await.expect("the store answers"),
        Admission::Go
    );
    assert_eq!(
        breakers.state(&other, T).await.expect("the store answers"),
        BreakerState::Closed { failures: 0 }
    );
}

/// Two handles on one store (two workers): failures count together, both see the
/// breaker open, and of two callers asking at once exactly one probes.
pub async fn every_handle_sees_the_same_breakers(a: Box<dyn Breakers>, b: Box<dyn Breakers>) {
    let key = fresh();
    a.record(&key, false, T).await.expect("the store answers");
    b.record(&key, false, T).await.expect("the store answers");
    assert_eq!(
        a.state(&key, T).await.expect("the store answers"),
        BreakerState::Closed { failures: 2 }
    );
    a.record(&key, false, T).await.expect("the store answers");
    assert!(
        !b.admit(&key, T + 1)
            .await
            .expect("the store answers")
            .allowed(),
        "b sees it open"
    );
    let later = T + 30_000;
    for _ in 0..5 {
        let (x, y) = tokio::join!(a.admit(&key, later), b.admit(&key, later));
        let probes = [x.expect("the store answers"), y.expect("the store answers")]
            .iter()
            .filter(|d| **d == Admission::Probe)
            .count();
        assert!(probes <= 1, "at most one probe at once");
        if probes == 1 {
            b.record(&key, true, later + 1)
                .await
                .expect("the store answers");
            assert_eq!(
                a.admit(&key, later + 2).await.expect("the store answers"),
                Admission::Go
            );
            return;
        }
    }
    panic!("nobody probed");
}

/// Runs `check` with a store of the suite's policy.
pub async fn with<F, Fut, C, CFut>(make: F, check: C)
where
    F: Fn(BreakerPolicy) -> Fut,
    Fut: Future<Output = Box<dyn Breakers>>,
    C: FnOnce(Box<dyn Breakers>) -> CFut,
    CFut: Future<Output = ()>,
{
    check(make(policy()).await).await;
}

/// Generates one `#[tokio::test]` per check, for `$single` (an `async fn(BreakerPolicy) ->
/// Box<dyn Breakers>`) and `$pair` (two handles on one store).
pub async fn admission_notes_whether_the_breaker_is_clean(breakers: Box<dyn Breakers>) {
    let key = fresh();
    let admit = |at| breakers.admit_noting_clean(&key, at);
    assert_eq!(
        admit(T).await.expect("the store answers"),
        (Admission::Go, true),
        "never failed"
    );
    breakers.record(&key, false, T).await.expect("record");
    assert_eq!(
        admit(T).await.expect("the store answers"),
        (Admission::Go, false),
        "closed, with a failure"
    );
    breakers.record(&key, true, T).await.expect("record");
    assert_eq!(
        admit(T).await.expect("the store answers"),
        (Admission::Go, true)
    );
    open(breakers.as_ref(), &key, T).await;
    assert!(matches!(
        admit(T + 1).await.expect("the store answers"),
        (Admission::Refused { .. }, false)
    ));
    assert_eq!(
        admit(T + 30_000).await.expect("the store answers"),
        (Admission::Probe, false),
        "half-open: the probe goes, and it is not clean"
    );
}

#[cfg(test)]
macro_rules! conformance_suite {
    ($single:path, $pair:path) => {
        $crate::breaker::conformance::conformance_suite!(@each $single;
            it_opens_after_consecutive_failures_and_a_success_resets_the_count,
            after_the_open_period_one_caller_probes_and_the_others_wait,
            a_failed_probe_opens_it_again_and_a_good_one_closes_it,
            a_probe_that_never_reports_stops_holding_the_breaker,
            breakers_of_different_keys_are_independent,
            admission_notes_whether_the_breaker_is_clean,
        );
        #[tokio::test]
        async fn every_handle_sees_the_same_breakers() {
            let (a, b) = $pair($crate::breaker::conformance::policy()).await;
            $crate::breaker::conformance::every_handle_sees_the_same_breakers(a, b).await;
        }
    };
    (@each $single:path; $($check:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $check() {
                $crate::breaker::conformance::with($single, $crate::breaker::conformance::$check).await;
            }
        )*
    };
}
#[cfg(test)]
pub(crate) use conformance_suite;
