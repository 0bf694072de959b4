//! Operational endpoints: liveness, readiness (database, Redis) and the OpenAPI document.
//!
//! `/healthz` and `/readyz` through the typed client (`parley_tests::client`);
//! `/openapi.json` and `/docs` are no operations of the document, so they stay raw.

use parley_tests::client::types::Readiness;
use parley_tests::{ApiResult, TestApp, both_backends, test_redis_url};

/// Whether the readiness report has a check `name` that passed (`ok`, as documented).
fn check_passed(readiness: &Readiness, name: &str) -> bool {
    readiness.checks.get(name).map(String::as_str) == Some("ok")
}

both_backends!(healthz_answers_200, |app| async move {
    let health = app
        .anonymous_client()
        .healthz()
        .send()
        .await
        .unwrap_or_else(|err| panic!("/healthz: {err:?}"));
    assert_eq!(health.status().as_u16(), 200, "{:?}", *health);
});

both_backends!(readyz_checks_the_database, |app| async move {
    let readiness = app
        .anonymous_client()
        .readyz()
        .send()
        .await
        .assert_status(200)
        .into_inner();
    assert!(
        check_passed(&readiness, "database"),
        "/readyz must report a passing database check: {readiness:?}"
    );
});

both_backends!(
    readyz_checks_redis_when_configured,
    |backend: Backend| async move {
        let redis = test_redis_url();
        let app = TestApp::spawn_with_env(backend, &[("PARLEY_REDIS_URL", &redis)]).await;
        let readiness = app
            .anonymous_client()
            .readyz()
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert!(
            check_passed(&readiness, "database") && check_passed(&readiness, "redis"),
            "/readyz must report passing database and redis checks: {readiness:?}"
        );
    }
);

both_backends!(
    readyz_is_503_when_redis_is_down,
    |backend: Backend| async move {
        // Nothing listens on port 1: the server must still start, and say it is not ready.
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_REDIS_URL", "redis://127.0.0.1:1/")]).await;
        let anonymous = app.anonymous_client();
        let health = anonymous
            .healthz()
            .send()
            .await
            .unwrap_or_else(|err| panic!("/healthz: {err:?}"));
        assert_eq!(health.status().as_u16(), 200, "{:?}", *health);
        let code = anonymous.readyz().send().await.assert_problem(503);
        assert!(!code.is_empty(), "the problem needs a code");
    }
);

both_backends!(openapi_document_lists_the_api, |app| async move {
    // The document itself is no operation of the document: a raw request.
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
    // An HTML page, no operation of the document: a raw request.
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
