//! Cancelling: a prompt mid-stream (partial content kept, the upstream request aborted),
//! a queued prompt before any worker runs it, and the session's active prompt (with the
//! streaming state that shows it in progress); a cancel reaches the worker as a signal,
//! and one whose signal is lost is still found on the prompt's row.

use std::time::{Duration, Instant};

use parley_mock_llm::Outcome;
use parley_tests::client::types::{OnActive, PromptState};
use parley_tests::turns::{assert_gap_free, text_of};
use parley_tests::{ApiResult, SseEvent, both_backends};

use super::{WAIT, assert_prompt, chat, chat_with, prompt_uuid};

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

/// Streams a long turn and returns its feed and prompt once a few deltas are in.
async fn long_turn(chat: &super::Chat, tokens: u32) -> (parley_tests::SseReader, uuid::Uuid) {
    let mut feed = chat
        .stream(&format!(
            "[[mock tokens={tokens} token_delay_ms=20]] long answer"
        ))
        .await;
    let mut seen = Vec::new();
    while seen
        .iter()
        .filter(|e: &&SseEvent| e.event == "text_delta")
        .count()
        < 3
    {
        seen.push(feed.next(WAIT).await.expect("deltas"));
    }
    (feed, prompt_uuid(&seen))
}

both_backends!(
    a_cancel_reaches_the_worker_as_a_signal,
    |backend: Backend| async move {
        // The worker reads the row only every third of the lease (20 s here): a cancel
        // seen within a few seconds of the request was heard, not polled.
        let chat = chat_with(backend, &[("lease_s", "60")], &[]).await;
        let (mut feed, prompt_id) = long_turn(&chat, 1000).await;
        let cancelled_at = Instant::now();
        chat.client
            .cancel_prompt()
            .id(prompt_id)
            .send()
            .await
            .assert_status(202);
        let rest = feed.until_terminal(WAIT).await;
        let seen_after = cancelled_at.elapsed();
        assert_eq!(rest.last().unwrap().event, "cancelled", "{rest:?}");
        assert!(
            seen_after < Duration::from_secs(4),
            "the cancel took {seen_after:?} to end the stream"
        );
        assert_prompt(&chat, prompt_id, PromptState::Canceled, 1).await;
    }
);

both_backends!(
    a_cancel_whose_signal_is_lost_is_found_on_the_row,
    |backend: Backend| async move {
        // A lease of 6 s: the worker renews it, and reads the row, every 2 s.
        let chat = chat_with(backend, &[("lease_s", "6")], &[]).await;
        let (mut feed, prompt_id) = long_turn(&chat, 2000).await;
        // Recorded on the row as the api does, but never signalled.
        let db = writable_db(&chat.app).await;
        let cancel = format!(
            "UPDATE prompts SET cancel_requested_at = '{}' WHERE id = {}",
            chrono::Utc::now().to_rfc3339(),
            chat.app.sql_uuid(&prompt_id.to_string())
        );
        sea_orm::ConnectionTrait::execute_unprepared(&db, &cancel)
            .await
            .expect("recording a cancel");
        let recorded_at = Instant::now();
        let rest = feed.until_terminal(WAIT).await;
        assert_eq!(rest.last().unwrap().event, "cancelled", "{rest:?}");
        assert!(
            recorded_at.elapsed() < Duration::from_secs(8),
            "found after {:?}, more than a renewal period",
            recorded_at.elapsed()
        );
        assert_prompt(&chat, prompt_id, PromptState::Canceled, 1).await;
    }
);

/// A connection to the app's database that may write (`TestApp::db` is read-only on
/// SQLite).
async fn writable_db(app: &parley_tests::TestApp) -> sea_orm::DatabaseConnection {
    let url = match app.database_url() {
        Some(url) => url.to_owned(),
        None => format!("sqlite://{}", app.data_dir().join("parley.db").display()),
    };
    sea_orm::Database::connect(parley_tests::connect_options(url))
        .await
        .expect("connecting to the app's database")
}
