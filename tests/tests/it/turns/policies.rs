//! One prompt per session at a time: `on_active` `reject` (the default), `interrupt` and
//! `enqueue`, and a repeated `Idempotency-Key`.

use std::collections::HashSet;

use parley_tests::client::types::OnActive;
use parley_tests::{ApiResult, both_backends};

use super::{WAIT, chat};

both_backends!(
    idempotency_and_the_active_prompt_policies,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let slow = "[[mock tokens=200 token_delay_ms=20]] slow";
        let first = chat.send_in_background(slow, None, Some("turn-1")).await;
        let again = chat.send_in_background(slow, None, Some("turn-1")).await;
        assert_eq!(
            again.prompt_id, first.prompt_id,
            "a repeated key returns the same prompt"
        );
        // The key with another request is refused (the IETF draft's rule), and records
        // nothing.
        let prompts_before = chat.app.count("SELECT count(*) FROM prompts").await;
        for (content, model) in [("something else", None), (slow, Some("mock-model"))] {
            let mut body = serde_json::json!({ "content": content });
            if let Some(model) = model {
                body["model"] = model.into();
            }
            let reused = chat
                .app
                .send(
                    chat.app
                        .request(
                            reqwest::Method::POST,
                            &format!("/v1/sessions/{}/messages?background=true", chat.session_id),
                            Some(&chat.token),
                        )
                        .header("idempotency-key", "turn-1")
                        .json(&body),
                )
                .await;
            assert_eq!(
                reused.assert_problem(422),
                "idempotency_key_reused",
                "{body}"
            );
        }
        assert_eq!(
            chat.app.count("SELECT count(*) FROM prompts").await,
            prompts_before
        );

        let busy = chat.send_json("meanwhile").await;
        assert_eq!(busy.assert_problem(409), "prompt_active");
        let queued = chat
            .send_in_background("after that", Some(OnActive::Enqueue), None)
            .await;
        let interrupting = chat
            .send_in_background("stop and answer this", Some(OnActive::Interrupt), None)
            .await;

        let first_events = chat
            .events(first.prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(
            first_events.last().unwrap().event,
            "cancelled",
            "interrupt cancels the running prompt"
        );
        for accepted in [&queued, &interrupting] {
            let events = chat
                .events(accepted.prompt_id, None)
                .await
                .until_terminal(WAIT)
                .await;
            assert_eq!(events.last().unwrap().event, "complete", "{events:?}");
        }
        let messages = chat.messages().await;
        let contents: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
        let expected_tail = [
            "after that",
            "Echo: after that",
            "stop and answer this",
            "Echo: stop and answer this",
        ];
        assert_eq!(
            contents[contents.len() - 4..],
            expected_tail,
            "queued turns run in order: {contents:?}"
        );
        let seqs: HashSet<i32> = messages.iter().map(|m| m.seq).collect();
        assert_eq!(seqs.len(), contents.len());
    }
);
