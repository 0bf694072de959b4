//! `/v1/admin/sessions/{id}/audit`: what modules recorded about one session — the
//! originals and redactions of its messages, what they extracted, and their runs.

use chrono::{DateTime, Utc};
use parley_entity::{extractions, module_events, query::metrics::audit::AuditEntry};
use poem::web::Data;
use poem_openapi::{Object, OpenApi, param::Path, payload::Json};
use serde_json::Value;
use uuid::Uuid;

use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    routes::{ApiTags, views::ModuleOutcome},
    state::AppState,
};

/// What a blocking or redacting module kept of one message.
#[derive(Debug, Object)]
pub struct MessageAudit {
    pub id: Uuid,
    pub message_id: Uuid,
    /// The message's place in the session.
    pub seq: i32,
    /// The text before the module acted: a blocked message's original, or the redacted
    /// text of a rewritten one (a redactor never keeps the values it removed).
    pub original_content: String,
    pub redaction_module: String,
    pub redaction_reason: String,
    /// Which patterns matched (names, never the matched values).
    pub patterns_matched: Value,
    pub created_at: DateTime<Utc>,
}

impl From<AuditEntry> for MessageAudit {
    fn from(e: AuditEntry) -> Self {
        let a = e.audit;
        Self {
            id: a.id,
            message_id: a.message_id,
            seq: e.seq,
            original_content: a.original_content,
            redaction_module: a.redaction_module,
            redaction_reason: a.redaction_reason,
            patterns_matched: a.patterns_matched,
            created_at: a.created_at,
        }
    }
}

/// Structured data a module pulled out of the conversation.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Extraction {
    pub id: Uuid,
    pub message_id: Option<Uuid>,
    pub module: String,
    #[oai(rename = "type")]
    pub kind: String,
    pub data: Value,
    pub created_at: DateTime<Utc>,
}

impl From<extractions::Model> for Extraction {
    fn from(x: extractions::Model) -> Self {
        Self {
            id: x.id,
            message_id: x.message_id,
            module: x.module,
            kind: x.r#type,
            data: x.data,
            created_at: x.created_at,
        }
    }
}

/// One recorded run of a module at a hook.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ModuleEvent {
    pub id: Uuid,
    pub prompt_id: Option<Uuid>,
    pub module: String,
    pub hook: String,
    pub outcome: ModuleOutcome,
    pub duration_ms: i64,
    /// Why it blocked or modified, as a category word, when it gave one.
    pub category: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<module_events::Model> for ModuleEvent {
    fn from(m: module_events::Model) -> Self {
        Self {
            id: m.id,
            prompt_id: m.prompt_id,
            module: m.module,
            hook: m.hook,
            outcome: m.outcome.into(),
            duration_ms: m.duration_ms,
            category: m.category,
            created_at: m.created_at,
        }
    }
}

/// Everything modules recorded about one session, oldest first.
#[derive(Debug, Object)]
pub struct SessionAudit {
    pub session_id: Uuid,
    /// By message `seq`.
    pub audits: Vec<MessageAudit>,
    pub extractions: Vec<Extraction>,
    pub module_events: Vec<ModuleEvent>,
}

pub struct AuditAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl AuditAdminApi {
    /// A session's moderation record
    ///
    /// The audit rows of its messages (originals of blocked messages, what redactors
    /// matched), the modules' extractions and every recorded module run of its prompts.
    #[oai(
        path = "/sessions/:id/audit",
        method = "get",
        operation_id = "admin_session_audit"
    )]
    async fn session_audit(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<SessionAudit>, statuses::AdminRead> {
        let record = state.reports().session_audit(id.0).await?;
        Ok(Json(SessionAudit {
            session_id: id.0,
            audits: record.audits.into_iter().map(Into::into).collect(),
            extractions: record.extractions.into_iter().map(Into::into).collect(),
            module_events: record.module_events.into_iter().map(Into::into).collect(),
        }))
    }
}
