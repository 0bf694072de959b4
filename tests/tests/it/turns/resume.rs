//! Resuming: a failed prompt runs again as a new attempt that readers see begin with
//! `retry`. (A cancelled prompt is not resumable: `cancel::streaming_state_and_the_session_cancel`.)

use parley_mock_llm::Outcome;
use parley_tests::client::types::PromptState;
use parley_tests::turns::mock_tokens;
use parley_tests::{ApiResult, SseEvent, SseReader, both_backends};

use super::{WAIT, assert_prompt, chat, chat_with_provider};
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

both_backends!(
    a_broken_answer_resumed_on_a_provider_that_continues_goes_on_from_its_partial_text,
    |backend: Backend| async move {
        let chat = chat_with_provider(
            backend,
            "first_token_timeout_ms = 60000\ncontinue_partial = true",
            &[],
            &[],
        )
        .await;
        // Every call's stream breaks after ten tokens of what it sends: the first attempt
        // ends in `error` with "t1 … t10" kept; the resumed one continues from there
        // (and breaks after ten more: the mock's faults hold for every call).
        let failed = chat
            .send_json("[[mock tokens=30 cut_after=10]] go on")
            .await;
        let (status, problem) = parley_tests::problem(failed);
        assert_eq!((status, problem.code.as_str()), (502, "upstream_error"));
        let id = problem
            .instance
            .as_deref()
            .map(|i| uuid(i.trim_start_matches("/v1/prompts/")))
            .unwrap_or_else(|| panic!("the problem names the prompt: {problem:?}"));
        chat.client
            .resume_prompt()
            .id(id)
            .send()
            .await
            .assert_status(202);
        let events = events_until_attempt_ends(chat.events(id, None).await, 2).await;
        let start = events
            .iter()
            .position(|e| e.event == "retry")
            .expect("the attempt begins with retry");
        let text: String = events[start..]
            .iter()
            .filter(|e| e.event == "text_delta")
            .filter_map(|e| e.data["text"].as_str())
            .collect();
        let (t10, t20) = (mock_tokens(10), mock_tokens(20));
        assert_eq!(
            text, t20,
            "the attempt shows what was kept, then what it added"
        );
        assert_prompt(&chat, id, PromptState::Error, 2).await;
        let answer = &chat.messages().await[1];
        assert_eq!(
            (answer.content.as_str(), answer.is_complete),
            (t20.as_str(), false)
        );
        let requests = chat.mock.requests();
        let calls: Vec<(Option<&str>, usize, Outcome)> = requests
            .iter()
            .map(|r| {
                let last = r.messages.last().filter(|m| m.role == "assistant");
                (last.map(|m| m.content.as_str()), r.tokens_sent, r.outcome)
            })
            .collect();
        assert_eq!(
            calls,
            [
                (None, 10, Outcome::Cut),
                (Some(t10.as_str()), 10, Outcome::Cut)
            ],
            "the second call continues the answer so far and writes only the rest"
        );
        assert_eq!(requests[1].body["continue_final_message"], true);
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
