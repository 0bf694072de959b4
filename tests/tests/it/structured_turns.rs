//! Structured outputs on Parley's own turn API (#46 item 3): a message's
//! `response_format` reaches the model, the answer is checked before `complete` (a misfit
//! taken back unseen and asked once more; one that stays wrong fails `output_mismatch`
//! naming the place), and a model that cannot, or a format that is none, is refused 422
//! before anything is recorded or asked.

use parley_tests::both_backends;
use parley_tests::turns::text_of;
use serde_json::{Value, json};
use std::time::Duration;

use crate::fixtures::{self, id};
use crate::openai_structured::{surface, trip};

const WITHIN: Duration = Duration::from_secs(30);

both_backends!(
    a_turn_with_a_response_format_streams_only_the_fitting_answer,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let tool = s.tool("Planner", json!({"behavior": "Plan."})).await;
        let session = fixtures::session(&s.app, &s.token, tool.trim_start_matches("tool:")).await;
        let session = id(&session);
        let body = json!({
            "content": "[[mock reply='{\"city\": 3}']] plan a trip",
            "response_format": {"type": "json_schema", "name": "trip", "schema": trip(), "strict": true},
        });
        let response = s
            .app
            .request(
                reqwest::Method::POST,
                &format!("/v1/sessions/{session}/messages"),
                Some(&s.token),
            )
            .header("accept", "text/event-stream")
            .json(&body)
            .send()
            .await
            .expect("sending the message");
        assert_eq!(response.status(), 200);
        let events = parley_tests::SseReader::new(response)
            .until_terminal(WITHIN)
            .await;
        let complete = events.last().expect("a terminal event");
        assert_eq!(complete.event, "complete", "{events:?}");
        let text = text_of(&events);
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"city": "mock", "days": 2}),
            "only the repaired answer was streamed: {text}"
        );
        assert_eq!(complete.data["payload"]["message"], text.as_str());
        let messages = s.app.session_messages(&s.token, &session).await;
        assert_eq!(messages.last().unwrap()["content"], text.as_str());
        let sent = s.mock.requests();
        assert_eq!(sent.len(), 2, "one repair round");
        assert_eq!(
            sent[0].body["response_format"]["json_schema"]["schema"],
            trip()
        );
        assert_eq!(
            sent[0].body["response_format"]["json_schema"]["strict"],
            true
        );

        // An answer that stays wrong fails naming the place (the mock ignores `pattern`).
        let coded = json!({
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^[0-9]+$"}},
            "required": ["code"],
        });
        let failed = s
            .app
            .post_json(
                &format!("/v1/sessions/{session}/messages"),
                Some(&s.token),
                &json!({"content": "a code", "response_format": {"type": "json_schema", "name": "code", "schema": coded}}),
            )
            .await;
        assert_eq!(failed.assert_problem(502), "output_mismatch", "{failed}");
        let detail = failed.body["detail"].as_str().unwrap();
        assert!(detail.contains("/code"), "{detail}");
    }
);

both_backends!(
    a_format_the_model_cannot_keep_or_that_is_none_is_refused_422,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let tool = s.tool("Planner", json!({"behavior": "Plan."})).await;
        let session = fixtures::session(&s.app, &s.token, tool.trim_start_matches("tool:")).await;
        let path = format!("/v1/sessions/{}/messages", id(&session));
        let send = |body: Value| {
            let app = &s.app;
            let path = path.clone();
            let token = s.token.clone();
            async move { app.post_json(&path, Some(&token), &body).await }
        };
        let format = json!({"type": "json_schema", "name": "trip", "schema": trip()});
        let refused =
            send(json!({"content": "plan", "model": "no-json", "response_format": format})).await;
        assert_eq!(
            refused.assert_problem(422),
            "format_unsupported",
            "{refused}"
        );
        let detail = refused.body["detail"].as_str().unwrap();
        assert!(
            detail.contains("no-json") && detail.contains("response_format"),
            "{detail}"
        );

        let bad = send(json!({"content": "plan", "response_format": {"type": "json_schema", "name": "x", "schema": {"type": "no-such-type"}}})).await;
        assert_eq!(bad.assert_problem(422), "invalid_response_format", "{bad}");
        let unnamed = send(json!({"content": "plan", "response_format": {"type": "json_schema", "schema": trip()}})).await;
        assert_eq!(
            unnamed.assert_problem(422),
            "invalid_response_format",
            "{unnamed}"
        );
        let unknown = send(json!({"content": "plan", "response_format": {"type": "yaml"}})).await;
        assert_eq!(
            unknown.assert_problem(422),
            "validation_failed",
            "{unknown}"
        );
        assert_eq!(unknown.body["param"], "response_format.type", "{unknown}");

        assert!(s.mock.requests().is_empty(), "nothing reached the model");
        assert!(
            s.app
                .session_messages(&s.token, &id(&session))
                .await
                .is_empty(),
            "nothing was recorded"
        );

        // The session's own model decides when the message names none: a JSON object
        // from the default model.
        let object = send(json!({"content": "[[mock reply='{\"ok\": true}']] a flag", "response_format": {"type": "json_object"}})).await;
        object.assert_status(201);
        assert_eq!(
            s.mock.requests()[0].body["response_format"]["type"],
            "json_object"
        );
    }
);
