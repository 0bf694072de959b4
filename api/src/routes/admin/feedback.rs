//! `/v1/admin/feedback` and `/v1/admin/feedback/metrics`: what users thought of the
//! answers — the feedback itself, newest first, with the answer it is about, and the
//! ups and downs by tool and by model. The queries are
//! `parley_entity::query::feedback::report`.

use chrono::{DateTime, Utc};
use parley_entity::query::feedback::report::{self as q, FeedbackEntry, FeedbackFilter};
use poem::web::Data;
use poem_openapi::{Object, OpenApi, param::Query, payload::Json};
use uuid::Uuid;

use super::metrics::{span, window};
use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    routes::{ApiTags, views::Rating},
    state::AppState,
};

/// A user's feedback on an answer, with what it is about.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct AdminFeedback {
    pub id: Uuid,
    /// The answer (an assistant message).
    pub message_id: Uuid,
    /// The answer's text as stored (after the modules: redacted where a redactor
    /// rewrote it).
    pub message: String,
    pub session_id: Uuid,
    pub user_id: Uuid,
    pub user_name: String,
    pub user_email: String,
    /// The session's chat tool.
    pub tool_id: Uuid,
    pub tool_name: String,
    /// The model that wrote the answer, when one did.
    pub model: Option<String>,
    pub rating: Rating,
    pub comment: Option<String>,
    pub tags: Vec<String>,
    /// When it was first given.
    pub created_at: DateTime<Utc>,
    /// When it was last changed.
    pub updated_at: DateTime<Utc>,
}

impl From<FeedbackEntry> for AdminFeedback {
    fn from(e: FeedbackEntry) -> Self {
        Self {
            id: e.id,
            message_id: e.message_id,
            message: e.content,
            session_id: e.session_id,
            user_id: e.user_id,
            user_name: e.user_name,
            user_email: e.user_email,
            tool_id: e.tool_id,
            tool_name: e.tool_name,
            model: e.model,
            rating: e.rating.into(),
            comment: e.comment,
            tags: e.tags.0,
            created_at: e.created_at,
            updated_at: e.updated_at,
        }
    }
}

/// Ups and downs of one chat tool.
#[derive(Debug, Object)]
pub struct FeedbackByTool {
    pub tool_id: Uuid,
    pub tool_name: String,
    pub up: u64,
    pub down: u64,
}

/// Ups and downs of one model.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct FeedbackByModel {
    /// Absent for answers no model wrote (a skill's, a module's direct response).
    pub model: Option<String>,
    pub up: u64,
    pub down: u64,
}

/// How many ratings of one kind.
#[derive(Debug, Object)]
pub struct FeedbackByRating {
    pub rating: Rating,
    pub count: u64,
}

/// The feedback of a window, counted.
#[derive(Debug, Object)]
pub struct FeedbackMetrics {
    /// Both ratings, zeros included.
    pub by_rating: Vec<FeedbackByRating>,
    /// Every tool with feedback in the window, by name.
    pub by_tool: Vec<FeedbackByTool>,
    /// Every model with feedback in the window, by name (answers no model wrote first).
    pub by_model: Vec<FeedbackByModel>,
}

impl From<q::Figures> for FeedbackMetrics {
    fn from(f: q::Figures) -> Self {
        Self {
            by_rating: vec![
                FeedbackByRating {
                    rating: Rating::Up,
                    count: f.total.up,
                },
                FeedbackByRating {
                    rating: Rating::Down,
                    count: f.total.down,
                },
            ],
            by_tool: f
                .by_tool
                .into_iter()
                .map(|t| FeedbackByTool {
                    tool_id: t.tool_id,
                    tool_name: t.tool_name,
                    up: t.counts.up,
                    down: t.counts.down,
                })
                .collect(),
            by_model: f
                .by_model
                .into_iter()
                .map(|m| FeedbackByModel {
                    model: m.model,
                    up: m.counts.up,
                    down: m.counts.down,
                })
                .collect(),
        }
    }
}

pub struct FeedbackAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl FeedbackAdminApi {
    /// List feedback
    ///
    /// Users' ratings of answers, newest first, with the answer's text (as stored), the
    /// comment and tags, the session, its tool and user, and the model that answered.
    #[oai(
        path = "/feedback",
        method = "get",
        operation_id = "admin_list_feedback"
    )]
    // poem-openapi takes each query parameter as an argument of its own.
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn list(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Feedback first given at or after this time; default: no start.
        from: Query<Option<DateTime<Utc>>>,
        /// Feedback first given before this time (must be after `from`); default: no end.
        to: Query<Option<DateTime<Utc>>>,
        /// Only this rating.
        rating: Query<Option<Rating>>,
        /// Only answers in sessions of this chat tool.
        tool_id: Query<Option<Uuid>>,
        /// Only answers this model wrote.
        #[oai(validator(min_length = 1, max_length = 200))]
        model: Query<Option<String>>,
        /// Only feedback this user gave.
        user_id: Query<Option<Uuid>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<AdminFeedback>>, statuses::AdminList> {
        let filter = FeedbackFilter {
            window: span(from.0, to.0)?,
            rating: rating.0.map(Into::into),
            tool_id: tool_id.0,
            model: model.0,
            user_id: user_id.0,
        };
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let rows = state.feedback().entries(&filter, page).await?;
        Ok(Json(Page::from_rows(rows, AdminFeedback::from)))
    }

    /// Feedback metrics
    ///
    /// Ups and downs given in a window (by when feedback was first given): overall, by
    /// chat tool and by model.
    #[oai(
        path = "/feedback/metrics",
        method = "get",
        operation_id = "admin_feedback_metrics"
    )]
    async fn metrics(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Feedback first given at or after this time; default: 30 days before `to`.
        from: Query<Option<DateTime<Utc>>>,
        /// Feedback first given before this time (must be after `from`); default: no end.
        to: Query<Option<DateTime<Utc>>>,
    ) -> ApiResult<Json<FeedbackMetrics>, statuses::AdminList> {
        let window = window(from.0, to.0)?;
        Ok(Json(state.feedback().figures(window).await?.into()))
    }
}
