//! Fallback chains, the per-user breaker and the providers' admin view (DESIGN §10): a model that fails before its
//! first token — an error status, a rate limit, a refused connection, no first token —
//! or whose provider's breaker is open hands the turn to the next model of its chain;
//! readers are told (`fallback`, and `complete`'s `fallback_from` / `fallback_reason`),
//! and both calls have their usage rows. A failure after output is not handed on. A user
//! whose turns keep failing starts with the chain until their breaker closes.
//!
//! Two providers on the one mock (`primary` serves `mock-model`, `backup` serves
//! `mock-backup`), so that each has its own breaker, and a third that refuses
//! connections (`dead`, serving `mock-dead`); `[[mock … model=NAME]]` scopes a fault to
//! one model.

use std::io::Write;
use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::{BreakerStateName, CallError, FallbackReason, PromptState};
use parley_tests::turns::config_path;
use parley_tests::{ApiResult, Backend, TestApp, both_backends};

use super::{Chat, WAIT};
use crate::fixtures::api;

/// A server with the three providers and the worker settings given (over the tests'
/// defaults), and a student with a session.
async fn fallback_chat(backend: Backend, worker_settings: &[(&str, &str)]) -> Chat {
    let mock = MockLlm::start(MockConfig {
        models: vec!["mock-model".into(), "mock-backup".into()],
        ..MockConfig::default()
    })
    .await;
    // A port held bound but never listening: connections to it are refused, and no other
    // test's server can take it meanwhile (a port freed after picking it could be: a
    // mock of another test once answered on it).
    let dead_socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    dead_socket
        .bind("127.0.0.1:0".parse().expect("an address"))
        .expect("a free port");
    let dead_port = dead_socket.local_addr().expect("an address").port();
    // Held for the rest of the test run (one socket per case): the chat outlives this.
    std::mem::forget(dead_socket);
    let mut worker = vec![
        ("stall_timeout_ms", "1000"),
        ("max_attempts", "2"),
        ("breaker_failures", "1000"),
    ];
    for (key, value) in worker_settings {
        worker.retain(|(k, _)| k != key);
        worker.push((key, value));
    }
    let worker: String = worker.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
    let url = mock.base_url();
    let mut config = tempfile::NamedTempFile::new().expect("a temp file");
    write!(
        config,
        "default_model = \"mock-model\"\n\n\
         [[providers]]\nname = \"primary\"\nbase_url = \"{url}\"\nfirst_token_timeout_ms = 400\n\n\
         [[providers]]\nname = \"backup\"\nbase_url = \"{url}\"\nfirst_token_timeout_ms = 60000\n\n\
         [[providers]]\nname = \"dead\"\nbase_url = \"http://127.0.0.1:{dead_port}/v1\"\n\n\
         [[models]]\nid = \"mock-model\"\nprovider = \"primary\"\nfallback = [\"mock-backup\"]\n\
         input_usd_per_mtok = 1.0\n\n\
         [[models]]\nid = \"mock-backup\"\nprovider = \"backup\"\ninput_usd_per_mtok = 2.0\n\n\
         [[models]]\nid = \"mock-dead\"\nupstream = \"mock-model\"\nprovider = \"dead\"\n\
         fallback = [\"mock-backup\"]\n\n\
         [worker]\n{worker}\n"
    )
    .expect("writing the config");
    let path = config_path(&config);
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &path)]).await;
    Chat::open(app, mock, config, "fallback@example.com").await
}

/// The models the mock was asked for, in order.
fn models_called(chat: &Chat) -> Vec<String> {
    chat.mock.requests().into_iter().map(|r| r.model).collect()
}

/// `model vendor answered|failed price` of each usage row of a prompt, sorted; the
/// price is what the row's cost makes a million input tokens cost (output is free here).
async fn usage_rows(chat: &Chat, prompt_id: uuid::Uuid) -> Vec<String> {
    let prompt = chat.app.sql_uuid(&prompt_id.to_string());
    let mut rows: Vec<String> = chat
        .app
        .query_strings(&format!(
            "SELECT model || ' ' || vendor || ' ' || \
             CASE WHEN output_tokens > 0 THEN 'answered' ELSE 'failed' END || ' ' || \
             CAST(cost_usd * 1000000 / input_tokens AS TEXT) \
             FROM ai_usage WHERE prompt_id = {prompt}"
        ))
        .await
        .into_iter()
        .map(|row| {
            let (facts, price) = row.rsplit_once(' ').expect("four fields");
            let price: f64 = price.parse().expect("a number");
            format!("{facts} {}", price.round())
        })
        .collect();
    rows.sort();
    rows
}

both_backends!(
    a_model_failing_before_its_first_token_hands_the_turn_to_its_fallback,
    |backend: Backend| async move {
        let chat = fallback_chat(backend, &[]).await;
        let cases = [
            (
                None,
                "[[mock status=500 model=mock-model tokens=3]] hi",
                FallbackReason::UpstreamError,
            ),
            (
                None,
                "[[mock status=429 model=mock-model tokens=3]] hi",
                FallbackReason::RateLimited,
            ),
            (
                None,
                "[[mock first_token_delay_ms=5000 model=mock-model tokens=3]] hi",
                FallbackReason::NoFirstToken,
            ),
            (
                Some("mock-dead"),
                "[[mock tokens=3]] hi",
                FallbackReason::Unreachable,
            ),
        ];
        for (model, content, reason) in cases {
            chat.mock.clear_requests();
            let turn = chat
                .message()
                .body_map(|b| b.content(content).model(model.map(str::to_owned)))
                .send()
                .await
                .assert_status(201);
            let asked = model.unwrap_or("mock-model");
            assert_eq!(
                (
                    turn.model.as_str(),
                    turn.vendor.as_str(),
                    turn.fallback_from.as_deref(),
                    turn.fallback_reason
                ),
                ("mock-backup", "backup", Some(asked), Some(reason)),
                "{content}: {turn:?}"
            );
            assert_eq!(turn.payload.message, "t1 t2 t3", "{content}");
            let expected_calls: &[&str] = if model.is_some() {
                // The dead provider was never reached.
                &["mock-backup"]
            } else {
                &["mock-model", "mock-backup"]
            };
            assert_eq!(models_called(&chat), expected_calls, "{content}");
            // Each call is priced at its own model's price: mock-model $1, mock-backup
            // $2, mock-dead nothing.
            let first = match model {
                Some(_) => "mock-dead dead failed 0",
                None => "mock-model primary failed 1",
            };
            assert_eq!(
                usage_rows(&chat, turn.prompt_id).await,
                ["mock-backup backup answered 2", first],
                "{content}: a usage row for the failed call and one for the fallback"
            );
        }

        // Streamed: a `fallback` event before the answer, and the same in `complete`.
        let mut feed = chat
            .stream("[[mock status=503 model=mock-model tokens=2]] stream it")
            .await;
        let events = feed.until_terminal(WAIT).await;
        let fallback: Vec<_> = events.iter().filter(|e| e.event == "fallback").collect();
        assert_eq!(fallback.len(), 1, "{events:?}");
        assert_eq!(
            (
                &fallback[0].data["from"],
                &fallback[0].data["to"],
                &fallback[0].data["reason"]
            ),
            (
                &serde_json::json!("mock-model"),
                &serde_json::json!("mock-backup"),
                &serde_json::json!("upstream_error")
            )
        );
        let first_text = events.iter().position(|e| e.event == "text_delta");
        let fallback_at = events.iter().position(|e| e.event == "fallback");
        assert!(
            fallback_at < first_text,
            "told before the answer: {events:?}"
        );
        let complete = events.last().expect("a terminal event");
        assert_eq!(complete.event, "complete");
        assert_eq!(
            (
                &complete.data["model"],
                &complete.data["fallback_from"],
                &complete.data["fallback_reason"]
            ),
            (
                &serde_json::json!("mock-backup"),
                &serde_json::json!("mock-model"),
                &serde_json::json!("upstream_error")
            )
        );
        // A turn the first model answers says nothing of a fallback.
        let plain = chat
            .send_json("[[mock tokens=2]] plain")
            .await
            .assert_status(201);
        assert_eq!(
            (
                plain.model.as_str(),
                plain.fallback_from.as_deref(),
                plain.fallback_reason
            ),
            ("mock-model", None, None)
        );
    }
);

both_backends!(
    a_model_that_fails_after_streaming_output_is_not_replaced_by_its_fallback,
    |backend: Backend| async move {
        let chat = fallback_chat(backend, &[]).await;
        let (status, problem) = parley_tests::problem(
            chat.send_json("[[mock tokens=20 cut_after=3 model=mock-model]] hi")
                .await,
        );
        assert_eq!((status, problem.code.as_str()), (502, "upstream_error"));
        assert_eq!(models_called(&chat), ["mock-model"], "no second model");
        let items = chat.messages().await;
        let answer = items.last().expect("the partial answer");
        assert_eq!(answer.content, "t1 t2 t3", "the partial is kept");
        let prompt = chat
            .prompt(crate::fixtures::api::uuid(
                problem
                    .instance
                    .as_deref()
                    .expect("the problem names the prompt")
                    .trim_start_matches("/v1/prompts/"),
            ))
            .await;
        assert_eq!(prompt.state, PromptState::Error, "resumable: {prompt:?}");
    }
);

both_backends!(
    an_open_provider_breaker_sends_turns_to_the_fallback_without_a_call,
    |backend: Backend| async move {
        let chat = fallback_chat(
            backend,
            &[("breaker_failures", "3"), ("breaker_open_s", "30")],
        )
        .await;
        for i in 0..3 {
            let turn = chat
                .send_json(&format!("[[mock status=500 model=mock-model]] {i}"))
                .await
                .assert_status(201);
            assert_eq!(turn.fallback_reason, Some(FallbackReason::UpstreamError));
        }
        assert_eq!(
            models_called(&chat),
            ["mock-model", "mock-backup"].repeat(3),
            "each turn: one failed call, then the fallback"
        );
        chat.mock.clear_requests();
        // Open: the first model would answer, but it is not asked.
        let turn = chat
            .send_json("[[mock tokens=2]] open")
            .await
            .assert_status(201);
        assert_eq!(
            (
                turn.model.as_str(),
                turn.fallback_from.as_deref(),
                turn.fallback_reason
            ),
            (
                "mock-backup",
                Some("mock-model"),
                Some(FallbackReason::CircuitOpen)
            )
        );
        assert_eq!(
            models_called(&chat),
            ["mock-backup"],
            "no call to mock-model"
        );
    }
);

both_backends!(
    a_user_whose_turns_keep_failing_starts_with_the_fallback_until_their_breaker_closes,
    |backend: Backend| async move {
        let chat = fallback_chat(
            backend,
            &[("user_breaker_failures", "2"), ("user_breaker_open_s", "2")],
        )
        .await;
        // Two turns that fail on every model (1 + 2 calls each: the fallback is retried).
        for i in 0..2 {
            chat.send_json(&format!("[[mock status=500]] fail {i}"))
                .await
                .assert_problem(502);
        }
        assert_eq!(models_called(&chat).len(), 6);
        chat.mock.clear_requests();
        // Open: this user's next turn goes straight to the fallback.
        let turn = chat
            .send_json("[[mock tokens=2]] after")
            .await
            .assert_status(201);
        assert_eq!(
            (
                turn.model.as_str(),
                turn.fallback_from.as_deref(),
                turn.fallback_reason
            ),
            (
                "mock-backup",
                Some("mock-model"),
                Some(FallbackReason::UserBreaker)
            )
        );
        assert_eq!(models_called(&chat), ["mock-backup"]);
        // A model without a fallback chain gets one call, no retry.
        chat.mock.clear_requests();
        chat.message()
            .body_map(|b| {
                b.content("[[mock status=500]] no chain")
                    .model(Some("mock-backup".to_owned()))
            })
            .send()
            .await
            .assert_problem(502);
        assert_eq!(models_called(&chat), ["mock-backup"], "not retried");
        // Another user is not affected.
        let other = api::student_with_tool(&chat.app, "other@example.com").await;
        let other_client = chat.app.client_as(&other.token);
        let other_session = api::session(&other_client, other.tool.id).await;
        let theirs = other_client
            .send_message()
            .id(other_session.id)
            .body_map(|b| b.content("[[mock tokens=2]] mine"))
            .send()
            .await
            .assert_status(201);
        assert_eq!(
            (theirs.model.as_str(), theirs.fallback_reason),
            ("mock-model", None)
        );
        // After the open period the user's next turn probes the first model; it answers,
        // and the breaker closes.
        tokio::time::sleep(Duration::from_millis(2_100)).await;
        for i in 0..2 {
            let turn = chat
                .send_json(&format!("[[mock tokens=2]] back {i}"))
                .await
                .assert_status(201);
            assert_eq!(
                (turn.model.as_str(), turn.fallback_reason),
                ("mock-model", None),
                "turn {i}"
            );
        }
    }
);

both_backends!(
    the_admin_sees_each_providers_breaker_error_rate_last_failure_and_models,
    |backend: Backend| async move {
        let chat = fallback_chat(backend, &[("breaker_failures", "2")]).await;
        for i in 0..2 {
            chat.send_json(&format!(
                "[[mock status=500 model=mock-model tokens=1]] {i}"
            ))
            .await
            .assert_status(201);
        }
        chat.message()
            .body_map(|b| {
                b.content("[[mock tokens=1]] dead")
                    .model(Some("mock-dead".to_owned()))
            })
            .send()
            .await
            .assert_status(201);
        let admin = chat.app.admin_client();
        let report = admin
            .admin_providers()
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(report.window_s, 900, "the default window");
        let names: Vec<&str> = report.providers.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            ["primary", "backup", "dead"],
            "in configuration order"
        );
        let [primary, backup, dead] = &report.providers[..] else {
            unreachable!("three providers")
        };
        assert_eq!(primary.models, ["mock-model"]);
        assert_eq!(backup.models, ["mock-backup"]);
        assert_eq!(dead.models, ["mock-dead"]);
        // Two failed calls in a row opened the primary's breaker.
        assert_eq!(primary.breaker.state, BreakerStateName::Open, "{primary:?}");
        assert!(
            primary
                .breaker
                .open_until
                .is_some_and(|t| t > chrono::Utc::now()),
            "{primary:?}"
        );
        assert_eq!(
            (primary.calls, primary.failed_calls, primary.error_rate),
            (2, 2, Some(1.0))
        );
        assert_eq!(
            primary.last_error.as_ref().map(|e| e.category),
            Some(CallError::ServerError)
        );
        // The backup answered all three.
        assert_eq!(
            (
                backup.breaker.state,
                backup.breaker.consecutive_failures,
                backup.calls,
                backup.failed_calls,
                backup.error_rate
            ),
            (BreakerStateName::Closed, Some(0), 3, 0, Some(0.0))
        );
        assert!(backup.last_error.is_none(), "{backup:?}");
        // One refused connection: counted, not yet open.
        assert_eq!(
            (
                dead.breaker.state,
                dead.breaker.consecutive_failures,
                dead.calls,
                dead.failed_calls
            ),
            (BreakerStateName::Closed, Some(1), 1, 1)
        );
        assert_eq!(
            dead.last_error.as_ref().map(|e| e.category),
            Some(CallError::Unreachable)
        );
        // A window before the calls: none in it; the last failure is still shown.
        tokio::time::sleep(Duration::from_millis(1_100)).await;
        let later = admin
            .admin_providers()
            .window_s(1u32)
            .send()
            .await
            .assert_status(200)
            .into_inner();
        let primary = &later.providers[0];
        assert_eq!(
            (primary.calls, primary.error_rate),
            (0, None),
            "{primary:?}"
        );
        assert!(primary.last_error.is_some());
        let (status, _) =
            parley_tests::problem(admin.admin_providers().window_s(2_592_001u32).send().await);
        assert_eq!(status, 400, "a window over 30 days");
    }
);
