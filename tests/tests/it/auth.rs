//! Bearer authentication and the admin role check.

use parley_tests::both_backends;

both_backends!(missing_token_is_401_with_challenge, |app| async move {
    let response = app.get("/v1/sessions", None).await;
    assert_eq!(response.assert_problem(401), "unauthenticated");
    assert!(
        response.header("www-authenticate").is_some(),
        "a 401 must carry WWW-Authenticate: {response}"
    );
});

both_backends!(garbage_token_is_401, |app| async move {
    let response = app.get("/v1/sessions", Some("prl_not-a-real-token")).await;
    assert_eq!(response.assert_problem(401), "unauthenticated");
});

both_backends!(valid_token_is_accepted, |app| async move {
    app.get("/v1/sessions", app.admin())
        .await
        .assert_status(200);
    let (_, token) = app.create_user("student@example.com", "student").await;
    app.get("/v1/sessions", Some(&token))
        .await
        .assert_status(200);
});

both_backends!(revoked_token_is_401, |app| async move {
    let (user_id, token) = app.create_user("revoked@example.com", "student").await;
    app.get("/v1/sessions", Some(&token))
        .await
        .assert_status(200);

    let tokens = app
        .get(&format!("/v1/admin/users/{user_id}/tokens"), app.admin())
        .await;
    tokens.assert_status(200);
    let items = tokens.body["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no `items` list: {tokens}"));
    // The one whose prefix starts the token, or the user's only token.
    let item = items
        .iter()
        .find(|item| {
            item["prefix"]
                .as_str()
                .is_some_and(|prefix| !prefix.is_empty() && token.starts_with(prefix))
        })
        .or_else(|| (items.len() == 1).then(|| &items[0]))
        .unwrap_or_else(|| panic!("cannot tell which token is ours: {tokens}"));
    let token_id = item["id"].as_str().expect("the token's id");

    let revoked = app
        .delete(&format!("/v1/admin/tokens/{token_id}"), app.admin())
        .await;
    assert!(
        (200..300).contains(&revoked.status),
        "revoking failed: {revoked}"
    );
    let response = app.get("/v1/sessions", Some(&token)).await;
    assert_eq!(response.assert_problem(401), "unauthenticated");
});

both_backends!(student_on_admin_route_is_403, |app| async move {
    let (_, token) = app.create_user("pupil@example.com", "student").await;
    let response = app.get("/v1/admin/users", Some(&token)).await;
    assert_eq!(response.assert_problem(403), "forbidden");
    app.get("/v1/admin/users", app.admin())
        .await
        .assert_status(200);
});

both_backends!(tokens_never_reach_the_logs, |backend: Backend| async move {
    // The most verbose logging Parley has, to catch a secret in any event or span field.
    let app = parley_tests::TestApp::spawn_with_env(backend, &[("PARLEY_LOG", "trace")]).await;
    let (user_id, token) = app.create_user("secretive@example.com", "student").await;
    let created = app
        .post_json(
            &format!("/v1/admin/users/{user_id}/tokens"),
            app.admin(),
            &serde_json::json!({"name": "laptop"}),
        )
        .await;
    created.assert_status(201);
    let minted = created.body["secret"]
        .as_str()
        .expect("the secret, once")
        .to_owned();
    let typo = format!("{minted}x");
    app.get("/v1/sessions", Some(&token))
        .await
        .assert_status(200);
    app.get("/v1/sessions", Some(&minted))
        .await
        .assert_status(200);
    app.get("/v1/sessions", Some(&typo))
        .await
        .assert_problem(401);

    // The log is copied from the child's pipes asynchronously; let it catch up.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let log = app.full_server_log();
    assert!(
        log.matches("served").count() >= 3,
        "the requests were logged: {log}"
    );
    for secret in [
        app.admin_token.as_str(),
        token.as_str(),
        minted.as_str(),
        typo.as_str(),
    ] {
        assert!(!log.contains(secret), "a token appears in the server log");
    }
});

both_backends!(
    first_admin_token_is_printed_once,
    |backend: Backend| async move {
        // No configured bootstrap token: Parley mints one and prints it on stdout, once.
        let mut app =
            parley_tests::TestApp::spawn_with_env(backend, &[("PARLEY_BOOTSTRAP_ADMIN_TOKEN", "")])
                .await;
        let printed = |log: &str| -> Vec<String> {
            log.lines()
                .filter(|line| line.contains("admin token (shown once"))
                .filter_map(|line| {
                    line.split_whitespace()
                        .find(|w| w.starts_with("prl_"))
                        .map(str::to_owned)
                })
                .collect()
        };
        let tokens = printed(&app.full_server_log());
        assert_eq!(tokens.len(), 1, "one token printed: {}", app.server_log());
        let me = app.get("/v1/admin/users", Some(&tokens[0])).await;
        me.assert_status(200);
        assert!(me.text.contains("admin@parley.local"), "{me}");
        assert_ne!(tokens[0], app.admin_token, "not the harness's token");

        app.restart().await;
        assert_eq!(
            printed(&app.full_server_log()).len(),
            1,
            "a restart prints no new token"
        );
        app.get("/v1/admin/users", Some(&tokens[0]))
            .await
            .assert_status(200);
    }
);
