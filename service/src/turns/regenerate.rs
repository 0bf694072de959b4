//! Regenerating an answer: another answer to a user message already in the session, as
//! a new turn whose assistant message is a sibling of the answers before it (DESIGN §13).

use std::collections::HashMap;

use parley_entity::{
    enums::MessageRole,
    prompts,
    query::{self, prompts::OnActive},
};
use parley_protocol::error::{Error, ErrorCode, Result};
use parley_protocol::turn::TurnInput;
use uuid::Uuid;

use super::{Submission, TurnService};

/// A request for another answer.
#[derive(Debug, Clone)]
pub struct Regeneration {
    pub session_id: Uuid,
    pub user_id: Uuid,
    /// The user message to answer again, or one of its answers.
    pub message_id: Uuid,
    /// Another model to answer with (it must be served); `None`: as a new message would.
    pub model: Option<String>,
    pub idempotency_key: Option<String>,
    pub on_active: OnActive,
    pub trace_context: HashMap<String, String>,
}

impl TurnService {
    /// Records a turn that answers the user message named (or the one an answer named
    /// answers) again, with the same content and attachments, under the session's rules
    /// for a new message (limits, the active-prompt policy, quotas). Another user's
    /// session or a message of another session: 404; a message that answers nothing a
    /// user said (a notice, an imported first answer): 422 `nothing_to_regenerate`.
    pub async fn regenerate(&self, asked: Regeneration) -> Result<prompts::Model> {
        query::sessions::get_owned(&self.db, asked.user_id, asked.session_id).await?;
        let named = query::tree::message_in(&self.db, asked.session_id, asked.message_id).await?;
        let question = match (named.role, named.parent_id) {
            (MessageRole::User, _) => named,
            (MessageRole::Assistant, Some(parent)) => {
                query::tree::message_in(&self.db, asked.session_id, parent).await?
            }
            _ => return Err(nothing_to_regenerate()),
        };
        if question.role != MessageRole::User {
            return Err(nothing_to_regenerate());
        }
        let attachments = query::conversation::attachments_of(&self.db, &[question.id])
            .await?
            .into_iter()
            .filter_map(|block| block.meta().attachment()?.file_id)
            .collect();
        let submission = Submission {
            session_id: asked.session_id,
            user_id: asked.user_id,
            input: TurnInput {
                attachments,
                ..TurnInput::text(question.content)
            },
            model: asked.model,
            idempotency_key: asked.idempotency_key,
            on_active: asked.on_active,
            trace_context: asked.trace_context,
            answers: Some(question.id),
        };
        self.submit(submission).await
    }
}

fn nothing_to_regenerate() -> Error {
    Error::invalid(
        ErrorCode::NothingToRegenerate,
        "this message answers nothing a user said; regenerate an answer to a user message",
    )
}
