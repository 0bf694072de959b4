//! Operational endpoints: liveness, readiness (database, Redis) and the OpenAPI document.

use parley_tests::{TestApp, both_backends, test_redis_url};
use serde_json::Value;

/// Whether `value` has a `key` anywhere whose check passed: `"ok"`/`"up"`/`"pass"`/`true`,
/// or an object whose `status` is one of those.
fn check_passed(value: &Value, key: &str) -> bool {
    fn ok(v: &Value) -> bool {
        match v {
            Value::Bool(b) => *b,
            Value::String(s) => matches!(s.to_ascii_lowercase().as_str(), "ok" | "up" | "pass"),
            Value::Object(o) => o.get("status").is_some_and(ok),
            _ => false,
        }
    }
    match value {
        Value::Object(o) => o
            .iter()
            .any(|(k, v)| (k == key && ok(v)) || check_passed(v, key)),
        Value::Array(a) => a.iter().any(|v| check_passed(v, key)),
        _ => false,
    }
}

both_backends!(healthz_answers_200, |app| async move {
    app.get("/healthz", None).await.assert_status(200);
});

both_backends!(readyz_checks_the_database, |app| async move {
    let response = app.get("/readyz", None).await;
    response.assert_status(200);
    assert!(
        check_passed(&response.body, "database"),
        "/readyz must report a passing database check: {response}"
    );
});

both_backends!(
    readyz_checks_redis_when_configured,
    |backend: Backend| async move {
        let redis = test_redis_url();
        let app = TestApp::spawn_with_env(backend, &[("PARLEY_REDIS_URL", &redis)]).await;
        let response = app.get("/readyz", None).await;
        response.assert_status(200);
        assert!(
            check_passed(&response.body, "database") && check_passed(&response.body, "redis"),
            "/readyz must report passing database and redis checks: {response}"
        );
    }
);

both_backends!(
    readyz_is_503_when_redis_is_down,
    |backend: Backend| async move {
        // Nothing listens on port 1: the server must still start, and say it is not ready.
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_REDIS_URL", "redis://127.0.0.1:1/")]).await;
        app.get("/healthz", None).await.assert_status(200);
        let response = app.get("/readyz", None).await;
        let code = response.assert_problem(503);
        assert!(!code.is_empty(), "the problem needs a code: {response}");
    }
);

both_backends!(openapi_document_lists_the_api, |app| async move {
    let response = app.get("/openapi.json", None).await;
    response.assert_status(200);
    let version = response.body["openapi"].as_str().unwrap_or_default();
    assert!(version.starts_with("3."), "openapi version {version:?}");
    assert!(
        response.body["paths"].get("/v1/sessions").is_some(),
        "the document's paths must include /v1/sessions: {}",
        response.body["paths"]
    );
});

both_backends!(interactive_docs_are_served, |app| async move {
    let response = app.get("/docs", None).await;
    response.assert_status(200);
    assert!(
        response.content_type().starts_with("text/html"),
        "{response}"
    );
    assert!(
        response.text.contains("openapi.json") || response.text.to_lowercase().contains("swagger")
    );
});

both_backends!(
    api_role_refuses_to_start_on_pending_migrations,
    |app| async move {
        let mut app = app;
        app.stop().await;
        let down = app.cli(&["migrate", "down", "--all"]).await;
        assert!(
            down.status.success(),
            "migrate down: {}",
            String::from_utf8_lossy(&down.stderr)
        );
        let started = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            app.cli(&["api", "--listen", "127.0.0.1:0"]),
        )
        .await
        .expect("`parley api` must exit instead of serving on an unmigrated database");
        assert!(!started.status.success());
        let stderr = String::from_utf8_lossy(&started.stderr);
        assert!(
            stderr.contains("parley migrate up"),
            "the error says what to do: {stderr}"
        );
    }
);

both_backends!(a_bad_setting_names_its_key, |app| async move {
    let output = app
        .cli_with_env(
            &["migrate", "status"],
            &[("PARLEY_LIMITS__MAX_BODY_BYTES", "lots")],
        )
        .await;
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("limits.max_body_bytes"), "{stderr}");
});
