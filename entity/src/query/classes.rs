//! Classes and their enrolments: create here; read, page, rename and delete, enrol and
//! unenrol through [`resource`](super::resource) with the hooks below.
//!
//! Deleting a class takes its enrolments and assignments with it, and with the
//! assignments their submissions (foreign keys `CASCADE`). Sessions opened under those
//! assignments are records and stay: their `assignment_id` and `submission_id` become
//! null (`SET NULL`).

use std::future::Future;

use sea_orm::{ConnectionTrait, Set};
use uuid::Uuid;

use super::resource::{self, MemberAttempts, Membership, Resource};
use crate::{
    classes, enrollments,
    enums::EnrollmentRole,
    error::{Error, Result},
    groups,
};

pub struct NewClass {
    pub group_id: Uuid,
    pub name: String,
}

fn group_not_found() -> Error {
    Error::invalid("group_not_found", "the group does not exist")
}

/// Creates a class in a group (422 `group_not_found` when there is no such group, or
/// when it is deleted in between).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewClass) -> Result<classes::Model> {
    resource::parent::<groups::Entity, C>(db, new.group_id, group_not_found).await?;
    let now = super::now();
    let row = classes::ActiveModel {
        id: Set(Uuid::now_v7()),
        group_id: Set(new.group_id),
        name: Set(new.name),
        created_at: Set(now),
        updated_at: Set(now),
    };
    resource::insert(db, row, "creating a class", group_not_found).await
}

/// Fields an update may change; `None` leaves a field as it is. The group cannot change.
#[derive(Default)]
pub struct ClassChanges {
    pub name: Option<String>,
}

impl Resource for classes::Entity {
    const NOUN: &'static str = "class";
    const A: &'static str = "a class";
    const PLURAL: &'static str = "classes";
    type Changes = ClassChanges;
    type New = NewClass;
    type Filter = ();

    fn id_column() -> classes::Column {
        classes::Column::Id
    }

    fn updated_at_column() -> classes::Column {
        classes::Column::UpdatedAt
    }

    fn id_of(class: &classes::Model) -> Uuid {
        class.id
    }

    fn create<C: ConnectionTrait>(
        db: &C,
        new: NewClass,
    ) -> impl Future<Output = Result<classes::Model>> + Send {
        create(db, new)
    }

    fn apply(
        changes: ClassChanges,
        _: &classes::Model,
        row: &mut classes::ActiveModel,
    ) -> Result<()> {
        if let Some(name) = changes.name {
            row.name = Set(name);
        }
        Ok(())
    }
}

impl Membership for enrollments::Entity {
    type Parent = classes::Entity;
    type Role = EnrollmentRole;
    const NOUN: &'static str = "enrollment";
    const ATTEMPTS: MemberAttempts = MemberAttempts {
        saving: "saving an enrolment",
        reading: "reading an enrolment",
        removing: "removing an enrolment",
        listing: "listing enrolments",
    };

    fn parent_column() -> enrollments::Column {
        enrollments::Column::ClassId
    }

    fn user_column() -> enrollments::Column {
        enrollments::Column::UserId
    }

    fn role_column() -> enrollments::Column {
        enrollments::Column::Role
    }

    fn user_of(enrollment: &enrollments::Model) -> Uuid {
        enrollment.user_id
    }

    /// A new enrolment (its id and `created_at` are kept when the user is enrolled
    /// already: only the role changes).
    fn row(class_id: Uuid, user_id: Uuid, role: EnrollmentRole) -> enrollments::ActiveModel {
        enrollments::ActiveModel {
            id: Set(Uuid::now_v7()),
            class_id: Set(class_id),
            user_id: Set(user_id),
            role: Set(role),
            created_at: Set(super::now()),
        }
    }
}
