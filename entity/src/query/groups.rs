//! Groups: the organisation tree and its members. Created here; read, paged, changed and
//! deleted, and their members put, removed and listed, through
//! [`resource`] with the hooks below.
//!
//! A group's `path` is fixed when it is created (`/<root>/…/<id>/`, see
//! [`access::path_ids`](super::access::path_ids)); groups are never re-parented, so paths
//! never need rewriting. A group is deleted only when empty: sub-groups, tools and
//! classes hold it (foreign keys `RESTRICT`), memberships go with it (`CASCADE`).

use parley_protocol::config::ConfigOverrides;
use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{ConnectionTrait, Set};
use uuid::Uuid;

use super::resource::{
    self, Hold, Membership, Resource, members,
    names::{Named, Names},
    rows,
};
use crate::{classes, enums::MemberRole, group_members, groups, tools};

/// The materialized path of a new group: `/<id>/` for a root, the parent's path followed
/// by `<id>/` for a child.
pub fn path_for(parent_path: Option<&str>, id: Uuid) -> String {
    format!("{}{id}/", parent_path.unwrap_or("/"))
}

pub struct NewGroup {
    pub name: String,
    /// Absent: a root group.
    pub parent_id: Option<Uuid>,
    /// Overrides of the definitions of the tools under the group (absent: none).
    pub settings: Option<ConfigOverrides>,
}

fn parent_not_found() -> Error {
    Error::invalid(ErrorCode::ParentNotFound, "the parent group does not exist")
}

/// Creates a group under its parent (422 `parent_not_found` when there is no such
/// parent, or when it is deleted in between).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewGroup) -> Result<groups::Model> {
    let settings = new.settings.unwrap_or_default();
    let parent_path = match new.parent_id {
        Some(parent_id) => Some(
            resource::parent::<groups::Entity, C>(db, parent_id, parent_not_found)
                .await?
                .path,
        ),
        None => None,
    };
    let id = Uuid::now_v7();
    let row = groups::ActiveModel {
        id: Set(id),
        parent_id: Set(new.parent_id),
        name: Set(new.name),
        path: Set(path_for(parent_path.as_deref(), id)),
        settings: Set(settings),
        ..Default::default()
    };
    resource::insert::<groups::Entity, C>(db, row, Some(parent_not_found)).await
}

/// 422 `group_not_found`: a new row names a group that does not exist.
fn group_not_found() -> Error {
    Error::invalid(ErrorCode::GroupNotFound, "the group does not exist")
}

/// Inserts a row of `R` that belongs to group `group_id` (a tool, a class): 422
/// `group_not_found` when there is no such group, or when it is deleted in between.
pub(super) async fn insert_in<R: Resource, C: ConnectionTrait>(
    db: &C,
    group_id: Uuid,
    row: R::ActiveModel,
) -> Result<R::Model> {
    resource::parent::<groups::Entity, C>(db, group_id, group_not_found).await?;
    resource::insert::<R, C>(db, row, Some(group_not_found)).await
}

/// Fields an update may change; `None` leaves a field as it is. Settings are replaced
/// as a whole, not merged; the parent never changes.
#[derive(Default)]
pub struct GroupChanges {
    pub name: Option<String>,
    pub settings: Option<ConfigOverrides>,
}

impl Resource for groups::Entity {
    rows! { groups: "group" / "a group" / "groups", NewGroup, GroupChanges, () }

    /// The names of the groups' parents.
    type Refs = Names;

    async fn refs<C: ConnectionTrait>(db: &C, rows: &[groups::Model]) -> Result<Names> {
        groups::Entity::names(db, rows.iter().filter_map(|g| g.parent_id)).await
    }

    fn apply(changes: GroupChanges, row: &mut groups::ActiveModel) -> Result<()> {
        resource::set(&mut row.name, changes.name);
        resource::set(&mut row.settings, changes.settings);
        Ok(())
    }

    /// Only an empty group is deleted (its memberships go with it): sub-groups, tools and
    /// classes hold it (409 `group_not_empty`).
    fn hold(id: Uuid) -> Option<Hold> {
        let holders = vec![
            resource::held_by(groups::Column::ParentId, id),
            resource::held_by(tools::Column::GroupId, id),
            resource::held_by(classes::Column::GroupId, id),
        ];
        let message = "the group still has sub-groups, tools or classes; delete those first";
        Some(Hold::new(ErrorCode::GroupNotEmpty, message, holders))
    }
}

impl Membership for group_members::Entity {
    members! {
        group_members: "group member" / "a group membership" / "group memberships",
        groups::Entity => GroupId, MemberRole
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::query::access::path_ids;

    #[test]
    fn paths_extend_the_parent_and_read_back_root_first() {
        let (root, child) = (Uuid::now_v7(), Uuid::now_v7());
        let root_path = path_for(None, root);
        assert_eq!(root_path, format!("/{root}/"));
        let child_path = path_for(Some(&root_path), child);
        assert_eq!(child_path, format!("/{root}/{child}/"));
        assert_eq!(path_ids(&child_path), vec![root, child]);
    }
}
