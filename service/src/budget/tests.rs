//! The reservation arithmetic: periods, keys, the rule "admit while below the limit"
//! and its bound (an overrun of at most one reservation), and the refusal's words.

use std::sync::Arc;

use chrono::TimeZone;
use parley_runtime::budget::{BudgetStore, memory::MemoryBudgets};

use super::*;

fn at(y: i32, m: u32, d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, h, 0, 0)
        .single()
        .expect("a time")
}

fn budget(subject: Subject, period: Period, limit_micros: i64) -> Budget {
    Budget {
        id: Uuid::now_v7(),
        subject,
        period,
        limit_micros,
        created_at: at(2026, 1, 1, 0),
        updated_at: at(2026, 1, 1, 0),
    }
}

/// A database the checks never reach: every counter is seeded before.
async fn no_db() -> DatabaseConnection {
    sea_orm::Database::connect("sqlite::memory:")
        .await
        .expect("an in-memory database")
}

#[test]
fn periods_are_utc_calendar_days_and_months() {
    assert_eq!(
        period_bounds(Period::Day, at(2026, 2, 28, 23)),
        (at(2026, 2, 28, 0), at(2026, 3, 1, 0))
    );
    assert_eq!(
        period_bounds(Period::Month, at(2026, 12, 31, 12)),
        (at(2026, 12, 1, 0), at(2027, 1, 1, 0))
    );
    assert_eq!(
        period_bounds(Period::Month, at(2028, 2, 29, 12)),
        (at(2028, 2, 1, 0), at(2028, 3, 1, 0))
    );
}

#[test]
fn a_window_is_one_subject_in_one_period() {
    let user = Uuid::now_v7();
    let day = Applied::new(
        budget(Subject::User(user), Period::Day, 5),
        at(2026, 11, 26, 13),
    );
    assert_eq!(day.window.key, format!("user:{user}:day:20261126"));
    assert_eq!(
        day.window.ends_at_ms,
        at(2026, 11, 27, 0).timestamp_millis()
    );
    let month = Applied::new(
        budget(Subject::Group(user), Period::Month, 5),
        at(2026, 11, 26, 13),
    );
    assert_eq!(month.window.key, format!("group:{user}:month:202611"));
}

#[test]
fn costs_round_to_the_micro_unit() {
    assert_eq!(micros(0.000_012), 12);
    assert_eq!(micros(1.5), 1_500_000);
    assert_eq!(micros(0.000_000_4), 0);
    assert_eq!(micros(0.000_000_6), 1);
}

#[tokio::test]
async fn concurrent_holds_overrun_by_at_most_one_reservation() {
    let store = MemoryBudgets::new();
    let budgets = Budgets::new(Arc::new(store.clone()), Duration::from_secs(60));
    let now = Utc::now();
    let turn = TurnBudgets {
        applied: vec![Applied::new(
            budget(Subject::User(Uuid::now_v7()), Period::Day, 1_000),
            now,
        )],
    };
    store.seed(&turn.applied[0].window, 0).await.expect("seed");
    let db = no_db().await;
    // 50 calls hold 300 each and cost 100: the holds admit while spent + held < 1000.
    let mut holds = Vec::new();
    let mut refused = 0;
    for n in 0..50 {
        match budgets
            .reserve(&db, &turn, format!("call-{n}"), 300, now)
            .await
        {
            Ok(Some(hold)) => holds.push(hold),
            Ok(None) => panic!("the turn has a budget"),
            Err(_) => refused += 1,
        }
    }
    assert_eq!(holds.len(), 4, "0, 300, 600 and 900 are below 1000");
    assert_eq!(refused, 46);
    for hold in holds {
        budgets.settle(hold, 100).await;
    }
    let counter = store
        .read(&[turn.applied[0].window.clone()], now.timestamp_millis())
        .await
        .expect("read")[0]
        .expect("seeded");
    assert_eq!((counter.spent, counter.reserved), (400, 0));
    // Now more fit: 400, 700 below; 1000 is not.
    let mut more = 0;
    while let Ok(Some(hold)) = budgets
        .reserve(&db, &turn, format!("m{more}"), 300, now)
        .await
    {
        budgets.settle(hold, 300).await;
        more += 1;
    }
    assert_eq!(more, 2);
    let spent = store
        .read(&[turn.applied[0].window.clone()], now.timestamp_millis())
        .await
        .expect("read")[0]
        .expect("seeded")
        .spent;
    assert!(
        spent <= 1_000 + 300,
        "spent {spent}: over by at most one hold"
    );
}

#[tokio::test]
async fn the_first_budget_at_its_limit_refuses_and_says_whose() {
    let store = MemoryBudgets::new();
    let budgets = Budgets::new(Arc::new(store.clone()), Duration::from_secs(60));
    let now = at(2099, 5, 10, 22);
    let turn = TurnBudgets {
        applied: vec![
            Applied::new(
                budget(Subject::User(Uuid::now_v7()), Period::Month, 10_000_000),
                now,
            ),
            Applied::new(
                budget(Subject::Group(Uuid::now_v7()), Period::Day, 2_500_000),
                now,
            ),
        ],
    };
    store.seed(&turn.applied[0].window, 0).await.expect("seed");
    store
        .seed(&turn.applied[1].window, 2_500_000)
        .await
        .expect("seed");
    let db = no_db().await;
    let refused = budgets
        .check(&db, &turn, now)
        .await
        .expect_err("the group's day is spent");
    assert_eq!(refused.period, Period::Day);
    assert_eq!(
        refused.retry_after_s,
        2 * 3600,
        "the day ends at midnight UTC"
    );
    assert_eq!(
        refused.message(),
        "over your group's budget of 2.50 USD per day; it renews in 7200 s"
    );
    assert!(matches!(
        refused.error(),
        Error::OverBudget {
            retry_after_s: 7200,
            ..
        }
    ));
    assert_eq!(
        budgets.check(&db, &TurnBudgets::default(), now).await,
        Ok(()),
        "no budget: nothing to check"
    );
}
