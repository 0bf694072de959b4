//! Users: create, read, page through, update, delete.

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::{
    enums::UserRole,
    error::{Context, Error, Result},
    users,
};

/// The user's extra permissions (a JSON list of strings; anything else counts as none).
pub fn permissions_of(user: &users::Model) -> Vec<String> {
    user.permissions
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

pub struct NewUser {
    pub email: String,
    pub name: String,
    pub role: UserRole,
    pub permissions: Vec<String>,
}

pub async fn create<C: ConnectionTrait>(db: &C, new: NewUser) -> Result<users::Model> {
    let now = super::now();
    users::ActiveModel {
        id: Set(Uuid::now_v7()),
        email: Set(new.email.trim().to_lowercase()),
        name: Set(new.name),
        role: Set(new.role),
        permissions: Set(serde_json::json!(new.permissions)),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await
    .context("creating a user")
    .map_err(|err| match err {
        Error::Conflict { .. } => {
            Error::conflict("email_taken", "a user with this email already exists")
        }
        other => other,
    })
}

pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<users::Model> {
    users::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a user")?
        .ok_or(Error::not_found("user"))
}

pub async fn find_by_email<C: ConnectionTrait>(
    db: &C,
    email: &str,
) -> Result<Option<users::Model>> {
    users::Entity::find()
        .filter(users::Column::Email.eq(email.trim().to_lowercase()))
        .one(db)
        .await
        .context("looking up a user by email")
}

pub async fn count<C: ConnectionTrait>(db: &C) -> Result<u64> {
    users::Entity::find()
        .count(db)
        .await
        .context("counting users")
}

/// Users, newest first.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    page: PageRequest<Uuid>,
) -> Result<Page<users::Model, Uuid>> {
    let mut query = users::Entity::find().order_by_desc(users::Column::Id);
    if let Some(after) = page.after {
        query = query.filter(users::Column::Id.lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing users")?;
    Ok(Page::from_overfetch(rows, page.limit, |u| u.id))
}

/// Fields an update may change; `None` leaves a field as it is.
#[derive(Default)]
pub struct UserChanges {
    pub name: Option<String>,
    pub role: Option<UserRole>,
    pub permissions: Option<Vec<String>>,
}

pub async fn update<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    changes: UserChanges,
) -> Result<users::Model> {
    let mut user: users::ActiveModel = get(db, id).await?.into();
    if let Some(name) = changes.name {
        user.name = Set(name);
    }
    if let Some(role) = changes.role {
        user.role = Set(role);
    }
    if let Some(permissions) = changes.permissions {
        user.permissions = Set(serde_json::json!(permissions));
    }
    user.updated_at = Set(super::now());
    user.update(db).await.context("updating a user")
}

/// Deletes a user with their tokens and memberships. A user who has sessions is kept
/// (their conversations are records): that answers a conflict.
pub async fn delete<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<()> {
    let result = users::Entity::delete_by_id(id)
        .exec(db)
        .await
        .context("deleting a user");
    match result {
        Ok(res) if res.rows_affected == 0 => Err(Error::not_found("user")),
        Ok(_) => Ok(()),
        Err(Error::Conflict { .. }) => Err(Error::conflict(
            "user_has_sessions",
            "the user has sessions or other records that must be kept; revoke their tokens instead",
        )),
        Err(other) => Err(other),
    }
}
