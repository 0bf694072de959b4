//! Assignments: create, read, page (optionally by class), update, delete.
//!
//! An assignment's window is `[available_at, closes_at)`; either end may be open, and
//! when both are set `closes_at` comes strictly after `available_at`. Deleting an
//! assignment takes its submissions with it (`CASCADE`); sessions opened under it stay,
//! with `assignment_id` and `submission_id` set to null (`SET NULL`).

use parley_protocol::config::ConfigOverrides;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set, prelude::DateTimeUtc,
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::{
    assignments,
    error::{Context, Error, Result},
};

/// Refuses a window that closes before (or when) it opens.
pub fn check_window(
    available_at: Option<DateTimeUtc>,
    closes_at: Option<DateTimeUtc>,
) -> Result<()> {
    match (available_at, closes_at) {
        (Some(open), Some(close)) if close <= open => Err(Error::invalid(
            "invalid_window",
            "closes_at must be later than available_at",
        )),
        _ => Ok(()),
    }
}

pub struct NewAssignment {
    pub class_id: Uuid,
    pub tool_id: Uuid,
    pub title: String,
    pub instructions: String,
    /// Overrides of the tool's definition (absent: none).
    pub config: Option<ConfigOverrides>,
    pub available_at: Option<DateTimeUtc>,
    pub closes_at: Option<DateTimeUtc>,
}

/// Creates an assignment: 422 `invalid_window`, `class_not_found` or
/// `tool_not_found` when its values do not hold.
pub async fn create<C: ConnectionTrait>(db: &C, new: NewAssignment) -> Result<assignments::Model> {
    check_window(new.available_at, new.closes_at)?;
    let config = new.config.unwrap_or_default();
    let class_not_found = || Error::invalid("class_not_found", "the class does not exist");
    let tool_not_found = || Error::invalid("tool_not_found", "the tool does not exist");
    super::classes::find(db, new.class_id)
        .await?
        .ok_or_else(class_not_found)?;
    super::tools::find(db, new.tool_id)
        .await?
        .ok_or_else(tool_not_found)?;
    let now = super::now();
    assignments::ActiveModel {
        id: Set(Uuid::now_v7()),
        class_id: Set(new.class_id),
        tool_id: Set(new.tool_id),
        title: Set(new.title),
        instructions: Set(new.instructions),
        config: Set(config),
        available_at: Set(new.available_at),
        closes_at: Set(new.closes_at),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await
    .context("creating an assignment")
}

pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<assignments::Model> {
    assignments::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading an assignment")?
        .ok_or(Error::not_found("assignment"))
}

/// Assignments, newest first, of one class when `class_id` is given.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    class_id: Option<Uuid>,
    page: PageRequest<Uuid>,
) -> Result<Page<assignments::Model, Uuid>> {
    use assignments::Column as A;
    let mut query = assignments::Entity::find().order_by_desc(A::Id);
    if let Some(class_id) = class_id {
        query = query.filter(A::ClassId.eq(class_id));
    }
    if let Some(after) = page.after {
        query = query.filter(A::Id.lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing assignments")?;
    Ok(Page::from_overfetch(rows, page.limit, |a| a.id))
}

/// Fields an update may change; `None` leaves a field as it is. For the two dates,
/// `Some(None)` clears the date.
#[derive(Default)]
pub struct AssignmentChanges {
    pub title: Option<String>,
    pub instructions: Option<String>,
    pub config: Option<ConfigOverrides>,
    pub available_at: Option<Option<DateTimeUtc>>,
    pub closes_at: Option<Option<DateTimeUtc>>,
}

/// Applies the changes; the window is checked as it stands after them.
pub async fn update<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    changes: AssignmentChanges,
) -> Result<assignments::Model> {
    let config = changes.config;
    let current = get(db, id).await?;
    check_window(
        changes.available_at.unwrap_or(current.available_at),
        changes.closes_at.unwrap_or(current.closes_at),
    )?;
    let mut assignment: assignments::ActiveModel = current.into();
    if let Some(title) = changes.title {
        assignment.title = Set(title);
    }
    if let Some(instructions) = changes.instructions {
        assignment.instructions = Set(instructions);
    }
    if let Some(config) = config {
        assignment.config = Set(config);
    }
    if let Some(available_at) = changes.available_at {
        assignment.available_at = Set(available_at);
    }
    if let Some(closes_at) = changes.closes_at {
        assignment.closes_at = Set(closes_at);
    }
    assignment.updated_at = Set(super::now());
    assignment
        .update(db)
        .await
        .context("updating an assignment")
}

/// Deletes an assignment with its submissions (sessions stay, see the module note).
pub async fn delete<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<()> {
    let res = assignments::Entity::delete_by_id(id)
        .exec(db)
        .await
        .context("deleting an assignment")?;
    if res.rows_affected == 0 {
        return Err(Error::not_found("assignment"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, Utc};

    use super::*;

    #[test]
    fn window_must_close_after_it_opens() {
        let now = Utc::now();
        let later = now + Duration::hours(1);
        assert!(check_window(None, None).is_ok());
        assert!(check_window(Some(now), None).is_ok());
        assert!(check_window(None, Some(now)).is_ok());
        assert!(check_window(Some(now), Some(later)).is_ok());
        for (open, close) in [(later, now), (now, now)] {
            let err = check_window(Some(open), Some(close));
            assert!(matches!(
                err,
                Err(Error::Invalid {
                    code: "invalid_window",
                    ..
                })
            ));
        }
    }
}
