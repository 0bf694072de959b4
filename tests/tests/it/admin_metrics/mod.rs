//! The admin dashboard's figures (DESIGN §7, issue #8 part 7): `GET /v1/admin/usage`,
//! `/v1/admin/blocks`, `/v1/admin/prompts/stats` and `/v1/admin/sessions/{id}/audit`.
//!
//! Usage and prompt statistics ([`usage`], [`prompt_stats`]) are checked against real
//! turns run on the mock LLM: the mock's request log says which calls were made and
//! their token counts, and the models are priced in the test's config ([`Priced`]), so
//! calls, tokens and cost are predicted independently of the server.
//!
//! Block metrics and the audit trail are checked against real turns that modules
//! blocked, redacted and timed out in `modules::the_admin_reads_the_audit_trail_and_
//! block_metrics_of_the_turns_that_ran`. [`seeded`] adds what real turns cannot produce
//! in a test's time: rows spread over several days and categories, written straight
//! into the app's database (encoded by sea-query, as the server's own writes are), to
//! check grouping by day, rates and category totals.
//!
//! [`rollup`]: the figures are the same before and after the worker's rollup pass, for
//! a window whose edge falls inside the day.
//!
//! [`access`]: 403 for non-admins on every route, before any parameter is read.

mod access;
mod prompt_stats;
mod rollup;
mod seeded;
mod usage;

use std::io::Write;
use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::UsageGroup;
use parley_tests::turns::config_path;
use parley_tests::{ApiResult, Backend, TestApp};
use tempfile::NamedTempFile;
use uuid::Uuid;

/// The priced models of the tests' config: (id, US$ per million input, output tokens).
const PRICED: [(&str, f64, f64); 2] = [("mock-model", 2.0, 10.0), ("mock-cheap", 0.5, 1.5)];

/// A config whose provider is the mock serving both [`PRICED`] models, with prices.
fn priced_config(base_url: &str) -> NamedTempFile {
    let mut config = NamedTempFile::new().expect("a temp file");
    let mut text = format!(
        "[[providers]]\nname = \"mock\"\nbase_url = \"{base_url}\"\n\
         first_token_timeout_ms = 60000\n\n\
         [worker]\nstall_timeout_ms = 10000\nmax_attempts = 1\nbreaker_failures = 1000\n\n"
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
pub(super) struct Priced {
    app: TestApp,
    mock: MockLlm,
    _config: NamedTempFile,
}

pub(super) async fn priced(backend: Backend) -> Priced {
    priced_with_env(backend, &[]).await
}

/// [`priced`], with more environment for the server.
pub(super) async fn priced_with_env(backend: Backend, env: &[(&str, &str)]) -> Priced {
    let mock = MockLlm::start(MockConfig {
        models: PRICED.iter().map(|(id, ..)| (*id).to_owned()).collect(),
        first_token_delay: Duration::from_millis(30),
        ..MockConfig::default()
    })
    .await;
    let config = priced_config(&mock.base_url());
    let path = config_path(&config);
    let mut vars = vec![("PARLEY_CONFIG", path.as_str())];
    vars.extend_from_slice(env);
    let app = TestApp::spawn_with_env(backend, &vars).await;
    Priced {
        app,
        mock,
        _config: config,
    }
}

/// What the mock saw of some calls: how many, and their tokens.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct Expected {
    calls: u64,
    input_tokens: i64,
    output_tokens: i64,
    cost_usd: f64,
}

impl Expected {
    pub(super) fn add(&mut self, other: Expected) {
        self.calls += other.calls;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cost_usd += other.cost_usd;
    }

    #[track_caller]
    pub(super) fn assert_matches(&self, group: &UsageGroup) {
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
    pub(super) async fn turn(
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
