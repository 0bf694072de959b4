//! The conformance suite every [`BudgetStore`] backend must pass: the same checks
//! against the in-process map and Redis. Each check uses fresh random keys (the Redis
//! checks share one server).

use super::{BudgetStore, Counter, Decision, Reservation, Window};

fn fresh() -> String {
    format!("check-{}", uuid::Uuid::now_v7())
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn window(limit: i64) -> Window {
    Window {
        key: fresh(),
        limit,
        ends_at_ms: now() + 3_600_000,
    }
}

fn hold(amount: i64) -> Reservation {
    Reservation {
        id: fresh(),
        amount,
        expires_at_ms: now() + 600_000,
    }
}

async fn seeded(store: &dyn BudgetStore, limit: i64, spent: i64) -> Window {
    let w = window(limit);
    assert!(store.seed(&w, spent).await.expect("seed"), "a new counter");
    w
}

pub async fn an_unseeded_window_reserves_nothing_until_seeded(store: Box<dyn BudgetStore>) {
    let w = window(100);
    let h = hold(10);
    assert_eq!(
        store
            .reserve(std::slice::from_ref(&w), &h, now())
            .await
            .expect("reserve"),
        Decision::Unseeded { window: 0 }
    );
    assert_eq!(
        store
            .read(std::slice::from_ref(&w), now())
            .await
            .expect("read"),
        [None]
    );
    assert!(store.seed(&w, 30).await.expect("seed"));
    assert!(
        !store.seed(&w, 0).await.expect("seed again"),
        "a second seed (another process) changes nothing"
    );
    assert_eq!(
        store
            .reserve(std::slice::from_ref(&w), &h, now())
            .await
            .expect("reserve"),
        Decision::Admitted
    );
    assert_eq!(
        store.read(&[w], now()).await.expect("read"),
        [Some(Counter {
            spent: 30,
            reserved: 10
        })]
    );
}

pub async fn it_admits_while_below_the_limit_then_refuses(store: Box<dyn BudgetStore>) {
    let w = seeded(store.as_ref(), 100, 0).await;
    // 0, 40 and 80 are below 100: three holds of 40; at 120 the fourth is refused.
    for n in 0..3 {
        assert_eq!(
            store
                .reserve(std::slice::from_ref(&w), &hold(40), now())
                .await
                .expect("reserve"),
            Decision::Admitted,
            "hold {n}"
        );
    }
    assert_eq!(
        store
            .reserve(std::slice::from_ref(&w), &hold(40), now())
            .await
            .expect("reserve"),
        Decision::Refused { window: 0 }
    );
    assert_eq!(
        store.read(&[w], now()).await.expect("read"),
        [Some(Counter {
            spent: 0,
            reserved: 120
        })],
        "a refusal holds nothing; the overrun is under one hold"
    );
}

pub async fn settling_replaces_the_hold_with_the_cost(store: Box<dyn BudgetStore>) {
    let w = seeded(store.as_ref(), 100, 5).await;
    let h = hold(50);
    let ws = std::slice::from_ref(&w);
    assert_eq!(
        store.reserve(ws, &h, now()).await.expect("reserve"),
        Decision::Admitted
    );
    store.settle(ws, &h, 12).await.expect("settle");
    assert_eq!(
        store.read(ws, now()).await.expect("read"),
        [Some(Counter {
            spent: 17,
            reserved: 0
        })]
    );
    store.settle(ws, &h, 0).await.expect("settle twice");
    assert_eq!(
        store.read(ws, now()).await.expect("read")[0].map(|c| c.reserved),
        Some(0),
        "a hold ends once"
    );
}

pub async fn a_zero_amount_only_checks(store: Box<dyn BudgetStore>) {
    let w = seeded(store.as_ref(), 10, 9).await;
    let ws = std::slice::from_ref(&w);
    assert_eq!(
        store.reserve(ws, &hold(0), now()).await.expect("check"),
        Decision::Admitted
    );
    assert_eq!(
        store.read(ws, now()).await.expect("read")[0].map(|c| c.reserved),
        Some(0)
    );
    store.settle(ws, &hold(0), 1).await.expect("settle");
    assert_eq!(
        store.reserve(ws, &hold(0), now()).await.expect("check"),
        Decision::Refused { window: 0 },
        "spent reached the limit"
    );
}

pub async fn a_refusal_by_one_window_reserves_in_none(store: Box<dyn BudgetStore>) {
    let user = seeded(store.as_ref(), 1000, 0).await;
    let group = seeded(store.as_ref(), 10, 10).await;
    let both = [user.clone(), group.clone()];
    assert_eq!(
        store
            .reserve(&both, &hold(5), now())
            .await
            .expect("reserve"),
        Decision::Refused { window: 1 }
    );
    assert_eq!(
        store.read(&both, now()).await.expect("read"),
        [
            Some(Counter {
                spent: 0,
                reserved: 0
            }),
            Some(Counter {
                spent: 10,
                reserved: 0
            })
        ]
    );
}

pub async fn a_lapsed_hold_frees_its_amount(store: Box<dyn BudgetStore>) {
    let w = seeded(store.as_ref(), 100, 0).await;
    let ws = std::slice::from_ref(&w);
    let crashed = Reservation {
        expires_at_ms: now() + 50,
        ..hold(100)
    };
    assert_eq!(
        store.reserve(ws, &crashed, now()).await.expect("reserve"),
        Decision::Admitted
    );
    assert_eq!(
        store.reserve(ws, &hold(1), now()).await.expect("reserve"),
        Decision::Refused { window: 0 }
    );
    let later = now() + 100;
    assert_eq!(
        store.read(ws, later).await.expect("read")[0].map(|c| c.reserved),
        Some(0),
        "a worker that died holds nothing once its hold lapses"
    );
    assert_eq!(
        store.reserve(ws, &hold(1), later).await.expect("reserve"),
        Decision::Admitted
    );
}

pub async fn every_handle_sees_the_same_counters(a: Box<dyn BudgetStore>, b: Box<dyn BudgetStore>) {
    let w = seeded(a.as_ref(), 100, 0).await;
    let ws = std::slice::from_ref(&w);
    let h = hold(60);
    assert_eq!(
        a.reserve(ws, &h, now()).await.expect("reserve"),
        Decision::Admitted
    );
    assert_eq!(
        b.read(ws, now()).await.expect("read"),
        [Some(Counter {
            spent: 0,
            reserved: 60
        })]
    );
    b.settle(ws, &h, 100).await.expect("settle");
    assert_eq!(
        a.reserve(ws, &hold(1), now()).await.expect("reserve"),
        Decision::Refused { window: 0 },
        "two handles, one budget"
    );
}

/// Many reservations at once against one window: only those that found it below its
/// limit get through (with holds of 10 and a limit of 100: exactly 10).
pub async fn concurrent_reservations_never_pass_the_rule(
    a: Box<dyn BudgetStore>,
    b: Box<dyn BudgetStore>,
) {
    let w = seeded(a.as_ref(), 100, 0).await;
    let tries = (0..60).map(|i| {
        let store = if i % 2 == 0 { &a } else { &b };
        let w = w.clone();
        async move {
            store
                .reserve(&[w], &hold(10), now())
                .await
                .expect("reserve")
        }
    });
    let decided = futures::future::join_all(tries).await;
    let admitted = decided.iter().filter(|d| **d == Decision::Admitted).count();
    assert_eq!(admitted, 10);
    assert_eq!(
        a.read(&[w], now()).await.expect("read")[0].map(|c| c.reserved),
        Some(100)
    );
}

macro_rules! conformance_suite {
    ($single:path, $pair:path) => {
        $crate::budget::conformance::conformance_suite!(@each $single;
            an_unseeded_window_reserves_nothing_until_seeded,
            it_admits_while_below_the_limit_then_refuses,
            settling_replaces_the_hold_with_the_cost,
            a_zero_amount_only_checks,
            a_refusal_by_one_window_reserves_in_none,
            a_lapsed_hold_frees_its_amount,
        );
        #[tokio::test]
        async fn every_handle_sees_the_same_counters() {
            let (a, b) = $pair().await;
            $crate::budget::conformance::every_handle_sees_the_same_counters(a, b).await;
        }
        #[tokio::test]
        async fn concurrent_reservations_never_pass_the_rule() {
            let (a, b) = $pair().await;
            $crate::budget::conformance::concurrent_reservations_never_pass_the_rule(a, b).await;
        }
    };
    (@each $single:path; $($check:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $check() {
                $crate::budget::conformance::$check($single().await).await;
            }
        )*
    };
}
#[cfg(test)]
pub(crate) use conformance_suite;
