//! Classes and their enrolments: create here; read, page, rename and delete, enrol and
//! unenrol through [`resource`] with the hooks below.
//!
//! Deleting a class takes its enrolments and assignments with it, and with the
//! assignments their submissions (foreign keys `CASCADE`). Sessions opened under those
//! assignments are records and stay: their `assignment_id` and `submission_id` become
//! null (`SET NULL`).

use parley_protocol::error::Result;
use sea_orm::{ConnectionTrait, Set};
use uuid::Uuid;

use super::resource::{
    self, Membership, Resource, members,
    names::{Named, Names},
    rows,
};
use crate::{classes, enrollments, enums::EnrollmentRole, groups};

pub struct NewClass {
    pub group_id: Uuid,
    pub name: String,
}

/// Creates a class in a group (422 `group_not_found` when there is no such group, or
/// when it is deleted in between).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewClass) -> Result<classes::Model> {
    let row = classes::ActiveModel {
        group_id: Set(new.group_id),
        name: Set(new.name),
        ..Default::default()
    };
    super::groups::insert_in::<classes::Entity, C>(db, new.group_id, row).await
}

/// Fields an update may change; `None` leaves a field as it is. The group cannot change.
#[derive(Default)]
pub struct ClassChanges {
    pub name: Option<String>,
}

impl Resource for classes::Entity {
    rows! { classes: "class" / "a class" / "classes", NewClass, ClassChanges, () }

    /// The names of the classes' groups.
    type Refs = Names;

    async fn refs<C: ConnectionTrait>(db: &C, rows: &[classes::Model]) -> Result<Names> {
        groups::Entity::names(db, rows.iter().map(|c| c.group_id)).await
    }

    fn apply(changes: ClassChanges, row: &mut classes::ActiveModel) -> Result<()> {
        resource::set(&mut row.name, changes.name);
        Ok(())
    }
}

impl Membership for enrollments::Entity {
    members! {
        enrollments: "enrollment" / "an enrolment" / "enrolments",
        classes::Entity => ClassId, EnrollmentRole, key Id
    }
}
