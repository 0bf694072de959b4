use sea_orm::{ActiveModelTrait, EntityTrait, Set};

use super::*;
use crate::{
    ai_usage,
    enums::{MessageRole, UserRole},
    query::{
        conversation::{self, UsageRow},
        page::PageRequest,
        sessions::{self as q, SessionFilter},
        testing::{self, on_both_backends},
    },
};

fn usage(prompt: &prompts::Model, session: &sessions::Model, message_id: Option<Uuid>) -> UsageRow {
    UsageRow {
        prompt_id: prompt.id,
        message_id,
        session_id: session.id,
        user_id: session.user_id,
        tool_id: session.tool_id,
        model: "m".into(),
        vendor: "v".into(),
        tokens: parley_protocol::events::Usage::plain(12, 34),
        cost_usd: 0.5,
        latency_ms: 100,
        ttft_ms: Some(10),
        error: None,
    }
}

async fn finish_prompt(db: &DatabaseConnection, prompt: &prompts::Model) {
    let mut row: prompts::ActiveModel = prompt.clone().into();
    row.state = Set(PromptState::Completed);
    row.system_message = Set(Some("You are a tutor".into()));
    row.input = Set(Some(
        serde_json::from_value(serde_json::json!({"content": "secret"})).unwrap(),
    ));
    row.update(db).await.expect("finishing a prompt");
}

on_both_backends!(the_owner_names_pins_and_archives, |db| {
    let alice = testing::user(&db, UserRole::Student).await;
    let bob = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, alice).await;
    let now = query_now();

    let named = change(
        &db,
        alice,
        session.id,
        SessionChanges {
            title: Some(Some("  Fractions homework ".into())),
            pinned: Some(true),
            ..Default::default()
        },
        now,
    )
    .await
    .unwrap();
    assert_eq!(named.title.as_deref(), Some("Fractions homework"));
    assert_eq!(named.title_source, Some(TitleSource::User));
    assert_eq!(named.pinned_at, Some(now));

    // Pinning again keeps the first time; archiving stamps.
    let later = now + chrono::Duration::seconds(5);
    let again = change(
        &db,
        alice,
        session.id,
        SessionChanges {
            pinned: Some(true),
            archived: Some(true),
            ..Default::default()
        },
        later,
    )
    .await
    .unwrap();
    assert_eq!(
        (again.pinned_at, again.archived_at),
        (Some(now), Some(later))
    );

    // A generated title never replaces the owner's.
    assert!(
        !set_generated_title(&db, session.id, "Model title")
            .await
            .unwrap()
    );

    // Clearing the title and unpinning.
    let cleared = change(
        &db,
        alice,
        session.id,
        SessionChanges {
            title: Some(None),
            pinned: Some(false),
            archived: Some(false),
        },
        later,
    )
    .await
    .unwrap();
    assert_eq!(
        (
            cleared.title,
            cleared.title_source,
            cleared.pinned_at,
            cleared.archived_at
        ),
        (None, None, None, None)
    );
    assert!(
        set_generated_title(&db, session.id, "\"Model title.\"")
            .await
            .unwrap()
    );
    let titled = q::get(&db, session.id).await.unwrap();
    assert_eq!(titled.title.as_deref(), Some("Model title"));
    assert_eq!(titled.title_source, Some(TitleSource::Model));

    // Blank titles are refused; another user's session is missing.
    for blank in ["", "   ", "\n\t"] {
        let err = change(
            &db,
            alice,
            session.id,
            SessionChanges {
                title: Some(Some(blank.into())),
                ..Default::default()
            },
            now,
        )
        .await
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidTitle, "{blank:?}");
    }
    let err = change(&db, bob, session.id, SessionChanges::default(), now)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
});

on_both_backends!(lists_put_pinned_first_and_leave_archived_out, |db| {
    let user = testing::user(&db, UserRole::Student).await;
    let mut ids = Vec::new();
    for _ in 0..4 {
        ids.push(testing::session(&db, user).await.id);
    }
    let now = query_now();
    let pin = SessionChanges {
        pinned: Some(true),
        ..Default::default()
    };
    change(&db, user, ids[0], pin.clone(), now).await.unwrap();
    change(&db, user, ids[2], pin, now).await.unwrap();
    let archive = SessionChanges {
        archived: Some(true),
        ..Default::default()
    };
    change(&db, user, ids[3], archive, now).await.unwrap();

    // One a page, to walk the cursor across the pinned boundary.
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = q::list_for_user(
            &db,
            user,
            SessionFilter::default(),
            PageRequest { limit: 1, after },
        )
        .await
        .unwrap();
        seen.extend(page.items.iter().map(|s| s.id));
        match page.next {
            Some(key) => after = Some(key),
            None => break,
        }
    }
    // Pinned first (newest first within), then the rest; the archived one is left out.
    assert_eq!(seen, [ids[2], ids[0], ids[1]]);
    let archived = q::list_for_user(
        &db,
        user,
        SessionFilter {
            archived: true,
            ..Default::default()
        },
        PageRequest {
            limit: 10,
            after: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(
        archived.items.iter().map(|s| s.id).collect::<Vec<_>>(),
        [ids[3]]
    );
});

on_both_backends!(deleting_keeps_the_ledger_without_content, |db| {
    let alice = testing::user(&db, UserRole::Student).await;
    let bob = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, alice).await;
    let kept = testing::session(&db, alice).await;
    testing::message(&db, session.id, MessageRole::User, "my secret question").await;
    let answer = testing::message(&db, session.id, MessageRole::Assistant, "the answer").await;
    testing::message(&db, kept.id, MessageRole::User, "another secret").await;
    let prompt = testing::prompt(&db, session.id).await;

    // A turn in flight: refused.
    let err = delete(&db, alice, session.id, query_now())
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::PromptActive);
    finish_prompt(&db, &prompt).await;
    conversation::record_usage(
        &db,
        vec![usage(&prompt, &session, Some(answer.id))],
        query_now(),
    )
    .await
    .unwrap();

    // Someone else's: missing.
    let err = delete(&db, bob, session.id, query_now()).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);

    delete(&db, alice, session.id, query_now()).await.unwrap();
    let tombstone = q::get(&db, session.id).await.unwrap();
    assert!(tombstone.deleted_at.is_some());
    assert_eq!(
        (tombstone.state, tombstone.end_reason.as_deref()),
        (crate::enums::SessionState::Completed, Some("deleted"))
    );
    assert_eq!(
        q::get_owned(&db, alice, session.id)
            .await
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
    assert_eq!(
        delete(&db, alice, session.id, query_now())
            .await
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
    let messages = messages::Entity::find().all(&db).await.unwrap();
    assert_eq!(
        messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>(),
        ["another secret"]
    );
    let emptied = prompts::Entity::find_by_id(prompt.id)
        .one(&db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((emptied.input, emptied.system_message), (None, None));
    let ledger = ai_usage::Entity::find().all(&db).await.unwrap();
    assert_eq!(ledger.len(), 1);
    assert_eq!(
        (
            ledger[0].session_id,
            ledger[0].message_id,
            ledger[0].input_tokens,
            ledger[0].output_tokens
        ),
        (session.id, None, 12, 34)
    );
    // The search finds nothing of it, the list does not show it.
    let hits = crate::query::search::search_own_messages(&db, alice, "secret", None, 10)
        .await
        .unwrap();
    assert_eq!(
        hits.iter().map(|h| h.session_id).collect::<Vec<_>>(),
        [kept.id]
    );
    let listed = q::list_for_user(
        &db,
        alice,
        SessionFilter::default(),
        PageRequest {
            limit: 10,
            after: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(
        listed.items.iter().map(|s| s.id).collect::<Vec<_>>(),
        [kept.id]
    );
});

fn query_now() -> DateTimeUtc {
    crate::query::now()
}

#[test]
fn first_words_stop_on_a_word_boundary() {
    assert_eq!(
        first_words("  How does   photosynthesis work in plants and trees?").as_deref(),
        Some("How does photosynthesis work in plants")
    );
    assert_eq!(first_words("Hi").as_deref(), Some("Hi"));
    assert_eq!(first_words(" \n "), None);
    let long = "Pneumonoultramicroscopicsilicovolcanoconiosis is a word, isn't it really long";
    let title = first_words(long).unwrap();
    assert!(title.chars().count() <= FIRST_WORDS_CHARS, "{title}");
    assert_eq!(
        title,
        "Pneumonoultramicroscopicsilicovolcanoconiosis is a word,"
    );
    let one = "x".repeat(100);
    let cut = first_words(&one).unwrap();
    assert_eq!(cut.chars().count(), FIRST_WORDS_CHARS);
    assert!(cut.ends_with('…'));
}

#[test]
fn generated_titles_are_cleaned() {
    assert_eq!(
        clean_generated("\"Fractions.\"\nmore").as_deref(),
        Some("Fractions")
    );
    assert_eq!(
        clean_generated("\n\nTitle: **Photosynthesis**").as_deref(),
        Some("Photosynthesis")
    );
    assert_eq!(clean_generated("  \n "), None);
    assert_eq!(clean_generated("\"\""), None);
    assert_eq!(
        clean_generated(&"a".repeat(300)).map(|t| t.len()),
        Some(200)
    );
}

#[test]
fn owner_titles_are_trimmed_and_bounded() {
    assert_eq!(owner_title("  Hello ").unwrap(), "Hello");
    assert_eq!(owner_title(&"é".repeat(200)).unwrap().chars().count(), 200);
    assert_eq!(
        owner_title(&"é".repeat(201)).unwrap_err().code(),
        ErrorCode::InvalidTitle
    );
}
