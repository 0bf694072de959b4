//! `/v1/admin/tools`: definitions validated by their schema, stored as given, and kept
//! while something uses them.

use parley_tests::{TestApp, TestResponse, both_backends};
use serde_json::{Value, json};

use crate::fixtures::{self, id};

fn full_definition() -> Value {
    json!({
        "behavior": "Guide the learner; never give the answer away.",
        "model": "gpt-test",
        "constraints": {"topics": ["algebra", "geometry"], "no_direct_answers": true},
        "modules": [{"name": "pii_redactor", "config": {"mask": "***", "levels": [1, 2]}}, {"name": "tone"}],
        "functions": ["todos_list", "todos_add"],
        "max_messages": 40,
        "max_session_duration_s": 1800,
    })
}

async fn post_tool(app: &TestApp, group_id: &str, definition: Value) -> TestResponse {
    let body = json!({"group_id": group_id, "name": "Tutor", "definition": definition});
    app.post_json("/v1/admin/tools", app.admin(), &body).await
}

/// Asserts a 422 `validation_failed` whose detail names `field`.
#[track_caller]
fn assert_names_field(response: &TestResponse, field: &str) {
    assert_eq!(response.assert_problem(422), "validation_failed");
    let detail = response.body["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(field),
        "the detail must name `{field}`: {response}"
    );
}

both_backends!(create_and_get_tool, |app| async move {
    let group = fixtures::group(&app, "Org", None, json!({})).await;
    let created = post_tool(&app, &id(&group), full_definition()).await;
    created.assert_status(201);
    let tool_id = id(&created.body);
    assert_eq!(
        created.header("location"),
        Some(format!("/v1/admin/tools/{tool_id}").as_str())
    );
    assert_eq!(created.body["group_id"], id(&group).as_str());
    assert_eq!(created.body["name"], "Tutor");
    assert_eq!(created.body["type"], "chat", "the kind defaults to chat");
    assert_eq!(created.body["definition"], full_definition());

    let fetched = app
        .get(&format!("/v1/admin/tools/{tool_id}"), app.admin())
        .await;
    fetched.assert_status(200);
    assert_eq!(
        fetched.body["definition"],
        full_definition(),
        "the definition comes back as given"
    );
    assert_eq!(fetched.body, created.body);

    // Absent options are not filled in.
    let minimal = post_tool(&app, &id(&group), json!({"behavior": "Be brief."})).await;
    minimal.assert_status(201);
    assert_eq!(minimal.body["definition"], json!({"behavior": "Be brief."}));

    let listed = fixtures::all_pages(&app, "/v1/admin/tools", 1).await;
    assert_eq!(fixtures::ids(&listed), vec![id(&minimal.body), tool_id]);
    assert_eq!(
        listed[1]["definition"],
        full_definition(),
        "lists carry it too"
    );
});

both_backends!(invalid_definitions_are_422, |app| async move {
    let group = fixtures::group(&app, "Org", None, json!({})).await;
    let group_id = id(&group);

    let unknown = post_tool(&app, &group_id, json!({"behavior": "x", "temperature": 2})).await;
    assert_names_field(&unknown, "temperature");
    let nested = post_tool(
        &app,
        &group_id,
        json!({"behavior": "x", "constraints": {"topics": [], "max_words": 10}}),
    )
    .await;
    assert_names_field(&nested, "max_words");
    let in_module = post_tool(
        &app,
        &group_id,
        json!({"behavior": "x", "modules": [{"name": "pii", "enabled": true}]}),
    )
    .await;
    assert_names_field(&in_module, "enabled");
    // The detail does not name a missing field (poem-openapi says "found null").
    let no_behavior = post_tool(&app, &group_id, json!({"model": "m"})).await;
    assert_eq!(no_behavior.assert_problem(422), "validation_failed");
    for definition in [
        json!({"behavior": "x", "max_messages": 0}),
        json!({"behavior": "x", "model": ""}),
        json!({"behavior": "x", "functions": "todos_list"}),
        json!("just a string"),
    ] {
        let response = post_tool(&app, &group_id, definition.clone()).await;
        assert_eq!(
            response.assert_problem(422),
            "validation_failed",
            "{definition}"
        );
    }

    let missing = post_tool(
        &app,
        &uuid::Uuid::now_v7().to_string(),
        json!({"behavior": "x"}),
    )
    .await;
    assert_eq!(missing.assert_problem(422), "group_not_found");
    let listed = fixtures::all_pages(&app, "/v1/admin/tools", 100).await;
    assert_eq!(listed, Vec::<Value>::new(), "nothing was created");
});

both_backends!(patch_tool, |app| async move {
    let group = fixtures::group(&app, "Org", None, json!({})).await;
    let tool = fixtures::tool(&app, &id(&group), "Tutor", full_definition()).await;
    let path = format!("/v1/admin/tools/{}", id(&tool));

    let renamed = app
        .patch_json(
            &path,
            app.admin(),
            &json!({"name": "Coach", "type": "quiz"}),
        )
        .await;
    renamed.assert_status(200);
    assert_eq!(renamed.body["name"], "Coach");
    assert_eq!(renamed.body["type"], "quiz");
    assert_eq!(
        renamed.body["definition"],
        full_definition(),
        "absent stays"
    );

    let replacement = json!({"behavior": "New behavior.", "constraints": {"topics": ["logic"]}});
    let replaced = app
        .patch_json(&path, app.admin(), &json!({"definition": replacement}))
        .await;
    replaced.assert_status(200);
    assert_eq!(
        replaced.body["definition"], replacement,
        "the definition is replaced as a whole"
    );
    let fetched = app.get(&path, app.admin()).await;
    assert_eq!(fetched.body["definition"], replacement);
    assert_eq!(fetched.body["name"], "Coach");

    let bad = app
        .patch_json(
            &path,
            app.admin(),
            &json!({"definition": {"behavior": "x", "constraints": {"tone": "dry"}}}),
        )
        .await;
    assert_names_field(&bad, "tone");
    let moved = app
        .patch_json(
            &path,
            app.admin(),
            &json!({"group_id": uuid::Uuid::now_v7()}),
        )
        .await;
    assert_names_field(&moved, "group_id");
    assert_eq!(
        app.get(&path, app.admin()).await.body["definition"],
        replacement
    );
});

both_backends!(delete_tools, |app| async move {
    let student = fixtures::student_with_tool(&app, "user@example.com").await;
    let used_path = format!("/v1/admin/tools/{}", id(&student.tool));
    fixtures::session(&app, &student.token, &id(&student.tool)).await;

    let blocked = app.delete(&used_path, app.admin()).await;
    assert_eq!(blocked.assert_problem(409), "tool_in_use");
    app.get(&used_path, app.admin()).await.assert_status(200);

    // An assignment holds its tool as well.
    let group_id = id(&student.group);
    let assigned = fixtures::tool(&app, &group_id, "Assigned", json!({"behavior": "x"})).await;
    let class = fixtures::class(&app, &group_id, "Class").await;
    let body = json!({"class_id": id(&class), "tool_id": id(&assigned), "title": "Homework"});
    app.post_json("/v1/admin/assignments", app.admin(), &body)
        .await
        .assert_status(201);
    let assigned_path = format!("/v1/admin/tools/{}", id(&assigned));
    let blocked = app.delete(&assigned_path, app.admin()).await;
    assert_eq!(blocked.assert_problem(409), "tool_in_use");

    let unused = fixtures::tool(&app, &group_id, "Unused", json!({"behavior": "x"})).await;
    let unused_path = format!("/v1/admin/tools/{}", id(&unused));
    app.delete(&unused_path, app.admin())
        .await
        .assert_status(204);
    app.get(&unused_path, app.admin()).await.assert_problem(404);
    app.delete(&unused_path, app.admin())
        .await
        .assert_problem(404);
});
