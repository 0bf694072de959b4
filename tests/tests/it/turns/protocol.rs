//! What a turn streams and stores: the event protocol of a streamed turn, reasoning as a
//! thinking block, and the offline demo model of a fresh deployment.

use parley_tests::client::types::{MessageRole, Model, PromptState};
use parley_tests::turns::{assert_gap_free, text_of};
use parley_tests::{ApiResult, both_backends};
use serde_json::{Value, json};

use super::{WAIT, chat, chat_with, prompt_uuid};
use crate::fixtures::api;

both_backends!(
    a_streamed_turn_follows_the_protocol_and_is_persisted,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let mut feed = chat.stream("hello there friend").await;
        assert_eq!(feed.status, 200);
        let location = feed
            .headers
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let events = feed.until_terminal(WAIT).await;
        assert_gap_free(&events);
        let kinds: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(kinds[..2], ["prompt_state", "block_start"], "{kinds:?}");
        assert_eq!(events[0].data["state"], "in_progress");
        let stop = kinds
            .iter()
            .position(|k| *k == "block_stop")
            .expect("a block_stop");
        assert!(
            kinds[2..stop].iter().all(|k| *k == "text_delta"),
            "{kinds:?}"
        );
        assert_eq!(kinds[stop + 1..], ["prompt_state", "complete"], "{kinds:?}");
        assert_eq!(events[stop + 1].data["state"], "completed");
        let text = text_of(&events);
        assert_eq!(text, "Echo: hello there friend");
        let prompt_id = prompt_uuid(&events);
        assert_eq!(location, format!("/v1/prompts/{prompt_id}"));

        let complete = &events.last().unwrap().data;
        assert_eq!(complete["payload"]["message"], text.as_str());
        assert_eq!(complete["model"], "mock-model");
        assert_eq!(complete["vendor"], "mock");
        assert!(complete["usage"]["output_tokens"].as_u64().unwrap() > 0);

        // What was streamed is what was stored.
        let items = chat.messages().await;
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(
            (items[0].role, items[0].content.as_str()),
            (MessageRole::User, "hello there friend")
        );
        assert_eq!(
            (items[1].role, items[1].content.as_str()),
            (MessageRole::Assistant, text.as_str())
        );
        assert_eq!(json!(items[1].id), complete["message_id"]);
        assert!(items[1].is_complete, "{items:?}");
        let prompt = chat.prompt(prompt_id).await;
        assert_eq!(prompt.state, PromptState::Completed, "{prompt:?}");
        assert_eq!(prompt.attempt, 1);
        let usage = chat
            .app
            .count("SELECT COUNT(*) FROM ai_usage WHERE output_tokens > 0 AND input_tokens > 0")
            .await;
        assert_eq!(usage, 1, "one usage row for the one LLM call");

        // The provider got the system prompt and the user's message.
        let request = chat.mock.requests().pop().expect("the mock was called");
        assert!(
            request
                .system_prompt()
                .unwrap_or_default()
                .contains("Help with homework.")
        );
        assert_eq!(
            request.last_user_message().unwrap_or_default(),
            "hello there friend"
        );

        // The session is free again and a second turn sees the first in its history.
        let second = chat.send_json("and again").await.assert_status(201);
        assert_eq!(second.payload.message, "Echo: and again");
        let history = &chat.mock.requests().pop().unwrap().messages;
        assert!(
            history
                .iter()
                .any(|m| m.content == "Echo: hello there friend"),
            "history sent: {history:?}"
        );
    }
);

both_backends!(
    the_offline_demo_model_answers_out_of_the_box,
    |app| async move {
        let admin = app.admin_client();
        let tools = admin.list_tools().send().await.assert_status(200);
        let demo = tools.items.iter().find(|t| t.name == "Demo tutor").cloned();
        let demo =
            demo.unwrap_or_else(|| panic!("a demo tool exists on a fresh deployment: {tools:?}"));
        let models = admin.list_models().send().await.assert_status(200);
        assert_eq!(
            models.items,
            vec![Model {
                id: "parley-demo".to_owned(),
                default: true
            }],
            "{models:?}"
        );
        let session = api::session(&admin, demo.id).await;
        let turn = admin
            .send_message()
            .id(session.id)
            .body_map(|b| b.content("What is photosynthesis?"))
            .send()
            .await
            .assert_status(201);
        assert_eq!(turn.vendor, "parley-offline");
        assert_eq!(turn.model, "parley-demo");
        let message = &turn.payload.message;
        assert!(
            message.contains("offline demo model") && message.contains("What is photosynthesis?"),
            "{message}"
        );
    }
);

both_backends!(
    reasoning_streams_as_a_thinking_block,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let events = chat
            .stream("[[mock reasoning=\"let me think\" reply=Done.]] q")
            .await
            .until_terminal(WAIT)
            .await;
        assert_gap_free(&events);
        let blocks: Vec<(String, Value)> = events
            .iter()
            .filter(|e| e.event == "block_start")
            .map(|e| {
                (
                    e.data["block_type"].as_str().unwrap().to_owned(),
                    e.data["index"].clone(),
                )
            })
            .collect();
        assert_eq!(
            blocks,
            vec![
                ("thinking".to_owned(), json!(0)),
                ("text".to_owned(), json!(1))
            ]
        );
        let thinking: String = events
            .iter()
            .filter(|e| e.event == "thinking_delta")
            .map(|e| e.data["text"].as_str().unwrap())
            .collect();
        assert_eq!(thinking, "let me think");
        assert_eq!(text_of(&events), "Done.");
        assert_eq!(
            events.last().unwrap().data["payload"]["message"],
            "Done.",
            "the answer is the text block only"
        );
    }
);

both_backends!(
    fast_deltas_are_merged_and_slow_ones_are_not_delayed,
    |backend: Backend| async move {
        let count = |events: &[parley_tests::SseEvent]| {
            events.iter().filter(|e| e.event == "text_delta").count()
        };
        let chat = chat(backend).await;
        // 50 tokens at once: the first delta alone, the rest merged (100 ms window).
        let events = chat
            .stream("[[mock tokens=50]] go")
            .await
            .until_terminal(WAIT)
            .await;
        assert_gap_free(&events);
        let expected = parley_tests::turns::mock_tokens(50);
        assert_eq!(text_of(&events), expected);
        let fast = count(&events);
        assert!(
            (2..=10).contains(&fast),
            "{fast} text_delta events for 50 fast tokens"
        );
        assert_eq!(
            events.len(),
            fast + 5,
            "state, start, deltas, stop, state, complete"
        );
        // Tokens 150 ms apart (slower than the window) come one event each: nothing
        // waits for a window.
        let events = chat
            .stream("[[mock tokens=4 token_delay_ms=150]] go")
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(text_of(&events), parley_tests::turns::mock_tokens(4));
        assert_eq!(count(&events), 4);
        // Tokens 20 ms apart (a real model's pace, 1 s): one event per window of 100 ms,
        // each of a few tokens — about ten, never one per token.
        let events = chat
            .stream("[[mock tokens=50 token_delay_ms=20]] go")
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(text_of(&events), expected);
        let paced = count(&events);
        assert!(
            (8..=16).contains(&paced),
            "{paced} text_delta events for 50 tokens 20 ms apart"
        );

        // With the window off, every token is its own event.
        let off = chat_with(backend, &[("delta_window_ms", "0")], &[]).await;
        let events = off
            .stream("[[mock tokens=50]] go")
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(count(&events), 50);
    }
);
