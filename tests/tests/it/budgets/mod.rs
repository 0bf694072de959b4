//! Budgets in money (issue #15 item 3), on both backends: the admin sets spend limits per
//! user and per group, per day or month (`/v1/admin/budgets`, [`admin`]); a turn over a
//! budget is refused before any model call — 429 `budget_exceeded` with `Retry-After` at
//! the period's end when it is submitted, or `budget_exceeded` on its feed when a model
//! call's worst-case hold does not fit; each call settles what it cost, also when it
//! failed or was cancelled ([`settle`]); fifty concurrent turns overrun a budget by at
//! most one reservation ([`concurrency`]).
//!
//! Prices are 1000 US dollars per million tokens (a thousandth of a dollar, 1000
//! micro-units, per token), so that every cost is a whole number of micro-units.

mod admin;
mod concurrency;
mod settle;

use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::{Backend, TestApp, TestResponse};
use serde_json::{Value, json};
use std::io::Write;

use crate::fixtures;

/// The model's output limit in the tests (`max_output_tokens`).
const MAX_OUTPUT_TOKENS: u32 = 12;

/// A mock LLM and an app whose model costs 1000 micro-units per token, with an output
/// limit of [`MAX_OUTPUT_TOKENS`] and `concurrency` workers.
async fn spawn(
    backend: Backend,
    concurrency: usize,
) -> (MockLlm, TestApp, tempfile::NamedTempFile) {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut config = tempfile::NamedTempFile::new().expect("a temp file");
    write!(
        config,
        "[[providers]]\nname = \"mock\"\nbase_url = \"{}\"\nfirst_token_timeout_ms = 60000\n\n\
         [[models]]\nid = \"mock-model\"\nprovider = \"mock\"\n\
         input_usd_per_mtok = 1000.0\noutput_usd_per_mtok = 1000.0\n\
         max_output_tokens = {MAX_OUTPUT_TOKENS}\n\n[worker]\nconcurrency = {concurrency}\n",
        mock.base_url()
    )
    .expect("writing the config");
    let path = config.path().to_str().expect("a UTF-8 path").to_owned();
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &path)]).await;
    (mock, app, config)
}

/// `POST /v1/admin/budgets` (asserted 201): the budget.
async fn create_budget(app: &TestApp, subject: &str, id: &str, period: &str, limit: f64) -> Value {
    let response = app
        .post_json(
            "/v1/admin/budgets",
            app.admin(),
            &json!({"subject": subject, "subject_id": id, "period": period, "limit": limit}),
        )
        .await;
    response.assert_status(201);
    response.body.clone()
}

/// `GET /v1/admin/budgets/{id}` (asserted 200).
async fn budget(app: &TestApp, id: &str) -> Value {
    let response = app
        .get(&format!("/v1/admin/budgets/{id}"), app.admin())
        .await;
    response.assert_status(200);
    response.body.clone()
}

/// The micro-units `user_id`'s usage rows cost (as the counters add them).
async fn spent_in_db(app: &TestApp, user_id: &str) -> i64 {
    let sum = app
        .query_strings(&format!(
            "SELECT CAST(COALESCE(SUM(ROUND(cost_usd * 1000000.0)), 0) AS TEXT) \
             FROM ai_usage WHERE user_id = {}",
            app.sql_uuid(user_id)
        ))
        .await;
    sum.first()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("a sum: {sum:?}")) as i64
}

/// Waits until no prompt of the app is running or waiting.
async fn all_prompts_ended(app: &TestApp, within: Duration) {
    let deadline = std::time::Instant::now() + within;
    loop {
        let running = app
            .count(
                "SELECT COUNT(*) FROM prompts \
                 WHERE state NOT IN ('completed', 'failed', 'error', 'canceled')",
            )
            .await;
        if running == 0 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{running} prompts still running after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A 429 `budget_exceeded` whose detail names `whose` budget, with a `Retry-After`
/// within a few seconds of the UTC day's end.
fn assert_over_budget(response: &TestResponse, whose: &str) {
    assert_eq!(
        response.assert_problem(429),
        "budget_exceeded",
        "{response:?}"
    );
    let detail = response.body["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(whose) && detail.contains("per day"),
        "{detail}"
    );
    let retry_after: i64 = response
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("a numeric Retry-After: {response:?}"));
    let now = chrono::Utc::now();
    let midnight = (now.date_naive() + chrono::Days::new(1))
        .and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc();
    let expected = (midnight - now).num_seconds();
    assert!(
        (retry_after - expected).abs() <= 5,
        "Retry-After {retry_after}, the day ends in {expected} s"
    );
}

/// A student with a tool of their own group, and a session on it.
async fn student(app: &TestApp, email: &str) -> (fixtures::Student, String) {
    let student = fixtures::student_with_tool(app, email).await;
    let session = fixtures::session(app, &student.token, &fixtures::id(&student.tool)).await;
    (student, fixtures::id(&session))
}
