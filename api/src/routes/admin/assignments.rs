//! `/v1/admin/assignments`: tasks in a class, each done with one tool.
//!
//! An update may clear either end of the window with `null` (absent leaves it alone); the
//! window is checked as it stands after the update.

use chrono::{DateTime, Utc};
use parley_entity::{assignments, query::assignments as q};
use parley_protocol::config::ConfigOverrides;
use parley_protocol::error::Result;
use poem_openapi::{Object, types::MaybeUndefined};
use q::AssignmentRefs;
use uuid::Uuid;

use super::resource::{FromRow, IntoChanges, IntoNew, admin_api};
use crate::{state::AppState, types::Text};

/// A task in a class, done in sessions with one tool.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Assignment {
    pub id: Uuid,
    pub class_id: Uuid,
    /// The class's name (absent only when it was deleted while the answer was read).
    pub class_name: Option<String>,
    pub tool_id: Uuid,
    /// The tool's name (absent only when it was deleted while the answer was read).
    pub tool_name: Option<String>,
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

impl FromRow<assignments::Model, AssignmentRefs> for Assignment {
    fn from_row(a: assignments::Model, refs: &AssignmentRefs) -> Self {
        Self {
            id: a.id,
            class_id: a.class_id,
            class_name: refs.classes.get(a.class_id),
            tool_id: a.tool_id,
            tool_name: refs.tools.get(a.tool_id),
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

impl IntoNew<assignments::Entity> for CreateAssignment {
    fn into_new(self, _: &AppState) -> Result<q::NewAssignment> {
        Ok(q::NewAssignment {
            class_id: self.class_id,
            tool_id: self.tool_id,
            title: self.title.into(),
            instructions: self.instructions.into(),
            config: self.config,
            available_at: self.available_at,
            closes_at: self.closes_at,
        })
    }
}

impl IntoChanges<assignments::Entity> for UpdateAssignment {
    fn into_changes(self, _: &AppState) -> Result<q::AssignmentChanges> {
        Ok(q::AssignmentChanges {
            title: self.title.map(Into::into),
            instructions: self.instructions.map(Into::into),
            config: self.config,
            available_at: change(self.available_at),
            closes_at: change(self.closes_at),
        })
    }
}

admin_api! {
    AssignmentsAdminApi for Assignment(assignments::Entity) at "/v1/admin/assignments";
    /// Create an assignment
    ///
    /// 422 `class_not_found` or `tool_not_found` when either does not exist,
    /// `invalid_window` when it closes before it opens.
    create "/assignments" "admin_create_assignment" CreateAssignment
        => CreatedAssignment "The assignment was created.";
    /// List assignments
    ///
    /// Newest first; only those of one class when `class_id` is given.
    list "/assignments" "admin_list_assignments" filter
        /// Only the assignments of this class.
        class_id: Option<Uuid>;
    /// Get an assignment
    get "/assignments/:id" "admin_get_assignment";
    /// Update an assignment
    ///
    /// `available_at` and `closes_at` may be cleared with `null`. 422 `invalid_window`
    /// when the window after the update closes before it opens.
    update "/assignments/:id" "admin_update_assignment" UpdateAssignment;
    /// Delete an assignment
    ///
    /// Also deletes its submissions. Sessions opened under it are kept, with
    /// `assignment_id` and `submission_id` cleared.
    delete "/assignments/:id" "admin_delete_assignment";
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
