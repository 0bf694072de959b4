//! Who may use the admin routes (admins only: 403 for students and teachers, and nothing
//! is written), and what a missing resource answers (404) on every admin family.

use parley_tests::{TestApp, TestResponse, both_backends};
use reqwest::Method;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::fixtures::{self, id, items};

/// One resource of each admin family, made by the admin.
struct World {
    admin_id: String,
    admin_token_id: String,
    group_id: String,
    tool_id: String,
    class_id: String,
    assignment_id: String,
}

async fn world(app: &TestApp) -> World {
    let admin_id = fixtures::admin_id(app).await;
    let tokens = app
        .get(&format!("/v1/admin/users/{admin_id}/tokens"), app.admin())
        .await;
    let admin_token_id = id(&items(&tokens)[0]);
    let group = fixtures::group(app, "Org", None, json!({})).await;
    let tool = fixtures::tool(app, &id(&group), "Tutor", json!({"behavior": "x"})).await;
    let class = fixtures::class(app, &id(&group), "Class").await;
    let body = json!({"class_id": id(&class), "tool_id": id(&tool), "title": "Homework"});
    let assignment = app
        .post_json("/v1/admin/assignments", app.admin(), &body)
        .await;
    assignment.assert_status(201);
    World {
        admin_id,
        admin_token_id,
        group_id: id(&group),
        tool_id: id(&tool),
        class_id: id(&class),
        assignment_id: id(&assignment.body),
    }
}

async fn call(
    app: &TestApp,
    method: Method,
    path: &str,
    token: &str,
    body: &Value,
) -> TestResponse {
    let request = app.request(method.clone(), path, Some(token));
    let request = if method == Method::GET || method == Method::DELETE {
        request
    } else {
        request.json(body)
    };
    app.send(request).await
}

/// Everything the admin can see, to compare before and after the refused calls.
async fn snapshot(app: &TestApp, w: &World, user_id: &str) -> Vec<Value> {
    let mut all = Vec::new();
    for list in ["users", "groups", "tools", "classes", "assignments"] {
        all.extend(fixtures::all_pages(app, &format!("/v1/admin/{list}"), 100).await);
    }
    for path in [
        format!("/v1/admin/users/{user_id}/tokens"),
        format!("/v1/admin/users/{}/tokens", w.admin_id),
        format!("/v1/admin/groups/{}/members", w.group_id),
        format!("/v1/admin/classes/{}/enrollments", w.class_id),
    ] {
        let response = app.get(&path, app.admin()).await;
        response.assert_status(200);
        let mut listed = items(&response);
        // Uses of a token move `last_used_at`; that is not a write of the caller's.
        for item in &mut listed {
            if let Some(fields) = item.as_object_mut() {
                fields.remove("last_used_at");
            }
        }
        all.extend(listed);
    }
    all
}

both_backends!(non_admins_are_403_and_write_nothing, |app| async move {
    let w = world(&app).await;
    for role in ["student", "teacher"] {
        let (user_id, token) = app.create_user(&format!("{role}@example.com"), role).await;
        let before = snapshot(&app, &w, &user_id).await;
        let calls = [
            (Method::GET, "/v1/admin/users".to_owned(), json!(null)),
            (
                Method::POST,
                "/v1/admin/users".to_owned(),
                json!({"email": "sneaky@example.com", "name": "S", "role": "admin"}),
            ),
            (
                Method::PATCH,
                format!("/v1/admin/users/{user_id}"),
                json!({"role": "admin"}),
            ),
            (
                Method::DELETE,
                format!("/v1/admin/users/{}", w.admin_id),
                json!(null),
            ),
            (
                Method::GET,
                format!("/v1/admin/users/{user_id}/tokens"),
                json!(null),
            ),
            (
                Method::POST,
                format!("/v1/admin/users/{user_id}/tokens"),
                json!({"name": "mine"}),
            ),
            (
                Method::DELETE,
                format!("/v1/admin/tokens/{}", w.admin_token_id),
                json!(null),
            ),
            (Method::GET, "/v1/admin/groups".to_owned(), json!(null)),
            (
                Method::POST,
                "/v1/admin/groups".to_owned(),
                json!({"name": "Mine"}),
            ),
            (
                Method::DELETE,
                format!("/v1/admin/groups/{}", w.group_id),
                json!(null),
            ),
            (
                Method::PUT,
                format!("/v1/admin/groups/{}/members/{user_id}", w.group_id),
                json!({"role": "manager"}),
            ),
            (
                Method::GET,
                format!("/v1/admin/tools/{}", w.tool_id),
                json!(null),
            ),
            (
                Method::POST,
                "/v1/admin/tools".to_owned(),
                json!({"group_id": w.group_id, "name": "Mine", "definition": {"behavior": "x"}}),
            ),
            (
                Method::PATCH,
                format!("/v1/admin/tools/{}", w.tool_id),
                json!({"name": "Hacked"}),
            ),
            (Method::GET, "/v1/admin/classes".to_owned(), json!(null)),
            (
                Method::POST,
                "/v1/admin/classes".to_owned(),
                json!({"group_id": w.group_id, "name": "Mine"}),
            ),
            (
                Method::PUT,
                format!("/v1/admin/classes/{}/enrollments/{user_id}", w.class_id),
                json!({"role": "teacher"}),
            ),
            (
                Method::DELETE,
                format!("/v1/admin/classes/{}", w.class_id),
                json!(null),
            ),
            (Method::GET, "/v1/admin/assignments".to_owned(), json!(null)),
            (
                Method::POST,
                "/v1/admin/assignments".to_owned(),
                json!({"class_id": w.class_id, "tool_id": w.tool_id, "title": "Mine"}),
            ),
            (
                Method::PATCH,
                format!("/v1/admin/assignments/{}", w.assignment_id),
                json!({"title": "Hacked"}),
            ),
            (
                Method::DELETE,
                format!("/v1/admin/assignments/{}", w.assignment_id),
                json!(null),
            ),
        ];
        for (method, path, body) in calls {
            let response = call(&app, method.clone(), &path, &token, &body).await;
            assert_eq!(
                response.assert_problem(403),
                "forbidden",
                "{role}: {method} {path}"
            );
        }
        let after = snapshot(&app, &w, &user_id).await;
        assert_eq!(after, before, "a {role}'s refused calls changed nothing");
        app.get("/v1/admin/users", app.admin())
            .await
            .assert_status(200);
    }
});

both_backends!(missing_resources_are_404, |app| async move {
    let (user_id, _) = app.create_user("someone@example.com", "student").await;
    let patches = [
        ("users", json!({"name": "X"})),
        ("groups", json!({"name": "X"})),
        ("tools", json!({"name": "X"})),
        ("classes", json!({"name": "X"})),
        ("assignments", json!({"title": "X"})),
    ];
    for (family, patch) in patches {
        let path = format!("/v1/admin/{family}/{}", Uuid::now_v7());
        let got = app.get(&path, app.admin()).await;
        assert_eq!(got.assert_problem(404), "not_found", "GET {path}");
        let patched = app.patch_json(&path, app.admin(), &patch).await;
        assert_eq!(patched.assert_problem(404), "not_found", "PATCH {path}");
        let deleted = app.delete(&path, app.admin()).await;
        assert_eq!(deleted.assert_problem(404), "not_found", "DELETE {path}");
    }

    let nobody = Uuid::now_v7();
    let tokens = format!("/v1/admin/users/{nobody}/tokens");
    app.get(&tokens, app.admin()).await.assert_problem(404);
    app.post_json(&tokens, app.admin(), &json!({"name": "t"}))
        .await
        .assert_problem(404);
    let revoke = format!("/v1/admin/tokens/{}", Uuid::now_v7());
    assert_eq!(
        app.delete(&revoke, app.admin()).await.assert_problem(404),
        "not_found"
    );
    let members = format!("/v1/admin/groups/{}/members/{user_id}", Uuid::now_v7());
    app.delete(&members, app.admin()).await.assert_problem(404);
    let enrolment = format!("/v1/admin/classes/{}/enrollments/{user_id}", Uuid::now_v7());
    app.delete(&enrolment, app.admin())
        .await
        .assert_problem(404);
    // A path id that is not a UUID is no resource either.
    app.get("/v1/admin/users/not-a-uuid", app.admin())
        .await
        .assert_problem(404);
});
