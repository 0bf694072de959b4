//! Cancelling: a prompt mid-stream (partial content kept, the upstream request aborted),
//! a queued prompt before any worker runs it, and the session's active prompt (with the
//! streaming state that shows it in progress).

use std::time::Duration;

use parley_mock_llm::Outcome;
use parley_tests::client::types::{OnActive, PromptState};
use parley_tests::turns::{assert_gap_free, text_of};
use parley_tests::{ApiResult, SseEvent, both_backends};

use super::{WAIT, assert_prompt, chat, prompt_uuid};

both_backends!(
    cancel_mid_stream_keeps_partial_content,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let mut feed = chat
            .stream("[[mock tokens=400 token_delay_ms=20]] long answer")
            .await;
        let mut seen = Vec::new();
        while seen
            .iter()
            .filter(|e: &&SseEvent| e.event == "text_delta")
            .count()
            < 5
        {
            seen.push(feed.next(WAIT).await.expect("deltas"));
        }
        let prompt_id = prompt_uuid(&seen);
        let cancel = || chat.client.cancel_prompt().id(prompt_id).send();
        cancel().await.assert_status(202);
        let rest = feed.until_terminal(WAIT).await;
        let last = rest.last().expect("a terminal event");
        assert_eq!(last.event, "cancelled", "{rest:?}");
        let all: Vec<SseEvent> = seen.into_iter().chain(rest).collect();
        assert_gap_free(&all);
        let streamed = text_of(&all);
        assert!(
            streamed.split_whitespace().count() < 400,
            "the stream stopped early"
        );

        let prompt = chat.prompt(prompt_id).await;
        assert_eq!(prompt.state, PromptState::Canceled, "{prompt:?}");
        let messages = chat.messages().await;
        let answer = &messages[1];
        assert!(!answer.is_complete, "{messages:?}");
        assert!(
            !answer.content.is_empty() && streamed.starts_with(&answer.content),
            "{answer:?}"
        );
        let recorded = chat
            .mock
            .wait_for(Duration::from_secs(5), |requests| {
                requests
                    .iter()
                    .any(|r| r.outcome == Outcome::ClientDisconnected)
            })
            .await;
        assert!(recorded.is_some(), "the upstream request was aborted");
        let again = cancel().await;
        assert!(
            matches!(&again, Ok(value) if value.status() == 202),
            "cancelling a cancelled prompt is harmless: {again:?}"
        );
        let usage = chat.app.count("SELECT COUNT(*) FROM ai_usage").await;
        assert_eq!(usage, 1, "a cancelled call still records its usage");
        chat.send_json("next").await.assert_status(201);
    }
);

both_backends!(
    a_cancel_before_any_worker_runs_the_prompt_wins,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let running = chat
            .send_in_background("[[mock tokens=40 token_delay_ms=20]] first", None, None)
            .await;
        // Queued behind the running prompt: no worker has it yet.
        let queued = chat
            .send_in_background("second", Some(OnActive::Enqueue), None)
            .await;
        let queued_id = queued.prompt_id;
        let cancel = chat
            .client
            .cancel_prompt()
            .id(queued_id)
            .send()
            .await
            .assert_status(202);
        assert!(
            cancel.cancel_requested_at.is_some(),
            "the cancel is recorded first: {cancel:?}"
        );
        let events = chat
            .events(queued_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        let kinds: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(kinds, ["prompt_state", "cancelled"], "{events:?}");
        assert_eq!(events[0].data["state"], "canceled");
        assert_prompt(&chat, queued_id, PromptState::Canceled, 0).await;
        assert!(
            !chat
                .mock
                .requests()
                .iter()
                .any(|r| r.last_user_message().unwrap_or_default() == "second")
        );
        let first = chat
            .events(running.prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(
            first.last().unwrap().event,
            "complete",
            "the running prompt was not touched"
        );
    }
);

both_backends!(
    streaming_state_and_the_session_cancel,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let idle = chat.streaming().await;
        assert_eq!(
            idle.prompt, None,
            "an idle session streams nothing: {idle:?}"
        );
        let cancel = || {
            chat.client
                .cancel_session_prompt()
                .id(chat.session_id)
                .send()
        };
        assert_eq!(cancel().await.assert_problem(409), "nothing_to_cancel");

        let accepted = chat
            .send_in_background("[[mock tokens=300 token_delay_ms=20]] slow", None, None)
            .await;
        let prompt_id = accepted.prompt_id;
        let mut partial = String::new();
        for _ in 0..100 {
            let state = chat.streaming().await;
            if let Some(content) = state
                .blocks
                .first()
                .map(|b| b.content.as_str())
                .filter(|c| c.split_whitespace().count() >= 3)
            {
                let prompt = state.prompt.as_ref().expect("the active prompt");
                assert_eq!(prompt.id, prompt_id);
                assert_eq!(prompt.state, PromptState::InProgress);
                assert!(!state.blocks[0].is_finalized, "{state:?}");
                partial = content.to_owned();
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(
            partial.starts_with("t1 t2 t3"),
            "partial blocks are checkpointed while streaming: {partial:?}"
        );
        cancel().await.assert_status(202);
        let events = chat
            .events(prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(events.last().unwrap().event, "cancelled");
        let resume_cancelled = chat.client.resume_prompt().id(prompt_id).send().await;
        assert_eq!(resume_cancelled.assert_problem(409), "not_resumable");
    }
);
