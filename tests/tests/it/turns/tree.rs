//! The message tree (#14 item 1, DESIGN §13): an edit is a sibling of the message it
//! replaces and its branch becomes the active one; a regenerate is another answer to the
//! same user message; the model is sent only the active branch's ancestry; any branch can
//! be read and made active; the feed names each message and its parent.

use parley_mock_llm::RecordedRequest;
use parley_tests::client::types::{FinishedTurn, Message, OnActive};
use parley_tests::{ApiResult, both_backends};
use uuid::Uuid;

use super::{Chat, WAIT, chat};

/// The conversation a model request carried: its user and assistant contents, in order.
fn conversation(request: &RecordedRequest) -> Vec<String> {
    request
        .messages
        .iter()
        .filter(|m| m.role == "user" || m.role == "assistant")
        .map(|m| m.content.clone())
        .collect()
}

/// The conversation of the last model request.
fn sent(chat: &Chat) -> Vec<String> {
    conversation(chat.mock.requests().last().expect("a model request"))
}

fn contents(messages: &[Message]) -> Vec<&str> {
    messages.iter().map(|m| m.content.as_str()).collect()
}

impl Chat {
    /// Sends `content` after `parent` (an edit), in JSON mode, asserting the 201.
    async fn edit(&self, parent: Uuid, content: &str) -> FinishedTurn {
        self.message()
            .body_map(|b| b.content(content).parent_message_id(Some(parent)))
            .send()
            .await
            .assert_status(201)
            .into_inner()
    }

    /// Asks for another answer to `message` in JSON mode, asserting the 201.
    async fn regenerate(&self, message: Uuid) -> FinishedTurn {
        self.client
            .regenerate_message()
            .id(self.session_id)
            .message_id(message)
            .body_map(|b| b)
            .send()
            .await
            .assert_status(201)
            .into_inner()
    }

    /// The branch through `message` (asserted 200).
    async fn branch(&self, message: Uuid) -> Vec<Message> {
        self.client
            .list_session_messages()
            .id(self.session_id)
            .branch(message)
            .limit(100)
            .send()
            .await
            .assert_status(200)
            .into_inner()
            .items
    }
}

/// The user message a finished turn answered.
fn asked(turn: &FinishedTurn) -> Uuid {
    turn.parent_id.expect("the answer names its user message")
}

both_backends!(
    an_edit_branches_and_the_model_sees_only_the_active_branch,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let first = chat
            .send_json("alpha")
            .await
            .assert_status(201)
            .into_inner();
        let second = chat.send_json("beta").await.assert_status(201).into_inner();
        let (q1, a1, q2, a2) = (
            asked(&first),
            first.message_id,
            asked(&second),
            second.message_id,
        );

        // Edit "beta": the replacement follows what "beta" followed.
        let edited = chat.edit(a1, "gamma").await;
        assert_eq!(
            sent(&chat),
            ["alpha", "Echo: alpha", "gamma"],
            "the model is sent the edited branch only"
        );
        let shown = chat.messages().await;
        assert_eq!(
            contents(&shown),
            ["alpha", "Echo: alpha", "gamma", "Echo: gamma"]
        );
        assert_eq!(shown[2].id, asked(&edited));
        assert_eq!(shown[2].parent_id, Some(a1));
        assert_eq!(shown[2].siblings, [q2, asked(&edited)], "‹ 2/2 ›");
        assert_eq!(shown[3].parent_id, Some(asked(&edited)));
        assert_eq!(shown[0].siblings, [q1]);
        assert_eq!(shown[0].parent_id, None);

        // The other branch on request; then made the active one.
        assert_eq!(
            contents(&chat.branch(q2).await),
            ["alpha", "Echo: alpha", "beta", "Echo: beta"]
        );
        let session = chat
            .client
            .switch_branch()
            .id(chat.session_id)
            .body_map(|b| b.message_id(q2))
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(
            session.active_leaf_id,
            Some(a2),
            "the leaf below the message"
        );
        assert_eq!(
            contents(&chat.messages().await),
            ["alpha", "Echo: alpha", "beta", "Echo: beta"]
        );
        // The next message continues the active branch, over a streamed feed that names
        // where each message goes.
        let events = chat.stream("delta").await.until_terminal(WAIT).await;
        assert_eq!(
            sent(&chat),
            ["alpha", "Echo: alpha", "beta", "Echo: beta", "delta"]
        );
        let running = events
            .iter()
            .find(|e| e.data["state"] == "in_progress")
            .expect("an in_progress event");
        let user_message = running.data["user_message_id"].as_str().expect("named");
        assert_eq!(running.data["parent_id"], a2.to_string());
        let complete = events.last().expect("a terminal event");
        assert_eq!(complete.event, "complete", "{events:?}");
        assert_eq!(complete.data["parent_id"], user_message);
        let shown = chat.messages().await;
        assert_eq!(
            shown[4].id.to_string(),
            user_message,
            "saved with the announced id"
        );
        assert_eq!(
            shown[5].id.to_string(),
            complete.data["message_id"].as_str().unwrap()
        );

        // Editing the first message: a new first message (the nil parent).
        chat.edit(Uuid::nil(), "omega").await;
        assert_eq!(sent(&chat), ["omega"]);
        let shown = chat.messages().await;
        assert_eq!(contents(&shown), ["omega", "Echo: omega"]);
        assert_eq!(shown[0].siblings, [q1, shown[0].id]);
    }
);

both_backends!(
    a_regenerate_is_another_answer_to_the_same_message,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let first = chat
            .send_json("alpha")
            .await
            .assert_status(201)
            .into_inner();
        let (q1, a1) = (asked(&first), first.message_id);
        let requests = chat.mock.requests().len();

        // By the answer: the model is asked the same message with the same history.
        let again = chat.regenerate(a1).await;
        assert_eq!(asked(&again), q1);
        assert_ne!(again.message_id, a1);
        assert_eq!(chat.mock.requests().len(), requests + 1);
        assert_eq!(sent(&chat), ["alpha"], "not the earlier answer");
        // By the user message: a third answer.
        let third = chat.regenerate(q1).await;
        let shown = chat.messages().await;
        assert_eq!(shown.len(), 2, "no new user message: {shown:?}");
        assert_eq!(shown[0].id, q1);
        assert_eq!(shown[1].id, third.message_id, "the newest answer is active");
        assert_eq!(
            shown[1].siblings,
            [a1, again.message_id, third.message_id],
            "‹ 3/3 ›"
        );
        // The conversation goes on from the active answer.
        chat.send_json("beta").await.assert_status(201);
        assert_eq!(sent(&chat), ["alpha", "Echo: alpha", "beta"]);
        let count = chat
            .app
            .count(&format!(
                "SELECT count(*) FROM messages WHERE session_id = {}",
                chat.app.sql_uuid(&chat.session_id.to_string())
            ))
            .await;
        assert_eq!(count, 6, "one user message, three answers, then two");

        // Refusals: a model not served, another user's session, another session's
        // message, a message no user said.
        let code = chat
            .client
            .regenerate_message()
            .id(chat.session_id)
            .message_id(a1)
            .body_map(|b| b.model(Some("no-such-model".to_owned())))
            .send()
            .await
            .assert_problem(422);
        assert_eq!(code, "unknown_model");
        let other = crate::fixtures::api::student_with_tool(&chat.app, "other@example.com").await;
        let other_client = chat.app.client_as(&other.token);
        let code = other_client
            .regenerate_message()
            .id(chat.session_id)
            .message_id(a1)
            .body_map(|b| b)
            .send()
            .await
            .assert_problem(404);
        assert_eq!(code, "not_found");
        let theirs = crate::fixtures::api::session(&other_client, other.tool.id).await;
        // A message of another session, named in a body: the session is there, 422.
        let code = other_client
            .send_message()
            .id(theirs.id)
            .body_map(|b| b.content("hi").parent_message_id(Some(a1)))
            .send()
            .await
            .assert_problem(422);
        assert_eq!(code, "message_not_found");
        let code = other_client
            .switch_branch()
            .id(theirs.id)
            .body_map(|b| b.message_id(a1))
            .send()
            .await
            .assert_problem(422);
        assert_eq!(code, "message_not_found");
        for refused in [
            other_client
                .regenerate_message()
                .id(theirs.id)
                .message_id(a1)
                .body_map(|b| b)
                .send()
                .await
                .assert_problem(404),
            other_client
                .switch_branch()
                .id(chat.session_id)
                .body_map(|b| b.message_id(a1))
                .send()
                .await
                .assert_problem(404),
            other_client
                .list_session_messages()
                .id(chat.session_id)
                .send()
                .await
                .assert_problem(404),
        ] {
            assert_eq!(refused, "not_found");
        }
    }
);

both_backends!(
    edits_and_regenerates_follow_the_double_texting_rule,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let first = chat
            .send_json("alpha")
            .await
            .assert_status(201)
            .into_inner();
        let slow = "[[mock tokens=100 token_delay_ms=20]] slow";
        let running = chat.send_in_background(slow, None, None).await;
        // While a turn runs: a regenerate is refused by default, a branch switch always.
        let code = chat
            .client
            .regenerate_message()
            .id(chat.session_id)
            .message_id(first.message_id)
            .body_map(|b| b)
            .send()
            .await
            .assert_problem(409);
        assert_eq!(code, "prompt_active");
        let code = chat
            .client
            .switch_branch()
            .id(chat.session_id)
            .body_map(|b| b.message_id(asked(&first)))
            .send()
            .await
            .assert_problem(409);
        assert_eq!(code, "prompt_active");
        // Queued, an edit runs after the running turn, on the branch it names.
        let queued = chat
            .app
            .send_in_background_body(
                &chat.token,
                &chat.session_id.to_string(),
                &serde_json::json!({"content": "gamma", "parent_message_id": first.message_id}),
                Some(OnActive::Enqueue),
            )
            .await;
        assert!(queued.user_message_id.is_some(), "{queued:?}");
        chat.events(queued.prompt_id, None)
            .await
            .until_terminal(WAIT)
            .await;
        assert_prompt_done(&chat, running.prompt_id).await;
        assert_eq!(sent(&chat), ["alpha", "Echo: alpha", "gamma"]);
        let shown = chat.messages().await;
        assert_eq!(
            contents(&shown),
            ["alpha", "Echo: alpha", "gamma", "Echo: gamma"]
        );
        assert_eq!(shown[2].id, queued.user_message_id.unwrap());
        assert_eq!(shown[2].siblings.len(), 2, "a sibling of the slow message");
    }
);

async fn assert_prompt_done(chat: &Chat, prompt_id: Uuid) {
    let prompt = chat.prompt(prompt_id).await;
    assert_eq!(
        prompt.state,
        parley_tests::client::types::PromptState::Completed,
        "{prompt:?}"
    );
}

both_backends!(
    a_notice_follows_the_active_leaf_and_is_not_regenerated,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let set = chat
            .send_json("set tea timer for 1 second")
            .await
            .assert_status(201)
            .into_inner();
        // The notice comes after the timer's answer, in the active branch.
        let deadline = std::time::Instant::now() + WAIT;
        let notice = loop {
            let shown = chat.messages().await;
            if let Some(notice) = shown.get(2) {
                break notice.clone();
            }
            assert!(std::time::Instant::now() < deadline, "no notice: {shown:?}");
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        };
        assert_eq!(notice.parent_id, Some(set.message_id), "{notice:?}");
        assert!(notice.prompt_id.is_none());
        // It answers nothing a user said.
        let code = chat
            .client
            .regenerate_message()
            .id(chat.session_id)
            .message_id(notice.id)
            .body_map(|b| b)
            .send()
            .await
            .assert_problem(422);
        assert_eq!(code, "nothing_to_regenerate");
        // The next message follows the notice.
        chat.send_json("thanks").await.assert_status(201);
        let shown = chat.messages().await;
        assert_eq!(shown[3].parent_id, Some(notice.id));
    }
);
