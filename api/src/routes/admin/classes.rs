//! `/v1/admin/classes`: classes and their enrolments.
//!
//! Enrolments are listed by user id, newest users first, like group members.

use chrono::{DateTime, Utc};
use parley_entity::{classes, enrollments, query::classes as q};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::Deleted;
use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    routes::{ApiTags, views::EnrollmentRole},
    state::AppState,
    types::Text,
};

/// A course inside a group.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Class {
    pub id: Uuid,
    pub group_id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<classes::Model> for Class {
    fn from(c: classes::Model) -> Self {
        Self {
            id: c.id,
            group_id: c.group_id,
            name: c.name,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

/// A new class.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateClass {
    pub group_id: Uuid,
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Text,
}

/// Changes to a class; absent fields stay as they are. The group cannot change.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateClass {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Option<Text>,
}

/// A person's enrolment in a class.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Enrollment {
    pub id: Uuid,
    pub class_id: Uuid,
    pub user_id: Uuid,
    pub role: EnrollmentRole,
    /// When the user was first enrolled.
    pub created_at: DateTime<Utc>,
}

impl From<enrollments::Model> for Enrollment {
    fn from(e: enrollments::Model) -> Self {
        Self {
            id: e.id,
            class_id: e.class_id,
            user_id: e.user_id,
            role: e.role.into(),
            created_at: e.created_at,
        }
    }
}

/// The role to give an enrolled person.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct PutEnrollment {
    pub role: EnrollmentRole,
}

#[derive(ApiResponse)]
pub enum CreatedClass {
    /// The class was created.
    #[oai(status = 201)]
    Created(Json<Class>, #[oai(header = "Location")] String),
}

pub struct ClassesAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl ClassesAdminApi {
    /// Create a class
    ///
    /// 422 `group_not_found` when the group does not exist.
    #[oai(
        path = "/classes",
        method = "post",
        operation_id = "admin_create_class"
    )]
    async fn create_class(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        body: Json<CreateClass>,
    ) -> ApiResult<CreatedClass, statuses::AdminCreate> {
        let new = q::NewClass {
            group_id: body.0.group_id,
            name: body.0.name.into(),
        };
        let class = q::create(&state.db, new).await?;
        let location = format!("/v1/admin/classes/{}", class.id);
        Ok(CreatedClass::Created(Json(class.into()), location))
    }

    /// List classes
    ///
    /// Newest first.
    #[oai(path = "/classes", method = "get", operation_id = "admin_list_classes")]
    async fn list_classes(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Class>>, statuses::AdminList> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        Ok(Json(Page::from_rows(
            q::list(&state.db, page).await?,
            Class::from,
        )))
    }

    /// Get a class
    #[oai(
        path = "/classes/:id",
        method = "get",
        operation_id = "admin_get_class"
    )]
    async fn get_class(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Class>, statuses::AdminRead> {
        Ok(Json(q::get(&state.db, id.0).await?.into()))
    }

    /// Update a class
    #[oai(
        path = "/classes/:id",
        method = "patch",
        operation_id = "admin_update_class"
    )]
    async fn update_class(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<UpdateClass>,
    ) -> ApiResult<Json<Class>, statuses::AdminWrite> {
        let changes = q::ClassChanges {
            name: body.0.name.map(Into::into),
        };
        Ok(Json(q::update(&state.db, id.0, changes).await?.into()))
    }

    /// Delete a class
    ///
    /// Also deletes its enrolments and assignments, and the submissions of those
    /// assignments. Sessions opened under them are kept, with `assignment_id` and
    /// `submission_id` cleared.
    #[oai(
        path = "/classes/:id",
        method = "delete",
        operation_id = "admin_delete_class"
    )]
    async fn delete_class(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Deleted, statuses::AdminDelete> {
        q::delete(&state.db, id.0).await?;
        Ok(Deleted::NoContent)
    }

    /// Enrol a user in a class
    ///
    /// Idempotent: enrols the user with this role, or changes their role. 404 when the
    /// class or the user does not exist.
    #[oai(
        path = "/classes/:id/enrollments/:user_id",
        method = "put",
        operation_id = "admin_put_enrollment"
    )]
    async fn put_enrollment(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        user_id: Path<Uuid>,
        body: Json<PutEnrollment>,
    ) -> ApiResult<Json<Enrollment>, statuses::AdminWrite> {
        let enrollment = q::put_enrollment(&state.db, id.0, user_id.0, body.0.role.into()).await?;
        Ok(Json(enrollment.into()))
    }

    /// Remove a user from a class
    ///
    /// 404 when the user is not enrolled in the class.
    #[oai(
        path = "/classes/:id/enrollments/:user_id",
        method = "delete",
        operation_id = "admin_remove_enrollment"
    )]
    async fn remove_enrollment(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        user_id: Path<Uuid>,
    ) -> ApiResult<Deleted, statuses::AdminDelete> {
        q::remove_enrollment(&state.db, id.0, user_id.0).await?;
        Ok(Deleted::NoContent)
    }

    /// List a class's enrolments
    ///
    /// By user id, newest users first.
    #[oai(
        path = "/classes/:id/enrollments",
        method = "get",
        operation_id = "admin_list_enrollments"
    )]
    async fn list_enrollments(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Enrollment>>, statuses::AdminListOf> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        Ok(Json(Page::from_rows(
            q::list_enrollments(&state.db, id.0, page).await?,
            Enrollment::from,
        )))
    }
}
