//! What a turn costs the servers, counted by them: PostgreSQL's `pg_stat_statements`
//! and, on a Redis of the test's own, `INFO commandstats` — at once (the mock's tokens
//! all at once) and at a real model's pace (#16: tokens 20 ms apart), where a write per
//! token would show.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::ToolDefinition;
use parley_tests::turns::{
    assert_one_text_block_completed, config_path, mock_provider_config_with, text_of,
};
use parley_tests::{Backend, Cluster, run_test};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{LEASE, OwnRedis, WAIT, api, distributed_with, to_terminal, worker_settings};

/// Statements of background work, not of turns: each worker's timer pass and
/// approval-expiry pass (once a second), the scheduled tasks' bookkeeping, the metrics
/// rollups, the api's revocation poll, the reaper's scan, and each process's budget
/// catalogue (re-read every few seconds).
const BACKGROUND: [&str; 9] = [
    r#"SELECT "timers"."#,
    r#"SELECT "tool_calls"."prompt_id", "tool_calls"."id", "tool_calls"."approval_expires_at""#,
    r#"UPDATE "scheduled_tasks""#,
    "WITH claimed AS (",
    r#"SELECT "api_tokens"."id", "api_tokens"."user_id""#,
    r#"SELECT "users"."id", "users"."email""#,
    r#"SELECT "prompts"."id" FROM "prompts" INNER JOIN "sessions""#,
    r#"SELECT "budgets"."#,
    r#"UPDATE "sessions" SET "state""#,
];

/// The statements run between two readings of [`statement_calls`].
pub(super) struct Ran(Vec<(i64, String)>);

impl Ran {
    pub(super) fn between(before: &HashMap<String, i64>, after: &HashMap<String, i64>) -> Self {
        let mut ran: Vec<(i64, String)> = after
            .iter()
            .map(|(query, calls)| {
                (
                    calls - before.get(query).copied().unwrap_or(0),
                    query.clone(),
                )
            })
            .filter(|(calls, _)| *calls > 0)
            .collect();
        ran.sort();
        Self(ran)
    }

    pub(super) fn listing(&self) -> String {
        self.0
            .iter()
            .map(|(calls, query)| format!("{calls:>4} {}", &query[..query.len().min(110)]))
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub(super) fn calls_of(&self, prefix: &str) -> i64 {
        self.0
            .iter()
            .filter(|(_, q)| q.starts_with(prefix))
            .map(|(c, _)| c)
            .sum()
    }

    /// Statements that touch data, background work left out.
    pub(super) fn turn_statements(&self) -> i64 {
        let all: i64 = self.0.iter().map(|(c, _)| c).sum();
        let control = ["BEGIN", "COMMIT", "ROLLBACK"]
            .iter()
            .map(|p| self.calls_of(p))
            .sum::<i64>();
        let background = BACKGROUND.iter().map(|p| self.calls_of(p)).sum::<i64>();
        all - control - background
    }
}

/// Turns `pg_stat_statements` (which `scripts/test.sh` loads) on in the cluster's database.
pub(super) async fn count_statements(cluster: &Cluster) {
    sea_orm::ConnectionTrait::execute_unprepared(
        &cluster.db().await,
        "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
    )
    .await
    .expect("pg_stat_statements (scripts/test.sh loads it)");
}

/// Statements run in the cluster's database so far: `(calls, query)` per normalized
/// statement, as `pg_stat_statements` (loaded by `scripts/test.sh`) counts them.
pub(super) async fn statement_calls(cluster: &Cluster) -> HashMap<String, i64> {
    cluster
        .query_strings(
            "SELECT calls::text || ' ' || query FROM pg_stat_statements \
             WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
             AND query NOT LIKE '%pg_stat_statements%'",
        )
        .await
        .into_iter()
        .map(|line| {
            let (calls, query) = line.split_once(' ').expect("calls and query");
            (query.to_owned(), calls.parse().expect("a count"))
        })
        .collect()
}

// What a plain turn costs PostgreSQL, counted by the server (issue #9: at most 10
// statements and 2 transactions): the create is one statement and the finish one
// statement in one transaction, both `WITH … AS (UPDATE …)`; with the claim that is 3
// statements and 1 `BEGIN`/`COMMIT`. The token is looked up once, then served from the
// api's cache (`auth.token_cache_s`). A finish or a create that fell back to its
// step-by-step path, or a token read on every request, would show here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_turn_on_a_warm_worker_costs_three_statements_and_one_transaction() {
    const TURNS: i64 = 10;
    run_test(Backend::Postgres, |_| async {
        // A turn that outlasts the checkpoint interval (100 ms by default; a loaded
        // machine and a debug build get there) checkpoints, and its finish is not plain.
        let worker = format!("{}\ncheckpoint_ms = 600000", worker_settings(LEASE));
        let mut d = distributed_with(&worker).await;
        // One worker runs every turn, so it holds the conversation's history from the
        // turn before (with two, a turn the other one ran makes it read again).
        let second = d.cluster.worker_pids()[1];
        d.cluster.kill_worker(second).await;
        count_statements(&d.cluster).await;
        let turn = |n: i64| {
            let d = &d;
            async move {
                let mut feed = d
                    .cluster
                    .stream_message(&d.token, &d.session_id.to_string(), &format!("turn {n}"))
                    .await;
                let events = to_terminal(&mut feed, WAIT, "a plain turn").await;
                assert_one_text_block_completed(&events);
            }
        };
        // The first turn reads what later turns find cached (the model catalog, the
        // session's history).
        turn(0).await;
        let before = statement_calls(&d.cluster).await;
        let started = Instant::now();
        for n in 1..=TURNS {
            turn(n).await;
        }
        // The cache keeps a token 5 s: a slow machine may read it again after that.
        let lookups = 1 + started.elapsed().as_secs() as i64 / 5;
        let after = statement_calls(&d.cluster).await;
        let ran = Ran::between(&before, &after);
        let (listing, calls_of) = (ran.listing(), |prefix: &str| ran.calls_of(prefix));
        let control = calls_of("BEGIN") + calls_of("COMMIT") + calls_of("ROLLBACK");
        let statements = ran.turn_statements();
        assert!(
            calls_of("WITH s AS (") >= TURNS,
            "every create is one statement:\n{listing}"
        );
        assert!(
            calls_of(r#"WITH "p" AS (UPDATE "prompts""#) >= TURNS,
            "every finish is one statement:\n{listing}"
        );
        assert_eq!(calls_of("ROLLBACK"), 0, "nothing rolled back:\n{listing}");
        assert_eq!(
            calls_of(r#"SELECT "messages"."id""#),
            0,
            "the history comes from the worker's cache:\n{listing}"
        );
        assert!(
            calls_of(r#"SELECT "api_tokens"."id""#) <= lookups,
            "the token comes from the api's cache:\n{listing}"
        );
        // Background work not named in `BACKGROUND` may add a statement or two.
        let _ = control;
        assert!(
            statements <= 3 * TURNS + 2 + lookups,
            "{statements} statements for {TURNS} turns:\n{listing}"
        );
        assert!(
            calls_of("BEGIN") <= TURNS + 1,
            "{} transactions for {TURNS} turns:\n{listing}",
            calls_of("BEGIN")
        );
    })
    .await;
}

// What a turn with one function call costs PostgreSQL (#16: at most 10 statements): the
// token, the create, the claim (which also returns the owner's permissions the turn's
// functions run with), the checkpoint before the call (which also renews the lease and
// marks the prompt `waiting_for_tools`), the call's row opened and closed, the calls
// attached to the answer, and the finish — 8. The state's
// way back to `in_progress` rides on the next checkpoint or the finish: no
// `UPDATE "prompts" SET "state"` of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_with_a_function_call_costs_at_most_ten_statements() {
    const TURNS: i64 = 5;
    run_test(Backend::Postgres, |_| async {
        let mut d = distributed_with(&worker_settings(LEASE)).await;
        // One worker runs every turn, so it holds the conversation's history.
        let second = d.cluster.worker_pids()[1];
        d.cluster.kill_worker(second).await;
        let admin = d.cluster.admin_client();
        let student = api::student_with_tool(&d.cluster, "clock@example.com").await;
        let definition = ToolDefinition {
            functions: Some(vec!["getCurrentTime".to_owned()]),
            ..api::definition("Tell the time.")
        };
        let tool = api::tool_with(&admin, student.group.id, "Keeper", definition).await;
        let session = api::session(&d.cluster.client_as(&student.token), tool.id).await;
        let (token, session_id) = (&student.token, session.id.to_string());
        count_statements(&d.cluster).await;
        let turn = |n: i64| {
            let (d, session_id) = (&d, &session_id);
            async move {
                // The benchmark's function turn (`scripts/bench-counts.sh`): a function that
                // writes nothing of its own.
                let content = format!("[[mock tool_call=getCurrentTime]] what time is it ({n})");
                let mut feed = d.cluster.stream_message(token, session_id, &content).await;
                let events = to_terminal(&mut feed, WAIT, "a function turn").await;
                let states: Vec<_> = events
                    .iter()
                    .filter(|e| e.event == "prompt_state")
                    .map(|e| e.data["state"].as_str().unwrap_or_default().to_owned())
                    .collect();
                assert_eq!(
                    states,
                    [
                        "in_progress",
                        "waiting_for_tools",
                        "in_progress",
                        "completed"
                    ]
                );
                let completed: Vec<_> = events
                    .iter()
                    .filter(|e| e.event == "tool_complete")
                    .collect();
                assert_eq!(completed.len(), 1);
                assert_eq!(
                    completed[0].data["state"], "success",
                    "{:?}",
                    completed[0].data
                );
            }
        };
        turn(0).await;
        let before = statement_calls(&d.cluster).await;
        for n in 1..=TURNS {
            turn(n).await;
        }
        let after = statement_calls(&d.cluster).await;
        let ran = Ran::between(&before, &after);
        let listing = ran.listing();
        // The owner's permissions are read like the background's user reads.
        let statements =
            ran.turn_statements() + ran.calls_of(r#"SELECT "users"."id", "users"."email""#);
        assert!(
            statements <= 10 * TURNS,
            "{statements} statements for {TURNS} function turns:\n{listing}"
        );
        assert_eq!(
            ran.calls_of(r#"SELECT "users"."id", "users"."email", "users"."name", "users"."role", "users"."permissions", "users"."created_at", "users"."updated_at", "users"."disabled_at" FROM "users" WHERE "users"."id" = $1"#),
            0,
            "the claim read the owner's permissions:\n{listing}"
        );
        assert_eq!(
            ran.calls_of(r#"UPDATE "prompts" SET "state" = $1 WHERE"#),
            0,
            "the running state rides on the checkpoints:\n{listing}"
        );
        assert!(
            ran.calls_of("BEGIN") <= 2 * TURNS,
            "{} transactions for {TURNS} turns:\n{listing}",
            ran.calls_of("BEGIN")
        );
        eprintln!("{statements} statements for {TURNS} function turns:\n{listing}");
    })
    .await;
}

/// Calls per command of a Redis server (`INFO commandstats`, commands run by scripts
/// included; `info` itself left out), in plain RESP.
async fn redis_commands(url: &str) -> BTreeMap<String, i64> {
    let address = url
        .trim_start_matches("redis://")
        .trim_end_matches('/')
        .to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address)
        .await
        .expect("the test's Redis");
    stream
        .write_all(b"*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n")
        .await
        .expect("INFO");
    let mut reply = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        let n = stream.read(&mut buffer).await.expect("INFO's reply");
        reply.extend_from_slice(&buffer[..n]);
        // `$<len>\r\n<body>\r\n`: done once the body is in.
        let text = String::from_utf8_lossy(&reply);
        if let Some((head, body)) = text.split_once("\r\n")
            && let Ok(len) = head.trim_start_matches('$').parse::<usize>()
            && body.len() >= len
        {
            break;
        }
        assert!(n > 0, "Redis closed the connection");
    }
    String::from_utf8_lossy(&reply)
        .lines()
        .filter_map(|line| {
            let (name, fields) = line.trim().strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = fields.split(',').find_map(|f| f.strip_prefix("calls="))?;
            let calls: i64 = calls.parse().ok()?;
            (name != "info").then(|| (name.to_owned(), calls))
        })
        .collect()
}

fn commands_between(
    before: &BTreeMap<String, i64>,
    after: &BTreeMap<String, i64>,
) -> BTreeMap<String, i64> {
    after
        .iter()
        .map(|(name, calls)| (name.clone(), calls - before.get(name).copied().unwrap_or(0)))
        .filter(|(_, calls)| *calls > 0)
        .collect()
}

// What a turn costs at a real model's pace (#16): 200 tokens 20 ms apart, four seconds
// of streaming, with the default settings (a 4 s lease). A block's deltas are merged by
// time (one event per 100 ms window), the partial answer is checkpointed by time (every
// 1.5 s, one statement each, the first with the user message) and each checkpoint
// renews the lease, so the watcher never renews it on its own although the turn
// outlasts it; the end is one statement in one transaction even after a checkpoint, and
// the events of a batch are one Redis entry: so a turn costs what one at once costs
// plus a statement per 1.5 s, and one event and two Redis commands (`XADD` +
// `PUBLISH`) per window — not per token. Before #16 a one-second
// turn of 50 tokens cost 22.5 statements in 4 transactions, 86 Redis commands and 38 events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_at_a_real_models_pace_writes_by_time_not_by_token() {
    const TURNS: i64 = 3;
    const TOKENS: usize = 200;
    const PACE_MS: u64 = 20;
    run_test(Backend::Postgres, |_| async {
        // Redis's counters are per server: this one is the test's alone.
        let redis = OwnRedis::start();
        redis.ready().await;
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config_with(
            &mock.base_url(),
            "first_token_timeout_ms = 60000",
            &worker_settings(Duration::from_secs(4)),
        );
        let mut cluster =
            Cluster::spawn_on_redis(&redis.url(), &[("PARLEY_CONFIG", &config_path(&config))])
                .await;
        let second = cluster.worker_pids()[1];
        cluster.kill_worker(second).await;
        let student = api::student_with_tool(&cluster, "pace@example.com").await;
        let session = api::session(&cluster.client_as(&student.token), student.tool.id).await;
        count_statements(&cluster).await;
        let (cluster, token, session_id) = (&cluster, &student.token, session.id.to_string());
        let turn = |n: i64| {
            let session_id = &session_id;
            async move {
                let content = format!("[[mock tokens={TOKENS} token_delay_ms={PACE_MS}]] turn {n}");
                let started = Instant::now();
                let mut feed = cluster.stream_message(token, session_id, &content).await;
                let events = to_terminal(&mut feed, WAIT, "a paced turn").await;
                assert_one_text_block_completed(&events);
                assert_eq!(text_of(&events), parley_tests::turns::mock_tokens(TOKENS));
                (events, started.elapsed())
            }
        };
        turn(0).await;
        // The background's Redis commands (heartbeats, the queue's idle waits), counted
        // over an idle second, come off the turns' count at the same rate.
        let idle_from = redis_commands(&redis.url()).await;
        let idle_started = Instant::now();
        tokio::time::sleep(Duration::from_secs(2)).await;
        let idle = commands_between(&idle_from, &redis_commands(&redis.url()).await);
        let idle_for = idle_started.elapsed();

        let before = statement_calls(cluster).await;
        let redis_before = redis_commands(&redis.url()).await;
        let started = Instant::now();
        let mut events = 0usize;
        let mut deltas = 0usize;
        let mut streaming = Duration::ZERO;
        // A turn slowed past the checkpoint interval (a loaded machine, a debug build)
        // may write one checkpoint per 1.5 s it took.
        let mut checkpoints = 0;
        for n in 1..=TURNS {
            let (feed, took) = turn(n).await;
            events += feed.len();
            deltas += feed.iter().filter(|e| e.event == "text_delta").count();
            streaming += took;
            checkpoints += (took.as_millis() / 1500) as i64;
        }
        let elapsed = started.elapsed();
        let after = statement_calls(cluster).await;
        let commands = commands_between(&redis_before, &redis_commands(&redis.url()).await);
        let ran = Ran::between(&before, &after);
        let listing = ran.listing();
        drop(mock);

        // Windows of 100 ms in a turn's streaming, one more for the first delta, and one
        // for the window the first delta fell in (the worker's windows are shared by its
        // turns, so the first one after a turn's first delta is cut short).
        let windows = (streaming.as_millis() as usize / TURNS as usize).div_ceil(100) + 2;
        let per_turn = |total: usize| total as f64 / TURNS as f64;
        let scale = elapsed.as_secs_f64() / idle_for.as_secs_f64();
        let background: f64 = idle.values().sum::<i64>() as f64 * scale;
        let redis_total = commands.values().sum::<i64>() as f64 - background;
        let of = |name: &str| commands.get(name).copied().unwrap_or(0) as f64 / TURNS as f64;
        eprintln!(
            "per turn at {PACE_MS} ms/token, {TOKENS} tokens ({windows} windows): {:.1} statements, \
             {} BEGIN, {:.1} Redis commands ({:.1} background left out: {idle:?}), {:.1} SSE events \
             ({:.1} text_delta); Redis: {commands:?}\n{listing}",
            ran.turn_statements() as f64 / TURNS as f64,
            ran.calls_of("BEGIN"),
            redis_total / TURNS as f64,
            background / TURNS as f64,
            per_turn(events),
            per_turn(deltas),
        );
        assert!(
            per_turn(deltas) <= windows as f64,
            "{} text_delta events a turn for {windows} windows: deltas are merged by time",
            per_turn(deltas)
        );
        assert!(
            per_turn(events) <= (6 + windows) as f64,
            "{} events a turn: at most 6 besides one per window",
            per_turn(events)
        );
        // The turn's own statements: the token, the create, the claim, the finish (one
        // statement in one transaction whatever the pace), and a checkpoint (one
        // statement) per 1.5 s. Work beside the turns (a session read again, a pass of
        // the scheduler not named in BACKGROUND) may add one a turn, no more: a write per
        // event or per window would add twenty.
        assert!(
            ran.turn_statements() <= 5 * TURNS + checkpoints,
            "{} statements for {TURNS} turns:\n{listing}",
            ran.turn_statements()
        );
        // One transaction a turn (the finish), and never two (the issue's bound).
        assert!(
            ran.calls_of("BEGIN") <= 2 * TURNS,
            "{} transactions for {TURNS} turns:\n{listing}",
            ran.calls_of("BEGIN")
        );
        assert_eq!(ran.calls_of("ROLLBACK"), 0, "nothing rolled back:\n{listing}");
        // The checkpoints renewed the lease: the watcher had no renewal of its own to make
        // (one would have been due two seconds into each turn).
        assert_eq!(
            ran.calls_of(r#"UPDATE "prompts" SET "lease_expires_at""#),
            0,
            "the lease is renewed by the checkpoints:\n{listing}"
        );
        // Every turn checkpointed (its user message with its blocks, one statement), and
        // its finish stayed one statement after that.
        assert!(
            ran.calls_of(r#"WITH "s" AS (UPDATE "sessions""#) >= TURNS,
            "every first checkpoint is one statement:\n{listing}"
        );
        assert!(
            ran.calls_of(r#"WITH "p" AS (UPDATE "prompts""#) >= TURNS,
            "every finish is one statement:\n{listing}"
        );
        // One entry (`XADD`) and one notification (`PUBLISH`) per batch of events; the
        // user feed adds two entries a turn. The margins (two of each, eight in all) take
        // a batch split by a loaded machine and the background's drift from its idle
        // rate; a write per token would add a hundred.
        assert!(
            of("xadd") <= (windows + 8) as f64 && of("publish") <= (windows + 6) as f64,
            "{} XADD and {} PUBLISH a turn for {windows} windows: {commands:?}",
            of("xadd"),
            of("publish")
        );
        assert!(
            redis_total / TURNS as f64 <= (2 * windows + 30) as f64,
            "{:.1} Redis commands a turn: {commands:?}",
            redis_total / TURNS as f64
        );
    })
    .await;
}
