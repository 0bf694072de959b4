//! What module hooks leave behind (DESIGN §3, §8): one `module_events` row per module
//! per hook run, `message_audit` rows (admin-only) and `extractions`; and the scope a
//! hook's context describes (user, tool, group, class, assignment).

use parley_protocol::error::Result;
use sea_orm::{ConnectionTrait, EntityTrait, Set, prelude::DateTimeUtc};
use serde_json::Value;
use uuid::Uuid;

use super::resource;

use crate::{
    assignments, classes, enums::ModuleOutcome, error::Context, extractions, groups, message_audit,
    module_events, sessions, tools, users,
};

/// One module's run of one hook.
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleEvent {
    pub prompt_id: Option<Uuid>,
    pub module: String,
    pub hook: String,
    pub outcome: ModuleOutcome,
    pub duration_ms: i64,
    /// The category of a block or modification, when the module gave one.
    pub category: Option<String>,
}

/// Records module runs, in one statement.
pub async fn record_events<C: ConnectionTrait>(
    db: &C,
    events: &[ModuleEvent],
    now: DateTimeUtc,
) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    let rows = events.iter().map(|e| module_events::ActiveModel {
        id: Set(Uuid::now_v7()),
        prompt_id: Set(e.prompt_id),
        module: Set(e.module.clone()),
        hook: Set(e.hook.clone()),
        outcome: Set(e.outcome),
        duration_ms: Set(e.duration_ms),
        category: Set(e.category.clone()),
        created_at: Set(now),
    });
    module_events::Entity::insert_many(rows)
        .exec_without_returning(db)
        .await
        .context("recording module runs")?;
    Ok(())
}

/// An audit record of a message a module changed or blocked.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRow {
    pub module: String,
    pub original_content: String,
    pub reason: String,
    pub patterns_matched: Vec<String>,
}

/// Records the audit trail of one message.
pub async fn record_audit<C: ConnectionTrait>(
    db: &C,
    message_id: Uuid,
    rows: &[AuditRow],
    now: DateTimeUtc,
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let models = rows.iter().map(|r| message_audit::ActiveModel {
        id: Set(Uuid::now_v7()),
        message_id: Set(message_id),
        original_content: Set(r.original_content.clone()),
        redaction_module: Set(r.module.clone()),
        redaction_reason: Set(r.reason.clone()),
        patterns_matched: Set(Value::from(r.patterns_matched.clone())),
        created_at: Set(now),
    });
    message_audit::Entity::insert_many(models)
        .exec_without_returning(db)
        .await
        .context("recording the audit trail")?;
    Ok(())
}

/// A module's structured finding.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtractionRow {
    pub module: String,
    pub kind: String,
    pub data: Value,
}

/// Records the findings of a session's hooks (for a message, when there is one).
pub async fn record_extractions<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
    message_id: Option<Uuid>,
    rows: &[ExtractionRow],
    now: DateTimeUtc,
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let models = rows.iter().map(|r| extractions::ActiveModel {
        id: Set(Uuid::now_v7()),
        session_id: Set(session_id),
        message_id: Set(message_id),
        module: Set(r.module.clone()),
        r#type: Set(r.kind.clone()),
        data: Set(r.data.clone()),
        created_at: Set(now),
    });
    extractions::Entity::insert_many(models)
        .exec_without_returning(db)
        .await
        .context("recording extractions")?;
    Ok(())
}

/// What a hook's context says about where a session happens.
#[derive(Debug, Clone)]
pub struct Scope {
    pub user: users::Model,
    pub tool: tools::Model,
    pub group: Option<groups::Model>,
    pub assignment: Option<assignments::Model>,
    pub class: Option<classes::Model>,
}

/// Reads the scope of a session: its user, tool, the tool's group and, for an
/// assignment's session, the assignment and its class.
pub async fn scope_of<C: ConnectionTrait>(db: &C, session: &sessions::Model) -> Result<Scope> {
    let user = super::users::get(db, session.user_id).await?;
    let tool = resource::get::<tools::Entity, C>(db, session.tool_id).await?;
    let group = resource::find::<groups::Entity, C>(db, tool.group_id).await?;
    let assignment = match session.assignment_id {
        Some(id) => assignments::Entity::find_by_id(id)
            .one(db)
            .await
            .context("reading a session's assignment")?,
        None => None,
    };
    let class = match &assignment {
        Some(a) => resource::find::<classes::Entity, C>(db, a.class_id).await?,
        None => None,
    };
    Ok(Scope {
        user,
        tool,
        group,
        assignment,
        class,
    })
}
