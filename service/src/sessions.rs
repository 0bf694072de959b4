//! The session service: how a session starts and every way it ends, beside the
//! [`TurnService`](crate::TurnService) that runs the turns inside it.
//!
//! A session starts when a user opens one (`POST /v1/sessions`, `/v1/ask`, the
//! OpenAI-compatible surface) and ends in one of four ways: its owner completes it
//! (`POST …/complete`), an answer's `end_session` action is run, a turn finds it past a
//! limit of its config (`max_messages`, `max_session_duration_s`; the turn's own
//! transaction completes it), or the schedule finds it idle. Each end is a guarded
//! update — only an active session is completed — so however many processes race to end
//! a session, one of them does, and that one fires `session:end`.
//!
//! Its owner also names, pins, archives, deletes and searches their sessions
//! ([`SessionService::change`], [`SessionService::delete`], [`SessionService::search`]);
//! a session titles itself after its first exchange (the turn's finish writes the first
//! words; `parley_worker::titles` asks the title model, when one is configured).
//!
//! `session:start` and `session:end` (module hooks, DESIGN §8) fire in one place,
//! [`SessionService::fire`], on a task of their own: a caller never waits for a module.
//! Each start and end is also published on the owner's feed (`session_created`,
//! `session_updated` with the new state; DESIGN §13).
//!
//! The conversation surfaces (`/v1/ask`, the OpenAI-compatible one) find and open
//! their sessions through the same service (`sessions/conversations.rs`).

use std::time::Duration;

use parley_entity::{
    query::{
        self,
        page::{Page, PageRequest},
        session_edits::{self as edits, SessionChanges},
        session_search,
        sessions::{self as q, OpenSession, Opener, SessionFilter, SessionKey, SessionLimit},
    },
    sessions,
};
use parley_protocol::error::{Error, Result};
use parley_protocol::feed::UserEventKind;
use parley_protocol::hooks::Hook;
use parley_runtime::user_feed::Publisher;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::modules::{ModuleCatalog, runner};

mod conversations;

pub use conversations::Replay;

/// Why an owner's session ends on request (its `end_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// `POST /v1/sessions/{id}/complete`.
    ByUser,
    /// The `end_session` action an answer offered.
    ByAction,
}

impl Completion {
    pub fn end_reason(self) -> &'static str {
        match self {
            Self::ByUser => "completed_by_user",
            Self::ByAction => "ended_by_action",
        }
    }
}

/// A session found by [`SessionService::search`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionMatch {
    pub session_id: Uuid,
    pub title: Option<String>,
    /// The session's best matching message.
    pub message_id: Uuid,
    /// A short excerpt of that message around the first word found.
    pub snippet: String,
}

/// The application layer of sessions; cheap to clone.
#[derive(Clone)]
pub struct SessionService {
    db: DatabaseConnection,
    /// The deployment's modules: the session hooks run those the session's config names.
    modules: ModuleCatalog,
    /// Where the user's other tabs and devices hear of their sessions (`GET /v1/feed`).
    feed: Publisher,
}

impl SessionService {
    /// A service over `db` whose feed events go nowhere ([`with_feed`](Self::with_feed)
    /// gives it the deployment's feed).
    pub fn new(db: DatabaseConnection, modules: ModuleCatalog) -> Self {
        Self {
            db,
            modules,
            feed: Publisher::detached(),
        }
    }

    /// Publishes its sessions' changes on `feed`.
    pub fn with_feed(mut self, feed: Publisher) -> Self {
        self.feed = feed;
        self
    }

    /// Opens a session (access, assignment window and config cascade are checked and
    /// resolved by [`q::open`]), counts it and fires `session:start`.
    #[tracing::instrument(skip_all, fields(tool_id = %request.tool_id), err(level = "debug"))]
    pub async fn start(&self, who: Opener, request: OpenSession) -> Result<sessions::Model> {
        let session = q::open(&self.db, who, request, query::now()).await?;
        parley_runtime::metrics::metrics().sessions_created.inc();
        self.fire(&session, Hook::SessionStart);
        let created = UserEventKind::SessionCreated {
            session_id: session.id,
            tool_id: session.tool_id,
        };
        self.feed.publish(session.user_id, created).await;
        Ok(session)
    }

    /// The user's own sessions, newest first, narrowed by `filter`.
    pub async fn list(
        &self,
        user_id: Uuid,
        filter: SessionFilter,
        page: PageRequest<SessionKey>,
    ) -> Result<Page<sessions::Model, SessionKey>> {
        q::list_for_user(&self.db, user_id, filter, page).await
    }

    /// A session the user may read: their own, or one of a class they teach (404
    /// otherwise, as for a session that does not exist).
    pub async fn get(&self, user_id: Uuid, id: Uuid) -> Result<sessions::Model> {
        q::get_readable(&self.db, user_id, id).await
    }

    /// Where the history window of a session the user may read starts and the summary
    /// of what fell out of it; none when the window never stepped (404 as for
    /// [`Self::get`]).
    pub async fn summary(
        &self,
        user_id: Uuid,
        id: Uuid,
    ) -> Result<Option<parley_entity::session_summaries::Model>> {
        let session = q::get_readable(&self.db, user_id, id).await?;
        query::session_summaries::get(&self.db, session.id).await
    }

    /// Applies the owner's changes (title, pinned, archived) and returns the session as
    /// it is now (404 when it is not theirs or deleted, 422 `invalid_title`).
    ///
    /// The owner's feed hears `session_updated` with what changed (a cleared title as
    /// an empty one).
    #[tracing::instrument(skip_all, fields(session_id = %id), err(level = "debug"))]
    pub async fn change(
        &self,
        user_id: Uuid,
        id: Uuid,
        changes: SessionChanges,
    ) -> Result<sessions::Model> {
        let told = UserEventKind::SessionUpdated {
            session_id: id,
            title: changes.title.clone().map(Option::unwrap_or_default),
            pinned: changes.pinned,
            archived: changes.archived,
            state: None,
            end_reason: None,
        };
        let session = edits::change(&self.db, user_id, id, changes, query::now()).await?;
        self.feed.publish(user_id, told).await;
        Ok(session)
    }

    /// Deletes the owner's session (404 when it is not theirs or already deleted, 409
    /// `prompt_active` while it answers a turn): its content goes, the usage ledger keeps
    /// its rows ([`edits`] says exactly what goes and what stays). Returns the session as
    /// it was; the owner's feed hears `session_deleted`.
    #[tracing::instrument(skip_all, fields(session_id = %id), err(level = "debug"))]
    pub async fn delete(&self, user_id: Uuid, id: Uuid) -> Result<sessions::Model> {
        let session = edits::delete(&self.db, user_id, id, query::now()).await?;
        let told = UserEventKind::SessionDeleted { session_id: id };
        self.feed.publish(user_id, told).await;
        Ok(session)
    }

    /// The user's own sessions with a message containing every word of `query`, best
    /// match first, each with its best message and a snippet (422 `empty_query` without
    /// a word).
    pub async fn search(
        &self,
        user_id: Uuid,
        query: &str,
        limit: u64,
    ) -> Result<Vec<SessionMatch>> {
        let hits = session_search::search_own_sessions(&self.db, user_id, query, limit).await?;
        Ok(hits
            .into_iter()
            .map(|hit| SessionMatch {
                snippet: session_search::snippet(&hit.content, query),
                session_id: hit.session_id,
                title: hit.title,
                message_id: hit.message_id,
            })
            .collect())
    }

    /// Completes the owner's active session (404 when it is not theirs, 409
    /// `session_completed` when it has ended already) and fires `session:end`.
    #[tracing::instrument(skip_all, fields(session_id = %id), err(level = "debug"))]
    pub async fn complete(
        &self,
        user_id: Uuid,
        id: Uuid,
        how: Completion,
    ) -> Result<sessions::Model> {
        let session = q::complete(&self.db, user_id, id, how.end_reason(), query::now()).await?;
        self.fire(&session, Hook::SessionEnd);
        self.publish_state(&session).await;
        Ok(session)
    }

    /// Called with the error a turn was refused with: when it says the session reached
    /// a limit, the turn's transaction has just completed the session (only the turn
    /// that ended it gets that error; later ones get `session_completed`), so
    /// `session:end` fires for it.
    pub async fn refused_turn(&self, session_id: Uuid, refusal: &Error) {
        let Error::Conflict { code, .. } = refusal else {
            return;
        };
        if ![SessionLimit::MaxMessages, SessionLimit::MaxDuration]
            .iter()
            .any(|limit| limit.code() == *code)
        {
            return;
        }
        match q::get(&self.db, session_id).await {
            Ok(session) => {
                self.fire(&session, Hook::SessionEnd);
                self.publish_state(&session).await;
            }
            Err(err) => tracing::warn!(error = %err, %session_id, "cannot fire session:end"),
        }
    }

    /// One pass over idle sessions: completes those with no running prompt and no
    /// activity for `idle` (at most `batch` a pass, `end_reason` `idle`) and fires their
    /// `session:end`. A session another process ended first is skipped. Returns how
    /// many this pass completed.
    pub async fn close_idle(&self, idle: Duration, batch: u64) -> usize {
        let idle = chrono::Duration::from_std(idle).unwrap_or(chrono::Duration::hours(24));
        let now = query::now();
        let sessions = match q::idle(&self.db, now - idle, batch).await {
            Ok(sessions) => sessions,
            Err(err) => {
                tracing::warn!(error = %err, "cannot look for idle sessions");
                return 0;
            }
        };
        let mut closed = 0;
        for session in sessions {
            match q::end(&self.db, session.id, "idle", now).await {
                Ok(Some(ended)) => {
                    closed += 1;
                    self.fire(&ended, Hook::SessionEnd);
                    self.publish_state(&ended).await;
                }
                Ok(None) => {}
                Err(err) => {
                    tracing::warn!(error = %err, session_id = %session.id, "cannot close an idle session")
                }
            }
        }
        if closed > 0 {
            tracing::info!(closed, "completed idle sessions");
        }
        closed
    }

    /// Tells the owner's feed the session's state (it ended).
    async fn publish_state(&self, session: &sessions::Model) {
        let kind =
            UserEventKind::session_state(session.id, session.state, session.end_reason.clone());
        self.feed.publish(session.user_id, kind).await;
    }

    /// Fires a session hook for the modules the session's config names: the one place
    /// `session:start` and `session:end` fire.
    fn fire(&self, session: &sessions::Model, hook: Hook) {
        runner::session_hook(self.db.clone(), &self.modules, session.clone(), hook);
    }
}
