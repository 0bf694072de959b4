//! Distributed mode end to end (DESIGN §1, §4, §6, §10): one `parley api` and two
//! `parley worker` processes on PostgreSQL and Redis, the mock LLM as their provider.
//! Turns are accepted by one process and run by another, so everything between them —
//! the queue, the event log, cancel, leases — goes through Redis and PostgreSQL.
//! PostgreSQL only: the workers need Redis and a server database.
//!
//! Requests go through the typed client (`parley_tests::client`, `parley_tests::typed`);
//! feeds are read over plain HTTP with the SSE parser, and the one raw request asks for
//! a feed the client cannot ask for.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use parley_mock_llm::{MockConfig, MockLlm, Outcome};
use parley_tests::client::Client;
use parley_tests::client::types::{BreakerStateName, MessageRole, PromptState};
use parley_tests::turns::{
    assert_gap_free, assert_one_text_block_completed, config_path, kinds_of, mock_provider_config,
    mock_provider_config_with, mock_tokens, prompt_id_of, text_of,
};
use parley_tests::{
    ApiResult, Backend, CLUSTER_WORKERS, Cluster, SseEvent, fresh_redis_database, run_test, typed,
};
use serde_json::json;
use tempfile::NamedTempFile;
use uuid::Uuid;

use crate::fixtures::api::{self, uuid};

mod allocator;
mod cost;
mod cost_waits;
mod own_redis;
mod tokens;

use own_redis::OwnRedis;

/// The most one event (or one turn's end) may keep a reader waiting.
const WAIT: Duration = Duration::from_secs(20);
/// `worker.lease_s` of the test config (the default): how long a dead worker keeps its
/// prompt.
const LEASE: Duration = Duration::from_secs(4);
/// The most a turn whose worker died may take to start again elsewhere (#10), with the
/// default lease and queue heartbeat.
const TAKEOVER: Duration = Duration::from_secs(10);

/// Which Redis a test's processes share.
#[derive(Debug, Clone, Copy)]
enum On {
    /// The standalone test Redis (a database of its own).
    Standalone,
    /// The test Redis Cluster (a queue of its own, three partitions).
    Cluster,
}

/// Runs each `async fn(On)` as two tests, on the standalone Redis and on the Redis
/// Cluster: `$name::on_standalone_redis` and `$name::on_redis_cluster`.
macro_rules! on_both_redis {
    ($($name:ident => $body:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn on_standalone_redis() {
                    parley_tests::run_test(parley_tests::Backend::Postgres, |_| {
                        super::$body(super::On::Standalone)
                    })
                    .await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn on_redis_cluster() {
                    parley_tests::run_test(parley_tests::Backend::Postgres, |_| {
                        super::$body(super::On::Cluster)
                    })
                    .await;
                }
            }
        )*
    };
}

on_both_redis! {
    a_streamed_turn_follows_the_protocol_and_is_persisted => streamed_turn,
    concurrent_turns_spread_over_both_workers => concurrent_turns,
    readers_of_one_prompt_see_the_same_stream_and_join_mid_turn => readers_join_mid_turn,
    cancel_through_the_api_stops_the_worker_process => cancel_through_the_api,
    a_turn_whose_worker_is_killed_completes_on_the_other_worker => killed_worker,
}

/// A cluster whose provider is the mock, and a student with a session.
struct Distributed {
    cluster: Cluster,
    mock: MockLlm,
    token: String,
    tool_id: Uuid,
    session_id: Uuid,
    _config: NamedTempFile,
}

fn worker_settings(lease: Duration) -> String {
    format!(
        "stall_timeout_ms = 5000\nmax_attempts = 2\nlease_s = {}",
        lease.as_secs()
    )
}

/// A cluster with the default lease and queue heartbeat (what takeover times assume).
async fn distributed() -> Distributed {
    distributed_on(On::Standalone).await
}

/// [`distributed`] on the given Redis.
async fn distributed_on(on: On) -> Distributed {
    let worker = "stall_timeout_ms = 5000\nmax_attempts = 2";
    distributed_with_provider_on(on, "first_token_timeout_ms = 60000", worker).await
}

async fn distributed_with_lease(lease: Duration) -> Distributed {
    distributed_with(&worker_settings(lease)).await
}

/// A cluster whose workers run with these `[worker]` settings.
async fn distributed_with(worker: &str) -> Distributed {
    distributed_with_provider("first_token_timeout_ms = 60000", worker).await
}

/// A cluster with `provider` (TOML lines) in the mock's `[[providers]]` entry.
async fn distributed_with_provider(provider: &str, worker: &str) -> Distributed {
    distributed_with_provider_on(On::Standalone, provider, worker).await
}

async fn distributed_with_provider_on(on: On, provider: &str, worker: &str) -> Distributed {
    let mock = MockLlm::start(MockConfig::default()).await;
    let config = mock_provider_config_with(&mock.base_url(), provider, worker);
    let env = [("PARLEY_CONFIG", config_path(&config))];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let cluster = match on {
        On::Standalone => Cluster::spawn(&env).await,
        On::Cluster => Cluster::spawn_on_redis_cluster(&env).await,
    };
    let student = api::student_with_tool(&cluster, "far@example.com").await;
    let tool_id = student.tool.id;
    let session = api::session(&cluster.client_as(&student.token), tool_id).await;
    Distributed {
        session_id: session.id,
        token: student.token,
        tool_id,
        cluster,
        mock,
        _config: config,
    }
}

impl Distributed {
    /// A typed client of the student.
    fn student(&self) -> Client {
        self.cluster.client_as(&self.token)
    }

    /// Sends `content` in the student's session in the background and opens the turn's
    /// feed from its start.
    async fn start_turn(&self, content: &str) -> (Uuid, parley_tests::SseReader) {
        let prompt_id = typed::send_in_background(&self.student(), self.session_id, content)
            .await
            .prompt_id;
        (prompt_id, self.feed(prompt_id).await)
    }

    /// Opens the feed of a prompt from its start.
    async fn feed(&self, prompt_id: Uuid) -> parley_tests::SseReader {
        self.cluster
            .prompt_events(&self.token, &prompt_id.to_string(), None)
            .await
    }
}

/// Reads events until `n` `text_delta`s have arrived.
async fn until_deltas(feed: &mut parley_tests::SseReader, n: usize) -> Vec<SseEvent> {
    let mut seen = Vec::new();
    while seen
        .iter()
        .filter(|e: &&SseEvent| e.event == "text_delta")
        .count()
        < n
    {
        let event = feed.next(WAIT).await.expect("the feed ended early");
        assert!(!event.is_terminal(), "the turn ended too soon: {event:?}");
        seen.push(event);
    }
    seen
}

/// Reads a feed up to and including its `retry` event (waiting up to `within` for each
/// event); returns the events and how long after `since` the `retry` came.
async fn until_retry(
    feed: &mut parley_tests::SseReader,
    since: Instant,
    within: Duration,
) -> (Vec<SseEvent>, Duration) {
    let mut events = Vec::new();
    loop {
        let event = feed
            .next(within)
            .await
            .expect("the feed ended without a retry");
        let retry = event.event == "retry";
        events.push(event);
        if retry {
            return (events, since.elapsed());
        }
    }
}

/// Reads a feed to its terminal event, failing after `limit` in all.
async fn to_terminal(
    feed: &mut parley_tests::SseReader,
    limit: Duration,
    what: &str,
) -> Vec<SseEvent> {
    tokio::time::timeout(limit, feed.until_terminal(limit))
        .await
        .unwrap_or_else(|_| panic!("{what}: no terminal event within {limit:?}"))
}

async fn streamed_turn(on: On) {
    let d = distributed_on(on).await;
    let mut feed = d
        .cluster
        .stream_message(&d.token, &d.session_id.to_string(), "hello from afar")
        .await;
    assert_eq!(feed.status, 200);
    let location = feed
        .headers
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let events = to_terminal(&mut feed, WAIT, "the streamed turn").await;
    assert_gap_free(&events);
    assert_one_text_block_completed(&events);
    let text = text_of(&events);
    assert_eq!(text, "Echo: hello from afar");
    let prompt_id = prompt_id_of(&events);
    assert_eq!(location, format!("/v1/prompts/{prompt_id}"));
    let complete = &events.last().expect("a terminal event").data;
    assert_eq!(complete["model"], "mock-model");
    assert_eq!(complete["vendor"], "mock");

    // What was streamed is what was stored: the message and its one block.
    let student = d.student();
    let messages = typed::messages(&student, d.session_id).await;
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(
        (messages[0].role, messages[0].content.as_str()),
        (MessageRole::User, "hello from afar")
    );
    assert_eq!(
        (messages[1].role, messages[1].content.as_str()),
        (MessageRole::Assistant, text.as_str())
    );
    assert_eq!(json!(messages[1].id), complete["message_id"]);
    assert!(messages[1].is_complete, "{messages:?}");
    let message_id = messages[1].id;
    let blocks = d
        .cluster
        .count(&format!(
            "SELECT COUNT(*) FROM blocks WHERE prompt_id = '{prompt_id}' \
             AND message_id = '{message_id}' AND is_finalized AND content = '{text}'"
        ))
        .await;
    assert_eq!(blocks, 1, "one finalized block holds the streamed text");
    let all_blocks = d
        .cluster
        .count(&format!(
            "SELECT COUNT(*) FROM blocks WHERE prompt_id = '{prompt_id}'"
        ))
        .await;
    assert_eq!(all_blocks, 1);
    let usage = d
        .cluster
        .count(&format!(
            "SELECT COUNT(*) FROM ai_usage WHERE prompt_id = '{prompt_id}' \
             AND input_tokens > 0 AND output_tokens > 0"
        ))
        .await;
    assert_eq!(usage, 1, "one usage row for the one LLM call");
    let prompt = typed::prompt(&student, uuid(&prompt_id)).await;
    assert_eq!(prompt.state, PromptState::Completed, "{prompt:?}");
    assert_eq!(prompt.attempt, 1);
    let request = d.mock.requests().pop().expect("the mock was called");
    assert_eq!(request.last_user_message(), Some("hello from afar"));
    assert_eq!(request.outcome, Outcome::Completed);
}

async fn concurrent_turns(on: On) {
    let d = distributed_on(on).await;
    // Six two-second turns at once: more than one worker's concurrency (4), so
    // they can only all run if both workers take some.
    const TURNS: usize = 6;
    const TOKENS: usize = 40;
    let student = d.student();
    let mut sessions = vec![d.session_id];
    for _ in 1..TURNS {
        sessions.push(api::session(&student, d.tool_id).await.id);
    }
    let mut prompts = Vec::new();
    for (i, session) in sessions.iter().enumerate() {
        let content = format!("[[mock tokens={TOKENS} token_delay_ms=50]] turn {i}");
        prompts.push(
            typed::send_in_background(&student, *session, &content)
                .await
                .prompt_id,
        );
    }

    // While they run, note which workers hold leases.
    let mut owners = HashSet::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        owners.extend(
            d.cluster
                .query_strings(
                    "SELECT DISTINCT lease_owner FROM prompts \
                     WHERE state = 'in_progress' AND lease_owner IS NOT NULL",
                )
                .await,
        );
        let done = d
            .cluster
            .count("SELECT COUNT(*) FROM prompts WHERE state NOT IN ('created', 'in_progress')")
            .await;
        if done == TURNS as i64 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the turns did not all finish within 30 s ({done} did)"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        owners.len(),
        CLUSTER_WORKERS,
        "every worker ran some of the turns; lease owners seen: {owners:?}"
    );

    for prompt_id in &prompts {
        let mut feed = d.feed(*prompt_id).await;
        let events = to_terminal(&mut feed, WAIT, &prompt_id.to_string()).await;
        assert_gap_free(&events);
        assert_one_text_block_completed(&events);
        assert_eq!(text_of(&events), mock_tokens(TOKENS));
        let prompt = typed::prompt(&student, *prompt_id).await;
        assert_eq!(
            (prompt.state, prompt.attempt),
            (PromptState::Completed, 1),
            "{prompt:?}"
        );
    }
}

async fn readers_join_mid_turn(on: On) {
    let d = distributed_on(on).await;
    let prompt_id = typed::send_in_background(
        &d.student(),
        d.session_id,
        "[[mock tokens=40 token_delay_ms=25]] go",
    )
    .await
    .prompt_id;
    let mut first = d.feed(prompt_id).await;
    let mut head = Vec::new();
    for _ in 0..6 {
        head.push(first.next(WAIT).await.expect("an event"));
    }
    assert!(
        !head.iter().any(SseEvent::is_terminal),
        "the turn must still run when the others join: {head:?}"
    );
    let joined_after = head.last().expect("the events before joining").seq();
    let mut late = d
        .cluster
        .prompt_events(&d.token, &prompt_id.to_string(), Some(joined_after))
        .await;
    let mut second = d.feed(prompt_id).await;
    let mut third = d.feed(prompt_id).await;

    let rest = to_terminal(&mut first, WAIT, "the first reader").await;
    let late_events = to_terminal(&mut late, WAIT, "the late reader").await;
    assert_eq!(
        late_events, rest,
        "Last-Event-ID yields exactly the remaining events"
    );
    let all: Vec<SseEvent> = head.into_iter().chain(rest).collect();
    assert_gap_free(&all);
    assert_one_text_block_completed(&all);
    assert_eq!(text_of(&all), mock_tokens(40));
    assert_eq!(
        to_terminal(&mut second, WAIT, "the second reader").await,
        all,
        "readers see identical streams"
    );
    assert_eq!(to_terminal(&mut third, WAIT, "the third reader").await, all);
}

async fn cancel_through_the_api(on: On) {
    let d = distributed_on(on).await;
    let mut feed = d
        .cluster
        .stream_message(
            &d.token,
            &d.session_id.to_string(),
            "[[mock tokens=400 token_delay_ms=20]] long answer",
        )
        .await;
    let seen = until_deltas(&mut feed, 5).await;
    let prompt_id = uuid(&prompt_id_of(&seen));
    let student = d.student();
    let cancelled_at = Instant::now();
    student
        .cancel_prompt()
        .id(prompt_id)
        .send()
        .await
        .assert_status(202);
    let rest = to_terminal(&mut feed, WAIT, "the cancelled turn").await;
    let all: Vec<SseEvent> = seen.into_iter().chain(rest).collect();
    assert_gap_free(&all);
    let kinds = kinds_of(&all);
    assert_eq!(
        kinds[kinds.len() - 2..],
        ["prompt_state", "cancelled"],
        "{kinds:?}"
    );
    assert_eq!(all[all.len() - 2].data["state"], "canceled");
    let streamed = text_of(&all);
    assert!(
        streamed.split_whitespace().count() < 400,
        "the stream stopped early"
    );

    // The worker process aborted its upstream request promptly.
    let aborted = d
        .mock
        .wait_for(Duration::from_secs(3), |requests| {
            requests
                .iter()
                .any(|r| r.outcome == Outcome::ClientDisconnected)
        })
        .await;
    assert!(
        aborted.is_some(),
        "the upstream request was not aborted within 3 s of the cancel: {:?}",
        d.mock.requests().last().map(|r| r.outcome)
    );
    let request = d.mock.requests().pop().expect("the mock was called");
    let ended = request.ended_at.expect("the aborted request ended");
    assert!(
        ended.duration_since(request.received_at) < Duration::from_secs(8),
        "the upstream request ran on after the cancel"
    );
    eprintln!(
        "cancel → upstream abort observed after {:?}",
        cancelled_at.elapsed()
    );

    let prompt = typed::prompt(&student, prompt_id).await;
    assert_eq!(prompt.state, PromptState::Canceled, "{prompt:?}");
    let messages = typed::messages(&student, d.session_id).await;
    let answer = &messages[1];
    assert_eq!(answer.role, MessageRole::Assistant, "{messages:?}");
    assert!(!answer.is_complete, "{messages:?}");
    let kept = answer.content.as_str();
    assert!(
        !kept.is_empty() && streamed.starts_with(kept),
        "partial content is kept: stored {kept:?}, streamed {streamed:?}"
    );

    // The session's cancel route reaches a worker process too, here before or
    // after it has claimed the prompt.
    let second = typed::send_in_background(
        &student,
        d.session_id,
        "[[mock tokens=400 token_delay_ms=20]] another long one",
    )
    .await
    .prompt_id;
    let mut second_feed = d.feed(second).await;
    until_deltas(&mut second_feed, 2).await;
    student
        .cancel_session_prompt()
        .id(d.session_id)
        .send()
        .await
        .assert_status(202);
    let rest = to_terminal(&mut second_feed, WAIT, "the second cancelled turn").await;
    assert_eq!(
        rest.last().expect("the rest of the stream").event,
        "cancelled",
        "{rest:?}"
    );
    typed::wait_for_prompt_state(&student, second, PromptState::Canceled, WAIT).await;
    let done = typed::send_message(&student, d.session_id, "next")
        .await
        .assert_status(201);
    assert_eq!(done.payload.message, "Echo: next");
}

/// The cancel crosses from the api process to the worker process as a Redis signal:
/// with a lease of 60 s the worker reads the prompt's row only every 20 s, so a cancel
/// that ends the stream within seconds was heard, not polled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_reaches_the_worker_process_as_a_signal() {
    run_test(Backend::Postgres, |_| async {
        let d = distributed_with_lease(Duration::from_secs(60)).await;
        for round in 0..2 {
            let mut feed = d
                .cluster
                .stream_message(
                    &d.token,
                    &d.session_id.to_string(),
                    "[[mock tokens=1000 token_delay_ms=20]] long answer",
                )
                .await;
            let seen = until_deltas(&mut feed, 3).await;
            let prompt_id = uuid(&prompt_id_of(&seen));
            let cancelled_at = Instant::now();
            d.student()
                .cancel_prompt()
                .id(prompt_id)
                .send()
                .await
                .assert_status(202);
            let rest = to_terminal(&mut feed, WAIT, "the cancelled turn").await;
            let seen_after = cancelled_at.elapsed();
            assert_eq!(rest.last().unwrap().event, "cancelled", "{rest:?}");
            assert!(
                seen_after < Duration::from_secs(4),
                "round {round}: the cancel took {seen_after:?} to end the stream"
            );
        }
    })
    .await;
}

/// Kills the worker streaming a turn after a few tokens (with `kill_all`, every worker,
/// then starts a fresh one once the lease has lapsed), follows the turn until it
/// completes elsewhere, and checks what readers saw and what was stored. Returns the
/// time from the kill to the `retry` that starts the turn again, and to the turn's end.
async fn worker_dies_mid_turn(d: &mut Distributed, kill_all: bool) -> (Duration, Duration) {
    const TOKENS: usize = 40;
    let student = d.student();
    let (prompt_id, mut reader) = d
        .start_turn(&format!(
            "[[mock tokens={TOKENS} token_delay_ms=50]] survive this"
        ))
        .await;
    let head = until_deltas(&mut reader, 3).await;

    let streaming = d.cluster.workers_connected_to(d.mock.addr());
    assert_eq!(
        streaming.len(),
        1,
        "exactly one worker streams from the mock: {streaming:?} of {:?}",
        d.cluster.worker_pids()
    );
    let victims = if kill_all {
        d.cluster.worker_pids()
    } else {
        streaming
    };
    for pid in victims {
        d.cluster.kill_worker(pid).await;
    }
    let killed_at = Instant::now();
    let first = d
        .mock
        .wait_for(Duration::from_secs(5), |r| {
            r.first()
                .is_some_and(|r| r.outcome == Outcome::ClientDisconnected)
        })
        .await;
    assert!(first.is_some(), "the dead worker's upstream request ended");

    // A reader who joins while nobody runs the turn.
    let mut joiner = d.feed(prompt_id).await;
    if kill_all {
        // Once the dead worker's lease has lapsed, a fresh worker's start-up reaper
        // pass takes the prompt over at once.
        let deadline = Instant::now() + LEASE + WAIT;
        while d
            .cluster
            .count(&format!(
                "SELECT COUNT(*) FROM prompts WHERE id = '{prompt_id}' AND lease_expires_at < now()"
            ))
            .await
            == 0
        {
            assert!(
                Instant::now() < deadline,
                "the dead worker's lease never lapsed"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        d.cluster.start_worker().await;
    }

    let (mut rest, restarted) = until_retry(&mut reader, killed_at, TAKEOVER + WAIT).await;
    rest.extend(to_terminal(&mut reader, WAIT, "the reader of the orphaned turn").await);
    let took = killed_at.elapsed();
    let all: Vec<SseEvent> = head.into_iter().chain(rest).collect();
    assert_gap_free(&all);
    let retry = all
        .iter()
        .position(|e| e.event == "retry")
        .unwrap_or_else(|| {
            panic!(
                "readers are told the turn starts over: {:?}",
                kinds_of(&all)
            )
        });
    assert_eq!(all[retry].data["attempt"], 2, "{:?}", all[retry]);
    assert_eq!(
        all.iter().filter(|e| e.event == "retry").count(),
        1,
        "{:?}",
        kinds_of(&all)
    );
    let second_attempt = &all[retry + 1..];
    assert_one_text_block_completed(second_attempt);
    assert_eq!(second_attempt[0].data["attempt"], 2);
    let answer = mock_tokens(TOKENS);
    assert_eq!(text_of(second_attempt), answer);
    assert_eq!(
        to_terminal(&mut joiner, WAIT, "the reader who joined after the kill").await,
        all,
        "a reader joining after the kill sees the same stream"
    );

    let prompt = typed::prompt(&student, prompt_id).await;
    assert_eq!(
        (prompt.state, prompt.attempt),
        (PromptState::Completed, 2),
        "{prompt:?}"
    );
    let messages = typed::messages(&student, d.session_id).await;
    assert_eq!(
        messages.len(),
        2,
        "one user and one assistant message: {messages:?}"
    );
    assert_eq!(messages[1].content, answer, "{messages:?}");
    assert!(messages[1].is_complete, "{messages:?}");
    let blocks = d
        .cluster
        .count(&format!(
            "SELECT COUNT(*) FROM blocks WHERE prompt_id = '{prompt_id}'"
        ))
        .await;
    assert_eq!(blocks, 1, "the first attempt's partial block was dropped");
    let requests = d.mock.requests();
    let outcomes: Vec<Outcome> = requests.iter().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes,
        [Outcome::ClientDisconnected, Outcome::Completed],
        "the turn was streamed once more, in full"
    );
    assert!(
        requests[1].body.get("continue_final_message").is_none(),
        "a provider that does not continue partial answers is not asked to: {:?}",
        requests[1].body
    );
    (restarted, took)
}

async fn killed_worker(on: On) {
    let mut d = distributed_on(on).await;
    let (restarted, took) = worker_dies_mid_turn(&mut d, false).await;
    eprintln!(
        "killed worker → turn started again after {restarted:?}, completed by the survivor after {took:?}"
    );
    assert!(
        restarted < TAKEOVER,
        "the survivor took the turn over within {TAKEOVER:?} of the kill: {restarted:?}"
    );
    // The survivor serves the next turn as usual.
    let next = typed::send_message(&d.student(), d.session_id, "still there?")
        .await
        .assert_status(201);
    assert_eq!(next.payload.message, "Echo: still there?");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_every_worker_dies_a_fresh_one_takes_the_turn_over() {
    run_test(Backend::Postgres, |_| async {
        let mut d = distributed().await;
        let (restarted, took) = worker_dies_mid_turn(&mut d, true).await;
        eprintln!(
            "all workers killed → turn started again after {restarted:?}, completed by a fresh worker after {took:?}"
        );
        assert!(
            restarted < LEASE + TAKEOVER,
            "a fresh worker takes a lapsed prompt over at start-up, took {restarted:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_down_new_turns_get_503_and_nothing_is_lost() {
    run_test(Backend::Postgres, |_| async {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), &worker_settings(LEASE));
        let mut cluster = Cluster::spawn_on_redis(
            "redis://127.0.0.1:1/",
            &[("PARLEY_CONFIG", &config_path(&config))],
        )
        .await;
        let student = api::student_with_tool(&cluster, "offline@example.com").await;
        let token = student.token;
        let me = cluster.client_as(&token);
        let session_id = api::session(&me, student.tool.id).await.id;

        // Every way of sending a message answers 503 with a problem body.
        let background = typed::send_message_in_background(&me, session_id, "first try").await;
        assert_eq!(background.assert_problem(503), "unavailable");
        let json = typed::send_message(&me, session_id, "second try").await;
        assert_eq!(json.assert_problem(503), "unavailable");
        // `Accept: text/event-stream` is no request the client makes (it asks for JSON):
        // a raw request.
        let sse = cluster
            .send(
                cluster
                    .request(
                        reqwest::Method::POST,
                        &format!("/v1/sessions/{session_id}/messages"),
                        Some(&token),
                    )
                    .header("accept", "text/event-stream")
                    .json(&json!({"content": "third try"})),
            )
            .await;
        assert_eq!(sse.assert_problem(503), "unavailable", "{sse}");
        assert_eq!(mock.requests().len(), 0, "nothing reached the provider");
        // The providers' view cannot ask Redis for the breaker, and says so.
        let providers = cluster
            .admin_client()
            .admin_providers()
            .send()
            .await
            .assert_status(200);
        let states: Vec<_> = providers
            .providers
            .iter()
            .map(|p| p.breaker.state)
            .collect();
        assert_eq!(states, [BreakerStateName::Unknown], "{:?}", *providers);

        // Nothing was lost: each message is a `failed` (resumable) prompt, and the
        // session is free again.
        let failed: Vec<Uuid> = cluster
            .query_strings(&format!(
                "SELECT id::text FROM prompts WHERE session_id = '{session_id}' \
                 AND state = 'failed' AND error_code = 'unavailable' ORDER BY id"
            ))
            .await
            .iter()
            .map(|id| uuid(id))
            .collect();
        assert_eq!(failed.len(), 3, "three failed prompts: {failed:?}");
        let first = typed::prompt(&me, failed[0]).await;
        assert_eq!(first.state, PromptState::Failed, "{first:?}");
        let inputs = cluster
            .count(&format!(
                "SELECT COUNT(*) FROM prompts WHERE session_id = '{session_id}' \
                 AND input->>'content' IN ('first try', 'second try', 'third try')"
            ))
            .await;
        assert_eq!(inputs, 3, "the messages are kept on their prompts");
        let streaming = me
            .get_streaming_state()
            .id(session_id)
            .send()
            .await
            .assert_status(200);
        assert!(streaming.prompt.is_none(), "{:?}", *streaming);

        // Reads come from PostgreSQL and keep working.
        let sessions = me.list_sessions().send().await.assert_status(200);
        let ids: Vec<Uuid> = sessions.items.iter().map(|s| s.id).collect();
        assert_eq!(ids, [session_id], "{:?}", *sessions);
        me.list_session_messages()
            .id(session_id)
            .send()
            .await
            .assert_status(200);

        // Once Redis is back, a failed prompt resumes and completes.
        let redis = fresh_redis_database()
            .await
            .unwrap_or_else(|err| panic!("{err:#}"));
        cluster.switch_redis(&redis).await;
        // A new client: the restarted api listens elsewhere.
        let me = cluster.client_as(&token);
        let providers = cluster
            .admin_client()
            .admin_providers()
            .send()
            .await
            .assert_status(200);
        assert_eq!(
            providers.providers[0].breaker.state,
            BreakerStateName::Closed,
            "{:?}",
            *providers
        );
        me.resume_prompt()
            .id(failed[0])
            .send()
            .await
            .assert_status(202);
        let mut feed = cluster
            .prompt_events(&token, &failed[0].to_string(), None)
            .await;
        let events = to_terminal(&mut feed, WAIT, "the resumed turn").await;
        assert_eq!(events.last().unwrap().event, "complete", "{events:?}");
        assert_eq!(text_of(&events), "Echo: first try");
        let messages = typed::messages(&me, session_id).await;
        let contents: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["first try", "Echo: first try"]);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_told_to_stop_hands_its_unfinished_turn_to_another_at_the_drain_deadline() {
    run_test(Backend::Postgres, |_| async {
        let mut d =
            distributed_with("stall_timeout_ms = 5000\nmax_attempts = 2\ndrain_s = 1").await;
        const TOKENS: usize = 60;
        let student = d.student();
        let (prompt_id, mut reader) = d
            .start_turn(&format!(
                "[[mock tokens={TOKENS} token_delay_ms=50]] stop gently"
            ))
            .await;
        let head = until_deltas(&mut reader, 3).await;
        let streaming = d.cluster.workers_connected_to(d.mock.addr());
        assert_eq!(streaming.len(), 1, "{streaming:?}");
        let signalled = Instant::now();
        let status = d
            .cluster
            .terminate_worker(streaming[0], Duration::from_secs(15))
            .await;
        let exited = signalled.elapsed();
        assert!(
            status.is_some_and(|s| s.success()),
            "the worker exited 0: {status:?}"
        );
        assert!(
            exited < Duration::from_secs(1) + Duration::from_secs(4),
            "it waited for the drain deadline (1 s), not for the turn: {exited:?}"
        );
        let (mut rest, restarted) = until_retry(&mut reader, signalled, WAIT).await;
        eprintln!(
            "SIGTERM → worker exited after {exited:?}, the turn started again after {restarted:?}"
        );
        assert!(
            restarted < exited + Duration::from_secs(3),
            "the released lease let the other worker claim at once: {restarted:?}"
        );
        rest.extend(to_terminal(&mut reader, WAIT, "the reader").await);
        let all: Vec<SseEvent> = head.into_iter().chain(rest).collect();
        assert_gap_free(&all);
        assert_eq!(all.last().map(|e| e.event.as_str()), Some("complete"));
        let prompt = typed::prompt(&student, prompt_id).await;
        assert_eq!(
            (prompt.state, prompt.attempt),
            (PromptState::Completed, 2),
            "{prompt:?}"
        );
    })
    .await;
}

/// A worker that dies after recording a turn's end and before telling its readers (its
/// job is then not acknowledged, and the queue hands it out again): the job's next run
/// finds the prompt finished, sees that the log's last event is not terminal, and tells
/// the end — the same `prompt_state` and `complete` — so a reader waiting on the log
/// gets its terminal event instead of pings for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_get_the_end_a_dead_worker_recorded_but_never_told() {
    use parley_runtime::queue::{JobQueue, RedisQueue};
    run_test(Backend::Postgres, |_| async {
        let d = distributed().await;
        let finished = typed::send_message(&d.student(), d.session_id, "[[mock tokens=3]] hi")
            .await
            .assert_status(201);
        let prompt_id = finished.prompt_id;
        let all = to_terminal(&mut d.feed(prompt_id).await, WAIT, "the turn").await;
        assert_eq!(all[all.len() - 2].event, "prompt_state");
        // The log as the dead worker left it: everything but the end's two events.
        let told = all.len() - 2;
        let url = d.cluster.redis_url();
        let key = format!("parley:{{{prompt_id}}}:events");
        redis_cli(&url, &["DEL", &key]);
        for event in &all[..told] {
            let mut kind = event.data.clone();
            let fields = kind.as_object_mut().expect("an object");
            fields.remove("seq");
            fields.remove("prompt_id");
            let id = format!("{}-0", event.seq());
            redis_cli(&url, &["XADD", &key, &id, "k", &kind.to_string()]);
        }
        let mut reader = d
            .cluster
            .prompt_events(&d.token, &prompt_id.to_string(), Some(told as u64))
            .await;
        let queue = RedisQueue::connect(&url).expect("the queue");
        queue
            .enqueue(parley_protocol::jobs::PromptJob::turn(prompt_id))
            .await
            .expect("enqueued again");
        let end = to_terminal(&mut reader, WAIT, "the end told again").await;
        let seqs: Vec<u64> = end.iter().map(SseEvent::seq).collect();
        assert_eq!(seqs, [told as u64 + 1, told as u64 + 2]);
        assert_eq!(end[0].data, all[told].data, "the same prompt_state");
        assert_eq!(end[1].data, all[told + 1].data, "the same complete");
        assert!(
            d.cluster.worker_logs().contains("never told its end"),
            "the worker says what it did"
        );
    })
    .await;
}

fn redis_cli(url: &str, args: &[&str]) {
    let status = std::process::Command::new("redis-cli")
        .arg("-u")
        .arg(url)
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("redis-cli runs");
    assert!(status.success(), "redis-cli {args:?}");
}

/// `parley api` told to stop does not wait for the turns its feeds follow (workers run
/// them): every open feed ends at once with `reconnect` (not stored, no `id:`), the api
/// exits 0, and the turn goes on in its worker; a reader that reconnects to the
/// restarted api with its last event id gets exactly the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_told_to_stop_ends_its_feeds_at_once_and_the_turn_goes_on() {
    run_test(Backend::Postgres, |_| async {
        let mut d = distributed().await;
        // About 10 s of streaming: far longer than the api may take to stop.
        const TOKENS: usize = 200;
        let (prompt_id, mut reader) = d
            .start_turn(&format!(
                "[[mock tokens={TOKENS} token_delay_ms=50]] keep going"
            ))
            .await;
        let mut seen = until_deltas(&mut reader, 3).await;

        let signalled = Instant::now();
        let status = d.cluster.terminate(Duration::from_secs(15)).await;
        let exited = signalled.elapsed();
        assert!(status.is_some_and(|s| s.success()), "exited 0: {status:?}");
        let rest = to_terminal(&mut reader, WAIT, "the reader of the stopped api").await;
        let last = rest.last().expect("the feed ended with an event").clone();
        assert_eq!(
            (last.event.as_str(), &last.data["retry_ms"]),
            ("reconnect", &json!(1000)),
            "{rest:?}"
        );
        assert!(last.data.get("seq").is_none(), "not stored: {last:?}");
        seen.extend(rest.into_iter().filter(|e| e.event != "reconnect"));
        let resume_from = seen.last().expect("events").seq();
        assert_eq!(last.id, resume_from.to_string(), "no id of its own");
        assert!(
            exited < Duration::from_secs(5),
            "the api waited for the turn ({TOKENS} tokens, 50 ms apart): {exited:?}"
        );

        d.cluster.start().await;
        let mut resumed = d
            .cluster
            .prompt_events(&d.token, &prompt_id.to_string(), Some(resume_from))
            .await;
        seen.extend(to_terminal(&mut resumed, WAIT, "the reader that reconnected").await);
        assert_gap_free(&seen);
        assert_eq!(seen.last().map(|e| e.event.as_str()), Some("complete"));
        assert_eq!(text_of(&seen), mock_tokens(TOKENS));
        // The same attempt: the worker went on while the api was away.
        let done = typed::prompt(&d.student(), prompt_id).await;
        assert_eq!(
            (done.state, done.attempt),
            (PromptState::Completed, 1),
            "{done:?}"
        );
    })
    .await;
}

/// A provider's breaker lives in Redis: failures seen by one worker open it for every
/// worker, including one started afterwards that never saw a failure (it refuses the
/// call without reaching the provider); the api reports it, and after the open period
/// one probe closes it for all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_breaker_opened_by_one_worker_stops_calls_from_a_worker_that_never_failed() {
    run_test(Backend::Postgres, |_| async {
        let mut d = distributed_with(
            "stall_timeout_ms = 5000\nmax_attempts = 1\nbreaker_failures = 3\nbreaker_open_s = 3",
        )
        .await;
        let breaker = |d: &Distributed| {
            let admin = d.cluster.admin_client();
            async move {
                let report = admin.admin_providers().send().await.assert_status(200);
                assert_eq!(report.providers.len(), 1, "{:?}", *report);
                report.providers[0].breaker.clone()
            }
        };
        // One worker makes the three failed calls.
        let workers = d.cluster.worker_pids();
        for pid in &workers[1..] {
            d.cluster.terminate_worker(*pid, WAIT).await;
        }
        let student = d.student();
        for i in 0..3 {
            let failed =
                typed::send_message(&student, d.session_id, &format!("[[mock status=500]] {i}"))
                    .await;
            assert_eq!(failed.assert_problem(502), "upstream_error");
        }
        assert_eq!(d.mock.requests().len(), 3);
        let open = breaker(&d).await;
        assert_eq!(open.state, BreakerStateName::Open, "{open:?}");
        let open_until = open.open_until.expect("an open breaker says until when");

        // That worker goes; a new one, which never saw a failure, gets the next turn.
        d.cluster.start_worker().await;
        d.cluster.terminate_worker(workers[0], WAIT).await;
        let refused =
            typed::send_message(&student, d.session_id, "[[mock tokens=3]] refused").await;
        assert_eq!(refused.assert_problem(502), "upstream_error");
        assert_eq!(d.mock.requests().len(), 3, "refused without a call");
        assert!(
            chrono::Utc::now() < open_until,
            "the refusal came while the breaker was open"
        );

        // After the open period one probe goes; it works, and the breaker closes.
        let wait = (open_until - chrono::Utc::now())
            .to_std()
            .unwrap_or_default();
        tokio::time::sleep(wait + Duration::from_millis(100)).await;
        let half = breaker(&d).await;
        assert_eq!(half.state, BreakerStateName::HalfOpen, "{half:?}");
        typed::send_message(&student, d.session_id, "[[mock tokens=3]] probe")
            .await
            .assert_status(201);
        assert_eq!(d.mock.requests().len(), 4);
        let closed = breaker(&d).await;
        assert_eq!(
            (closed.state, closed.consecutive_failures),
            (BreakerStateName::Closed, Some(0)),
            "{closed:?}"
        );
    })
    .await;
}

/// Where the provider continues a partial answer (`continue_partial`, e.g. vLLM or
/// llama.cpp's server), a turn taken over after its worker died goes on from the text
/// the dead worker had persisted: the model is sent that text as the final assistant
/// message with `continue_final_message`, writes only the rest, and readers see the
/// new attempt show the persisted text, then the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_taken_over_turn_continues_the_persisted_answer_where_the_provider_can() {
    run_test(Backend::Postgres, |_| async {
        let mut d = distributed_with_provider(
            "first_token_timeout_ms = 60000\ncontinue_partial = true",
            "stall_timeout_ms = 5000\nmax_attempts = 2",
        )
        .await;
        const TOKENS: usize = 60;
        let student = d.student();
        let (prompt_id, mut reader) = d
            .start_turn(&format!(
                "[[mock tokens={TOKENS} token_delay_ms=50]] carry on"
            ))
            .await;
        // Past the first checkpoint (every 1.5 s by default; one delta event per 100 ms
        // window): the worker dies with part of the answer persisted.
        let head = until_deltas(&mut reader, 20).await;
        let streaming = d.cluster.workers_connected_to(d.mock.addr());
        assert_eq!(streaming.len(), 1, "{streaming:?}");
        d.cluster.kill_worker(streaming[0]).await;
        let killed_at = Instant::now();
        let (mut rest, restarted) = until_retry(&mut reader, killed_at, TAKEOVER + WAIT).await;
        rest.extend(to_terminal(&mut reader, WAIT, "the reader").await);
        eprintln!("killed → continued after {restarted:?}");
        let all: Vec<SseEvent> = head.into_iter().chain(rest).collect();
        assert_gap_free(&all);
        let retry = all
            .iter()
            .position(|e| e.event == "retry")
            .expect("a retry");
        let answer = mock_tokens(TOKENS);
        let second_attempt = &all[retry + 1..];
        assert_one_text_block_completed(second_attempt);
        assert_eq!(text_of(second_attempt), answer, "the whole answer, once");

        let requests = d.mock.requests();
        assert_eq!(requests.len(), 2, "{requests:?}");
        let again = &requests[1];
        assert_eq!(
            (
                &again.body["continue_final_message"],
                &again.body["add_generation_prompt"]
            ),
            (&json!(true), &json!(false)),
            "{:?}",
            again.body
        );
        let last = again.messages.last().expect("messages");
        assert_eq!(last.role, "assistant", "{:?}", again.messages);
        let persisted = last.content.split_whitespace().count();
        assert!(
            persisted >= 3 && answer.starts_with(&last.content),
            "the continued text is the answer's persisted start: {:?}",
            last.content
        );
        assert_eq!(
            (again.outcome, again.tokens_sent),
            (Outcome::Completed, TOKENS - persisted),
            "only the rest was written again"
        );
        let prompt = typed::prompt(&student, prompt_id).await;
        assert_eq!((prompt.state, prompt.attempt), (PromptState::Completed, 2));
        let messages = typed::messages(&student, d.session_id).await;
        assert_eq!(messages[1].content, answer, "{messages:?}");
        assert!(messages[1].is_complete);
    })
    .await;
}

/// A Redis restarted without persistence loses the queued jobs; the prompts they stood
/// for run within seconds (each worker sees the queue's epoch change and reaps at
/// once), not after the reaper's 60 s grace. Turns in flight ride the restart out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_whose_jobs_a_restarted_redis_lost_run_within_seconds() {
    run_test(Backend::Postgres, |_| async {
        let mut redis = OwnRedis::start();
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), "stall_timeout_ms = 5000");
        let mut cluster =
            Cluster::spawn_on_redis(&redis.url(), &[("PARLEY_CONFIG", &config_path(&config))])
                .await;
        // One worker, its four slots busy with long turns: a fifth waits in the queue.
        for pid in &cluster.worker_pids()[1..] {
            cluster.terminate_worker(*pid, WAIT).await;
        }
        let student = api::student_with_tool(&cluster, "epoch@example.com").await;
        let me = cluster.client_as(&student.token);
        let mut busy = Vec::new();
        for i in 0..parley_tests::WORKER_CONCURRENCY {
            let session = api::session(&me, student.tool.id).await.id;
            let content = format!("[[mock tokens=80 token_delay_ms=50]] busy {i}");
            busy.push(
                typed::send_in_background(&me, session, &content)
                    .await
                    .prompt_id,
            );
        }
        let streaming = mock
            .wait_for(WAIT, |r| r.len() == parley_tests::WORKER_CONCURRENCY)
            .await;
        assert!(streaming.is_some(), "the four turns stream");
        let session = api::session(&me, student.tool.id).await.id;
        let waiting = typed::send_in_background(&me, session, "[[mock tokens=3]] queued")
            .await
            .prompt_id;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            mock.requests().len(),
            parley_tests::WORKER_CONCURRENCY,
            "the fifth turn waits in the queue"
        );

        redis.restart().await;
        let restarted = Instant::now();
        let me = cluster.client_as(&student.token);
        loop {
            let prompt = typed::prompt(&me, waiting).await;
            if prompt.state == PromptState::Completed {
                break;
            }
            assert!(
                restarted.elapsed() < Duration::from_secs(30),
                "the queued turn is still {:?} 30 s after Redis lost its job",
                prompt.state
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        eprintln!(
            "the turn whose job Redis lost completed {:?} after the restart",
            restarted.elapsed()
        );
        for prompt_id in busy {
            let prompt = typed::prompt(&me, prompt_id).await;
            assert_eq!(prompt.state, PromptState::Completed, "{prompt:?}");
        }
    })
    .await;
}
