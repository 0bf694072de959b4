//! `/v1/admin/groups`: the organisation tree and its members.
//!
//! A group's place in the tree is fixed at creation (no re-parenting), so its
//! materialized `path` never changes. Members are listed by user id, newest users first.

use chrono::{DateTime, Utc};
use parley_entity::{
    group_members, groups,
    query::{
        groups as q,
        resource::names::{Names, UserName},
    },
};
use parley_protocol::config::ConfigOverrides;
use parley_protocol::error::Result;
use poem_openapi::Object;
use uuid::Uuid;

use super::resource::{FromRow, IntoChanges, IntoNew, admin_api};
use crate::{routes::views::MemberRole, state::AppState, types::Text};

/// A group of the organisation tree (a school, a department, …).
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Group {
    pub id: Uuid,
    /// Absent for a root group.
    pub parent_id: Option<Uuid>,
    /// The parent's name (absent for a root group; otherwise absent only when it was deleted while the answer was read).
    pub parent_name: Option<String>,
    pub name: String,
    /// The ids from the root down to this group: `/<root>/…/<id>/`.
    pub path: String,
    /// Options over the definitions of the group's tools and those of its sub-groups,
    /// merged down the tree into the config of sessions.
    pub settings: ConfigOverrides,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl FromRow<groups::Model, Names> for Group {
    fn from_row(g: groups::Model, groups: &Names) -> Self {
        Self {
            id: g.id,
            parent_id: g.parent_id,
            parent_name: groups.of(g.parent_id),
            name: g.name,
            path: g.path,
            settings: g.settings,
            created_at: g.created_at,
            updated_at: g.updated_at,
        }
    }
}

/// A new group.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateGroup {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Text,
    /// The parent group; absent for a root group.
    pub parent_id: Option<Uuid>,
    /// Options over the definitions of the tools under the group (default: none).
    pub settings: Option<ConfigOverrides>,
}

/// Changes to a group; absent fields stay as they are. The parent cannot change.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateGroup {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Option<Text>,
    /// Replaces the settings as a whole.
    pub settings: Option<ConfigOverrides>,
}

/// A user's membership of a group.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Membership {
    pub group_id: Uuid,
    pub user_id: Uuid,
    /// The user's name (absent only when it was deleted while the answer was read).
    pub user_name: Option<String>,
    /// The user's email (absent with `user_name`).
    pub user_email: Option<String>,
    pub role: MemberRole,
    /// When the user first joined the group.
    pub created_at: DateTime<Utc>,
}

impl FromRow<group_members::Model, Names<UserName>> for Membership {
    fn from_row(m: group_members::Model, users: &Names<UserName>) -> Self {
        let user = users.get(m.user_id);
        Self {
            group_id: m.group_id,
            user_id: m.user_id,
            user_name: user.as_ref().map(|u| u.name.clone()),
            user_email: user.map(|u| u.email),
            role: m.role.into(),
            created_at: m.created_at,
        }
    }
}

/// The role to give a member.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct PutMember {
    pub role: MemberRole,
}

impl IntoNew<groups::Entity> for CreateGroup {
    fn into_new(self, _: &AppState) -> Result<q::NewGroup> {
        Ok(q::NewGroup {
            name: self.name.into(),
            parent_id: self.parent_id,
            settings: self.settings,
        })
    }
}

impl IntoChanges<groups::Entity> for UpdateGroup {
    fn into_changes(self, _: &AppState) -> Result<q::GroupChanges> {
        Ok(q::GroupChanges {
            name: self.name.map(Into::into),
            settings: self.settings,
        })
    }
}

admin_api! {
    GroupsAdminApi for Group(groups::Entity) at "/v1/admin/groups";
    /// Create a group
    ///
    /// A root group when `parent_id` is absent; 422 `parent_not_found` when the parent
    /// does not exist.
    create "/groups" "admin_create_group" CreateGroup
        => CreatedGroup "The group was created.";
    /// List groups
    ///
    /// Newest first.
    list "/groups" "admin_list_groups";
    /// Get a group
    get "/groups/:id" "admin_get_group";
    /// Update a group
    ///
    /// Renames the group or replaces its settings; a group never moves in the tree.
    update "/groups/:id" "admin_update_group" UpdateGroup;
    /// Delete a group
    ///
    /// Removes an empty group with its memberships; 409 `group_not_empty` while it has
    /// sub-groups, tools or classes.
    delete "/groups/:id" "admin_delete_group";
    members Membership(group_members::Entity), PutMember;
    /// Add or update a group member
    ///
    /// Idempotent: makes the user a member with this role, or changes their role.
    /// 404 when the group or the user does not exist.
    put "/groups/:id/members/:user_id" "admin_put_group_member";
    /// Remove a group member
    ///
    /// 404 when the user is not a member of the group.
    remove "/groups/:id/members/:user_id" "admin_remove_group_member";
    /// List a group's members
    ///
    /// Direct members only (not those of sub-groups), by user id, newest users first.
    list "/groups/:id/members" "admin_list_group_members";
}
