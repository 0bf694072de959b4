//! The reply to a turn that was accepted: what `POST /v1/sessions/{id}/messages`
//! (`turns`), a regenerate (`messages`) and `POST /v1/ask` (`ask`) answer with — its
//! feed, the finished turn, or `202` at once — and how a new turn meets one still
//! running (`on_active`). Both `turns` and `messages` import it; it imports neither.

use parley_entity::{prompts, query::prompts as q};
use parley_protocol::error::ErrorCode;
use parley_protocol::events::{EventKind, FallbackReason, StopReason};
use parley_service::turns::Ending;
use poem_openapi::{ApiResponse, Enum, Object, payload::Json};
use uuid::Uuid;

use crate::{
    auth::BearerAuth,
    error::{ApiError, ApiResult, Problem, Statuses, statuses},
    events_doc::{PayloadField, UsageField},
    sse::{self, Feed},
    state::AppState,
    types::Documented,
};

/// What to do when the session is still answering an earlier message.
#[derive(Debug, Clone, Copy, Default, Enum)]
#[oai(rename_all = "snake_case")]
pub enum OnActive {
    /// Refuse with 409 (the default).
    #[default]
    Reject,
    /// Cancel the running answer, then answer this message.
    Interrupt,
    /// Answer this message after the running one.
    Enqueue,
}

impl From<OnActive> for q::OnActive {
    fn from(policy: OnActive) -> Self {
        match policy {
            OnActive::Reject => Self::Reject,
            OnActive::Interrupt => Self::Interrupt,
            OnActive::Enqueue => Self::Enqueue,
        }
    }
}

/// A turn accepted to run in the background.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct AcceptedTurn {
    pub prompt_id: Uuid,
    /// The user message the turn answers: the id a new message will have when the
    /// worker saves it, or the message a regenerate answers again.
    pub user_message_id: Option<Uuid>,
    /// The SSE feed of the turn.
    pub events_url: String,
}

/// A finished turn (`Accept: application/json`): the fields of its `complete` event.
#[derive(Object)]
#[oai(skip_serializing_if_is_none)]
pub struct FinishedTurn {
    pub prompt_id: Uuid,
    pub message_id: Uuid,
    /// The message the answer follows: the user message it answers.
    pub parent_id: Option<Uuid>,
    pub payload: PayloadField,
    pub usage: UsageField,
    pub model: String,
    pub vendor: String,
    pub latency_ms: u64,
    /// A module blocked the message or the answer; `payload.message` is its direct
    /// response.
    pub blocked: bool,
    /// The category of the block, when `blocked`.
    pub block_category: Option<String>,
    /// A module replaced the answer after it was streamed; `payload.message` is final.
    pub replaced: Option<bool>,
    /// The model asked for, when another model of its fallback chain answered (`model`).
    pub fallback_from: Option<String>,
    /// Why the model asked for did not answer (with `fallback_from`).
    pub fallback_reason: Option<FallbackReason>,
    /// `max_tokens`: the answer was cut at its token limit (absent: the model finished).
    pub stop_reason: Option<StopReason>,
}

#[derive(ApiResponse)]
pub enum TurnResponse {
    /// `Accept: text/event-stream`: the turn's events from seq 1.
    #[oai(status = 200)]
    Stream(Feed, #[oai(header = "Location")] String),
    /// `Accept: application/json` (or any other, or none): the finished turn.
    #[oai(status = 201)]
    Finished(Json<Box<FinishedTurn>>, #[oai(header = "Location")] String),
    /// `?background=true`: the turn runs; follow `events_url`.
    #[oai(status = 202)]
    Accepted(Json<AcceptedTurn>, #[oai(header = "Location")] String),
}

/// How `POST …/messages` answers.
enum Reply {
    Stream,
    Json,
    Background,
}

/// A feed only for a client that asks for one: a client that accepts anything (`*/*`,
/// or no `Accept`) gets the finished turn, which every generated client can read.
fn reply_mode(request: &poem::Request, background: Option<bool>) -> Reply {
    let accept = request.header("accept").unwrap_or_default();
    if background.unwrap_or(false) {
        Reply::Background
    } else if accept.contains("text/event-stream") {
        Reply::Stream
    } else {
        Reply::Json
    }
}

impl AcceptedTurn {
    fn of(prompt: &prompts::Model) -> Self {
        let prompt_id = prompt.id;
        Self {
            prompt_id,
            user_message_id: prompt
                .user_message_id
                .or_else(|| prompt.input.as_ref()?.message_id),
            events_url: format!("/v1/prompts/{prompt_id}/events"),
        }
    }
}

/// How an accepted turn is answered: its feed, the finished turn, or `202` at once
/// (see `send_message`).
pub async fn respond(
    state: &AppState,
    request: &poem::Request,
    background: Option<bool>,
    prompt: &prompts::Model,
    auth: &BearerAuth,
) -> ApiResult<TurnResponse, statuses::SendMessage> {
    let location = format!("/v1/prompts/{}", prompt.id);
    Ok(match reply_mode(request, background) {
        Reply::Background => TurnResponse::Accepted(Json(AcceptedTurn::of(prompt)), location),
        Reply::Json => {
            TurnResponse::Finished(Json(Box::new(finished(state, prompt.id).await?)), location)
        }
        Reply::Stream => TurnResponse::Stream(
            sse::from_start(state, prompt, auth.0.credential()).await?,
            location,
        ),
    })
}

/// Waits for the end of a turn: the finished turn, or the problem it ended with (its
/// `instance` names the prompt, which may be resumed).
pub async fn finished<S: Statuses>(
    state: &AppState,
    prompt_id: Uuid,
) -> Result<FinishedTurn, ApiError<S>> {
    let timeout = state.streaming.wait_timeout;
    let problem = match state.turns.wait_for_end(prompt_id, timeout).await? {
        Ending::Ended(kind) => match *kind {
            EventKind::Complete {
                message_id,
                parent_id,
                payload,
                usage,
                model,
                vendor,
                latency_ms,
                blocked,
                block_category,
                replaced,
                fallback_from,
                fallback_reason,
                stop_reason,
            } => {
                return Ok(FinishedTurn {
                    prompt_id,
                    message_id,
                    parent_id,
                    payload: Documented::new(payload),
                    usage: Documented::new(usage),
                    model,
                    vendor,
                    latency_ms,
                    blocked,
                    block_category,
                    replaced: replaced.then_some(true),
                    fallback_from,
                    fallback_reason,
                    stop_reason,
                });
            }
            EventKind::Error { code, message, .. } => Problem::new(code, message),
            _ => Problem::new(ErrorCode::Cancelled, "the turn was cancelled"),
        },
        Ending::StillRunning => Problem::new(
            ErrorCode::Timeout,
            "the turn is still running; follow its events",
        ),
    };
    Err(ApiError::from_problem(
        problem.at(format!("/v1/prompts/{prompt_id}")),
    ))
}
