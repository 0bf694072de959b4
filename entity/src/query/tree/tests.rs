//! The tree's walks on both backends: a conversation with an edit and a regenerated
//! answer, read up (context), down (a switch) and across (siblings).

use super::*;
use crate::{
    enums::{MessageRole, UserRole},
    query::{
        conversation::{MessageRow, append_messages},
        testing::{self, on_both_backends},
    },
};

/// Appends one message under `parent`; returns its id.
async fn add(
    db: &sea_orm::DatabaseConnection,
    session: Uuid,
    role: MessageRole,
    parent: Option<Uuid>,
    text: &str,
) -> Uuid {
    let row = MessageRow {
        id: Uuid::now_v7(),
        role,
        content: text.into(),
        prompt_id: None,
        is_complete: true,
        parent_id: parent,
    };
    append_messages(db, session, std::slice::from_ref(&row), crate::query::now())
        .await
        .unwrap();
    row.id
}

fn ids(messages: &[messages::Model]) -> Vec<Uuid> {
    messages.iter().map(|m| m.id).collect()
}

on_both_backends!(walks_follow_parents_not_seq, |db| {
    use MessageRole::{Assistant, User};
    let user = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, user).await.id;
    // q1 → a1 → q2 → a2; q2 edited as q2b → a2b; a2b regenerated as a2c.
    let q1 = add(&db, session, User, None, "q1").await;
    let a1 = add(&db, session, Assistant, Some(q1), "a1").await;
    let q2 = add(&db, session, User, Some(a1), "q2").await;
    let a2 = add(&db, session, Assistant, Some(q2), "a2").await;
    let q2b = add(&db, session, User, Some(a1), "q2b").await;
    let a2b = add(&db, session, Assistant, Some(q2b), "a2b").await;
    let a2c = add(&db, session, Assistant, Some(q2b), "a2c").await;

    // Every append made its message the active leaf.
    let leaf = crate::query::conversation::active_leaf(&db, session)
        .await
        .unwrap();
    assert_eq!(leaf, Some(a2c));

    // Up: the context of a reply to a2c is its ancestry, newest first, bounded.
    let up = ancestry(&db, a2c, 10).await.unwrap();
    assert_eq!(ids(&up), [a2c, q2b, a1, q1]);
    assert_eq!(ids(&ancestry(&db, a2c, 2).await.unwrap()), [a2c, q2b]);
    assert!(ancestry(&db, a2c, 0).await.unwrap().is_empty());

    // Down: the branch through q2 ends at a2; through a1 at the newest child's newest.
    assert_eq!(
        ids(&branch(&db, session, q2).await.unwrap()),
        [q1, a1, q2, a2]
    );
    assert_eq!(
        ids(&branch(&db, session, a1).await.unwrap()),
        [q1, a1, q2b, a2c]
    );

    // Across: siblings by parent, in creation order.
    let shown = branch(&db, session, a2b).await.unwrap();
    let by_parent = siblings(&db, session, &shown).await.unwrap();
    assert_eq!(by_parent[&None], [q1]);
    assert_eq!(by_parent[&Some(a1)], [q2, q2b]);
    assert_eq!(by_parent[&Some(q2b)], [a2b, a2c]);

    // A switch lands on the leaf below the message, and names it on the session.
    let switched = switch(&db, session, q2, crate::query::now()).await.unwrap();
    assert_eq!(switched.active_leaf_id, Some(a2));
    // Another session's message is not found there.
    let other = testing::session(&db, user).await.id;
    let code = switch(&db, other, q2, crate::query::now())
        .await
        .unwrap_err();
    assert_eq!(code.code(), ErrorCode::MessageNotFound, "{code:?}");
    assert!(matches!(
        message_in(&db, other, q2).await.unwrap_err(),
        Error::NotFound { .. }
    ));
    assert_eq!(message_in(&db, session, q2).await.unwrap().id, q2);
});

on_both_backends!(a_switch_waits_for_the_running_turn, |db| {
    let user = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, user).await.id;
    let q1 = add(&db, session, MessageRole::User, None, "q1").await;
    let prompt = testing::prompt(&db, session).await;
    sessions::Entity::update_many()
        .col_expr(sessions::Column::ActivePromptId, Expr::value(prompt.id))
        .filter(sessions::Column::Id.eq(session))
        .exec(&db)
        .await
        .unwrap();
    let refused = switch(&db, session, q1, crate::query::now())
        .await
        .unwrap_err();
    assert_eq!(refused.code(), ErrorCode::PromptActive, "{refused:?}");
});
