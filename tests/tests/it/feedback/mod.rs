//! Feedback on answers (#14 item 3): the owner's thumbs up or down with a comment and
//! tags (`PUT`/`DELETE …/messages/{message_id}/feedback`), shown beside each answer of
//! `GET …/messages`; the refusals (another user's session or message 404, a user message
//! 422 `not_an_answer`, bad bodies 422) and the `parley_feedback_total` counter — on
//! both backends, through the typed client; raw requests only for malformed bodies.
//! The administrators' side is [`admin`], the export [`export`].

mod admin;
mod export;

use parley_tests::client::Client;
use parley_tests::client::types::{FinishedTurn, Message, Rating};
use parley_tests::metrics::Scrape;
use parley_tests::{ApiResult, TestApp, both_backends, typed};
use serde_json::json;
use uuid::Uuid;

use crate::fixtures::api;

/// A finished turn of `client`'s session on the demo model.
async fn turn(client: &Client, session_id: Uuid, content: &str) -> FinishedTurn {
    typed::send_message(client, session_id, content)
        .await
        .assert_status(201)
        .into_inner()
}

/// `PUT …/feedback` with `rating` (asserted 200).
async fn rate(
    client: &Client,
    session_id: Uuid,
    message_id: Uuid,
    rating: Rating,
) -> parley_tests::client::types::Feedback {
    client
        .put_message_feedback()
        .id(session_id)
        .message_id(message_id)
        .body_map(|b| b.rating(rating))
        .send()
        .await
        .assert_status(200)
        .into_inner()
}

fn find(messages: &[Message], id: Uuid) -> &Message {
    messages
        .iter()
        .find(|m| m.id == id)
        .unwrap_or_else(|| panic!("{id} is not listed: {messages:?}"))
}

async fn scrape(app: &TestApp) -> Scrape {
    let response = app.get("/metrics", None).await;
    response.assert_status(200);
    Scrape::parse(&response.text)
}

both_backends!(
    the_owner_rates_changes_and_withdraws_and_the_list_shows_it,
    |app| async move {
        let alice = api::student_with_tool(&app, "rater@example.com").await;
        let me = app.client_as(&alice.token);
        let session = api::session(&me, alice.tool.id).await.id;
        let first = turn(&me, session, "What is photosynthesis?").await;
        let second = turn(&me, session, "And respiration?").await;
        let fresh = app
            .get(
                &format!("/v1/sessions/{session}/messages"),
                Some(&alice.token),
            )
            .await;
        fresh.assert_status(200);
        assert!(
            fresh.body["items"]
                .as_array()
                .is_some_and(|items| items.iter().all(|m| m.get("feedback").is_none())),
            "no feedback yet, and none shown: {fresh}"
        );

        let given = me
            .put_message_feedback()
            .id(session)
            .message_id(first.message_id)
            .body_map(|b| {
                b.rating(Rating::Up)
                    .comment(Some("  Clear and short ".to_owned()))
                    .tags(Some(vec![
                        " clear ".to_owned(),
                        "clear".to_owned(),
                        "   ".to_owned(),
                        "biology".to_owned(),
                    ]))
            })
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(given.message_id, first.message_id);
        assert_eq!(given.rating, Rating::Up);
        assert_eq!(given.comment.as_deref(), Some("Clear and short"));
        assert_eq!(given.tags, ["clear", "biology"]);
        rate(&me, session, second.message_id, Rating::Down).await;

        // Each answer carries the caller's feedback; user messages none.
        let shown = typed::messages(&me, session).await;
        assert_eq!(shown.len(), 4);
        let on_first = find(&shown, first.message_id).feedback.clone();
        assert_eq!(on_first.as_ref().map(|f| f.rating), Some(Rating::Up));
        assert_eq!(
            on_first.as_ref().and_then(|f| f.comment.as_deref()),
            Some("Clear and short")
        );
        assert_eq!(
            find(&shown, second.message_id)
                .feedback
                .as_ref()
                .map(|f| f.rating),
            Some(Rating::Down)
        );
        for asked in [first.parent_id, second.parent_id] {
            let asked = asked.expect("the answer names its user message");
            assert_eq!(find(&shown, asked).feedback, None);
        }

        // Given again: changed in place, what is not sent is cleared.
        let changed = rate(&me, session, first.message_id, Rating::Down).await;
        assert_eq!(changed.created_at, given.created_at);
        assert!(changed.updated_at >= given.updated_at);
        assert_eq!((changed.comment, changed.tags.len()), (None, 0));
        let raw = app
            .get(
                &format!("/v1/sessions/{session}/messages"),
                Some(&alice.token),
            )
            .await;
        let listed = raw.body["items"]
            .as_array()
            .and_then(|items| {
                items
                    .iter()
                    .find(|m| m["id"] == first.message_id.to_string())
            })
            .cloned()
            .unwrap_or_default();
        assert_eq!(listed["feedback"]["rating"], "down");
        assert!(
            listed["feedback"].get("comment").is_none(),
            "an absent comment is omitted: {listed}"
        );

        // Withdrawn: gone from the list; withdrawing again is 404.
        me.delete_message_feedback()
            .id(session)
            .message_id(first.message_id)
            .send()
            .await
            .assert_status(204);
        let shown = typed::messages(&me, session).await;
        assert_eq!(find(&shown, first.message_id).feedback, None);
        assert!(find(&shown, second.message_id).feedback.is_some());
        let again = me
            .delete_message_feedback()
            .id(session)
            .message_id(first.message_id)
            .send()
            .await;
        assert_eq!(again.assert_problem(404), "not_found");
    }
);

both_backends!(
    feedback_is_refused_where_it_does_not_belong,
    |app| async move {
        let alice = api::student_with_tool(&app, "alice-fb@example.com").await;
        let bob = api::student_with_tool(&app, "bob-fb@example.com").await;
        let (me, other) = (app.client_as(&alice.token), app.client_as(&bob.token));
        let session = api::session(&me, alice.tool.id).await.id;
        let mine_elsewhere = api::session(&me, alice.tool.id).await.id;
        let answered = turn(&me, session, "Hello there").await;
        let question = answered.parent_id.expect("the user message");
        let path = format!(
            "/v1/sessions/{session}/messages/{}/feedback",
            answered.message_id
        );

        // A user message is no answer.
        let refused = me
            .put_message_feedback()
            .id(session)
            .message_id(question)
            .body_map(|b| b.rating(Rating::Up))
            .send()
            .await;
        assert_eq!(refused.assert_problem(422), "not_an_answer");

        // Another user's session, another session's message, no such message: 404.
        for (client, session_id, message_id) in [
            (&other, session, answered.message_id),
            (&me, mine_elsewhere, answered.message_id),
            (&me, session, Uuid::now_v7()),
            (&me, Uuid::now_v7(), answered.message_id),
        ] {
            let put = client
                .put_message_feedback()
                .id(session_id)
                .message_id(message_id)
                .body_map(|b| b.rating(Rating::Down))
                .send()
                .await;
            assert_eq!(put.assert_problem(404), "not_found");
        }
        rate(&me, session, answered.message_id, Rating::Up).await;
        let taken = other
            .delete_message_feedback()
            .id(session)
            .message_id(answered.message_id)
            .send()
            .await;
        assert_eq!(taken.assert_problem(404), "not_found");
        // Bob's view of nothing of his: Alice's rating is still there.
        let shown = typed::messages(&me, session).await;
        assert_eq!(
            find(&shown, answered.message_id)
                .feedback
                .as_ref()
                .map(|f| f.rating),
            Some(Rating::Up)
        );

        // Bodies that do not fit the schema (sent raw: the client would not build them).
        for body in [
            json!({"rating": "meh"}),
            json!({"rating": 1}),
            json!({}),
            json!({"rating": "up", "comment": "x".repeat(2001)}),
            json!({"rating": "up", "tags": (0..11).map(|i| format!("t{i}")).collect::<Vec<_>>()}),
            json!({"rating": "up", "tags": ["t".repeat(33)]}),
            json!({"rating": "up", "tags": [""]}),
            json!({"rating": "up", "tags": [7]}),
            json!({"rating": "up", "stars": 5}),
        ] {
            let response = app.put_json(&path, Some(&alice.token), &body).await;
            assert_eq!(response.assert_problem(422), "validation_failed", "{body}");
        }
        // At the bounds: accepted.
        let full = app
            .put_json(
                &path,
                Some(&alice.token),
                &json!({
                    "rating": "down",
                    "comment": "y".repeat(2000),
                    "tags": (0..10).map(|i| format!("{i:0>32}")).collect::<Vec<_>>(),
                }),
            )
            .await;
        full.assert_status(200);
        assert_eq!(full.body["tags"].as_array().map(Vec::len), Some(10));
        let unauthenticated = app.put_json(&path, None, &json!({"rating": "up"})).await;
        unauthenticated.assert_problem(401);
        app.delete(&path, None).await.assert_problem(401);
    }
);

both_backends!(
    ratings_given_and_changed_are_counted_by_tool_model_and_rating,
    |app| async move {
        let alice = api::student_with_tool(&app, "counted@example.com").await;
        let me = app.client_as(&alice.token);
        let session = api::session(&me, alice.tool.id).await.id;
        let answered = turn(&me, session, "Count me").await;
        let model = answered.model.clone();
        let labels = |rating| {
            [
                ("tool", "Tutor"),
                ("model", model.as_str()),
                ("rating", rating),
            ]
        };
        let before = scrape(&app).await;
        rate(&me, session, answered.message_id, Rating::Up).await;
        // The same rating again is no new rating; a changed one is.
        rate(&me, session, answered.message_id, Rating::Up).await;
        rate(&me, session, answered.message_id, Rating::Down).await;
        let after = scrape(&app).await;
        let delta = |rating| {
            after
                .sum("parley_feedback_total", &labels(rating))
                .unwrap_or(0.0)
                - before
                    .sum("parley_feedback_total", &labels(rating))
                    .unwrap_or(0.0)
        };
        assert_eq!((delta("up"), delta("down")), (1.0, 1.0), "{}", after.text);
    }
);
