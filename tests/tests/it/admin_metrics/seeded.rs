//! `GET /v1/admin/blocks` and `GET /v1/admin/sessions/{id}/audit` on seeded rows spread
//! over days and categories (real blocked turns are checked in `modules`).

use chrono::{DateTime, Utc};
use parley_tests::client::Client;
use parley_tests::client::types::{BlockGroup, BlocksGroupBy, ModuleOutcome};
use parley_tests::{ApiResult, TestApp, both_backends, typed};
use sea_orm::sea_query::{Alias, Query, SimpleExpr};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, Value};
use serde_json::json;
use uuid::Uuid;

use crate::fixtures::api;

/// A connection that may write to the app's database (`TestApp::db` is read-only on
/// SQLite).
pub(super) async fn writable_db(app: &TestApp) -> DatabaseConnection {
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
    let (_, session_id, prompt_id) = finished_turn(&app, "blocks@example.com").await;
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
    // Drill-down: the blocks of `safety` without a category, then all of its blocks,
    // newest first, with their sessions.
    let events = |category: Option<&'static str>| {
        let admin = admin.clone();
        async move {
            let mut request = admin
                .admin_block_events()
                .from(from)
                .to(to)
                .module("safety")
                .outcome(ModuleOutcome::Block);
            if let Some(category) = category {
                request = request.category(category);
            }
            request.send().await.assert_status(200).into_inner().items
        }
    };
    let uncategorized = events(Some("uncategorized")).await;
    assert_eq!(uncategorized.len(), 1, "{uncategorized:?}");
    assert_eq!(uncategorized[0].duration_ms, 40);
    assert_eq!(uncategorized[0].session_id, Some(session_id));
    let all_blocks = events(None).await;
    let durations: Vec<i64> = all_blocks.iter().map(|e| e.duration_ms).collect();
    assert_eq!(durations, [40, 30], "newest first");
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
