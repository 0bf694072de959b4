//! Classes and their enrolments: create, read, page, rename, delete; enrol, unenrol.
//!
//! Deleting a class takes its enrolments and assignments with it, and with the
//! assignments their submissions (foreign keys `CASCADE`). Sessions opened under those
//! assignments are records and stay: their `assignment_id` and `submission_id` become
//! null (`SET NULL`).

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set, sea_query::OnConflict,
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::{
    classes, enrollments,
    enums::EnrollmentRole,
    error::{Context, Error, Result},
};

pub struct NewClass {
    pub group_id: Uuid,
    pub name: String,
}

fn group_not_found() -> Error {
    Error::invalid("group_not_found", "the group does not exist")
}

/// Creates a class in a group (422 `group_not_found` when there is no such group).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewClass) -> Result<classes::Model> {
    super::groups::find(db, new.group_id)
        .await?
        .ok_or_else(group_not_found)?;
    let now = super::now();
    classes::ActiveModel {
        id: Set(Uuid::now_v7()),
        group_id: Set(new.group_id),
        name: Set(new.name),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await
    .context("creating a class")
    .map_err(|err| match err {
        // The group was deleted in between.
        Error::Conflict { .. } => group_not_found(),
        other => other,
    })
}

pub async fn find<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<Option<classes::Model>> {
    classes::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a class")
}

pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<classes::Model> {
    find(db, id).await?.ok_or(Error::not_found("class"))
}

/// Classes, newest first.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    page: PageRequest<Uuid>,
) -> Result<Page<classes::Model, Uuid>> {
    let mut query = classes::Entity::find().order_by_desc(classes::Column::Id);
    if let Some(after) = page.after {
        query = query.filter(classes::Column::Id.lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing classes")?;
    Ok(Page::from_overfetch(rows, page.limit, |c| c.id))
}

/// Fields an update may change; `None` leaves a field as it is.
#[derive(Default)]
pub struct ClassChanges {
    pub name: Option<String>,
}

pub async fn update<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    changes: ClassChanges,
) -> Result<classes::Model> {
    let mut class: classes::ActiveModel = get(db, id).await?.into();
    if let Some(name) = changes.name {
        class.name = Set(name);
    }
    class.updated_at = Set(super::now());
    class.update(db).await.context("updating a class")
}

/// Deletes a class with its enrolments, assignments and their submissions (see the
/// module note for what happens to sessions).
pub async fn delete<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<()> {
    let res = classes::Entity::delete_by_id(id)
        .exec(db)
        .await
        .context("deleting a class")?;
    if res.rows_affected == 0 {
        return Err(Error::not_found("class"));
    }
    Ok(())
}

/// Enrols the user in the class with this role, or changes their role (the first
/// enrolment's id and `created_at` are kept). 404 when the class or the user is missing.
pub async fn put_enrollment<C: ConnectionTrait>(
    db: &C,
    class_id: Uuid,
    user_id: Uuid,
    role: EnrollmentRole,
) -> Result<enrollments::Model> {
    use enrollments::Column as E;
    get(db, class_id).await?;
    super::users::get(db, user_id).await?;
    let row = enrollments::ActiveModel {
        id: Set(Uuid::now_v7()),
        class_id: Set(class_id),
        user_id: Set(user_id),
        role: Set(role),
        created_at: Set(super::now()),
    };
    enrollments::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([E::ClassId, E::UserId])
                .update_column(E::Role)
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context("saving an enrolment")?;
    find_enrollment(db, class_id, user_id)
        .await?
        .ok_or(Error::not_found("enrollment"))
}

async fn find_enrollment<C: ConnectionTrait>(
    db: &C,
    class_id: Uuid,
    user_id: Uuid,
) -> Result<Option<enrollments::Model>> {
    enrollments::Entity::find()
        .filter(enrollments::Column::ClassId.eq(class_id))
        .filter(enrollments::Column::UserId.eq(user_id))
        .one(db)
        .await
        .context("reading an enrolment")
}

/// Removes the user from the class; 404 when they are not enrolled.
pub async fn remove_enrollment<C: ConnectionTrait>(
    db: &C,
    class_id: Uuid,
    user_id: Uuid,
) -> Result<()> {
    let res = enrollments::Entity::delete_many()
        .filter(enrollments::Column::ClassId.eq(class_id))
        .filter(enrollments::Column::UserId.eq(user_id))
        .exec(db)
        .await
        .context("removing an enrolment")?;
    if res.rows_affected == 0 {
        return Err(Error::not_found("enrollment"));
    }
    Ok(())
}

/// A class's enrolments, by user id, newest users first (404 when the class is missing).
pub async fn list_enrollments<C: ConnectionTrait>(
    db: &C,
    class_id: Uuid,
    page: PageRequest<Uuid>,
) -> Result<Page<enrollments::Model, Uuid>> {
    use enrollments::Column as E;
    get(db, class_id).await?;
    let mut query = enrollments::Entity::find()
        .filter(E::ClassId.eq(class_id))
        .order_by_desc(E::UserId);
    if let Some(after) = page.after {
        query = query.filter(E::UserId.lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing enrolments")?;
    Ok(Page::from_overfetch(rows, page.limit, |e| e.user_id))
}
