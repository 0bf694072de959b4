//! What a reader is shown is what is stored: an answer's marker lines (suggestions,
//! actions) never reach a `text_delta`, and the text every reader assembles — live,
//! joined mid-way with `Last-Event-ID`, joined after the end, rebuilt from the database
//! after the event log's retention — is the stored message and `complete`'s.

use std::time::Duration;

use parley_tests::turns::text_of;
use parley_tests::{SseEvent, both_backends};

use super::{WAIT, chat_with};

/// A reply with markers between its lines and at its end (the mock streams it word by
/// word, each line break leading the word after it; the gate's own tests cut texts
/// every other way).
const REPLY: &str = "Here is the plan.\n\
    SUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes, go on\"}]\n\
    So, more words follow it.\n\
    SUGGESTED_ACTIONS: [{\"label\": \"Done\", \"action\": \"end_session\", \"handler\": \"server\"}]\n";

/// What the reader is shown of the reply.
const SHOWN: &str = "Here is the plan.\nSo, more words follow it.";

fn assert_no_marker(events: &[SseEvent], reader: &str) {
    for event in events.iter().filter(|e| e.event == "text_delta") {
        let text = event.data["text"].as_str().unwrap_or_default();
        assert!(
            !text.contains("SUGGESTED") && !text.contains("[{"),
            "{reader}: a delta showed a marker: {text:?}"
        );
    }
}

both_backends!(
    every_reader_is_shown_the_stored_text_and_no_marker,
    |backend: Backend| async move {
        let chat = chat_with(backend, &[("event_retention_s", "2")], &[]).await;
        let accepted = chat
            .send_in_background(
                &format!("[[mock reply='{REPLY}' token_delay_ms=20]] plan it"),
                None,
                None,
            )
            .await;
        let prompt_id = accepted.prompt_id;
        let mut live = chat.events(prompt_id, None).await;
        let mut head = Vec::new();
        while head.len() < 5 {
            head.push(live.next(WAIT).await.expect("an event"));
        }
        let mut joined = chat
            .events(prompt_id, Some(head.last().unwrap().seq()))
            .await;
        let live: Vec<SseEvent> = head
            .iter()
            .cloned()
            .chain(live.until_terminal(WAIT).await)
            .collect();
        let resumed: Vec<SseEvent> = head
            .into_iter()
            .chain(joined.until_terminal(WAIT).await)
            .collect();
        let end = live.last().expect("events");
        assert_eq!(end.event, "complete", "{live:?}");
        let payload = &end.data["payload"];
        assert_eq!(payload["message"], SHOWN);
        assert_eq!(payload["suggested_values"][0]["value"], "Yes, go on");
        assert_eq!(payload["suggested_actions"][0]["action"], "end_session");
        let stored = chat
            .messages()
            .await
            .last()
            .expect("the answer")
            .content
            .clone();
        assert_eq!(stored, SHOWN);

        let late = chat
            .events(prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        tokio::time::sleep(Duration::from_millis(3000)).await;
        let rebuilt = chat
            .events(prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        assert_eq!(rebuilt[0].event, "reset", "the log was gone: {rebuilt:?}");
        for (reader, events) in [
            ("live", &live),
            ("Last-Event-ID", &resumed),
            ("joined late", &late),
            ("rebuilt", &rebuilt),
        ] {
            assert_no_marker(events, reader);
            assert_eq!(text_of(events), SHOWN, "{reader}");
            assert_eq!(events.last().unwrap().data["payload"], *payload, "{reader}");
        }
    }
);
