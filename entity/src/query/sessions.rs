//! Sessions: open one (access checks and the config cascade), read, page
//! ([`list_for_user`]), complete.

use parley_protocol::config::{ConfigOverrides, SessionAssignment, SessionConfig};
use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set, prelude::DateTimeUtc,
};
use uuid::Uuid;

use super::{
    access,
    page::{Page, PageRequest},
};
use crate::{
    assignments, enrollments, enums::SessionState, error::Context, groups, messages, sessions,
    submissions, tools,
};

mod list;

pub use list::{SessionFilter, SessionKey, list_for_user};

/// Who is asking, as far as opening sessions is concerned.
#[derive(Debug, Clone, Copy)]
pub struct Opener {
    pub user_id: Uuid,
    pub is_admin: bool,
}

/// What the caller asked to open.
#[derive(Debug, Clone)]
pub struct OpenSession {
    pub tool_id: Uuid,
    pub assignment_id: Option<Uuid>,
    pub submission_id: Option<Uuid>,
    /// The `/v1/ask` request id the session answers to (unique per user).
    pub rid: Option<String>,
}

/// Finds a tool the opener may use. A tool outside the opener's groups answers as missing.
pub async fn usable_tool<C: ConnectionTrait>(
    db: &C,
    who: Opener,
    tool_id: Uuid,
) -> Result<tools::Model> {
    let tool = tools::Entity::find_by_id(tool_id)
        .one(db)
        .await
        .context("reading a tool")?
        .ok_or(Error::not_found("tool"))?;
    if !who.is_admin
        && !access::reachable_groups(db, who.user_id)
            .await?
            .contains(&tool.group_id)
    {
        return Err(Error::not_found("tool"));
    }
    Ok(tool)
}

/// Opens a session after checking the tool, the assignment (enrolment and window) and
/// the submission, and stores the resolved config cascade org → tool → assignment.
pub async fn open<C: ConnectionTrait>(
    db: &C,
    who: Opener,
    req: OpenSession,
    now: DateTimeUtc,
) -> Result<sessions::Model> {
    let tool = usable_tool(db, who, req.tool_id).await?;
    let assignment = match req.assignment_id {
        Some(id) => Some(open_assignment(db, who, id, &tool, now).await?),
        None => None,
    };
    if let Some(submission_id) = req.submission_id {
        check_submission(db, who, submission_id, assignment.as_ref()).await?;
    }
    let config = resolve_config(db, &tool, assignment.as_ref()).await?;
    sessions::ActiveModel {
        id: Set(Uuid::now_v7()),
        user_id: Set(who.user_id),
        tool_id: Set(tool.id),
        assignment_id: Set(req.assignment_id),
        submission_id: Set(req.submission_id),
        state: Set(SessionState::Active),
        started_at: Set(now),
        ended_at: Set(None),
        last_activity_at: Set(now),
        message_count: Set(0),
        config: Set(config),
        active_prompt_id: Set(None),
        end_reason: Set(None),
        rid: Set(req.rid),
        active_leaf_id: Set(None),
        title: Set(None),
        title_source: Set(None),
        pinned_at: Set(None),
        archived_at: Set(None),
        deleted_at: Set(None),
    }
    .insert(db)
    .await
    .context("creating a session")
}

/// The user's `/v1/ask` conversation `rid`; another user's, or none: not found.
pub async fn by_rid<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    rid: &str,
) -> Result<sessions::Model> {
    sessions::Entity::find()
        .filter(sessions::Column::UserId.eq(user_id))
        .filter(sessions::Column::Rid.eq(rid))
        .filter(sessions::Column::DeletedAt.is_null())
        .one(db)
        .await
        .context("finding a conversation by request id")?
        .ok_or(Error::not_found("conversation"))
}

async fn open_assignment<C: ConnectionTrait>(
    db: &C,
    who: Opener,
    id: Uuid,
    tool: &tools::Model,
    now: DateTimeUtc,
) -> Result<assignments::Model> {
    let assignment = assignments::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading an assignment")?
        .ok_or(Error::not_found("assignment"))?;
    let enrolled = enrollments::Entity::find()
        .filter(enrollments::Column::ClassId.eq(assignment.class_id))
        .filter(enrollments::Column::UserId.eq(who.user_id))
        .one(db)
        .await
        .context("checking enrolment")?
        .is_some();
    if !enrolled && !who.is_admin {
        return Err(Error::not_found("assignment"));
    }
    if assignment.tool_id != tool.id {
        return Err(Error::invalid(
            ErrorCode::ToolMismatch,
            "the assignment is done with a different tool",
        ));
    }
    if assignment.available_at.is_some_and(|at| now < at) {
        return Err(Error::conflict(
            ErrorCode::AssignmentNotOpen,
            "the assignment is not open yet",
        ));
    }
    if assignment.closes_at.is_some_and(|at| now >= at) {
        return Err(Error::conflict(
            ErrorCode::AssignmentClosed,
            "the assignment has closed",
        ));
    }
    Ok(assignment)
}

async fn check_submission<C: ConnectionTrait>(
    db: &C,
    who: Opener,
    id: Uuid,
    assignment: Option<&assignments::Model>,
) -> Result<()> {
    let submission = submissions::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a submission")?
        .filter(|s| s.user_id == who.user_id)
        .ok_or(Error::not_found("submission"))?;
    match assignment {
        Some(a) if a.id == submission.assignment_id => Ok(()),
        _ => Err(Error::invalid(
            ErrorCode::SubmissionMismatch,
            "the submission belongs to another assignment",
        )),
    }
}

/// org settings (root → the tool's group) → tool definition → assignment config, then
/// the assignment itself: typed layers merged field by field ([`SessionConfig::resolve`]).
async fn resolve_config<C: ConnectionTrait>(
    db: &C,
    tool: &tools::Model,
    assignment: Option<&assignments::Model>,
) -> Result<SessionConfig> {
    let group = groups::Entity::find_by_id(tool.group_id)
        .one(db)
        .await
        .context("reading the tool's group")?
        .ok_or_else(|| {
            Error::internal("resolving a session config", "the tool's group is missing")
        })?;
    let mut layers = access::group_settings_chain(db, &group).await?;
    layers.push(ConfigOverrides::from(&tool.definition));
    layers.extend(assignment.map(|a| a.config.clone()));
    let about = assignment.map(|a| SessionAssignment {
        id: a.id,
        title: a.title.clone().into(),
        instructions: a.instructions.clone().into(),
    });
    Ok(SessionConfig::resolve(&layers, about))
}

/// A session of this user's (another user's, or a deleted one, answers as missing).
pub async fn get_owned<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    id: Uuid,
) -> Result<sessions::Model> {
    sessions::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a session")?
        .filter(|s| s.user_id == user_id && s.deleted_at.is_none())
        .ok_or(Error::not_found("session"))
}

/// A session this user may read: their own, or — for a teacher of the class — one a
/// student opened on an assignment of a class they teach (DESIGN §7). Anything else
/// answers as missing, as does a deleted session.
pub async fn get_readable<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    id: Uuid,
) -> Result<sessions::Model> {
    let session = get(db, id).await?;
    if session.deleted_at.is_some() {
        return Err(Error::not_found("session"));
    }
    if session.user_id == user_id || teaches(db, user_id, &session).await? {
        Ok(session)
    } else {
        Err(Error::not_found("session"))
    }
}

/// Whether `user_id` teaches the class of the assignment `session` was opened for.
async fn teaches<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    session: &sessions::Model,
) -> Result<bool> {
    let Some(assignment_id) = session.assignment_id else {
        return Ok(false);
    };
    let Some(assignment) = assignments::Entity::find_by_id(assignment_id)
        .one(db)
        .await
        .context("reading a session's assignment")?
    else {
        return Ok(false);
    };
    let enrollment = enrollments::Entity::find()
        .filter(enrollments::Column::ClassId.eq(assignment.class_id))
        .filter(enrollments::Column::UserId.eq(user_id))
        .one(db)
        .await
        .context("reading an enrollment")?;
    Ok(enrollment.is_some_and(|e| e.role == crate::enums::EnrollmentRole::Teacher))
}

/// Why a session ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionLimit {
    /// It holds `max_messages` messages.
    MaxMessages,
    /// It is older than `max_session_duration_s`.
    MaxDuration,
}

impl SessionLimit {
    /// The `end_reason` recorded.
    pub fn end_reason(self) -> &'static str {
        match self {
            Self::MaxMessages => "max_messages",
            Self::MaxDuration => "max_session_duration",
        }
    }

    /// The problem code of a turn refused for it.
    pub fn code(self) -> ErrorCode {
        match self {
            Self::MaxMessages => ErrorCode::MaxMessagesReached,
            Self::MaxDuration => ErrorCode::MaxSessionDurationReached,
        }
    }
}

/// The limit of its resolved config (`max_messages`, `max_session_duration_s`) that an
/// active session has reached, if any: a turn adds two messages (the user's and the
/// answer), so a session with `max_messages` = 4 takes two turns.
pub fn limit_reached(session: &sessions::Model, now: DateTimeUtc) -> Option<SessionLimit> {
    let config = &session.config;
    if let Some(max) = config.max_messages
        && i64::from(session.message_count) + 2 > i64::from(max)
    {
        return Some(SessionLimit::MaxMessages);
    }
    if let Some(max) = config.max_session_duration_s
        && (now - session.started_at).num_seconds() >= i64::from(max)
    {
        return Some(SessionLimit::MaxDuration);
    }
    None
}

/// Completes an active session for `reason` (a limit, idleness); `None` when it was not
/// active any more.
pub async fn end<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    reason: &str,
    now: DateTimeUtc,
) -> Result<Option<sessions::Model>> {
    let updated = sessions::Entity::update_many()
        .col_expr(
            sessions::Column::State,
            sea_orm::sea_query::Expr::value(SessionState::Completed),
        )
        .col_expr(
            sessions::Column::EndedAt,
            sea_orm::sea_query::Expr::value(now),
        )
        .col_expr(
            sessions::Column::EndReason,
            sea_orm::sea_query::Expr::value(reason),
        )
        .filter(sessions::Column::Id.eq(id))
        .filter(sessions::Column::State.eq(SessionState::Active))
        .exec(db)
        .await
        .context("ending a session")?;
    if updated.rows_affected == 0 {
        return Ok(None);
    }
    Ok(Some(get(db, id).await?))
}

/// Active sessions without a running prompt and no activity since `idle_since`, oldest
/// first, at most `limit`.
pub async fn idle<C: ConnectionTrait>(
    db: &C,
    idle_since: DateTimeUtc,
    limit: u64,
) -> Result<Vec<sessions::Model>> {
    sessions::Entity::find()
        .filter(sessions::Column::State.eq(SessionState::Active))
        .filter(sessions::Column::LastActivityAt.lt(idle_since))
        .filter(sessions::Column::ActivePromptId.is_null())
        .order_by_asc(sessions::Column::LastActivityAt)
        .limit(limit)
        .all(db)
        .await
        .context("finding idle sessions")
}

/// Completes an active session. A guarded update, so two concurrent completes cannot
/// both succeed: the loser sees the conflict.
pub async fn complete<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    id: Uuid,
    reason: &str,
    now: DateTimeUtc,
) -> Result<sessions::Model> {
    get_owned(db, user_id, id).await?;
    match end(db, id, reason, now).await? {
        Some(session) => Ok(session),
        None => Err(Error::conflict(
            ErrorCode::SessionCompleted,
            "the session is already completed",
        )),
    }
}

/// A session's messages in order, after the given `seq`.
pub async fn messages<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
    page: PageRequest<i32>,
) -> Result<Page<messages::Model, i32>> {
    let mut query = messages::Entity::find()
        .filter(messages::Column::SessionId.eq(session_id))
        .order_by_asc(messages::Column::Seq);
    if let Some(after) = page.after {
        query = query.filter(messages::Column::Seq.gt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing messages")?;
    Ok(Page::from_overfetch(rows, page.limit, |m| m.seq))
}

/// A session by id, whoever owns it (for the worker; user-facing reads use [`get_owned`]).
pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<sessions::Model> {
    sessions::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a session")?
        .ok_or(Error::not_found("session"))
}
