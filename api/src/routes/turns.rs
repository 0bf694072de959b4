//! Turns: `POST /v1/sessions/{id}/messages` records a prompt, enqueues its job and
//! answers with the SSE feed, the finished turn, or `202`; plus the session's streaming
//! state and cancel (DESIGN §7).

use futures::StreamExt;
use parley_entity::{
    blocks,
    error::Error,
    query::{self, prompts as q, sessions},
};
use parley_protocol::{
    events::{ErrorCode, EventKind, StreamEvent},
    jobs::Generate,
};
use poem::{http::StatusCode, web::Data};
use poem_openapi::{
    ApiResponse, Enum, Object, OpenApi,
    param::{Header, Path, Query},
    payload::{EventStream, Json},
};
use uuid::Uuid;

use super::{ApiTags, prompts::Prompt, sessions::Message};
use crate::{
    auth::BearerAuth,
    error::{ApiResult, ErrorResponse, Problem},
    pagination::{self, Page},
    sse::{self, Feed},
    state::AppState,
};

/// A message to the session's tool.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateMessage {
    /// What the user says.
    pub content: String,
    /// The model to answer with (see `GET /v1/models`); absent: the default model.
    pub model: Option<String>,
}

/// What to do when the session is still answering an earlier message.
#[derive(Debug, Clone, Copy, Enum)]
#[oai(rename_all = "snake_case")]
pub enum OnActive {
    /// Refuse with 409 (the default).
    Reject,
    /// Cancel the running answer, then answer this message.
    Interrupt,
    /// Answer this message after the running one.
    Enqueue,
}

/// A turn accepted to run in the background.
#[derive(Debug, Object)]
pub struct AcceptedTurn {
    pub prompt_id: Uuid,
    /// The SSE feed of the turn.
    pub events_url: String,
}

/// A finished turn (`Accept: application/json`).
#[derive(Debug, Object)]
pub struct FinishedTurn {
    pub prompt_id: Uuid,
    pub message_id: Uuid,
    /// ChatResponsePayload: message, custom_payload, suggested_values,
    /// suggested_actions, tool_history.
    pub payload: serde_json::Value,
    pub usage: serde_json::Value,
    pub model: String,
    pub vendor: String,
    pub latency_ms: u64,
    pub blocked: bool,
}

#[derive(ApiResponse)]
pub enum TurnResponse {
    /// `Accept: text/event-stream`: the turn's events from seq 1.
    #[oai(status = 200)]
    Stream(EventStream<Feed>, #[oai(header = "Location")] String),
    /// `Accept: application/json`: the finished turn.
    #[oai(status = 201)]
    Finished(Json<FinishedTurn>, #[oai(header = "Location")] String),
    /// `?background=true`: the turn runs; follow `events_url`.
    #[oai(status = 202)]
    Accepted(Json<AcceptedTurn>, #[oai(header = "Location")] String),
}

/// The session's active generation and its partial content.
#[derive(Debug, Object)]
pub struct StreamingState {
    /// The active prompt, if the session is answering.
    pub prompt: Option<Prompt>,
    /// Its content blocks so far (checkpointed at most every 100 ms).
    pub blocks: Vec<Block>,
}

/// A content block of an answer.
#[derive(Debug, Object)]
pub struct Block {
    pub index: i32,
    /// text, thinking, tool_call or attachment.
    #[oai(rename = "type")]
    pub kind: String,
    pub content: String,
    pub is_finalized: bool,
}

impl From<blocks::Model> for Block {
    fn from(b: blocks::Model) -> Self {
        let kind = serde_json::to_value(b.r#type)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        Self {
            index: b.index,
            kind,
            content: b.content,
            is_finalized: b.is_finalized,
        }
    }
}

pub struct TurnsApi;

#[OpenApi(prefix_path = "/v1/sessions", tag = "ApiTags::Sessions")]
impl TurnsApi {
    /// Send a message
    ///
    /// Records a prompt and starts the turn. With `Accept: text/event-stream` the answer
    /// streams as Server-Sent Events (`Location` names the prompt); with
    /// `Accept: application/json` the finished turn is returned (a failed turn is a
    /// problem); with `?background=true` it answers 202 at once. A repeated
    /// `Idempotency-Key` returns the same prompt. While another message of the session is
    /// being answered: 409, unless `on_active` says `interrupt` or `enqueue`.
    #[oai(path = "/:id/messages", method = "post", operation_id = "send_message")]
    #[allow(clippy::too_many_arguments)]
    async fn send(
        &self,
        auth: BearerAuth,
        request: &poem::Request,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<CreateMessage>,
        /// Return the same prompt when a request with this key was already accepted.
        #[oai(name = "Idempotency-Key", validator(max_length = 200))]
        idempotency_key: Header<Option<String>>,
        /// `text/event-stream` (the default) or `application/json`.
        #[oai(name = "Accept")]
        accept: Header<Option<String>>,
        /// Answer 202 at once and run the turn in the background.
        background: Query<Option<bool>>,
        /// What to do while another message of the session is being answered.
        on_active: Query<Option<OnActive>>,
    ) -> ApiResult<TurnResponse> {
        let body = body.0;
        let content = body.content;
        if content.trim().is_empty() {
            return Err(Error::invalid("empty_message", "the message is empty").into());
        }
        if content.len() > state.limits.max_message_bytes {
            let limit = state.limits.max_message_bytes;
            return Err(Error::invalid(
                "message_too_long",
                format!("the message exceeds {limit} bytes"),
            )
            .into());
        }
        let model = match body.model {
            Some(model) if !state.models.contains(&model) => {
                return Err(Error::invalid(
                    "unknown_model",
                    format!("the model `{model}` is not served here; see GET /v1/models"),
                )
                .into());
            }
            Some(model) => model,
            None => state.models.default_model().to_owned(),
        };
        let turn = q::NewTurn {
            session_id: id.0,
            user_id: auth.0.user_id,
            content,
            model,
            idempotency_key: idempotency_key.0,
            on_active: match on_active.0.unwrap_or(OnActive::Reject) {
                OnActive::Reject => q::OnActive::Reject,
                OnActive::Interrupt => q::OnActive::Interrupt,
                OnActive::Enqueue => q::OnActive::Enqueue,
            },
        };
        let turn = q::create_turn(&state.db, turn, query::now()).await?;
        if turn.run_now {
            enqueue(&state, turn.prompt.id, request).await?;
        }
        let prompt = turn.prompt;
        let location = format!("/v1/prompts/{}", prompt.id);
        if background.0.unwrap_or(false) {
            let accepted = AcceptedTurn {
                prompt_id: prompt.id,
                events_url: format!("/v1/prompts/{}/events", prompt.id),
            };
            return Ok(TurnResponse::Accepted(Json(accepted), location));
        }
        if accept
            .0
            .as_deref()
            .is_some_and(|a| a.contains("application/json") && !a.contains("text/event-stream"))
        {
            let finished = wait_for_turn(&state, prompt.id).await?;
            return Ok(TurnResponse::Finished(Json(finished), location));
        }
        let feed = sse::feed(&state, &prompt, 0).await?;
        Ok(TurnResponse::Stream(
            EventStream::new(feed).to_event(sse::to_sse),
            location,
        ))
    }

    /// List a session's messages
    ///
    /// In conversation order (`seq` ascending).
    #[oai(
        path = "/:id/messages",
        method = "get",
        operation_id = "list_session_messages"
    )]
    async fn messages(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        /// Page size, 1–100 (default 20).
        limit: Query<Option<u32>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Message>>> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let session = sessions::get_owned(&state.db, auth.0.user_id, id.0).await?;
        let rows = sessions::messages(&state.db, session.id, page).await?;
        Ok(Json(Page::from_rows(rows, Message::from)))
    }

    /// Get the streaming state
    ///
    /// The session's active prompt and its partial blocks, to show an answer in progress
    /// (e.g. after a page reload) before joining its feed.
    #[oai(
        path = "/:id/streaming",
        method = "get",
        operation_id = "get_streaming_state"
    )]
    async fn streaming(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<StreamingState>> {
        let session = sessions::get_owned(&state.db, auth.0.user_id, id.0).await?;
        let Some(prompt_id) = session.active_prompt_id else {
            return Ok(Json(StreamingState {
                prompt: None,
                blocks: vec![],
            }));
        };
        let prompt = q::get(&state.db, prompt_id).await?;
        let blocks = query::conversation::blocks_of(&state.db, prompt.id)
            .await?
            .into_iter()
            .map(Block::from)
            .collect();
        Ok(Json(StreamingState {
            prompt: Some(prompt.into()),
            blocks,
        }))
    }

    /// Cancel the session's active prompt
    ///
    /// Like `POST /v1/prompts/{id}/cancel` for whatever the session is answering; 409
    /// `nothing_to_cancel` when it is idle.
    #[oai(
        path = "/:id/cancel",
        method = "post",
        operation_id = "cancel_session_prompt"
    )]
    async fn cancel(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<super::prompts::PromptAccepted> {
        let session = sessions::get_owned(&state.db, auth.0.user_id, id.0).await?;
        let Some(prompt_id) = session.active_prompt_id else {
            return Err(Error::conflict(
                "nothing_to_cancel",
                "the session is not answering anything",
            )
            .into());
        };
        let prompt = q::request_cancel(&state.db, prompt_id, query::now())
            .await
            .map_err(|err| match err {
                Error::Conflict { .. } => {
                    Error::conflict("nothing_to_cancel", "the session is not answering anything")
                }
                other => other,
            })?;
        Ok(super::prompts::PromptAccepted::Accepted(Json(
            prompt.into(),
        )))
    }
}

/// Enqueues a prompt's job; when the queue is down the prompt is given up (`failed`,
/// resumable) so the session is not left waiting, and the caller gets 503.
pub async fn enqueue(
    state: &AppState,
    prompt_id: Uuid,
    request: &poem::Request,
) -> Result<(), ErrorResponse> {
    let mut job = Generate::new(prompt_id);
    // W3C trace context of the request, so the worker's spans join the same trace.
    for name in ["traceparent", "tracestate"] {
        if let Some(value) = request.header(name).filter(|v| v.len() <= 512) {
            job.trace_context.insert(name.to_owned(), value.to_owned());
        }
    }
    match state.queue.enqueue(job).await {
        Ok(()) => Ok(()),
        Err(err) => {
            tracing::error!(error = %err, %prompt_id, "cannot enqueue a turn");
            if let Ok(Some(next)) = q::abandon(
                &state.db,
                prompt_id,
                "the job queue is unavailable",
                query::now(),
            )
            .await
            {
                let _ = state.queue.enqueue(Generate::new(next)).await;
            }
            Err(Error::Unavailable {
                what: "the job queue".into(),
            }
            .into())
        }
    }
}

/// Waits for the terminal event of a turn and turns it into the JSON answer or a problem.
async fn wait_for_turn(state: &AppState, prompt_id: Uuid) -> Result<FinishedTurn, ErrorResponse> {
    let mut events = state.events.subscribe(prompt_id, 0);
    let terminal = tokio::time::timeout(state.streaming.wait_timeout, async {
        while let Some(event) = events.next().await {
            match event {
                Ok(event) if event.kind.is_terminal() => return Ok(Some(event)),
                Ok(_) => {}
                Err(err) => return Err(err),
            }
        }
        Ok(None)
    })
    .await;
    let event: StreamEvent = match terminal {
        Err(_) => {
            let problem = Problem::new(
                StatusCode::GATEWAY_TIMEOUT,
                "timeout",
                "the turn is still running; follow its events",
            );
            return Err(ErrorResponse::from_problem(
                problem.at(format!("/v1/prompts/{prompt_id}")),
            ));
        }
        Ok(Err(err)) => {
            return Err(Error::Unavailable {
                what: format!("the event log ({err})"),
            }
            .into());
        }
        Ok(Ok(None)) => {
            return Err(Error::internal(
                "waiting for a turn",
                "the event log ended without a terminal event",
            )
            .into());
        }
        Ok(Ok(Some(event))) => event,
    };
    match event.kind {
        EventKind::Complete {
            message_id,
            payload,
            usage,
            model,
            vendor,
            latency_ms,
            blocked,
            ..
        } => Ok(FinishedTurn {
            prompt_id,
            message_id,
            payload: serde_json::to_value(payload).unwrap_or_default(),
            usage: serde_json::to_value(usage).unwrap_or_default(),
            model,
            vendor,
            latency_ms,
            blocked,
        }),
        EventKind::Error { code, message, .. } => {
            let (status, name) = match code {
                ErrorCode::RateLimited => (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
                ErrorCode::UpstreamStall => (StatusCode::GATEWAY_TIMEOUT, "upstream_stall"),
                ErrorCode::Timeout => (StatusCode::GATEWAY_TIMEOUT, "timeout"),
                ErrorCode::UnknownModel => (StatusCode::UNPROCESSABLE_ENTITY, "unknown_model"),
                ErrorCode::InternalError => (StatusCode::INTERNAL_SERVER_ERROR, "internal_error"),
                ErrorCode::ToolError => (StatusCode::BAD_GATEWAY, "tool_error"),
                ErrorCode::UpstreamError => (StatusCode::BAD_GATEWAY, "upstream_error"),
            };
            let problem =
                Problem::new(status, name, message).at(format!("/v1/prompts/{prompt_id}"));
            Err(ErrorResponse::from_problem(problem))
        }
        _ => {
            let problem = Problem::new(StatusCode::CONFLICT, "cancelled", "the turn was cancelled");
            Err(ErrorResponse::from_problem(
                problem.at(format!("/v1/prompts/{prompt_id}")),
            ))
        }
    }
}
