//! `/v1/prompts`: one generation — its state, its event feed (with a bearer token or a
//! feed token), cancel and resume.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use parley_entity::{prompts, query::prompts as q};
use parley_protocol::error::ErrorCode;
use parley_protocol::{events::PromptState, route::RouteDecision};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Header, Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::ApiTags;
use crate::{
    auth::{BearerAuth, FeedAuth},
    error::{ApiResult, statuses},
    feed_token::{FeedGrant, FeedScope},
    sse::{self, Feed, Joined},
    state::AppState,
    types::EventId,
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

/// The W3C trace context to carry in a request's job, so the worker's spans join the
/// request's trace: the request span's own when traces are exported, else what the
/// caller sent (passed on for a tracer downstream).
pub fn trace_context(request: &poem::Request) -> HashMap<String, String> {
    let exported = parley_runtime::trace::context_of(&tracing::Span::current());
    if exported.is_empty() {
        crate::middleware::carried_headers(request)
    } else {
        exported
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
        let prompt = q::get_readable(&state.db, auth.0.user_id, id.0).await?;
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
        let prompt = q::get_readable(&state.db, reader.user_id, id.0).await?;
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
        let prompt = q::get_readable(&state.db, auth.0.user_id, id.0).await?;
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
