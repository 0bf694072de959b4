//! Streaming turns end to end: the real binary, the mock LLM as its provider, SSE read
//! with a real parser. Each test runs on PostgreSQL and on SQLite (`parley serve`: the
//! embedded queue and event log).

use std::{collections::HashSet, time::Duration};

use parley_mock_llm::{MockConfig, MockLlm, Outcome};
use parley_tests::turns::{
    assert_gap_free, config_path, mock_provider_config, prompt_id_of, text_of,
};
use parley_tests::{Backend, SseEvent, SseReader, TestApp, both_backends};
use serde_json::{Value, json};

use crate::fixtures::{self, id};

const WAIT: Duration = Duration::from_secs(20);

/// A server whose provider is the mock, and a student with a session.
struct Chat {
    app: TestApp,
    mock: MockLlm,
    token: String,
    session_id: String,
    _config: tempfile::NamedTempFile,
}

async fn chat(backend: Backend) -> Chat {
    chat_with(backend, &[], &[]).await
}

/// Like [`chat`], with `[worker]` settings that replace the test defaults.
async fn chat_with(
    backend: Backend,
    worker_settings: &[(&str, &str)],
    env: &[(&str, &str)],
) -> Chat {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut worker = vec![
        ("stall_timeout_ms", "1000"),
        ("max_attempts", "2"),
        ("lease_s", "5"),
    ];
    for (key, value) in worker_settings {
        worker.retain(|(k, _)| k != key);
        worker.push((key, value));
    }
    let worker: String = worker.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
    let config = mock_provider_config(&mock.base_url(), &worker);
    let path = config_path(&config);
    let mut env = env.to_vec();
    env.push(("PARLEY_CONFIG", &path));
    let app = TestApp::spawn_with_env(backend, &env).await;
    let student = fixtures::student_with_tool(&app, "chatter@example.com").await;
    let session = app
        .post_json(
            "/v1/sessions",
            Some(&student.token),
            &json!({"tool_id": id(&student.tool)}),
        )
        .await;
    session.assert_status(201);
    Chat {
        session_id: id(&session.body),
        token: student.token,
        app,
        mock,
        _config: config,
    }
}

impl Chat {
    fn messages_url(&self, query: &str) -> String {
        self.app
            .url(&format!("/v1/sessions/{}/messages{query}", self.session_id))
    }

    /// Sends a message asking for the SSE feed.
    async fn stream(&self, content: &str) -> SseReader {
        let response = self
            .app
            .client
            .post(self.messages_url(""))
            .bearer_auth(&self.token)
            .header("accept", "text/event-stream")
            .json(&json!({"content": content}))
            .send()
            .await
            .expect("sending a message");
        SseReader::new(response)
    }

    async fn send_json(
        &self,
        content: &str,
        query: &str,
        extra: &[(&str, &str)],
    ) -> parley_tests::TestResponse {
        let mut request = self
            .app
            .client
            .post(self.messages_url(query))
            .bearer_auth(&self.token)
            .header("accept", "application/json")
            .json(&json!({"content": content}));
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        self.app.send(request).await
    }

    async fn events(&self, prompt_id: &str, last_event_id: Option<u64>) -> SseReader {
        let mut request = self
            .app
            .client
            .get(self.app.url(&format!("/v1/prompts/{prompt_id}/events")))
            .bearer_auth(&self.token);
        if let Some(last) = last_event_id {
            request = request.header("last-event-id", last.to_string());
        }
        SseReader::new(request.send().await.expect("opening a feed"))
    }
}

/// Checks a prompt's state and how many times a worker started it.
async fn assert_prompt(chat: &Chat, prompt_id: &str, state: &str, attempt: i64) {
    let prompt = chat
        .app
        .get(&format!("/v1/prompts/{prompt_id}"), Some(&chat.token))
        .await;
    let found = (
        prompt.body["state"].as_str(),
        prompt.body["attempt"].as_i64(),
    );
    assert_eq!(found, (Some(state), Some(attempt)), "{prompt}");
}

both_backends!(
    a_streamed_turn_follows_the_protocol_and_is_persisted,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let mut feed = chat.stream("hello there friend").await;
        assert_eq!(feed.status, 200);
        let location = feed
            .headers
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let events = feed.until_terminal(WAIT).await;
        assert_gap_free(&events);
        let kinds: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(kinds[..2], ["prompt_state", "block_start"], "{kinds:?}");
        assert_eq!(events[0].data["state"], "in_progress");
        let stop = kinds
            .iter()
            .position(|k| *k == "block_stop")
            .expect("a block_stop");
        assert!(
            kinds[2..stop].iter().all(|k| *k == "text_delta"),
            "{kinds:?}"
        );
        assert_eq!(kinds[stop + 1..], ["prompt_state", "complete"], "{kinds:?}");
        assert_eq!(events[stop + 1].data["state"], "completed");
        let text = text_of(&events);
        assert_eq!(text, "Echo: hello there friend");
        let prompt_id = prompt_id_of(&events);
        assert_eq!(location, format!("/v1/prompts/{prompt_id}"));

        let complete = &events.last().unwrap().data;
        assert_eq!(complete["payload"]["message"], text.as_str());
        assert_eq!(complete["model"], "mock-model");
        assert_eq!(complete["vendor"], "mock");
        assert!(complete["usage"]["output_tokens"].as_u64().unwrap() > 0);

        // What was streamed is what was stored.
        let messages = chat
            .app
            .get(
                &format!("/v1/sessions/{}/messages", chat.session_id),
                Some(&chat.token),
            )
            .await;
        let items = messages.body["items"].as_array().unwrap().clone();
        assert_eq!(items.len(), 2, "{messages}");
        assert_eq!(
            (items[0]["role"].as_str(), items[0]["content"].as_str()),
            (Some("user"), Some("hello there friend"))
        );
        assert_eq!(
            (items[1]["role"].as_str(), items[1]["content"].as_str()),
            (Some("assistant"), Some(text.as_str()))
        );
        assert_eq!(items[1]["id"], complete["message_id"]);
        assert_eq!(items[1]["is_complete"], true);
        let prompt = chat
            .app
            .get(&format!("/v1/prompts/{prompt_id}"), Some(&chat.token))
            .await;
        assert_eq!(prompt.body["state"], "completed", "{prompt}");
        assert_eq!(prompt.body["attempt"], 1);
        let usage = chat
            .app
            .count("SELECT COUNT(*) FROM ai_usage WHERE output_tokens > 0 AND input_tokens > 0")
            .await;
        assert_eq!(usage, 1, "one usage row for the one LLM call");

        // The provider got the system prompt and the user's message.
        let request = chat.mock.requests().pop().expect("the mock was called");
        assert!(
            request
                .system_prompt()
                .unwrap_or_default()
                .contains("Help with homework.")
        );
        assert_eq!(
            request.last_user_message().unwrap_or_default(),
            "hello there friend"
        );

        // The session is free again and a second turn sees the first in its history.
        let second = chat.send_json("and again", "", &[]).await;
        second.assert_status(201);
        assert_eq!(second.body["payload"]["message"], "Echo: and again");
        let history = &chat.mock.requests().pop().unwrap().messages;
        assert!(
            history
                .iter()
                .any(|m| m.content == "Echo: hello there friend"),
            "history sent: {history:?}"
        );
    }
);

both_backends!(
    joining_a_turn_mid_way_and_many_readers,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let accepted = chat
            .send_json(
                "[[mock tokens=30 token_delay_ms=20]] go",
                "?background=true",
                &[],
            )
            .await;
        accepted.assert_status(202);
        let prompt_id = accepted.body["prompt_id"].as_str().unwrap().to_owned();
        assert_eq!(
            accepted.body["events_url"],
            format!("/v1/prompts/{prompt_id}/events")
        );

        let mut first = chat.events(&prompt_id, None).await;
        let mut head = Vec::new();
        for _ in 0..6 {
            head.push(first.next(WAIT).await.expect("an event"));
        }
        let joined_after = head.last().unwrap().seq();
        let mut late = chat.events(&prompt_id, Some(joined_after)).await;
        let mut second = chat.events(&prompt_id, None).await;
        let mut third = chat.events(&prompt_id, None).await;
        let rest = first.until_terminal(WAIT).await;
        let late_events = late.until_terminal(WAIT).await;
        assert_eq!(
            late_events, rest,
            "Last-Event-ID yields exactly the remaining events"
        );
        let all: Vec<SseEvent> = head.into_iter().chain(rest).collect();
        assert_gap_free(&all);
        assert_eq!(
            second.until_terminal(WAIT).await,
            all,
            "readers see identical streams"
        );
        assert_eq!(third.until_terminal(WAIT).await, all);
        assert_eq!(text_of(&all).split_whitespace().count(), 30);

        // After the turn, a reader joins from ?after= and gets the tail, then the feed ends.
        let tail = chat
            .app
            .client
            .get(chat.app.url(&format!(
                "/v1/prompts/{prompt_id}/events?after={}",
                all.len() - 2
            )))
            .bearer_auth(&chat.token)
            .send()
            .await
            .unwrap();
        let tail = SseReader::new(tail).until_terminal(WAIT).await;
        assert_eq!(tail, all[all.len() - 2..].to_vec());
    }
);

both_backends!(
    cancel_mid_stream_keeps_partial_content,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let mut feed = chat
            .stream("[[mock tokens=400 token_delay_ms=20]] long answer")
            .await;
        let mut seen = Vec::new();
        while seen
            .iter()
            .filter(|e: &&SseEvent| e.event == "text_delta")
            .count()
            < 5
        {
            seen.push(feed.next(WAIT).await.expect("deltas"));
        }
        let prompt_id = prompt_id_of(&seen);
        let cancelled = chat
            .app
            .post_json(
                &format!("/v1/prompts/{prompt_id}/cancel"),
                Some(&chat.token),
                &json!({}),
            )
            .await;
        cancelled.assert_status(202);
        let rest = feed.until_terminal(WAIT).await;
        let last = rest.last().expect("a terminal event");
        assert_eq!(last.event, "cancelled", "{rest:?}");
        let all: Vec<SseEvent> = seen.into_iter().chain(rest).collect();
        assert_gap_free(&all);
        let streamed = text_of(&all);
        assert!(
            streamed.split_whitespace().count() < 400,
            "the stream stopped early"
        );

        let prompt = chat
            .app
            .get(&format!("/v1/prompts/{prompt_id}"), Some(&chat.token))
            .await;
        assert_eq!(prompt.body["state"], "canceled");
        let messages = chat
            .app
            .get(
                &format!("/v1/sessions/{}/messages", chat.session_id),
                Some(&chat.token),
            )
            .await;
        let answer = &messages.body["items"][1];
        assert_eq!(answer["is_complete"], false, "{messages}");
        assert!(
            !answer["content"].as_str().unwrap().is_empty()
                && streamed.starts_with(answer["content"].as_str().unwrap())
        );
        let recorded = chat
            .mock
            .wait_for(Duration::from_secs(5), |requests| {
                requests
                    .iter()
                    .any(|r| r.outcome == Outcome::ClientDisconnected)
            })
            .await;
        assert!(recorded.is_some(), "the upstream request was aborted");
        let again = chat
            .app
            .post_json(
                &format!("/v1/prompts/{prompt_id}/cancel"),
                Some(&chat.token),
                &json!({}),
            )
            .await;
        assert_eq!(
            again.status, 202,
            "cancelling a cancelled prompt is harmless: {again}"
        );
        let usage = chat.app.count("SELECT COUNT(*) FROM ai_usage").await;
        assert_eq!(usage, 1, "a cancelled call still records its usage");
        let done = chat.send_json("next", "", &[]).await;
        done.assert_status(201);
    }
);

both_backends!(
    upstream_faults_map_to_error_codes,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let cases = [
            ("[[mock status=500]] hi", 502, "upstream_error", "failed"),
            (
                "[[mock status=429 retry_after=1]] hi",
                429,
                "rate_limited",
                "failed",
            ),
            (
                "[[mock tokens=20 stall_after=3]] hi",
                504,
                "upstream_stall",
                "error",
            ),
            (
                "[[mock tokens=20 cut_after=3]] hi",
                502,
                "upstream_error",
                "error",
            ),
            (
                "[[mock tokens=20 malformed_after=3]] hi",
                502,
                "upstream_error",
                "error",
            ),
        ];
        for (content, status, code, state) in cases {
            let response = chat.send_json(content, "", &[]).await;
            assert_eq!(
                response.assert_problem(status),
                code,
                "{content}: {response}"
            );
            let prompts = chat
                .app
                .get(
                    &format!("/v1/sessions/{}/streaming", chat.session_id),
                    Some(&chat.token),
                )
                .await;
            assert!(
                prompts.body["prompt"].is_null(),
                "the session is free after a failure: {prompts}"
            );
            let last = chat
                .app
                .get(
                    &format!("/v1/sessions/{}/messages?limit=100", chat.session_id),
                    Some(&chat.token),
                )
                .await;
            let items = last.body["items"].as_array().unwrap();
            let answer = items.last().unwrap();
            if state == "error" {
                assert_eq!(
                    answer["role"], "assistant",
                    "partial content is kept: {content}"
                );
                assert_eq!(answer["is_complete"], false);
                assert_eq!(answer["content"], "t1 t2 t3");
            } else {
                assert_eq!(answer["role"], "user", "nothing was produced: {content}");
            }
        }
        // Parley owns retries: each failing status was tried exactly `max_attempts` (2) times.
        let requests = chat.mock.requests();
        for status in [500, 429] {
            let tries = requests
                .iter()
                .filter(|r| r.outcome == Outcome::Rejected(status))
                .count();
            assert_eq!(tries, 2, "HTTP {status} was tried {tries} times");
        }
        let states = chat
            .app
            .count("SELECT COUNT(*) FROM prompts WHERE state = 'failed'")
            .await;
        assert_eq!(states, 2);
        let errors = chat
            .app
            .count("SELECT COUNT(*) FROM prompts WHERE state = 'error'")
            .await;
        assert_eq!(errors, 3);
    }
);

both_backends!(
    idempotency_and_the_active_prompt_policies,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let key = [("idempotency-key", "turn-1")];
        let first = chat
            .send_json(
                "[[mock tokens=200 token_delay_ms=20]] slow",
                "?background=true",
                &key,
            )
            .await;
        first.assert_status(202);
        let again = chat
            .send_json(
                "[[mock tokens=200 token_delay_ms=20]] slow",
                "?background=true",
                &key,
            )
            .await;
        again.assert_status(202);
        assert_eq!(
            again.body["prompt_id"], first.body["prompt_id"],
            "a repeated key returns the same prompt"
        );

        let busy = chat.send_json("meanwhile", "", &[]).await;
        assert_eq!(busy.assert_problem(409), "prompt_active");
        let queued = chat
            .send_json("after that", "?background=true&on_active=enqueue", &[])
            .await;
        queued.assert_status(202);
        let interrupting = chat
            .send_json(
                "stop and answer this",
                "?background=true&on_active=interrupt",
                &[],
            )
            .await;
        interrupting.assert_status(202);

        let first_id = first.body["prompt_id"].as_str().unwrap();
        let first_events = chat.events(first_id, None).await.until_terminal(WAIT).await;
        assert_eq!(
            first_events.last().unwrap().event,
            "cancelled",
            "interrupt cancels the running prompt"
        );
        for accepted in [&queued, &interrupting] {
            let prompt_id = accepted.body["prompt_id"].as_str().unwrap();
            let events = chat
                .events(prompt_id, None)
                .await
                .until_terminal(WAIT)
                .await;
            assert_eq!(events.last().unwrap().event, "complete", "{events:?}");
        }
        let messages = chat
            .app
            .get(
                &format!("/v1/sessions/{}/messages?limit=100", chat.session_id),
                Some(&chat.token),
            )
            .await;
        let contents: Vec<&str> = messages.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap())
            .collect();
        let expected_tail = [
            "after that",
            "Echo: after that",
            "stop and answer this",
            "Echo: stop and answer this",
        ];
        assert_eq!(
            contents[contents.len() - 4..],
            expected_tail,
            "queued turns run in order: {contents:?}"
        );
        let seqs: HashSet<i64> = messages.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["seq"].as_i64().unwrap())
            .collect();
        assert_eq!(seqs.len(), contents.len());
    }
);

both_backends!(
    other_users_prompts_answer_404,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let done = chat.send_json("mine", "", &[]).await;
        done.assert_status(201);
        let prompt_id = done.body["prompt_id"].as_str().unwrap().to_owned();
        let (_, other) = chat.app.create_user("nosy@example.com", "student").await;
        for path in [
            format!("/v1/prompts/{prompt_id}"),
            format!("/v1/prompts/{prompt_id}/events"),
        ] {
            chat.app.get(&path, Some(&other)).await.assert_problem(404);
        }
        for path in [
            format!("/v1/prompts/{prompt_id}/cancel"),
            format!("/v1/prompts/{prompt_id}/resume"),
        ] {
            chat.app
                .post_json(&path, Some(&other), &json!({}))
                .await
                .assert_problem(404);
        }
        let posted = chat
            .app
            .post_json(
                &format!("/v1/sessions/{}/messages?background=true", chat.session_id),
                Some(&other),
                &json!({"content": "hi"}),
            )
            .await;
        posted.assert_problem(404);
        let bad_model = chat
            .app
            .post_json(
                &format!("/v1/sessions/{}/messages?background=true", chat.session_id),
                Some(&chat.token),
                &json!({"content": "hi", "model": "gpt-nope"}),
            )
            .await;
        assert_eq!(bad_model.assert_problem(422), "unknown_model");
        let empty = chat
            .app
            .post_json(
                &format!("/v1/sessions/{}/messages?background=true", chat.session_id),
                Some(&chat.token),
                &json!({"content": "  "}),
            )
            .await;
        assert_eq!(empty.assert_problem(422), "validation_failed");
    }
);

both_backends!(
    the_offline_demo_model_answers_out_of_the_box,
    |app| async move {
        let tools = app.get("/v1/tools", app.admin()).await;
        let demo = tools.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "Demo tutor")
            .cloned();
        let demo =
            demo.unwrap_or_else(|| panic!("a demo tool exists on a fresh deployment: {tools}"));
        let models = app.get("/v1/models", app.admin()).await;
        assert_eq!(
            models.body["items"],
            json!([{"id": "parley-demo", "default": true}]),
            "{models}"
        );
        let session = app
            .post_json("/v1/sessions", app.admin(), &json!({"tool_id": demo["id"]}))
            .await;
        session.assert_status(201);
        let url = app.url(&format!("/v1/sessions/{}/messages", id(&session.body)));
        let request = app
            .client
            .post(url)
            .bearer_auth(&app.admin_token)
            .header("accept", "application/json")
            .json(&json!({"content": "What is 2+2?"}));
        let turn = app.send(request).await;
        turn.assert_status(201);
        assert_eq!(turn.body["vendor"], "parley-offline");
        assert_eq!(turn.body["model"], "parley-demo");
        let message = turn.body["payload"]["message"].as_str().unwrap();
        assert!(
            message.contains("offline demo model") && message.contains("What is 2+2?"),
            "{message}"
        );
    }
);

both_backends!(
    reasoning_streams_as_a_thinking_block,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let events = chat
            .stream("[[mock reasoning=\"let me think\" reply=Done.]] q")
            .await
            .until_terminal(WAIT)
            .await;
        assert_gap_free(&events);
        let blocks: Vec<(String, Value)> = events
            .iter()
            .filter(|e| e.event == "block_start")
            .map(|e| {
                (
                    e.data["block_type"].as_str().unwrap().to_owned(),
                    e.data["index"].clone(),
                )
            })
            .collect();
        assert_eq!(
            blocks,
            vec![
                ("thinking".to_owned(), json!(0)),
                ("text".to_owned(), json!(1))
            ]
        );
        let thinking: String = events
            .iter()
            .filter(|e| e.event == "thinking_delta")
            .map(|e| e.data["text"].as_str().unwrap())
            .collect();
        assert_eq!(thinking, "let me think");
        assert_eq!(text_of(&events), "Done.");
        assert_eq!(
            events.last().unwrap().data["payload"]["message"],
            "Done.",
            "the answer is the text block only"
        );
    }
);

both_backends!(
    streaming_state_session_cancel_and_resume,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let streaming_url = format!("/v1/sessions/{}/streaming", chat.session_id);
        let idle = chat.app.get(&streaming_url, Some(&chat.token)).await;
        assert_eq!(idle.body["prompt"], Value::Null);
        let nothing = chat
            .app
            .post_json(
                &format!("/v1/sessions/{}/cancel", chat.session_id),
                Some(&chat.token),
                &json!({}),
            )
            .await;
        assert_eq!(nothing.assert_problem(409), "nothing_to_cancel");

        let accepted = chat
            .send_json(
                "[[mock tokens=300 token_delay_ms=20]] slow",
                "?background=true",
                &[],
            )
            .await;
        let prompt_id = accepted.body["prompt_id"].as_str().unwrap().to_owned();
        let mut partial = String::new();
        for _ in 0..100 {
            let state = chat.app.get(&streaming_url, Some(&chat.token)).await;
            if let Some(content) = state.body["blocks"][0]["content"]
                .as_str()
                .filter(|c| c.split_whitespace().count() >= 3)
            {
                assert_eq!(state.body["prompt"]["id"], prompt_id.as_str());
                assert_eq!(state.body["prompt"]["state"], "in_progress");
                assert_eq!(state.body["blocks"][0]["is_finalized"], false);
                partial = content.to_owned();
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(
            partial.starts_with("t1 t2 t3"),
            "partial blocks are checkpointed while streaming: {partial:?}"
        );
        let cancel = chat
            .app
            .post_json(
                &format!("/v1/sessions/{}/cancel", chat.session_id),
                Some(&chat.token),
                &json!({}),
            )
            .await;
        cancel.assert_status(202);
        let events = chat
            .events(&prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(events.last().unwrap().event, "cancelled");
        let resume_cancelled = chat
            .app
            .post_json(
                &format!("/v1/prompts/{prompt_id}/resume"),
                Some(&chat.token),
                &json!({}),
            )
            .await;
        assert_eq!(resume_cancelled.assert_problem(409), "not_resumable");

        // A failed prompt can be resumed: it runs again (attempt 2) and readers see `retry`.
        let failed = chat.send_json("[[mock status=503]] again", "", &[]).await;
        assert_eq!(failed.assert_problem(502), "upstream_error");
        let instance = failed.body["instance"]
            .as_str()
            .unwrap_or_else(|| panic!("the problem names the prompt: {failed}"));
        let failed_id = instance.trim_start_matches("/v1/prompts/").to_owned();
        let resumed = chat
            .app
            .post_json(
                &format!("/v1/prompts/{failed_id}/resume"),
                Some(&chat.token),
                &json!({}),
            )
            .await;
        resumed.assert_status(202);
        let events = chat.events(&failed_id, None).await;
        let events = events_until_attempt_ends(events, 2).await;
        assert!(
            events
                .iter()
                .any(|e| e.event == "retry" && e.data["attempt"] == 2),
            "{events:?}"
        );
        assert_prompt(&chat, &failed_id, "failed", 2).await;
    }
);

/// Reads a feed until the terminal event of the given attempt.
async fn events_until_attempt_ends(mut feed: SseReader, attempt: u64) -> Vec<SseEvent> {
    let mut events = Vec::new();
    let mut current = 1;
    while let Some(event) = feed.next(WAIT).await {
        if event.event == "retry" {
            current = event.data["attempt"].as_u64().unwrap_or(current);
        }
        let done = event.is_terminal() && current >= attempt;
        events.push(event);
        if done {
            break;
        }
    }
    events
}

both_backends!(
    after_retention_events_are_rebuilt_from_the_database,
    |backend: Backend| async move {
        let chat = chat_with(backend, &[("event_retention_s", "1")], &[]).await;
        let live = chat
            .stream("[[mock reasoning=hmm tokens=5]] q")
            .await
            .until_terminal(WAIT)
            .await;
        let prompt_id = prompt_id_of(&live);
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let rebuilt = chat
            .events(&prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        assert_gap_free(&rebuilt);
        let kinds: Vec<&str> = rebuilt.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "prompt_state",
                "block_start",
                "thinking_delta",
                "block_stop",
                "block_start",
                "text_delta",
                "block_stop",
                "complete"
            ],
            "the same kinds of events, each block whole"
        );
        assert_eq!(text_of(&rebuilt), text_of(&live));
        let (live_end, rebuilt_end) = (&live.last().unwrap().data, &rebuilt.last().unwrap().data);
        for field in ["message_id", "payload", "usage", "model", "vendor"] {
            assert_eq!(live_end[field], rebuilt_end[field], "{field}");
        }
    }
);

both_backends!(
    a_cancel_before_any_worker_runs_the_prompt_wins,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let running = chat
            .send_json(
                "[[mock tokens=40 token_delay_ms=20]] first",
                "?background=true",
                &[],
            )
            .await;
        running.assert_status(202);
        // Queued behind the running prompt: no worker has it yet.
        let queued = chat
            .send_json("second", "?background=true&on_active=enqueue", &[])
            .await;
        let queued_id = queued.body["prompt_id"].as_str().unwrap().to_owned();
        let cancel = chat
            .app
            .post_json(
                &format!("/v1/prompts/{queued_id}/cancel"),
                Some(&chat.token),
                &json!({}),
            )
            .await;
        cancel.assert_status(202);
        assert!(
            cancel.body["cancel_requested_at"].is_string(),
            "the cancel is recorded first: {cancel}"
        );
        let events = chat
            .events(&queued_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        let kinds: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(kinds, ["prompt_state", "cancelled"], "{events:?}");
        assert_eq!(events[0].data["state"], "canceled");
        assert_prompt(&chat, &queued_id, "canceled", 0).await;
        assert!(
            !chat
                .mock
                .requests()
                .iter()
                .any(|r| r.last_user_message().unwrap_or_default() == "second")
        );
        let first_id = running.body["prompt_id"].as_str().unwrap();
        let first = chat.events(first_id, None).await.until_terminal(WAIT).await;
        assert_eq!(
            first.last().unwrap().event,
            "complete",
            "the running prompt was not touched"
        );
    }
);

both_backends!(
    usage_is_counted_when_the_provider_reports_none,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let turn = chat
            .send_json("[[mock tokens=12 no_usage=1]] count me", "", &[])
            .await;
        turn.assert_status(201);
        assert!(
            turn.body["usage"]["output_tokens"].as_u64().unwrap() > 0,
            "{turn}"
        );
        assert!(
            turn.body["usage"]["input_tokens"].as_u64().unwrap() > 0,
            "{turn}"
        );
        let failed = chat.send_json("[[mock status=500]] fail", "", &[]).await;
        failed.assert_problem(502);
        let rows = chat
            .app
            .count("SELECT COUNT(*) FROM ai_usage WHERE output_tokens = 0")
            .await;
        assert_eq!(rows, 2, "both failed calls of the failed turn are recorded");
    }
);

both_backends!(
    open_feeds_get_a_ping_every_eight_seconds,
    |backend: Backend| async move {
        let chat = chat_with(backend, &[("stall_timeout_ms", "20000")], &[]).await;
        let accepted = chat
            .send_json(
                "[[mock first_token_delay_ms=9500 tokens=2]] slow start",
                "?background=true",
                &[],
            )
            .await;
        let prompt_id = accepted.body["prompt_id"].as_str().unwrap();
        let response = chat
            .app
            .client
            .get(chat.app.url(&format!("/v1/prompts/{prompt_id}/events")))
            .bearer_auth(&chat.token)
            .send()
            .await
            .unwrap();
        let started = std::time::Instant::now();
        let mut raw = response.bytes_stream();
        let mut text = String::new();
        use futures::StreamExt;
        while !text.contains("event: ping") {
            let chunk = tokio::time::timeout(Duration::from_secs(12), raw.next())
                .await
                .expect("a ping within 12 s")
                .unwrap()
                .unwrap();
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(7),
            "not before the interval: {waited:?}"
        );
        let ping = text
            .split("\n\n")
            .find(|e| e.contains("event: ping"))
            .unwrap();
        assert!(!ping.contains("id:"), "a ping has no id: {ping}");
        assert!(
            ping.contains("\"type\":\"ping\"") && ping.contains("\"ts\":"),
            "{ping}"
        );
    }
);

both_backends!(
    the_trace_context_travels_with_the_job,
    |backend: Backend| async move {
        let chat = chat_with(backend, &[], &[("PARLEY_LOG", "info")]).await;
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let failed = chat
            .send_json(
                "[[mock status=500]] traced",
                "",
                &[("traceparent", traceparent)],
            )
            .await;
        failed.assert_problem(502);
        // The worker's span carries it: its warning about the failed provider call names it.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let log = chat.app.full_server_log();
        let line = log
            .lines()
            .find(|l| l.contains("provider call failed") && l.contains(traceparent))
            .unwrap_or_else(|| {
                panic!(
                    "the worker logged the trace context: {}",
                    chat.app.server_log()
                )
            });
        assert!(line.contains("prompt_id="), "{line}");
    }
);

both_backends!(
    a_reader_that_leaves_does_not_stop_the_turn,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let mut feed = chat
            .stream("[[mock tokens=30 token_delay_ms=20]] go on without me")
            .await;
        let mut head = Vec::new();
        for _ in 0..4 {
            head.push(feed.next(WAIT).await.expect("an event"));
        }
        let prompt_id = prompt_id_of(&head);
        drop(feed);
        let events = chat
            .events(&prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(
            events.last().unwrap().event,
            "complete",
            "closing a reader never stops the generation"
        );
        assert_eq!(text_of(&events).split_whitespace().count(), 30);
        assert_eq!(
            events[..4],
            head[..],
            "the log is the same for every reader"
        );
    }
);
