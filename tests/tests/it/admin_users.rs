//! `/v1/admin/users` and `/v1/admin/…/tokens`: users' lifecycle and their API tokens.

use std::collections::HashSet;

use parley_tests::{TestApp, both_backends};
use serde_json::{Value, json};

use crate::fixtures::{self, id, in_seconds, items};

async fn create_user(app: &TestApp, body: Value) -> Value {
    let response = app.post_json("/v1/admin/users", app.admin(), &body).await;
    response.assert_status(201);
    let user_id = id(&response.body);
    assert_eq!(
        response.header("location"),
        Some(format!("/v1/admin/users/{user_id}").as_str()),
        "{response}"
    );
    response.body.clone()
}

async fn create_token(app: &TestApp, user_id: &str, body: Value) -> Value {
    let response = app
        .post_json(
            &format!("/v1/admin/users/{user_id}/tokens"),
            app.admin(),
            &body,
        )
        .await;
    response.assert_status(201);
    response.body.clone()
}

both_backends!(create_and_get_user, |app| async move {
    let user = create_user(
        &app,
        json!({"email": "Mixed.Case@Example.COM", "name": "Mixed", "role": "teacher"}),
    )
    .await;
    assert_eq!(user["email"], "mixed.case@example.com", "{user}");
    assert_eq!(user["name"], "Mixed");
    assert_eq!(user["role"], "teacher");
    assert_eq!(
        user["permissions"],
        json!([]),
        "permissions default to none"
    );

    let fetched = app
        .get(&format!("/v1/admin/users/{}", id(&user)), app.admin())
        .await;
    fetched.assert_status(200);
    assert_eq!(fetched.body, user, "get answers what create answered");

    for email in ["mixed.case@example.com", "MIXED.CASE@example.com"] {
        let body = json!({"email": email, "name": "Again", "role": "student"});
        let duplicate = app.post_json("/v1/admin/users", app.admin(), &body).await;
        assert_eq!(duplicate.assert_problem(409), "email_taken", "{email}");
    }
});

both_backends!(invalid_users_are_422, |app| async move {
    let bad = [
        json!({"email": "not-an-email", "name": "A", "role": "student"}),
        json!({"email": "two words@example.com", "name": "A", "role": "student"}),
        json!({"email": "a@example.com", "name": "", "role": "student"}),
        json!({"email": "a@example.com", "name": "A", "role": "root"}),
        json!({"email": "a@example.com", "role": "student"}),
    ];
    for body in bad {
        let response = app.post_json("/v1/admin/users", app.admin(), &body).await;
        assert_eq!(
            response.assert_problem(422),
            "validation_failed",
            "{body} must be refused"
        );
    }
    let users = fixtures::all_pages(&app, "/v1/admin/users", 100).await;
    assert_eq!(users.len(), 1, "only the admin exists: {users:?}");
});

both_backends!(user_pages_have_no_duplicates_or_gaps, |app| async move {
    let mut created = Vec::new();
    for n in 0..5 {
        let body = json!({"email": format!("p{n}@example.com"), "name": format!("P{n}"), "role": "student"});
        created.push(id(&create_user(&app, body).await));
    }
    let admin_id = fixtures::admin_id(&app).await;

    let first = app.get("/v1/admin/users?limit=2", app.admin()).await;
    first.assert_status(200);
    assert_eq!(items(&first).len(), 2);
    assert!(first.body["next_cursor"].is_string(), "{first}");

    let seen = fixtures::ids(&fixtures::all_pages(&app, "/v1/admin/users", 2).await);
    assert_eq!(seen.len(), 6, "five users and the admin: {seen:?}");
    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no duplicates: {seen:?}");
    let mut expected: Vec<String> = created.iter().rev().cloned().collect();
    expected.push(admin_id);
    assert_eq!(seen, expected, "newest first, the bootstrap admin last");

    let bad = app.get("/v1/admin/users?cursor=garbage", app.admin()).await;
    assert_eq!(bad.assert_problem(400), "invalid_cursor");
    let bad = app.get("/v1/admin/users?limit=101", app.admin()).await;
    assert_eq!(bad.assert_problem(400), "invalid_parameter");
});

both_backends!(patch_user, |app| async move {
    let user = create_user(
        &app,
        json!({"email": "pat@example.com", "name": "Pat", "role": "student"}),
    )
    .await;
    let path = format!("/v1/admin/users/{}", id(&user));

    let renamed = app
        .patch_json(&path, app.admin(), &json!({"name": "Patricia"}))
        .await;
    renamed.assert_status(200);
    assert_eq!(renamed.body["name"], "Patricia");
    assert_eq!(renamed.body["role"], "student", "absent fields stay");
    assert_eq!(renamed.body["email"], "pat@example.com");

    let changed = app
        .patch_json(
            &path,
            app.admin(),
            &json!({"role": "teacher", "permissions": ["todos:write:self"]}),
        )
        .await;
    changed.assert_status(200);
    let fetched = app.get(&path, app.admin()).await;
    assert_eq!(fetched.body["name"], "Patricia");
    assert_eq!(fetched.body["role"], "teacher");
    assert_eq!(fetched.body["permissions"], json!(["todos:write:self"]));
    assert_eq!(fetched.body["created_at"], user["created_at"]);

    let cleared = app
        .patch_json(&path, app.admin(), &json!({"permissions": []}))
        .await;
    assert_eq!(cleared.body["permissions"], json!([]), "{cleared}");
    let empty_name = app
        .patch_json(&path, app.admin(), &json!({"name": ""}))
        .await;
    assert_eq!(empty_name.assert_problem(422), "validation_failed");
    let email = app
        .patch_json(&path, app.admin(), &json!({"email": "x@example.com"}))
        .await;
    assert_eq!(email.assert_problem(422), "validation_failed");
    assert_eq!(app.get(&path, app.admin()).await.body["name"], "Patricia");
});

both_backends!(admin_cannot_demote_or_delete_self, |app| async move {
    let admin_id = fixtures::admin_id(&app).await;
    let path = format!("/v1/admin/users/{admin_id}");
    for role in ["teacher", "student"] {
        let demote = app
            .patch_json(&path, app.admin(), &json!({"role": role}))
            .await;
        assert_eq!(demote.assert_problem(409), "cannot_demote_self");
    }
    let delete = app.delete(&path, app.admin()).await;
    assert_eq!(delete.assert_problem(409), "cannot_delete_self");

    let me = app.get(&path, app.admin()).await;
    me.assert_status(200);
    assert_eq!(me.body["role"], "admin");
    // Other changes to oneself are allowed.
    let renamed = app
        .patch_json(
            &path,
            app.admin(),
            &json!({"name": "Root", "role": "admin"}),
        )
        .await;
    renamed.assert_status(200);
    assert_eq!(renamed.body["name"], "Root");

    // Another admin may be demoted and deleted.
    let (other_id, _) = app.create_user("second@example.com", "admin").await;
    let other = format!("/v1/admin/users/{other_id}");
    let demoted = app
        .patch_json(&other, app.admin(), &json!({"role": "student"}))
        .await;
    demoted.assert_status(200);
    assert_eq!(demoted.body["role"], "student");
});

both_backends!(delete_user_without_sessions, |app| async move {
    let (user_id, token) = app.create_user("gone@example.com", "student").await;
    let group = fixtures::group(&app, "Club", None, json!({})).await;
    fixtures::add_member(&app, &id(&group), &user_id).await;
    let path = format!("/v1/admin/users/{user_id}");

    app.delete(&path, app.admin()).await.assert_status(204);
    app.get(&path, app.admin()).await.assert_problem(404);
    app.delete(&path, app.admin()).await.assert_problem(404);
    let members = app
        .get(
            &format!("/v1/admin/groups/{}/members", id(&group)),
            app.admin(),
        )
        .await;
    assert_eq!(items(&members), Vec::<Value>::new(), "memberships go too");
    let response = app.get("/v1/tools", Some(&token)).await;
    assert_eq!(
        response.assert_problem(401),
        "unauthenticated",
        "tokens go too"
    );
});

both_backends!(delete_user_with_a_session_is_409, |app| async move {
    let student = fixtures::student_with_tool(&app, "busy@example.com").await;
    fixtures::session(&app, &student.token, &id(&student.tool)).await;
    let path = format!("/v1/admin/users/{}", student.user_id);

    let response = app.delete(&path, app.admin()).await;
    assert_eq!(response.assert_problem(409), "user_has_sessions");
    app.get(&path, app.admin()).await.assert_status(200);
    app.get("/v1/sessions", Some(&student.token))
        .await
        .assert_status(200);
});

both_backends!(token_lifecycle, |app| async move {
    let (user_id, _) = app.create_user("tok@example.com", "student").await;
    let created = create_token(&app, &user_id, json!({"name": "laptop"})).await;
    let secret = created["secret"]
        .as_str()
        .unwrap_or_else(|| panic!("no secret: {created}"))
        .to_owned();
    let token = &created["token"];
    let token_id = id(token);
    assert!(secret.starts_with("prl_"), "{secret}");
    assert_eq!(token["user_id"], user_id.as_str());
    assert_eq!(token["name"], "laptop");
    assert!(token["last_used_at"].is_null(), "{created}");
    assert!(token["revoked_at"].is_null(), "{created}");
    assert!(token["expires_at"].is_null(), "{created}");

    app.get("/v1/sessions", Some(&secret))
        .await
        .assert_status(200);

    let tokens_path = format!("/v1/admin/users/{user_id}/tokens");
    let list = app.get(&tokens_path, app.admin()).await;
    list.assert_status(200);
    assert!(
        !list.text.contains(&secret),
        "the secret is never listed: {list}"
    );
    let listed = items(&list);
    assert_eq!(listed.len(), 2, "the CLI's token and ours: {list}");
    for item in &listed {
        assert!(item.get("secret").is_none(), "no secret field: {item}");
        assert!(item.get("token_hash").is_none(), "no hash field: {item}");
    }
    assert_eq!(listed[0]["id"], token_id.as_str(), "newest first");
    let prefix = listed[0]["prefix"].as_str().unwrap_or_default();
    assert!(
        prefix.len() >= 4 && secret.starts_with(prefix) && prefix.len() < secret.len(),
        "the prefix starts the secret: {prefix:?}"
    );
    assert!(
        listed[0]["last_used_at"].is_string(),
        "last_used_at is set by a use: {list}"
    );

    let revoke_path = format!("/v1/admin/tokens/{token_id}");
    let revoked = app.delete(&revoke_path, app.admin()).await;
    revoked.assert_status(200);
    assert!(revoked.body["revoked_at"].is_string(), "{revoked}");
    let response = app.get("/v1/sessions", Some(&secret)).await;
    assert_eq!(response.assert_problem(401), "unauthenticated");

    let again = app.delete(&revoke_path, app.admin()).await;
    again.assert_status(200);
    assert_eq!(
        again.body["revoked_at"], revoked.body["revoked_at"],
        "revoking twice keeps the first time"
    );
    let list = app.get(&tokens_path, app.admin()).await;
    let ours = items(&list)
        .into_iter()
        .find(|t| t["id"] == token_id.as_str())
        .unwrap_or_else(|| panic!("revoked tokens are still listed: {list}"));
    assert_eq!(ours["revoked_at"], revoked.body["revoked_at"]);
    let fetched = app.get(&revoke_path, app.admin()).await;
    fetched.assert_status(200);
    assert_eq!(fetched.body["revoked_at"], revoked.body["revoked_at"]);
    assert!(fetched.body.get("secret").is_none(), "{fetched}");
});

both_backends!(token_expiry, |app| async move {
    let (user_id, _) = app.create_user("exp@example.com", "student").await;
    let expired = create_token(
        &app,
        &user_id,
        json!({"name": "old", "expires_at": in_seconds(-60)}),
    )
    .await;
    let secret = expired["secret"].as_str().unwrap_or_default();
    assert!(expired["token"]["expires_at"].is_string(), "{expired}");
    let response = app.get("/v1/sessions", Some(secret)).await;
    assert_eq!(response.assert_problem(401), "unauthenticated");

    let live = create_token(
        &app,
        &user_id,
        json!({"name": "new", "expires_at": in_seconds(3600)}),
    )
    .await;
    let secret = live["secret"].as_str().unwrap_or_default();
    app.get("/v1/sessions", Some(secret))
        .await
        .assert_status(200);

    let nameless = app
        .post_json(
            &format!("/v1/admin/users/{user_id}/tokens"),
            app.admin(),
            &json!({"name": ""}),
        )
        .await;
    assert_eq!(nameless.assert_problem(422), "validation_failed");
});
