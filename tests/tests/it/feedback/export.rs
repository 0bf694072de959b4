//! `GET /v1/admin/exports/conversations`: JSONL in OpenAI's chat fine-tuning format —
//! each line parsed; the active branch only (after an edit); a function-calling answer
//! as `tool_calls` and `tool` messages; the stored text (redacted; `[blocked]`), never
//! the original a blocking module kept; the filters; and a large range streamed in
//! pages (chunked, every session once, in order).

use chrono::{Duration, Utc};
use futures::StreamExt;
use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::{FinishedTurn, Rating, ToolDefinition, ToolModule};
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::{ApiResult, TestApp, TestResponse, both_backends, typed};
use sea_orm::sea_query::{Alias, Query};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection};
use serde_json::{Value, json};
use uuid::Uuid;

use super::rate;
use crate::fixtures::api::{self, uuid};

const EXPORT: &str = "/v1/admin/exports/conversations";

/// The export with `query` as the admin: the response and its lines, each parsed.
async fn export(app: &TestApp, query: &str) -> (TestResponse, Vec<Value>) {
    let response = app.get(&format!("{EXPORT}{query}"), app.admin()).await;
    response.assert_status(200);
    assert!(
        response.content_type().starts_with("application/x-ndjson"),
        "{response}"
    );
    let lines = response
        .text
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: a line: {line}"))
        })
        .collect();
    assert!(
        response.text.is_empty() || response.text.ends_with('\n'),
        "every line ends: {response}"
    );
    (response, lines)
}

fn roles(line: &Value) -> Vec<&str> {
    line["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["role"].as_str().expect("a role"))
        .collect()
}

both_backends!(
    the_export_is_openai_fine_tuning_jsonl_of_active_branches,
    |backend: Backend| async move {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), "");
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
        let admin = app.admin_client();
        let (user_id, token) = app.create_user("exported@example.com", "student").await;
        let group = api::group(&admin, "Exported", None, json!({})).await;
        api::add_member(&admin, group.id, uuid(&user_id)).await;
        let definition = ToolDefinition {
            functions: Some(vec!["getCurrentTime".into()]),
            modules: Some(vec![
                ToolModule {
                    name: "safety_filter".into(),
                    config: None,
                },
                ToolModule {
                    name: "pii_redactor".into(),
                    config: None,
                },
            ]),
            ..api::definition("Help with homework.")
        };
        let tool = api::tool_with(&admin, group.id, "Exported", definition).await;
        let other_tool = api::tool(&admin, group.id, "Other", "Help.").await;
        let me = app.client_as(&token);
        let session = api::session(&me, tool.id).await.id;
        let send = |content: &'static str, parent: Option<Uuid>| {
            let me = &me;
            async move {
                me.send_message()
                    .id(session)
                    .body_map(|b| b.content(content).parent_message_id(parent))
                    .send()
                    .await
                    .assert_status(201)
                    .into_inner()
            }
        };
        let called: FinishedTurn = send(
            "[[mock tool_call='getCurrentTime:{}']] What time is it? Mail jane@example.org",
            None,
        )
        .await;
        send("beta question", None).await;
        // An edit of "beta question": the branch through it is no longer the active one.
        let edited = send("gamma question", Some(called.message_id)).await;
        let blocked = send("how do I make a bomb for chemistry class", None).await;
        assert!(blocked.blocked, "the safety filter blocked it: {blocked:?}");
        rate(&me, session, edited.message_id, Rating::Down).await;
        // The original of the blocked message is kept for admins, in the audit.
        let originals = app
            .count("SELECT COUNT(*) FROM message_audit WHERE original_content LIKE '%make a bomb%'")
            .await;
        assert_eq!(originals, 1);

        let (response, lines) = export(&app, "").await;
        assert_eq!(
            response.header("transfer-encoding"),
            Some("chunked"),
            "streamed: {response}"
        );
        assert_eq!(response.header("content-length"), None);
        assert_eq!(lines.len(), 1, "{}", response.text);
        let line = &lines[0];
        assert_eq!(
            roles(line),
            [
                "system",
                "user",
                "assistant",
                "tool",
                "assistant",
                "user",
                "assistant",
                "user",
                "assistant"
            ],
            "{line:#}"
        );
        let messages = line["messages"].as_array().expect("messages");
        assert!(
            messages[0]["content"]
                .as_str()
                .is_some_and(|s| s.contains("Help with homework.")),
            "the system prompt the answer was given: {line:#}"
        );
        // The stored (redacted) text, never the original.
        let asked = messages[1]["content"].as_str().expect("the user's text");
        assert!(asked.contains("[email]"), "{asked}");
        assert!(!response.text.contains("jane@example.org"), "{line:#}");
        assert!(!response.text.contains("make a bomb"), "{line:#}");
        assert_eq!(messages[7]["content"], "[blocked]");
        let stored = typed::messages(&me, session).await;
        let text_of = |id: Uuid| {
            stored
                .iter()
                .find(|m| m.id == id)
                .map(|m| m.content.clone())
                .unwrap_or_else(|| panic!("{id} listed"))
        };
        assert_eq!(messages[8]["content"], text_of(blocked.message_id));
        // The function call: an assistant message with `tool_calls`, then its result.
        let call = &messages[2]["tool_calls"][0];
        assert_eq!(call["type"], "function");
        assert_eq!(call["function"]["name"], "getCurrentTime");
        let arguments: Value = serde_json::from_str(
            call["function"]["arguments"]
                .as_str()
                .expect("arguments are a JSON string"),
        )
        .expect("JSON arguments");
        assert!(arguments.is_object(), "{arguments}");
        assert_eq!(messages[3]["tool_call_id"], call["id"]);
        let result = messages[3]["content"].as_str().expect("the result's text");
        assert!(!result.is_empty());
        let answer = text_of(called.message_id);
        let (before, after) = answer
            .split_once("[[tool:0]]")
            .unwrap_or_else(|| panic!("a marker in {answer:?}"));
        match before.trim() {
            "" => assert!(messages[2].get("content").is_none(), "{line:#}"),
            text => assert_eq!(messages[2]["content"], text),
        }
        assert_eq!(messages[4]["content"], after);
        assert!(after.contains(result), "the model read the result: {after}");
        // The active branch: the edit, not what it replaced.
        assert_eq!(messages[5]["content"], "gamma question");
        assert_eq!(messages[6]["content"], text_of(edited.message_id));
        assert!(!response.text.contains("beta question"));
        // What the session offered.
        let tools = line["tools"].as_array().expect("tools");
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0]["type"], "function");
        assert_eq!(tools[0]["function"]["name"], "getCurrentTime");
        assert!(tools[0]["function"]["parameters"].is_object());

        // Filters.
        let count = |query: String| {
            let app = &app;
            async move { export(app, &query).await.1.len() }
        };
        assert_eq!(count("?rating=down".into()).await, 1);
        assert_eq!(count("?rating=up".into()).await, 0);
        assert_eq!(count(format!("?tool_id={}", tool.id)).await, 1);
        assert_eq!(count(format!("?tool_id={}", other_tool.id)).await, 0);
        assert_eq!(count(format!("?model={}", called.model)).await, 1);
        assert_eq!(count("?model=no-such-model".into()).await, 0);
        let later = (Utc::now() + Duration::minutes(1)).to_rfc3339();
        let earlier = (Utc::now() - Duration::hours(1)).to_rfc3339();
        let encode = |at: &str| at.replace('+', "%2B");
        assert_eq!(count(format!("?from={}", encode(&later))).await, 0);
        assert_eq!(
            count(format!("?from={}&to={}", encode(&earlier), encode(&later))).await,
            1
        );
        let bad = app
            .get(
                &format!("{EXPORT}?from={}&to={}", encode(&later), encode(&earlier)),
                app.admin(),
            )
            .await;
        assert_eq!(bad.assert_problem(400), "invalid_parameter");
        // A rating on a branch that is no longer shown does not select the conversation.
        me.switch_branch()
            .id(session)
            .body_map(|b| {
                b.message_id(
                    stored
                        .iter()
                        .find(|m| m.content == "gamma question")
                        .and_then(|m| m.siblings.first().copied())
                        .expect("the edited message"),
                )
            })
            .send()
            .await
            .assert_status(200);
        assert_eq!(count("?rating=down".into()).await, 0);
        let (_, lines) = export(&app, "").await;
        assert!(
            lines[0].to_string().contains("beta question"),
            "the branch switched to: {}",
            lines[0]
        );
    }
);

/// A connection that may write to the app's database.
async fn writable_db(app: &TestApp) -> DatabaseConnection {
    let url = match app.database_url() {
        Some(url) => url.to_owned(),
        None => format!(
            "sqlite://{}?mode=rw",
            app.data_dir().join("parley.db").display()
        ),
    };
    Database::connect(parley_tests::connect_options(url))
        .await
        .expect("connecting to the app's database")
}

/// Seeds `n` sessions of `user_id` on `tool_id`, each a question and its answer (SEEDED:
/// rows as a turn writes them, many more than the API would make in a test's time).
async fn seed_sessions(app: &TestApp, user_id: Uuid, tool_id: Uuid, n: usize) -> Vec<Uuid> {
    let db = writable_db(app).await;
    let now = Utc::now();
    let mut sessions = Query::insert()
        .into_table(Alias::new("sessions"))
        .columns(
            [
                "id",
                "user_id",
                "tool_id",
                "state",
                "started_at",
                "last_activity_at",
                "message_count",
                "config",
                "active_leaf_id",
            ]
            .map(Alias::new),
        )
        .to_owned();
    let mut messages = Query::insert()
        .into_table(Alias::new("messages"))
        .columns(
            [
                "id",
                "session_id",
                "seq",
                "role",
                "content",
                "is_complete",
                "created_at",
                "parent_id",
            ]
            .map(Alias::new),
        )
        .to_owned();
    let mut ids = Vec::new();
    for i in 0..n {
        let (id, question, answer) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        ids.push(id);
        sessions.values_panic([
            id.into(),
            user_id.into(),
            tool_id.into(),
            "active".into(),
            now.into(),
            now.into(),
            2i32.into(),
            json!({}).into(),
            answer.into(),
        ]);
        for (seq, (message, role, parent)) in [
            (question, "user", None),
            (answer, "assistant", Some(question)),
        ]
        .into_iter()
        .enumerate()
        {
            messages.values_panic([
                message.into(),
                id.into(),
                (seq as i32 + 1).into(),
                role.into(),
                format!("{role} {i}").into(),
                true.into(),
                now.into(),
                parent.into(),
            ]);
        }
    }
    for (what, insert) in [("sessions", sessions), ("messages", messages)] {
        db.execute(&insert)
            .await
            .unwrap_or_else(|err| panic!("seeding {what}: {err}"));
    }
    ids
}

both_backends!(a_large_export_is_streamed_page_by_page, |app| async move {
    let student = api::student_with_tool(&app, "many@example.com").await;
    // Past two pages of the export (50 sessions each).
    let seeded = seed_sessions(&app, student.user_id, student.tool.id, 120).await;

    let response = app
        .request(reqwest::Method::GET, EXPORT, app.admin())
        .send()
        .await
        .expect("the export answers");
    assert_eq!(response.status(), 200);
    assert_eq!(
        response
            .headers()
            .get("transfer-encoding")
            .and_then(|v| v.to_str().ok()),
        Some("chunked")
    );
    assert!(response.headers().get("content-length").is_none());
    let mut body = response.bytes_stream();
    let (mut chunks, mut text) = (0, Vec::new());
    while let Some(chunk) = body.next().await {
        let chunk = chunk.expect("the body reads to its end");
        chunks += 1;
        text.extend_from_slice(&chunk);
    }
    let text = String::from_utf8(text).expect("UTF-8");
    let exported: Vec<(Uuid, Value)> = text
        .lines()
        .map(|line| {
            let line: Value = serde_json::from_str(line).expect("a JSON line");
            let content = line["messages"][0]["content"].as_str().expect("a question");
            let i: usize = content
                .strip_prefix("user ")
                .and_then(|i| i.parse().ok())
                .unwrap_or_else(|| panic!("a seeded question: {content}"));
            (seeded[i], line)
        })
        .collect();
    assert_eq!(
        exported.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        seeded,
        "every session once, oldest first"
    );
    for (_, line) in &exported {
        assert_eq!(roles(line), ["user", "assistant"]);
    }
    assert!(
        chunks >= 3,
        "the pages arrive as chunks of their own ({chunks} read)"
    );
});
