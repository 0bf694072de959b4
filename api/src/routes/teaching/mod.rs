//! `/v1/teaching/…`: a teacher's read-only view of the classes they teach — the class
//! with its assignments and people, its students' sessions, and what modules found in
//! them (extractions and blocks), each row with the ids to open the conversation
//! (`GET /v1/sessions/{id}/messages`, which a class's teacher may already read).
//!
//! Who may read is the enrolment: the caller enrolled in the class as `teacher`
//! (`parley_entity::query::teaching`). Every other class — and an assignment or student
//! of another class named as a filter — answers 404, as a missing one would; a caller
//! who teaches nothing (a student) gets an empty list of classes and 404 for any class.
//! Nothing here writes; writing into a student's session stays the student's.

mod views;

use chrono::{DateTime, Utc};
use parley_entity::query::teaching::{
    Scope,
    signals::{BlockFilter, ExtractionFilter},
};
use poem::web::Data;
use poem_openapi::{
    OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

pub use views::*;

use crate::{
    auth::BearerAuth,
    error::{ApiResult, Problem, statuses},
    pagination::{self, Limit, Page},
    routes::ApiTags,
    state::AppState,
    window,
};

/// The scope parameters every class list takes.
fn scope(
    assignment_id: Option<Uuid>,
    student_id: Option<Uuid>,
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
) -> Result<Scope, Box<Problem>> {
    Ok(Scope {
        assignment_id,
        student_id,
        window: window::span(from, to)?,
    })
}

pub struct TeachingApi;

#[OpenApi(prefix_path = "/v1/teaching", tag = "ApiTags::Teaching")]
impl TeachingApi {
    /// List the classes I teach
    ///
    /// The classes the caller is enrolled in as a teacher, by name, with how many
    /// students and assignments each has. Empty for a caller who teaches nothing.
    #[oai(
        path = "/classes",
        method = "get",
        operation_id = "list_taught_classes"
    )]
    async fn classes(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<TeachingClass>>, statuses::List> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let rows = state.teaching().classes(auth.0.user_id, page).await?;
        Ok(Json(Page::from_rows(rows, TeachingClass::from)))
    }

    /// Get a class I teach
    ///
    /// The class with its assignments (each with its tool and how many sessions it has)
    /// and its students and teachers by name. 404 for a class the caller does not teach.
    #[oai(
        path = "/classes/:id",
        method = "get",
        operation_id = "get_taught_class"
    )]
    async fn class(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<TeachingClassDetail>, statuses::ReadOne> {
        let view = state.teaching().class(auth.0.user_id, id.0).await?;
        Ok(Json(view.into()))
    }

    /// List a class's sessions
    ///
    /// Sessions opened on the class's assignments, most recently active first, each
    /// with its student's and assignment's names, its message count and how many
    /// extractions and blocks modules recorded in it. The window keeps sessions active
    /// during it (last active at or after `from`, started before `to`). An assignment of
    /// another class or a student not in the class: 404.
    #[oai(
        path = "/classes/:id/sessions",
        method = "get",
        operation_id = "list_class_sessions"
    )]
    // poem-openapi takes each query parameter as an argument of its own.
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn sessions(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        /// Only sessions of this assignment of the class.
        assignment_id: Query<Option<Uuid>>,
        /// Only sessions of this student of the class.
        student_id: Query<Option<Uuid>>,
        /// Only sessions active at or after this time.
        from: Query<Option<DateTime<Utc>>>,
        /// Only sessions started before this time (must be after `from`).
        to: Query<Option<DateTime<Utc>>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<TeachingSession>>, statuses::ListOf> {
        let scope = scope(assignment_id.0, student_id.0, from.0, to.0)?;
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let rows = state
            .teaching()
            .sessions(auth.0.user_id, id.0, scope, page)
            .await?;
        Ok(Json(Page::from_rows(rows, TeachingSession::from)))
    }

    /// List a class's extractions
    ///
    /// What modules recorded about the class's sessions (detected personal data, safety
    /// flags, struggle or misconception signals a module emits, …), newest first, each
    /// with the session and message it is about and the student's and assignment's
    /// names. An assignment of another class or a student not in the class: 404.
    #[oai(
        path = "/classes/:id/extractions",
        method = "get",
        operation_id = "list_class_extractions"
    )]
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn extractions(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        /// Only in sessions of this assignment of the class.
        assignment_id: Query<Option<Uuid>>,
        /// Only in sessions of this student of the class.
        student_id: Query<Option<Uuid>>,
        /// Only those recorded at or after this time.
        from: Query<Option<DateTime<Utc>>>,
        /// Only those recorded before this time (must be after `from`).
        to: Query<Option<DateTime<Utc>>>,
        /// Only those of this module (its configured name).
        #[oai(validator(min_length = 1, max_length = 200))]
        module: Query<Option<String>>,
        /// Only those of this type (`pii_detected`, `safety_flag`, …).
        #[oai(name = "type", validator(min_length = 1, max_length = 200))]
        kind: Query<Option<String>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<TeachingExtraction>>, statuses::ListOf> {
        let filter = ExtractionFilter {
            scope: scope(assignment_id.0, student_id.0, from.0, to.0)?,
            module: module.0,
            kind: kind.0,
        };
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let rows = state
            .teaching()
            .extractions(auth.0.user_id, id.0, filter, page)
            .await?;
        Ok(Json(Page::from_rows(rows, TeachingExtraction::from)))
    }

    /// List a class's blocks
    ///
    /// Messages and answers modules blocked in the class's sessions, newest first: the
    /// module, the hook, the category and the module's reason, with the session and
    /// message to open — never the blocked text. An assignment of another class or a
    /// student not in the class: 404.
    #[oai(
        path = "/classes/:id/blocks",
        method = "get",
        operation_id = "list_class_blocks"
    )]
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn blocks(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        /// Only in sessions of this assignment of the class.
        assignment_id: Query<Option<Uuid>>,
        /// Only in sessions of this student of the class.
        student_id: Query<Option<Uuid>>,
        /// Only those at or after this time.
        from: Query<Option<DateTime<Utc>>>,
        /// Only those before this time (must be after `from`).
        to: Query<Option<DateTime<Utc>>>,
        /// Only those of this module (its configured name).
        #[oai(validator(min_length = 1, max_length = 200))]
        module: Query<Option<String>>,
        /// Only those of this category (`self_harm`, `policy`, …).
        #[oai(validator(min_length = 1, max_length = 200))]
        category: Query<Option<String>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<TeachingBlock>>, statuses::ListOf> {
        let filter = BlockFilter {
            scope: scope(assignment_id.0, student_id.0, from.0, to.0)?,
            module: module.0,
            category: category.0,
        };
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let rows = state
            .teaching()
            .blocks(auth.0.user_id, id.0, filter, page)
            .await?;
        Ok(Json(Page::from_rows(rows, TeachingBlock::from)))
    }
}
