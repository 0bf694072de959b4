//! A request's own sampling parameters on the OpenAI-compatible surface (#46 item 5):
//! sent to the model with every call of the turn, the token limit honoured (the answer
//! stops there, `finish_reason: "length"` / `incomplete` with `max_output_tokens`), stop
//! sequences honoured, OpenAI's ranges refused by name, and a tool's bounds — a fixed
//! value, a range, a token cap — clamping or refusing as the tool says, with the response
//! object showing the values used.

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::turns::mock_provider_config;
use parley_tests::{Backend, TestApp, both_backends};
use serde_json::{Value, json};

use crate::fixtures::{self, id};
use crate::openai_surface::Surface;

async fn surface(backend: Backend) -> Surface {
    let mock = MockLlm::start(MockConfig::default()).await;
    let config = mock_provider_config(&mock.base_url(), "");
    Surface::start(backend, mock, config, "sampler@example.com").await
}

both_backends!(
    the_requests_sampling_reaches_the_model_and_its_limits_hold,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let done = s
            .post(
                "/openai/v1/chat/completions",
                &json!({
                    "model": "mock-model",
                    "messages": [{"role": "user", "content": "[[mock tokens=30]] count"}],
                    "max_tokens": 5, "temperature": 0.3, "top_p": 0.8, "seed": 11,
                    "presence_penalty": 0.1, "frequency_penalty": -0.1,
                }),
            )
            .await;
        done.assert_status(200);
        assert_eq!(
            done.body["choices"][0]["message"]["content"],
            "t1 t2 t3 t4 t5"
        );
        assert_eq!(done.body["choices"][0]["finish_reason"], "length");
        let sent = s.last_sent();
        assert_eq!(sent["max_tokens"], 5);
        for (field, value) in [
            ("temperature", json!(0.3)),
            ("top_p", json!(0.8)),
            ("seed", json!(11)),
            ("presence_penalty", json!(0.1)),
            ("frequency_penalty", json!(-0.1)),
        ] {
            assert_eq!(sent[field], value, "{field} reaches the model");
        }

        // A stop sequence ends a finished answer, before it.
        let stopped = s
            .post(
                "/openai/v1/chat/completions",
                &json!({
                    "model": "mock-model", "stop": " t4",
                    "messages": [{"role": "user", "content": "[[mock tokens=10]] count"}],
                }),
            )
            .await;
        stopped.assert_status(200);
        assert_eq!(stopped.body["choices"][0]["message"]["content"], "t1 t2 t3");
        assert_eq!(stopped.body["choices"][0]["finish_reason"], "stop");
        assert_eq!(s.last_sent()["stop"], json!([" t4"]));

        // Streamed: the last chunk says `length`.
        let streamed = s
            .post(
                "/openai/v1/chat/completions",
                &json!({
                    "model": "mock-model", "stream": true, "max_completion_tokens": 3,
                    "messages": [{"role": "user", "content": "[[mock tokens=30]] count"}],
                }),
            )
            .await;
        streamed.assert_status(200);
        let reasons: Vec<String> = streamed
            .text
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter(|data| *data != "[DONE]")
            .filter_map(|data| serde_json::from_str::<Value>(data).ok())
            .filter_map(|chunk| {
                chunk["choices"][0]["finish_reason"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect();
        assert_eq!(reasons, ["length"], "{}", streamed.text);

        // The Responses API: `incomplete`, and the values it used.
        let cut = s
            .post(
                "/openai/v1/responses",
                &json!({
                    "model": "mock-model", "input": "[[mock tokens=30]] count",
                    "max_output_tokens": 4, "temperature": 0.5,
                }),
            )
            .await;
        cut.assert_status(200);
        assert_eq!(cut.body["status"], "incomplete", "{}", cut.text);
        assert_eq!(
            cut.body["incomplete_details"]["reason"],
            "max_output_tokens"
        );
        assert_eq!(
            (
                &cut.body["temperature"],
                &cut.body["top_p"],
                &cut.body["max_output_tokens"]
            ),
            (&json!(0.5), &json!(1.0), &json!(4))
        );
        let id = cut.body["id"].as_str().unwrap();
        let again = s
            .app
            .get(&format!("/openai/v1/responses/{id}"), Some(&s.token))
            .await;
        again.assert_status(200);
        assert_eq!(
            (
                &again.body["status"],
                &again.body["temperature"],
                &again.body["max_output_tokens"]
            ),
            (&json!("incomplete"), &json!(0.5), &json!(4)),
            "a response read later shows the same"
        );
    }
);

both_backends!(
    values_outside_openais_ranges_are_refused_by_name,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let chat = |extra: Value| {
            let mut body =
                json!({"model": "mock-model", "messages": [{"role": "user", "content": "hi"}]});
            body.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            body
        };
        for (extra, param) in [
            (json!({"temperature": 2.5}), "temperature"),
            (json!({"top_p": 1.5}), "top_p"),
            (json!({"presence_penalty": -3}), "presence_penalty"),
            (json!({"max_tokens": 0}), "max_tokens"),
            (json!({"stop": ["a", "b", "c", "d", "e"]}), "stop"),
        ] {
            let refused = s.post("/openai/v1/chat/completions", &chat(extra)).await;
            refused.assert_status(400);
            assert_eq!(refused.body["error"]["param"], param, "{}", refused.text);
        }
        let refused = s
            .post(
                "/openai/v1/responses",
                &json!({"model": "mock-model", "input": "hi", "temperature": 7}),
            )
            .await;
        refused.assert_status(400);
        assert_eq!(
            refused.body["error"]["param"], "temperature",
            "{}",
            refused.text
        );
        assert!(s.mock.requests().is_empty(), "nothing reached the model");
    }
);

both_backends!(
    a_tools_bounds_fix_clamp_or_refuse_what_a_request_asks,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let clamping = s
            .tool(
                "Steady tutor",
                json!({
                    "behavior": "Help.",
                    "sampling": {
                        "temperature": {"fixed": 0.2},
                        "top_p": {"min": 0.5, "max": 0.9},
                        "max_output_tokens": 8,
                    },
                }),
            )
            .await;
        let done = s
            .post(
                "/openai/v1/responses",
                &json!({
                    "model": clamping, "input": "[[mock tokens=30]] count",
                    "temperature": 1.5, "top_p": 0.1, "max_output_tokens": 100,
                }),
            )
            .await;
        done.assert_status(200);
        let sent = s.last_sent();
        assert_eq!(
            (&sent["temperature"], &sent["top_p"], &sent["max_tokens"]),
            (&json!(0.2), &json!(0.5), &json!(8)),
            "clamped to the tool's bounds"
        );
        assert_eq!(
            (
                &done.body["temperature"],
                &done.body["top_p"],
                &done.body["max_output_tokens"]
            ),
            (&json!(0.2), &json!(0.5), &json!(8)),
            "the response shows the values used"
        );
        // A turn that asks nothing gets the tool's fixed value and cap.
        s.post(
            "/openai/v1/chat/completions",
            &json!({"model": clamping, "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await
        .assert_status(200);
        let sent = s.last_sent();
        assert_eq!(
            (&sent["temperature"], &sent["max_tokens"]),
            (&json!(0.2), &json!(8))
        );
        assert!(sent.get("top_p").is_none(), "a range fixes nothing: {sent}");

        let refusing = s
            .tool(
                "Strict tutor",
                json!({
                    "behavior": "Help.",
                    "sampling": {
                        "temperature": {"max": 1.0},
                        "max_output_tokens": 50,
                        "out_of_bounds": "refuse",
                    },
                }),
            )
            .await;
        let calls_before = s.mock.requests().len();
        let sessions = || async {
            let listed = s.app.get("/v1/sessions?limit=100", Some(&s.token)).await;
            fixtures::items(&listed).len()
        };
        let sessions_before = sessions().await;
        for (extra, param) in [
            (json!({"temperature": 1.5}), "temperature"),
            (json!({"max_tokens": 51}), "max_tokens"),
            (
                json!({"max_completion_tokens": 51}),
                "max_completion_tokens",
            ),
        ] {
            let mut body =
                json!({"model": refusing, "messages": [{"role": "user", "content": "hi"}]});
            body.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let refused = s.post("/openai/v1/chat/completions", &body).await;
            refused.assert_status(400);
            let error = &refused.body["error"];
            assert_eq!(
                (&error["code"], &error["param"]),
                (&json!("invalid_parameter"), &json!(param)),
                "{}",
                refused.text
            );
            assert!(
                error["message"]
                    .as_str()
                    .unwrap()
                    .contains("this tool allows"),
                "{}",
                refused.text
            );
        }
        assert_eq!(s.mock.requests().len(), calls_before, "no call was made");
        let sessions_after = sessions().await;
        assert_eq!(
            sessions_after, sessions_before,
            "a refused request leaves no session"
        );
        let within = json!({"model": refusing, "temperature": 0.7, "messages": [{"role": "user", "content": "hi"}]});
        s.post("/openai/v1/chat/completions", &within)
            .await
            .assert_status(200);
        assert_eq!(s.last_sent()["temperature"], 0.7);
    }
);

both_backends!(
    bounds_that_cannot_hold_are_refused_when_a_tool_is_saved,
    |backend: Backend| async move {
        let app = TestApp::spawn(backend).await;
        let group = fixtures::group(&app, "g", None, json!({})).await;
        for sampling in [
            json!({"temperature": {"fixed": 0.5, "max": 1.0}}),
            json!({"top_p": {"min": 0.9, "max": 0.1}}),
            json!({"temperature": {"max": 3}}),
        ] {
            let created = app
                .post_json(
                    "/v1/admin/tools",
                    Some(&app.admin_token),
                    &json!({"group_id": id(&group), "name": "t", "definition": {"behavior": "b", "sampling": sampling}}),
                )
                .await;
            assert_eq!(created.status, 422, "{sampling}: {created}");
            assert!(created.text.contains("definition.sampling"), "{created}");
        }
    }
);
