//! Admin-made fixtures the area tests share: groups, members, tools, classes,
//! assignments, each created through the real admin API. The JSON ones at the top level
//! serve the tests that read raw responses; [`api`] has the typed ones.

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

/// The same fixtures through the typed client ([`parley_tests::client`]), for tests that
/// use it: they take the admin's client and return the API's types.
#[warn(dead_code)]
pub mod api {
    use parley_tests::client::{Client, ResponseValue, types};
    use parley_tests::{ApiResult, TestApp, all_pages};
    use serde_json::Value;
    use uuid::Uuid;

    /// Every item of a paginated list request, `limit` a page: `$request` is the list
    /// request without `limit` and `cursor` (e.g. `admin.admin_list_users()`).
    macro_rules! every_page {
        ($limit:expr, $request:expr) => {{
            let limit: u32 = $limit;
            all_pages(limit as usize, |cursor| async move {
                let mut request = $request.limit(limit);
                if let Some(cursor) = cursor {
                    request = request.cursor(cursor);
                }
                let page = request.send().await.assert_status(200).into_inner();
                (page.items, page.next_cursor)
            })
            .await
        }};
    }

    /// The members of a JSON object (the client types objects as maps).
    pub fn object(value: Value) -> serde_json::Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not a JSON object: {other}"),
        }
    }

    /// Options over tool definitions (group settings, an assignment's config) from their
    /// JSON form: a key the type does not know fails here, in the client.
    pub fn overrides(value: Value) -> types::ConfigOverrides {
        serde_json::from_value(value.clone())
            .unwrap_or_else(|err| panic!("not configuration overrides: {value}: {err}"))
    }

    /// A value of the client's types in its JSON form.
    pub fn json_of<T: serde::Serialize>(value: &T) -> Value {
        serde_json::to_value(value).expect("a client type serializes")
    }

    /// An id the CLI printed (e.g. by [`parley_tests::TestApp::create_user`]) as a UUID.
    pub fn uuid(id: &str) -> Uuid {
        Uuid::parse_str(id).unwrap_or_else(|err| panic!("{id:?} is no UUID: {err}"))
    }

    /// A time `seconds` from now (negative: in the past).
    pub fn in_seconds(seconds: i64) -> chrono::DateTime<chrono::Utc> {
        chrono::Utc::now() + chrono::Duration::seconds(seconds)
    }

    /// The `Location` header of a response.
    pub fn location<T>(response: &ResponseValue<T>) -> Option<&str> {
        response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
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
            .body_map(|b| b.name(name).parent_id(parent).settings(overrides(settings)))
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

    /// A tool definition with only a behavior.
    pub fn definition(behavior: &str) -> types::ToolDefinition {
        types::ToolDefinition::builder()
            .behavior(behavior)
            .try_into()
            .expect("a behavior is a definition")
    }

    /// Creates a chat tool with `behavior` in a group.
    pub async fn tool(admin: &Client, group_id: Uuid, name: &str, behavior: &str) -> types::Tool {
        tool_with(admin, group_id, name, definition(behavior)).await
    }

    /// Creates a chat tool with a whole definition in a group.
    pub async fn tool_with(
        admin: &Client,
        group_id: Uuid,
        name: &str,
        definition: types::ToolDefinition,
    ) -> types::Tool {
        admin
            .admin_create_tool()
            .body_map(|b| {
                b.group_id(group_id)
                    .name(name)
                    .type_(Some("chat".to_owned()))
                    .definition(definition)
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

    /// Enrols `user_id` in a class with `role`.
    pub async fn enroll(
        admin: &Client,
        class_id: Uuid,
        user_id: Uuid,
        role: types::EnrollmentRole,
    ) -> types::Enrollment {
        admin
            .admin_put_enrollment()
            .id(class_id)
            .user_id(user_id)
            .body_map(|b| b.role(role))
            .send()
            .await
            .assert_status(200)
            .into_inner()
    }

    /// Creates an assignment of a class with a tool, open at once and forever.
    pub async fn assignment(
        admin: &Client,
        class_id: Uuid,
        tool_id: Uuid,
        title: &str,
    ) -> types::Assignment {
        admin
            .admin_create_assignment()
            .body_map(|b| b.class_id(class_id).tool_id(tool_id).title(title))
            .send()
            .await
            .assert_status(201)
            .into_inner()
    }

    /// Opens a session with a tool as the client's user.
    pub async fn session(client: &Client, tool_id: Uuid) -> types::Session {
        client
            .create_session()
            .body_map(|b| b.tool_id(tool_id))
            .send()
            .await
            .assert_status(201)
            .into_inner()
    }

    /// A student who is a member of a fresh group that owns one tool.
    pub struct Student {
        pub user_id: Uuid,
        pub token: String,
        pub group: types::Group,
        pub tool: types::Tool,
    }

    pub async fn student_with_tool(app: &TestApp, email: &str) -> Student {
        let admin = app.admin_client();
        let (user_id, token) = app.create_user(email, "student").await;
        let user_id = uuid(&user_id);
        let group = group(
            &admin,
            &format!("group of {email}"),
            None,
            serde_json::json!({}),
        )
        .await;
        add_member(&admin, group.id, user_id).await;
        let tool = tool(&admin, group.id, "Tutor", "Help with homework.").await;
        Student {
            user_id,
            token,
            group,
            tool,
        }
    }

    /// Every user, `limit` a page (newest first, the bootstrap admin last).
    pub async fn users(admin: &Client, limit: u32) -> Vec<types::User> {
        every_page!(limit, admin.admin_list_users())
    }

    /// The bootstrap admin's user id.
    pub async fn admin_id(app: &TestApp) -> Uuid {
        let users = users(&app.admin_client(), 100).await;
        let admin = users
            .iter()
            .find(|u| u.email == app.admin_email)
            .unwrap_or_else(|| panic!("the bootstrap admin is not listed: {users:?}"));
        admin.id
    }

    /// A user's tokens (one list, not paginated).
    pub async fn tokens(admin: &Client, user_id: Uuid) -> Vec<types::Token> {
        admin
            .admin_list_tokens()
            .id(user_id)
            .send()
            .await
            .assert_status(200)
            .into_inner()
            .items
    }

    /// Every group the test made (the bootstrap "Demo" group is left out), `limit` a page.
    pub async fn groups(admin: &Client, limit: u32) -> Vec<types::Group> {
        let all: Vec<types::Group> = every_page!(limit, admin.admin_list_groups());
        all.into_iter().filter(|g| g.name != "Demo").collect()
    }

    /// Every member of a group, `limit` a page.
    pub async fn members(admin: &Client, group_id: Uuid, limit: u32) -> Vec<types::Membership> {
        every_page!(limit, admin.admin_list_group_members().id(group_id))
    }

    /// Every tool the test made (the bootstrap "Demo tutor" is left out), `limit` a page.
    pub async fn tools(admin: &Client, limit: u32) -> Vec<types::Tool> {
        let all: Vec<types::Tool> = every_page!(limit, admin.admin_list_tools());
        all.into_iter().filter(|t| t.name != "Demo tutor").collect()
    }

    /// Every class, `limit` a page.
    pub async fn classes(admin: &Client, limit: u32) -> Vec<types::Class> {
        every_page!(limit, admin.admin_list_classes())
    }

    /// Every enrolment of a class, `limit` a page.
    pub async fn enrollments(admin: &Client, class_id: Uuid, limit: u32) -> Vec<types::Enrollment> {
        every_page!(limit, admin.admin_list_enrollments().id(class_id))
    }

    /// Every assignment (of one class when given), `limit` a page.
    pub async fn assignments(
        admin: &Client,
        class_id: Option<Uuid>,
        limit: u32,
    ) -> Vec<types::Assignment> {
        every_page!(limit, {
            let request = admin.admin_list_assignments();
            match class_id {
                Some(class_id) => request.class_id(class_id),
                None => request,
            }
        })
    }
}
