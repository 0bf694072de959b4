//! `/v1/prompts`: one generation — its state, its event feed, cancel and resume.

use chrono::{DateTime, Utc};
use parley_entity::{
    error::Error,
    prompts,
    query::{self, prompts as q},
};
use parley_protocol::events::{EventKind, PromptState};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Header, Path, Query},
    payload::{EventStream, Json},
};
use uuid::Uuid;

use super::ApiTags;
use crate::{
    auth::BearerAuth,
    error::ApiResult,
    sse::{self, Feed},
    state::AppState,
};

/// One generation of a session.
#[derive(Debug, Object)]
pub struct Prompt {
    pub id: Uuid,
    pub session_id: Uuid,
    /// created, in_progress, waiting_for_tools, completed, error, failed or canceled.
    pub state: String,
    /// How many times a worker started it.
    pub attempt: i32,
    pub model: Option<String>,
    pub vendor: Option<String>,
    pub user_message_id: Option<Uuid>,
    pub assistant_message_id: Option<Uuid>,
    pub error_code: Option<String>,
    pub error: Option<String>,
    pub cancel_requested_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    /// Where its event feed is (`GET`, SSE).
    pub events_url: String,
}

impl From<prompts::Model> for Prompt {
    fn from(p: prompts::Model) -> Self {
        Self {
            events_url: format!("/v1/prompts/{}/events", p.id),
            id: p.id,
            session_id: p.session_id,
            state: PromptState::from(p.state).as_str().to_owned(),
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
        }
    }
}

#[derive(ApiResponse)]
pub enum EventsResponse {
    /// The prompt's events as Server-Sent Events, ending after the terminal event.
    #[oai(status = 200)]
    Stream(EventStream<Feed>),
}

#[derive(ApiResponse)]
pub enum PromptAccepted {
    /// Accepted: the worker acts on it shortly (a cancelled feed ends with `cancelled`;
    /// a resumed prompt runs again).
    #[oai(status = 202)]
    Accepted(Json<Prompt>),
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
    ) -> ApiResult<Json<Prompt>> {
        Ok(Json(
            q::get_owned(&state.db, auth.0.user_id, id.0).await?.into(),
        ))
    }

    /// Follow a prompt's events
    ///
    /// Server-Sent Events from the start, or after `Last-Event-ID` / `?after=SEQ`, during
    /// or after the turn; any number of readers. Closing the feed does not stop the
    /// generation.
    #[oai(
        path = "/:id/events",
        method = "get",
        operation_id = "get_prompt_events"
    )]
    async fn events(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        /// Resume after this event (the last `id:` received).
        #[oai(name = "Last-Event-ID")]
        last_event_id: Header<Option<String>>,
        /// Resume after this `seq` (wins over `Last-Event-ID`).
        after: Query<Option<u64>>,
    ) -> ApiResult<EventsResponse> {
        let prompt = q::get_owned(&state.db, auth.0.user_id, id.0).await?;
        let after = match (after.0, last_event_id.0.as_deref()) {
            (Some(after), _) => after,
            (None, Some(id)) => id.trim().parse().map_err(|_| {
                Error::invalid(
                    "invalid_last_event_id",
                    "Last-Event-ID must be an event seq",
                )
            })?,
            (None, None) => 0,
        };
        let feed = sse::feed(&state, &prompt, after).await?;
        Ok(EventsResponse::Stream(
            EventStream::new(feed).to_event(sse::to_sse),
        ))
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
    ) -> ApiResult<PromptAccepted> {
        q::get_owned(&state.db, auth.0.user_id, id.0).await?;
        let prompt = q::request_cancel(&state.db, id.0, query::now()).await?;
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
    ) -> ApiResult<PromptAccepted> {
        q::get_owned(&state.db, auth.0.user_id, id.0).await?;
        let prompt = q::resume(&state.db, id.0, query::now()).await?;
        // The transition is on the log before the job runs, so a reader that joins now
        // follows the new attempt instead of stopping at the old terminal event.
        let created = EventKind::PromptState {
            state: PromptState::Created,
            attempt: prompt.attempt.max(0) as u32,
        };
        state
            .events
            .append(prompt.id, created)
            .await
            .map_err(|err| Error::Unavailable {
                what: format!("the event log ({err})"),
            })?;
        super::turns::enqueue(&state, prompt.id, request).await?;
        Ok(PromptAccepted::Accepted(Json(prompt.into())))
    }
}
