//! The admin's budgets: create (201 with `Location`), list (filtered by user or group,
//! paged), get, change the limit, delete (204, then 404); each shown with its subject's
//! name, the currency and the current period's spending. Bad input: a negative limit,
//! an unknown user or group (422), a second budget for the same subject and period
//! (409); and a non-admin gets 403.

use parley_tests::both_backends;
use serde_json::json;
use uuid::Uuid;

use super::{create_budget, spawn};
use crate::fixtures;

both_backends!(
    admins_manage_budgets_and_see_names_and_spending,
    |backend: Backend| async move {
        let (_mock, app, _config) = spawn(backend, 2).await;
        let (alice, token) = app.create_user("budgeted@example.com", "student").await;
        let group = fixtures::group(&app, "Budgeted school", None, json!({})).await;
        let group_id = fixtures::id(&group);

        let response = app
            .post_json(
                "/v1/admin/budgets",
                app.admin(),
                &json!({"subject": "user", "subject_id": alice, "period": "day", "limit": 2.5}),
            )
            .await;
        response.assert_status(201);
        let daily = response.body.clone();
        let id = fixtures::id(&daily);
        assert_eq!(
            response.header("location"),
            Some(format!("/v1/admin/budgets/{id}").as_str())
        );
        assert_eq!(daily["subject"], "user");
        assert_eq!(daily["subject_id"], alice.as_str());
        assert_eq!(daily["subject_name"], "budgeted");
        assert_eq!(daily["currency"], "USD");
        assert_eq!(daily["limit"], 2.5);
        assert_eq!(daily["limit_micros"], 2_500_000);
        assert_eq!(daily["spent_micros"], 0);
        assert_eq!(daily["reserved_micros"], 0);
        let ends: chrono::DateTime<chrono::Utc> =
            serde_json::from_value(daily["period_ends_at"].clone()).expect("a time");
        assert_eq!(
            ends.date_naive(),
            chrono::Utc::now().date_naive() + chrono::Days::new(1)
        );

        let monthly = create_budget(&app, "group", &group_id, "month", 100.0).await;
        assert_eq!(monthly["subject_name"], "Budgeted school");

        // The same subject and period again: 409.
        let again = app
            .post_json(
                "/v1/admin/budgets",
                app.admin(),
                &json!({"subject": "user", "subject_id": alice, "period": "day", "limit": 1}),
            )
            .await;
        assert_eq!(again.assert_problem(409), "budget_exists");
        // Bad input: 422.
        for (body, code) in [
            (
                json!({"subject": "user", "subject_id": alice, "period": "month", "limit": -1}),
                "validation_failed",
            ),
            (
                json!({"subject": "user", "subject_id": Uuid::now_v7(), "period": "day", "limit": 1}),
                "user_not_found",
            ),
            (
                json!({"subject": "group", "subject_id": Uuid::now_v7(), "period": "day", "limit": 1}),
                "group_not_found",
            ),
            (
                json!({"subject": "team", "subject_id": alice, "period": "day", "limit": 1}),
                "validation_failed",
            ),
            (
                json!({"subject": "user", "subject_id": alice, "period": "week", "limit": 1}),
                "validation_failed",
            ),
        ] {
            let refused = app.post_json("/v1/admin/budgets", app.admin(), &body).await;
            assert_eq!(refused.assert_problem(422), code, "{body}");
        }

        // Lists: all, by user, by group; paged.
        let all = app.get("/v1/admin/budgets?limit=1", app.admin()).await;
        all.assert_status(200);
        assert_eq!(all.body["items"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            fixtures::id(&all.body["items"][0]),
            fixtures::id(&monthly),
            "newest first"
        );
        let cursor = all.body["next_cursor"]
            .as_str()
            .expect("a second page")
            .to_owned();
        let second = app
            .get(
                &format!("/v1/admin/budgets?limit=1&cursor={cursor}"),
                app.admin(),
            )
            .await;
        assert_eq!(fixtures::id(&second.body["items"][0]), id);
        let mine = app
            .get(&format!("/v1/admin/budgets?user_id={alice}"), app.admin())
            .await;
        assert_eq!(mine.body["items"].as_array().map(Vec::len), Some(1));
        let theirs = app
            .get(
                &format!("/v1/admin/budgets?group_id={group_id}"),
                app.admin(),
            )
            .await;
        assert_eq!(
            fixtures::id(&theirs.body["items"][0]),
            fixtures::id(&monthly)
        );

        // Change the limit; delete.
        let changed = app
            .patch_json(
                &format!("/v1/admin/budgets/{id}"),
                app.admin(),
                &json!({"limit": 0.75}),
            )
            .await;
        changed.assert_status(200);
        assert_eq!(changed.body["limit_micros"], 750_000);
        let negative = app
            .patch_json(
                &format!("/v1/admin/budgets/{id}"),
                app.admin(),
                &json!({"limit": -0.5}),
            )
            .await;
        assert_eq!(negative.assert_problem(422), "validation_failed");
        app.delete(&format!("/v1/admin/budgets/{id}"), app.admin())
            .await
            .assert_status(204);
        let gone = app
            .get(&format!("/v1/admin/budgets/{id}"), app.admin())
            .await;
        assert_eq!(gone.assert_problem(404), "not_found");

        // Not for students.
        let forbidden = app.get("/v1/admin/budgets", Some(&token)).await;
        assert_eq!(forbidden.assert_problem(403), "forbidden");
        let forbidden = app
            .post_json(
                "/v1/admin/budgets",
                Some(&token),
                &json!({"subject": "user", "subject_id": alice, "period": "day", "limit": 1}),
            )
            .await;
        assert_eq!(forbidden.assert_problem(403), "forbidden");
    }
);
