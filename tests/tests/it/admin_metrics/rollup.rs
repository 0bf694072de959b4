//! The worker's rollup pass (`rollup_metrics`, here every second) moves the calls into
//! the daily rollup; the admin's figures are the same before and after it, for a window
//! whose start falls inside the day (its calls are then read from the rows) and for the
//! whole day (read from the rollup).

use std::time::{Duration, Instant};

use chrono::{NaiveTime, Utc};
use parley_tests::client::types::UsageGroupBy;
use parley_tests::{ApiResult, both_backends};
use sea_orm::{ConnectionTrait, Statement};

use super::{Expected, priced_with_env, seeded::writable_db};
use crate::fixtures::api;

both_backends!(
    figures_are_the_same_before_and_after_the_rollup_pass,
    |backend: Backend| async move {
        let p = priced_with_env(backend, &[("PARLEY_WORKER__ROLLUP_EVERY_S", "1")]).await;
        let admin = p.app.admin_client();
        let student = api::student_with_tool(&p.app, "rolled@example.com").await;
        let client = p.app.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await.id;
        let start = Utc::now() - chrono::Duration::seconds(1);
        let mut expected = Expected::default();
        expected.add(
            p.turn(&client, session, "one [[mock tokens=5]]", "mock-model")
                .await,
        );
        expected.add(
            p.turn(&client, session, "two [[mock tokens=9]]", "mock-cheap")
                .await,
        );
        let end = Utc::now() + chrono::Duration::seconds(1);
        // Whole days: from the start of `start`'s day to the end of `end`'s.
        let day_start = start.date_naive().and_time(NaiveTime::MIN).and_utc();
        let day_end =
            end.date_naive().and_time(NaiveTime::MIN).and_utc() + chrono::Duration::days(1);
        let read = |from, to| {
            let admin = admin.clone();
            async move {
                let page = admin
                    .admin_usage()
                    .group_by(UsageGroupBy::User)
                    .from(from)
                    .to(to)
                    .send()
                    .await
                    .assert_status(200)
                    .into_inner();
                assert_eq!(page.items.len(), 1, "{page:?}");
                page.items.into_iter().next().unwrap()
            }
        };
        // Right after the turns (rolled up or not yet: the read covers both).
        expected.assert_matches(&read(start, end).await);
        expected.assert_matches(&read(day_start, day_end).await);

        // Until the pass has rolled up every call.
        let db = writable_db(&p.app).await;
        let backend = db.get_database_backend();
        let unrolled = || {
            let db = db.clone();
            async move {
                let row = db
                    .query_one_raw(Statement::from_string(
                        backend,
                        "SELECT COUNT(*) AS n FROM ai_usage WHERE rolled_up = FALSE",
                    ))
                    .await
                    .expect("counting unrolled rows")
                    .expect("a row");
                row.try_get::<i64>("", "n").expect("a count")
            }
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while unrolled().await > 0 {
            assert!(Instant::now() < deadline, "the rollup pass did not run");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let rolled = db
            .query_one_raw(Statement::from_string(
                backend,
                "SELECT CAST(SUM(calls) AS BIGINT) AS n FROM usage_rollup",
            ))
            .await
            .expect("reading the rollup")
            .expect("a row");
        assert_eq!(
            rolled.try_get::<i64>("", "n").unwrap(),
            2,
            "each call rolled up once"
        );

        // The same figures: the whole days from the rollup, the partial day from rows.
        expected.assert_matches(&read(start, end).await);
        let whole = read(day_start, day_end).await;
        expected.assert_matches(&whole);
        assert!(whole.name.is_some(), "{whole:?}");
        // The calls are still listed one by one.
        let calls = admin
            .admin_usage_calls()
            .from(start)
            .to(end)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(calls.items.len(), 2, "{calls:?}");
        // A later pass adds nothing (each row is claimed once).
        tokio::time::sleep(Duration::from_millis(2500)).await;
        expected.assert_matches(&read(day_start, day_end).await);
    }
);
