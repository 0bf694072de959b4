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

    let log = app.server_log();
    assert!(
        log.contains("TRACE") || log.contains("DEBUG"),
        "the server logged at trace level: {log}"
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
