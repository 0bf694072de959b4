//! Who may use the admin routes (admins only: 403 for students and teachers, and nothing
//! is written), and what a missing resource answers (404) on every admin family.
//!
//! Through the typed client (`parley_tests::client`); a raw request only for a path id
//! that is no UUID.

use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;

use parley_tests::client::Client;
use parley_tests::client::types::{
    Assignment, Class, Enrollment, EnrollmentRole, Group, MemberRole, Membership, Token, Tool,
    User, UserRole,
};
use parley_tests::{ApiResponse, ApiResult, TestApp, both_backends, problem};
use serde_json::json;
use uuid::Uuid;

use crate::fixtures::api::{self, definition, uuid};

/// One resource of each admin family, made by the admin.
struct World {
    admin_id: Uuid,
    admin_token_id: Uuid,
    group_id: Uuid,
    tool_id: Uuid,
    class_id: Uuid,
    assignment_id: Uuid,
}

async fn world(app: &TestApp) -> World {
    let admin = app.admin_client();
    let admin_id = api::admin_id(app).await;
    let admin_token_id = api::tokens(&admin, admin_id).await[0].id;
    let group = api::group(&admin, "Org", None, json!({})).await;
    let tool = api::tool(&admin, group.id, "Tutor", "x").await;
    let class = api::class(&admin, group.id, "Class").await;
    let assignment = api::assignment(&admin, class.id, tool.id, "Homework").await;
    World {
        admin_id,
        admin_token_id,
        group_id: group.id,
        tool_id: tool.id,
        class_id: class.id,
        assignment_id: assignment.id,
    }
}

/// Everything the admin can see, to compare before and after the refused calls.
#[derive(Debug, PartialEq)]
struct Snapshot {
    users: Vec<User>,
    groups: Vec<Group>,
    tools: Vec<Tool>,
    classes: Vec<Class>,
    assignments: Vec<Assignment>,
    tokens: Vec<Token>,
    members: Vec<Membership>,
    enrollments: Vec<Enrollment>,
}

async fn snapshot(app: &TestApp, w: &World, user_id: Uuid) -> Snapshot {
    let admin = app.admin_client();
    let mut tokens = api::tokens(&admin, user_id).await;
    tokens.extend(api::tokens(&admin, w.admin_id).await);
    // Uses of a token move `last_used_at`; that is not a write of the caller's.
    for token in &mut tokens {
        token.last_used_at = None;
    }
    Snapshot {
        users: api::users(&admin, 100).await,
        groups: api::groups(&admin, 100).await,
        tools: api::tools(&admin, 100).await,
        classes: api::classes(&admin, 100).await,
        assignments: api::assignments(&admin, None, 100).await,
        tokens,
        members: api::members(&admin, w.group_id, 100).await,
        enrollments: api::enrollments(&admin, w.class_id, 100).await,
    }
}

/// A request that must be refused, named for the failure message; it resolves to the
/// status and code of the problem it got.
type Refusal<'a> = (
    &'static str,
    Pin<Box<dyn Future<Output = (u16, String)> + 'a>>,
);

fn refusal<'a, T: Debug + 'a>(
    name: &'static str,
    request: impl Future<Output = ApiResponse<T>> + 'a,
) -> Refusal<'a> {
    let outcome = async move {
        let result = request.await;
        assert!(result.is_err(), "{name} was allowed: {result:?}");
        let (status, problem) = problem(result);
        (status, problem.code)
    };
    (name, Box::pin(outcome))
}

/// Every kind of admin call, as the holder of `client` (whose user is `user_id`).
fn admin_calls<'a>(client: &'a Client, w: &World, user_id: Uuid) -> Vec<Refusal<'a>> {
    let (group_id, class_id, tool_id) = (w.group_id, w.class_id, w.tool_id);
    vec![
        refusal("list users", client.admin_list_users().send()),
        refusal("search users", client.admin_list_users().q("admin").send()),
        refusal("list modules", client.admin_list_modules().send()),
        refusal(
            "create a user",
            client
                .admin_create_user()
                .body_map(|b| {
                    b.email("sneaky@example.com")
                        .name("S")
                        .role(UserRole::Admin)
                })
                .send(),
        ),
        refusal(
            "promote oneself",
            client
                .admin_update_user()
                .id(user_id)
                .body_map(|b| b.role(UserRole::Admin))
                .send(),
        ),
        refusal(
            "delete the admin",
            client.admin_delete_user().id(w.admin_id).send(),
        ),
        refusal(
            "list one's tokens",
            client.admin_list_tokens().id(user_id).send(),
        ),
        refusal(
            "create a token",
            client
                .admin_create_token()
                .id(user_id)
                .body_map(|b| b.name("mine"))
                .send(),
        ),
        refusal(
            "revoke the admin's token",
            client.admin_revoke_token().id(w.admin_token_id).send(),
        ),
        refusal("list groups", client.admin_list_groups().send()),
        refusal(
            "create a group",
            client
                .admin_create_group()
                .body_map(|b| b.name("Mine"))
                .send(),
        ),
        refusal(
            "delete a group",
            client.admin_delete_group().id(group_id).send(),
        ),
        refusal(
            "manage a group",
            client
                .admin_put_group_member()
                .id(group_id)
                .user_id(user_id)
                .body_map(|b| b.role(MemberRole::Manager))
                .send(),
        ),
        refusal("get a tool", client.admin_get_tool().id(tool_id).send()),
        refusal(
            "create a tool",
            client
                .admin_create_tool()
                .body_map(move |b| {
                    b.group_id(group_id)
                        .name("Mine")
                        .definition(definition("x"))
                })
                .send(),
        ),
        refusal(
            "rename a tool",
            client
                .admin_update_tool()
                .id(tool_id)
                .body_map(|b| b.name("Hacked".to_owned()))
                .send(),
        ),
        refusal("list classes", client.admin_list_classes().send()),
        refusal(
            "create a class",
            client
                .admin_create_class()
                .body_map(move |b| b.group_id(group_id).name("Mine"))
                .send(),
        ),
        refusal(
            "teach a class",
            client
                .admin_put_enrollment()
                .id(class_id)
                .user_id(user_id)
                .body_map(|b| b.role(EnrollmentRole::Teacher))
                .send(),
        ),
        refusal(
            "delete a class",
            client.admin_delete_class().id(class_id).send(),
        ),
        refusal("list assignments", client.admin_list_assignments().send()),
        refusal(
            "create an assignment",
            client
                .admin_create_assignment()
                .body_map(move |b| b.class_id(class_id).tool_id(tool_id).title("Mine"))
                .send(),
        ),
        refusal(
            "retitle an assignment",
            client
                .admin_update_assignment()
                .id(w.assignment_id)
                .body_map(|b| b.title("Hacked".to_owned()))
                .send(),
        ),
        refusal(
            "delete an assignment",
            client.admin_delete_assignment().id(w.assignment_id).send(),
        ),
    ]
}

both_backends!(non_admins_are_403_and_write_nothing, |app| async move {
    let w = world(&app).await;
    for role in ["student", "teacher"] {
        let (user_id, token) = app.create_user(&format!("{role}@example.com"), role).await;
        let user_id = uuid(&user_id);
        let client = app.client_as(&token);
        let before = snapshot(&app, &w, user_id).await;
        for (name, call) in admin_calls(&client, &w, user_id) {
            assert_eq!(call.await, (403, "forbidden".to_owned()), "{role}: {name}");
        }
        let after = snapshot(&app, &w, user_id).await;
        assert_eq!(after, before, "a {role}'s refused calls changed nothing");
        app.admin_client()
            .admin_list_users()
            .send()
            .await
            .assert_status(200);
    }
});

/// The status and code of a request that must fail.
async fn failure<T: Debug>(request: impl Future<Output = ApiResponse<T>>) -> (u16, String) {
    let (status, problem) = problem(request.await);
    (status, problem.code)
}

both_backends!(missing_resources_are_404, |app| async move {
    let admin = app.admin_client();
    let (user_id, _) = app.create_user("someone@example.com", "student").await;
    let user_id = uuid(&user_id);
    let id = Uuid::now_v7();
    let not_found = (404, "not_found".to_owned());
    let calls = [
        (
            "GET user",
            failure(admin.admin_get_user().id(id).send()).await,
        ),
        (
            "PATCH user",
            failure(
                admin
                    .admin_update_user()
                    .id(id)
                    .body_map(|b| b.name("X".to_owned()))
                    .send(),
            )
            .await,
        ),
        (
            "DELETE user",
            failure(admin.admin_delete_user().id(id).send()).await,
        ),
        (
            "GET group",
            failure(admin.admin_get_group().id(id).send()).await,
        ),
        (
            "PATCH group",
            failure(
                admin
                    .admin_update_group()
                    .id(id)
                    .body_map(|b| b.name("X".to_owned()))
                    .send(),
            )
            .await,
        ),
        (
            "DELETE group",
            failure(admin.admin_delete_group().id(id).send()).await,
        ),
        (
            "GET tool",
            failure(admin.admin_get_tool().id(id).send()).await,
        ),
        (
            "PATCH tool",
            failure(
                admin
                    .admin_update_tool()
                    .id(id)
                    .body_map(|b| b.name("X".to_owned()))
                    .send(),
            )
            .await,
        ),
        (
            "DELETE tool",
            failure(admin.admin_delete_tool().id(id).send()).await,
        ),
        (
            "GET class",
            failure(admin.admin_get_class().id(id).send()).await,
        ),
        (
            "PATCH class",
            failure(
                admin
                    .admin_update_class()
                    .id(id)
                    .body_map(|b| b.name("X".to_owned()))
                    .send(),
            )
            .await,
        ),
        (
            "DELETE class",
            failure(admin.admin_delete_class().id(id).send()).await,
        ),
        (
            "GET assignment",
            failure(admin.admin_get_assignment().id(id).send()).await,
        ),
        (
            "PATCH assignment",
            failure(
                admin
                    .admin_update_assignment()
                    .id(id)
                    .body_map(|b| b.title("X".to_owned()))
                    .send(),
            )
            .await,
        ),
        (
            "DELETE assignment",
            failure(admin.admin_delete_assignment().id(id).send()).await,
        ),
        (
            "DELETE token",
            failure(admin.admin_revoke_token().id(id).send()).await,
        ),
    ];
    for (name, outcome) in calls {
        assert_eq!(outcome, not_found, "{name} of a missing resource");
    }

    // Where the owner of a nested resource is missing, 404 is all that is asked.
    admin
        .admin_list_tokens()
        .id(id)
        .send()
        .await
        .assert_problem(404);
    admin
        .admin_create_token()
        .id(id)
        .body_map(|b| b.name("t"))
        .send()
        .await
        .assert_problem(404);
    admin
        .admin_remove_group_member()
        .id(id)
        .user_id(user_id)
        .send()
        .await
        .assert_problem(404);
    admin
        .admin_remove_enrollment()
        .id(id)
        .user_id(user_id)
        .send()
        .await
        .assert_problem(404);
    // A path id that is not a UUID is no resource either; the client only takes UUIDs.
    app.get("/v1/admin/users/not-a-uuid", app.admin())
        .await
        .assert_problem(404);
});
