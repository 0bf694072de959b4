//! Rows of the tool configuration as earlier versions stored them — free-form group
//! settings, a tool definition with a key no longer known, a session config frozen from
//! a JSON merge — still load into the typed columns and resolve as they did. Inserted
//! raw (the typed columns could not write them), on both backends.

use chrono::Utc;
use sea_orm::{ColumnTrait, ConnectionTrait, DatabaseConnection, sea_query::Query};
use serde_json::{Value, json};
use uuid::Uuid;

use super::{
    sessions::{self as q, OpenSession, Opener, SessionLimit},
    testing::{self, on_both_backends},
};
use crate::{enums::UserRole, groups, sessions, tools};

async fn insert(db: &DatabaseConnection, statement: sea_orm::sea_query::InsertStatement) {
    let built = db.get_database_backend().build(&statement);
    db.execute_raw(built).await.expect("a raw insert");
}

/// A group with these settings, as stored (any JSON object was taken).
async fn raw_group(db: &DatabaseConnection, settings: Value) -> Uuid {
    let id = Uuid::now_v7();
    let mut statement = Query::insert();
    statement
        .into_table(groups::Entity)
        .columns([
            groups::Column::Id,
            groups::Column::Name,
            groups::Column::Path,
            groups::Column::Settings,
            groups::Column::CreatedAt,
            groups::Column::UpdatedAt,
        ])
        .values_panic([
            id.into(),
            "Org".into(),
            format!("/{id}/").into(),
            settings.into(),
            Utc::now().into(),
            Utc::now().into(),
        ]);
    insert(db, statement).await;
    id
}

async fn raw_tool(db: &DatabaseConnection, group_id: Uuid, definition: Value) -> Uuid {
    let id = Uuid::now_v7();
    let mut statement = Query::insert();
    statement
        .into_table(tools::Entity)
        .columns([
            tools::Column::Id,
            tools::Column::GroupId,
            tools::Column::Name,
            tools::Column::Type,
            tools::Column::Definition,
            tools::Column::CreatedAt,
            tools::Column::UpdatedAt,
        ])
        .values_panic([
            id.into(),
            group_id.into(),
            "Tutor".into(),
            "chat".into(),
            definition.into(),
            Utc::now().into(),
            Utc::now().into(),
        ]);
    insert(db, statement).await;
    id
}

/// Rewrites a session's config as it was stored.
async fn raw_config(db: &DatabaseConnection, session_id: Uuid, config: Value) {
    let mut statement = Query::update();
    statement
        .table(sessions::Entity)
        .value(sessions::Column::Config, config)
        .and_where(sessions::Column::Id.eq(session_id));
    let built = db.get_database_backend().build(&statement);
    db.execute_raw(built).await.expect("a raw update");
}

on_both_backends!(rows_stored_by_earlier_versions_load, |db| {
    let user_id = testing::user(&db, UserRole::Student).await;
    let group_id = raw_group(
        &db,
        json!({"model": "org-model", "skills": {"enabled": false}, "theme": "dark",
               "constraints": {"topics": ["math"], "tone": "warm"}, "max_messages": "many"}),
    )
    .await;
    let tool_id = raw_tool(
        &db,
        group_id,
        json!({"behavior": "Guide.", "constraints": {"no_direct_answers": true}, "retired": 1}),
    )
    .await;

    let group = crate::query::resource::get::<crate::groups::Entity, _>(&db, group_id)
        .await
        .expect("the group loads");
    assert_eq!(group.settings.model.as_deref(), Some("org-model"));
    let tool = crate::query::resource::get::<crate::tools::Entity, _>(&db, tool_id)
        .await
        .expect("the tool loads");
    assert_eq!(&*tool.definition.behavior, "Guide.");

    let who = Opener {
        user_id,
        is_admin: true,
    };
    let open = OpenSession {
        tool_id,
        assignment_id: None,
        submission_id: None,
        rid: None,
    };
    let session = q::open(&db, who, open, crate::query::now())
        .await
        .expect("opens");
    let config = &session.config;
    assert_eq!(config.model.as_deref(), Some("org-model"), "the cascade");
    assert!(!config.skills_enabled(), "the free-form {{enabled: false}}");
    assert_eq!(
        config.max_messages, None,
        "a value of the wrong type is absent"
    );
    let constraints = config.constraints.clone().unwrap_or_default();
    assert_eq!(constraints.topics.map(|t| t.len()), Some(1));
    assert_eq!(constraints.no_direct_answers, Some(true));

    // A session whose config was frozen by the JSON merge of an earlier version.
    let assignment = Uuid::now_v7();
    raw_config(
        &db,
        session.id,
        json!({"behavior": "Guide.", "model": 7, "max_messages": 1, "hold_back": true,
               "functions": ["createTodo", {"name": "x"}], "temperature": 0.2,
               "assignment": {"id": assignment, "title": "Quiz", "instructions": "Factor."}}),
    )
    .await;
    let stored = q::get(&db, session.id).await.expect("the session loads");
    assert_eq!(stored.config.model, None);
    assert!(stored.config.holds_back());
    assert_eq!(
        stored.config.functions().collect::<Vec<_>>(),
        ["createTodo"]
    );
    assert_eq!(
        stored.config.assignment.as_ref().map(|a| a.id),
        Some(assignment)
    );
    assert_eq!(
        q::limit_reached(&stored, crate::query::now()),
        Some(SessionLimit::MaxMessages),
        "the stored limit holds"
    );
});

/// A job carries the session as [`parley_protocol::jobs::JobSession`]: its JSON form is
/// the row's, so a job enqueued by either version reads in the other.
#[test]
fn a_job_carries_the_session_row_in_its_own_form() {
    let row = sessions::Model {
        id: Uuid::now_v7(),
        user_id: Uuid::now_v7(),
        tool_id: Uuid::now_v7(),
        assignment_id: Some(Uuid::now_v7()),
        submission_id: None,
        state: crate::enums::SessionState::Active,
        started_at: Utc::now(),
        ended_at: None,
        last_activity_at: Utc::now(),
        message_count: 2,
        config: serde_json::from_value(json!({"model": "m", "max_messages": 8})).unwrap(),
        active_prompt_id: Some(Uuid::now_v7()),
        end_reason: None,
        rid: Some("r1".into()),
        active_leaf_id: Some(Uuid::now_v7()),
        title: Some("Fractions".into()),
        title_source: Some(crate::enums::TitleSource::Words),
        pinned_at: Some(Utc::now()),
        archived_at: None,
        deleted_at: None,
    };
    let carried = parley_protocol::jobs::JobSession::from(row.clone());
    assert_eq!(
        serde_json::to_value(&carried).unwrap(),
        serde_json::to_value(&row).unwrap()
    );
    assert_eq!(sessions::Model::from(carried), row);
}
