//! Nothing accepted is lost by `parley serve` (DESIGN §1, issue 3 item 4): a turn
//! accepted just before the process is killed (SIGKILL, no shutdown) completes after a
//! restart on the same storage — the embedded queue is durable, and the restarted
//! process's reaper and queue take over the dead one's work — and turns accepted at the
//! same moment all complete. Runs on PostgreSQL and on SQLite, both through `parley
//! serve` (embedded queue and event log).
//!
//! Requests go through the typed client (`parley_tests::client`, `parley_tests::typed`);
//! feeds are read over plain HTTP with the SSE parser. The server listens on a new port
//! after each start, so clients are made after it.

use std::time::{Duration, Instant};

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::{MessageRole, Prompt, PromptState};
use parley_tests::turns::{config_path, mock_provider_config, mock_tokens, text_of};
use parley_tests::{Backend, SseEvent, SseReader, TestApp, both_backends, typed};
use serde_json::json;
use tempfile::NamedTempFile;
use uuid::Uuid;

use crate::fixtures::api;

/// The most one event may keep a reader waiting before the kill.
const WAIT: Duration = Duration::from_secs(20);
/// The most a turn interrupted by the kill may take to complete after the restart. The
/// dead process's lease (`lease_s = 3`) lapses during the restart or soon after; the
/// restarted process finds the prompt on its reaper's next pass (every 30 s) or when the
/// queue hands the dead worker's job out again (3 missed 10 s heartbeats).
const RESUME: Duration = Duration::from_secs(75);

struct Served {
    app: TestApp,
    mock: MockLlm,
    token: String,
    tool_id: Uuid,
    session_id: Uuid,
    _config: NamedTempFile,
}

impl Served {
    /// A typed client of the student, for the server as it runs now.
    fn student(&self) -> Client {
        self.app.client_as(&self.token)
    }
}

/// `parley serve` with the mock as provider and `concurrency` turns at a time, and a
/// student with a session.
async fn served(backend: Backend, concurrency: usize) -> Served {
    served_with(backend, concurrency, "").await
}

/// Like [`served`], with more `[worker]` lines.
async fn served_with(backend: Backend, concurrency: usize, more: &str) -> Served {
    let mock = MockLlm::start(MockConfig::default()).await;
    let worker = format!("max_attempts = 2\nlease_s = 3\nconcurrency = {concurrency}\n{more}");
    let config = mock_provider_config(&mock.base_url(), &worker);
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
    let student = api::student_with_tool(&app, "survivor@example.com").await;
    let tool_id = student.tool.id;
    let session = api::session(&app.client_as(&student.token), tool_id).await;
    Served {
        session_id: session.id,
        tool_id,
        token: student.token,
        app,
        mock,
        _config: config,
    }
}

/// Follows the prompt on the restarted server until it ends; checks it completed with
/// the whole answer, stored once. Returns its last attempt's events and the prompt.
async fn completes_after_restart(
    s: &Served,
    session_id: Uuid,
    prompt_id: Uuid,
    answer: &str,
) -> (Vec<SseEvent>, Prompt) {
    let mut feed: SseReader = s
        .app
        .prompt_events(&s.token, &prompt_id.to_string(), None)
        .await;
    let events = tokio::time::timeout(RESUME, feed.until_terminal(RESUME))
        .await
        .unwrap_or_else(|_| panic!("the turn did not end within {RESUME:?} of the restart"));
    let last = events.last().expect("a terminal event");
    assert_eq!(last.event, "complete", "{events:?}");
    // After a restart the (in-process) log holds what the new attempt streamed.
    let attempt_start = events
        .iter()
        .rposition(|e| e.event == "retry")
        .map_or(0, |at| at + 1);
    let attempt = events[attempt_start..].to_vec();
    assert_eq!(text_of(&attempt), answer, "{events:?}");
    assert_eq!(last.data["payload"]["message"], answer);

    let student = s.student();
    let prompt = typed::prompt(&student, prompt_id).await;
    assert_eq!(prompt.state, PromptState::Completed, "{prompt:?}");
    let messages = typed::messages(&student, session_id).await;
    let roles: Vec<MessageRole> = messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [MessageRole::User, MessageRole::Assistant],
        "one answer, stored once: {messages:?}"
    );
    assert_eq!(messages[1].content, answer);
    assert!(messages[1].is_complete, "{messages:?}");
    assert_eq!(json!(messages[1].id), last.data["message_id"]);
    (attempt, prompt)
}

both_backends!(
    a_turn_killed_mid_stream_completes_after_restart,
    |backend: Backend| async move {
        let mut s = served(backend, 8).await;
        let prompt_id = typed::send_in_background(
            &s.student(),
            s.session_id,
            "[[mock tokens=100 token_delay_ms=30]] keep going",
        )
        .await
        .prompt_id;
        let mut feed = s
            .app
            .prompt_events(&s.token, &prompt_id.to_string(), None)
            .await;
        let (mut deltas, mut held) = (0, 0);
        while deltas < 5 {
            let event = feed.next(WAIT).await.expect("the feed ended early");
            assert!(!event.is_terminal(), "the turn ended too soon: {event:?}");
            deltas += usize::from(event.event == "text_delta");
            held = event.seq();
        }
        drop(feed);
        s.app.kill().await;
        let killed_at = Instant::now();
        s.app.start().await;

        // A reader that resumes with the last id it got before the kill gets the whole
        // new attempt: the in-process log started over above every seq given out before.
        let mut resumed = s
            .app
            .prompt_events(&s.token, &prompt_id.to_string(), Some(held))
            .await;
        let resumed = resumed.until_terminal(RESUME).await;
        let (attempt, prompt) =
            completes_after_restart(&s, s.session_id, prompt_id, &mock_tokens(100)).await;
        assert!(resumed.iter().all(|e| e.seq() > held), "{resumed:?}");
        assert!(resumed.ends_with(&attempt), "{resumed:?}");
        eprintln!(
            "{backend:?}: killed mid-turn → completed {:?} after the kill",
            killed_at.elapsed()
        );
        assert_eq!(prompt.attempt, 2, "the turn started over once: {prompt:?}");
        assert_eq!(attempt[0].data["attempt"], 2, "{attempt:?}");
        let blocks = s
            .app
            .count(&format!(
                "SELECT COUNT(*) FROM blocks WHERE prompt_id = {}",
                s.app.sql_uuid(&prompt_id.to_string())
            ))
            .await;
        assert_eq!(
            blocks, 1,
            "the interrupted attempt's partial block was dropped"
        );
        assert_eq!(
            s.mock.requests().len(),
            2,
            "the interrupted call and the one that completed"
        );

        // Restarted again, the finished turn's log is gone: a reader holding its terminal
        // event gets 204, one holding the pre-kill id gets the rebuilt feed, `reset` first.
        let terminal = attempt.last().unwrap().clone();
        s.app.kill().await;
        s.app.start().await;
        let feed = |last: u64| {
            let request = s
                .app
                .client
                .get(s.app.url(&format!("/v1/prompts/{prompt_id}/events")))
                .bearer_auth(&s.token)
                .header("last-event-id", last.to_string());
            async move { SseReader::new(request.send().await.expect("a response")) }
        };
        assert_eq!(feed(terminal.seq()).await.status, 204);
        let rebuilt = feed(held).await.until_terminal(WAIT).await;
        assert_eq!(rebuilt[0].event, "reset", "{rebuilt:?}");
        assert_eq!(rebuilt[0].seq(), terminal.seq() + 1);
        let end = rebuilt.last().unwrap();
        assert_eq!(end.data["message_id"], terminal.data["message_id"]);
        assert_eq!(text_of(&rebuilt), mock_tokens(100));
    }
);

both_backends!(
    a_turn_accepted_before_a_kill_but_not_yet_claimed_runs_after_restart,
    |backend: Backend| async move {
        // One turn at a time: while a slow turn holds the only slot, the next one
        // waits in the queue, unclaimed, when the process dies.
        let mut s = served(backend, 1).await;
        let student = s.student();
        let busy = typed::send_in_background(
            &student,
            s.session_id,
            "[[mock tokens=100 token_delay_ms=30]] hold the slot",
        )
        .await
        .prompt_id;
        let mut feed = s.app.prompt_events(&s.token, &busy.to_string(), None).await;
        loop {
            let event = feed.next(WAIT).await.expect("the feed ended early");
            assert!(!event.is_terminal(), "the turn ended too soon: {event:?}");
            if event.event == "text_delta" {
                break;
            }
        }
        drop(feed);
        let queued_session = api::session(&student, s.tool_id).await.id;
        let queued = typed::send_in_background(&student, queued_session, "are you still there")
            .await
            .prompt_id;
        let before = typed::prompt(&student, queued).await;
        assert_eq!(
            before.state,
            PromptState::Created,
            "not claimed yet: {before:?}"
        );

        s.app.kill().await;
        let killed_at = Instant::now();
        s.app.start().await;

        let (_, prompt) =
            completes_after_restart(&s, queued_session, queued, "Echo: are you still there").await;
        eprintln!(
            "{backend:?}: killed before the claim → completed {:?} after the kill",
            killed_at.elapsed()
        );
        assert_eq!(
            prompt.attempt, 1,
            "it ran once, after the restart: {prompt:?}"
        );
        completes_after_restart(&s, s.session_id, busy, &mock_tokens(100)).await;
    }
);

/// Eight turns accepted at once on one `parley serve`: every message is accepted (202)
/// and every turn completes with its whole answer.
async fn concurrent_turns_all_complete(backend: Backend) {
    const TURNS: usize = 8;
    const TOKENS: usize = 40;
    let s = served(backend, TURNS).await;
    let student = s.student();
    let mut sessions = Vec::new();
    for _ in 0..TURNS {
        sessions.push(api::session(&student, s.tool_id).await.id);
    }
    let sends = sessions.iter().enumerate().map(|(i, session)| {
        let content = format!("[[mock tokens={TOKENS} token_delay_ms=10]] turn {i}");
        let student = &student;
        async move {
            typed::send_in_background(student, *session, &content)
                .await
                .prompt_id
        }
    });
    let prompts = futures::future::join_all(sends).await;
    for (prompt_id, session) in prompts.iter().zip(&sessions) {
        let mut feed = s
            .app
            .prompt_events(&s.token, &prompt_id.to_string(), None)
            .await;
        let events = tokio::time::timeout(WAIT, feed.until_terminal(WAIT))
            .await
            .unwrap_or_else(|_| panic!("{prompt_id} did not end within {WAIT:?}"));
        let last = events.last().expect("a terminal event");
        assert_eq!(last.event, "complete", "{prompt_id}: {:?}", last.data);
        assert_eq!(text_of(&events), mock_tokens(TOKENS));
        let messages = typed::messages(&student, *session).await;
        assert_eq!(messages.len(), 2, "{messages:?}");
    }
}

// Accepted turns are not lost to load either: concurrent writers on SQLite wait for the
// write lock (WAL, busy timeout, `BEGIN IMMEDIATE`) instead of failing with
// `SQLITE_BUSY`.
both_backends!(
    concurrent_turns_on_one_server_all_complete,
    |backend: Backend| async move { concurrent_turns_all_complete(backend).await }
);

both_backends!(sigint_drains_like_sigterm, |backend: Backend| async move {
    let mut s = served_with(backend, 2, "drain_s = 10").await;
    let student = s.student();
    let session = api::session(&student, s.tool_id).await.id;
    let prompt = typed::send_in_background(
        &student,
        session,
        "[[mock tokens=20 token_delay_ms=50]] ctrl-c",
    )
    .await
    .prompt_id;
    let mut feed = s
        .app
        .prompt_events(&s.token, &prompt.to_string(), None)
        .await;
    while feed.next(WAIT).await.expect("events").event != "text_delta" {}
    let status = s.app.interrupt(Duration::from_secs(20)).await;
    assert!(status.is_some_and(|s| s.success()), "exited 0: {status:?}");
    let rest = feed.until_terminal(WAIT).await;
    assert_eq!(
        rest.last().map(|e| e.event.as_str()),
        Some("complete"),
        "the turn in flight finished in the drain: {rest:?}"
    );
});

both_backends!(
    sigterm_lets_turns_finish_until_the_drain_deadline_hands_the_rest_back_and_exits_0,
    |backend: Backend| async move {
        const DRAIN: Duration = Duration::from_secs(2);
        let mut s = served_with(backend, 8, "drain_s = 2").await;
        let student = s.student();
        // Three turns that end within the drain deadline, three that cannot.
        let mut turns = Vec::new();
        for (i, tokens) in [20, 20, 20, 120, 120, 120].into_iter().enumerate() {
            let session = api::session(&student, s.tool_id).await.id;
            let content = format!("[[mock tokens={tokens} token_delay_ms=50]] turn {i}");
            let prompt = typed::send_in_background(&student, session, &content)
                .await
                .prompt_id;
            turns.push((session, prompt, tokens));
        }
        let mut feeds = Vec::new();
        for (_, prompt, _) in &turns {
            let mut feed = s
                .app
                .prompt_events(&s.token, &prompt.to_string(), None)
                .await;
            let mut head = Vec::new();
            loop {
                let event = feed.next(WAIT).await.expect("the feed ended early");
                let delta = event.event == "text_delta";
                head.push(event);
                if delta {
                    break;
                }
            }
            feeds.push((feed, head));
        }

        let signalled = Instant::now();
        let status = s.app.terminate(Duration::from_secs(20)).await;
        let took = signalled.elapsed();
        eprintln!("{backend:?}: SIGTERM with 6 turns in flight → exited after {took:?}");
        assert!(
            status.is_some_and(|s| s.success()),
            "exited 0 within 20 s: {status:?}"
        );
        assert!(
            took >= DRAIN && took < DRAIN + Duration::from_secs(4),
            "waited for the drain deadline, then handed back and exited: {took:?}"
        );
        for ((feed, head), (_, prompt, tokens)) in feeds.iter_mut().zip(&turns) {
            let rest = feed.until_terminal(WAIT).await;
            let last = rest.last().unwrap_or_else(|| head.last().expect("events"));
            if *tokens == 20 {
                assert_eq!(last.event, "complete", "{prompt}: finished in the drain");
            } else {
                assert_eq!(
                    (last.event.as_str(), &last.data["retry_ms"]),
                    ("reconnect", &json!(1000)),
                    "{prompt}: the feed ends telling the client to reconnect"
                );
                assert!(last.data.get("seq").is_none(), "not stored: {last:?}");
                // No `id:` line: the client's last event id stays that of the last stored
                // event, which is what it resumes from.
                let stored = rest.iter().rev().find(|e| e.event != "reconnect");
                let stored = stored.unwrap_or_else(|| head.last().expect("events"));
                assert_eq!(last.id, stored.seq().to_string(), "{prompt}");
            }
        }
        let released = s
            .app
            .count(
                "SELECT COUNT(*) FROM prompts WHERE state = 'in_progress' \
                 AND lease_expires_at < '2000-01-01'",
            )
            .await;
        assert_eq!(released, 3, "the unfinished turns' leases were released");

        // Restarted, the handed-back turns run again at once and complete.
        s.app.start().await;
        for (session, prompt, tokens) in turns.iter().filter(|t| t.2 == 120) {
            let (_, done) =
                completes_after_restart(&s, *session, *prompt, &mock_tokens(*tokens)).await;
            assert_eq!(done.attempt, 2, "{done:?}");
        }
    }
);
