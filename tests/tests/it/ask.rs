//! `POST /v1/ask` and `GET /v1/ask/replay/{rid}` (seed Gesahni): a conversation per
//! `rid`, JSON and SSE answers, replay of the caller's own conversation only, and the
//! `chat:write` permission.

use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::MessageRole;
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::{ApiResult, SseReader, TestApp, both_backends};
use serde_json::json;

use crate::fixtures::api;

both_backends!(
    ask_opens_a_conversation_continues_it_by_rid_and_replays_it,
    |backend: Backend| async move {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), "");
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
        let student = api::student_with_tool(&app, "asker@example.com").await;
        let client = app.client_as(&student.token);

        // No rid: a new conversation, with the student's only tool.
        let first = client
            .ask()
            .body_map(|b| b.prompt("hello there").stream(false))
            .send()
            .await
            .assert_status(201)
            .into_inner();
        assert_eq!(first.rid.len(), 8, "{first:?}");
        assert_eq!(first.turn.payload.message, "Echo: hello there");
        assert_eq!(first.turn.model, "mock-model", "the default model");
        let session = client
            .get_session()
            .id(first.session_id)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(session.tool_id, student.tool.id);

        // With its rid and `model: auto`: the same conversation, its history sent along.
        let second = client
            .ask()
            .body_map(|b| {
                b.prompt("and again")
                    .stream(false)
                    .rid(Some(first.rid.clone()))
                    .model(Some("auto".to_owned()))
            })
            .send()
            .await
            .assert_status(201)
            .into_inner();
        assert_eq!(
            (second.rid.as_str(), second.session_id),
            (first.rid.as_str(), first.session_id)
        );
        let sent = mock.requests().last().expect("a request").clone();
        assert!(
            sent.messages
                .iter()
                .any(|m| m.content.contains("hello there")),
            "the earlier message is in the context: {:?}",
            sent.messages
        );

        // Streamed (the default): the feed, with the conversation in `Parley-Rid`.
        let response = app
            .client
            .post(app.url("/v1/ask"))
            .bearer_auth(&student.token)
            .json(&json!({"prompt": "stream it", "rid": first.rid}))
            .send()
            .await
            .expect("a response");
        assert_eq!(response.status(), 200);
        assert_eq!(
            response
                .headers()
                .get("parley-rid")
                .and_then(|v| v.to_str().ok()),
            Some(first.rid.as_str())
        );
        let events = SseReader::new(response)
            .until_terminal(Duration::from_secs(20))
            .await;
        let last = events.last().expect("events");
        assert_eq!(last.event, "complete", "{events:?}");
        assert_eq!(last.data["payload"]["message"], "Echo: stream it");

        // Replay: the conversation's messages, oldest first.
        let replay = client
            .ask_replay()
            .rid(&first.rid)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(replay.message_count, 6);
        let said: Vec<(MessageRole, &str)> = replay
            .messages
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (MessageRole::User, "hello there"),
                (MessageRole::Assistant, "Echo: hello there"),
                (MessageRole::User, "and again"),
                (MessageRole::Assistant, "Echo: and again"),
                (MessageRole::User, "stream it"),
                (MessageRole::Assistant, "Echo: stream it"),
            ]
        );

        // Another user's rid is not found, to replay or to continue; nothing is recorded.
        let other = api::student_with_tool(&app, "nosy@example.com").await;
        let nosy = app.client_as(&other.token);
        assert_eq!(
            nosy.ask_replay()
                .rid(&first.rid)
                .send()
                .await
                .assert_problem(404),
            "not_found"
        );
        let prompts = app.count("SELECT COUNT(*) FROM prompts").await;
        assert_eq!(
            nosy.ask()
                .body_map(|b| b
                    .prompt("mine now")
                    .stream(false)
                    .rid(Some(first.rid.clone())))
                .send()
                .await
                .assert_problem(404),
            "not_found"
        );
        assert_eq!(app.count("SELECT COUNT(*) FROM prompts").await, prompts);
        // Their own conversation is theirs: a different rid.
        let theirs = nosy
            .ask()
            .body_map(|b| b.prompt("hi").stream(false))
            .send()
            .await
            .assert_status(201)
            .into_inner();
        assert_ne!(theirs.rid, first.rid);
        assert_ne!(theirs.session_id, first.session_id);

        // A rid that cannot be one; an unknown one.
        let bad = app
            .get("/v1/ask/replay/not%20a%20rid", Some(&student.token))
            .await;
        assert_eq!(bad.assert_problem(400), "invalid_parameter");
        assert_eq!(
            client
                .ask_replay()
                .rid("nosuchrid")
                .send()
                .await
                .assert_problem(404),
            "not_found"
        );
    }
);

both_backends!(ask_needs_the_chat_write_permission, |app| async move {
    let student = api::student_with_tool(&app, "muted@example.com").await;
    let client = app.client_as(&student.token);
    let asked = client
        .ask()
        .body_map(|b| b.prompt("hello").stream(false))
        .send()
        .await
        .assert_status(201)
        .into_inner();
    app.admin_client()
        .admin_update_user()
        .id(student.user_id)
        .body_map(|b| b.permissions(vec!["-chat:write".to_owned()]))
        .send()
        .await
        .assert_status(200);
    assert_eq!(
        client
            .ask()
            .body_map(|b| b.prompt("hello").stream(false))
            .send()
            .await
            .assert_problem(403),
        "forbidden"
    );
    assert_eq!(
        client
            .ask_replay()
            .rid(&asked.rid)
            .send()
            .await
            .assert_problem(403),
        "forbidden"
    );
});
