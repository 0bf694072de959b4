//! `/v1/sessions/{id}/messages/{message_id}/feedback`: the owner's thumbs up or down on
//! an answer, with an optional comment and tags — given (and changed) with `PUT`,
//! withdrawn with `DELETE`. Both operations of the path are declared here, together
//! (poem-openapi keeps one impl's operations per path). The rules are
//! `parley_service::feedback`; listing a session's messages shows the caller's feedback
//! beside each answer (`Message.feedback`).

use chrono::{DateTime, Utc};
use parley_entity::{message_feedback, query::feedback::Feedback as Given};
use parley_service::feedback::Answer;
use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json};
use uuid::Uuid;

use super::{ApiTags, views::Rating};
use crate::{
    auth::BearerAuth,
    error::{ApiResult, statuses},
    state::AppState,
    types::Text,
};

/// What the caller thinks of an answer.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct GiveFeedback {
    pub rating: Rating,
    /// Why, in the caller's words: at most 2000 characters; blank or absent: none.
    #[oai(validator(max_length = 2000))]
    pub comment: Option<Text>,
    /// Short labels (`too_long`, `wrong`, …): at most 10, each 1 to 32 characters;
    /// trimmed, and a blank or repeated one is left out.
    #[oai(validator(max_items = 10, min_length = 1, max_length = 32))]
    pub tags: Option<Vec<Text>>,
}

/// The caller's feedback on an answer.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Feedback {
    /// The answer (an assistant message).
    pub message_id: Uuid,
    pub rating: Rating,
    /// Absent without one.
    pub comment: Option<String>,
    pub tags: Vec<String>,
    /// When it was first given.
    pub created_at: DateTime<Utc>,
    /// When it was last given (changed).
    pub updated_at: DateTime<Utc>,
}

impl From<message_feedback::Model> for Feedback {
    fn from(f: message_feedback::Model) -> Self {
        Self {
            message_id: f.message_id,
            rating: f.rating.into(),
            comment: f.comment,
            tags: f.tags.0,
            created_at: f.created_at,
            updated_at: f.updated_at,
        }
    }
}

/// The answer of a withdrawal.
#[derive(ApiResponse)]
pub enum Withdrawn {
    /// Withdrawn: the answer has no feedback of the caller's now.
    #[oai(status = 204)]
    NoContent,
}

pub struct FeedbackApi;

#[OpenApi(prefix_path = "/v1/sessions", tag = "ApiTags::Sessions")]
impl FeedbackApi {
    /// Rate an answer
    ///
    /// Records the caller's thumbs up or down on an answer (an assistant message) of
    /// their own session, with an optional comment and tags; giving it again replaces
    /// it (one per answer and user). Another user's session or message: 404; a message
    /// that is not an answer: 422 `not_an_answer`.
    #[oai(
        path = "/:id/messages/:message_id/feedback",
        method = "put",
        operation_id = "put_message_feedback"
    )]
    async fn give(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        message_id: Path<Uuid>,
        body: Json<GiveFeedback>,
    ) -> ApiResult<Json<Feedback>, statuses::Change> {
        let body = body.0;
        let tags: Vec<&str> = body.tags.iter().flatten().map(|t| &**t).collect();
        let feedback = Given::new(body.rating.into(), body.comment.as_deref(), &tags)?;
        let answer = Answer {
            user_id: auth.0.user_id,
            session_id: id.0,
            message_id: message_id.0,
        };
        let given = state.feedback().give(answer, feedback).await?;
        Ok(Json(given.into()))
    }

    /// Withdraw a rating
    ///
    /// Removes the caller's feedback on an answer of their own session; 404 when there
    /// is none.
    #[oai(
        path = "/:id/messages/:message_id/feedback",
        method = "delete",
        operation_id = "delete_message_feedback"
    )]
    async fn withdraw(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        message_id: Path<Uuid>,
    ) -> ApiResult<Withdrawn, statuses::Remove> {
        let answer = Answer {
            user_id: auth.0.user_id,
            session_id: id.0,
            message_id: message_id.0,
        };
        state.feedback().withdraw(answer).await?;
        Ok(Withdrawn::NoContent)
    }
}
