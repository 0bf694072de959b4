//! The figures read through the rollups equal the rows written, before and after a
//! rollup pass, for windows whose edges fall inside a day, on both databases; and two
//! passes at once count each row once.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, DatabaseConnection, Set};
use uuid::Uuid;

use super::{
    Window,
    blocks::{BlockGrouping, blocks},
    calls::{EventFilter, calls, events},
    rollup::roll_up,
    usage::{UsageFilter, UsageGrouping, usage},
};
use crate::{
    ai_usage,
    enums::{ModuleOutcome, UserRole},
    module_events,
    query::{
        page::PageRequest,
        testing::{self, on_both_backends},
    },
};

fn at(rfc3339: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(rfc3339)
        .unwrap()
        .with_timezone(&Utc)
}

struct Ids {
    prompt: Uuid,
    session: Uuid,
    user: Uuid,
    tool: Uuid,
    group: Uuid,
}

async fn ids(db: &DatabaseConnection) -> Ids {
    let user = testing::user(db, UserRole::Student).await;
    let session = testing::session(db, user).await;
    let prompt = testing::prompt(db, session.id).await;
    let tool = crate::tools::Entity::find_by_id(session.tool_id)
        .one(db)
        .await
        .unwrap()
        .unwrap();
    Ids {
        prompt: prompt.id,
        session: session.id,
        user,
        tool: tool.id,
        group: tool.group_id,
    }
}

use sea_orm::EntityTrait;

/// One call: `tokens` in and out, `ms` long, at `when`.
async fn call(db: &DatabaseConnection, ids: &Ids, model: &str, when: &str, tokens: i64, ms: i64) {
    ai_usage::ActiveModel {
        id: Set(Uuid::now_v7()),
        prompt_id: Set(ids.prompt),
        message_id: Set(None),
        session_id: Set(ids.session),
        user_id: Set(ids.user),
        tool_id: Set(ids.tool),
        model: Set(model.to_owned()),
        vendor: Set("test".to_owned()),
        input_tokens: Set(tokens),
        output_tokens: Set(tokens * 2),
        cached_input_tokens: Set(tokens / 2),
        cache_write_tokens: Set(0),
        reasoning_tokens: Set(tokens),
        cost_usd: Set(tokens as f64 / 1000.0),
        latency_ms: Set(ms),
        ttft_ms: Set(Some(ms / 2)),
        error: Set(None),
        created_at: Set(at(when)),
    }
    .insert(db)
    .await
    .unwrap();
}

async fn event(
    db: &DatabaseConnection,
    ids: &Ids,
    module: &str,
    outcome: ModuleOutcome,
    category: Option<&str>,
    when: &str,
    ms: i64,
) {
    module_events::ActiveModel {
        id: Set(Uuid::now_v7()),
        prompt_id: Set(Some(ids.prompt)),
        module: Set(module.to_owned()),
        hook: Set("input".to_owned()),
        outcome: Set(outcome),
        duration_ms: Set(ms),
        created_at: Set(at(when)),
        category: Set(category.map(str::to_owned)),
    }
    .insert(db)
    .await
    .unwrap();
}

fn first_page<C>() -> PageRequest<C> {
    PageRequest {
        limit: 100,
        after: None,
    }
}

/// (key, calls, input tokens, cost) of every group.
async fn figures(
    db: &DatabaseConnection,
    filter: &UsageFilter,
    grouping: UsageGrouping,
) -> Vec<(String, u64, i64, i64)> {
    usage(db, filter, grouping, first_page())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|g| {
            (
                g.key,
                g.calls,
                g.input_tokens,
                (g.cost_usd * 1000.0).round() as i64,
            )
        })
        .collect()
}

on_both_backends!(usage_through_the_rollup_equals_the_rows, |db| {
    let ids = ids(&db).await;
    call(&db, &ids, "a", "2026-03-01T10:00:00Z", 10, 40).await;
    call(&db, &ids, "a", "2026-03-01T23:00:00Z", 20, 400).await;
    call(&db, &ids, "b", "2026-03-02T01:00:00Z", 30, 4000).await;
    call(&db, &ids, "a", "2026-03-03T12:00:00Z", 40, 90000).await;
    // Edges inside days: from 03-01 12:00 to 03-03 13:00.
    let window = Window {
        from: Some(at("2026-03-01T12:00:00Z")),
        to: Some(at("2026-03-03T13:00:00Z")),
    };
    let filter = UsageFilter {
        window,
        ..Default::default()
    };
    let by_day = vec![
        ("2026-03-01".to_owned(), 1, 20, 20),
        ("2026-03-02".to_owned(), 1, 30, 30),
        ("2026-03-03".to_owned(), 1, 40, 40),
    ];
    let by_model = vec![("a".to_owned(), 2, 60, 60), ("b".to_owned(), 1, 30, 30)];
    for pass in 0..3 {
        assert_eq!(
            figures(&db, &filter, UsageGrouping::Day).await,
            by_day,
            "pass {pass}"
        );
        assert_eq!(
            figures(&db, &filter, UsageGrouping::Model).await,
            by_model,
            "pass {pass}"
        );
        let by_group = figures(&db, &filter, UsageGrouping::Group).await;
        assert_eq!(by_group, [(ids.group.to_string(), 3, 90, 90)]);
        // The kinds add up through the rollup as the totals do.
        let kinds: Vec<(i64, i64, i64)> = usage(&db, &filter, UsageGrouping::Group, first_page())
            .await
            .unwrap()
            .items
            .iter()
            .map(|g| {
                (
                    g.cached_input_tokens,
                    g.cache_write_tokens,
                    g.reasoning_tokens,
                )
            })
            .collect();
        assert_eq!(kinds, [(45, 0, 90)], "pass {pass}");
        let rolled = roll_up(&db).await.unwrap();
        assert_eq!(rolled.usage_rows, if pass == 0 { 4 } else { 0 });
    }
    // A window inside one day: read from the rows alone.
    let inside = UsageFilter {
        window: Window {
            from: Some(at("2026-03-01T22:00:00Z")),
            to: Some(at("2026-03-01T23:30:00Z")),
        },
        ..Default::default()
    };
    assert_eq!(
        figures(&db, &inside, UsageGrouping::Model).await,
        [("a".to_owned(), 1, 20, 20)]
    );
    let hour = Window {
        from: Some(at("2026-01-10T12:30:00Z")),
        to: Some(at("2026-01-10T13:30:00Z")),
    };
    assert!(
        blocks(&db, hour, BlockGrouping::Module)
            .await
            .unwrap()
            .groups
            .is_empty()
    );
    // A row written after the pass (even in a day already rolled up) counts at once.
    call(&db, &ids, "b", "2026-03-02T05:00:00Z", 5, 10).await;
    let b = figures(
        &db,
        &UsageFilter {
            window,
            model: Some("b".into()),
            ..Default::default()
        },
        UsageGrouping::Model,
    )
    .await;
    assert_eq!(b, [("b".to_owned(), 2, 35, 35)]);
    roll_up(&db).await.unwrap();
    assert_eq!(
        figures(
            &db,
            &UsageFilter {
                window,
                model: Some("b".into()),
                ..Default::default()
            },
            UsageGrouping::Model
        )
        .await,
        b
    );
    // Names beside ids; percentiles from the histogram, at most the largest value.
    let page = usage(&db, &filter, UsageGrouping::User, first_page())
        .await
        .unwrap();
    let user = &page.items[0];
    assert!(user.name.is_some() && user.email.as_deref().is_some_and(|e| e.contains('@')));
    let lat = user.latency_ms.unwrap();
    assert!(
        lat.p50 >= 400 && lat.p50 <= 5000 && lat.p95 == 90000,
        "{lat:?}"
    );
    // Drill-down: the rows of a day sum to its total.
    let day = Window {
        from: Some(at("2026-03-02T00:00:00Z")),
        to: Some(at("2026-03-03T00:00:00Z")),
    };
    let rows = calls(
        &db,
        &UsageFilter {
            window: day,
            ..Default::default()
        },
        first_page(),
    )
    .await
    .unwrap();
    let tokens: i64 = rows.items.iter().map(|c| c.row.input_tokens).sum();
    assert_eq!((rows.items.len(), tokens), (2, 35));
    assert!(
        rows.items[0].row.created_at > rows.items[1].row.created_at,
        "newest first"
    );
    assert!(
        rows.items
            .iter()
            .all(|c| c.tool_name.is_some() && c.user_name.is_some())
    );
    // Paged by one: the cursor continues after the first.
    let one = calls(
        &db,
        &UsageFilter {
            window: day,
            ..Default::default()
        },
        PageRequest {
            limit: 1,
            after: None,
        },
    )
    .await
    .unwrap();
    let next = calls(
        &db,
        &UsageFilter {
            window: day,
            ..Default::default()
        },
        PageRequest {
            limit: 1,
            after: one.next,
        },
    )
    .await
    .unwrap();
    assert_eq!(next.items[0].row.id, rows.items[1].row.id);
});

on_both_backends!(blocks_through_the_rollup_equal_the_rows, |db| {
    let ids = ids(&db).await;
    event(
        &db,
        &ids,
        "pii",
        ModuleOutcome::Modify,
        Some("email"),
        "2026-01-10T12:00:00Z",
        10,
    )
    .await;
    event(
        &db,
        &ids,
        "pii",
        ModuleOutcome::Continue,
        None,
        "2026-01-10T12:00:00Z",
        20,
    )
    .await;
    event(
        &db,
        &ids,
        "safety",
        ModuleOutcome::Block,
        Some("self_harm"),
        "2026-01-10T13:00:00Z",
        30,
    )
    .await;
    event(
        &db,
        &ids,
        "safety",
        ModuleOutcome::Block,
        None,
        "2026-01-11T09:00:00Z",
        40,
    )
    .await;
    event(
        &db,
        &ids,
        "safety",
        ModuleOutcome::Timeout,
        None,
        "2026-01-11T09:00:00Z",
        500,
    )
    .await;
    event(
        &db,
        &ids,
        "safety",
        ModuleOutcome::Error,
        None,
        "2026-01-12T09:00:00Z",
        5,
    )
    .await;
    let window = Window {
        from: Some(at("2026-01-10T00:00:00Z")),
        to: Some(at("2026-01-12T10:00:00Z")),
    };
    for pass in 0..2 {
        let report = blocks(&db, window, BlockGrouping::Module).await.unwrap();
        let safety = &report.groups[1];
        assert_eq!(
            (
                safety.key.as_str(),
                safety.counts.runs,
                safety.counts.blocks,
                safety.counts.errors
            ),
            ("safety", 4, 2, 1),
            "pass {pass}"
        );
        assert_eq!(safety.p95_duration_ms, 500);
        assert_eq!(report.groups[0].p95_duration_ms, 20);
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
        let by_day = blocks(&db, window, BlockGrouping::Day).await.unwrap();
        let days: Vec<(&str, u64)> = by_day
            .groups
            .iter()
            .map(|g| (g.key.as_str(), g.counts.runs))
            .collect();
        assert_eq!(
            days,
            [("2026-01-10", 3), ("2026-01-11", 2), ("2026-01-12", 1)]
        );
        roll_up(&db).await.unwrap();
    }
    let hour = Window {
        from: Some(at("2026-01-10T12:30:00Z")),
        to: Some(at("2026-01-10T13:30:00Z")),
    };
    let report = blocks(&db, hour, BlockGrouping::Module).await.unwrap();
    assert_eq!(report.groups.len(), 1);
    assert_eq!(
        (
            report.groups[0].key.as_str(),
            report.groups[0].counts.blocks
        ),
        ("safety", 1)
    );
    let listed = events(
        &db,
        &EventFilter {
            window,
            module: Some("safety".into()),
            outcome: Some(ModuleOutcome::Block),
            category: Some("uncategorized".into()),
        },
        first_page(),
    )
    .await
    .unwrap();
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items[0].session_id, Some(ids.session));
});

on_both_backends!(two_passes_at_once_count_each_row_once, |db| {
    let ids = ids(&db).await;
    for i in 0..200 {
        call(
            &db,
            &ids,
            "a",
            &format!("2026-04-01T{:02}:{:02}:00Z", i / 60, i % 60),
            1,
            100,
        )
        .await;
    }
    let (a, b) = tokio_join(roll_up(&db), roll_up(&db)).await;
    assert_eq!(a.unwrap().usage_rows + b.unwrap().usage_rows, 200);
    let filter = UsageFilter {
        window: Window {
            from: Some(at("2026-04-01T00:00:00Z")),
            to: Some(at("2026-04-02T00:00:00Z")),
        },
        ..Default::default()
    };
    assert_eq!(
        figures(&db, &filter, UsageGrouping::Day).await,
        [("2026-04-01".to_owned(), 200, 200, 200)]
    );
});

/// Both futures polled together (no async runtime is a dependency of this crate).
async fn tokio_join<A: std::future::Future, B: std::future::Future>(
    a: A,
    b: B,
) -> (A::Output, B::Output) {
    futures::join!(a, b)
}
