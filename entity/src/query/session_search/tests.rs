use super::*;
use crate::{
    enums::{MessageRole, UserRole},
    query::{
        session_edits::{self, SessionChanges},
        testing::{self, on_both_backends},
    },
};

on_both_backends!(finds_each_own_session_once_with_its_best_message, |db| {
    let alice = testing::user(&db, UserRole::Student).await;
    let bob = testing::user(&db, UserRole::Student).await;
    let biology = testing::session(&db, alice).await;
    let history = testing::session(&db, alice).await;
    let bobs = testing::session(&db, bob).await;
    testing::message(
        &db,
        biology.id,
        MessageRole::User,
        "How does photosynthesis work?",
    )
    .await;
    let best = testing::message(
        &db,
        biology.id,
        MessageRole::Assistant,
        "Photosynthesis: light makes sugar. Photosynthesis needs water.",
    )
    .await;
    testing::message(
        &db,
        history.id,
        MessageRole::User,
        "Waterloo and photosynthesis",
    )
    .await;
    testing::message(&db, bobs.id, MessageRole::User, "photosynthesis").await;
    session_edits::change(
        &db,
        alice,
        biology.id,
        SessionChanges {
            title: Some(Some("Biology".into())),
            archived: Some(true),
            ..Default::default()
        },
        crate::query::now(),
    )
    .await
    .unwrap();

    let hits = search_own_sessions(&db, alice, "PHOTOSYNTHESIS", 10)
        .await
        .unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(
        hits[0].session_id, biology.id,
        "the better match first: {hits:?}"
    );
    assert_eq!(hits[0].message_id, best.id);
    assert_eq!(hits[0].title.as_deref(), Some("Biology"));
    assert_eq!(hits[1].session_id, history.id);
    assert_eq!(hits[1].title, None);

    assert_eq!(
        search_own_sessions(&db, alice, "photosynthesis", 1)
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(
        search_own_sessions(&db, alice, "waterloo sugar", 10)
            .await
            .unwrap()
            .is_empty()
    );
    let theirs = search_own_sessions(&db, bob, "photosynthesis", 10)
        .await
        .unwrap();
    assert_eq!(
        theirs.iter().map(|h| h.session_id).collect::<Vec<_>>(),
        [bobs.id]
    );
    for nothing in ["", "  ", "*", "\"\"", "-"] {
        let err = search_own_sessions(&db, alice, nothing, 10)
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::EmptyQuery, "{nothing:?}");
    }
    // FTS syntax is only words.
    for query in ["NEAR(", "a OR", "\"x", "content:photosynthesis"] {
        search_own_sessions(&db, alice, query, 10)
            .await
            .unwrap_or_else(|err| panic!("{query:?}: {err:?}"));
    }
});

#[test]
fn snippets_show_the_first_word_found_in_context() {
    assert_eq!(
        snippet("Photosynthesis makes sugar", "sugar"),
        "Photosynthesis makes sugar"
    );
    let long = format!(
        "{} needle {}",
        "hay ".repeat(30).trim(),
        "straw ".repeat(40).trim()
    );
    let cut = snippet(&long, "NEEDLE");
    assert!(cut.starts_with("…hay hay hay hay needle straw"), "{cut}");
    assert!(cut.ends_with('…'), "{cut}");
    assert!(cut.chars().count() <= SNIPPET_CHARS + 2, "{cut}");
    // No word found verbatim: the start.
    assert!(snippet(&long, "zzz").starts_with("hay hay"));
    let word = "x".repeat(400);
    let only = snippet(&word, "x");
    assert_eq!(only.chars().count(), SNIPPET_CHARS);
}
