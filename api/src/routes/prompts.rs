//! `/v1/prompts`: one generation — its state, its event feed (with a bearer token or a
//! feed token), cancel and resume, the decisions on its function calls that wait for
//! approval (`/v1/approvals` lists those waiting) and the results of its calls of the
//! caller's own functions.

use chrono::{DateTime, Utc};
use parley_entity::{prompts, query::approvals::Verdict, tool_calls};
use parley_protocol::{client_functions::CallAnswer, error::ErrorCode};
use parley_protocol::{
    events::{PromptState, ToolCallState},
    route::RouteDecision,
};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Header, Path, Query},
    payload::Json,
};
use serde_json::Value;
use uuid::Uuid;

use super::{ApiTags, client_calls::ClientCallResult};
use crate::{
    auth::{BearerAuth, FeedAuth},
    error::{ApiResult, statuses},
    feed_token::{FeedGrant, FeedScope},
    sse::{self, Feed, Joined},
    state::AppState,
    trace::trace_context,
    types::{EventId, JsonObject},
};

/// One generation of a session.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Prompt {
    pub id: Uuid,
    pub session_id: Uuid,
    pub state: PromptState,
    /// How many times a worker started it.
    pub attempt: i32,
    pub model: Option<String>,
    pub vendor: Option<String>,
    pub user_message_id: Option<Uuid>,
    pub assistant_message_id: Option<Uuid>,
    /// Why it failed (`failed` or `error`).
    pub error_code: Option<ErrorCode>,
    /// The failure, for a person to read.
    pub error: Option<String>,
    pub cancel_requested_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    /// How the skill router decided the turn (absent when the tool turned skills off
    /// or the turn has not been routed yet). A skill that won answered instead of the
    /// model: `model` is the skill, `vendor` is `skill`.
    pub route: Option<RouteDecision>,
    /// Where its event feed is (`GET`, SSE).
    pub events_url: String,
}

impl From<prompts::Model> for Prompt {
    fn from(p: prompts::Model) -> Self {
        Self {
            events_url: format!("/v1/prompts/{}/events", p.id),
            id: p.id,
            session_id: p.session_id,
            state: p.state,
            attempt: p.attempt,
            model: p.model,
            vendor: p.vendor,
            user_message_id: p.user_message_id,
            assistant_message_id: p.assistant_message_id,
            error_code: p.error_code,
            error: p.error,
            cancel_requested_at: p.cancel_requested_at,
            created_at: p.created_at,
            started_at: p.started_at,
            completed_at: p.completed_at,
            route: p.route,
        }
    }
}

/// A credential that opens one prompt's event feed, for clients that cannot send an
/// `Authorization` header (a browser's `EventSource`).
#[derive(Debug, Object)]
pub struct FeedToken {
    /// Pass it as `?access_token=` to the events URL. Secret; it expires.
    pub token: String,
    pub expires_at: DateTime<Utc>,
    /// The events URL with the token in it.
    pub events_url: String,
}

#[derive(ApiResponse)]
pub enum EventsResponse {
    /// The prompt's events as Server-Sent Events, ending after the terminal event.
    #[oai(status = 200)]
    Stream(Feed),
    /// The prompt is finished and the reader already has its last event: nothing more
    /// will come (a WHATWG `EventSource` stops reconnecting).
    #[oai(status = 204)]
    UpToDate,
}

#[derive(ApiResponse)]
pub enum PromptAccepted {
    /// Accepted: the worker acts on it shortly (a cancelled feed ends with `cancelled`;
    /// a resumed prompt runs again).
    #[oai(status = 202)]
    Accepted(Json<Prompt>),
}

/// Approve a function call that waits, optionally with edited arguments.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct ApproveCall {
    /// The arguments to run the call with instead of the model's (a JSON object that
    /// fits the function's parameters); absent: the model's.
    pub input: Option<JsonObject>,
}

/// Deny a function call that waits.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct DenyCall {
    /// Why: the model is told.
    #[oai(validator(max_length = 2000))]
    pub reason: Option<String>,
}

/// A function call of a turn that waits for approval or for the caller's result, or was
/// decided or answered.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ToolCall {
    /// The call's id (what approve, deny and result take).
    pub id: Uuid,
    pub prompt_id: Uuid,
    pub session_id: Uuid,
    /// The function called.
    pub function: String,
    /// The arguments it runs (or ran) with.
    pub input: Value,
    pub state: ToolCallState,
    /// Until when it waits for approval or for the caller's result (while
    /// `awaiting_approval` or `awaiting_client`).
    pub approval_expires_at: Option<DateTime<Utc>>,
    /// What the model reads of it, once it ran or was answered.
    pub result: Option<Value>,
    /// Why it failed.
    pub error: Option<String>,
    /// Who approved, denied or answered it (absent for an expiry).
    pub decided_by: Option<Uuid>,
    pub decided_at: Option<DateTime<Utc>>,
    /// Why it was denied (`expired` when no one decided in time).
    pub decision_reason: Option<String>,
    /// The arguments the model asked for, when edited ones were approved.
    pub requested_input: Option<Value>,
    pub created_at: DateTime<Utc>,
}

impl From<tool_calls::Model> for ToolCall {
    fn from(c: tool_calls::Model) -> Self {
        Self {
            id: c.id,
            prompt_id: c.prompt_id,
            session_id: c.session_id,
            function: c.tool_name,
            input: c.tool_args,
            state: c.state,
            approval_expires_at: c.approval_expires_at,
            result: c.tool_result,
            error: c.error_message,
            decided_by: c.decided_by,
            decided_at: c.decided_at,
            decision_reason: c.decision_reason,
            requested_input: c.requested_args,
            created_at: c.created_at,
        }
    }
}

/// The calls waiting for the caller's approval.
#[derive(Debug, Object)]
pub struct ApprovalList {
    pub items: Vec<ToolCall>,
}

pub struct ApprovalsApi;

#[OpenApi(prefix_path = "/v1/approvals", tag = "ApiTags::Sessions")]
impl ApprovalsApi {
    /// List calls waiting for approval
    ///
    /// The function calls of the caller's sessions that wait for their approval, oldest
    /// first (each also arrives as `approval_requested` on the prompt's feed and the
    /// caller's feed).
    #[oai(path = "/", method = "get", operation_id = "list_approvals")]
    async fn list(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
    ) -> ApiResult<Json<ApprovalList>, statuses::Read> {
        let items = state.turns.waiting_approvals(auth.0.user_id).await?;
        Ok(Json(ApprovalList {
            items: items.into_iter().map(ToolCall::from).collect(),
        }))
    }
}

pub struct PromptsApi;

#[OpenApi(prefix_path = "/v1/prompts", tag = "ApiTags::Sessions")]
impl PromptsApi {
    /// Get a prompt
    #[oai(path = "/:id", method = "get", operation_id = "get_prompt")]
    async fn get(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Prompt>, statuses::ReadOne> {
        let prompt = state.turns.prompt(auth.0.user_id, id.0).await?;
        Ok(Json(prompt.into()))
    }

    /// Follow a prompt's events
    ///
    /// Server-Sent Events from the start, or after `Last-Event-ID` / `?after=SEQ`, during
    /// or after the turn; any number of readers. A reconnecting `EventSource` sends
    /// `Last-Event-ID` on the URL it first opened, so the header wins over `after`. Closing the feed does not stop the
    /// generation. A reader that already has a finished prompt's last event gets 204.
    /// Authenticates with a bearer token or with `?access_token=` (a feed token).
    #[oai(
        path = "/:id/events",
        method = "get",
        operation_id = "get_prompt_events"
    )]
    async fn events(
        &self,
        auth: FeedAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        /// Resume after this event (the last `id:` received).
        #[oai(name = "Last-Event-ID")]
        last_event_id: Header<Option<EventId>>,
        /// Start after this `seq` (when no `Last-Event-ID` is sent).
        #[oai(validator(minimum(value = "0"), maximum(value = "9007199254740991")))]
        after: Query<Option<u64>>,
    ) -> ApiResult<EventsResponse, statuses::Follow> {
        let reader = auth.reader_of(id.0)?;
        let prompt = state.turns.prompt(reader.user_id, id.0).await?;
        let held = last_event_id.0.map(|id| id.0);
        Ok(
            match sse::join(&state, &prompt, held.or(after.0).unwrap_or(0), reader).await? {
                Joined::Feed(feed) => EventsResponse::Stream(feed),
                Joined::UpToDate => EventsResponse::UpToDate,
            },
        )
    }

    /// Get a feed token
    ///
    /// A short-lived token that opens this prompt's event feed and nothing else, for a
    /// browser's `EventSource` (which cannot send an `Authorization` header).
    #[oai(
        path = "/:id/feed-token",
        method = "post",
        operation_id = "create_feed_token"
    )]
    async fn feed_token(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<FeedToken>, statuses::ReadOne> {
        let prompt = state.turns.prompt(auth.0.user_id, id.0).await?;
        let grant = FeedGrant {
            scope: FeedScope::Prompt(prompt.id),
            user_id: auth.0.user_id,
            token_id: auth.0.token_id,
        };
        let (token, expires_at) = state.feed_tokens.mint(grant, Utc::now());
        Ok(Json(FeedToken {
            events_url: format!("/v1/prompts/{}/events?access_token={token}", prompt.id),
            token,
            expires_at,
        }))
    }

    /// Cancel a prompt
    ///
    /// Recorded before it is signalled, so a cancel that arrives before any worker took
    /// the prompt still wins; partial content is kept. 409 when it already finished.
    #[oai(path = "/:id/cancel", method = "post", operation_id = "cancel_prompt")]
    async fn cancel(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<PromptAccepted, statuses::Act> {
        let prompt = state.turns.cancel(auth.0.user_id, id.0).await?;
        Ok(PromptAccepted::Accepted(Json(prompt.into())))
    }

    /// Approve a function call
    ///
    /// The session's owner lets a call that waits for approval run, with the model's
    /// arguments or edited ones (`input`). Once no call of the turn waits, the turn
    /// resumes as a new attempt: the call runs, and the model is called with its result.
    /// Recorded on the call (who, when, what input). 404 for another user's prompt or a
    /// call it does not have; 409 `not_awaiting_approval` when it is decided, expired or
    /// cancelled; 422 `invalid_approval_input` when `input` does not fit the function.
    #[oai(
        path = "/:id/calls/:call_id/approve",
        method = "post",
        operation_id = "approve_call"
    )]
    async fn approve(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        call_id: Path<Uuid>,
        body: Json<ApproveCall>,
    ) -> ApiResult<Json<ToolCall>, statuses::ChangeMayConflict> {
        let verdict = Verdict::Approve {
            input: body.0.input.map(Value::from),
        };
        let call = state
            .turns
            .decide_call(auth.0.user_id, id.0, call_id.0, verdict)
            .await?;
        Ok(Json(call.into()))
    }

    /// Deny a function call
    ///
    /// The session's owner refuses a call that waits for approval: it never runs, and
    /// the model is told it was denied (and `reason`, if given) once no call of the turn
    /// waits. 404 for another user's prompt or a call it does not have; 409
    /// `not_awaiting_approval` when it is decided, expired or cancelled.
    #[oai(
        path = "/:id/calls/:call_id/deny",
        method = "post",
        operation_id = "deny_call"
    )]
    async fn deny(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        call_id: Path<Uuid>,
        body: Json<DenyCall>,
    ) -> ApiResult<Json<ToolCall>, statuses::ChangeMayConflict> {
        let reason = body.0.reason.filter(|r| !r.trim().is_empty());
        let call = state
            .turns
            .decide_call(auth.0.user_id, id.0, call_id.0, Verdict::Deny { reason })
            .await?;
        Ok(Json(call.into()))
    }

    /// Answer a call of a client function
    ///
    /// The caller posts the result of a call its function was asked for
    /// (`client_call_requested`): JSON `output`, `text`, or the `error` it failed with.
    /// Once no call of the turn waits, the turn resumes as a new attempt and the model is
    /// called with the result. 404 for another user's prompt or a call it does not have;
    /// 409 `not_awaiting_result` when the call does not wait for a result (answered,
    /// expired, cancelled, or not a client function's); 422 `invalid_call_result` when
    /// the result is not what the function's `returns` declares (the call keeps
    /// waiting). A body that is not exactly one of the three is 422 `validation_failed`.
    #[oai(
        path = "/:id/calls/:call_id/result",
        method = "post",
        operation_id = "post_call_result"
    )]
    async fn result(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        call_id: Path<Uuid>,
        body: Json<ClientCallResult>,
    ) -> ApiResult<Json<ToolCall>, statuses::ChangeMayConflict> {
        let answer = CallAnswer::from(body.0);
        let call = state
            .turns
            .answer_call(auth.0.user_id, id.0, call_id.0, answer)
            .await?;
        Ok(Json(call.into()))
    }

    /// Resume a prompt
    ///
    /// Runs a `failed` or `error` prompt again; 409 otherwise.
    #[oai(path = "/:id/resume", method = "post", operation_id = "resume_prompt")]
    async fn resume(
        &self,
        auth: BearerAuth,
        request: &poem::Request,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<PromptAccepted, statuses::Act> {
        let trace = trace_context(request);
        let prompt = state.turns.resume(auth.0.user_id, id.0, trace).await?;
        Ok(PromptAccepted::Accepted(Json(prompt.into())))
    }
}
