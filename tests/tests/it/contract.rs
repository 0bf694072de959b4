//! The contract the OpenAPI document states, where a generated client or a schema fuzzer
//! would find a gap: strict JSON types, role checks before the body, `Allow` on 405,
//! absent fields omitted rather than `null`. Most requests here are deliberately
//! malformed, so they are raw; well-formed ones go through the generated client.

use parley_tests::{ApiResult, TestApp, both_backends};
use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::{self, api::uuid, id};

/// Every `null` in a JSON document, by path.
fn nulls(value: &Value, at: &str, found: &mut Vec<String>) {
    match value {
        Value::Null => found.push(at.to_owned()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                nulls(item, &format!("{at}[{i}]"), found);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                nulls(item, &format!("{at}.{key}"), found);
            }
        }
        _ => {}
    }
}

both_backends!(non_admins_get_403_whatever_the_body, |app| async move {
    let student = fixtures::student_with_tool(&app, "nosy@example.com").await;
    let tool_path = format!("/v1/admin/tools/{}", id(&student.tool));
    let bodies = [
        (Method::POST, "/v1/admin/users", json!({})),
        (
            Method::POST,
            "/v1/admin/users",
            json!({"email": 5, "role": "wizard"}),
        ),
        (
            Method::POST,
            "/v1/admin/users",
            json!({"email": "a@b.c", "name": "A", "role": "student"}),
        ),
        (Method::POST, "/v1/admin/groups", json!({"name": ""})),
        (Method::PATCH, tool_path.as_str(), json!({"definition": 3})),
    ];
    for (method, path, body) in bodies {
        // Deliberately invalid admin bodies, sent raw.
        let request = app
            .request(method.clone(), path, Some(&student.token))
            .json(&body);
        let response = app.send(request).await;
        assert_eq!(
            response.assert_problem(403),
            "forbidden",
            "{method} {path} {body}"
        );
        assert!(
            !response.text.contains("parse") && !response.text.contains("CreateUser"),
            "no admin schema leaks to a non-admin: {response}"
        );
    }
    // Not even JSON: still the role first. Without credentials, 401 comes first.
    let not_json = |token: Option<&str>| {
        app.request(Method::POST, "/v1/admin/users", token)
            .header("content-type", "application/json")
            .body("{not json")
    };
    let response = app.send(not_json(Some(&student.token))).await;
    assert_eq!(response.assert_problem(403), "forbidden");
    let response = app.send(not_json(None)).await;
    assert_eq!(response.assert_problem(401), "unauthenticated");
    // An admin gets the body's own problems.
    let response = app.send(not_json(app.admin())).await;
    assert_eq!(response.assert_problem(400), "malformed_json");
    let response = app
        .post_json("/v1/admin/users", app.admin(), &json!({"email": 5}))
        .await;
    assert_eq!(response.assert_problem(422), "validation_failed");
});

both_backends!(json_types_are_strict, |app| async move {
    let student = fixtures::student_with_tool(&app, "typist@example.com").await;
    let session = fixtures::session(&app, &student.token, &id(&student.tool)).await;
    let path = format!("/v1/sessions/{}/messages?background=true", id(&session));
    for body in [
        json!({"content": 42}),
        json!({"content": true}),
        json!({"content": 1.5}),
        json!({"content": null}),
        json!({"content": ["hi"]}),
        json!({"content": "hi", "model": 7}),
        json!({"content": "hi", "extra": 1}),
    ] {
        // Bodies that break the schema's types: raw.
        let response = app.post_json(&path, Some(&student.token), &body).await;
        assert_eq!(response.assert_problem(422), "validation_failed", "{body}");
    }
    // Nothing was recorded for any of them.
    let client = app.client_as(&student.token);
    let session_id = uuid(&id(&session));
    let messages = client
        .list_session_messages()
        .id(session_id)
        .send()
        .await
        .assert_status(200);
    assert!(messages.items.is_empty(), "{messages:?}");
    let fetched = client
        .get_session()
        .id(session_id)
        .send()
        .await
        .assert_status(200);
    assert_eq!(fetched.active_prompt_id, None);
    assert_eq!(fetched.message_count, 0);

    let response = app
        .post_json(
            "/v1/admin/users",
            app.admin(),
            &json!({"email": "x@y.z", "name": 5, "role": "student"}),
        )
        .await;
    assert_eq!(response.assert_problem(422), "validation_failed");
});

both_backends!(
    method_not_allowed_names_the_allowed_methods,
    |app| async move {
        for (method, path, allow) in [
            ("TRACE", "/v1/sessions", "GET, HEAD, POST"),
            ("DELETE", "/v1/models", "GET, HEAD"),
            (
                "PUT",
                "/v1/prompts/01940000-0000-7000-8000-000000000000/cancel",
                "POST",
            ),
            ("POST", "/healthz", "GET, HEAD"),
        ] {
            let method = Method::from_bytes(method.as_bytes()).expect("a method");
            let response = app
                .send(app.request(method.clone(), path, app.admin()))
                .await;
            assert_eq!(
                response.assert_problem(405),
                "method_not_allowed",
                "{method} {path}"
            );
            assert_eq!(
                response.header("allow"),
                Some(allow),
                "{method} {path}: {response}"
            );
        }
    }
);

both_backends!(an_admin_cannot_revoke_the_token_in_use, |app| async move {
    let admin = app.admin_client();
    let me = uuid(&fixtures::admin_id(&app).await);
    let tokens = admin
        .admin_list_tokens()
        .id(me)
        .send()
        .await
        .assert_status(200);
    let in_use = tokens
        .items
        .iter()
        .find(|t| t.name == "bootstrap")
        .expect("the bootstrap token");
    let code = admin
        .admin_revoke_token()
        .id(in_use.id)
        .send()
        .await
        .assert_problem(409);
    assert_eq!(code, "token_in_use");
    // Another of the admin's tokens can go.
    let spare = admin
        .admin_create_token()
        .id(me)
        .body_map(|b| b.name("spare"))
        .send()
        .await
        .assert_status(201);
    let revoked = admin
        .admin_revoke_token()
        .id(spare.token.id)
        .send()
        .await
        .assert_status(200);
    assert!(revoked.revoked_at.is_some());
    admin.list_models().send().await.assert_status(200);
});

both_backends!(
    absent_fields_are_omitted_not_null,
    |backend: Backend| async move {
        let app = TestApp::spawn(backend).await;
        let student = fixtures::student_with_tool(&app, "omit@example.com").await;
        let session = fixtures::session(&app, &student.token, &id(&student.tool)).await;
        let session_path = format!("/v1/sessions/{}", id(&session));
        let user_path = format!("/v1/admin/users/{}", student.user_id);
        let group_path = format!("/v1/admin/groups/{}", id(&student.group));
        let reads = [
            (session_path.as_str(), Some(student.token.as_str())),
            ("/v1/sessions", Some(student.token.as_str())),
            (
                &format!("{session_path}/streaming"),
                Some(student.token.as_str()),
            ),
            (user_path.as_str(), app.admin()),
            (group_path.as_str(), app.admin()),
            ("/v1/admin/users", app.admin()),
        ];
        for (path, token) in reads {
            // Read raw to see the JSON as sent, nulls and all.
            let response = app.get(path, token).await;
            response.assert_status(200);
            let mut found = vec![];
            nulls(&response.body, "$", &mut found);
            assert!(found.is_empty(), "{path}: null at {found:?}: {response}");
        }
    }
);

both_backends!(
    absent_optional_fields_take_their_defaults,
    |app| async move {
        // Raw: the generated client always sends the fields the document gives defaults.
        let user = app
            .post_json(
                "/v1/admin/users",
                app.admin(),
                &json!({"email": "d@e.f", "name": "D", "role": "student"}),
            )
            .await;
        user.assert_status(201);
        assert_eq!(user.body["permissions"], json!([]), "{user}");
        let group = fixtures::group(&app, "Defaults", None, json!({})).await;
        let tool = app
            .post_json(
                "/v1/admin/tools",
                app.admin(),
                &json!({"group_id": id(&group), "name": "T", "definition": {"behavior": "b"}}),
            )
            .await;
        tool.assert_status(201);
        assert_eq!(tool.body["type"], "chat", "{tool}");
        assert_eq!(
            tool.body["definition"],
            json!({"behavior": "b"}),
            "nothing filled in"
        );
    }
);
