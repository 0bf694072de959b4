//! Groups: the organisation tree (create, read, page, rename, delete) and its members.
//!
//! A group's `path` is fixed when it is created (`/<root>/…/<id>/`, see
//! [`access::path_ids`](super::access::path_ids)); groups are never re-parented, so paths
//! never need rewriting. A group is deleted only when empty: sub-groups, tools and
//! classes hold it (foreign keys `RESTRICT`), memberships go with it (`CASCADE`).

use parley_protocol::config::ConfigOverrides;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, SelectExt, Set, sea_query::OnConflict,
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::{
    classes,
    enums::MemberRole,
    error::{Context, Error, Result},
    group_members, groups, tools,
};

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
    Error::invalid("parent_not_found", "the parent group does not exist")
}

/// Creates a group under its parent (422 `parent_not_found` when there is no such parent).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewGroup) -> Result<groups::Model> {
    let settings = new.settings.unwrap_or_default();
    let parent_path = match new.parent_id {
        Some(parent_id) => Some(
            find(db, parent_id)
                .await?
                .ok_or_else(parent_not_found)?
                .path,
        ),
        None => None,
    };
    let id = Uuid::now_v7();
    let now = super::now();
    groups::ActiveModel {
        id: Set(id),
        parent_id: Set(new.parent_id),
        name: Set(new.name),
        path: Set(path_for(parent_path.as_deref(), id)),
        settings: Set(settings),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await
    .context("creating a group")
    .map_err(|err| match err {
        // The parent was deleted in between.
        Error::Conflict { .. } => parent_not_found(),
        other => other,
    })
}

pub async fn find<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<Option<groups::Model>> {
    groups::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a group")
}

pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<groups::Model> {
    find(db, id).await?.ok_or(Error::not_found("group"))
}

/// Groups, newest first.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    page: PageRequest<Uuid>,
) -> Result<Page<groups::Model, Uuid>> {
    let mut query = groups::Entity::find().order_by_desc(groups::Column::Id);
    if let Some(after) = page.after {
        query = query.filter(groups::Column::Id.lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing groups")?;
    Ok(Page::from_overfetch(rows, page.limit, |g| g.id))
}

/// Fields an update may change; `None` leaves a field as it is. Settings are replaced
/// as a whole, not merged.
#[derive(Default)]
pub struct GroupChanges {
    pub name: Option<String>,
    pub settings: Option<ConfigOverrides>,
}

pub async fn update<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    changes: GroupChanges,
) -> Result<groups::Model> {
    let settings = changes.settings;
    let mut group: groups::ActiveModel = get(db, id).await?.into();
    if let Some(name) = changes.name {
        group.name = Set(name);
    }
    if let Some(settings) = settings {
        group.settings = Set(settings);
    }
    group.updated_at = Set(super::now());
    group.update(db).await.context("updating a group")
}

fn group_not_empty() -> Error {
    Error::conflict(
        "group_not_empty",
        "the group still has sub-groups, tools or classes; delete those first",
    )
}

/// Deletes an empty group with its memberships; 409 `group_not_empty` while sub-groups,
/// tools or classes remain. Checked before deleting: SQLite reports a `RESTRICT`
/// violation in a way the generic classification does not recognise.
pub async fn delete<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<()> {
    let attempt = "checking whether a group is empty";
    let children = groups::Entity::find().filter(groups::Column::ParentId.eq(id));
    let tools = tools::Entity::find().filter(tools::Column::GroupId.eq(id));
    let classes = classes::Entity::find().filter(classes::Column::GroupId.eq(id));
    if children.exists(db).await.context(attempt)?
        || tools.exists(db).await.context(attempt)?
        || classes.exists(db).await.context(attempt)?
    {
        return Err(group_not_empty());
    }
    match groups::Entity::delete_by_id(id)
        .exec(db)
        .await
        .context("deleting a group")
    {
        Ok(res) if res.rows_affected == 0 => Err(Error::not_found("group")),
        Ok(_) => Ok(()),
        // Something was added in between (PostgreSQL reports it as a conflict).
        Err(Error::Conflict { .. }) => Err(group_not_empty()),
        Err(other) => Err(other),
    }
}

/// Makes the user a member of the group with this role, or changes their role (the
/// first `created_at` is kept). 404 when the group or the user does not exist.
pub async fn put_member<C: ConnectionTrait>(
    db: &C,
    group_id: Uuid,
    user_id: Uuid,
    role: MemberRole,
) -> Result<group_members::Model> {
    use group_members::Column as M;
    get(db, group_id).await?;
    super::users::get(db, user_id).await?;
    let row = group_members::ActiveModel {
        group_id: Set(group_id),
        user_id: Set(user_id),
        role: Set(role),
        created_at: Set(super::now()),
    };
    group_members::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([M::GroupId, M::UserId])
                .update_column(M::Role)
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context("saving a group membership")?;
    group_members::Entity::find_by_id((group_id, user_id))
        .one(db)
        .await
        .context("reading a group membership")?
        .ok_or(Error::not_found("group member"))
}

/// Removes the user from the group; 404 when they are not a member.
pub async fn remove_member<C: ConnectionTrait>(
    db: &C,
    group_id: Uuid,
    user_id: Uuid,
) -> Result<()> {
    let res = group_members::Entity::delete_by_id((group_id, user_id))
        .exec(db)
        .await
        .context("removing a group member")?;
    if res.rows_affected == 0 {
        return Err(Error::not_found("group member"));
    }
    Ok(())
}

/// A group's members, by user id, newest users first (404 when the group is missing).
pub async fn list_members<C: ConnectionTrait>(
    db: &C,
    group_id: Uuid,
    page: PageRequest<Uuid>,
) -> Result<Page<group_members::Model, Uuid>> {
    use group_members::Column as M;
    get(db, group_id).await?;
    let mut query = group_members::Entity::find()
        .filter(M::GroupId.eq(group_id))
        .order_by_desc(M::UserId);
    if let Some(after) = page.after {
        query = query.filter(M::UserId.lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing group members")?;
    Ok(Page::from_overfetch(rows, page.limit, |m| m.user_id))
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
