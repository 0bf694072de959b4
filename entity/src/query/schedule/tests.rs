//! Slots of scheduled tasks: one taker per period, however many try at once.

use std::time::Duration;

use super::*;
use crate::query::testing::on_both_backends;

on_both_backends!(one_runner_takes_each_slot, |db| {
    let every = Duration::from_secs(60);
    ensure(&db, &["reap", "archive"]).await.unwrap();
    ensure(&db, &["reap"]).await.unwrap();
    let t0 = crate::query::now();
    // Workers racing for a slot: exactly one wins it.
    let takers = ["w1", "w2", "w3", "w4"].map(|runner| {
        let db = db.clone();
        async move { take_slot(&db, "reap", runner, every, t0).await.unwrap() }
    });
    let taken = futures::future::join_all(takers).await;
    assert_eq!(taken.iter().filter(|t| **t).count(), 1, "{taken:?}");
    let winner = ["w1", "w2", "w3", "w4"][taken.iter().position(|t| *t).unwrap()];
    // Within the period nobody takes it again; the other task has its own slot.
    let soon = t0 + chrono::Duration::seconds(59);
    assert!(!take_slot(&db, "reap", "w2", every, soon).await.unwrap());
    assert!(take_slot(&db, "archive", "w2", every, soon).await.unwrap());
    finished(&db, "reap", winner, "ok: 3 re-enqueued", soon)
        .await
        .unwrap();
    // After it, the next taker (someone other than the winner) runs it.
    let later = t0 + chrono::Duration::seconds(60);
    let next = if winner == "w3" { "w4" } else { "w3" };
    assert!(take_slot(&db, "reap", next, every, later).await.unwrap());
    // The loser of a slot records nothing: the row is the taker's.
    finished(&db, "reap", winner, "late", later).await.unwrap();
    let rows = all(&db).await.unwrap();
    let reap = rows.iter().find(|r| r.name == "reap").unwrap();
    assert_eq!(reap.runner.as_deref(), Some(next));
    assert_eq!(reap.runs, 1);
    assert_eq!(reap.last_outcome.as_deref(), Some("ok: 3 re-enqueued"));
    assert_eq!(rows.len(), 2);
    // An unknown task has no slot.
    assert!(!take_slot(&db, "nothing", "w1", every, later).await.unwrap());
});
