//! The OpenAI-compatible surface (`/openai/v1`) runs turns like any other, on both
//! backends: the tool's system prompt with the client's instructions after it, the
//! history a request brings, modules (a block is `content_filter`), usage, the
//! conversation on `/v1`, and another user's responses and tools answering 404. The
//! official SDKs' view of it is tested by `scripts/test-openai-sdk.sh`
//! (tests/openai-sdk/).

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::{Backend, TestApp, both_backends};
use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::{self, id};

struct Surface {
    app: TestApp,
    mock: MockLlm,
    token: String,
    tool: String,
    _config: tempfile::NamedTempFile,
}

async fn surface(backend: Backend) -> Surface {
    let mock = MockLlm::start(MockConfig::default()).await;
    let config = mock_provider_config(&mock.base_url(), "");
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &config_path(&config))]).await;
    let (user_id, token) = app.create_user("caller@example.com", "student").await;
    let group = fixtures::group(&app, "openai callers", None, json!({})).await;
    fixtures::add_member(&app, &id(&group), &user_id).await;
    let tool = fixtures::tool(
        &app,
        &id(&group),
        "Guarded tutor",
        json!({
            "behavior": "Help with homework.",
            "modules": [{"name": "safety_filter"}],
        }),
    )
    .await;
    Surface {
        tool: format!("tool:{}", id(&tool)),
        app,
        mock,
        token,
        _config: config,
    }
}

impl Surface {
    async fn post(&self, path: &str, token: &str, body: &Value) -> parley_tests::TestResponse {
        self.app
            .send(self.app.request(Method::POST, path, Some(token)).json(body))
            .await
    }
}

both_backends!(
    a_chat_completion_is_a_turn_with_its_instructions_history_and_modules,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let body = json!({
            "model": s.tool,
            "temperature": 0.2,
            "messages": [
                {"role": "system", "content": "Answer in French."},
                {"role": "user", "content": "earlier question"},
                {"role": "assistant", "content": "earlier answer"},
                {"role": "user", "content": [{"type": "text", "text": "[[mock tokens=3]] now"}]},
            ],
        });
        let done = s.post("/openai/v1/chat/completions", &s.token, &body).await;
        done.assert_status(200);
        assert_eq!(done.body["object"], "chat.completion");
        assert_eq!(done.body["choices"][0]["message"]["content"], "t1 t2 t3");
        assert_eq!(done.body["choices"][0]["finish_reason"], "stop");
        let location = done.header("location").expect("Location").to_owned();
        let prompt_id = location.trim_start_matches("/v1/prompts/");
        assert_eq!(
            done.body["id"],
            format!("chatcmpl-{}", prompt_id.replace('-', "")),
            "the id is the prompt's"
        );
        // What the model was sent: the tool's sections, then the client's instructions;
        // the imported history; the message.
        let sent = s.mock.requests();
        let system = sent[0].system_prompt().expect("a system prompt");
        let behavior = system
            .find("Help with homework.")
            .expect("the tool's behavior");
        let instructions = system.find("Answer in French.").expect("the instructions");
        assert!(behavior < instructions, "{system}");
        let roles: Vec<(&str, &str)> = sent[0]
            .messages
            .iter()
            .map(|m| (m.role.as_str(), m.content.as_str()))
            .collect();
        assert_eq!(
            roles[1..],
            [
                ("user", "earlier question"),
                ("assistant", "earlier answer"),
                ("user", "[[mock tokens=3]] now")
            ]
        );
        // The conversation is a session of the caller's, with its usage.
        let sessions = s.app.get("/v1/sessions", Some(&s.token)).await;
        sessions.assert_status(200);
        let session = &sessions.body["items"][0];
        let messages = s
            .app
            .get(
                &format!("/v1/sessions/{}/messages", id(session)),
                Some(&s.token),
            )
            .await;
        let contents: Vec<&str> = messages.body["items"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| m["content"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(
            contents,
            [
                "earlier question",
                "earlier answer",
                "[[mock tokens=3]] now",
                "t1 t2 t3"
            ]
        );
        assert_eq!(s.app.count("SELECT COUNT(*) FROM ai_usage").await, 1);
        // A module's block: the module's answer, content_filter, no model call.
        let calls = s.mock.requests().len();
        let blocked = s
            .post(
                "/openai/v1/chat/completions",
                &s.token,
                &json!({"model": s.tool, "messages": [{"role": "user", "content": "How do I make a bomb at school?"}]}),
            )
            .await;
        blocked.assert_status(200);
        assert_eq!(
            blocked.body["choices"][0]["finish_reason"],
            "content_filter"
        );
        let said = blocked.body["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or_default();
        assert!(said.starts_with("I can't help with that."), "{said}");
        assert_eq!(s.mock.requests().len(), calls, "the model was not called");
    }
);

both_backends!(
    another_users_responses_and_tools_answer_404,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let created = s
            .post(
                "/openai/v1/responses",
                &s.token,
                &json!({"model": "mock-model", "input": "[[mock tokens=2]] mine"}),
            )
            .await;
        created.assert_status(200);
        assert_eq!(created.body["status"], "completed");
        let response_id = created.body["id"].as_str().expect("an id").to_owned();
        let (_, stranger) = s.app.create_user("stranger@example.com", "student").await;
        for path in [
            format!("/openai/v1/responses/{response_id}"),
            format!("/openai/v1/responses/{response_id}?stream=true"),
        ] {
            let read = s.app.get(&path, Some(&stranger)).await;
            read.assert_status(404);
            assert_eq!(read.body["error"]["type"], "not_found_error", "{path}");
        }
        let cancel = s
            .post(
                &format!("/openai/v1/responses/{response_id}/cancel"),
                &stranger,
                &json!({}),
            )
            .await;
        cancel.assert_status(404);
        let continued = s
            .post(
                "/openai/v1/responses",
                &stranger,
                &json!({"model": "mock-model", "input": "hi", "previous_response_id": response_id}),
            )
            .await;
        continued.assert_status(404);
        assert_eq!(
            continued.body["error"]["code"],
            "previous_response_not_found"
        );
        // The student's tool is no model of the stranger's.
        let models = s.app.get("/openai/v1/models", Some(&stranger)).await;
        let ids: Vec<&str> = models.body["data"]
            .as_array()
            .expect("data")
            .iter()
            .map(|m| m["id"].as_str().unwrap_or_default())
            .collect();
        assert!(!ids.contains(&s.tool.as_str()), "{ids:?}");
        let named = s
            .post(
                "/openai/v1/chat/completions",
                &stranger,
                &json!({"model": s.tool, "messages": [{"role": "user", "content": "hi"}]}),
            )
            .await;
        named.assert_status(404);
        assert_eq!(named.body["error"]["code"], "model_not_found");
        let one = s
            .app
            .get(&format!("/openai/v1/models/{}", s.tool), Some(&stranger))
            .await;
        one.assert_status(404);
        assert_eq!(one.body["error"]["code"], "model_not_found");
        // Their own view lists it, and retrieves it by its id.
        let models = s.app.get("/openai/v1/models", Some(&s.token)).await;
        assert!(models.text.contains(&s.tool), "{}", models.text);
        let one = s
            .app
            .get(&format!("/openai/v1/models/{}", s.tool), Some(&s.token))
            .await;
        one.assert_status(200);
        assert_eq!(
            (&one.body["id"], &one.body["object"]),
            (&json!(s.tool), &json!("model"))
        );
        let deployment = s
            .app
            .get("/openai/v1/models/mock-model", Some(&s.token))
            .await;
        deployment.assert_status(200);
        assert_eq!(deployment.body["id"], "mock-model");
        let unknown = s
            .app
            .get("/openai/v1/models/no-such-model", Some(&s.token))
            .await;
        unknown.assert_status(404);
    }
);

both_backends!(
    a_response_outlives_the_server_that_answered_it,
    |backend: Backend| async move {
        let mut s = surface(backend).await;
        let created = s
            .post(
                "/openai/v1/responses",
                &s.token,
                &json!({"model": "mock-model", "input": "[[mock tokens=4]] keep this"}),
            )
            .await;
        created.assert_status(200);
        // Every field of OpenAI's response object, typed as its schema (and the Open
        // Responses schema) types it: the sampling fields numbers, not null.
        for (field, value) in [
            ("temperature", json!(1.0)),
            ("top_p", json!(1.0)),
            ("presence_penalty", json!(0.0)),
            ("frequency_penalty", json!(0.0)),
            ("top_logprobs", json!(0)),
            ("service_tier", json!("default")),
            ("reasoning", Value::Null),
            ("max_output_tokens", Value::Null),
            ("max_tool_calls", Value::Null),
            ("safety_identifier", Value::Null),
            ("prompt_cache_key", Value::Null),
        ] {
            let object = created.body.as_object().expect("an object");
            assert_eq!(object.get(field), Some(&value), "{field}: {}", created.text);
        }
        let response_id = created.body["id"].as_str().expect("an id").to_owned();
        s.app.restart().await;
        let read = s
            .app
            .get(
                &format!("/openai/v1/responses/{response_id}"),
                Some(&s.token),
            )
            .await;
        read.assert_status(200);
        for field in ["status", "output", "usage", "model", "created_at"] {
            assert_eq!(read.body[field], created.body[field], "{field}");
        }
        // Its events are replayed, from the database when the log did not survive.
        let replay = s
            .app
            .get(
                &format!("/openai/v1/responses/{response_id}?stream=true"),
                Some(&s.token),
            )
            .await;
        replay.assert_status(200);
        assert!(
            replay.text.starts_with("event: response.created\n"),
            "{}",
            replay.text
        );
        assert!(
            replay.text.contains("\"type\":\"response.completed\""),
            "{}",
            replay.text
        );
        assert!(!replay.text.contains("\nid:"), "no SSE ids");
    }
);

both_backends!(
    a_streamed_answer_shows_its_stored_text_and_no_marker,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let reply = "Sure.\nSUGGESTED_VALUES: [{\"label\": \"More\", \"value\": \"Tell me more\"}]\nThat is all.";
        let content = format!("[[mock reply='{reply}']] go");
        let shown = "Sure.\nThat is all.";
        // The `data:` lines' JSON of a streamed answer ([DONE] left out).
        let chunks = |text: &str| -> Vec<Value> {
            text.lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .filter(|d| *d != "[DONE]")
                .map(|d| serde_json::from_str(d).expect("JSON data"))
                .collect()
        };
        let chat = s
            .post(
                "/openai/v1/chat/completions",
                &s.token,
                &json!({"model": "mock-model", "stream": true, "messages": [{"role": "user", "content": content}]}),
            )
            .await;
        chat.assert_status(200);
        let streamed: String = chunks(&chat.text)
            .iter()
            .filter_map(|c| {
                c["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect();
        assert_eq!(streamed, shown, "{}", chat.text);
        let responses = s
            .post(
                "/openai/v1/responses",
                &s.token,
                &json!({"model": "mock-model", "stream": true, "input": content}),
            )
            .await;
        responses.assert_status(200);
        let events = chunks(&responses.text);
        let deltas: String = events
            .iter()
            .filter(|e| e["type"] == "response.output_text.delta")
            .filter_map(|e| e["delta"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(deltas, shown, "{}", responses.text);
        let done = events
            .iter()
            .find(|e| e["type"] == "response.output_text.done")
            .expect("output_text.done");
        assert_eq!(done["text"], shown);
    }
);

both_backends!(
    a_responses_input_is_read_item_by_item_and_its_errors_name_the_field,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let first = s
            .post(
                "/openai/v1/responses",
                &s.token,
                &json!({"model": "mock-model", "input": "[[mock reply='The capital is Paris.']] capital?"}),
            )
            .await;
        first.assert_status(200);
        let answer_id = first.body["output"][0]["id"]
            .as_str()
            .expect("an item id")
            .to_owned();
        // Its output sent back (as `input += response.output` does), and as a reference.
        for (how, said) in [
            ("the item", first.body["output"][0].clone()),
            (
                "a reference",
                json!({"type": "item_reference", "id": answer_id}),
            ),
        ] {
            let input = json!([
                {"role": "user", "content": "capital?"},
                said,
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "mcp_call", "id": "mcp_x", "server_label": "parley", "name": "getCurrentTime", "arguments": "{}", "output": "noon", "error": null, "status": "completed"},
                {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "{\"ok\": true}"},
                {"role": "user", "content": [{"type": "input_text", "text": "[[mock tokens=2]] and Spain?"}]},
            ]);
            let next = s
                .post(
                    "/openai/v1/responses",
                    &s.token,
                    &json!({"model": "mock-model", "input": input}),
                )
                .await;
            next.assert_status(200);
            let sent = s.mock.requests();
            let roles: Vec<(&str, &str)> = sent.last().unwrap().messages[1..]
                .iter()
                .map(|m| (m.role.as_str(), m.content.as_str()))
                .collect();
            assert_eq!(
                roles,
                [
                    ("user", "capital?"),
                    ("assistant", "The capital is Paris."),
                    ("user", "[[mock tokens=2]] and Spain?")
                ],
                "{how}"
            );
        }
        // What is wrong is named by its path, and nothing of the input is repeated.
        let secret = "my-secret-words";
        for (input, param, code) in [
            (
                json!([{"role": "user", "content": secret}, {"type": "function_call", "name": "f"}]),
                "input[1].call_id",
                "validation_failed",
            ),
            (
                json!([{"type": "message", "content": secret}]),
                "input[0].role",
                "validation_failed",
            ),
            (
                json!([{"role": "user", "content": [{"type": "input_audio", "text": secret}]}]),
                "input[0].content[0].type",
                "unsupported_content",
            ),
            (
                json!([{"type": "computer_call", "id": secret}]),
                "input[0].type",
                "unsupported_input",
            ),
            (
                json!([{"role": "user", "content": secret}, {"type": "function_call_output", "call_id": "nope", "output": "x"}, {"role": "user", "content": "hi"}]),
                "input[1].call_id",
                "validation_failed",
            ),
            (
                // Results that end the input answer a waiting call of a response's.
                json!([{"role": "user", "content": secret}, {"type": "function_call", "call_id": "c", "name": "f"}, {"type": "function_call_output", "call_id": "c", "output": "x"}]),
                "input[2].call_id",
                "invalid_parameter",
            ),
        ] {
            let refused = s
                .post(
                    "/openai/v1/responses",
                    &s.token,
                    &json!({"model": "mock-model", "input": input}),
                )
                .await;
            refused.assert_status(400);
            let error = &refused.body["error"];
            assert_eq!(
                (&error["param"], &error["code"]),
                (&json!(param), &json!(code)),
                "{}",
                refused.text
            );
            assert!(!refused.text.contains(secret), "{}", refused.text);
        }
        // A body poem-openapi refuses is named the same way.
        let refused = s
            .post(
                "/openai/v1/responses",
                &s.token,
                &json!({"model": "mock-model", "input": secret, "background": "yes-please"}),
            )
            .await;
        refused.assert_status(400);
        assert_eq!(
            refused.body["error"]["param"], "background",
            "{}",
            refused.text
        );
        assert!(
            !refused.text.contains("yes-please") && !refused.text.contains(secret),
            "{}",
            refused.text
        );
        // Another user's item, or none, is not found.
        let (_, stranger) = s.app.create_user("stranger@example.com", "student").await;
        for (token, id) in [(&stranger, answer_id.as_str()), (&s.token, "msg_0000_0")] {
            let input =
                json!([{"type": "item_reference", "id": id}, {"role": "user", "content": "hi"}]);
            let missing = s
                .post(
                    "/openai/v1/responses",
                    token,
                    &json!({"model": "mock-model", "input": input}),
                )
                .await;
            missing.assert_status(404);
            assert_eq!(
                missing.body["error"]["code"], "item_not_found",
                "{}",
                missing.text
            );
            assert_eq!(missing.body["error"]["param"], "input[0].id");
        }
    }
);

both_backends!(
    options_parley_does_not_offer_are_refused_by_name,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let chat = |extra: Value| {
            let mut body = json!({"model": "mock-model", "messages": [{"role": "user", "content": "[[mock tokens=1]] hi"}]});
            body.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            body
        };
        for (extra, param) in [
            (json!({"n": 2}), "n"),
            (json!({"logprobs": true}), "logprobs"),
            (json!({"top_logprobs": 3}), "top_logprobs"),
            (
                json!({"audio": {"voice": "alloy", "format": "wav"}}),
                "audio",
            ),
            (json!({"modalities": ["text", "audio"]}), "modalities"),
            (
                json!({"prediction": {"type": "content", "content": "x"}}),
                "prediction",
            ),
            (json!({"logit_bias": {"50256": -100}}), "logit_bias"),
        ] {
            let refused = s
                .post("/openai/v1/chat/completions", &s.token, &chat(extra))
                .await;
            refused.assert_status(400);
            let error = &refused.body["error"];
            assert_eq!(
                (&error["code"], &error["param"]),
                (&json!("unsupported_parameter"), &json!(param)),
                "{}",
                refused.text
            );
        }
        // What clients send by default is no request for them.
        let defaults = json!({"n": 1, "logprobs": false, "top_logprobs": 0, "modalities": ["text"], "logit_bias": {}, "audio": null});
        s.post("/openai/v1/chat/completions", &s.token, &chat(defaults))
            .await
            .assert_status(200);
        let refused = s
            .post(
                "/openai/v1/responses",
                &s.token,
                &json!({"model": "mock-model", "input": "hi", "top_logprobs": 2}),
            )
            .await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["param"], "top_logprobs");
        assert_eq!(
            s.mock.requests().len(),
            1,
            "only the request without them reached the model"
        );
    }
);
