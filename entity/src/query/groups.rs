//! Groups: the organisation tree and its members. Created here; read, paged, changed and
//! deleted, and their members put, removed and listed, through
//! [`resource`](super::resource) with the hooks below.
//!
//! A group's `path` is fixed when it is created (`/<root>/…/<id>/`, see
//! [`access::path_ids`](super::access::path_ids)); groups are never re-parented, so paths
//! never need rewriting. A group is deleted only when empty: sub-groups, tools and
//! classes hold it (foreign keys `RESTRICT`), memberships go with it (`CASCADE`).

use std::future::Future;

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryTrait, Set};
use serde_json::Value;
use uuid::Uuid;

use super::resource::{self, Hold, MemberAttempts, Membership, Resource};
use crate::{
    classes,
    enums::MemberRole,
    error::{Error, Result},
    group_members, groups, tools,
};

/// The materialized path of a new group: `/<id>/` for a root, the parent's path followed
/// by `<id>/` for a child.
pub fn path_for(parent_path: Option<&str>, id: Uuid) -> String {
    format!("{}{id}/", parent_path.unwrap_or("/"))
}

/// Group settings are a JSON object (merged key by key down the tree); anything else is
/// refused.
pub fn check_settings(settings: Value) -> Result<Value> {
    if settings.is_object() {
        Ok(settings)
    } else {
        Err(Error::invalid(
            "invalid_settings",
            "settings must be a JSON object",
        ))
    }
}

pub struct NewGroup {
    pub name: String,
    /// Absent: a root group.
    pub parent_id: Option<Uuid>,
    /// Absent: `{}`.
    pub settings: Option<Value>,
}

fn parent_not_found() -> Error {
    Error::invalid("parent_not_found", "the parent group does not exist")
}

/// Creates a group under its parent (422 `parent_not_found` when there is no such
/// parent, or when it is deleted in between).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewGroup) -> Result<groups::Model> {
    let settings = check_settings(new.settings.unwrap_or_else(|| serde_json::json!({})))?;
    let parent_path = match new.parent_id {
        Some(parent_id) => Some(
            resource::parent::<groups::Entity, C>(db, parent_id, parent_not_found)
                .await?
                .path,
        ),
        None => None,
    };
    let id = Uuid::now_v7();
    let now = super::now();
    let row = groups::ActiveModel {
        id: Set(id),
        parent_id: Set(new.parent_id),
        name: Set(new.name),
        path: Set(path_for(parent_path.as_deref(), id)),
        settings: Set(settings),
        created_at: Set(now),
        updated_at: Set(now),
    };
    resource::insert(db, row, "creating a group", parent_not_found).await
}

/// Fields an update may change; `None` leaves a field as it is. Settings are replaced
/// as a whole, not merged; the parent never changes.
#[derive(Default)]
pub struct GroupChanges {
    pub name: Option<String>,
    pub settings: Option<Value>,
}

fn group_not_empty() -> Error {
    Error::conflict(
        "group_not_empty",
        "the group still has sub-groups, tools or classes; delete those first",
    )
}

impl Resource for groups::Entity {
    const NOUN: &'static str = "group";
    const A: &'static str = "a group";
    const PLURAL: &'static str = "groups";
    type Changes = GroupChanges;
    type New = NewGroup;
    type Filter = ();

    fn id_column() -> groups::Column {
        groups::Column::Id
    }

    fn updated_at_column() -> groups::Column {
        groups::Column::UpdatedAt
    }

    fn id_of(group: &groups::Model) -> Uuid {
        group.id
    }

    fn create<C: ConnectionTrait>(
        db: &C,
        new: NewGroup,
    ) -> impl Future<Output = Result<groups::Model>> + Send {
        create(db, new)
    }

    fn check(changes: GroupChanges) -> Result<GroupChanges> {
        let settings = changes.settings.map(check_settings).transpose()?;
        Ok(GroupChanges {
            settings,
            ..changes
        })
    }

    fn apply(
        changes: GroupChanges,
        _: &groups::Model,
        row: &mut groups::ActiveModel,
    ) -> Result<()> {
        if let Some(name) = changes.name {
            row.name = Set(name);
        }
        if let Some(settings) = changes.settings {
            row.settings = Set(settings);
        }
        Ok(())
    }

    /// Only an empty group is deleted (its memberships go with it): sub-groups, tools and
    /// classes hold it (409 `group_not_empty`).
    fn hold(id: Uuid) -> Option<Hold> {
        Some(Hold {
            holders: vec![
                groups::Entity::find()
                    .filter(groups::Column::ParentId.eq(id))
                    .into_query(),
                tools::Entity::find()
                    .filter(tools::Column::GroupId.eq(id))
                    .into_query(),
                classes::Entity::find()
                    .filter(classes::Column::GroupId.eq(id))
                    .into_query(),
            ],
            conflict: group_not_empty,
        })
    }
}

impl Membership for group_members::Entity {
    type Parent = groups::Entity;
    type Role = MemberRole;
    const NOUN: &'static str = "group member";
    const ATTEMPTS: MemberAttempts = MemberAttempts {
        saving: "saving a group membership",
        reading: "reading a group membership",
        removing: "removing a group member",
        listing: "listing group members",
    };

    fn parent_column() -> group_members::Column {
        group_members::Column::GroupId
    }

    fn user_column() -> group_members::Column {
        group_members::Column::UserId
    }

    fn role_column() -> group_members::Column {
        group_members::Column::Role
    }

    fn user_of(member: &group_members::Model) -> Uuid {
        member.user_id
    }

    /// A new membership (its `created_at` is kept when the user is a member already:
    /// only the role changes).
    fn row(group_id: Uuid, user_id: Uuid, role: MemberRole) -> group_members::ActiveModel {
        group_members::ActiveModel {
            group_id: Set(group_id),
            user_id: Set(user_id),
            role: Set(role),
            created_at: Set(super::now()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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

    #[test]
    fn settings_must_be_objects() {
        assert_eq!(
            check_settings(json!({"model": "m"})).unwrap(),
            json!({"model": "m"})
        );
        for bad in [json!([1]), json!("x"), json!(3), json!(null), json!(true)] {
            assert!(matches!(
                check_settings(bad),
                Err(Error::Invalid {
                    code: "invalid_settings",
                    ..
                })
            ));
        }
    }
}
