//! `/v1/admin/users` and `/v1/admin/…/tokens`: users' lifecycle and their API tokens.
//!
//! Through the typed client (`parley_tests::client`); raw requests only for bodies no
//! schema of the API can express, and to look at the raw JSON of tokens.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use parley_tests::client::Client;
use parley_tests::client::types::{CreatedToken, User, UserRole};
use parley_tests::{ApiResult, TestApp, both_backends};
use serde_json::json;
use uuid::Uuid;

use crate::fixtures::api::{self, in_seconds, location, uuid};

/// Creates a user and checks its `Location`.
async fn create_user(admin: &Client, email: &str, name: &str, role: UserRole) -> User {
    let created = admin
        .admin_create_user()
        .body_map(|b| b.email(email).name(name).role(role))
        .send()
        .await
        .assert_status(201);
    let path = format!("/v1/admin/users/{}", created.id);
    assert_eq!(location(&created), Some(path.as_str()), "{created:?}");
    created.into_inner()
}

/// Creates a token for a user, expiring at `expires_at` when given.
async fn create_token(
    admin: &Client,
    user_id: Uuid,
    name: &str,
    expires_at: Option<DateTime<Utc>>,
) -> CreatedToken {
    admin
        .admin_create_token()
        .id(user_id)
        .body_map(|b| b.name(name).expires_at(expires_at))
        .send()
        .await
        .assert_status(201)
        .into_inner()
}

/// Whether `secret` opens the API (a request with it is accepted, or refused as
/// `unauthenticated`).
async fn secret_works(app: &TestApp, secret: &str) -> bool {
    match app.client_as(secret).list_sessions().send().await {
        Ok(listed) => {
            assert_eq!(listed.status().as_u16(), 200, "{listed:?}");
            true
        }
        result => {
            assert_eq!(result.assert_problem(401), "unauthenticated");
            false
        }
    }
}

/// The raw JSON of a token read (`path`) never holds the secret or its hash: the typed
/// client would drop such fields unseen, so this reads them raw.
async fn assert_no_secret(app: &TestApp, path: &str, secret: &str) {
    let response = app.get(path, app.admin()).await;
    response.assert_status(200);
    assert!(
        !response.text.contains(secret),
        "the secret is never shown again: {response}"
    );
    let body = &response.body;
    let tokens = match body["items"].as_array() {
        Some(items) => items.clone(),
        None => vec![body.clone()],
    };
    for token in &tokens {
        assert!(token.get("secret").is_none(), "no secret field: {token}");
        assert!(token.get("token_hash").is_none(), "no hash field: {token}");
    }
}

both_backends!(create_and_get_user, |app| async move {
    let admin = app.admin_client();
    // `null` asks for the default permissions (the client would otherwise send `[]`).
    let created = admin
        .admin_create_user()
        .body_map(|b| {
            b.email("Mixed.Case@Example.COM")
                .name("Mixed")
                .role(UserRole::Teacher)
                .permissions(None::<Vec<String>>)
        })
        .send()
        .await
        .assert_status(201);
    let path = format!("/v1/admin/users/{}", created.id);
    assert_eq!(location(&created), Some(path.as_str()));
    let user = created.into_inner();
    assert_eq!(user.email, "mixed.case@example.com", "{user:?}");
    assert_eq!(user.name, "Mixed");
    assert_eq!(user.role, UserRole::Teacher);
    assert!(user.permissions.is_empty(), "permissions default to none");

    let fetched = admin.admin_get_user().id(user.id).send().await;
    assert_eq!(
        *fetched.assert_status(200),
        user,
        "get answers what create answered"
    );

    for email in ["mixed.case@example.com", "MIXED.CASE@example.com"] {
        let duplicate = admin
            .admin_create_user()
            .body_map(|b| b.email(email).name("Again").role(UserRole::Student))
            .send()
            .await;
        assert_eq!(duplicate.assert_problem(409), "email_taken", "{email}");
    }
});

both_backends!(invalid_users_are_422, |app| async move {
    let admin = app.admin_client();
    for (email, name) in [
        ("not-an-email", "A"),
        ("two words@example.com", "A"),
        ("a@example.com", ""),
    ] {
        let response = admin
            .admin_create_user()
            .body_map(|b| b.email(email).name(name).role(UserRole::Student))
            .send()
            .await;
        assert_eq!(
            response.assert_problem(422),
            "validation_failed",
            "{email:?} {name:?} must be refused"
        );
    }
    // A role outside `UserRole`, and a missing name, violate the schema: raw requests.
    for body in [
        json!({"email": "a@example.com", "name": "A", "role": "root"}),
        json!({"email": "a@example.com", "role": "student"}),
    ] {
        let response = app.post_json("/v1/admin/users", app.admin(), &body).await;
        assert_eq!(
            response.assert_problem(422),
            "validation_failed",
            "{body} must be refused"
        );
    }
    let users = api::users(&admin, 100).await;
    assert_eq!(users.len(), 1, "only the admin exists: {users:?}");
});

both_backends!(user_pages_have_no_duplicates_or_gaps, |app| async move {
    let admin = app.admin_client();
    let mut created = Vec::new();
    for n in 0..5 {
        let email = format!("p{n}@example.com");
        let user = create_user(&admin, &email, &format!("P{n}"), UserRole::Student).await;
        created.push(user.id);
    }
    let admin_id = api::admin_id(&app).await;
    let list = || admin.admin_list_users();

    let first = list().limit(2).send().await.assert_status(200);
    assert_eq!(first.items.len(), 2);
    assert!(first.next_cursor.is_some(), "{first:?}");

    let seen: Vec<Uuid> = api::users(&admin, 2).await.iter().map(|u| u.id).collect();
    assert_eq!(seen.len(), 6, "five users and the admin: {seen:?}");
    let unique: HashSet<&Uuid> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no duplicates: {seen:?}");
    let mut expected: Vec<Uuid> = created.iter().rev().copied().collect();
    expected.push(admin_id);
    assert_eq!(seen, expected, "newest first, the bootstrap admin last");

    let bad = list().cursor("garbage").send().await;
    assert_eq!(bad.assert_problem(400), "invalid_cursor");
    let bad = list().limit(101).send().await;
    assert_eq!(bad.assert_problem(400), "invalid_parameter");
});

both_backends!(patch_user, |app| async move {
    let admin = app.admin_client();
    let user = create_user(&admin, "pat@example.com", "Pat", UserRole::Student).await;
    let update = || admin.admin_update_user().id(user.id);
    let get = || admin.admin_get_user().id(user.id).send();

    let renamed = update()
        .body_map(|b| b.name("Patricia".to_owned()))
        .send()
        .await
        .assert_status(200);
    assert_eq!(renamed.name, "Patricia");
    assert_eq!(renamed.role, UserRole::Student, "absent fields stay");
    assert_eq!(renamed.email, "pat@example.com");

    update()
        .body_map(|b| {
            b.role(UserRole::Teacher)
                .permissions(vec!["todos:write:self".to_owned()])
        })
        .send()
        .await
        .assert_status(200);
    let fetched = get().await.assert_status(200);
    assert_eq!(fetched.name, "Patricia");
    assert_eq!(fetched.role, UserRole::Teacher);
    assert_eq!(fetched.permissions, vec!["todos:write:self"]);
    assert_eq!(fetched.created_at, user.created_at);

    let cleared = update()
        .body_map(|b| b.permissions(Vec::<String>::new()))
        .send()
        .await
        .assert_status(200);
    assert!(cleared.permissions.is_empty(), "{cleared:?}");
    let empty_name = update().body_map(|b| b.name(String::new())).send().await;
    assert_eq!(empty_name.assert_problem(422), "validation_failed");
    // An update has no `email`: only a raw request can try to change it.
    let email = app
        .patch_json(
            &format!("/v1/admin/users/{}", user.id),
            app.admin(),
            &json!({"email": "x@example.com"}),
        )
        .await;
    assert_eq!(email.assert_problem(422), "validation_failed");
    assert_eq!(get().await.assert_status(200).name, "Patricia");
});

both_backends!(admin_cannot_demote_or_delete_self, |app| async move {
    let admin = app.admin_client();
    let admin_id = api::admin_id(&app).await;
    let update = |id: Uuid| admin.admin_update_user().id(id);
    for role in [UserRole::Teacher, UserRole::Student] {
        let demote = update(admin_id).body_map(|b| b.role(role)).send().await;
        assert_eq!(demote.assert_problem(409), "cannot_demote_self");
    }
    let delete = admin.admin_delete_user().id(admin_id).send().await;
    assert_eq!(delete.assert_problem(409), "cannot_delete_self");

    let me = admin.admin_get_user().id(admin_id).send().await;
    assert_eq!(me.assert_status(200).role, UserRole::Admin);
    // Other changes to oneself are allowed.
    let renamed = update(admin_id)
        .body_map(|b| b.name("Root".to_owned()).role(UserRole::Admin))
        .send()
        .await
        .assert_status(200);
    assert_eq!(renamed.name, "Root");

    // Another admin may be demoted and deleted.
    let (other_id, _) = app.create_user("second@example.com", "admin").await;
    let demoted = update(uuid(&other_id))
        .body_map(|b| b.role(UserRole::Student))
        .send()
        .await
        .assert_status(200);
    assert_eq!(demoted.role, UserRole::Student);
});

both_backends!(delete_user_without_sessions, |app| async move {
    let admin = app.admin_client();
    let (user_id, token) = app.create_user("gone@example.com", "student").await;
    let user_id = uuid(&user_id);
    let group = api::group(&admin, "Club", None, json!({})).await;
    api::add_member(&admin, group.id, user_id).await;
    let delete = || admin.admin_delete_user().id(user_id).send();

    delete().await.assert_status(204);
    admin
        .admin_get_user()
        .id(user_id)
        .send()
        .await
        .assert_problem(404);
    delete().await.assert_problem(404);
    let members = api::members(&admin, group.id, 100).await;
    assert_eq!(members, Vec::new(), "memberships go too");
    let response = app.client_as(&token).list_tools().send().await;
    assert_eq!(
        response.assert_problem(401),
        "unauthenticated",
        "tokens go too"
    );
});

both_backends!(delete_user_with_a_session_is_409, |app| async move {
    let admin = app.admin_client();
    let student = api::student_with_tool(&app, "busy@example.com").await;
    let client = app.client_as(&student.token);
    api::session(&client, student.tool.id).await;

    let response = admin.admin_delete_user().id(student.user_id).send().await;
    assert_eq!(response.assert_problem(409), "user_has_sessions");
    admin
        .admin_get_user()
        .id(student.user_id)
        .send()
        .await
        .assert_status(200);
    client.list_sessions().send().await.assert_status(200);
});

both_backends!(token_lifecycle, |app| async move {
    let admin = app.admin_client();
    let (user_id, _) = app.create_user("tok@example.com", "student").await;
    let user_id = uuid(&user_id);
    let CreatedToken { secret, token } = create_token(&admin, user_id, "laptop", None).await;
    assert!(secret.starts_with("prl_"), "{secret}");
    assert_eq!(token.user_id, user_id);
    assert_eq!(token.name, "laptop");
    // Unset times are omitted (`None`).
    assert!(token.last_used_at.is_none(), "{token:?}");
    assert!(token.revoked_at.is_none(), "{token:?}");
    assert!(token.expires_at.is_none(), "{token:?}");

    assert!(secret_works(&app, &secret).await);

    let listed = api::tokens(&admin, user_id).await;
    assert_eq!(listed.len(), 2, "the CLI's token and ours: {listed:?}");
    assert_no_secret(&app, &format!("/v1/admin/users/{user_id}/tokens"), &secret).await;
    assert_eq!(listed[0].id, token.id, "newest first");
    let prefix = &listed[0].prefix;
    assert!(
        prefix.len() >= 4 && secret.starts_with(prefix.as_str()) && prefix.len() < secret.len(),
        "the prefix starts the secret: {prefix:?}"
    );
    assert!(
        listed[0].last_used_at.is_some(),
        "last_used_at is set by a use: {listed:?}"
    );

    let revoke = || admin.admin_revoke_token().id(token.id).send();
    let revoked = revoke().await.assert_status(200).into_inner();
    assert!(revoked.revoked_at.is_some(), "{revoked:?}");
    assert!(
        !secret_works(&app, &secret).await,
        "a revoked token is refused"
    );

    let again = revoke().await.assert_status(200);
    assert_eq!(
        again.revoked_at, revoked.revoked_at,
        "revoking twice keeps the first time"
    );
    let listed = api::tokens(&admin, user_id).await;
    let ours = listed
        .iter()
        .find(|t| t.id == token.id)
        .unwrap_or_else(|| panic!("revoked tokens are still listed: {listed:?}"));
    assert_eq!(ours.revoked_at, revoked.revoked_at);
    let fetched = admin.admin_get_token().id(token.id).send().await;
    assert_eq!(fetched.assert_status(200).revoked_at, revoked.revoked_at);
    assert_no_secret(&app, &format!("/v1/admin/tokens/{}", token.id), &secret).await;
});

both_backends!(token_expiry, |app| async move {
    let admin = app.admin_client();
    let (user_id, _) = app.create_user("exp@example.com", "student").await;
    let user_id = uuid(&user_id);
    let expired = create_token(&admin, user_id, "old", Some(in_seconds(-60))).await;
    assert!(expired.token.expires_at.is_some(), "{expired:?}");
    assert!(!secret_works(&app, &expired.secret).await, "expired");

    let live = create_token(&admin, user_id, "new", Some(in_seconds(3600))).await;
    assert!(secret_works(&app, &live.secret).await);

    let nameless = admin
        .admin_create_token()
        .id(user_id)
        .body_map(|b| b.name(""))
        .send()
        .await;
    assert_eq!(nameless.assert_problem(422), "validation_failed");
});

both_backends!(users_are_searched_by_email_or_name, |app| async move {
    let admin = app.admin_client();
    let ada = create_user(&admin, "ada@example.com", "Ada Lovelace", UserRole::Student).await;
    let grace = create_user(&admin, "grace@navy.test", "Grace Hopper", UserRole::Teacher).await;
    let sure = create_user(&admin, "sure@example.com", "100% Sure", UserRole::Student).await;
    let search = |q: &str| {
        let request = admin.admin_list_users().q(q.to_owned()).limit(100);
        async move {
            let page = request.send().await.assert_status(200).into_inner();
            page.items.iter().map(|u| u.id).collect::<Vec<Uuid>>()
        }
    };

    assert_eq!(
        search("ADA").await,
        vec![ada.id],
        "an email or a name, any case"
    );
    assert_eq!(search("hopper").await, vec![grace.id], "a piece of a name");
    assert_eq!(
        search("NAVY.t").await,
        vec![grace.id],
        "a piece of an email"
    );
    assert_eq!(
        search("example.com").await,
        vec![sure.id, ada.id],
        "newest first"
    );
    assert_eq!(
        search("%").await,
        vec![sure.id],
        "`%` is a literal percent sign"
    );
    assert!(search("_").await.is_empty(), "`_` is a literal underscore");
    assert!(search("nobody").await.is_empty());
    let everyone = search("  ").await;
    assert_eq!(
        everyone.len(),
        4,
        "a blank search is every user: {everyone:?}"
    );

    // The search pages like the list: one user a page, no gaps.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut request = admin.admin_list_users().q("example.com").limit(1);
        if let Some(cursor) = cursor.take() {
            request = request.cursor(cursor);
        }
        let page = request.send().await.assert_status(200).into_inner();
        seen.extend(page.items.iter().map(|u| u.id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, vec![sure.id, ada.id], "pages of one");

    // A renamed user is found by the new name, not the old one.
    admin
        .admin_update_user()
        .id(ada.id)
        .body_map(|b| b.name("Augusta King".to_owned()))
        .send()
        .await
        .assert_status(200);
    assert_eq!(search("augusta").await, vec![ada.id]);
    assert!(search("lovelace").await.is_empty());

    let long = "a".repeat(201);
    let too_long = admin.admin_list_users().q(long).send().await;
    assert_eq!(too_long.assert_problem(400), "invalid_parameter");
});
