//! `POST /v1/ask` and `GET /v1/ask/replay/{rid}` (seed Gesahni): a thin facade over
//! sessions and turns for clients that want one call per message.
//!
//! A conversation is a session with a short request id, `rid`, unique per user: a
//! request without one opens a new conversation (with the tool asked for, or the first
//! tool the caller may use) and gets a fresh 8-character `rid`; a request with one
//! continues that conversation. The message is then a turn like `POST
//! /v1/sessions/{id}/messages`: `model: "auto"` (or none) lets the router choose —
//! skills first, then the default model with its fallback chain. `stream` picks the
//! SSE feed (the default) or the finished turn as JSON. Replay returns the messages of
//! one of the caller's own conversations; another user's `rid` is not found. Both need
//! the `chat:write` permission (every role has it by default; an admin may revoke it).

use chrono::{DateTime, Utc};
use parley_entity::query::{self, sessions as q};
use parley_protocol::error::ErrorCode;
use parley_protocol::turn::TurnInput;
use parley_service::turns::Submission;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json};
use uuid::Uuid;

use super::{
    ApiTags,
    reply::{FinishedTurn, finished},
    sessions::opener,
    views::MessageRole,
};
use crate::{
    auth::BearerAuth,
    error::{ApiResult, Problem, statuses},
    identity::Caller,
    sse::{self, Feed},
    state::AppState,
    trace::trace_context,
    types::{MessageText, Text},
};

/// The permission both routes need.
const CHAT_WRITE: &str = "chat:write";
/// The most messages a replay returns (the oldest first).
const MAX_REPLAYED: u64 = 1000;

/// One message to ask.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct AskRequest {
    /// What the user says.
    pub prompt: MessageText,
    /// `auto` (or absent): the router chooses; otherwise a model id (`GET /v1/models`).
    #[oai(validator(min_length = 1, max_length = 200))]
    pub model: Option<Text>,
    /// Stream the answer as Server-Sent Events (default `true`), or return the
    /// finished turn.
    pub stream: Option<bool>,
    /// The conversation to continue; absent: a new one.
    #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,32}$"))]
    pub rid: Option<String>,
    /// A new conversation's chat tool; absent: the first tool the caller may use.
    /// Ignored when continuing one.
    pub tool_id: Option<Uuid>,
}

/// The finished turn of an `/v1/ask`, in its conversation.
#[derive(Object)]
pub struct AskAnswer {
    /// The conversation's request id: send it back to continue.
    pub rid: String,
    pub session_id: Uuid,
    pub turn: Box<FinishedTurn>,
}

#[derive(ApiResponse)]
pub enum AskResponse {
    /// `stream` true (the default): the turn's events from seq 1; `Parley-Rid` names
    /// the conversation, `Location` the prompt.
    #[oai(status = 200)]
    Stream(
        Feed,
        #[oai(header = "Parley-Rid")] String,
        #[oai(header = "Location")] String,
    ),
    /// `stream` false: the finished turn.
    #[oai(status = 201)]
    Finished(Json<AskAnswer>, #[oai(header = "Location")] String),
}

/// One message of a replayed conversation.
#[derive(Debug, Object)]
pub struct ReplayedMessage {
    pub id: Uuid,
    pub role: MessageRole,
    pub content: String,
    pub created_at: DateTime<Utc>,
}

/// The messages of one conversation, oldest first.
#[derive(Debug, Object)]
pub struct Replay {
    pub rid: String,
    pub session_id: Uuid,
    pub message_count: u64,
    pub messages: Vec<ReplayedMessage>,
}

pub struct AskApi;

#[OpenApi(prefix_path = "/v1/ask", tag = "ApiTags::Sessions")]
impl AskApi {
    /// Ask
    ///
    /// Sends one message in a conversation named by `rid` (a new one without it) and
    /// answers with its Server-Sent Events, or with the finished turn when `stream` is
    /// false. Needs the `chat:write` permission.
    #[oai(path = "/", method = "post", operation_id = "ask")]
    async fn ask(
        &self,
        auth: BearerAuth,
        request: &poem::Request,
        state: poem::web::Data<&AppState>,
        body: Json<AskRequest>,
    ) -> ApiResult<AskResponse, statuses::Ask> {
        may_chat(&auth.0)?;
        let body = body.0;
        let session = match &body.rid {
            Some(rid) => state.sessions().by_rid(auth.0.user_id, rid).await?,
            None => open_conversation(&state, &auth.0, body.tool_id).await?,
        };
        let rid = session.rid.clone().unwrap_or_default();
        let model = body
            .model
            .map(Text::into_inner)
            .filter(|model| model != "auto");
        let submission = Submission {
            session_id: session.id,
            user_id: auth.0.user_id,
            input: TurnInput::text(body.prompt.0),
            model,
            idempotency_key: None,
            on_active: query::prompts::OnActive::Reject,
            trace_context: trace_context(request),
            answers: None,
        };
        let prompt = state.turns.submit(submission).await?;
        let location = format!("/v1/prompts/{}", prompt.id);
        Ok(if body.stream.unwrap_or(true) {
            AskResponse::Stream(
                sse::from_start(&state, &prompt, auth.0.credential()).await?,
                rid,
                location,
            )
        } else {
            let turn = finished(&state, prompt.id).await?;
            AskResponse::Finished(
                Json(AskAnswer {
                    rid,
                    session_id: session.id,
                    turn: Box::new(turn),
                }),
                location,
            )
        })
    }

    /// Replay a conversation
    ///
    /// The messages of one of the caller's `/v1/ask` conversations, oldest first (at
    /// most 1000). Another user's `rid` is not found.
    #[oai(path = "/replay/:rid", method = "get", operation_id = "ask_replay")]
    async fn replay(
        &self,
        auth: BearerAuth,
        state: poem::web::Data<&AppState>,
        #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,32}$"))] rid: Path<String>,
    ) -> ApiResult<Json<Replay>, statuses::AskReplay> {
        may_chat(&auth.0)?;
        let replay = state
            .sessions()
            .replay(auth.0.user_id, &rid.0, MAX_REPLAYED)
            .await?;
        let (session, messages) = (replay.session, replay.messages);
        Ok(Json(Replay {
            rid: rid.0,
            session_id: session.id,
            message_count: messages.len() as u64,
            messages: messages
                .into_iter()
                .map(|m| ReplayedMessage {
                    id: m.id,
                    role: m.role.into(),
                    content: m.content,
                    created_at: m.created_at,
                })
                .collect(),
        }))
    }
}

pub(crate) fn may_chat(caller: &Caller) -> Result<(), Box<Problem>> {
    if caller.permissions.iter().any(|p| p == CHAT_WRITE) {
        Ok(())
    } else {
        Err(Box::new(Problem::from(
            parley_protocol::error::Error::forbidden("the `chat:write` permission is needed"),
        )))
    }
}

/// Opens a new conversation with a fresh `rid`.
async fn open_conversation(
    state: &AppState,
    caller: &Caller,
    tool_id: Option<Uuid>,
) -> parley_protocol::error::Result<parley_entity::sessions::Model> {
    let who = opener(caller);
    let sessions = state.sessions();
    let tool_id = match tool_id {
        Some(id) => id,
        None => sessions.first_usable_tool(who).await?.ok_or_else(|| {
            parley_protocol::error::Error::invalid(
                ErrorCode::NoTool,
                "the caller may use no chat tool: give `tool_id`, or ask an administrator",
            )
        })?,
    };
    // The random end of a UUIDv7 (its start is the time): 32 random bits.
    let id = Uuid::now_v7().simple().to_string();
    let rid = id[id.len() - 8..].to_owned();
    let request = q::OpenSession {
        tool_id,
        assignment_id: None,
        submission_id: None,
        rid: Some(rid),
    };
    sessions.start(who, request).await
}
