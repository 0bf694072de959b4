//! One session's moderation record for administrators: what redaction and blocking
//! modules kept of its messages (`message_audit`), what modules extracted
//! (`extractions`) and every recorded module run of its prompts (`module_events`).

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, JoinType, QueryFilter, QueryOrder, QuerySelect,
    RelationTrait,
};
use uuid::Uuid;

use crate::{error::Context, extractions, message_audit, messages, module_events, prompts};

/// An audit row with the `seq` of its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    pub audit: message_audit::Model,
    pub seq: i32,
}

/// Everything modules recorded about one session, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionAudit {
    pub audits: Vec<AuditEntry>,
    pub extractions: Vec<extractions::Model>,
    pub module_events: Vec<module_events::Model>,
}

/// The record of session `id` (404 `not_found` when there is no such session).
pub async fn session_audit<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<SessionAudit> {
    crate::query::sessions::get(db, id).await?;
    let audits = message_audit::Entity::find()
        .find_also_related(messages::Entity)
        .filter(messages::Column::SessionId.eq(id))
        .order_by_asc(messages::Column::Seq)
        .order_by_asc(message_audit::Column::Id)
        .all(db)
        .await
        .context("reading a session's message audit")?
        .into_iter()
        .filter_map(|(audit, message)| message.map(|m| AuditEntry { audit, seq: m.seq }))
        .collect();
    let extractions = extractions::Entity::find()
        .filter(extractions::Column::SessionId.eq(id))
        .order_by_asc(extractions::Column::Id)
        .all(db)
        .await
        .context("reading a session's extractions")?;
    let module_events = module_events::Entity::find()
        .join(JoinType::InnerJoin, module_events::Relation::Prompt.def())
        .filter(prompts::Column::SessionId.eq(id))
        .order_by_asc(module_events::Column::Id)
        .all(db)
        .await
        .context("reading a session's module events")?;
    Ok(SessionAudit {
        audits,
        extractions,
        module_events,
    })
}
