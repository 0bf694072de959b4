//! The options a group's settings and an assignment's config put over tool definitions
//! are typed (`ConfigOverrides`): a key the type does not know — a misspelt one,
//! anywhere in the value — is refused when saved, with a 422 problem that names it, and
//! nothing is stored. (Tool definitions themselves: `admin_tools`.)
//!
//! Raw requests: the typed client cannot send an unknown key.

use parley_tests::{ApiResult, TestApp, TestResponse, both_backends};
use serde_json::{Value, json};

use crate::fixtures::api;

/// Asserts a 422 `validation_failed` problem whose detail names `key`.
#[track_caller]
fn assert_names(response: &TestResponse, key: &str) {
    assert_eq!(response.assert_problem(422), "validation_failed");
    let detail = response.body["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(key),
        "the detail must name `{key}`: {response}"
    );
}

async fn post(app: &TestApp, path: &str, body: Value) -> TestResponse {
    app.post_json(path, app.admin(), &body).await
}

async fn patch(app: &TestApp, path: &str, body: Value) -> TestResponse {
    app.patch_json(path, app.admin(), &body).await
}

both_backends!(
    a_misspelt_configuration_key_is_422_naming_it,
    |app| async move {
        let admin = app.admin_client();
        let group = api::group(&admin, "Org", None, json!({"model": "org-model"})).await;
        let tool = api::tool(&admin, group.id, "Tutor", "Guide.").await;
        let class = api::class(&admin, group.id, "Algebra").await;

        // Group settings, on create and on update, at the top and nested.
        let created = post(
            &app,
            "/v1/admin/groups",
            json!({"name": "Team", "parent_id": group.id, "settings": {"max_mesages": 5}}),
        )
        .await;
        assert_names(&created, "max_mesages");
        let group_path = format!("/v1/admin/groups/{}", group.id);
        let nested = patch(
            &app,
            &group_path,
            json!({"settings": {"constraints": {"topic": ["algebra"]}}}),
        )
        .await;
        assert_names(&nested, "topic");
        let in_module = patch(
            &app,
            &group_path,
            json!({"settings": {"modules": [{"name": "pii_redactor", "confg": {}}]}}),
        )
        .await;
        assert_names(&in_module, "confg");

        // An assignment's config, on create and on update.
        let assignment = json!({"class_id": class.id, "tool_id": tool.id, "title": "Quiz"});
        let mut misspelt = assignment.clone();
        misspelt["config"] = json!({"modle": "m"});
        assert_names(
            &post(&app, "/v1/admin/assignments", misspelt).await,
            "modle",
        );
        let mut fine = assignment.clone();
        fine["config"] = json!({"guidance": "Short sentences.", "max_messages": 10});
        let saved = post(&app, "/v1/admin/assignments", fine).await;
        saved.assert_status(201);
        assert_eq!(
            saved.body["config"],
            json!({"guidance": "Short sentences.", "max_messages": 10}),
            "known keys are saved as given"
        );
        let assignment_path = format!(
            "/v1/admin/assignments/{}",
            saved.body["id"].as_str().unwrap()
        );
        let updated = patch(
            &app,
            &assignment_path,
            json!({"config": {"hold_bak": true}}),
        )
        .await;
        assert_names(&updated, "hold_bak");
        // A value of the wrong type is refused too (the object form of `skills` that free-form
        // settings once took is no boolean).
        let mistyped = patch(
            &app,
            &assignment_path,
            json!({"config": {"skills": {"enabled": false}}}),
        )
        .await;
        assert_eq!(mistyped.assert_problem(422), "validation_failed");

        // Nothing refused was stored.
        let fetched = admin
            .admin_get_group()
            .id(group.id)
            .send()
            .await
            .assert_status(200);
        assert_eq!(
            api::json_of(&fetched.settings),
            json!({"model": "org-model"})
        );
        let groups = app.get("/v1/admin/groups?limit=100", app.admin()).await;
        groups.assert_status(200);
        let names: Vec<&str> = groups.body["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g["name"].as_str())
            .collect();
        assert!(names.contains(&"Org"), "{names:?}");
        assert!(
            !names.contains(&"Team"),
            "the refused group was not created: {names:?}"
        );
        let kept = app.get(&assignment_path, app.admin()).await;
        assert_eq!(kept.body["config"], saved.body["config"]);
    }
);
