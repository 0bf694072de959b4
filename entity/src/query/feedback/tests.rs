use sea_orm::{ActiveModelTrait, DatabaseConnection, Set};
use serde_json::json;

use super::{
    export::{self, CallOutput, ExportFilter},
    report::{self, FeedbackFilter},
    *,
};
use crate::{
    blocks,
    enums::{BlockType, ToolCallState, UserRole},
    query::{
        self as q,
        conversation::{self, MessageRow},
        metrics::Window,
        page::PageRequest,
        testing::{self, on_both_backends},
        tool_calls::{self as calls, NewToolCall},
    },
};

fn up(comment: Option<&str>, tags: &[&str]) -> Feedback {
    Feedback::new(FeedbackRating::Up, comment, tags).expect("fits the bounds")
}

fn down() -> Feedback {
    Feedback::new(FeedbackRating::Down, None, &[]).expect("fits the bounds")
}

/// An answer of `session` written by a prompt of `model` (with a system prompt).
async fn answer(
    db: &DatabaseConnection,
    session: &sessions::Model,
    model: &str,
    content: &str,
) -> messages::Model {
    let prompt = testing::prompt(db, session.id).await;
    let mut row: prompts::ActiveModel = prompt.into();
    row.model = Set(Some(model.to_owned()));
    row.state = Set(crate::enums::PromptState::Completed);
    row.completed_at = Set(Some(q::now()));
    row.system_message = Set(Some(format!("You are {model}.")));
    let prompt = row.update(db).await.expect("finishing a prompt");
    let new = conversation::NewMessage {
        session_id: session.id,
        role: MessageRole::Assistant,
        content: content.to_owned(),
        prompt_id: Some(prompt.id),
        is_complete: true,
    };
    conversation::append_message(db, new, q::now())
        .await
        .expect("appending an answer")
}

#[test]
fn feedback_is_normalized_and_bounded() {
    let fb = Feedback::new(
        FeedbackRating::Up,
        Some("  clear  "),
        &[" maths ", "", "maths", "tone"],
    )
    .unwrap();
    assert_eq!(fb.comment.as_deref(), Some("clear"));
    assert_eq!(fb.tags, ["maths", "tone"]);
    assert_eq!(
        Feedback::new(FeedbackRating::Down, Some("   "), &[])
            .unwrap()
            .comment,
        None
    );
    let long = "x".repeat(COMMENT_MAX_CHARS + 1);
    let refused = Feedback::new(FeedbackRating::Up, Some(&long), &[]).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::ValidationFailed);
    let tag = "t".repeat(TAG_MAX_CHARS + 1);
    assert!(Feedback::new(FeedbackRating::Up, None, &[&tag]).is_err());
    let many: Vec<String> = (0..=MAX_TAGS).map(|i| format!("t{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    assert!(Feedback::new(FeedbackRating::Up, None, &many).is_err());
}

on_both_backends!(the_author_gives_changes_and_withdraws, |db| {
    let alice = testing::user(&db, UserRole::Student).await;
    let bob = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, alice).await;
    let question = testing::message(&db, session.id, MessageRole::User, "2+2?").await;
    let reply = answer(&db, &session, "m1", "4").await;

    let first = give(
        &db,
        alice,
        session.id,
        reply.id,
        up(Some("nice"), &["maths"]),
        q::now(),
    )
    .await
    .unwrap();
    assert_eq!(first.previous, None);
    assert!(first.rating_changed());
    assert_eq!(
        (first.tool_name.as_str(), first.model.as_deref()),
        ("Tutor", Some("m1"))
    );
    assert_eq!(first.feedback.tags, FeedbackTags(vec!["maths".into()]));

    // Given again: the same row, changed in place.
    let again = give(&db, alice, session.id, reply.id, down(), q::now())
        .await
        .unwrap();
    assert_eq!(again.feedback.id, first.feedback.id);
    assert_eq!(again.feedback.created_at, first.feedback.created_at);
    assert_eq!(again.previous, Some(FeedbackRating::Up));
    assert_eq!(
        (
            again.feedback.comment.as_deref(),
            again.feedback.tags.0.len()
        ),
        (None, 0)
    );
    let same = give(&db, alice, session.id, reply.id, down(), q::now())
        .await
        .unwrap();
    assert!(!same.rating_changed(), "the same rating again is no change");

    // Not an answer; not the owner's; not the session's.
    let refused = give(&db, alice, session.id, question.id, down(), q::now())
        .await
        .unwrap_err();
    assert_eq!(refused.code(), ErrorCode::NotAnAnswer);
    for (user, message) in [(bob, reply.id), (alice, Uuid::now_v7())] {
        let missing = give(&db, user, session.id, message, down(), q::now())
            .await
            .unwrap_err();
        assert_eq!(missing.code(), ErrorCode::NotFound);
    }
    assert_eq!(
        withdraw(&db, bob, session.id, reply.id)
            .await
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );

    let mine = of_messages(&db, alice, &[question.id, reply.id])
        .await
        .unwrap();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[&reply.id].rating, FeedbackRating::Down);
    assert!(
        of_messages(&db, bob, &[reply.id]).await.unwrap().is_empty(),
        "only one's own"
    );

    withdraw(&db, alice, session.id, reply.id).await.unwrap();
    assert_eq!(
        withdraw(&db, alice, session.id, reply.id)
            .await
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
    assert!(
        of_messages(&db, alice, &[reply.id])
            .await
            .unwrap()
            .is_empty()
    );
});

on_both_backends!(admins_list_and_count_by_tool_and_model, |db| {
    let alice = testing::user(&db, UserRole::Student).await;
    let bob = testing::user(&db, UserRole::Student).await;
    let s1 = testing::session(&db, alice).await;
    let s2 = testing::session(&db, bob).await;
    let a1 = answer(&db, &s1, "m1", "one").await;
    let a2 = answer(&db, &s1, "m2", "two").await;
    let b1 = answer(&db, &s2, "m1", "three").await;
    let now = q::now();
    give(&db, alice, s1.id, a1.id, up(Some("good"), &["x"]), now)
        .await
        .unwrap();
    give(&db, alice, s1.id, a2.id, down(), now).await.unwrap();
    give(&db, bob, s2.id, b1.id, down(), now).await.unwrap();

    let all = |filter: FeedbackFilter| {
        let db = &db;
        async move {
            report::list(
                db,
                &filter,
                PageRequest {
                    limit: 10,
                    after: None,
                },
            )
            .await
            .unwrap()
            .items
        }
    };
    let listed = all(FeedbackFilter::default()).await;
    assert_eq!(
        listed.iter().map(|e| e.message_id).collect::<Vec<_>>(),
        [b1.id, a2.id, a1.id],
        "newest first"
    );
    let first = &listed[2];
    assert_eq!(
        (
            first.content.as_str(),
            first.model.as_deref(),
            first.tool_name.as_str(),
            first.comment.as_deref(),
            first.user_id,
        ),
        ("one", Some("m1"), "Tutor", Some("good"), alice)
    );
    let downs = all(FeedbackFilter {
        rating: Some(FeedbackRating::Down),
        ..Default::default()
    })
    .await;
    assert_eq!(downs.len(), 2);
    let m1 = all(FeedbackFilter {
        model: Some("m1".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(m1.len(), 2);
    let of_tool = all(FeedbackFilter {
        tool_id: Some(s2.tool_id),
        ..Default::default()
    })
    .await;
    assert_eq!(
        of_tool.iter().map(|e| e.id).collect::<Vec<_>>(),
        [listed[0].id]
    );
    let of_bob = all(FeedbackFilter {
        user_id: Some(bob),
        ..Default::default()
    })
    .await;
    assert_eq!(of_bob.len(), 1);
    let later = all(FeedbackFilter {
        window: Window {
            from: Some(now + chrono::Duration::seconds(1)),
            to: None,
        },
        ..Default::default()
    })
    .await;
    assert!(later.is_empty());
    // Pages of one.
    let page = report::list(
        &db,
        &FeedbackFilter::default(),
        PageRequest {
            limit: 1,
            after: Some(listed[0].id),
        },
    )
    .await
    .unwrap();
    assert_eq!(page.items[0].id, listed[1].id);
    assert_eq!(page.next, Some(listed[1].id));

    let figures = report::figures(&db, Window::default()).await.unwrap();
    assert_eq!(figures.total, report::Counts { up: 1, down: 2 });
    let mut by_tool: Vec<(Uuid, report::Counts)> = figures
        .by_tool
        .iter()
        .map(|t| (t.tool_id, t.counts))
        .collect();
    by_tool.sort_by_key(|(id, _)| *id);
    let mut expected = vec![
        (s1.tool_id, report::Counts { up: 1, down: 1 }),
        (s2.tool_id, report::Counts { up: 0, down: 1 }),
    ];
    expected.sort_by_key(|(id, _)| *id);
    assert_eq!(by_tool, expected);
    assert_eq!(
        figures
            .by_model
            .iter()
            .map(|m| (m.model.as_deref(), m.counts))
            .collect::<Vec<_>>(),
        [
            (Some("m1"), report::Counts { up: 1, down: 1 }),
            (Some("m2"), report::Counts { up: 0, down: 1 }),
        ]
    );
    let empty = report::figures(
        &db,
        Window {
            from: None,
            to: Some(now - chrono::Duration::seconds(1)),
        },
    )
    .await
    .unwrap();
    assert_eq!(empty.total, report::Counts::default());
    assert!(empty.by_tool.is_empty() && empty.by_model.is_empty());
});

on_both_backends!(the_export_reads_active_branches_with_their_calls, |db| {
    let alice = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, alice).await;
    let other = testing::session(&db, alice).await;
    let q1 = testing::message(&db, session.id, MessageRole::User, "first").await;
    let a1 = answer(&db, &session, "m1", "Checking[[tool:0]]It is noon.").await;
    let prompt_id = a1.prompt_id.expect("an answer's prompt");
    // The call as the worker records it: a row, a `tool_call` block with its marker.
    let (row, _) = calls::start(
        &db,
        NewToolCall {
            session_id: session.id,
            prompt_id,
            api_tool_call_id: "call_abc".into(),
            tool_name: "getCurrentTime".into(),
            tool_args: json!({"tz": "UTC"}),
            provider_state: None,
        },
        q::now(),
    )
    .await
    .unwrap();
    calls::finish(
        &db,
        row.id,
        None,
        ToolCallState::Success,
        Some(json!({"time": "12:00"})),
        None,
        q::now(),
    )
    .await
    .unwrap();
    calls::attach(&db, prompt_id, a1.id).await.unwrap();
    blocks::ActiveModel {
        id: Set(Uuid::now_v7()),
        message_id: Set(Some(a1.id)),
        prompt_id: Set(prompt_id),
        index: Set(1),
        r#type: Set(BlockType::ToolCall),
        content: Set("{\"time\":\"12:00\"}".into()),
        metadata: Set(json!({"n": 0, "tool": "getCurrentTime", "tool_use_id": "call_abc"})),
        is_finalized: Set(true),
        created_at: Set(q::now()),
        updated_at: Set(q::now()),
    }
    .insert(&db)
    .await
    .unwrap();
    // Archived payloads are read back from the archive.
    let archived = calls::archive_payloads(&db, q::now() + chrono::Duration::days(1), 10, q::now())
        .await
        .unwrap();
    assert_eq!(archived, 1);
    // A second exchange, then an edit of it: the active branch is the edit's.
    testing::message(&db, session.id, MessageRole::User, "old question").await;
    answer(&db, &session, "m2", "old answer").await;
    let edit = MessageRow {
        id: Uuid::now_v7(),
        role: MessageRole::User,
        content: "new question".into(),
        prompt_id: None,
        is_complete: true,
        parent_id: Some(a1.id),
    };
    let txn = q::begin_write(&db, "editing").await.unwrap();
    conversation::append_messages(&txn, session.id, &[edit], q::now())
        .await
        .unwrap();
    txn.commit().await.unwrap();
    let a3 = answer(&db, &session, "m1", "new answer").await;
    testing::message(&db, other.id, MessageRole::User, "elsewhere").await;
    answer(&db, &other, "m2", "over there").await;

    let page = export::page(&db, &ExportFilter::default(), None, 10)
        .await
        .unwrap();
    assert_eq!(page.next, None);
    assert_eq!(page.conversations.len(), 2);
    let conv = page
        .conversations
        .iter()
        .find(|c| c.session_id == session.id)
        .expect("the session");
    assert_eq!(
        conv.messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>(),
        [
            "first",
            "Checking[[tool:0]]It is noon.",
            "new question",
            "new answer"
        ]
    );
    assert_eq!(conv.messages[0].id, q1.id);
    assert_eq!(conv.system.as_deref(), Some("You are m1."));
    let call = &conv.calls[&a1.id][&0];
    assert_eq!(
        (call.id.as_str(), call.name.as_str(), &call.arguments),
        ("call_abc", "getCurrentTime", &json!({"tz": "UTC"}))
    );
    assert_eq!(call.output, CallOutput::Result(json!({"time": "12:00"})));
    assert!(!conv.calls.contains_key(&a3.id));

    // Filters: the model must have answered on the active branch; pages of one.
    let m2 = export::page(
        &db,
        &ExportFilter {
            model: Some("m2".into()),
            ..Default::default()
        },
        None,
        10,
    )
    .await
    .unwrap();
    assert_eq!(
        m2.conversations
            .iter()
            .map(|c| c.session_id)
            .collect::<Vec<_>>(),
        [other.id],
        "m2 answered only off the active branch of the first session"
    );
    let first = export::page(&db, &ExportFilter::default(), None, 1)
        .await
        .unwrap();
    assert_eq!(first.next, Some(Ord::min(session.id, other.id)));
    let rest = export::page(&db, &ExportFilter::default(), first.next, 1)
        .await
        .unwrap();
    assert_eq!(
        rest.conversations[0].session_id,
        Ord::max(session.id, other.id)
    );

    // Rated: only conversations whose active branch has an answer rated so.
    give(&db, alice, session.id, a3.id, down(), q::now())
        .await
        .unwrap();
    let rated = |rating| {
        let db = &db;
        async move {
            export::page(
                db,
                &ExportFilter {
                    rating: Some(rating),
                    ..Default::default()
                },
                None,
                10,
            )
            .await
            .unwrap()
            .conversations
            .iter()
            .map(|c| c.session_id)
            .collect::<Vec<_>>()
        }
    };
    assert_eq!(rated(FeedbackRating::Down).await, [session.id]);
    assert!(rated(FeedbackRating::Up).await.is_empty());
});
