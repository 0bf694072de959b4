//! `/v1/admin/groups`: the organisation tree and its members.
//!
//! A group's place in the tree is fixed at creation (no re-parenting), so its
//! materialized `path` never changes. Members are listed by user id, newest users first.

use chrono::{DateTime, Utc};
use parley_entity::{group_members, groups, query::groups as q};
use parley_protocol::config::ConfigOverrides;
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::Deleted;
use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    routes::{ApiTags, views::MemberRole},
    state::AppState,
    types::Text,
};

/// A group of the organisation tree (a school, a department, …).
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Group {
    pub id: Uuid,
    /// Absent for a root group.
    pub parent_id: Option<Uuid>,
    pub name: String,
    /// The ids from the root down to this group: `/<root>/…/<id>/`.
    pub path: String,
    /// Options over the definitions of the group's tools and those of its sub-groups,
    /// merged down the tree into the config of sessions.
    pub settings: ConfigOverrides,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<groups::Model> for Group {
    fn from(g: groups::Model) -> Self {
        Self {
            id: g.id,
            parent_id: g.parent_id,
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
    pub role: MemberRole,
    /// When the user first joined the group.
    pub created_at: DateTime<Utc>,
}

impl From<group_members::Model> for Membership {
    fn from(m: group_members::Model) -> Self {
        Self {
            group_id: m.group_id,
            user_id: m.user_id,
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

#[derive(ApiResponse)]
pub enum CreatedGroup {
    /// The group was created.
    #[oai(status = 201)]
    Created(Json<Group>, #[oai(header = "Location")] String),
}

pub struct GroupsAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl GroupsAdminApi {
    /// Create a group
    ///
    /// A root group when `parent_id` is absent; 422 `parent_not_found` when the parent
    /// does not exist.
    #[oai(path = "/groups", method = "post", operation_id = "admin_create_group")]
    async fn create_group(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        body: Json<CreateGroup>,
    ) -> ApiResult<CreatedGroup, statuses::AdminCreate> {
        let body = body.0;
        let new = q::NewGroup {
            name: body.name.into(),
            parent_id: body.parent_id,
            settings: body.settings,
        };
        let group = q::create(&state.db, new).await?;
        let location = format!("/v1/admin/groups/{}", group.id);
        Ok(CreatedGroup::Created(Json(group.into()), location))
    }

    /// List groups
    ///
    /// Newest first.
    #[oai(path = "/groups", method = "get", operation_id = "admin_list_groups")]
    async fn list_groups(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Group>>, statuses::AdminList> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        Ok(Json(Page::from_rows(
            q::list(&state.db, page).await?,
            Group::from,
        )))
    }

    /// Get a group
    #[oai(path = "/groups/:id", method = "get", operation_id = "admin_get_group")]
    async fn get_group(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Group>, statuses::AdminRead> {
        Ok(Json(q::get(&state.db, id.0).await?.into()))
    }

    /// Update a group
    ///
    /// Renames the group or replaces its settings; a group never moves in the tree.
    #[oai(
        path = "/groups/:id",
        method = "patch",
        operation_id = "admin_update_group"
    )]
    async fn update_group(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<UpdateGroup>,
    ) -> ApiResult<Json<Group>, statuses::AdminWrite> {
        let changes = q::GroupChanges {
            name: body.0.name.map(Into::into),
            settings: body.0.settings,
        };
        Ok(Json(q::update(&state.db, id.0, changes).await?.into()))
    }

    /// Delete a group
    ///
    /// Removes an empty group with its memberships; 409 `group_not_empty` while it has
    /// sub-groups, tools or classes.
    #[oai(
        path = "/groups/:id",
        method = "delete",
        operation_id = "admin_delete_group"
    )]
    async fn delete_group(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Deleted, statuses::AdminDelete> {
        q::delete(&state.db, id.0).await?;
        Ok(Deleted::NoContent)
    }

    /// Add or update a group member
    ///
    /// Idempotent: makes the user a member with this role, or changes their role.
    /// 404 when the group or the user does not exist.
    #[oai(
        path = "/groups/:id/members/:user_id",
        method = "put",
        operation_id = "admin_put_group_member"
    )]
    async fn put_member(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        user_id: Path<Uuid>,
        body: Json<PutMember>,
    ) -> ApiResult<Json<Membership>, statuses::AdminWrite> {
        let member = q::put_member(&state.db, id.0, user_id.0, body.0.role.into()).await?;
        Ok(Json(member.into()))
    }

    /// Remove a group member
    ///
    /// 404 when the user is not a member of the group.
    #[oai(
        path = "/groups/:id/members/:user_id",
        method = "delete",
        operation_id = "admin_remove_group_member"
    )]
    async fn remove_member(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        user_id: Path<Uuid>,
    ) -> ApiResult<Deleted, statuses::AdminDelete> {
        q::remove_member(&state.db, id.0, user_id.0).await?;
        Ok(Deleted::NoContent)
    }

    /// List a group's members
    ///
    /// Direct members only (not those of sub-groups), by user id, newest users first.
    #[oai(
        path = "/groups/:id/members",
        method = "get",
        operation_id = "admin_list_group_members"
    )]
    async fn list_members(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Membership>>, statuses::AdminListOf> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        Ok(Json(Page::from_rows(
            q::list_members(&state.db, id.0, page).await?,
            Membership::from,
        )))
    }
}
