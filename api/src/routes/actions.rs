//! `POST /v1/sessions/{id}/actions`: run a server-handled suggested action of the
//! session's last answer (`complete.payload.suggested_actions` with `handler: server`).

use parley_service::{respond::ServerAction, turns::ActionOutcome};
use poem::web::Data;
use poem_openapi::{Object, OpenApi, param::Path, payload::Json};
use uuid::Uuid;

use super::{ApiTags, views::SessionState};
use crate::{
    auth::BearerAuth,
    error::{ApiResult, statuses},
    state::AppState,
    trace::trace_context,
};

/// The actions the server runs.
#[derive(Debug, Clone, Copy, poem_openapi::Enum)]
#[oai(rename_all = "snake_case")]
pub enum ServerActionName {
    /// Sends the offered `data.content` as the user's next message.
    SendMessage,
    /// Completes the session.
    EndSession,
}

impl From<ServerActionName> for ServerAction {
    fn from(name: ServerActionName) -> Self {
        match name {
            ServerActionName::SendMessage => Self::SendMessage,
            ServerActionName::EndSession => Self::EndSession,
        }
    }
}

/// An action to run.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct RunAction {
    /// The `action` of a `suggested_actions` entry with `handler: server` of the
    /// session's last answer.
    pub action: ServerActionName,
}

/// What running an action did.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ActionResult {
    pub action: String,
    /// `send_message`: the turn it started (running it again returns the same turn).
    pub prompt_id: Option<Uuid>,
    /// `send_message`: the SSE feed of that turn.
    pub events_url: Option<String>,
    /// The session's state afterwards (`completed` after `end_session`).
    pub session_state: SessionState,
}

pub struct ActionsApi;

#[OpenApi(prefix_path = "/v1/sessions", tag = "ApiTags::Sessions")]
impl ActionsApi {
    /// Run a suggested action
    ///
    /// Runs a server-handled action the session's last answer offered, with the data it
    /// was offered with: `send_message` starts a turn with the offered text (follow
    /// `events_url`; running it again while that turn is the newest returns the same
    /// turn), `end_session` completes the session. 409 `action_not_offered` when the
    /// session's last completed answer did not offer it, `session_completed` when the
    /// session has ended.
    #[oai(path = "/:id/actions", method = "post", operation_id = "run_action")]
    async fn run(
        &self,
        auth: BearerAuth,
        request: &poem::Request,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<RunAction>,
    ) -> ApiResult<Json<ActionResult>, statuses::RunAction> {
        let action = ServerAction::from(body.0.action).name().to_owned();
        let outcome = state
            .turns
            .run_action(auth.0.user_id, id.0, &action, trace_context(request))
            .await?;
        Ok(Json(match outcome {
            ActionOutcome::Sent(prompt) => ActionResult {
                action,
                prompt_id: Some(prompt.id),
                events_url: Some(format!("/v1/prompts/{}/events", prompt.id)),
                session_state: SessionState::Active,
            },
            ActionOutcome::Ended(session) => ActionResult {
                action,
                prompt_id: None,
                events_url: None,
                session_state: session.state.into(),
            },
        }))
    }
}
