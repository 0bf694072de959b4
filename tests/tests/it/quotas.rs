//! Quotas (issue #11): turns per minute and tokens per day, per user and per group, with
//! per-group overrides; over a limit a turn answers 429 problem+json `quota_exceeded`
//! with `Retry-After`, is counted in `/metrics` and shows in the admin usage report; in
//! distributed mode the limits hold across api processes (the counters are in Redis).

use std::io::Write;
use std::time::Duration;

use chrono::Timelike;
use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::UsageGroupBy;
use parley_tests::metrics::Scrape;
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::{ApiResult, Backend, Cluster, TestApp, TestResponse, both_backends, run_test};
use serde_json::json;

use crate::fixtures::api::{self, uuid};

/// Waits, if needed, so that the next few seconds stay inside one minute: the test's
/// turns must fall in one window of turns per minute.
async fn early_in_a_minute() {
    let second = chrono::Utc::now().second();
    if second > 45 {
        tokio::time::sleep(Duration::from_secs(u64::from(61 - second))).await;
    }
}

/// A 429 `quota_exceeded` with a `Retry-After` of at least 1 and at most `most` s.
fn assert_refused(response: &TestResponse, limit_words: &str, most: u64) -> u64 {
    assert_eq!(
        response.assert_problem(429),
        "quota_exceeded",
        "{response:?}"
    );
    assert!(
        response
            .content_type()
            .starts_with("application/problem+json"),
        "{response:?}"
    );
    let detail = response.body["detail"].as_str().unwrap_or_default();
    assert!(detail.contains(limit_words), "{detail}");
    let retry_after: u64 = response
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("a numeric Retry-After: {response:?}"));
    assert!(
        (1..=most).contains(&retry_after),
        "Retry-After {retry_after}"
    );
    retry_after
}

both_backends!(
    over_turns_per_minute_a_turn_gets_429_and_admins_see_the_refusal,
    |backend: Backend| async move {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config =
            mock_provider_config(&mock.base_url(), "\n[quotas.user]\nturns_per_minute = 2\n");
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
        let student = api::student_with_tool(&app, "quota@example.com").await;
        let client = app.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await.id.to_string();
        early_in_a_minute().await;
        for n in 0..2 {
            app.send_message(&student.token, &session, &format!("turn {n}"), "")
                .await
                .assert_status(201);
        }
        let refused = app
            .send_message(&student.token, &session, "one too many", "")
            .await;
        assert_refused(&refused, "2 turns per minute", 60);
        // Nothing was recorded for it, and another user is not affected.
        let prompts = app.count("SELECT COUNT(*) FROM prompts").await;
        assert_eq!(prompts, 2);
        let other = api::student_with_tool(&app, "other@example.com").await;
        let other_client = app.client_as(&other.token);
        let other_session = api::session(&other_client, other.tool.id)
            .await
            .id
            .to_string();
        app.send_message(&other.token, &other_session, "hello", "")
            .await
            .assert_status(201);

        let usage = app
            .admin_client()
            .admin_usage()
            .group_by(UsageGroupBy::User)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        let row = |user: &str| {
            usage
                .items
                .iter()
                .find(|g| g.key == user)
                .unwrap_or_else(|| panic!("{user} in {usage:?}"))
        };
        assert_eq!(row(&student.user_id.to_string()).refused_turns, 1);
        assert_eq!(row(&student.user_id.to_string()).calls, 2);
        assert_eq!(row(&other.user_id.to_string()).refused_turns, 0);

        let scrape = Scrape::parse(&app.get("/metrics", None).await.text);
        assert_eq!(
            scrape.sum(
                "parley_rate_limited_total",
                &[("limit", "turns_per_minute")]
            ),
            Some(1.0)
        );
        assert_eq!(
            scrape.sum(
                "parley_http_requests_total",
                &[("route", "/v1/sessions/{id}/messages"), ("status", "429")]
            ),
            Some(1.0)
        );
    }
);

both_backends!(
    a_groups_token_budget_is_shared_and_lasts_until_midnight,
    |backend: Backend| async move {
        let mock = MockLlm::start(MockConfig::default()).await;
        let mut config = mock_provider_config(&mock.base_url(), "");
        let mut app =
            TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
        let admin = app.admin_client();
        let group = api::group(&admin, "Budgeted", None, json!({})).await;
        let tool = api::tool(&admin, group.id, "Budgeted tool", "Help.").await;
        let (alice, alice_token) = app.create_user("alice@example.com", "student").await;
        let (bob, bob_token) = app.create_user("bob@example.com", "student").await;
        for user in [&alice, &bob] {
            api::add_member(&admin, group.id, uuid(user)).await;
        }
        // The override names the group, which exists only now: a restart reads it.
        writeln!(
            config,
            "\n[[quotas.overrides]]\ngroup_id = \"{}\"\ngroup = {{ tokens_per_day = 1 }}",
            group.id
        )
        .expect("writing the config");
        app.restart().await;

        let session_of = |token: String| {
            let client = app.client_as(&token);
            async move { api::session(&client, tool.id).await.id.to_string() }
        };
        let alices = session_of(alice_token.clone()).await;
        let bobs = session_of(bob_token.clone()).await;
        // Nothing used yet today: the first turn runs (and uses more than 1 token).
        app.send_message(&alice_token, &alices, "hello", "")
            .await
            .assert_status(201);
        // The worker counts the tokens when the turn ends; the next turn of anyone in
        // the group is refused until the UTC day ends.
        let mut refused = None;
        for _ in 0..50 {
            let response = app.send_message(&bob_token, &bobs, "me too", "").await;
            if response.status == 429 {
                refused = Some(response);
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let refused = refused.expect("the group's budget is spent");
        let retry_after =
            assert_refused(&refused, "your group's quota of 1 tokens per day", 86_400);
        let now = chrono::Utc::now();
        let to_midnight = 86_400 - u64::from(now.num_seconds_from_midnight());
        assert!(
            retry_after.abs_diff(to_midnight) <= 5,
            "{retry_after} vs {to_midnight}"
        );
        let again = app.send_message(&alice_token, &alices, "again", "").await;
        assert_refused(&again, "tokens per day", 86_400);
        let recorded = app
            .count("SELECT COUNT(*) FROM quota_refusals WHERE limit_kind = 'tokens_per_day'")
            .await;
        assert!(recorded >= 2, "{recorded}");
    }
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_limit_holds_across_two_api_processes_sharing_redis() {
    run_test(Backend::Postgres, |_| async {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config =
            mock_provider_config(&mock.base_url(), "\n[quotas.user]\nturns_per_minute = 2\n");
        let mut cluster = Cluster::spawn(&[("PARLEY_CONFIG", &config_path(&config))]).await;
        let second = cluster.start_api().await;
        let student = api::student_with_tool(&cluster, "two-apis@example.com").await;
        let client = cluster.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await.id.to_string();
        let http = parley_tests::http_client().build().expect("an HTTP client");
        let send = |base: String, content: &'static str| {
            let request = http
                .post(format!("{base}/v1/sessions/{session}/messages"))
                .bearer_auth(&student.token)
                .header("accept", "application/json")
                .json(&json!({ "content": content }));
            async move { TestResponse::read(request.send().await.expect("a response")).await }
        };
        let first = cluster.url("");
        let first = first.trim_end_matches('/').to_owned();
        early_in_a_minute().await;
        send(first.clone(), "one").await.assert_status(201);
        send(second.clone(), "two").await.assert_status(201);
        let from_first = send(first, "three").await;
        assert_refused(&from_first, "2 turns per minute", 60);
        let from_second = send(second, "four").await;
        assert_refused(&from_second, "2 turns per minute", 60);
        assert_eq!(cluster.count("SELECT COUNT(*) FROM prompts").await, 2);
        assert_eq!(
            cluster.count("SELECT COUNT(*) FROM quota_refusals").await,
            2
        );
    })
    .await;
}
