//! Structured outputs on the OpenAI-compatible surface (#46 item 3): `response_format`
//! and `text.format` reach the model, the answer is checked before the turn completes —
//! one that does not fit is taken back and asked again with what was wrong (a reader never
//! sees it), one that stays wrong fails naming the place — and a model that cannot answer
//! in a format, or a schema that is none, is refused 400 before anything is asked.

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::{Backend, both_backends};
use serde_json::{Value, json};
use std::io::Write;

use crate::fixtures;
use crate::openai_surface::Surface;

/// `mock-model` answers values of the schema; `words-only` answers in words whatever it
/// is asked (Parley believes it can); `no-json` is configured without structured outputs.
pub async fn surface(backend: Backend) -> Surface {
    let mock = MockLlm::start(MockConfig {
        models: vec!["mock-model".into(), "words-only".into()],
        text_only: vec!["words-only".into()],
        ..MockConfig::default()
    })
    .await;
    let mut config = tempfile::NamedTempFile::new().expect("a temp file");
    write!(
        config,
        "[[providers]]\nname = \"mock\"\nbase_url = \"{}\"\nfirst_token_timeout_ms = 60000\n\n\
         [[models]]\nid = \"mock-model\"\nprovider = \"mock\"\n\n\
         [[models]]\nid = \"words-only\"\nprovider = \"mock\"\n\n\
         [[models]]\nid = \"no-json\"\nupstream = \"mock-model\"\nprovider = \"mock\"\nstructured_outputs = false\n",
        mock.base_url()
    )
    .expect("writing the config");
    Surface::start(backend, mock, config, "shaper@example.com").await
}

pub fn trip() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 2}},
        "required": ["city", "days"],
        "additionalProperties": false,
    })
}

fn chat(model: &str, user: &str, schema: Value) -> Value {
    json!({
        "model": model,
        "messages": [{"role": "user", "content": user}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "trip", "schema": schema, "strict": true}},
    })
}

both_backends!(
    a_structured_answer_is_asked_for_and_checked,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let done = s
            .post(
                "/openai/v1/chat/completions",
                &chat("mock-model", "plan a trip", trip()),
            )
            .await;
        done.assert_status(200);
        let content = done.body["choices"][0]["message"]["content"]
            .as_str()
            .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(content).unwrap(),
            json!({"city": "mock", "days": 2})
        );
        let sent = &s.mock.requests()[0].body;
        assert_eq!(sent["response_format"]["type"], "json_schema");
        assert_eq!(sent["response_format"]["json_schema"]["name"], "trip");
        assert_eq!(sent["response_format"]["json_schema"]["schema"], trip());
        assert_eq!(sent["response_format"]["json_schema"]["strict"], true);

        // The Responses API: `text.format`, shown in the response object.
        let response = s
            .post(
                "/openai/v1/responses",
                &json!({
                    "model": "mock-model", "input": "plan a trip",
                    "text": {"format": {"type": "json_schema", "name": "trip", "schema": trip()}},
                }),
            )
            .await;
        response.assert_status(200);
        assert_eq!(response.body["status"], "completed", "{}", response.text);
        assert_eq!(response.body["text"]["format"]["type"], "json_schema");
        assert_eq!(response.body["text"]["format"]["name"], "trip");
        let text = response.body["output"][0]["content"][0]["text"]
            .as_str()
            .unwrap();
        assert_eq!(serde_json::from_str::<Value>(text).unwrap()["days"], 2);
    }
);

both_backends!(
    an_answer_that_does_not_fit_is_asked_again_and_nobody_sees_it,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let mut body = chat("mock-model", "[[mock reply='{\"city\": 3}']] plan", trip());
        body["stream"] = json!(true);
        let streamed = s.post("/openai/v1/chat/completions", &body).await;
        streamed.assert_status(200);
        let text: String = streamed
            .text
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter(|data| *data != "[DONE]")
            .filter_map(|data| serde_json::from_str::<Value>(data).ok())
            .filter_map(|chunk| {
                chunk["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"city": "mock", "days": 2}),
            "only the repaired answer was streamed: {text}"
        );
        let sent = s.mock.requests();
        assert_eq!(sent.len(), 2, "one repair round");
        let repair = &sent[1].messages;
        let said = &repair[repair.len() - 2];
        assert_eq!(
            (said.role.as_str(), said.content.as_str()),
            ("assistant", r#"{"city": 3}"#)
        );
        let told = &repair[repair.len() - 1];
        assert_eq!(told.role, "user");
        assert!(
            told.content.contains("/city"),
            "the model is told where: {}",
            told.content
        );
        // What is stored is what was streamed.
        let location = streamed.header("location").unwrap().to_owned();
        let prompt = s.app.get(&location, Some(&s.token)).await;
        let session = prompt.body["session_id"].as_str().unwrap();
        let messages = s.app.session_messages(&s.token, session).await;
        assert_eq!(messages.last().unwrap()["content"], text.as_str());
    }
);

both_backends!(
    an_answer_that_stays_wrong_fails_naming_the_place,
    |backend: Backend| async move {
        let s = surface(backend).await;
        // The mock's values ignore `pattern`: both answers miss it at `/code`.
        let coded = json!({
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^[0-9]+$"}},
            "required": ["code"],
            "additionalProperties": false,
        });
        let failed = s
            .post(
                "/openai/v1/chat/completions",
                &chat("mock-model", "a code", coded),
            )
            .await;
        assert_eq!(failed.status, 502, "{failed}");
        let message = failed.body["error"]["message"].as_str().unwrap();
        assert!(message.contains("/code"), "{message}");
        assert_eq!(s.mock.requests().len(), 2, "asked twice");

        // A model that answers in words fails the same way (no place: not JSON at all).
        let words = s
            .post(
                "/openai/v1/chat/completions",
                &chat("words-only", "plan", trip()),
            )
            .await;
        assert_eq!(words.status, 502, "{words}");
        assert!(
            words.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not one JSON value"),
            "{words}"
        );
    }
);

both_backends!(
    a_model_without_structured_outputs_or_a_bad_schema_is_refused,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let refused = s
            .post(
                "/openai/v1/chat/completions",
                &chat("no-json", "plan", trip()),
            )
            .await;
        refused.assert_status(400);
        let error = &refused.body["error"];
        assert_eq!(
            (&error["code"], &error["param"]),
            (&json!("unsupported_parameter"), &json!("response_format")),
            "{}",
            refused.text
        );
        assert!(
            error["message"].as_str().unwrap().contains("no-json"),
            "{}",
            refused.text
        );
        let bad = s
            .post(
                "/openai/v1/chat/completions",
                &chat("mock-model", "plan", json!({"type": "no-such-type"})),
            )
            .await;
        bad.assert_status(400);
        assert_eq!(
            bad.body["error"]["param"], "response_format",
            "{}",
            bad.text
        );
        let unnamed = s
            .post(
                "/openai/v1/responses",
                &json!({"model": "mock-model", "input": "x", "text": {"format": {"type": "json_schema", "schema": trip()}}}),
            )
            .await;
        unnamed.assert_status(400);
        assert_eq!(
            unnamed.body["error"]["param"], "text.format",
            "{}",
            unnamed.text
        );
        assert!(s.mock.requests().is_empty(), "nothing reached the model");
        let listed = s.app.get("/v1/sessions?limit=100", Some(&s.token)).await;
        assert!(
            fixtures::items(&listed).is_empty(),
            "no conversation was left"
        );
    }
);
