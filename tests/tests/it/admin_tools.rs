//! `/v1/admin/tools`: definitions validated by their schema, stored as given, and kept
//! while something uses them.
//!
//! Through the typed client (`parley_tests::client`); raw requests only for definitions
//! no schema of the API can express (unknown or mistyped fields, a missing behavior).

use parley_tests::client::types::{
    Bound, Compaction, HistorySettings, Hook, ModuleKindName, OutOfBounds, SamplingBounds,
    SkillName, ToolConstraints, ToolDefinition, ToolModule,
};
use parley_tests::{ApiResult, TestApp, TestResponse, both_backends};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::fixtures::api::{self, definition, location};

fn full_definition() -> ToolDefinition {
    let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
    ToolDefinition {
        behavior: "Guide the learner; never give the answer away.".to_owned(),
        model: Some("gpt-test".to_owned()),
        constraints: Some(ToolConstraints {
            topics: Some(strings(&["algebra", "geometry"])),
            no_direct_answers: Some(true),
        }),
        modules: Some(vec![
            ToolModule {
                name: "pii_redactor".to_owned(),
                config: Some(api::object(json!({"types": ["email", "phone"]}))),
            },
            ToolModule {
                name: "analytics".to_owned(),
                config: None,
            },
        ]),
        functions: Some(strings(&["createTodo", "getCurrentTime"])),
        approval_required: Some(strings(&["createTodo"])),
        max_messages: Some(40),
        max_session_duration_s: Some(1800),
        hold_back: Some(true),
        max_iterations: Some(3),
        payload_types: Some(vec![]),
        suggestions: Some(true),
        skills: Some(false),
        enabled_skills: Some(vec![SkillName::Timer]),
        history: Some(HistorySettings {
            compaction: Some(Compaction::Summarize),
            summary_model: Some("gpt-test".to_owned()),
        }),
        sampling: Some(SamplingBounds {
            temperature: Some(Bound {
                fixed: Some(0.3),
                min: None,
                max: None,
            }),
            top_p: Some(Bound {
                fixed: None,
                min: Some(0.5),
                max: Some(0.9),
            }),
            presence_penalty: None,
            frequency_penalty: None,
            max_output_tokens: Some(500),
            out_of_bounds: Some(OutOfBounds::Refuse),
        }),
    }
}

/// A raw POST of a tool named "Tutor": for definitions the typed client cannot send.
async fn post_raw(app: &TestApp, group_id: Uuid, definition: Value) -> TestResponse {
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
    let admin = app.admin_client();
    let group = api::group(&admin, "Org", None, json!({})).await;
    let create = |definition: ToolDefinition| {
        admin
            .admin_create_tool()
            // `null` asks for the default kind (the client would otherwise send "chat").
            .body_map(move |b| {
                b.group_id(group.id)
                    .name("Tutor")
                    .type_(None::<String>)
                    .definition(definition)
            })
            .send()
    };
    let created = create(full_definition()).await.assert_status(201);
    let tool_id = created.id;
    assert_eq!(
        location(&created),
        Some(format!("/v1/admin/tools/{tool_id}").as_str())
    );
    let tool = created.into_inner();
    assert_eq!(tool.group_id, group.id);
    assert_eq!(tool.name, "Tutor");
    assert_eq!(tool.type_, "chat", "the kind defaults to chat");
    assert_eq!(tool.definition, full_definition());

    let fetched = admin.admin_get_tool().id(tool_id).send().await;
    let fetched = fetched.assert_status(200).into_inner();
    assert_eq!(
        fetched.definition,
        full_definition(),
        "the definition comes back as given"
    );
    assert_eq!(fetched, tool);

    // Absent options are not filled in.
    let minimal = create(definition("Be brief.")).await.assert_status(201);
    assert_eq!(minimal.definition, definition("Be brief."));

    let listed = api::tools(&admin, 1).await;
    let ids: Vec<Uuid> = listed.iter().map(|t| t.id).collect();
    assert_eq!(ids, vec![minimal.id, tool_id]);
    assert_eq!(
        listed[1].definition,
        full_definition(),
        "lists carry it too"
    );
});

both_backends!(invalid_definitions_are_422, |app| async move {
    let admin = app.admin_client();
    let group = api::group(&admin, "Org", None, json!({})).await;
    let create = |group_id: Uuid, definition: ToolDefinition| {
        admin
            .admin_create_tool()
            .body_map(move |b| b.group_id(group_id).name("Tutor").definition(definition))
            .send()
    };

    // Unknown fields, anywhere in a definition, violate the schema: raw requests.
    let unknown = post_raw(&app, group.id, json!({"behavior": "x", "temperature": 2})).await;
    assert_names_field(&unknown, "temperature");
    let nested = post_raw(
        &app,
        group.id,
        json!({"behavior": "x", "constraints": {"topics": [], "max_words": 10}}),
    )
    .await;
    assert_names_field(&nested, "max_words");
    let in_module = post_raw(
        &app,
        group.id,
        json!({"behavior": "x", "modules": [{"name": "pii", "enabled": true}]}),
    )
    .await;
    assert_names_field(&in_module, "enabled");
    // So do a missing behavior (the detail does not name it: poem-openapi says "found
    // null"), a mistyped field and a definition that is no object.
    for definition in [
        json!({"model": "m"}),
        json!({"behavior": "x", "functions": "todos_list"}),
        json!("just a string"),
    ] {
        let response = post_raw(&app, group.id, definition.clone()).await;
        assert_eq!(
            response.assert_problem(422),
            "validation_failed",
            "{definition}"
        );
    }
    let out_of_bounds = [
        ToolDefinition {
            max_messages: Some(0),
            ..definition("x")
        },
        ToolDefinition {
            model: Some(String::new()),
            ..definition("x")
        },
    ];
    for definition in out_of_bounds {
        let response = create(group.id, definition.clone()).await;
        assert_eq!(
            response.assert_problem(422),
            "validation_failed",
            "{definition:?}"
        );
    }

    let missing = create(Uuid::now_v7(), definition("x")).await;
    assert_eq!(missing.assert_problem(422), "group_not_found");
    let listed = api::tools(&admin, 100).await;
    assert_eq!(listed, Vec::new(), "nothing was created");
});

both_backends!(patch_tool, |app| async move {
    let admin = app.admin_client();
    let group = api::group(&admin, "Org", None, json!({})).await;
    let tool = api::tool_with(&admin, group.id, "Tutor", full_definition()).await;
    let path = format!("/v1/admin/tools/{}", tool.id);
    let update = || admin.admin_update_tool().id(tool.id);
    let get = || admin.admin_get_tool().id(tool.id).send();

    let renamed = update()
        .body_map(|b| b.name("Coach".to_owned()).type_("quiz".to_owned()))
        .send()
        .await
        .assert_status(200);
    assert_eq!(renamed.name, "Coach");
    assert_eq!(renamed.type_, "quiz");
    assert_eq!(renamed.definition, full_definition(), "absent stays");

    let replacement = ToolDefinition {
        constraints: Some(ToolConstraints {
            topics: Some(vec!["logic".to_owned()]),
            no_direct_answers: None,
        }),
        ..definition("New behavior.")
    };
    let replaced = update()
        .body_map(|b| b.definition(replacement.clone()))
        .send()
        .await
        .assert_status(200);
    assert_eq!(
        replaced.definition, replacement,
        "the definition is replaced as a whole"
    );
    let fetched = get().await.assert_status(200);
    assert_eq!(fetched.definition, replacement);
    assert_eq!(fetched.name, "Coach");

    // An unknown constraint, and a `group_id` (an update has none), violate the schema:
    // raw requests.
    let bad = app
        .patch_json(
            &path,
            app.admin(),
            &json!({"definition": {"behavior": "x", "constraints": {"tone": "dry"}}}),
        )
        .await;
    assert_names_field(&bad, "tone");
    let moved = app
        .patch_json(&path, app.admin(), &json!({"group_id": Uuid::now_v7()}))
        .await;
    assert_names_field(&moved, "group_id");
    assert_eq!(get().await.assert_status(200).definition, replacement);
});

both_backends!(delete_tools, |app| async move {
    let admin = app.admin_client();
    let student = api::student_with_tool(&app, "user@example.com").await;
    api::session(&app.client_as(&student.token), student.tool.id).await;
    let delete = |id: Uuid| admin.admin_delete_tool().id(id).send();
    let get = |id: Uuid| admin.admin_get_tool().id(id).send();

    let blocked = delete(student.tool.id).await;
    assert_eq!(blocked.assert_problem(409), "tool_in_use");
    get(student.tool.id).await.assert_status(200);

    // An assignment holds its tool as well.
    let group_id = student.group.id;
    let assigned = api::tool(&admin, group_id, "Assigned", "x").await;
    let class = api::class(&admin, group_id, "Class").await;
    api::assignment(&admin, class.id, assigned.id, "Homework").await;
    let blocked = delete(assigned.id).await;
    assert_eq!(blocked.assert_problem(409), "tool_in_use");

    let unused = api::tool(&admin, group_id, "Unused", "x").await;
    delete(unused.id).await.assert_status(204);
    get(unused.id).await.assert_problem(404);
    delete(unused.id).await.assert_problem(404);
});

both_backends!(tools_answer_their_group_name, |app| async move {
    let admin = app.admin_client();
    let group = api::group(&admin, "Science", None, json!({})).await;
    let tool = api::tool(&admin, group.id, "Lab helper", "Help in the lab.").await;
    assert_eq!(tool.group_name.as_deref(), Some("Science"), "{tool:?}");
    let other = api::group(&admin, "Arts", None, json!({})).await;
    api::tool(&admin, other.id, "Muse", "Inspire.").await;

    admin
        .admin_update_group()
        .id(group.id)
        .body_map(|b| b.name("Natural sciences".to_owned()))
        .send()
        .await
        .assert_status(200);
    let fetched = admin
        .admin_get_tool()
        .id(tool.id)
        .send()
        .await
        .assert_status(200);
    assert_eq!(fetched.group_name.as_deref(), Some("Natural sciences"));
    let renamed = admin
        .admin_update_tool()
        .id(tool.id)
        .body_map(|b| b.name("Lab partner".to_owned()))
        .send()
        .await
        .assert_status(200);
    assert_eq!(renamed.group_name.as_deref(), Some("Natural sciences"));
    let listed = api::tools(&admin, 1).await;
    let named: Vec<(&str, Option<&str>)> = listed
        .iter()
        .map(|t| (t.name.as_str(), t.group_name.as_deref()))
        .collect();
    assert_eq!(
        named,
        vec![
            ("Muse", Some("Arts")),
            ("Lab partner", Some("Natural sciences"))
        ]
    );
});

both_backends!(the_deployments_modules_are_listed, |app| async move {
    let modules = app
        .admin_client()
        .admin_list_modules()
        .send()
        .await
        .assert_status(200)
        .into_inner()
        .items;
    let names: Vec<&str> = modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec!["analytics", "pii_redactor", "safety_filter"]);
    let pii = &modules[1];
    assert_eq!(pii.kind, ModuleKindName::PiiRedactor);
    assert_eq!(pii.hooks, vec![Hook::ChatBeforeAi]);
    assert!(!pii.fail_closed);
    assert!(pii.description.contains("`types`"), "{pii:?}");
    let safety = &modules[2];
    assert!(safety.fail_closed, "safety filters fail closed: {safety:?}");
    assert!(safety.priority < pii.priority, "safety runs first");

    // Each listed name is one a tool definition may use; another is refused.
    let group = api::group(&app.admin_client(), "G", None, json!({})).await;
    let every = ToolDefinition {
        modules: Some(
            names
                .iter()
                .map(|name| ToolModule {
                    name: (*name).to_owned(),
                    config: None,
                })
                .collect(),
        ),
        ..definition("x")
    };
    api::tool_with(&app.admin_client(), group.id, "All modules", every).await;
    let unknown = post_raw(
        &app,
        group.id,
        json!({"behavior": "x", "modules": [{"name": "nope"}]}),
    )
    .await;
    assert_eq!(unknown.assert_problem(422), "unknown_module");
});
