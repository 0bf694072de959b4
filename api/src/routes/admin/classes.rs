//! `/v1/admin/classes`: classes and their enrolments.
//!
//! Enrolments are listed by user id, newest users first, like group members.

use chrono::{DateTime, Utc};
use parley_entity::{
    classes, enrollments,
    query::{
        classes as q,
        resource::names::{Names, UserName},
    },
};
use parley_protocol::error::Result;
use poem_openapi::Object;
use uuid::Uuid;

use super::resource::{FromRow, IntoChanges, IntoNew, admin_api};
use crate::{routes::views::EnrollmentRole, state::AppState, types::Text};

/// A course inside a group.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Class {
    pub id: Uuid,
    pub group_id: Uuid,
    /// The group's name (absent only when it was deleted while the answer was read).
    pub group_name: Option<String>,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl FromRow<classes::Model, Names> for Class {
    fn from_row(c: classes::Model, groups: &Names) -> Self {
        Self {
            id: c.id,
            group_id: c.group_id,
            group_name: groups.get(c.group_id),
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
    /// The user's name (absent only when it was deleted while the answer was read).
    pub user_name: Option<String>,
    /// The user's email (absent with `user_name`).
    pub user_email: Option<String>,
    pub role: EnrollmentRole,
    /// When the user was first enrolled.
    pub created_at: DateTime<Utc>,
}

impl FromRow<enrollments::Model, Names<UserName>> for Enrollment {
    fn from_row(e: enrollments::Model, users: &Names<UserName>) -> Self {
        let user = users.get(e.user_id);
        Self {
            id: e.id,
            class_id: e.class_id,
            user_id: e.user_id,
            user_name: user.as_ref().map(|u| u.name.clone()),
            user_email: user.map(|u| u.email),
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

impl IntoNew<classes::Entity> for CreateClass {
    fn into_new(self, _: &AppState) -> Result<q::NewClass> {
        Ok(q::NewClass {
            group_id: self.group_id,
            name: self.name.into(),
        })
    }
}

impl IntoChanges<classes::Entity> for UpdateClass {
    fn into_changes(self, _: &AppState) -> Result<q::ClassChanges> {
        Ok(q::ClassChanges {
            name: self.name.map(Into::into),
        })
    }
}

admin_api! {
    ClassesAdminApi for Class(classes::Entity) at "/v1/admin/classes";
    /// Create a class
    ///
    /// 422 `group_not_found` when the group does not exist.
    create "/classes" "admin_create_class" CreateClass
        => CreatedClass "The class was created.";
    /// List classes
    ///
    /// Newest first.
    list "/classes" "admin_list_classes";
    /// Get a class
    get "/classes/:id" "admin_get_class";
    /// Update a class
    update "/classes/:id" "admin_update_class" UpdateClass;
    /// Delete a class
    ///
    /// Also deletes its enrolments and assignments, and the submissions of those
    /// assignments. Sessions opened under them are kept, with `assignment_id` and
    /// `submission_id` cleared.
    delete "/classes/:id" "admin_delete_class";
    members Enrollment(enrollments::Entity), PutEnrollment;
    /// Enrol a user in a class
    ///
    /// Idempotent: enrols the user with this role, or changes their role. 404 when the
    /// class or the user does not exist.
    put "/classes/:id/enrollments/:user_id" "admin_put_enrollment";
    /// Remove a user from a class
    ///
    /// 404 when the user is not enrolled in the class.
    remove "/classes/:id/enrollments/:user_id" "admin_remove_enrollment";
    /// List a class's enrolments
    ///
    /// By user id, newest users first.
    list "/classes/:id/enrollments" "admin_list_enrollments";
}
