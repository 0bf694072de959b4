//! The runner's part in approvals (#14): whether a call waits for its user, and telling
//! readers it does. The wait itself — the row, the suspend, the decision — is
//! `parley_entity::query::approvals` and the turn's suspend stage.

use parley_protocol::events::EventKind;

use super::TurnFunctions;
use crate::agent_loop::{CallResult, PlannedCall, Sink, SinkError};

impl TurnFunctions {
    /// Whether a call of the function waits for approval here: the function always
    /// needs it, or the session's tool asks it of this function.
    pub(super) fn needs_approval(&self, spec: &parley_service::FunctionSpec) -> bool {
        spec.requires_approval || self.context.session_config.needs_approval(&spec.name)
    }

    /// Tells readers (the prompt's feed, the user's feed) that call `row_id` waits for
    /// approval until `expires_at`, and closes its block.
    pub(super) async fn request_approval(
        &self,
        row_id: uuid::Uuid,
        call: &PlannedCall,
        waiting: &CallResult,
        expires_at: chrono::DateTime<chrono::Utc>,
        sink: &mut dyn Sink,
    ) -> Result<(), SinkError> {
        sink.event(EventKind::ApprovalRequested {
            index: call.n,
            tool: call.name.clone(),
            tool_use_id: call.id.clone(),
            call_id: row_id,
            input: waiting.input.clone(),
            expires_at,
        })
        .await?;
        sink.event(EventKind::BlockStop { index: call.block })
            .await?;
        let requested = parley_protocol::feed::UserEventKind::ApprovalRequested {
            session_id: self.context.session_id,
            prompt_id: self.context.prompt_id,
            call_id: row_id,
            function: call.name.clone(),
            input: waiting.input.clone(),
            expires_at,
        };
        self.feed.publish(self.context.user_id, requested).await;
        Ok(())
    }
}
