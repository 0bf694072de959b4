//! The per-user feed (`GET /v1/feed`, #14 item 6) and timers that fire (#14 item 5),
//! read the way clients do: over real HTTP with a real SSE parser. A session's start,
//! a turn's start and end and a timer's firing reach every reader of the user's feed,
//! resumable with `Last-Event-ID`; a resume from before what the feed holds gets a
//! `reset`; a user feed token opens that feed only. A 2 s timer set through the timer
//! skill posts its notice once — with two workers, and across a restart — and paused
//! and cancelled timers stay silent. The distributed case (two api processes, two
//! workers, Redis) is at the end.

use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::{CreateMessage, MessageRole};
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::{
    ApiResult, Backend, Cluster, SseEvent, SseReader, TestApp, both_backends, typed,
};
use uuid::Uuid;

use crate::fixtures::api::{self, uuid};

const WAIT: Duration = Duration::from_secs(20);

/// How a reader authenticates to the feed.
enum Cred<'a> {
    Bearer(&'a str),
    FeedToken(&'a str),
}

/// Opens `GET {base}/v1/feed`, resuming after `last` when given.
async fn open_feed(
    http: &reqwest::Client,
    base: &str,
    cred: Cred<'_>,
    last: Option<&str>,
) -> SseReader {
    let mut request = http
        .get(format!("{base}/v1/feed"))
        .timeout(Duration::from_secs(300));
    request = match cred {
        Cred::Bearer(token) => request.bearer_auth(token),
        Cred::FeedToken(token) => request.query(&[("access_token", token)]),
    };
    if let Some(last) = last {
        request = request.header("last-event-id", last);
    }
    SseReader::new(request.send().await.expect("opening the user feed"))
}

/// The next event of `feed` of type `kind`, skipping others.
async fn next_of(feed: &mut SseReader, kind: &str) -> SseEvent {
    loop {
        let event = feed.next(WAIT).await.expect("the feed goes on");
        if event.event == kind {
            return event;
        }
    }
}

fn field(event: &SseEvent, name: &str) -> String {
    event.data[name].as_str().unwrap_or_default().to_owned()
}

/// A server whose model is the mock, and one student of a group with a tool.
struct Feeds {
    app: TestApp,
    _mock: MockLlm,
    _config: tempfile::NamedTempFile,
}

async fn feeds(backend: Backend, worker: &str) -> Feeds {
    let mock = MockLlm::start(MockConfig::default()).await;
    let config = mock_provider_config(&mock.base_url(), worker);
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
    Feeds {
        app,
        _mock: mock,
        _config: config,
    }
}

/// A student with a tool; their client and token.
async fn student(app: &TestApp, email: &str) -> (Client, String, Uuid) {
    let student = api::student_with_tool(app, email).await;
    (
        app.client_as(&student.token),
        student.token,
        student.tool.id,
    )
}

async fn say(client: &Client, session_id: Uuid, content: &str) -> String {
    let body = CreateMessage {
        content: content.to_owned(),
        model: None,
        attachments: None,
        parent_message_id: None,
        response_format: None,
        client_functions: None,
    };
    let turn = client.send_message().id(session_id).body(body).send().await;
    turn.assert_status(201).into_inner().payload.message
}

/// The notices (assistant messages without a prompt) of a session.
async fn notices(client: &Client, session_id: Uuid) -> Vec<String> {
    typed::messages(client, session_id)
        .await
        .into_iter()
        .filter(|m| m.role == MessageRole::Assistant && m.prompt_id.is_none())
        .map(|m| m.content)
        .collect()
}

both_backends!(
    sessions_and_turns_reach_the_feed_and_a_reader_resumes_with_last_event_id,
    |backend: Backend| async move {
        let f = feeds(backend, "").await;
        let base = f.app.url("");
        let base = base.trim_end_matches('/');
        let (client, token, tool_id) = student(&f.app, "feed@example.com").await;
        let (other, other_token, other_tool) = student(&f.app, "other@example.com").await;
        let mut feed = open_feed(&f.app.client, base, Cred::Bearer(&token), None).await;
        assert_eq!(feed.status, 200);
        assert_eq!(
            feed.headers.get("content-type").unwrap().to_str().unwrap(),
            "text/event-stream"
        );
        let mut others = open_feed(&f.app.client, base, Cred::Bearer(&other_token), None).await;

        let session = api::session(&client, tool_id).await;
        let created = next_of(&mut feed, "session_created").await;
        assert_eq!(uuid(&field(&created, "session_id")), session.id);
        assert_eq!(created.id, created.seq().to_string(), "id: is the seq");
        let reply = say(&client, session.id, "[[mock tokens=3]] hello").await;
        assert!(!reply.is_empty());
        let started = next_of(&mut feed, "turn_started").await;
        assert_eq!(uuid(&field(&started, "session_id")), session.id);
        let finished = next_of(&mut feed, "turn_finished").await;
        assert_eq!(field(&finished, "state"), "completed");
        assert_eq!(field(&finished, "prompt_id"), field(&started, "prompt_id"));
        assert!(
            !field(&finished, "assistant_message_id").is_empty(),
            "{:?}",
            finished.data
        );
        assert!(created.seq() < started.seq() && started.seq() < finished.seq());
        // The first exchange titled the session with its first words.
        let titled = next_of(&mut feed, "session_updated").await;
        assert_eq!(uuid(&field(&titled, "session_id")), session.id);
        assert!(
            field(&titled, "title").ends_with("hello"),
            "{:?}",
            titled.data
        );
        assert!(finished.seq() < titled.seq());

        // Another tab resumes after the session's creation: it gets the turn, in order.
        let mut resumed =
            open_feed(&f.app.client, base, Cred::Bearer(&token), Some(&created.id)).await;
        let first = resumed.next(WAIT).await.unwrap();
        assert_eq!(
            (first.event.as_str(), first.seq()),
            ("turn_started", started.seq())
        );
        let second = resumed.next(WAIT).await.unwrap();
        assert_eq!(second.seq(), finished.seq());

        // The other user's feed has only their own session.
        let theirs = api::session(&other, other_tool).await;
        let seen = next_of(&mut others, "session_created").await;
        assert_eq!(uuid(&field(&seen, "session_id")), theirs.id);

        // A completed session is an update with its state.
        client
            .complete_session()
            .id(session.id)
            .send()
            .await
            .assert_status(200);
        let updated = next_of(&mut feed, "session_updated").await;
        assert_eq!(field(&updated, "state"), "completed");
        assert_eq!(uuid(&field(&updated, "session_id")), session.id);

        // The owner's rename and pin, then the delete, reach the feed with what changed.
        client
            .update_session()
            .id(session.id)
            .body_map(|b| b.title(Some("Greetings".to_owned())).pinned(Some(true)))
            .send()
            .await
            .assert_status(200);
        let renamed = next_of(&mut feed, "session_updated").await;
        assert_eq!(field(&renamed, "title"), "Greetings");
        assert_eq!(renamed.data["pinned"], true);
        assert!(renamed.data.get("archived").is_none(), "{:?}", renamed.data);
        client
            .delete_session()
            .id(session.id)
            .send()
            .await
            .assert_status(204);
        let deleted = next_of(&mut feed, "session_deleted").await;
        assert_eq!(uuid(&field(&deleted, "session_id")), session.id);

        // Unauthenticated: 401.
        let anonymous = f
            .app
            .client
            .get(format!("{base}/v1/feed"))
            .send()
            .await
            .unwrap();
        assert_eq!(anonymous.status().as_u16(), 401);
    }
);

both_backends!(
    a_feed_token_opens_its_users_feed_and_nothing_else,
    |backend: Backend| async move {
        let f = feeds(backend, "").await;
        let base = f.app.url("");
        let base = base.trim_end_matches('/');
        let (client, _, tool_id) = student(&f.app, "browser@example.com").await;
        let (other, _, other_tool) = student(&f.app, "neighbour@example.com").await;
        let minted = client
            .create_user_feed_token()
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert!(minted.feed_url.starts_with("/v1/feed?access_token="));
        let mut feed = open_feed(&f.app.client, base, Cred::FeedToken(&minted.token), None).await;
        assert_eq!(feed.status, 200);
        api::session(&other, other_tool).await;
        let session = api::session(&client, tool_id).await;
        let created = next_of(&mut feed, "session_created").await;
        assert_eq!(
            uuid(&field(&created, "session_id")),
            session.id,
            "only its own user's"
        );

        // A prompt's feed token does not open the user feed, nor the other way round.
        say(&client, session.id, "[[mock tokens=2]] hi").await;
        let started = next_of(&mut feed, "turn_started").await;
        let prompt_id = uuid(&field(&started, "prompt_id"));
        let prompt_token = client
            .create_feed_token()
            .id(prompt_id)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        let refused = open_feed(
            &f.app.client,
            base,
            Cred::FeedToken(&prompt_token.token),
            None,
        )
        .await;
        assert_eq!(refused.status, 401, "a prompt's token opens no user feed");
        let prompt_events = f
            .app
            .client
            .get(format!("{base}/v1/prompts/{prompt_id}/events"))
            .query(&[("access_token", minted.token.as_str())])
            .send()
            .await
            .unwrap();
        assert_eq!(
            prompt_events.status().as_u16(),
            404,
            "a user feed token opens no prompt"
        );
    }
);

both_backends!(
    a_reader_from_before_what_the_feed_holds_gets_a_reset,
    |backend: Backend| async move {
        let f = feeds(backend, "feed_max_events = 2").await;
        let base = f.app.url("");
        let base = base.trim_end_matches('/');
        let (client, token, tool_id) = student(&f.app, "late@example.com").await;
        let mut feed = open_feed(&f.app.client, base, Cred::Bearer(&token), None).await;
        let first = api::session(&client, tool_id).await;
        let created = next_of(&mut feed, "session_created").await;
        assert_eq!(uuid(&field(&created, "session_id")), first.id);
        let mut last = None;
        for _ in 0..3 {
            api::session(&client, tool_id).await;
            last = Some(next_of(&mut feed, "session_created").await);
        }
        let last = last.unwrap();
        let mut late =
            open_feed(&f.app.client, base, Cred::Bearer(&token), Some(&created.id)).await;
        let reset = late.next(WAIT).await.unwrap();
        assert_eq!(reset.event, "reset", "{reset:?}");
        assert!(reset.id.is_empty(), "a reset has no id");
        // Then the oldest events the feed holds, up to the latest.
        let mut held = Vec::new();
        while held.last().map(SseEvent::seq) != Some(last.seq()) {
            held.push(late.next(WAIT).await.unwrap());
        }
        assert!(held.len() <= 3, "{held:?}");
        // A reader that is up to date gets no reset.
        let mut current =
            open_feed(&f.app.client, base, Cred::Bearer(&token), Some(&last.id)).await;
        api::session(&client, tool_id).await;
        assert_eq!(current.next(WAIT).await.unwrap().event, "session_created");
    }
);

/// `[worker]` settings for timer tests: look for due timers often.
const TIMERS: &str = "timer_check_ms = 200";

both_backends!(
    a_two_second_timer_fires_once_into_its_session_and_onto_the_feed,
    |backend: Backend| async move {
        let f = feeds(backend, TIMERS).await;
        let base = f.app.url("");
        let base = base.trim_end_matches('/');
        let (client, token, tool_id) = student(&f.app, "tea@example.com").await;
        let session = api::session(&client, tool_id).await;
        let mut feed = open_feed(&f.app.client, base, Cred::Bearer(&token), None).await;
        assert_eq!(
            say(&client, session.id, "set tea timer for 2 seconds").await,
            "Timer 'tea' set for 2 seconds."
        );
        // Paused and cancelled timers do not fire; a paused one resumes with its time.
        say(&client, session.id, "set pasta timer for 2 seconds").await;
        assert_eq!(
            say(&client, session.id, "pause pasta timer").await,
            "pasta timer paused."
        );
        say(&client, session.id, "set rice timer for 2 seconds").await;
        assert_eq!(
            say(&client, session.id, "cancel rice timer").await,
            "rice timer cancelled."
        );

        let fired = next_of(&mut feed, "timer_fired").await;
        assert_eq!(field(&fired, "label"), "tea");
        assert_eq!(uuid(&field(&fired, "session_id")), session.id);
        let notice_id = uuid(&field(&fired, "message_id"));
        let messages = typed::messages(&client, session.id).await;
        let notice = messages
            .iter()
            .find(|m| m.id == notice_id)
            .expect("the notice");
        assert_eq!(notice.content, "⏰ The tea timer is done");
        assert_eq!(notice.role, MessageRole::Assistant);
        assert_eq!(notice.prompt_id, None, "no model call, no prompt");

        // Nothing else fires.
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert_eq!(
            notices(&client, session.id).await,
            ["⏰ The tea timer is done"]
        );
        let db_fired = f
            .app
            .count("SELECT COUNT(*) FROM timers WHERE fired_at IS NOT NULL")
            .await;
        assert_eq!(db_fired, 1);

        say(&client, session.id, "resume pasta timer").await;
        let pasta = next_of(&mut feed, "timer_fired").await;
        assert_eq!(field(&pasta, "label"), "pasta");
        assert_eq!(
            notices(&client, session.id).await,
            ["⏰ The tea timer is done", "⏰ The pasta timer is done"]
        );
    }
);

both_backends!(
    a_timer_pending_across_a_restart_fires_once,
    |backend: Backend| async move {
        let mut f = feeds(backend, TIMERS).await;
        let (client, token, tool_id) = student(&f.app, "nap@example.com").await;
        let session = api::session(&client, tool_id).await;
        say(&client, session.id, "set nap timer for 3 seconds").await;
        f.app.restart().await;
        let base = f.app.url("");
        let base = base.trim_end_matches('/');
        let client = f.app.client_as(&token);
        let mut feed = open_feed(&f.app.client, base, Cred::Bearer(&token), None).await;
        let fired = next_of(&mut feed, "timer_fired").await;
        assert_eq!(field(&fired, "label"), "nap");
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(
            notices(&client, session.id).await,
            ["⏰ The nap timer is done"]
        );
    }
);

/// Two api processes and two workers on Redis: what one api and the workers publish,
/// a reader on the other api sees; a 2 s timer fires once across both workers, and
/// once more after every worker was killed while a timer was pending.
#[tokio::test]
async fn the_feed_crosses_api_processes_and_timers_fire_once_across_workers() {
    parley_tests::run_test(Backend::Postgres, |_| async {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), TIMERS);
        let mut cluster = Cluster::spawn(&[("PARLEY_CONFIG", &config_path(&config))]).await;
        let second = cluster.start_api().await;
        let second = second.trim_end_matches('/').to_owned();
        let student = api::student_with_tool(&cluster, "two@example.com").await;
        let client = cluster.client_as(&student.token);
        let mut feed =
            open_feed(&cluster.client, &second, Cred::Bearer(&student.token), None).await;
        assert_eq!(feed.status, 200);

        let session = api::session(&client, student.tool.id).await;
        let created = next_of(&mut feed, "session_created").await;
        assert_eq!(uuid(&field(&created, "session_id")), session.id);
        say(&client, session.id, "[[mock tokens=3]] hi").await;
        next_of(&mut feed, "turn_started").await;
        let finished = next_of(&mut feed, "turn_finished").await;
        assert_eq!(
            field(&finished, "state"),
            "completed",
            "published by a worker"
        );

        say(&client, session.id, "set tea timer for 2 seconds").await;
        let fired = next_of(&mut feed, "timer_fired").await;
        assert_eq!(field(&fired, "label"), "tea");
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(
            notices(&client, session.id).await,
            ["⏰ The tea timer is done"]
        );

        // Every worker dies while a timer is pending; a fresh one fires it, once.
        say(&client, session.id, "set nap timer for 3 seconds").await;
        for pid in cluster.worker_pids() {
            cluster.kill_worker(pid).await;
        }
        cluster.start_worker().await;
        cluster.start_worker().await;
        let fired = next_of(&mut feed, "timer_fired").await;
        assert_eq!(field(&fired, "label"), "nap");
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(
            notices(&client, session.id).await,
            ["⏰ The tea timer is done", "⏰ The nap timer is done"]
        );
        // Resuming on the first api from the session's creation: the same events.
        let base = cluster.url("");
        let base = base.trim_end_matches('/');
        let mut resumed = open_feed(
            &cluster.client,
            base,
            Cred::Bearer(&student.token),
            Some(&created.id),
        )
        .await;
        assert_eq!(resumed.next(WAIT).await.unwrap().event, "turn_started");
        drop(mock);
    })
    .await;
}
