//! Assignments: created here; read, paged (optionally by class), changed and deleted
//! through [`resource`] with the hooks below.
//!
//! An assignment's window is `[available_at, closes_at)`; either end may be open, and
//! when both are set `closes_at` comes strictly after `available_at`. Deleting an
//! assignment takes its submissions with it (`CASCADE`); sessions opened under it stay,
//! with `assignment_id` and `submission_id` set to null (`SET NULL`).

use parley_protocol::config::ConfigOverrides;
use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{ColumnTrait, ConnectionTrait, QueryFilter, Select, Set, prelude::DateTimeUtc};
use uuid::Uuid;

use super::resource::{
    self, Resource,
    names::{Named, Names},
    rows,
};
use crate::{assignments, classes, tools};

/// Refuses a window that closes before (or when) it opens.
pub fn check_window(
    available_at: Option<DateTimeUtc>,
    closes_at: Option<DateTimeUtc>,
) -> Result<()> {
    match (available_at, closes_at) {
        (Some(open), Some(close)) if close <= open => Err(Error::invalid(
            ErrorCode::InvalidWindow,
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
    let class_not_found = || Error::invalid(ErrorCode::ClassNotFound, "the class does not exist");
    let tool_not_found = || Error::invalid(ErrorCode::ToolNotFound, "the tool does not exist");
    resource::parent::<classes::Entity, C>(db, new.class_id, class_not_found).await?;
    resource::parent::<tools::Entity, C>(db, new.tool_id, tool_not_found).await?;
    let row = assignments::ActiveModel {
        class_id: Set(new.class_id),
        tool_id: Set(new.tool_id),
        title: Set(new.title),
        instructions: Set(new.instructions),
        config: Set(config),
        available_at: Set(new.available_at),
        closes_at: Set(new.closes_at),
        ..Default::default()
    };
    resource::insert::<assignments::Entity, C>(db, row, None).await
}

/// Fields an update may change; `None` leaves a field as it is. For the two dates,
/// `Some(None)` clears the date. The class and the tool never change.
#[derive(Default)]
pub struct AssignmentChanges {
    pub title: Option<String>,
    pub instructions: Option<String>,
    pub config: Option<ConfigOverrides>,
    pub available_at: Option<Option<DateTimeUtc>>,
    pub closes_at: Option<Option<DateTimeUtc>>,
}

/// The names of what assignments refer to: their classes and their tools.
#[derive(Debug, Clone, Default)]
pub struct AssignmentRefs {
    pub classes: Names,
    pub tools: Names,
}

/// A list narrowed to one class, or not.
pub type ClassFilter = Option<Uuid>;

impl Resource for assignments::Entity {
    rows! {
        assignments: "assignment" / "an assignment" / "assignments",
        NewAssignment, AssignmentChanges, ClassFilter
    }

    type Refs = AssignmentRefs;

    /// Two queries: the classes' names, then the tools'.
    async fn refs<C: ConnectionTrait>(
        db: &C,
        rows: &[assignments::Model],
    ) -> Result<AssignmentRefs> {
        Ok(AssignmentRefs {
            classes: classes::Entity::names(db, rows.iter().map(|a| a.class_id)).await?,
            tools: tools::Entity::names(db, rows.iter().map(|a| a.tool_id)).await?,
        })
    }

    /// The assignments of one class when `class_id` is given.
    fn narrow(query: Select<Self>, class_id: ClassFilter) -> Select<Self> {
        match class_id {
            Some(class_id) => query.filter(assignments::Column::ClassId.eq(class_id)),
            None => query,
        }
    }

    /// The window is checked as it stands after the changes.
    fn apply(changes: AssignmentChanges, row: &mut assignments::ActiveModel) -> Result<()> {
        check_window(
            changes.available_at.unwrap_or(*row.available_at.as_ref()),
            changes.closes_at.unwrap_or(*row.closes_at.as_ref()),
        )?;
        resource::set(&mut row.title, changes.title);
        resource::set(&mut row.instructions, changes.instructions);
        resource::set(&mut row.config, changes.config);
        resource::set(&mut row.available_at, changes.available_at);
        resource::set(&mut row.closes_at, changes.closes_at);
        Ok(())
    }
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
                    code: ErrorCode::InvalidWindow,
                    ..
                })
            ));
        }
    }
}
