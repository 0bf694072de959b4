//! The admin dashboard's figures (DESIGN §7, issue #8 part 7): `GET /v1/admin/usage`,
//! `/v1/admin/blocks`, `/v1/admin/prompts/stats` and `/v1/admin/sessions/{id}/audit`.
//!
//! Usage and prompt statistics are checked against real turns run on the mock LLM:
//! the mock's request log says which calls were made and their token counts, and the
//! models are priced in the test's config, so calls, tokens and cost are predicted
//! independently of the server.
//!
//! SEEDED ROWS: the module hooks that write `module_events`, `message_audit` and
//! `extractions` are not built yet, so [`block_metrics_count_seeded_module_events`] and
//! [`session_audit_lists_seeded_rows`] write those rows straight into the app's database
//! (encoded by sea-query, as the server's own writes are) and check the routes' numbers
//! against what they wrote. Once modules block real turns, switch them to blocked turns.

use std::io::Write;
use std::time::Duration;

use chrono::{DateTime, Utc};
use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::{
    BlockGroup, BlocksGroupBy, PromptState, PromptStats, UsageGroup, UsageGroupBy,
};
use parley_tests::turns::config_path;
use parley_tests::{ApiResult, Backend, TestApp, all_pages, both_backends, typed};
use sea_orm::sea_query::{Alias, Query, SimpleExpr};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, Value};
use serde_json::json;
use tempfile::NamedTempFile;
use uuid::Uuid;

use crate::fixtures::api;

/// The priced models of the tests' config: (id, US$ per million input, output tokens).
const PRICED: [(&str, f64, f64); 2] = [("mock-model", 2.0, 10.0), ("mock-cheap", 0.5, 1.5)];

/// A config whose provider is the mock serving both [`PRICED`] models, with prices.
fn priced_config(base_url: &str) -> NamedTempFile {
    let mut config = NamedTempFile::new().expect("a temp file");
    let mut text = format!(
        "[[providers]]\nname = \"mock\"\nbase_url = \"{base_url}\"\n\n\
         [worker]\nstall_timeout_ms = 10000\nmax_attempts = 1\n\n"
    );
    for (id, input, output) in PRICED {
        text.push_str(&format!(
            "[[models]]\nid = \"{id}\"\nprovider = \"mock\"\n\
             input_usd_per_mtok = {input}\noutput_usd_per_mtok = {output}\n\n"
        ));
    }
    config
        .write_all(text.as_bytes())
        .expect("writing the config");
    config
}

/// A server on the mock LLM with priced models.
struct Priced {
    app: TestApp,
    mock: MockLlm,
    _config: NamedTempFile,
}

async fn priced(backend: Backend) -> Priced {
    let mock = MockLlm::start(MockConfig {
        models: PRICED.iter().map(|(id, ..)| (*id).to_owned()).collect(),
        first_token_delay: Duration::from_millis(30),
        ..MockConfig::default()
    })
    .await;
    let config = priced_config(&mock.base_url());
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
    Priced {
        app,
        mock,
        _config: config,
    }
}

/// What the mock saw of some calls: how many, and their tokens.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Expected {
    calls: u64,
    input_tokens: i64,
    output_tokens: i64,
    cost_usd: f64,
}

impl Expected {
    fn add(&mut self, other: Expected) {
        self.calls += other.calls;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cost_usd += other.cost_usd;
    }

    #[track_caller]
    fn assert_matches(&self, group: &UsageGroup) {
        assert_eq!(group.calls, self.calls, "{group:?}");
        assert_eq!(group.input_tokens, self.input_tokens, "{group:?}");
        assert_eq!(group.output_tokens, self.output_tokens, "{group:?}");
        assert!(
            (group.cost_usd - self.cost_usd).abs() < 1e-9,
            "cost {} ≠ expected {}: {group:?}",
            group.cost_usd,
            self.cost_usd
        );
        assert!(self.cost_usd > 0.0, "priced calls cost something");
    }
}

impl Priced {
    /// Runs one turn in JSON mode (asserted 201) and returns what the mock saw of it.
    async fn turn(
        &self,
        client: &Client,
        session_id: Uuid,
        content: &str,
        model: &str,
    ) -> Expected {
        let before = self.mock.requests().len();
        client
            .send_message()
            .id(session_id)
            .body_map(|b| b.content(content).model(Some(model.to_owned())))
            .send()
            .await
            .assert_status(201);
        let (_, input_price, output_price) = PRICED
            .iter()
            .find(|(id, ..)| *id == model)
            .expect("a priced model");
        let mut seen = Expected::default();
        for request in &self.mock.requests()[before..] {
            assert_eq!(request.model, model);
            let input = request.prompt_tokens as i64;
            let output = request.tokens_sent as i64;
            seen.add(Expected {
                calls: 1,
                input_tokens: input,
                output_tokens: output,
                cost_usd: (input as f64 * input_price + output as f64 * output_price) / 1e6,
            });
        }
        assert_eq!(seen.calls, 1, "a plain turn is one LLM call");
        seen
    }
}

/// `GET /v1/admin/usage` grouped by `group_by` in `[from, to)`, every page `limit` groups.
async fn usage(
    admin: &Client,
    group_by: UsageGroupBy,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    limit: u32,
) -> Vec<UsageGroup> {
    all_pages(limit as usize, |cursor| async move {
        let mut request = admin
            .admin_usage()
            .group_by(group_by)
            .from(from)
            .to(to)
            .limit(limit);
        if let Some(cursor) = cursor {
            request = request.cursor(cursor);
        }
        let page = request.send().await.assert_status(200).into_inner();
        (page.items, page.next_cursor)
    })
    .await
}

#[track_caller]
fn group<'a>(groups: &'a [UsageGroup], key: &str) -> &'a UsageGroup {
    groups
        .iter()
        .find(|g| g.key == key)
        .unwrap_or_else(|| panic!("no group {key}: {groups:?}"))
}

both_backends!(
    usage_is_counted_per_model_user_tool_and_day,
    |backend: Backend| async move {
        let p = priced(backend).await;
        let admin = p.app.admin_client();
        let alice = api::student_with_tool(&p.app, "alice@example.com").await;
        let bob = api::student_with_tool(&p.app, "bob@example.com").await;
        let (alice_client, bob_client) =
            (p.app.client_as(&alice.token), p.app.client_as(&bob.token));
        let alice_session = api::session(&alice_client, alice.tool.id).await.id;
        let bob_session = api::session(&bob_client, bob.tool.id).await.id;
        let start = Utc::now() - chrono::Duration::seconds(1);

        let a1 = p
            .turn(
                &alice_client,
                alice_session,
                "one [[mock tokens=7]]",
                "mock-model",
            )
            .await;
        let a2 = p
            .turn(
                &alice_client,
                alice_session,
                "two [[mock tokens=3]]",
                "mock-cheap",
            )
            .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        let middle = Utc::now();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let b1 = p
            .turn(
                &bob_client,
                bob_session,
                "three [[mock tokens=11]]",
                "mock-model",
            )
            .await;
        let end = Utc::now() + chrono::Duration::seconds(1);

        let sum = |parts: &[Expected]| {
            let mut total = Expected::default();
            parts.iter().for_each(|e| total.add(*e));
            total
        };
        // By model, one group a page.
        let by_model = usage(&admin, UsageGroupBy::Model, start, end, 1).await;
        assert_eq!(by_model.len(), 2, "{by_model:?}");
        sum(&[a1, b1]).assert_matches(group(&by_model, "mock-model"));
        a2.assert_matches(group(&by_model, "mock-cheap"));
        // By user and by tool (each student has a tool of their own).
        let by_user = usage(&admin, UsageGroupBy::User, start, end, 20).await;
        assert_eq!(by_user.len(), 2, "{by_user:?}");
        sum(&[a1, a2]).assert_matches(group(&by_user, &alice.user_id.to_string()));
        b1.assert_matches(group(&by_user, &bob.user_id.to_string()));
        let by_tool = usage(&admin, UsageGroupBy::Tool, start, end, 20).await;
        sum(&[a1, a2]).assert_matches(group(&by_tool, &alice.tool.id.to_string()));
        b1.assert_matches(group(&by_tool, &bob.tool.id.to_string()));
        // By day: every call fell on today's UTC date (or yesterday's, around midnight).
        let by_day = usage(&admin, UsageGroupBy::Day, start, end, 20).await;
        let days: Vec<String> = [start, end]
            .iter()
            .map(|t| t.format("%Y-%m-%d").to_string())
            .collect();
        assert!(by_day.iter().all(|g| days.contains(&g.key)), "{by_day:?}");
        let calls: u64 = by_day.iter().map(|g| g.calls).sum();
        assert_eq!(calls, 3);
        // Latency: the mock waits 30 ms before the first token.
        let total = group(&by_model, "mock-model");
        let (ttft50, ttft95) = (total.ttft_p50_ms.unwrap(), total.ttft_p95_ms.unwrap());
        let (lat50, lat95) = (total.latency_p50_ms.unwrap(), total.latency_p95_ms.unwrap());
        assert!(
            ttft50 >= 30 && ttft50 <= ttft95 && ttft50 <= lat50 && lat50 <= lat95,
            "{total:?}"
        );

        // The window: only Bob's call after `middle`; none before `start`.
        let later = usage(&admin, UsageGroupBy::User, middle, end, 20).await;
        assert_eq!(later.len(), 1, "{later:?}");
        b1.assert_matches(&later[0]);
        let before = usage(
            &admin,
            UsageGroupBy::Day,
            start - chrono::Duration::days(3),
            start,
            20,
        )
        .await;
        assert!(before.is_empty(), "{before:?}");
        // Filters: a model, a user, a tool; the default window (the last 30 days).
        let cheap = admin
            .admin_usage()
            .group_by(UsageGroupBy::User)
            .model("mock-cheap")
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(cheap.items.len(), 1, "{cheap:?}");
        a2.assert_matches(&cheap.items[0]);
        let bobs = admin
            .admin_usage()
            .group_by(UsageGroupBy::Model)
            .user_id(bob.user_id)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(bobs.items.len(), 1, "{bobs:?}");
        b1.assert_matches(&bobs.items[0]);
        let alices_tool = admin
            .admin_usage()
            .group_by(UsageGroupBy::Model)
            .tool_id(alice.tool.id)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(alices_tool.items.len(), 2, "{alices_tool:?}");
        let unknown = admin
            .admin_usage()
            .model("no-such-model")
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert!(
            unknown.items.is_empty() && unknown.next_cursor.is_none(),
            "{unknown:?}"
        );

        // A window that ends before it starts, and parameters that do not parse: 400.
        let code = admin
            .admin_usage()
            .from(end)
            .to(start)
            .send()
            .await
            .assert_problem(400);
        assert_eq!(code, "invalid_parameter");
        let code = admin
            .admin_usage()
            .from(start)
            .to(start)
            .send()
            .await
            .assert_problem(400);
        assert_eq!(code, "invalid_parameter");
        for query in [
            "from=yesterday",
            "to=2026-13-01T00:00:00Z",
            "group_by=week",
            "limit=0",
            "cursor=nope",
        ] {
            let bad = p
                .app
                .get(&format!("/v1/admin/usage?{query}"), p.app.admin())
                .await;
            let code = bad.assert_problem(400);
            assert!(
                code == "invalid_parameter" || code == "invalid_cursor",
                "{query}: {code}"
            );
        }
    }
);

both_backends!(
    prompt_stats_count_every_state_and_list_stuck_prompts,
    |backend: Backend| async move {
        let p = priced(backend).await;
        let admin = p.app.admin_client();
        let student = api::student_with_tool(&p.app, "stats@example.com").await;
        let client = p.app.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await.id;
        let stats = || async {
            admin
                .admin_prompt_stats()
                .send()
                .await
                .assert_status(200)
                .into_inner()
        };
        let empty = stats().await;
        assert_eq!(count(&empty, PromptState::Completed), 0);
        assert_eq!(
            empty.by_state.len(),
            7,
            "every state, zeros included: {empty:?}"
        );

        p.turn(&client, session, "fine [[mock tokens=2]]", "mock-model")
            .await;
        p.turn(&client, session, "fine again", "mock-cheap").await;
        // The provider fails before any output, and max_attempts = 1: `failed`.
        let failed = typed::send_message(&client, session, "[[mock status=500]]").await;
        assert_eq!(failed.assert_problem(502), "upstream_error");
        // A turn whose first token takes long is stuck after a second.
        let slow =
            typed::send_in_background(&client, session, "slow [[mock first_token_delay_ms=8000]]")
                .await;
        typed::wait_for_prompt_state(
            &client,
            slow.prompt_id,
            PromptState::InProgress,
            Duration::from_secs(10),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let during = admin
            .admin_prompt_stats()
            .stuck_after_s(1)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(count(&during, PromptState::InProgress), 1, "{during:?}");
        assert_eq!(during.stuck_after_s, 1);
        assert_eq!(during.stuck_count, 1, "{during:?}");
        let stuck = &during.stuck[0];
        assert_eq!(
            (stuck.id, stuck.session_id, stuck.state),
            (slow.prompt_id, session, PromptState::InProgress)
        );
        assert!(stuck.age_s >= 1, "{stuck:?}");
        let relaxed = stats().await;
        assert_eq!(
            (relaxed.stuck_after_s, relaxed.stuck_count),
            (120, 0),
            "{relaxed:?}"
        );
        assert!(relaxed.stuck.is_empty());
        // Cancelled: the slow one.
        client
            .cancel_prompt()
            .id(slow.prompt_id)
            .send()
            .await
            .assert_status(202);
        typed::wait_for_prompt_state(
            &client,
            slow.prompt_id,
            PromptState::Canceled,
            Duration::from_secs(10),
        )
        .await;

        let after = stats().await;
        let expected = [
            (PromptState::Created, 0),
            (PromptState::InProgress, 0),
            (PromptState::WaitingForTools, 0),
            (PromptState::Completed, 2),
            (PromptState::Error, 0),
            (PromptState::Failed, 1),
            (PromptState::Canceled, 1),
        ];
        for (state, n) in expected {
            assert_eq!(count(&after, state), n, "{state}: {after:?}");
        }
        assert_eq!(after.stuck_count, 0, "{after:?}");
        // The threshold's bounds are documented and enforced.
        for bad in ["0", "2592001", "-1", "soon"] {
            let response = p
                .app
                .get(
                    &format!("/v1/admin/prompts/stats?stuck_after_s={bad}"),
                    p.app.admin(),
                )
                .await;
            assert_eq!(response.assert_problem(400), "invalid_parameter", "{bad}");
        }
    }
);

/// The count of `state` (which must be listed once).
#[track_caller]
fn count(stats: &PromptStats, state: PromptState) -> u64 {
    let found: Vec<u64> = stats
        .by_state
        .iter()
        .filter(|c| c.state == state)
        .map(|c| c.count)
        .collect();
    assert_eq!(found.len(), 1, "{state} listed once: {stats:?}");
    found[0]
}

/// A connection that may write to the app's database (`TestApp::db` is read-only on
/// SQLite).
async fn writable_db(app: &TestApp) -> DatabaseConnection {
    let url = match app.database_url() {
        Some(url) => url.to_owned(),
        None => format!(
            "sqlite://{}?mode=rw",
            app.data_dir().join("parley.db").display()
        ),
    };
    Database::connect(url)
        .await
        .expect("connecting to the app's database")
}

/// Inserts one row with a fresh id into `table`; returns the id.
async fn insert(db: &DatabaseConnection, table: &str, columns: Vec<(&str, Value)>) -> Uuid {
    let id = Uuid::now_v7();
    let mut names = vec![Alias::new("id")];
    let mut values: Vec<SimpleExpr> = vec![id.into()];
    for (name, value) in columns {
        names.push(Alias::new(name));
        values.push(value.into());
    }
    let statement = Query::insert()
        .into_table(Alias::new(table))
        .columns(names)
        .values_panic(values)
        .to_owned();
    db.execute(&statement)
        .await
        .unwrap_or_else(|err| panic!("inserting into {table}: {err}"));
    id
}

fn at(rfc3339: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(rfc3339)
        .expect("a time")
        .with_timezone(&Utc)
}

/// Seeds one `module_events` row (SEEDED: see the module's doc).
async fn module_event(
    db: &DatabaseConnection,
    prompt_id: Uuid,
    (module, outcome, duration_ms, category): (&str, &str, i64, Option<&str>),
    created_at: DateTime<Utc>,
) -> Uuid {
    let columns = vec![
        ("prompt_id", prompt_id.into()),
        ("module", module.into()),
        ("hook", "chat:before_ai".into()),
        ("outcome", outcome.into()),
        ("duration_ms", duration_ms.into()),
        ("category", category.map(str::to_owned).into()),
        ("created_at", created_at.into()),
    ];
    insert(db, "module_events", columns).await
}

/// A student's finished turn on the demo model: (client, session id, prompt id).
async fn finished_turn(app: &TestApp, email: &str) -> (Client, Uuid, Uuid) {
    let student = api::student_with_tool(app, email).await;
    let client = app.client_as(&student.token);
    let session = api::session(&client, student.tool.id).await.id;
    let turn = typed::send_message(&client, session, "hello")
        .await
        .assert_status(201)
        .into_inner();
    (client, session, turn.prompt_id)
}

#[track_caller]
fn block_group<'a>(groups: &'a [BlockGroup], key: &str) -> &'a BlockGroup {
    groups
        .iter()
        .find(|g| g.key == key)
        .unwrap_or_else(|| panic!("no group {key}: {groups:?}"))
}

both_backends!(block_metrics_count_seeded_module_events, |app| async move {
    let (_, _, prompt_id) = finished_turn(&app, "blocks@example.com").await;
    let db = writable_db(&app).await;
    let (day1, day2) = (at("2026-01-10T12:00:00Z"), at("2026-01-11T09:00:00Z"));
    let seeded = [
        (("pii", "modify", 10, Some("email")), day1),
        (("pii", "continue", 20, None), day1),
        (("safety", "block", 30, Some("self_harm")), day1),
        (("safety", "block", 40, None), day2),
        (("safety", "timeout", 500, None), day2),
        (("safety", "error", 5, None), day2),
        (("safety", "continue", 15, None), day2),
    ];
    for (event, created_at) in seeded {
        module_event(&db, prompt_id, event, created_at).await;
    }
    let admin = app.admin_client();
    let (from, to) = (at("2026-01-10T00:00:00Z"), at("2026-01-12T00:00:00Z"));
    let report = admin
        .admin_blocks()
        .from(from)
        .to(to)
        .group_by(BlocksGroupBy::Module)
        .send()
        .await
        .assert_status(200)
        .into_inner();
    let keys: Vec<&str> = report.groups.iter().map(|g| g.key.as_str()).collect();
    assert_eq!(keys, ["pii", "safety"]);
    let pii = block_group(&report.groups, "pii");
    assert_eq!(
        (
            pii.runs,
            pii.blocks,
            pii.modifications,
            pii.errors,
            pii.timeouts
        ),
        (2, 0, 1, 0, 0)
    );
    assert_eq!(
        (pii.modify_rate, pii.block_rate, pii.p95_duration_ms),
        (0.5, 0.0, 20)
    );
    let safety = block_group(&report.groups, "safety");
    assert_eq!(
        (
            safety.runs,
            safety.blocks,
            safety.modifications,
            safety.errors,
            safety.timeouts
        ),
        (5, 2, 0, 1, 1)
    );
    assert_eq!(
        (safety.block_rate, safety.error_rate, safety.timeout_rate),
        (0.4, 0.2, 0.2)
    );
    assert_eq!(safety.p95_duration_ms, 500);
    let categories: Vec<(&str, u64, u64)> = report
        .by_category
        .iter()
        .map(|c| (c.category.as_str(), c.blocks, c.modifications))
        .collect();
    assert_eq!(
        categories,
        [
            ("email", 0, 1),
            ("self_harm", 1, 0),
            ("uncategorized", 1, 0)
        ]
    );
    let safety_categories: Vec<&str> = safety
        .by_category
        .iter()
        .map(|c| c.category.as_str())
        .collect();
    assert_eq!(safety_categories, ["self_harm", "uncategorized"]);

    let by_day = admin
        .admin_blocks()
        .from(from)
        .to(to)
        .group_by(BlocksGroupBy::Day)
        .send()
        .await
        .assert_status(200)
        .into_inner();
    let days: Vec<(&str, u64, u64, u64)> = by_day
        .groups
        .iter()
        .map(|g| (g.key.as_str(), g.runs, g.blocks, g.modifications))
        .collect();
    assert_eq!(days, [("2026-01-10", 3, 1, 1), ("2026-01-11", 4, 1, 0)]);
    // The window: from the second day; the default window (the last 30 days) has none.
    let second = admin
        .admin_blocks()
        .from(at("2026-01-11T00:00:00Z"))
        .to(to)
        .send()
        .await
        .assert_status(200)
        .into_inner();
    assert_eq!(second.groups.len(), 1, "{second:?}");
    assert_eq!(
        (second.groups[0].key.as_str(), second.groups[0].runs),
        ("safety", 4)
    );
    let recent = admin
        .admin_blocks()
        .send()
        .await
        .assert_status(200)
        .into_inner();
    assert!(
        recent.groups.is_empty() && recent.by_category.is_empty(),
        "{recent:?}"
    );
    assert_eq!(
        admin
            .admin_blocks()
            .from(to)
            .to(from)
            .send()
            .await
            .assert_problem(400),
        "invalid_parameter"
    );
    let bad = app.get("/v1/admin/blocks?group_by=tool", app.admin()).await;
    assert_eq!(bad.assert_problem(400), "invalid_parameter");
});

both_backends!(session_audit_lists_seeded_rows, |app| async move {
    let (client, session, prompt_id) = finished_turn(&app, "audited@example.com").await;
    let (_, other_session, other_prompt) = finished_turn(&app, "other@example.com").await;
    let user_message = typed::messages(&client, session)
        .await
        .into_iter()
        .find(|m| m.prompt_id == Some(prompt_id) && m.seq == 1)
        .expect("the user's message");
    let db = writable_db(&app).await;
    let now = Utc::now();
    let created_at = DateTime::from_timestamp_micros(now.timestamp_micros()).expect("a time");
    // SEEDED: what a PII redactor and a topic extractor would record.
    let audit_id = insert(
        &db,
        "message_audit",
        vec![
            ("message_id", user_message.id.into()),
            ("original_content", "my mail is [redacted:email]".into()),
            ("redaction_module", "pii".into()),
            ("redaction_reason", "email address".into()),
            ("patterns_matched", json!(["email"]).into()),
            ("created_at", created_at.into()),
        ],
    )
    .await;
    let extraction_id = insert(
        &db,
        "extractions",
        vec![
            ("session_id", session.into()),
            ("message_id", Some(user_message.id).into()),
            ("module", "topics".into()),
            ("type", "topic".into()),
            ("data", json!({"topic": "algebra"}).into()),
            ("created_at", created_at.into()),
        ],
    )
    .await;
    let event_id = module_event(
        &db,
        prompt_id,
        ("pii", "modify", 3, Some("email")),
        created_at,
    )
    .await;
    // Rows of another session must not show.
    module_event(&db, other_prompt, ("safety", "block", 4, None), created_at).await;
    insert(
        &db,
        "extractions",
        vec![
            ("session_id", other_session.into()),
            ("message_id", Option::<Uuid>::None.into()),
            ("module", "topics".into()),
            ("type", "topic".into()),
            ("data", json!({"topic": "history"}).into()),
            ("created_at", created_at.into()),
        ],
    )
    .await;

    let admin = app.admin_client();
    let audit = admin
        .admin_session_audit()
        .id(session)
        .send()
        .await
        .assert_status(200)
        .into_inner();
    assert_eq!(audit.session_id, session);
    assert_eq!(audit.audits.len(), 1, "{audit:?}");
    let row = &audit.audits[0];
    assert_eq!(
        (row.id, row.message_id, row.seq),
        (audit_id, user_message.id, user_message.seq)
    );
    assert_eq!(
        (
            row.original_content.as_str(),
            row.redaction_module.as_str(),
            row.redaction_reason.as_str()
        ),
        ("my mail is [redacted:email]", "pii", "email address")
    );
    assert_eq!(row.patterns_matched, json!(["email"]));
    assert_eq!(row.created_at, created_at);
    assert_eq!(audit.extractions.len(), 1, "{audit:?}");
    let x = &audit.extractions[0];
    assert_eq!(
        (x.id, x.message_id, x.module.as_str(), x.type_.as_str()),
        (extraction_id, Some(user_message.id), "topics", "topic")
    );
    assert_eq!(x.data, json!({"topic": "algebra"}));
    assert_eq!(audit.module_events.len(), 1, "{audit:?}");
    let e = &audit.module_events[0];
    assert_eq!(
        (
            e.id,
            e.prompt_id,
            e.module.as_str(),
            e.duration_ms,
            e.category.as_deref()
        ),
        (event_id, Some(prompt_id), "pii", 3, Some("email"))
    );
    assert_eq!(e.outcome.to_string(), "modify");

    // A session without records answers empty lists; an unknown one 404.
    let clean = finished_turn(&app, "clean@example.com").await.1;
    let empty = admin
        .admin_session_audit()
        .id(clean)
        .send()
        .await
        .assert_status(200)
        .into_inner();
    assert!(
        empty.audits.is_empty() && empty.extractions.is_empty() && empty.module_events.is_empty(),
        "{empty:?}"
    );
    let missing = admin.admin_session_audit().id(Uuid::now_v7()).send().await;
    assert_eq!(missing.assert_problem(404), "not_found");
});

both_backends!(metrics_routes_answer_403_to_non_admins, |app| async move {
    let (_, token) = app.create_user("nosy@example.com", "student").await;
    let (_, teacher) = app.create_user("teach@example.com", "teacher").await;
    for token in [token, teacher] {
        let client = app.client_as(&token);
        assert_eq!(
            client.admin_usage().send().await.assert_problem(403),
            "forbidden"
        );
        assert_eq!(
            client.admin_blocks().send().await.assert_problem(403),
            "forbidden"
        );
        assert_eq!(
            client.admin_prompt_stats().send().await.assert_problem(403),
            "forbidden"
        );
        let audit = client.admin_session_audit().id(Uuid::now_v7()).send().await;
        assert_eq!(audit.assert_problem(403), "forbidden");
        // 403 comes before any parameter is read.
        for path in [
            "/v1/admin/usage?from=garbage&group_by=week",
            "/v1/admin/blocks?to=never",
            "/v1/admin/prompts/stats?stuck_after_s=0",
        ] {
            assert_eq!(
                app.get(path, Some(&token)).await.assert_problem(403),
                "forbidden",
                "{path}"
            );
        }
    }
    for path in [
        "/v1/admin/usage",
        "/v1/admin/blocks",
        "/v1/admin/prompts/stats",
    ] {
        assert_eq!(
            app.get(path, None).await.assert_problem(401),
            "unauthenticated",
            "{path}"
        );
    }
});
