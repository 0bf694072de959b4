//! Assignments: created here; read, paged (optionally by class), changed and deleted
//! through [`resource`](super::resource) with the hooks below.
//!
//! An assignment's window is `[available_at, closes_at)`; either end may be open, and
//! when both are set `closes_at` comes strictly after `available_at`. Deleting an
//! assignment takes its submissions with it (`CASCADE`); sessions opened under it stay,
//! with `assignment_id` and `submission_id` set to null (`SET NULL`).

use std::future::Future;

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, QueryFilter, Select, Set, prelude::DateTimeUtc,
};
use serde_json::Value;
use uuid::Uuid;

use super::resource::{self, Resource};
use crate::{
    assignments, classes,
    error::{Context, Error, Result},
    tools,
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

/// An assignment's config overrides the tool's definition key by key: it is a JSON object.
pub fn check_config(config: Value) -> Result<Value> {
    if config.is_object() {
        Ok(config)
    } else {
        Err(Error::invalid(
            "invalid_config",
            "config must be a JSON object",
        ))
    }
}

pub struct NewAssignment {
    pub class_id: Uuid,
    pub tool_id: Uuid,
    pub title: String,
    pub instructions: String,
    /// Absent: `{}`.
    pub config: Option<Value>,
    pub available_at: Option<DateTimeUtc>,
    pub closes_at: Option<DateTimeUtc>,
}

/// Creates an assignment: 422 `invalid_window`, `invalid_config`, `class_not_found` or
/// `tool_not_found` when its values do not hold.
pub async fn create<C: ConnectionTrait>(db: &C, new: NewAssignment) -> Result<assignments::Model> {
    check_window(new.available_at, new.closes_at)?;
    let config = check_config(new.config.unwrap_or_else(|| serde_json::json!({})))?;
    let class_not_found = || Error::invalid("class_not_found", "the class does not exist");
    let tool_not_found = || Error::invalid("tool_not_found", "the tool does not exist");
    resource::parent::<classes::Entity, C>(db, new.class_id, class_not_found).await?;
    resource::parent::<tools::Entity, C>(db, new.tool_id, tool_not_found).await?;
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

/// Fields an update may change; `None` leaves a field as it is. For the two dates,
/// `Some(None)` clears the date. The class and the tool never change.
#[derive(Default)]
pub struct AssignmentChanges {
    pub title: Option<String>,
    pub instructions: Option<String>,
    pub config: Option<Value>,
    pub available_at: Option<Option<DateTimeUtc>>,
    pub closes_at: Option<Option<DateTimeUtc>>,
}

/// A list narrowed to one class, or not.
pub type ClassFilter = Option<Uuid>;

impl Resource for assignments::Entity {
    const NOUN: &'static str = "assignment";
    const A: &'static str = "an assignment";
    const PLURAL: &'static str = "assignments";
    type Changes = AssignmentChanges;
    type New = NewAssignment;
    type Filter = ClassFilter;

    fn id_column() -> assignments::Column {
        assignments::Column::Id
    }

    fn updated_at_column() -> assignments::Column {
        assignments::Column::UpdatedAt
    }

    fn id_of(assignment: &assignments::Model) -> Uuid {
        assignment.id
    }

    fn create<C: ConnectionTrait>(
        db: &C,
        new: NewAssignment,
    ) -> impl Future<Output = Result<assignments::Model>> + Send {
        create(db, new)
    }

    /// The assignments of one class when `class_id` is given.
    fn narrow(query: Select<Self>, class_id: ClassFilter) -> Select<Self> {
        match class_id {
            Some(class_id) => query.filter(assignments::Column::ClassId.eq(class_id)),
            None => query,
        }
    }

    fn check(changes: AssignmentChanges) -> Result<AssignmentChanges> {
        let config = changes.config.map(check_config).transpose()?;
        Ok(AssignmentChanges { config, ..changes })
    }

    /// The window is checked as it stands after the changes.
    fn apply(
        changes: AssignmentChanges,
        current: &assignments::Model,
        row: &mut assignments::ActiveModel,
    ) -> Result<()> {
        check_window(
            changes.available_at.unwrap_or(current.available_at),
            changes.closes_at.unwrap_or(current.closes_at),
        )?;
        if let Some(title) = changes.title {
            row.title = Set(title);
        }
        if let Some(instructions) = changes.instructions {
            row.instructions = Set(instructions);
        }
        if let Some(config) = changes.config {
            row.config = Set(config);
        }
        if let Some(available_at) = changes.available_at {
            row.available_at = Set(available_at);
        }
        if let Some(closes_at) = changes.closes_at {
            row.closes_at = Set(closes_at);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, Utc};
    use serde_json::json;

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

    #[test]
    fn config_must_be_an_object() {
        assert!(check_config(json!({"max_messages": 5})).is_ok());
        assert!(matches!(
            check_config(json!([])),
            Err(Error::Invalid {
                code: "invalid_config",
                ..
            })
        ));
    }
}
