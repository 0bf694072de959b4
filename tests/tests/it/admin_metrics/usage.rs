//! `GET /v1/admin/usage` against the calls the mock LLM saw.

use chrono::{DateTime, Utc};
use parley_tests::client::Client;
use parley_tests::client::types::{UsageGroup, UsageGroupBy};
use parley_tests::{ApiResult, all_pages, both_backends};
use std::time::Duration;

use super::{Expected, priced};
use crate::fixtures::api;

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
        // Names beside ids, and the currency beside the cost.
        let alice_row = group(&by_user, &alice.user_id.to_string());
        assert_eq!(alice_row.email.as_deref(), Some("alice@example.com"));
        assert!(alice_row.name.is_some(), "{alice_row:?}");
        assert_eq!(alice_row.currency, "USD");
        let tool_row = group(&by_tool, &alice.tool.id.to_string());
        assert_eq!(tool_row.name.as_deref(), Some(alice.tool.name.as_str()));
        assert!(by_model.iter().all(|g| g.name.is_none()), "{by_model:?}");
        // By group: each student's tool is in a group of their own, named.
        let by_group = usage(&admin, UsageGroupBy::Group, start, end, 1).await;
        assert_eq!(by_group.len(), 2, "{by_group:?}");
        let alice_group = group(&by_group, &alice.group.id.to_string());
        sum(&[a1, a2]).assert_matches(alice_group);
        assert_eq!(alice_group.name.as_deref(), Some(alice.group.name.as_str()));
        b1.assert_matches(group(&by_group, &bob.group.id.to_string()));
        // Drill-down: a group's calls, newest first, sum to its figures, with names.
        let calls = admin
            .admin_usage_calls()
            .from(start)
            .to(end)
            .group_id(alice.group.id)
            .limit(1)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(calls.items.len(), 1, "one a page: {calls:?}");
        let cursor = calls.next_cursor.clone().expect("a second page");
        let rest = admin
            .admin_usage_calls()
            .from(start)
            .to(end)
            .group_id(alice.group.id)
            .cursor(cursor)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(rest.items.len(), 1, "{rest:?}");
        let listed: Vec<_> = calls.items.iter().chain(&rest.items).collect();
        assert!(listed[0].created_at >= listed[1].created_at, "newest first");
        assert_eq!(listed[0].model, "mock-cheap");
        let mut drilled = Expected::default();
        for call in &listed {
            assert_eq!(call.user_id, alice.user_id);
            assert_eq!(call.user_email.as_deref(), Some("alice@example.com"));
            assert_eq!(call.tool_name.as_deref(), Some(alice.tool.name.as_str()));
            assert_eq!(call.session_id, alice_session);
            assert_eq!(call.currency, "USD");
            drilled.add(Expected {
                calls: 1,
                input_tokens: call.input_tokens,
                output_tokens: call.output_tokens,
                cost_usd: call.cost_usd,
            });
        }
        sum(&[a1, a2]).assert_matches(group(&by_group, &alice.group.id.to_string()));
        drilled.assert_matches(alice_group);
        // `day`: Bob's call is on the UTC day of `start` or of `end`, once.
        let mut days = vec![start.date_naive(), end.date_naive()];
        days.dedup();
        let mut bobs_calls = 0;
        for day in days {
            bobs_calls += admin
                .admin_usage_calls()
                .day(day.to_string())
                .tool_id(bob.tool.id)
                .send()
                .await
                .assert_status(200)
                .into_inner()
                .items
                .len();
        }
        assert_eq!(bobs_calls, 1);
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
