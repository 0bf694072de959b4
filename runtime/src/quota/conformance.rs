//! The conformance suite every [`QuotaStore`] backend must pass: the same checks
//! against the in-process map and Redis. Each check uses fresh random keys (the Redis
//! checks share one server).

use super::{Decision, QuotaStore, Window};

fn fresh() -> String {
    format!("check-{}", uuid::Uuid::now_v7())
}

fn far_future() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
        + 3_600_000
}

fn turns(key: &str, limit: u64) -> Window {
    Window {
        key: key.into(),
        limit,
        ends_at_ms: far_future(),
        counts_turns: true,
    }
}

fn cap(key: &str, limit: u64) -> Window {
    Window {
        counts_turns: false,
        ..turns(key, limit)
    }
}

pub async fn it_admits_up_to_the_limit_and_then_refuses(store: Box<dyn QuotaStore>) {
    let w = turns(&fresh(), 3);
    for n in 0..3 {
        assert_eq!(
            store.admit(std::slice::from_ref(&w)).await.expect("admit"),
            Decision::Admitted,
            "turn {n}"
        );
    }
    assert_eq!(
        store.admit(std::slice::from_ref(&w)).await.expect("admit"),
        Decision::Refused { window: 0 }
    );
    assert_eq!(
        store.read(&[w]).await.expect("read"),
        [3],
        "a refusal counts nothing"
    );
}

pub async fn a_refusal_by_one_window_counts_in_none(store: Box<dyn QuotaStore>) {
    let user = turns(&fresh(), 10);
    let group = turns(&fresh(), 1);
    let both = [user.clone(), group.clone()];
    assert_eq!(store.admit(&both).await.expect("admit"), Decision::Admitted);
    assert_eq!(
        store.admit(&both).await.expect("admit"),
        Decision::Refused { window: 1 },
        "the group's window is full"
    );
    assert_eq!(store.read(&both).await.expect("read"), [1, 1]);
}

pub async fn a_cap_is_checked_but_not_counted(store: Box<dyn QuotaStore>) {
    let tokens = cap(&fresh(), 100);
    let minute = turns(&fresh(), 10);
    let windows = [minute.clone(), tokens.clone()];
    assert_eq!(
        store.admit(&windows).await.expect("admit"),
        Decision::Admitted
    );
    assert_eq!(store.read(&windows).await.expect("read"), [1, 0]);
    store
        .add(std::slice::from_ref(&tokens), 60)
        .await
        .expect("add");
    assert_eq!(
        store.admit(&windows).await.expect("admit"),
        Decision::Admitted
    );
    store
        .add(std::slice::from_ref(&tokens), 40)
        .await
        .expect("add");
    assert_eq!(
        store.admit(&windows).await.expect("admit"),
        Decision::Refused { window: 1 },
        "100 tokens used of 100"
    );
    assert_eq!(store.read(&windows).await.expect("read"), [2, 100]);
}

pub async fn add_takes_away_with_a_negative_amount(store: Box<dyn QuotaStore>) {
    let w = turns(&fresh(), 1);
    assert_eq!(
        store.admit(std::slice::from_ref(&w)).await.expect("admit"),
        Decision::Admitted
    );
    store
        .add(std::slice::from_ref(&w), -1)
        .await
        .expect("refund");
    assert_eq!(
        store.admit(std::slice::from_ref(&w)).await.expect("admit"),
        Decision::Admitted,
        "the refunded turn freed its place"
    );
}

pub async fn a_window_that_ended_starts_from_nothing(store: Box<dyn QuotaStore>) {
    // A window that ended (its key is still the same): its counter is gone once the
    // store expires it; a new window has a new key anyway, so only `read` of an
    // unknown key is checked here.
    let w = turns(&fresh(), 1);
    assert_eq!(store.read(&[w]).await.expect("read"), [0]);
}

pub async fn every_handle_sees_the_same_counters(a: Box<dyn QuotaStore>, b: Box<dyn QuotaStore>) {
    let w = turns(&fresh(), 2);
    assert_eq!(
        a.admit(std::slice::from_ref(&w)).await.expect("admit"),
        Decision::Admitted
    );
    assert_eq!(
        b.admit(std::slice::from_ref(&w)).await.expect("admit"),
        Decision::Admitted
    );
    assert_eq!(
        a.admit(std::slice::from_ref(&w)).await.expect("admit"),
        Decision::Refused { window: 0 },
        "two handles, one limit"
    );
}

/// Many admissions at once against one window: exactly `limit` get through.
pub async fn concurrent_admissions_never_pass_the_limit(
    a: Box<dyn QuotaStore>,
    b: Box<dyn QuotaStore>,
) {
    let w = turns(&fresh(), 5);
    let tries = (0..20).map(|i| {
        let store = if i % 2 == 0 { &a } else { &b };
        let w = w.clone();
        async move { store.admit(&[w]).await.expect("admit") }
    });
    let decided = futures::future::join_all(tries).await;
    let admitted = decided.iter().filter(|d| **d == Decision::Admitted).count();
    assert_eq!(admitted, 5);
}

macro_rules! conformance_suite {
    ($single:path, $pair:path) => {
        $crate::quota::conformance::conformance_suite!(@each $single;
            it_admits_up_to_the_limit_and_then_refuses,
            a_refusal_by_one_window_counts_in_none,
            a_cap_is_checked_but_not_counted,
            add_takes_away_with_a_negative_amount,
            a_window_that_ended_starts_from_nothing,
        );
        #[tokio::test]
        async fn every_handle_sees_the_same_counters() {
            let (a, b) = $pair().await;
            $crate::quota::conformance::every_handle_sees_the_same_counters(a, b).await;
        }
        #[tokio::test]
        async fn concurrent_admissions_never_pass_the_limit() {
            let (a, b) = $pair().await;
            $crate::quota::conformance::concurrent_admissions_never_pass_the_limit(a, b).await;
        }
    };
    (@each $single:path; $($check:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $check() {
                $crate::quota::conformance::$check($single().await).await;
            }
        )*
    };
}
#[cfg(test)]
pub(crate) use conformance_suite;
