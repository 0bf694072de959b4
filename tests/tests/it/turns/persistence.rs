//! What a turn writes, and when (#9): a plain turn's user message goes with its first
//! checkpoint or with its answer, `seq`s come from the session's counter, and the answer's
//! blocks are written finalized onto it. And what the next turn reads back: the history
//! the model is sent is the whole conversation, whether the worker kept it from the turns
//! it ran (its history cache) or something else wrote to the session meanwhile.

use std::time::{Duration, Instant};

use parley_tests::client::types::MessageRole;
use parley_tests::{ApiResult, both_backends};

use super::{WAIT, chat};

/// The session's messages as (seq, role) and the counter the session keeps.
async fn seqs_and_count(chat: &super::Chat) -> (Vec<(i32, MessageRole)>, i64) {
    let items = chat.messages().await;
    let seqs = items.iter().map(|m| (m.seq, m.role)).collect();
    let count = chat
        .app
        .count(&format!(
            "SELECT CAST(message_count AS BIGINT) FROM sessions WHERE id = {}",
            chat.app.sql_uuid(&chat.session_id.to_string())
        ))
        .await;
    (seqs, count)
}

both_backends!(
    short_turns_write_gap_free_messages_counted_on_the_session,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        for i in 0..3 {
            chat.stream(&format!("[[mock tokens=3]] short {i}"))
                .await
                .until_terminal(WAIT)
                .await;
        }
        let (seqs, count) = seqs_and_count(&chat).await;
        let expected: Vec<(i32, MessageRole)> = (1..=6)
            .map(|seq| {
                let role = if seq % 2 == 1 {
                    MessageRole::User
                } else {
                    MessageRole::Assistant
                };
                (seq, role)
            })
            .collect();
        assert_eq!(seqs, expected);
        assert_eq!(count, 6, "message_count is the seq counter");
        let loose = chat
            .app
            .count("SELECT COUNT(*) FROM blocks WHERE is_finalized = false OR message_id IS NULL")
            .await;
        assert_eq!(loose, 0, "every answer block is finalized onto its message");
        let answers = chat
            .app
            .count(
                "SELECT COUNT(*) FROM prompts p JOIN messages m ON m.id = p.assistant_message_id \
                 JOIN messages u ON u.id = p.user_message_id \
                 WHERE m.seq = u.seq + 1 AND p.state = 'completed'",
            )
            .await;
        assert_eq!(answers, 3, "each prompt names its two messages");
    }
);

both_backends!(
    a_long_turn_shows_its_user_message_from_the_first_checkpoint,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        // About 2 s of streaming: far longer than the checkpoint interval (100 ms).
        let accepted = chat
            .send_in_background(
                "[[mock tokens=40 token_delay_ms=50]] a long one",
                None,
                None,
            )
            .await;
        let mut feed = chat.events(accepted.prompt_id, None).await;
        for _ in 0..6 {
            feed.next(WAIT).await.expect("an event");
        }
        // The turn streams on; its user message shows once a checkpoint wrote it.
        let deadline = Instant::now() + Duration::from_secs(5);
        let items = loop {
            let items = chat.messages().await;
            if !items.is_empty() || Instant::now() > deadline {
                break items;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert_eq!(items.len(), 1, "only the user message, mid-turn: {items:?}");
        assert_eq!(
            (items[0].seq, items[0].role, items[0].content.as_str()),
            (
                1,
                MessageRole::User,
                "[[mock tokens=40 token_delay_ms=50]] a long one"
            )
        );
        let partial = chat.streaming().await;
        assert!(
            partial.prompt.is_some(),
            "the turn is still running: {partial:?}"
        );

        let rest = feed.until_terminal(WAIT).await;
        assert_eq!(rest.last().unwrap().event, "complete");
        let (seqs, count) = seqs_and_count(&chat).await;
        assert_eq!(
            seqs,
            [(1, MessageRole::User), (2, MessageRole::Assistant)],
            "the checkpoint's message is not written again"
        );
        assert_eq!(count, 2);
        let loose = chat
            .app
            .count("SELECT COUNT(*) FROM blocks WHERE is_finalized = false OR message_id IS NULL")
            .await;
        assert_eq!(loose, 0, "checkpointed blocks are finalized at the end");
    }
);

both_backends!(
    the_history_sent_is_the_conversation_even_when_another_writer_appended_to_it,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        // (role, content) of each message the model was sent, without the system prompt.
        let last_request = || {
            let request = chat.mock.requests().pop().expect("the mock was called");
            request
                .messages
                .into_iter()
                .filter(|m| m.role != "system")
                .map(|m| (m.role, m.content))
                .collect::<Vec<_>>()
        };
        let said = |role: &str, content: &str| (role.to_owned(), content.to_owned());
        let mut expected = Vec::new();
        // A short turn, a turn long enough to checkpoint (its user message is written
        // mid-turn), and short ones again: each is sent everything before it.
        let messages = [
            "first",
            "[[mock tokens=12 token_delay_ms=25]] a long one",
            "third",
            "fourth",
        ];
        for content in messages {
            let answer = chat.send_json(content).await.assert_status(201);
            expected.push(said("user", content));
            assert_eq!(last_request(), expected, "the history of {content:?}");
            expected.push(said("assistant", &answer.payload.message));
        }

        // Another writer appends a message (as another worker's turn would: after the
        // active leaf, which it becomes): the next turn is sent it too, not only what
        // this worker ran.
        let session = chat.app.sql_uuid(&chat.session_id.to_string());
        let id = chat.app.sql_uuid(&uuid::Uuid::now_v7().to_string());
        chat.app
            .execute(&[
                format!(
                    "INSERT INTO messages (id, session_id, seq, role, content, is_complete, \
                     created_at, parent_id) \
                     SELECT {id}, session_id, seq + 1, role, 'written elsewhere', is_complete, \
                     created_at, id FROM messages WHERE session_id = {session} \
                     AND seq = (SELECT MAX(seq) FROM messages WHERE session_id = {session})"
                ),
                format!(
                    "UPDATE sessions SET message_count = message_count + 1, \
                     active_leaf_id = {id} WHERE id = {session}"
                ),
            ])
            .await;
        expected.push(said("assistant", "written elsewhere"));
        let answer = chat.send_json("fifth").await.assert_status(201);
        expected.push(said("user", "fifth"));
        assert_eq!(
            last_request(),
            expected,
            "the history after the other write"
        );
        expected.push(said("assistant", &answer.payload.message));
        chat.send_json("sixth").await.assert_status(201);
        expected.push(said("user", "sixth"));
        assert_eq!(last_request(), expected, "and the turn after it");
    }
);
