//! `/v1/admin/assignments`: tasks in a class, each done with one tool.
//!
//! An update may clear either end of the window with `null` (absent leaves it alone); the
//! window is checked as it stands after the update.

use chrono::{DateTime, Utc};
use parley_entity::{assignments, query::assignments as q};
use parley_protocol::config::ConfigOverrides;
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
};
use uuid::Uuid;

use super::Deleted;
use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    routes::ApiTags,
    state::AppState,
    types::Text,
};

/// A task in a class, done in sessions with one tool.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Assignment {
    pub id: Uuid,
    pub class_id: Uuid,
    pub tool_id: Uuid,
    pub title: String,
    pub instructions: String,
    /// Overrides of the tool's definition for sessions of this assignment.
    pub config: ConfigOverrides,
    /// Sessions may be opened from then on; absent: at once.
    pub available_at: Option<DateTime<Utc>>,
    /// Sessions may be opened until then; absent: forever.
    pub closes_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<assignments::Model> for Assignment {
    fn from(a: assignments::Model) -> Self {
        Self {
            id: a.id,
            class_id: a.class_id,
            tool_id: a.tool_id,
            title: a.title,
            instructions: a.instructions,
            config: a.config,
            available_at: a.available_at,
            closes_at: a.closes_at,
            created_at: a.created_at,
            updated_at: a.updated_at,
        }
    }
}

/// A new assignment.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateAssignment {
    pub class_id: Uuid,
    pub tool_id: Uuid,
    #[oai(validator(min_length = 1, max_length = 200))]
    pub title: Text,
    #[oai(default, validator(max_length = 50000))]
    pub instructions: Text,
    /// Overrides of the tool's definition (default: none).
    pub config: Option<ConfigOverrides>,
    pub available_at: Option<DateTime<Utc>>,
    /// Must be later than `available_at` when both are set.
    pub closes_at: Option<DateTime<Utc>>,
}

/// Changes to an assignment; absent fields stay as they are. The class and the tool
/// cannot change.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateAssignment {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub title: Option<Text>,
    #[oai(validator(max_length = 50000))]
    pub instructions: Option<Text>,
    /// Replaces the config as a whole.
    pub config: Option<ConfigOverrides>,
    /// `null` clears it.
    pub available_at: MaybeUndefined<DateTime<Utc>>,
    /// `null` clears it.
    pub closes_at: MaybeUndefined<DateTime<Utc>>,
}

/// Absent → no change (`None`), `null` → clear (`Some(None)`), a value → set it.
fn change<T>(value: MaybeUndefined<T>) -> Option<Option<T>> {
    match value {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(None),
        MaybeUndefined::Value(value) => Some(Some(value)),
    }
}

#[derive(ApiResponse)]
pub enum CreatedAssignment {
    /// The assignment was created.
    #[oai(status = 201)]
    Created(Json<Assignment>, #[oai(header = "Location")] String),
}

pub struct AssignmentsAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl AssignmentsAdminApi {
    /// Create an assignment
    ///
    /// 422 `class_not_found` or `tool_not_found` when either does not exist,
    /// `invalid_window` when it closes before it opens.
    #[oai(
        path = "/assignments",
        method = "post",
        operation_id = "admin_create_assignment"
    )]
    async fn create_assignment(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        body: Json<CreateAssignment>,
    ) -> ApiResult<CreatedAssignment, statuses::AdminCreate> {
        let body = body.0;
        let new = q::NewAssignment {
            class_id: body.class_id,
            tool_id: body.tool_id,
            title: body.title.into(),
            instructions: body.instructions.into(),
            config: body.config,
            available_at: body.available_at,
            closes_at: body.closes_at,
        };
        let assignment = q::create(&state.db, new).await?;
        let location = format!("/v1/admin/assignments/{}", assignment.id);
        Ok(CreatedAssignment::Created(
            Json(assignment.into()),
            location,
        ))
    }

    /// List assignments
    ///
    /// Newest first; only those of one class when `class_id` is given.
    #[oai(
        path = "/assignments",
        method = "get",
        operation_id = "admin_list_assignments"
    )]
    async fn list_assignments(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Only the assignments of this class.
        class_id: Query<Option<Uuid>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Assignment>>, statuses::AdminList> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        Ok(Json(Page::from_rows(
            q::list(&state.db, class_id.0, page).await?,
            Assignment::from,
        )))
    }

    /// Get an assignment
    #[oai(
        path = "/assignments/:id",
        method = "get",
        operation_id = "admin_get_assignment"
    )]
    async fn get_assignment(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Assignment>, statuses::AdminRead> {
        Ok(Json(q::get(&state.db, id.0).await?.into()))
    }

    /// Update an assignment
    ///
    /// `available_at` and `closes_at` may be cleared with `null`. 422 `invalid_window`
    /// when the window after the update closes before it opens.
    #[oai(
        path = "/assignments/:id",
        method = "patch",
        operation_id = "admin_update_assignment"
    )]
    async fn update_assignment(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<UpdateAssignment>,
    ) -> ApiResult<Json<Assignment>, statuses::AdminWrite> {
        let body = body.0;
        let changes = q::AssignmentChanges {
            title: body.title.map(Into::into),
            instructions: body.instructions.map(Into::into),
            config: body.config,
            available_at: change(body.available_at),
            closes_at: change(body.closes_at),
        };
        Ok(Json(q::update(&state.db, id.0, changes).await?.into()))
    }

    /// Delete an assignment
    ///
    /// Also deletes its submissions. Sessions opened under it are kept, with
    /// `assignment_id` and `submission_id` cleared.
    #[oai(
        path = "/assignments/:id",
        method = "delete",
        operation_id = "admin_delete_assignment"
    )]
    async fn delete_assignment(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Deleted, statuses::AdminDelete> {
        q::delete(&state.db, id.0).await?;
        Ok(Deleted::NoContent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_null_and_value_map_to_keep_clear_and_set() {
        assert_eq!(change::<u8>(MaybeUndefined::Undefined), None);
        assert_eq!(change::<u8>(MaybeUndefined::Null), Some(None));
        assert_eq!(change(MaybeUndefined::Value(3)), Some(Some(3)));
    }
}
