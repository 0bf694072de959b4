//! `/v1/sessions`: the caller's conversations.

use chrono::{DateTime, Utc};
use parley_entity::{
    query::{session_edits::SessionChanges, sessions as q},
    sessions,
};
use parley_protocol::{config::SessionConfig, jobs::TitleSource};
use parley_service::sessions::Completion;
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
};
use uuid::Uuid;

use super::{ApiTags, views::SessionState};
use crate::{
    auth::BearerAuth,
    error::{ApiResult, statuses},
    identity::Caller,
    pagination::{self, Limit, Page},
    state::AppState,
    types::Text,
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
    /// What the session is called: the owner's title, or one generated after its first
    /// exchange (the title model's, or the first words of the first message). Absent
    /// until then.
    pub title: Option<String>,
    /// Who wrote the title: `words`, `model` or `user`.
    pub title_source: Option<TitleSource>,
    /// Present (true) when the owner pinned it: pinned sessions list first.
    pub pinned: Option<bool>,
    /// When it was pinned.
    pub pinned_at: Option<DateTime<Utc>>,
    /// Present (true) when the owner archived it: archived sessions leave the default list.
    pub archived: Option<bool>,
    /// When it was archived.
    pub archived_at: Option<DateTime<Utc>>,
}

/// What the owner changes about a session; absent fields stay as they are.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateSession {
    /// The new title (trimmed; not blank); `null` clears it, and the next finished
    /// exchange titles the session again.
    #[oai(validator(max_length = 200))]
    pub title: MaybeUndefined<Text>,
    /// Pin (true) or unpin (false).
    pub pinned: Option<bool>,
    /// Archive (true) or bring back (false).
    pub archived: Option<bool>,
}

impl From<UpdateSession> for SessionChanges {
    fn from(body: UpdateSession) -> Self {
        Self {
            title: match body.title {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(title) => Some(Some(title.into())),
            },
            pinned: body.pinned,
            archived: body.archived,
        }
    }
}

/// A session whose messages match a search.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct SessionMatch {
    pub session_id: Uuid,
    /// The session's title, when it has one.
    pub title: Option<String>,
    /// Its best matching message (`GET /v1/sessions/{id}/messages` has it).
    pub message_id: Uuid,
    /// A short excerpt of that message around the first word found (`…` where text is
    /// left out).
    pub snippet: String,
}

/// The sessions a search found.
#[derive(Debug, Object)]
pub struct SessionMatches {
    /// Best match first.
    pub items: Vec<SessionMatch>,
}

impl From<parley_service::sessions::SessionMatch> for SessionMatch {
    fn from(m: parley_service::sessions::SessionMatch) -> Self {
        Self {
            session_id: m.session_id,
            title: m.title,
            message_id: m.message_id,
            snippet: m.snippet,
        }
    }
}

/// The answer of a delete.
#[derive(ApiResponse)]
pub enum DeletedSession {
    /// Deleted: the session and its content are gone.
    #[oai(status = 204)]
    NoContent,
}

/// What a long conversation's model still sees of its history: the history window
/// moves in steps once the conversation outgrows the model's context, and for a tool that
/// summarizes (`history.compaction = "summarize"`) what a step left out is summarized and
/// heads the history the model reads.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct SessionSummary {
    /// How many times the window stepped (0: the conversation still fits whole).
    pub steps: i32,
    /// The newest message the window leaves out (the model reads what follows it).
    pub through_message_id: Option<Uuid>,
    /// The summary of what it leaves out (absent: the tool does not summarize).
    pub summary: Option<String>,
    /// The model that wrote the summary.
    pub model: Option<String>,
    /// When the window last stepped.
    pub updated_at: Option<DateTime<Utc>>,
}

impl From<Option<parley_entity::session_summaries::Model>> for SessionSummary {
    fn from(row: Option<parley_entity::session_summaries::Model>) -> Self {
        match row {
            None => Self {
                steps: 0,
                through_message_id: None,
                summary: None,
                model: None,
                updated_at: None,
            },
            Some(row) => Self {
                steps: row.steps,
                through_message_id: Some(row.through_message_id),
                summary: row.summary,
                model: row.model,
                updated_at: Some(row.updated_at),
            },
        }
    }
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
            title: s.title,
            title_source: s.title_source,
            pinned: s.pinned_at.map(|_| true),
            pinned_at: s.pinned_at,
            archived: s.archived_at.map(|_| true),
            archived_at: s.archived_at,
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
    /// The caller's sessions: pinned ones first, then active ones, then the most recently
    /// active. Archived sessions only with `archived=true` (and then only they).
    #[oai(path = "/", method = "get", operation_id = "list_sessions")]
    // poem-openapi takes each query parameter as an argument of its own.
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn list(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        /// Only sessions with this tool.
        tool_id: Query<Option<Uuid>>,
        /// Only sessions in this state.
        #[oai(name = "state")]
        session_state: Query<Option<SessionState>>,
        /// `true`: only archived sessions; `false` (the default): only the others.
        archived: Query<Option<bool>>,
        /// `true`: only pinned sessions; `false`: only the others; absent: both.
        pinned: Query<Option<bool>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Session>>, statuses::List> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let filter = q::SessionFilter {
            tool_id: tool_id.0,
            state: session_state.0.map(Into::into),
            archived: archived.0.unwrap_or(false),
            pinned: pinned.0,
        };
        let rows = state.sessions().list(auth.0.user_id, filter, page).await?;
        Ok(Json(Page::from_rows(rows, Session::from)))
    }

    /// Search one's sessions
    ///
    /// The caller's own sessions with a message containing every word of `q` (whole
    /// words, any case, no stemming), best match first: each session once, with its best
    /// matching message and a snippet of it. Archived sessions are included; 422
    /// `empty_query` when `q` has no word (only symbols).
    #[oai(path = "/search", method = "get", operation_id = "search_sessions")]
    async fn search(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        /// The words to find.
        #[oai(validator(min_length = 1, max_length = 500))]
        q: Query<String>,
        /// How many sessions at most.
        limit: Query<Option<Limit>>,
    ) -> ApiResult<Json<SessionMatches>, statuses::Search> {
        let limit = limit.0.map_or(pagination::DEFAULT_LIMIT, |l| l.0);
        let found = state
            .sessions()
            .search(auth.0.user_id, &q.0, limit.into())
            .await?;
        Ok(Json(SessionMatches {
            items: found.into_iter().map(Into::into).collect(),
        }))
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

    /// Get a session's history summary
    ///
    /// Where the model's view of a long conversation starts and the summary of what came
    /// before; the owner and the teacher of the session's class may read it.
    #[oai(
        path = "/:id/summary",
        method = "get",
        operation_id = "get_session_summary"
    )]
    async fn summary(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<SessionSummary>, statuses::ReadOne> {
        Ok(Json(
            state.sessions().summary(auth.0.user_id, id.0).await?.into(),
        ))
    }

    /// Change a session
    ///
    /// Renames, pins or archives one of the caller's sessions (absent fields stay as
    /// they are); a title set here is never replaced by a generated one. 422
    /// `invalid_title` for a blank title.
    #[oai(path = "/:id", method = "patch", operation_id = "update_session")]
    async fn update(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<UpdateSession>,
    ) -> ApiResult<Json<Session>, statuses::Change> {
        let session = state
            .sessions()
            .change(auth.0.user_id, id.0, body.0.into())
            .await?;
        Ok(Json(session.into()))
    }

    /// Delete a session
    ///
    /// Deletes one of the caller's sessions and its content (messages, answers, function
    /// calls); the usage ledger keeps its rows, without content. 409 `prompt_active`
    /// while the session answers a turn: cancel it first.
    #[oai(path = "/:id", method = "delete", operation_id = "delete_session")]
    async fn delete(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<DeletedSession, statuses::Act> {
        state.sessions().delete(auth.0.user_id, id.0).await?;
        Ok(DeletedSession::NoContent)
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
