//! Admin-made fixtures the area tests share: groups, members, tools, classes,
//! assignments, each created through the real admin API.

use parley_tests::{TestApp, TestResponse};
use serde_json::{Value, json};

/// Creates a group (under `parent` when given) and returns its JSON.
pub async fn group(app: &TestApp, name: &str, parent: Option<&str>, settings: Value) -> Value {
    let response = app
        .post_json(
            "/v1/admin/groups",
            app.admin(),
            &json!({"name": name, "parent_id": parent, "settings": settings}),
        )
        .await;
    response.assert_status(201);
    response.body.clone()
}

pub async fn add_member(app: &TestApp, group_id: &str, user_id: &str) {
    app.put_json(
        &format!("/v1/admin/groups/{group_id}/members/{user_id}"),
        app.admin(),
        &json!({"role": "member"}),
    )
    .await
    .assert_status(200);
}

/// Creates a chat tool in a group and returns its JSON.
pub async fn tool(app: &TestApp, group_id: &str, name: &str, definition: Value) -> Value {
    let response = app
        .post_json(
            "/v1/admin/tools",
            app.admin(),
            &json!({"group_id": group_id, "name": name, "type": "chat", "definition": definition}),
        )
        .await;
    response.assert_status(201);
    response.body.clone()
}

pub async fn class(app: &TestApp, group_id: &str, name: &str) -> Value {
    let response = app
        .post_json(
            "/v1/admin/classes",
            app.admin(),
            &json!({"group_id": group_id, "name": name}),
        )
        .await;
    response.assert_status(201);
    response.body.clone()
}

pub async fn enroll(app: &TestApp, class_id: &str, user_id: &str) {
    app.put_json(
        &format!("/v1/admin/classes/{class_id}/enrollments/{user_id}"),
        app.admin(),
        &json!({"role": "student"}),
    )
    .await
    .assert_status(200);
}

/// A student who is a member of a fresh group that owns one tool: (user id, token,
/// group JSON, tool JSON).
pub struct Student {
    pub user_id: String,
    pub token: String,
    pub group: Value,
    pub tool: Value,
}

pub async fn student_with_tool(app: &TestApp, email: &str) -> Student {
    let (user_id, token) = app.create_user(email, "student").await;
    let group = group(app, &format!("group of {email}"), None, json!({})).await;
    let group_id = id(&group);
    add_member(app, &group_id, &user_id).await;
    let tool = tool(
        app,
        &group_id,
        "Tutor",
        json!({"behavior": "Help with homework."}),
    )
    .await;
    Student {
        user_id,
        token,
        group,
        tool,
    }
}

/// The `id` field of a JSON object, as a string.
pub fn id(value: &Value) -> String {
    value["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {value}"))
        .to_owned()
}

/// An RFC 3339 time `seconds` from now (negative: in the past).
pub fn in_seconds(seconds: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(seconds)).to_rfc3339()
}

/// Opens a session with a tool as the token's user and returns its JSON.
pub async fn session(app: &TestApp, token: &str, tool_id: &str) -> Value {
    let response = app
        .post_json("/v1/sessions", Some(token), &json!({"tool_id": tool_id}))
        .await;
    response.assert_status(201);
    response.body.clone()
}

/// The `items` of a list response.
pub fn items(response: &TestResponse) -> Vec<Value> {
    response.body["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no `items` list: {response}"))
        .clone()
}

/// Every item of a cursor-paginated list that the test itself made, read as the admin
/// `limit` at a time: the demo group and tool every fresh deployment starts with
/// ([`is_bootstrap_demo`]) are left out. Each page must hold at most `limit` items, and no
/// cursor may be handed out on an empty page.
pub async fn all_pages(app: &TestApp, path: &str, limit: u32) -> Vec<Value> {
    all_pages_raw(app, path, limit)
        .await
        .into_iter()
        .filter(|item| !is_bootstrap_demo(item))
        .collect()
}

/// The demo group ("Demo") and chat tool ("Demo tutor") `parley serve` creates on an
/// empty database (tests never use these names).
pub fn is_bootstrap_demo(item: &Value) -> bool {
    (item["name"] == "Demo" && item.get("path").is_some())
        || (item["name"] == "Demo tutor" && item.get("definition").is_some())
}

/// Like [`all_pages`], every item.
pub async fn all_pages_raw(app: &TestApp, path: &str, limit: u32) -> Vec<Value> {
    let separator = if path.contains('?') { '&' } else { '?' };
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let url = match &cursor {
            Some(c) => format!("{path}{separator}limit={limit}&cursor={c}"),
            None => format!("{path}{separator}limit={limit}"),
        };
        let page = app.get(&url, app.admin()).await;
        page.assert_status(200);
        let items = items(&page);
        assert!(items.len() <= limit as usize, "page over the limit: {page}");
        seen.extend(items);
        match page.body["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return seen,
        }
    }
    panic!("{path}: pagination does not end");
}

/// The bootstrap admin's user id.
pub async fn admin_id(app: &TestApp) -> String {
    let users = all_pages(app, "/v1/admin/users", 100).await;
    let admin = users
        .iter()
        .find(|u| u["email"] == app.admin_email.as_str())
        .unwrap_or_else(|| panic!("the bootstrap admin is not listed: {users:?}"));
    id(admin)
}

/// The ids of JSON objects, in order.
pub fn ids(values: &[Value]) -> Vec<String> {
    values.iter().map(id).collect()
}

/// The same fixtures through the typed client ([`parley_tests::client`]), for tests that
/// use it: they take the admin's client and return the API's types.
pub mod api {
    use parley_tests::client::{Client, types};
    use parley_tests::{ApiResult, all_pages};
    use serde_json::Value;
    use uuid::Uuid;

    /// The members of a JSON object (the client types objects as maps).
    pub fn object(value: Value) -> serde_json::Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not a JSON object: {other}"),
        }
    }

    /// Creates a group (under `parent` when given).
    pub async fn group(
        admin: &Client,
        name: &str,
        parent: Option<Uuid>,
        settings: Value,
    ) -> types::Group {
        admin
            .admin_create_group()
            .body_map(|b| b.name(name).parent_id(parent).settings(object(settings)))
            .send()
            .await
            .assert_status(201)
            .into_inner()
    }

    /// Makes `user_id` a plain member of `group_id`.
    pub async fn add_member(admin: &Client, group_id: Uuid, user_id: Uuid) -> types::Membership {
        admin
            .admin_put_group_member()
            .id(group_id)
            .user_id(user_id)
            .body_map(|b| b.role(types::MemberRole::Member))
            .send()
            .await
            .assert_status(200)
            .into_inner()
    }

    /// Creates a chat tool with `behavior` in a group.
    pub async fn tool(admin: &Client, group_id: Uuid, name: &str, behavior: &str) -> types::Tool {
        admin
            .admin_create_tool()
            .body_map(|b| {
                b.group_id(group_id)
                    .name(name)
                    .type_(Some("chat".to_owned()))
                    .definition(types::ToolDefinition::builder().behavior(behavior))
            })
            .send()
            .await
            .assert_status(201)
            .into_inner()
    }

    pub async fn class(admin: &Client, group_id: Uuid, name: &str) -> types::Class {
        admin
            .admin_create_class()
            .body_map(|b| b.group_id(group_id).name(name))
            .send()
            .await
            .assert_status(201)
            .into_inner()
    }

    /// Every group the test made (the bootstrap "Demo" group is left out), `limit` a page.
    pub async fn groups(admin: &Client, limit: u32) -> Vec<types::Group> {
        let all = all_pages(limit as usize, |cursor| async move {
            let mut request = admin.admin_list_groups().limit(limit);
            if let Some(cursor) = cursor {
                request = request.cursor(cursor);
            }
            let page = request.send().await.assert_status(200).into_inner();
            (page.items, page.next_cursor)
        })
        .await;
        all.into_iter().filter(|g| g.name != "Demo").collect()
    }

    /// Every member of a group, `limit` a page.
    pub async fn members(admin: &Client, group_id: Uuid, limit: u32) -> Vec<types::Membership> {
        all_pages(limit as usize, |cursor| async move {
            let mut request = admin.admin_list_group_members().id(group_id).limit(limit);
            if let Some(cursor) = cursor {
                request = request.cursor(cursor);
            }
            let page = request.send().await.assert_status(200).into_inner();
            (page.items, page.next_cursor)
        })
        .await
    }

    /// An id the CLI printed (e.g. by [`parley_tests::TestApp::create_user`]) as a UUID.
    pub fn uuid(id: &str) -> Uuid {
        Uuid::parse_str(id).unwrap_or_else(|err| panic!("{id:?} is no UUID: {err}"))
    }
}
