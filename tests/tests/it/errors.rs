//! The error contract: bad bodies, unknown fields, size limits and unknown routes all
//! answer problem+json with a stable code and the request id.
//!
//! Most of these requests are malformed on purpose (broken JSON, an unknown field, a
//! path parameter of the wrong type, a route the document does not have), which the
//! typed client (`parley_tests::client`) cannot send: they stay raw, each saying why.

use parley_tests::client::types::UserRole;
use parley_tests::{ApiResult, both_backends};
use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::json;

both_backends!(malformed_json_is_400, |app| async move {
    // A body that is not JSON: only a raw request can send it.
    let request = app
        .request(Method::POST, "/v1/admin/users", app.admin())
        .header(CONTENT_TYPE, "application/json")
        .body("{not json");
    let response = app.send(request).await;
    assert_eq!(response.assert_problem(400), "malformed_json");
});

both_backends!(unknown_field_is_422_naming_it, |app| async move {
    // `bogus` is no field of `CreateUser`: only a raw request can send it.
    let body = json!({"email": "a@b.c", "name": "A", "role": "student", "bogus": 1});
    let response = app.post_json("/v1/admin/users", app.admin(), &body).await;
    assert_eq!(response.assert_problem(422), "validation_failed");
    let detail = response.body["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("bogus"),
        "the detail must name the field: {response}"
    );
});

both_backends!(
    a_value_that_does_not_fit_is_422_naming_its_field_not_its_value,
    |app| async move {
        // Roles the document does not list: only a raw request can send them. Something
        // pasted into the field is not repeated; a misspelt name is.
        let secret = "prl_pasted0123456789abcdefghijklmnopqrstuvwxyz";
        for (role, shown) in [
            (json!({"token": secret}), None),
            (json!(secret), None),
            (json!("teachr"), Some("`teachr`")),
        ] {
            let body = json!({"email": "a@b.c", "name": "A", "role": role});
            let response = app.post_json("/v1/admin/users", app.admin(), &body).await;
            assert_eq!(response.assert_problem(422), "validation_failed");
            assert_eq!(response.body["param"], "role", "{response}");
            let detail = response.body["detail"].as_str().unwrap_or_default();
            assert!(detail.starts_with("`role`: "), "{response}");
            assert!(!response.text.contains(secret), "{response}");
            if let Some(shown) = shown {
                assert!(detail.contains(shown), "{response}");
            }
        }
    }
);

both_backends!(body_over_the_limit_is_413, |app| async move {
    // 2 MiB of JSON against the default 1 MiB limit (the client does not check the
    // document's `maxLength`, see tests/build.rs).
    let result = app
        .admin_client()
        .admin_create_user()
        .body_map(|b| {
            b.email("big@b.c")
                .name("x".repeat(2 << 20))
                .role(UserRole::Student)
        })
        .send()
        .await;
    assert_eq!(result.assert_problem(413), "payload_too_large");
});

both_backends!(bad_path_parameter_is_404, |app| async move {
    // The client's `id` is a UUID: only a raw request can put anything else in the path.
    let response = app.get("/v1/sessions/not-a-uuid", app.admin()).await;
    response.assert_problem(404);
});

both_backends!(unknown_route_is_404_problem, |app| async move {
    // Routes the document does not have: raw requests.
    let response = app.get("/v1/no-such-thing", app.admin()).await;
    response.assert_problem(404);
    let response = app.get("/nope", None).await;
    response.assert_problem(404);
    // A client whose base URL ends with `/v1` is told so.
    for path in ["/v1/v1/tools", "/openai/v1/v1/models"] {
        let response = app.get(path, app.admin()).await;
        response.assert_status(404);
        // problem+json under /v1, OpenAI's error shape under /openai/.
        let said = response.body["detail"]
            .as_str()
            .or(response.body["error"]["message"].as_str())
            .unwrap_or_default();
        assert!(
            said.contains("base URL ends with `/v1`"),
            "{path}: {response}"
        );
    }
    let response = app.get("/v1/no-such-thing", app.admin()).await;
    assert!(!response.text.contains("base URL"), "{response}");
});
