//! When the provider fails: error statuses, stalls, broken and malformed streams, the
//! retries Parley owns, usage of failed calls and of a provider that reports none, and
//! the trace context on the worker's log of a failed call.

use std::time::Duration;

use parley_mock_llm::Outcome;
use parley_tests::client::types::{ErrorCode, MessageRole, PromptState};
use parley_tests::{ApiResult, both_backends};

use super::{chat, chat_with, chat_with_provider};
use crate::fixtures::api::uuid;

both_backends!(
    upstream_faults_map_to_error_codes,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        use ErrorCode::{RateLimited, UpstreamError, UpstreamStall};
        use PromptState::{Error, Failed};
        let cases = [
            ("[[mock status=500]] hi", 502, UpstreamError, Failed),
            (
                "[[mock status=429 retry_after=1]] hi",
                429,
                RateLimited,
                Failed,
            ),
            (
                "[[mock tokens=20 stall_after=3]] hi",
                504,
                UpstreamStall,
                Error,
            ),
            (
                "[[mock tokens=20 cut_after=3]] hi",
                502,
                UpstreamError,
                Error,
            ),
            (
                "[[mock tokens=20 malformed_after=3]] hi",
                502,
                UpstreamError,
                Error,
            ),
        ];
        for (content, status, code, state) in cases {
            let (actual, problem) = parley_tests::problem(chat.send_json(content).await);
            assert_eq!(
                (actual, problem.code.as_str()),
                (status, code.to_string().as_str()),
                "{content}: {problem:?}"
            );
            // The message is the code's, never what the provider said.
            let message = stable_message(code);
            assert_eq!(problem.detail, message, "{content}: {problem:?}");
            let instance = problem
                .instance
                .as_deref()
                .unwrap_or_else(|| panic!("the problem names the prompt: {problem:?}"));
            let prompt = chat
                .prompt(uuid(instance.trim_start_matches("/v1/prompts/")))
                .await;
            assert_eq!(
                (prompt.state, prompt.error_code, prompt.error.as_deref()),
                (state, Some(code), Some(message)),
                "{content}: {prompt:?}"
            );

            let streaming = chat.streaming().await;
            assert!(
                streaming.prompt.is_none(),
                "the session is free after a failure: {streaming:?}"
            );
            let items = chat.messages().await;
            let answer = items.last().unwrap();
            if state == Error {
                assert_eq!(
                    answer.role,
                    MessageRole::Assistant,
                    "partial content is kept: {content}"
                );
                assert!(!answer.is_complete, "{answer:?}");
                assert_eq!(answer.content, "t1 t2 t3");
            } else {
                assert_eq!(
                    answer.role,
                    MessageRole::User,
                    "nothing was produced: {content}"
                );
            }
        }
        // Parley owns retries: each failing status was tried exactly `max_attempts` (2) times.
        let requests = chat.mock.requests();
        for status in [500, 429] {
            let tries = requests
                .iter()
                .filter(|r| r.outcome == Outcome::Rejected(status))
                .count();
            assert_eq!(tries, 2, "HTTP {status} was tried {tries} times");
        }
        let states = chat
            .app
            .count("SELECT COUNT(*) FROM prompts WHERE state = 'failed'")
            .await;
        assert_eq!(states, 2);
        let errors = chat
            .app
            .count("SELECT COUNT(*) FROM prompts WHERE state = 'error'")
            .await;
        assert_eq!(errors, 3);
    }
);

/// The message every failed turn with `code` carries (stable per code, free of what the
/// provider said; `ErrorCode::message` in `protocol/src/error.rs`).
fn stable_message(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::UpstreamError => "the model provider failed to answer",
        ErrorCode::UpstreamStall => "the model provider stopped sending tokens",
        ErrorCode::RateLimited => "the model provider is rate limiting; try again later",
        other => panic!("no message for {other} in this test"),
    }
}

both_backends!(
    a_provider_silent_past_its_first_token_timeout_is_retried_then_fails_the_turn,
    |backend: Backend| async move {
        // A stall window of 30 s: only the provider's first-token timeout (400 ms) can end
        // these calls before the mock's first token at 5 s.
        let chat = chat_with_provider(
            backend,
            "first_token_timeout_ms = 400",
            &[("stall_timeout_ms", "30000")],
            &[],
        )
        .await;
        let started = std::time::Instant::now();
        let (status, problem) = parley_tests::problem(
            chat.send_json("[[mock first_token_delay_ms=5000]] hi")
                .await,
        );
        let took = started.elapsed();
        assert_eq!(
            (status, problem.code.as_str()),
            (504, "upstream_stall"),
            "{problem:?}"
        );
        assert_eq!(
            problem.detail,
            stable_message(ErrorCode::UpstreamStall),
            "{problem:?}"
        );
        assert!(
            took < Duration::from_secs(4),
            "given up after two first-token timeouts and a backoff, not at the first token: {took:?}"
        );
        assert_eq!(
            chat.mock.requests().len(),
            2,
            "tried `max_attempts` (2) times"
        );
        let failed = chat
            .app
            .count("SELECT COUNT(*) FROM prompts WHERE state = 'failed' AND error_code = 'upstream_stall'")
            .await;
        assert_eq!(failed, 1, "failed before any output");
        // A first token inside the timeout: the turn is answered.
        let turn = chat
            .send_json("[[mock tokens=3 first_token_delay_ms=100]] hi")
            .await
            .assert_status(201);
        assert_eq!(
            turn.payload.message.split_whitespace().count(),
            3,
            "{turn:?}"
        );
    }
);

both_backends!(
    a_provider_failing_three_calls_in_a_row_is_not_called_until_its_breaker_lets_a_probe_through,
    |backend: Backend| async move {
        let chat = chat_with(
            backend,
            &[("breaker_failures", "3"), ("breaker_open_s", "2")],
            &[],
        )
        .await;
        let calls = || chat.mock.requests().len();
        // Two failed calls (a retry), then the third in a row opens the breaker, and the
        // second turn's retry is refused without a call.
        chat.send_json("[[mock status=500]] one")
            .await
            .assert_problem(502);
        assert_eq!(calls(), 2);
        chat.send_json("[[mock status=500]] two")
            .await
            .assert_problem(502);
        assert_eq!(calls(), 3, "the retry after the third failure was not made");
        // Open: a turn the provider would answer fails at once, and nothing reaches it.
        let started = std::time::Instant::now();
        let (status, problem) =
            parley_tests::problem(chat.send_json("[[mock tokens=3]] three").await);
        assert_eq!((status, problem.code.as_str()), (502, "upstream_error"));
        assert_eq!(
            problem.detail,
            stable_message(ErrorCode::UpstreamError),
            "{problem:?}"
        );
        assert_eq!(calls(), 3, "refused without a call");
        assert!(started.elapsed() < Duration::from_secs(2));
        let refused = chat.app.count("SELECT COUNT(*) FROM ai_usage").await;
        assert_eq!(refused, 3, "a refused call is no call: no usage row");
        // After the open period one probe goes; it works, so the breaker closes.
        tokio::time::sleep(Duration::from_millis(2_100)).await;
        chat.send_json("[[mock tokens=3]] four")
            .await
            .assert_status(201);
        chat.send_json("[[mock tokens=3]] five")
            .await
            .assert_status(201);
        assert_eq!(calls(), 5);
    }
);

both_backends!(
    usage_is_counted_when_the_provider_reports_none,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let turn = chat
            .send_json("[[mock tokens=12 no_usage=1]] count me")
            .await
            .assert_status(201);
        assert!(turn.usage.output_tokens > 0, "{turn:?}");
        assert!(turn.usage.input_tokens > 0, "{turn:?}");
        chat.send_json("[[mock status=500]] fail")
            .await
            .assert_problem(502);
        let rows = chat
            .app
            .count("SELECT COUNT(*) FROM ai_usage WHERE output_tokens = 0")
            .await;
        assert_eq!(rows, 2, "both failed calls of the failed turn are recorded");
    }
);

both_backends!(
    the_trace_context_travels_with_the_job,
    |backend: Backend| async move {
        let chat = chat_with(backend, &[], &[("PARLEY_LOG", "info")]).await;
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        // No operation declares `traceparent`: a client that sends it with every request.
        let traced = chat
            .app
            .client_with_headers(&chat.token, &[("traceparent", traceparent)]);
        traced
            .send_message()
            .id(chat.session_id)
            .body_map(|b| b.content("[[mock status=500]] traced"))
            .send()
            .await
            .assert_problem(502);
        // The worker's span carries it: its warning about the failed provider call names it.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let log = chat.app.full_server_log();
        let line = log
            .lines()
            .find(|l| l.contains("provider call failed") && l.contains(traceparent))
            .unwrap_or_else(|| {
                panic!(
                    "the worker logged the trace context: {}",
                    chat.app.server_log()
                )
            });
        assert!(line.contains("prompt_id="), "{line}");
    }
);
