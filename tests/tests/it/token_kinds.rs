//! Usage by token kind (#45 item 4): input read from the provider's prompt cache and
//! output spent thinking are counted apart — in the turn's `complete` usage, in each
//! call's `ai_usage` row (the admin API's calls and sums), on the OpenAI surface
//! (`prompt_tokens_details.cached_tokens`, `completion_tokens_details.reasoning_tokens`)
//! — and priced each at its own price. The mock reports cached input the way OpenAI
//! does, from the longest earlier prefix of whole messages (its minimum and increment
//! set to one token here, so short conversations hit).

use parley_mock_llm::{MockConfig, MockLlm, RecordedRequest};
use parley_tests::{ApiResult, Backend, TestApp, both_backends, typed};
use serde_json::{Value, json};

use crate::fixtures::api;

/// US$ per million tokens of the test model, one price per kind.
const INPUT: f64 = 3.0;
const CACHED: f64 = 0.3;
const OUTPUT: f64 = 15.0;
const REASONING: f64 = 60.0;

/// A server whose one model is the mock, priced per kind, and the mock (caching from
/// the first token).
async fn priced(backend: Backend) -> (TestApp, MockLlm, tempfile::NamedTempFile) {
    let mock = MockLlm::start(MockConfig {
        cache_min_tokens: 1,
        cache_increment: 1,
        ..MockConfig::default()
    })
    .await;
    let mut config = tempfile::NamedTempFile::new().expect("a temp file");
    std::io::Write::write_all(
        &mut config,
        format!(
            "[[providers]]\nname = \"mock\"\nbase_url = \"{}\"\n\n\
             [[models]]\nid = \"mock-model\"\nprovider = \"mock\"\n\
             input_usd_per_mtok = {INPUT}\ncached_input_usd_per_mtok = {CACHED}\n\
             output_usd_per_mtok = {OUTPUT}\nreasoning_usd_per_mtok = {REASONING}\n",
            mock.base_url()
        )
        .as_bytes(),
    )
    .expect("writing the config");
    let path = config.path().to_str().expect("a UTF-8 path").to_owned();
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &path)]).await;
    (app, mock, config)
}

/// What the mock reported for `request`: (prompt, cached, completion, reasoning).
fn reported(request: &RecordedRequest, reasoning: u64) -> (u64, u64, u64, u64) {
    let completion = request.tokens_sent as u64;
    (
        request.prompt_tokens,
        request.cached_tokens,
        completion,
        reasoning,
    )
}

/// The cost of one call's tokens at the test model's prices.
fn cost(prompt: u64, cached: u64, completion: u64, reasoning: u64) -> f64 {
    ((prompt - cached) as f64 * INPUT
        + cached as f64 * CACHED
        + (completion - reasoning) as f64 * OUTPUT
        + reasoning as f64 * REASONING)
        / 1_000_000.0
}

both_backends!(
    cached_and_reasoning_tokens_are_counted_apart_and_priced_each_at_its_price,
    |backend: Backend| async move {
        let (app, mock, _config) = priced(backend).await;
        let admin = app.admin_client();
        let student = api::student_with_tool(&app, "kinds@example.com").await;
        let client = app.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await;

        // Turn 1: the model thinks four words first; nothing is cached yet.
        let first = typed::send_message(
            &client,
            session.id,
            "[[mock reasoning=one_two_three_four]] how do plants eat?",
        )
        .await
        .assert_status(201)
        .into_inner();
        // Turn 2: its prompt begins with turn 1's (system prompt and first message).
        let second = typed::send_message(&client, session.id, "and at night?")
            .await
            .assert_status(201)
            .into_inner();
        let requests = mock.requests();
        assert_eq!(requests.len(), 2);
        let calls = [reported(&requests[0], 4), reported(&requests[1], 0)];
        assert_eq!(calls[0].1, 0, "nothing cached on the first call");
        assert!(
            calls[1].1 > 0,
            "the second call read the first's prefix: {calls:?}"
        );
        for (turn, (prompt, cached, completion, reasoning)) in [&first, &second].iter().zip(calls) {
            let usage = &turn.usage;
            assert_eq!(usage.input_tokens, prompt);
            assert_eq!(usage.cached_input_tokens, cached);
            assert_eq!(usage.output_tokens, completion);
            assert_eq!(usage.reasoning_tokens, reasoning);
            assert_eq!(
                usage.cache_write_tokens, 0,
                "OpenAI-style caching writes nothing"
            );
        }

        // Each call's row: its kinds, and its cost at each kind's price.
        let rows = admin
            .admin_usage_calls()
            .limit(10)
            .send()
            .await
            .assert_status(200)
            .into_inner()
            .items;
        assert_eq!(rows.len(), 2, "{rows:?}");
        for (row, (prompt, cached, completion, reasoning)) in rows.iter().rev().zip(calls) {
            assert_eq!(row.cached_input_tokens as u64, cached);
            assert_eq!(row.reasoning_tokens as u64, reasoning);
            let expected = cost(prompt, cached, completion, reasoning);
            assert!(
                (row.cost_usd - expected).abs() < 1e-12,
                "{} priced by kind, expected {expected}",
                row.cost_usd
            );
        }
        // The sums by model carry the kinds too.
        let sums = admin
            .admin_usage()
            .group_by(parley_tests::client::types::UsageGroupBy::Model)
            .send()
            .await
            .assert_status(200)
            .into_inner()
            .items;
        assert_eq!(sums.len(), 1);
        assert_eq!(sums[0].cached_input_tokens as u64, calls[1].1);
        assert_eq!(sums[0].reasoning_tokens, 4);

        // The OpenAI surface says so honestly: a history that repeats the turns above.
        let history = json!({
            "model": "mock-model",
            "messages": [
                {"role": "user", "content": "how do plants eat?"},
                {"role": "assistant", "content": "They make sugar from light."},
                {"role": "user", "content": "[[mock reasoning=a_b]] and at night?"},
            ],
        });
        let answer = app
            .post_json(
                "/openai/v1/chat/completions",
                Some(&student.token),
                &history,
            )
            .await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        let usage: &Value = &answer.body["usage"];
        assert_eq!(
            usage["completion_tokens_details"]["reasoning_tokens"], 2,
            "{usage}"
        );
        let again = app
            .post_json(
                "/openai/v1/chat/completions",
                Some(&student.token),
                &history,
            )
            .await;
        let cached = again.body["usage"]["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .unwrap_or(0);
        assert!(
            cached > 0,
            "the same prompt again reads the cache: {}",
            again.body
        );
        let last = mock.requests().last().cloned().expect("a request");
        assert_eq!(cached, last.cached_tokens, "as the provider reported it");
    }
);

/// US$ per million tokens written to the cache (Anthropic: 1.25 × input).
const CACHE_WRITE: f64 = 3.75;

both_backends!(
    a_long_claude_conversation_reads_its_input_from_the_cache_at_the_price_the_mock_reported,
    |backend: Backend| async move {
        // Claude through the native provider, with the default breakpoints (the system
        // prompt and each request's last message), and the mock caching as Anthropic
        // does: prefixes of 1,024 tokens and more, ending at a breakpoint.
        let mock = MockLlm::start(MockConfig::default()).await;
        let prices = format!(
            "input_usd_per_mtok = {INPUT}\ncached_input_usd_per_mtok = {CACHED}\n\
             cache_write_usd_per_mtok = {CACHE_WRITE}\noutput_usd_per_mtok = {OUTPUT}"
        );
        let config =
            parley_tests::turns::mock_anthropic_config(&mock.anthropic_base_url(), &prices, "");
        let path = parley_tests::turns::config_path(&config);
        let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &path)]).await;
        let admin = app.admin_client();
        let student = api::student_with_tool(&app, "claude@example.com").await;
        // A tutor with a course's worth of instructions: about 1,300 words.
        let syllabus: String = (1..=130)
            .map(|i| format!("Unit {i}: fractions, decimals and ratios, with worked examples. "))
            .collect();
        let definition = api::definition(&syllabus);
        let tool = api::tool_with(&admin, student.group.id, "Course tutor", definition).await;
        let client = app.client_as(&student.token);
        let session = api::session(&client, tool.id).await;
        const TURNS: usize = 30;
        for turn in 1..=TURNS {
            let text = format!("question {turn}: how do I turn {turn} eighths into a decimal?");
            typed::send_message(&client, session.id, &text)
                .await
                .assert_status(201);
        }
        let requests = mock.requests();
        assert_eq!(requests.len(), TURNS);
        let (input, cached): (u64, u64) = requests[2..]
            .iter()
            .map(|r| (r.prompt_tokens, r.cached_tokens))
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
        let share = cached as f64 / input as f64;
        assert!(
            share >= 0.8,
            "after the second turn {cached} of {input} input tokens ({:.1} %) came from the cache",
            share * 100.0
        );
        // Every request after the first reads all of the one before it.
        for pair in requests.windows(2) {
            assert!(
                pair[1].cached_tokens >= pair[0].prompt_tokens,
                "{} cached of the previous {}",
                pair[1].cached_tokens,
                pair[0].prompt_tokens
            );
        }

        // The ledger: each call's kinds as the mock reported them, and the conversation's
        // cost is those kinds at their prices.
        let rows = admin
            .admin_usage_calls()
            .limit(100)
            .send()
            .await
            .assert_status(200)
            .into_inner()
            .items;
        assert_eq!(rows.len(), TURNS);
        let mut expected = 0.0;
        for (row, request) in rows.iter().rev().zip(&requests) {
            assert_eq!(row.input_tokens as u64, request.prompt_tokens);
            assert_eq!(row.cached_input_tokens as u64, request.cached_tokens);
            assert_eq!(row.cache_write_tokens as u64, request.cache_creation_tokens);
            assert_eq!(row.output_tokens as u64, request.tokens_sent as u64);
            let plain =
                request.prompt_tokens - request.cached_tokens - request.cache_creation_tokens;
            expected += (plain as f64 * INPUT
                + request.cached_tokens as f64 * CACHED
                + request.cache_creation_tokens as f64 * CACHE_WRITE
                + request.tokens_sent as f64 * OUTPUT)
                / 1_000_000.0;
        }
        let ledger: f64 = rows.iter().map(|row| row.cost_usd).sum();
        assert!(
            (ledger - expected).abs() < 1e-9,
            "the ledger's {ledger} against the mock's usage priced by kind, {expected}"
        );
        // Without the cache the same conversation would have cost at least twice as much.
        let uncached: f64 = requests
            .iter()
            .map(|r| (r.prompt_tokens as f64 * INPUT + r.tokens_sent as f64 * OUTPUT) / 1e6)
            .sum();
        assert!(uncached > 2.0 * ledger, "{uncached} against {ledger}");
    }
);
