//! Resuming: a failed prompt runs again as a new attempt that readers see begin with
//! `retry`. (A cancelled prompt is not resumable: `cancel::streaming_state_and_the_session_cancel`.)

use parley_tests::client::types::PromptState;
use parley_tests::{ApiResult, SseEvent, SseReader, both_backends};

use super::{WAIT, assert_prompt, chat};
use crate::fixtures::api::uuid;

both_backends!(
    a_failed_prompt_resumes_as_a_new_attempt,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let failed = chat.send_json("[[mock status=503]] again").await;
        let (status, problem) = parley_tests::problem(failed);
        assert_eq!(
            (status, problem.code.as_str()),
            (502, "upstream_error"),
            "{problem:?}"
        );
        let instance = problem
            .instance
            .as_deref()
            .unwrap_or_else(|| panic!("the problem names the prompt: {problem:?}"));
        let failed_id = uuid(instance.trim_start_matches("/v1/prompts/"));
        let resumed = chat
            .client
            .resume_prompt()
            .id(failed_id)
            .send()
            .await
            .assert_status(202);
        assert_eq!(resumed.id, failed_id, "{resumed:?}");
        let events = chat.events(failed_id, None).await;
        let events = events_until_attempt_ends(events, 2).await;
        assert!(
            events
                .iter()
                .any(|e| e.event == "retry" && e.data["attempt"] == 2),
            "{events:?}"
        );
        assert_prompt(&chat, failed_id, PromptState::Failed, 2).await;
    }
);

/// Reads a feed until the terminal event of the given attempt.
async fn events_until_attempt_ends(mut feed: SseReader, attempt: u64) -> Vec<SseEvent> {
    let mut events = Vec::new();
    let mut current = 1;
    while let Some(event) = feed.next(WAIT).await {
        if event.event == "retry" {
            current = event.data["attempt"].as_u64().unwrap_or(current);
        }
        let done = event.is_terminal() && current >= attempt;
        events.push(event);
        if done {
            break;
        }
    }
    events
}
