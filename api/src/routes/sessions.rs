//! `/v1/sessions`: the caller's conversations.

use chrono::{DateTime, Utc};
use parley_entity::{query::sessions as q, sessions};
use parley_protocol::config::SessionConfig;
use parley_service::sessions::Completion;
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::{ApiTags, views::SessionState};
use crate::{
    auth::{BearerAuth, Caller},
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    state::AppState,
};

/// Open a session with a chat tool, optionally for an assignment.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateSession {
    /// The chat tool to talk to; the caller must reach it through their groups.
    pub tool_id: Uuid,
    /// The assignment this session works on; the caller must be enrolled in its class
    /// and the assignment must be open.
    pub assignment_id: Option<Uuid>,
    /// The caller's submission for that assignment.
    pub submission_id: Option<Uuid>,
}

/// A conversation between the caller and a chat tool.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Session {
    pub id: Uuid,
    pub tool_id: Uuid,
    pub assignment_id: Option<Uuid>,
    pub submission_id: Option<Uuid>,
    pub state: SessionState,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub last_activity_at: DateTime<Utc>,
    pub message_count: i32,
    /// The generation in flight, if any.
    pub active_prompt_id: Option<Uuid>,
    /// The last message of the branch the session shows and continues (absent before
    /// the first message).
    pub active_leaf_id: Option<Uuid>,
    pub end_reason: Option<String>,
    /// The resolved configuration cascade (organisation → tool → assignment), frozen
    /// when the session started.
    pub config: SessionConfig,
}

impl From<sessions::Model> for Session {
    fn from(s: sessions::Model) -> Self {
        Self {
            id: s.id,
            tool_id: s.tool_id,
            assignment_id: s.assignment_id,
            submission_id: s.submission_id,
            state: s.state.into(),
            started_at: s.started_at,
            ended_at: s.ended_at,
            last_activity_at: s.last_activity_at,
            message_count: s.message_count,
            active_prompt_id: s.active_prompt_id,
            active_leaf_id: s.active_leaf_id,
            end_reason: s.end_reason,
            config: s.config,
        }
    }
}

#[derive(ApiResponse)]
pub enum CreatedSession {
    /// The session was opened.
    #[oai(status = 201)]
    Created(Json<Session>, #[oai(header = "Location")] String),
}

pub(crate) fn opener(caller: &Caller) -> q::Opener {
    q::Opener {
        user_id: caller.user_id,
        is_admin: caller.is_admin(),
    }
}

pub struct SessionsApi;

#[OpenApi(prefix_path = "/v1/sessions", tag = "ApiTags::Sessions")]
impl SessionsApi {
    /// Open a session
    ///
    /// Checks that the caller reaches the tool through group membership and, with an
    /// assignment, that they are enrolled and the assignment is open; stores the
    /// resolved configuration cascade.
    #[oai(path = "/", method = "post", operation_id = "create_session")]
    async fn create(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        body: Json<CreateSession>,
    ) -> ApiResult<CreatedSession, statuses::CreateSession> {
        let req = q::OpenSession {
            tool_id: body.tool_id,
            assignment_id: body.assignment_id,
            submission_id: body.submission_id,
            rid: None,
        };
        let session = state.sessions().start(opener(&auth.0), req).await?;
        let location = format!("/v1/sessions/{}", session.id);
        Ok(CreatedSession::Created(Json(session.into()), location))
    }

    /// List sessions
    ///
    /// The caller's sessions, active ones first, then the most recently active.
    #[oai(path = "/", method = "get", operation_id = "list_sessions")]
    async fn list(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        /// Only sessions with this tool.
        tool_id: Query<Option<Uuid>>,
        /// Only sessions in this state.
        #[oai(name = "state")]
        session_state: Query<Option<SessionState>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Session>>, statuses::List> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let filter = q::SessionFilter {
            tool_id: tool_id.0,
            state: session_state.0.map(Into::into),
        };
        let rows = state.sessions().list(auth.0.user_id, filter, page).await?;
        Ok(Json(Page::from_rows(rows, Session::from)))
    }

    /// Get a session
    #[oai(path = "/:id", method = "get", operation_id = "get_session")]
    async fn get(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Session>, statuses::ReadOne> {
        Ok(Json(
            state.sessions().get(auth.0.user_id, id.0).await?.into(),
        ))
    }

    /// Complete a session
    ///
    /// Ends an active session; 409 when it is already completed.
    #[oai(
        path = "/:id/complete",
        method = "post",
        operation_id = "complete_session"
    )]
    async fn complete(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Session>, statuses::Act> {
        let session = state
            .sessions()
            .complete(auth.0.user_id, id.0, Completion::ByUser)
            .await?;
        Ok(Json(session.into()))
    }
}
