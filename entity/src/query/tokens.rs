//! API tokens: authenticate a token hash, mint and revoke.

use chrono::Duration;
use parley_protocol::error::{Error, Result};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Set,
    prelude::DateTimeUtc,
};
use uuid::Uuid;

use crate::{api_tokens, error::Context, users};

/// How stale `last_used_at` may get before a use rewrites it.
const LAST_USED_RESOLUTION: Duration = Duration::seconds(60);

/// The user a valid token belongs to.
#[derive(Debug, Clone)]
pub struct TokenOwner {
    pub token_id: Uuid,
    pub user: users::Model,
    /// When the token expires (`None`: never).
    pub expires_at: Option<DateTimeUtc>,
}

impl TokenOwner {
    /// What the user may do: their role's defaults plus their grants, minus their
    /// revocations ([`effective_permissions`](super::users::effective_permissions)).
    pub fn permissions(&self) -> Vec<String> {
        super::users::effective_permissions(&self.user)
    }
}

/// Finds the live token with this hash and its user, and records the use.
/// Revoked and expired tokens, and the tokens of a disabled user, authenticate nobody.
pub async fn authenticate<C: ConnectionTrait>(
    db: &C,
    token_hash: &str,
    now: DateTimeUtc,
) -> Result<Option<TokenOwner>> {
    let found = api_tokens::Entity::find()
        .filter(api_tokens::Column::TokenHash.eq(token_hash))
        .find_also_related(users::Entity)
        .one(db)
        .await
        .context("looking up a bearer token")?;
    let Some((token, Some(user))) = found else {
        return Ok(None);
    };
    if token.revoked_at.is_some()
        || token.expires_at.is_some_and(|at| at <= now)
        || user.disabled_at.is_some()
    {
        return Ok(None);
    }
    if token
        .last_used_at
        .is_none_or(|at| now - at >= LAST_USED_RESOLUTION)
    {
        api_tokens::Entity::update_many()
            .col_expr(
                api_tokens::Column::LastUsedAt,
                sea_orm::sea_query::Expr::value(now),
            )
            .filter(api_tokens::Column::Id.eq(token.id))
            .exec(db)
            .await
            .context("recording a token's last use")?;
    }
    Ok(Some(TokenOwner {
        token_id: token.id,
        user,
        expires_at: token.expires_at,
    }))
}

/// What is needed to store a new token (the secret itself is never passed here).
pub struct NewTokenRow {
    pub user_id: Uuid,
    pub name: String,
    pub token_hash: String,
    pub prefix: String,
    pub expires_at: Option<DateTimeUtc>,
}

pub async fn insert<C: ConnectionTrait>(db: &C, row: NewTokenRow) -> Result<api_tokens::Model> {
    api_tokens::ActiveModel {
        id: Set(Uuid::now_v7()),
        user_id: Set(row.user_id),
        name: Set(row.name),
        token_hash: Set(row.token_hash),
        prefix: Set(row.prefix),
        created_at: Set(super::now()),
        last_used_at: Set(None),
        expires_at: Set(row.expires_at),
        revoked_at: Set(None),
    }
    .insert(db)
    .await
    .context("storing a new token")
}

/// A user's tokens, newest first (revoked ones included, marked as such).
pub async fn list_for_user<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
) -> Result<Vec<api_tokens::Model>> {
    api_tokens::Entity::find()
        .filter(api_tokens::Column::UserId.eq(user_id))
        .order_by_desc(api_tokens::Column::Id)
        .all(db)
        .await
        .context("listing tokens")
}

/// Every token with its user's email, newest first; only `email`'s when given.
pub async fn list_with_owners<C: ConnectionTrait>(
    db: &C,
    email: Option<&str>,
) -> Result<Vec<(api_tokens::Model, String)>> {
    let mut query = api_tokens::Entity::find()
        .find_also_related(users::Entity)
        .order_by_desc(api_tokens::Column::Id);
    if let Some(email) = email {
        query = query.filter(users::Column::Email.eq(email));
    }
    let rows = query.all(db).await.context("listing tokens")?;
    Ok(rows
        .into_iter()
        .map(|(token, user)| (token, user.map(|u| u.email).unwrap_or_default()))
        .collect())
}

/// The tokens whose displayed prefix is `prefix` (prefixes are not unique: a caller
/// tells the matches apart).
pub async fn find_by_prefix<C: ConnectionTrait>(
    db: &C,
    prefix: &str,
) -> Result<Vec<api_tokens::Model>> {
    api_tokens::Entity::find()
        .filter(api_tokens::Column::Prefix.eq(prefix))
        .all(db)
        .await
        .context("finding a token by its prefix")
}

pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<api_tokens::Model> {
    api_tokens::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a token")?
        .ok_or(Error::not_found("token"))
}

/// Revokes a token; revoking twice keeps the first time.
pub async fn revoke<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<api_tokens::Model> {
    let token = get(db, id).await?;
    if token.revoked_at.is_some() {
        return Ok(token);
    }
    let mut active: api_tokens::ActiveModel = token.into();
    active.revoked_at = Set(Some(super::now()));
    active.update(db).await.context("revoking a token")
}

/// What was revoked or disabled at or after `since`: the ids of revoked tokens and of
/// disabled users, and the latest time seen (the next poll's `since`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Revoked {
    pub tokens: Vec<Uuid>,
    pub users: Vec<Uuid>,
    pub latest: Option<DateTimeUtc>,
}

/// The tokens revoked and the users disabled at or after `since` (two indexed reads).
pub async fn revoked_since<C: ConnectionTrait>(db: &C, since: DateTimeUtc) -> Result<Revoked> {
    let tokens = api_tokens::Entity::find()
        .filter(api_tokens::Column::RevokedAt.gte(since))
        .all(db)
        .await
        .context("reading revoked tokens")?;
    let users = users::Entity::find()
        .filter(users::Column::DisabledAt.gte(since))
        .all(db)
        .await
        .context("reading disabled users")?;
    let latest = tokens
        .iter()
        .filter_map(|t| t.revoked_at)
        .chain(users.iter().filter_map(|u| u.disabled_at))
        .max();
    Ok(Revoked {
        tokens: tokens.into_iter().map(|t| t.id).collect(),
        users: users.into_iter().map(|u| u.id).collect(),
        latest,
    })
}
