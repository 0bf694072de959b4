//! Who may touch a prompt (another user's prompts and sessions answer 404) and what a
//! message may be (a model the deployment does not serve, blank content).

use parley_tests::{ApiResult, both_backends};

use super::chat;

both_backends!(
    other_users_prompts_answer_404,
    |backend: Backend| async move {
        let chat = chat(backend).await;
        let done = chat.send_json("mine").await.assert_status(201);
        let prompt_id = done.prompt_id;
        let (_, other_token) = chat.app.create_user("nosy@example.com", "student").await;
        let other = chat.app.client_as(&other_token);
        assert_eq!(
            other
                .get_prompt()
                .id(prompt_id)
                .send()
                .await
                .assert_problem(404),
            "not_found"
        );
        // The feed answers 404 before any event: a problem, not a feed, so the client.
        assert_eq!(
            other
                .get_prompt_events()
                .id(prompt_id)
                .send()
                .await
                .assert_problem(404),
            "not_found"
        );
        assert_eq!(
            other
                .cancel_prompt()
                .id(prompt_id)
                .send()
                .await
                .assert_problem(404),
            "not_found"
        );
        assert_eq!(
            other
                .resume_prompt()
                .id(prompt_id)
                .send()
                .await
                .assert_problem(404),
            "not_found"
        );
        // `?background=true` goes through the client here: its errors are in the
        // document (only its 202 is not).
        let posted = other
            .send_message()
            .id(chat.session_id)
            .background(true)
            .body_map(|b| b.content("hi"))
            .send()
            .await;
        posted.assert_problem(404);
        let bad_model = chat
            .message()
            .background(true)
            .body_map(|b| b.content("hi").model("gpt-nope".to_owned()))
            .send()
            .await;
        assert_eq!(bad_model.assert_problem(422), "unknown_model");
        // Blank content breaks the document's rule (a character that is not white space),
        // which the client does not check (`tests/build.rs` drops validation keywords).
        let empty = chat
            .message()
            .background(true)
            .body_map(|b| b.content("  "))
            .send()
            .await;
        assert_eq!(empty.assert_problem(422), "validation_failed");
    }
);
