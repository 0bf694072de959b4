//! Feedback on answers and the evaluation export (issue #14 item 3).
//!
//! A session's owner rates an answer (an assistant message) up or down, with an optional
//! comment and tags, changes it by giving it again, and withdraws it
//! ([`FeedbackService::give`], [`FeedbackService::withdraw`]; the rules and the SQL are
//! `parley_entity::query::feedback`). Each rating a user gives or changes counts in
//! `parley_feedback_total` by chat tool, model and rating.
//!
//! Administrators list the feedback given and count it ([`FeedbackService::entries`],
//! [`FeedbackService::figures`]; the SQL is `parley_entity::query::feedback::report`),
//! and export conversations as JSONL in OpenAI's chat fine-tuning format
//! ([`FeedbackService::export_conversations`], [`export`]): a page of sessions at a
//! time, written as it is read.

pub mod export;

use futures::Stream;
use parley_entity::{
    message_feedback,
    query::{
        self,
        feedback::{
            self as q, Feedback,
            export::ExportFilter,
            report::{self, FeedbackEntry, FeedbackFilter, Figures},
        },
        metrics::Window,
        page::{Page, PageRequest},
    },
};
use parley_protocol::error::Result;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::functions::SharedCatalog;

/// The application layer of feedback; cheap to clone.
#[derive(Clone)]
pub struct FeedbackService {
    db: DatabaseConnection,
    /// The functions the deployment has now: an export lists those a session offered.
    functions: SharedCatalog,
}

/// Which answer feedback is about: a message of one of the user's sessions.
#[derive(Debug, Clone, Copy)]
pub struct Answer {
    pub user_id: Uuid,
    pub session_id: Uuid,
    pub message_id: Uuid,
}

impl FeedbackService {
    pub fn new(db: DatabaseConnection, functions: SharedCatalog) -> Self {
        Self { db, functions }
    }

    /// Records the user's feedback on an answer of their session, replacing what they
    /// said before, and returns it (404 outside their sessions, 422 `not_an_answer` for
    /// a message that is not the assistant's). A new or changed rating is counted.
    #[tracing::instrument(skip_all, fields(session_id = %answer.session_id, message_id = %answer.message_id), err(level = "debug"))]
    pub async fn give(
        &self,
        answer: Answer,
        feedback: Feedback,
    ) -> Result<message_feedback::Model> {
        let given = q::give(
            &self.db,
            answer.user_id,
            answer.session_id,
            answer.message_id,
            feedback,
            query::now(),
        )
        .await?;
        if given.rating_changed() {
            parley_runtime::metrics::metrics().feedback_given(
                &given.tool_name,
                given.model.as_deref(),
                given.feedback.rating.as_str(),
            );
        }
        Ok(given.feedback)
    }

    /// Withdraws the user's feedback on an answer of their session (404 when there is
    /// none).
    #[tracing::instrument(skip_all, fields(session_id = %answer.session_id, message_id = %answer.message_id), err(level = "debug"))]
    pub async fn withdraw(&self, answer: Answer) -> Result<()> {
        q::withdraw(
            &self.db,
            answer.user_id,
            answer.session_id,
            answer.message_id,
        )
        .await
    }

    /// A page of the feedback given (administrators), newest first, narrowed by
    /// `filter`.
    pub async fn entries(
        &self,
        filter: &FeedbackFilter,
        page: PageRequest<Uuid>,
    ) -> Result<Page<FeedbackEntry, Uuid>> {
        report::list(&self.db, filter, page).await
    }

    /// The ups and downs given in `window`: overall, by chat tool and by model.
    pub async fn figures(&self, window: Window) -> Result<Figures> {
        report::figures(&self.db, window).await
    }

    /// The conversations matching `filter` as JSONL chunks ([`export::conversations`]),
    /// with the functions the deployment has now.
    pub async fn export_conversations(
        &self,
        filter: ExportFilter,
    ) -> Result<impl Stream<Item = Result<String>> + Send + 'static> {
        export::conversations(self.db.clone(), self.functions.load(), filter).await
    }
}
