//! Bearer authentication and the admin role check.
//!
//! Through the typed client (`parley_tests::client`): a missing or unknown token is just
//! a client without or with another `Authorization` header, so no request here is raw.

use parley_tests::client::{Client, Error};
use parley_tests::{ApiResult, both_backends, problem};

use crate::fixtures::api::uuid;

/// Whether the bootstrap admin is among the users the client lists (one page of 100).
async fn lists_the_admin(client: &Client, email: &str) -> bool {
    let users = client
        .admin_list_users()
        .limit(100)
        .send()
        .await
        .assert_status(200)
        .into_inner();
    users.items.iter().any(|u| u.email == email)
}

both_backends!(missing_token_is_401_with_challenge, |app| async move {
    let result = app.anonymous_client().list_sessions().send().await;
    let challenge = match &result {
        Err(Error::ErrorResponse(response)) => response.headers().get("www-authenticate").cloned(),
        _ => None,
    };
    let (status, problem) = problem(result);
    assert_eq!(
        (status, problem.code.as_str()),
        (401, "unauthenticated"),
        "{problem:?}"
    );
    assert!(
        challenge.is_some(),
        "a 401 must carry WWW-Authenticate: {problem:?}"
    );
});

both_backends!(garbage_token_is_401, |app| async move {
    let response = app
        .client_as("prl_not-a-real-token")
        .list_sessions()
        .send()
        .await;
    assert_eq!(response.assert_problem(401), "unauthenticated");
});

both_backends!(valid_token_is_accepted, |app| async move {
    app.admin_client()
        .list_sessions()
        .send()
        .await
        .assert_status(200);
    let (_, token) = app.create_user("student@example.com", "student").await;
    app.client_as(&token)
        .list_sessions()
        .send()
        .await
        .assert_status(200);
});

both_backends!(revoked_token_is_401, |app| async move {
    let (user_id, token) = app.create_user("revoked@example.com", "student").await;
    let me = app.client_as(&token);
    me.list_sessions().send().await.assert_status(200);

    let admin = app.admin_client();
    let tokens = admin
        .admin_list_tokens()
        .id(uuid(&user_id))
        .send()
        .await
        .assert_status(200)
        .into_inner();
    let items = &tokens.items;
    // The one whose prefix starts the token, or the user's only token.
    let item = items
        .iter()
        .find(|item| !item.prefix.is_empty() && token.starts_with(&item.prefix))
        .or_else(|| (items.len() == 1).then(|| &items[0]))
        .unwrap_or_else(|| panic!("cannot tell which token is ours: {tokens:?}"));

    let revoked = admin
        .admin_revoke_token()
        .id(item.id)
        .send()
        .await
        .assert_status(200);
    assert!(revoked.revoked_at.is_some(), "{:?}", *revoked);
    let response = me.list_sessions().send().await;
    assert_eq!(response.assert_problem(401), "unauthenticated");
});

both_backends!(student_on_admin_route_is_403, |app| async move {
    let (_, token) = app.create_user("pupil@example.com", "student").await;
    let response = app.client_as(&token).admin_list_users().send().await;
    assert_eq!(response.assert_problem(403), "forbidden");
    app.admin_client()
        .admin_list_users()
        .send()
        .await
        .assert_status(200);
});

both_backends!(tokens_never_reach_the_logs, |backend: Backend| async move {
    // The most verbose logging Parley has, to catch a secret in any event or span field.
    let app = parley_tests::TestApp::spawn_with_env(backend, &[("PARLEY_LOG", "trace")]).await;
    let (user_id, token) = app.create_user("secretive@example.com", "student").await;
    let created = app
        .admin_client()
        .admin_create_token()
        .id(uuid(&user_id))
        .body_map(|b| b.name("laptop"))
        .send()
        .await
        .assert_status(201);
    let minted = created.secret.clone();
    assert!(!minted.is_empty(), "the secret, once: {:?}", *created);
    let typo = format!("{minted}x");
    app.client_as(&token)
        .list_sessions()
        .send()
        .await
        .assert_status(200);
    app.client_as(&minted)
        .list_sessions()
        .send()
        .await
        .assert_status(200);
    app.client_as(&typo)
        .list_sessions()
        .send()
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
        assert!(
            lists_the_admin(&app.client_as(&tokens[0]), "admin@parley.local").await,
            "the printed token is the admin's"
        );
        assert_ne!(tokens[0], app.admin_token, "not the harness's token");

        app.restart().await;
        assert_eq!(
            printed(&app.full_server_log()).len(),
            1,
            "a restart prints no new token"
        );
        // A new client: the restarted server listens elsewhere.
        app.client_as(&tokens[0])
            .admin_list_users()
            .send()
            .await
            .assert_status(200);
    }
);
