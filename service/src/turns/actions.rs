//! Server-handled suggested actions (`POST /v1/sessions/{id}/actions`): a client runs
//! an action the last answer of the session offered (`complete.payload.suggested_actions`
//! with `handler: server`). The action's data is the offered one, never the client's:
//! a client can only pick what the model offered.

use std::collections::HashMap;

use parley_entity::{
    prompts,
    query::{
        prompts::{self as q, OnActive},
        sessions,
    },
    sessions as session_rows,
};
use parley_protocol::error::{Error, ErrorCode, Result};
use parley_protocol::{events::ActionHandler, turn::TurnInput};
use uuid::Uuid;

use super::{Submission, TurnService};
use crate::{respond::ServerAction, sessions::Completion};

/// What running an action did.
#[derive(Debug, Clone)]
pub enum ActionOutcome {
    /// `send_message`: the turn it started (a repeated run returns the same prompt).
    Sent(Box<prompts::Model>),
    /// `end_session`: the session, now completed (and its `session:end` fired).
    Ended(Box<session_rows::Model>),
}

impl TurnService {
    /// Runs server action `name` of the session's last answer: 404 for another user's
    /// session, 422 `unknown_action` for a name Parley has no handler for, 409
    /// `action_not_offered` when the last answer did not offer it.
    #[tracing::instrument(skip_all, fields(%session_id, action = name), err(level = "debug"))]
    pub async fn run_action(
        &self,
        user_id: Uuid,
        session_id: Uuid,
        name: &str,
        trace_context: HashMap<String, String>,
    ) -> Result<ActionOutcome> {
        let session = sessions::get_owned(&self.db, user_id, session_id).await?;
        let action = ServerAction::parse(name).ok_or_else(|| {
            Error::invalid(
                ErrorCode::UnknownAction,
                format!(
                    "`{name}` is not an action the server runs (these are: {})",
                    ServerAction::ALL.map(ServerAction::name).join(", ")
                ),
            )
        })?;
        // The last answer: while the turn an action started runs, the answer that offered
        // the action is still the last one, so running it again returns that same turn.
        let last = q::last_answer_of_session(&self.db, session.id).await?;
        let offered = last
            .as_ref()
            .and_then(|p| p.response.as_ref())
            .and_then(|r| r.suggested_actions.as_ref())
            .and_then(|actions| {
                actions
                    .iter()
                    .find(|a| a.handler == ActionHandler::Server && a.action == name)
            });
        let (Some(prompt), Some(offer)) = (last.as_ref(), offered) else {
            return Err(Error::conflict(
                ErrorCode::ActionNotOffered,
                format!("the session's last answer does not offer `{name}`"),
            ));
        };
        match action {
            ServerAction::SendMessage => {
                let content = offer
                    .data
                    .as_ref()
                    .and_then(|d| d["content"].as_str())
                    .unwrap_or_default();
                let submission = Submission {
                    session_id: session.id,
                    user_id,
                    input: TurnInput::text(content),
                    model: None,
                    idempotency_key: Some(format!("action:{}:{name}", prompt.id)),
                    on_active: OnActive::Reject,
                    trace_context,
                    answers: None,
                };
                Ok(ActionOutcome::Sent(Box::new(
                    self.submit(submission).await?,
                )))
            }
            ServerAction::EndSession => {
                let ended = self
                    .sessions()
                    .complete(user_id, session.id, Completion::ByAction)
                    .await?;
                Ok(ActionOutcome::Ended(Box::new(ended)))
            }
        }
    }
}
