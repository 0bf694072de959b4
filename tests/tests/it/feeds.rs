//! Following a prompt's events the way clients do: a reader that already has everything
//! gets `204` (WHATWG clients stop reconnecting), a browser's `EventSource` authenticates
//! with a feed token in the query, and the end of a turn reads the same live and rebuilt
//! from the database after retention. An off-the-shelf SSE client (the `eventsource` npm
//! package, `tests/sse-client`) drives both.

use std::{process::Stdio, time::Duration};

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::{CreateMessage, FeedToken};
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::{ApiResult, Backend, SseEvent, SseReader, TestApp, both_backends};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::fixtures::{self, api::uuid, id};

const WAIT: Duration = Duration::from_secs(20);

/// A student with a session on a server whose model is the mock LLM.
struct Reader {
    app: TestApp,
    _mock: MockLlm,
    user_id: String,
    token: String,
    session_id: Uuid,
    _config: tempfile::NamedTempFile,
}

async fn reader(backend: Backend, worker: &str) -> Reader {
    let mock = MockLlm::start(MockConfig::default()).await;
    let config = mock_provider_config(&mock.base_url(), worker);
    let path = config_path(&config);
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &path)]).await;
    let student = fixtures::student_with_tool(&app, "reader@example.com").await;
    let session = fixtures::session(&app, &student.token, &id(&student.tool)).await;
    Reader {
        session_id: uuid(&id(&session)),
        user_id: student.user_id,
        token: student.token,
        app,
        _mock: mock,
        _config: config,
    }
}

impl Reader {
    /// Runs a turn to its end (`Accept: application/json`; a failed turn is fine) and
    /// returns its prompt id.
    async fn finished_turn(&self, content: &str) -> Uuid {
        let client = self.app.client_as(&self.token);
        let body = CreateMessage {
            content: content.to_owned(),
            model: None,
            attachments: None,
            parent_message_id: None,
            response_format: None,
            client_functions: None,
        };
        let sent = client
            .send_message()
            .id(self.session_id)
            .body(body)
            .send()
            .await;
        match sent {
            Ok(finished) => finished.prompt_id,
            Err(parley_tests::client::Error::ErrorResponse(problem)) => {
                let instance = problem
                    .instance
                    .clone()
                    .expect("a failed turn names its prompt");
                uuid(instance.trim_start_matches("/v1/prompts/"))
            }
            Err(other) => panic!("sending {content:?}: {other:?}"),
        }
    }

    /// `GET /v1/prompts/{id}/events` after `last` (raw: SSE is read with a real parser).
    async fn events(&self, prompt_id: Uuid, last: Option<u64>) -> SseReader {
        let mut request = self
            .app
            .client
            .get(self.app.url(&format!("/v1/prompts/{prompt_id}/events")))
            .bearer_auth(&self.token);
        if let Some(last) = last {
            request = request.header("last-event-id", last.to_string());
        }
        SseReader::new(request.send().await.expect("opening a feed"))
    }

    async fn all_events(&self, prompt_id: Uuid) -> Vec<SseEvent> {
        let mut feed = self.events(prompt_id, None).await;
        assert_eq!(feed.status, 200);
        feed.until_terminal(WAIT).await
    }

    async fn feed_token(&self, prompt_id: Uuid) -> FeedToken {
        let client = self.app.client_as(&self.token);
        let token = client.create_feed_token().id(prompt_id).send().await;
        token.assert_status(200).into_inner()
    }
}

/// An event's data without its `seq` (a rebuilt feed numbers its events after the log's).
fn without_seq(event: &SseEvent) -> Value {
    let mut data = event.data.clone();
    data.as_object_mut().expect("an object").remove("seq");
    data
}

both_backends!(
    a_reader_holding_the_last_event_gets_204,
    |backend: Backend| async move {
        let reader = reader(backend, "event_retention_s = 3").await;
        let prompt_id = reader.finished_turn("[[mock tokens=4]] hi").await;
        for pass in ["live log", "rebuilt after retention"] {
            let events = reader.all_events(prompt_id).await;
            let last = events.last().expect("events").seq();
            assert!(events.last().unwrap().is_terminal(), "{pass}: {events:?}");
            let up_to_date = reader.events(prompt_id, Some(last)).await;
            assert_eq!(up_to_date.status, 204, "{pass}: a reader with everything");
            let mut rest = reader.events(prompt_id, Some(last - 1)).await;
            assert_eq!(rest.status, 200, "{pass}");
            let tail = rest.until_terminal(WAIT).await;
            assert_eq!(tail.len(), 1, "{pass}: only the terminal event: {tail:?}");
            assert_eq!(tail[0].seq(), last, "{pass}");
            // `?after=` works the same way; `Last-Event-ID` (what a reconnecting
            // EventSource sends on the URL it first opened) wins over it.
            let get = |query: String, last_event_id: Option<u64>| {
                let mut request = reader
                    .app
                    .client
                    .get(
                        reader
                            .app
                            .url(&format!("/v1/prompts/{prompt_id}/events{query}")),
                    )
                    .bearer_auth(&reader.token);
                if let Some(id) = last_event_id {
                    request = request.header("last-event-id", id.to_string());
                }
                request.send()
            };
            let response = get(format!("?after={last}"), None)
                .await
                .expect("a response");
            assert_eq!(response.status().as_u16(), 204, "{pass}: after={last}");
            let response = get("?after=0".into(), Some(last))
                .await
                .expect("a response");
            assert_eq!(response.status().as_u16(), 204, "{pass}: the header wins");
            let response = get(format!("?after={last}"), Some(last - 1))
                .await
                .expect("a response");
            assert_eq!(response.status().as_u16(), 200, "{pass}: the header wins");
            tokio::time::sleep(Duration::from_millis(4500)).await;
        }
    }
);

both_backends!(
    after_retention_a_resuming_reader_gets_exactly_what_it_lacks,
    |backend: Backend| async move {
        let reader = reader(backend, "event_retention_s = 1").await;
        let prompt_id = reader.finished_turn("[[mock tokens=6]] hi").await;
        let live = reader.all_events(prompt_id).await;
        let terminal = live.last().expect("events").seq();
        let ceiling = reader
            .app
            .count(&format!(
                "SELECT seq_ceiling FROM prompts WHERE id = {}",
                reader.app.sql_uuid(&prompt_id.to_string())
            ))
            .await;
        assert_eq!(
            ceiling, terminal as i64,
            "the finish recorded the terminal's seq"
        );
        tokio::time::sleep(Duration::from_millis(2500)).await;

        // Holding the terminal event: nothing is missing.
        let up_to_date = reader.events(prompt_id, Some(terminal)).await;
        assert_eq!(up_to_date.status, 204);
        // From the start: `reset`, then the rebuilt feed, numbered on after the original.
        let rebuilt = reader.all_events(prompt_id).await;
        assert_eq!(rebuilt[0].event, "reset", "{rebuilt:?}");
        assert_eq!(rebuilt[0].data["prompt_id"], json!(prompt_id));
        let seqs: Vec<u64> = rebuilt.iter().map(SseEvent::seq).collect();
        let expected: Vec<u64> = (terminal + 1..=terminal + rebuilt.len() as u64).collect();
        assert_eq!(seqs, expected);
        assert_eq!(
            without_seq(rebuilt.last().unwrap()),
            without_seq(live.last().unwrap()),
            "the same end"
        );
        // Holding part of the original feed: all of the rebuilt one, `reset` first.
        for held in [1, terminal / 2, terminal - 1] {
            let mut feed = reader.events(prompt_id, Some(held)).await;
            assert_eq!(feed.status, 200);
            assert_eq!(feed.until_terminal(WAIT).await, rebuilt, "holding {held}");
        }
        // Holding part of the rebuilt feed: the rest of it; all of it: 204.
        for cut in [1, 3, rebuilt.len() - 1] {
            let held = rebuilt[cut - 1].seq();
            let mut feed = reader.events(prompt_id, Some(held)).await;
            assert_eq!(feed.status, 200);
            assert_eq!(
                feed.until_terminal(WAIT).await,
                rebuilt[cut..],
                "holding {held}"
            );
        }
        let all = rebuilt.last().unwrap().seq();
        assert_eq!(reader.events(prompt_id, Some(all)).await.status, 204);
    }
);

both_backends!(
    the_rebuilt_end_of_a_turn_equals_the_live_one,
    |backend: Backend| async move {
        let reader = reader(backend, "event_retention_s = 1\nmax_attempts = 1").await;
        let completed = reader
            .finished_turn("[[mock reasoning=hm tokens=6]] q")
            .await;
        let failed = reader.finished_turn("[[mock status=500]] q").await;
        let live_ends: Vec<Vec<SseEvent>> = vec![
            reader.all_events(completed).await,
            reader.all_events(failed).await,
        ];
        tokio::time::sleep(Duration::from_millis(2500)).await;
        for (prompt_id, live) in [completed, failed].into_iter().zip(live_ends) {
            let rebuilt = reader.all_events(prompt_id).await;
            // The terminal event and the last `prompt_state` say how the turn ended; they
            // are built by one rule, live and rebuilt, and agree field by field.
            let end = |events: &[SseEvent]| -> (Value, Value) {
                let state = events.iter().rev().find(|e| e.event == "prompt_state");
                let terminal = events.last().filter(|e| e.is_terminal());
                (
                    without_seq(state.expect("a prompt_state")),
                    without_seq(terminal.expect("a terminal event")),
                )
            };
            assert_eq!(end(&rebuilt), end(&live), "{prompt_id}");
        }
        let failed_end = reader.all_events(failed).await;
        let error = &failed_end.last().unwrap().data;
        assert_eq!(error["code"], "upstream_error");
        assert_eq!(error["message"], "the model provider failed to answer");
    }
);

both_backends!(
    feed_tokens_open_one_prompts_feed_only,
    |backend: Backend| async move {
        let reader = reader(backend, "").await;
        let first = reader.finished_turn("[[mock tokens=3]] one").await;
        let second = reader.finished_turn("[[mock tokens=3]] two").await;
        let token = reader.feed_token(first).await;
        assert!(token.events_url.contains(&token.token), "{token:?}");
        let app = &reader.app;
        // No Authorization header, only the token in the query (raw: SSE).
        let get = |path: String| async move {
            let response = app
                .client
                .get(app.url(&path))
                .send()
                .await
                .expect("a response");
            SseReader::new(response)
        };
        let mut feed = get(token.events_url.clone()).await;
        assert_eq!(feed.status, 200);
        let events = feed.until_terminal(WAIT).await;
        assert_eq!(events.last().map(|e| e.event.as_str()), Some("complete"));
        // The same token does not open another prompt of the same user.
        let other = get(format!(
            "/v1/prompts/{second}/events?access_token={}",
            token.token
        ))
        .await;
        assert_eq!(other.status, 404);
        for bad in ["pft_garbage", "", &token.token[..token.token.len() - 3]] {
            let response = app
                .get(
                    &format!("/v1/prompts/{first}/events?access_token={bad}"),
                    None,
                )
                .await;
            assert_eq!(response.assert_problem(401), "unauthenticated", "{bad:?}");
        }
        // Another user can neither mint one for this prompt nor use this one elsewhere.
        let (_, stranger) = app.create_user("stranger@example.com", "student").await;
        let code = app
            .client_as(&stranger)
            .create_feed_token()
            .id(first)
            .send()
            .await
            .assert_problem(404);
        assert_eq!(code, "not_found");
        // The token never shows up in the server's log.
        assert!(
            !app.full_server_log().contains(&token.token),
            "a feed token was logged"
        );
    }
);

/// Runs `tests/sse-client/follow.mjs` on `url` and returns its report.
async fn follow_with_eventsource(url: &str) -> Value {
    // Where the crate is now (cargo sets this for the test process too), not where it was
    // compiled: a build reused from another checkout of the same tree must still work.
    let dir = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned());
    let script = format!("{dir}/sse-client/follow.mjs");
    let output = tokio::process::Command::new("node")
        .args([script.as_str(), url, "20000"])
        .stdin(Stdio::null())
        .output()
        .await
        .expect("running node (scripts/test.sh installs tests/sse-client)");
    assert!(
        output.status.success(),
        "follow.mjs failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "follow.mjs printed no report ({err}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

both_backends!(
    an_eventsource_client_follows_a_turn_and_stops,
    |backend: Backend| async move {
        let reader = reader(backend, "").await;
        let app = &reader.app;
        // A live turn: background (raw: the client has no 202 form), then follow it.
        let accepted = app
            .post_json(
                &format!(
                    "/v1/sessions/{}/messages?background=true",
                    reader.session_id
                ),
                Some(&reader.token),
                &json!({"content": "[[mock tokens=30 token_delay_ms=30]] live"}),
            )
            .await;
        accepted.assert_status(202);
        let prompt_id = uuid(accepted.body["prompt_id"].as_str().expect("a prompt id"));
        for phase in ["live", "finished"] {
            let token = reader.feed_token(prompt_id).await;
            let report = follow_with_eventsource(&app.url(&token.events_url)).await;
            let events = report["events"].as_array().expect("events").clone();
            let seqs: Vec<u64> = events
                .iter()
                .filter_map(|e| e["data"]["seq"].as_u64())
                .collect();
            assert_eq!(
                seqs,
                (1..=seqs.len() as u64).collect::<Vec<_>>(),
                "{phase}: {report}"
            );
            assert_eq!(
                events.last().unwrap()["type"],
                "complete",
                "{phase}: {report}"
            );
            // It came back once with the last id, got 204, and stopped for good.
            let connections = report["connections"].as_array().expect("connections");
            assert_eq!(connections.len(), 2, "{phase}: {report}");
            assert_eq!(connections[0]["status"], 200);
            assert_eq!(connections[1]["status"], 204);
            assert_eq!(
                connections[1]["last_event_id"],
                json!(seqs.last().unwrap().to_string())
            );
            assert_eq!(report["closed"], true, "{phase}: {report}");
        }
        // A URL that starts after an event: the reconnection's `Last-Event-ID` wins over
        // `?after=`, so the client gets 204 when it comes back, not the turn again.
        let token = reader.feed_token(prompt_id).await;
        let url = app.url(&format!("{}&after=2", token.events_url));
        let report = follow_with_eventsource(&url).await;
        let events = report["events"].as_array().expect("events");
        let seqs: Vec<u64> = events
            .iter()
            .filter_map(|e| e["data"]["seq"].as_u64())
            .collect();
        assert_eq!(seqs.first(), Some(&3), "{report}");
        assert_eq!(
            seqs,
            (3..3 + seqs.len() as u64).collect::<Vec<_>>(),
            "{report}"
        );
        let connections = report["connections"].as_array().expect("connections");
        assert_eq!(connections.len(), 2, "{report}");
        assert_eq!(connections[1]["status"], 204, "{report}");
        assert_eq!(report["closed"], true, "{report}");
    }
);

/// Reads a feed to its end and returns its events; `None` when it ended within
/// `within` without a terminal event (closed by the server).
async fn closed_without_an_end(feed: &mut SseReader, within: Duration) -> Option<Vec<SseEvent>> {
    let mut events = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match feed.next(left.max(Duration::from_millis(1))).await {
            Some(event) if event.is_terminal() => return None,
            Some(event) => events.push(event),
            None => return Some(events),
        }
    }
}

both_backends!(
    revoking_a_token_or_disabling_its_user_closes_their_feeds,
    |backend: Backend| async move {
        let reader = reader(backend, "").await;
        let app = &reader.app;
        let admin = app.admin_client();
        let user_id = uuid(&reader.user_id);
        // A second token of the same user, minted by an admin.
        let second = admin
            .admin_create_token()
            .id(user_id)
            .body_map(|b| b.name("phone"))
            .send()
            .await
            .assert_status(201)
            .secret
            .clone();
        let slow = json!({"content": "[[mock tokens=200 token_delay_ms=50]] slow"});
        let start_turn = || async {
            let accepted = app
                .post_json(
                    &format!(
                        "/v1/sessions/{}/messages?background=true",
                        reader.session_id
                    ),
                    Some(&second),
                    &slow,
                )
                .await;
            accepted.assert_status(202);
            uuid(accepted.body["prompt_id"].as_str().expect("a prompt id"))
        };
        let prompt_id = start_turn().await;
        // Three readers: a feed token minted with the first token, the first token
        // itself, and the second token.
        let token = reader.feed_token(prompt_id).await;
        let by_feed_token = || async {
            SseReader::new(
                app.client
                    .get(app.url(&token.events_url))
                    .send()
                    .await
                    .expect("a feed"),
            )
        };
        let mut minted = by_feed_token().await;
        let mut first = reader.events(prompt_id, None).await;
        let mut other = SseReader::new(
            app.client
                .get(app.url(&format!("/v1/prompts/{prompt_id}/events")))
                .bearer_auth(&second)
                .send()
                .await
                .expect("a feed"),
        );
        for feed in [&mut minted, &mut first, &mut other] {
            assert_eq!(feed.status, 200);
            feed.next(WAIT).await.expect("the feed runs");
        }
        let first_id = admin
            .admin_list_tokens()
            .id(user_id)
            .send()
            .await
            .assert_status(200)
            .items
            .iter()
            .find(|t| reader.token.starts_with(&t.prefix) && t.name != "phone")
            .expect("the first token")
            .id;
        let revoked_at = std::time::Instant::now();
        admin
            .admin_revoke_token()
            .id(first_id)
            .send()
            .await
            .assert_status(200);
        for (name, feed) in [("feed token", &mut minted), ("bearer", &mut first)] {
            closed_without_an_end(feed, Duration::from_secs(5))
                .await
                .unwrap_or_else(|| panic!("the {name} feed ran to its end"));
        }
        assert!(revoked_at.elapsed() < Duration::from_secs(5));
        let again = app.get(&token.events_url, None).await;
        assert_eq!(
            again.assert_problem(401),
            "unauthenticated",
            "the feed token is dead"
        );
        // The second token's feed goes on; disabling the user closes it too, and
        // refuses the token.
        other.next(WAIT).await.expect("the other feed still runs");
        admin
            .admin_update_user()
            .id(user_id)
            .body_map(|b| b.disabled(true))
            .send()
            .await
            .assert_status(200);
        closed_without_an_end(&mut other, Duration::from_secs(5))
            .await
            .expect("the disabled user's feed was closed");
        app.client_as(&second)
            .list_sessions()
            .send()
            .await
            .assert_problem(401);
        // Enabled again, the second token works.
        admin
            .admin_update_user()
            .id(user_id)
            .body_map(|b| b.disabled(false))
            .send()
            .await
            .assert_status(200);
        app.client_as(&second)
            .list_sessions()
            .send()
            .await
            .assert_status(200);
    }
);
