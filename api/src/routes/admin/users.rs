//! `/v1/admin/users` and their API tokens.

use chrono::{DateTime, Utc};
use parley_entity::{
    api_tokens,
    error::Error,
    query::{tokens, users as q},
    users,
};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::Deleted;
use crate::{
    auth::{self, AdminAuth},
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    routes::{ApiTags, views::UserRole},
    state::AppState,
    types::{Email, Text, texts},
};

/// A person who signs in.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct User {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub role: UserRole,
    /// Extra permissions on top of the role; an entry `-name` revokes `name` (e.g.
    /// `-todos:write:self` denies a default of the role).
    pub permissions: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// When the user was disabled (absent: enabled). A disabled user's tokens
    /// authenticate nobody and their open feeds close.
    pub disabled_at: Option<DateTime<Utc>>,
}

impl From<users::Model> for User {
    fn from(u: users::Model) -> Self {
        Self {
            permissions: q::permissions_of(&u),
            id: u.id,
            email: u.email,
            name: u.name,
            role: u.role.into(),
            created_at: u.created_at,
            updated_at: u.updated_at,
            disabled_at: u.disabled_at,
        }
    }
}

/// A new user.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateUser {
    /// Unique, case-insensitive.
    pub email: Email,
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Text,
    pub role: UserRole,
    /// Extra permissions on top of the role; an entry `-name` revokes `name`.
    #[oai(default)]
    pub permissions: Vec<Text>,
}

/// Changes to a user; absent fields stay as they are.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateUser {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Option<Text>,
    pub role: Option<UserRole>,
    /// Extra permissions on top of the role; an entry `-name` revokes `name`. Replaces
    /// the stored list as a whole.
    pub permissions: Option<Vec<Text>>,
    /// `true` disables the user: their tokens stop working at once and their open
    /// feeds close within seconds; `false` enables them again.
    pub disabled: Option<bool>,
}

/// An API token, without its secret.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Token {
    pub id: Uuid,
    pub user_id: Uuid,
    pub name: String,
    /// The first characters of the token, to tell tokens apart.
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

impl From<api_tokens::Model> for Token {
    fn from(t: api_tokens::Model) -> Self {
        Self {
            id: t.id,
            user_id: t.user_id,
            name: t.name,
            prefix: t.prefix,
            created_at: t.created_at,
            last_used_at: t.last_used_at,
            expires_at: t.expires_at,
            revoked_at: t.revoked_at,
        }
    }
}

/// A token just created: the only time its secret is shown.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct CreatedToken {
    pub token: Token,
    /// The bearer token. Store it now: it is not stored and cannot be shown again.
    pub secret: String,
}

/// A new token for a user.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateToken {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: Text,
    /// When the token stops working; absent: never.
    pub expires_at: Option<DateTime<Utc>>,
}

/// A user's tokens.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct TokenList {
    pub items: Vec<Token>,
}

#[derive(ApiResponse)]
pub enum CreatedUser {
    /// The user was created.
    #[oai(status = 201)]
    Created(Json<User>, #[oai(header = "Location")] String),
}

#[derive(ApiResponse)]
pub enum CreatedTokenResponse {
    /// The token was created; its secret is in the body, once.
    #[oai(status = 201)]
    Created(Json<CreatedToken>),
}

pub struct UsersAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl UsersAdminApi {
    /// Create a user
    #[oai(path = "/users", method = "post", operation_id = "admin_create_user")]
    async fn create_user(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        body: Json<CreateUser>,
    ) -> ApiResult<CreatedUser, statuses::AdminCreate> {
        let body = body.0;
        let new = q::NewUser {
            email: body.email.into_inner(),
            name: body.name.into(),
            role: body.role.into(),
            permissions: texts(body.permissions),
        };
        let user = q::create(&state.db, new).await?;
        let location = format!("/v1/admin/users/{}", user.id);
        Ok(CreatedUser::Created(Json(user.into()), location))
    }

    /// List users
    ///
    /// Newest first.
    #[oai(path = "/users", method = "get", operation_id = "admin_list_users")]
    async fn list_users(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<User>>, statuses::AdminList> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        Ok(Json(Page::from_rows(
            q::list(&state.db, page).await?,
            User::from,
        )))
    }

    /// Get a user
    #[oai(path = "/users/:id", method = "get", operation_id = "admin_get_user")]
    async fn get_user(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<User>, statuses::AdminRead> {
        Ok(Json(q::get(&state.db, id.0).await?.into()))
    }

    /// Update a user
    #[oai(
        path = "/users/:id",
        method = "patch",
        operation_id = "admin_update_user"
    )]
    async fn update_user(
        &self,
        auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<UpdateUser>,
    ) -> ApiResult<Json<User>, statuses::AdminWrite> {
        let admin = &auth.0;
        let body = body.0;
        if admin.user_id == id.0 && body.role.is_some_and(|r| r != UserRole::Admin) {
            return Err(Error::conflict(
                "cannot_demote_self",
                "an administrator cannot remove their own admin role",
            )
            .into());
        }
        if admin.user_id == id.0 && body.disabled == Some(true) {
            return Err(Error::conflict(
                "cannot_disable_self",
                "an administrator cannot disable themselves",
            )
            .into());
        }
        let changes = q::UserChanges {
            name: body.name.map(Into::into),
            role: body.role.map(Into::into),
            permissions: body.permissions.map(texts),
            disabled: body.disabled,
        };
        let user = q::update(&state.db, id.0, changes).await?;
        if user.disabled_at.is_some() {
            let disabled = tokens::Revoked {
                users: vec![user.id],
                ..Default::default()
            };
            state.revocations.note(&disabled, chrono::Utc::now());
        }
        Ok(Json(user.into()))
    }

    /// Delete a user
    ///
    /// Removes the user with their tokens and memberships; 409 when they have sessions.
    #[oai(
        path = "/users/:id",
        method = "delete",
        operation_id = "admin_delete_user"
    )]
    async fn delete_user(
        &self,
        auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Deleted, statuses::AdminDelete> {
        let admin = &auth.0;
        if admin.user_id == id.0 {
            return Err(Error::conflict(
                "cannot_delete_self",
                "an administrator cannot delete themselves",
            )
            .into());
        }
        q::delete(&state.db, id.0).await?;
        Ok(Deleted::NoContent)
    }

    /// Create a token for a user
    ///
    /// The secret is in the response and nowhere else; only its hash is stored.
    #[oai(
        path = "/users/:id/tokens",
        method = "post",
        operation_id = "admin_create_token"
    )]
    async fn create_token(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<CreateToken>,
    ) -> ApiResult<CreatedTokenResponse, statuses::AdminWrite> {
        let user = q::get(&state.db, id.0).await?;
        let minted = auth::mint_token();
        let row = tokens::NewTokenRow {
            user_id: user.id,
            name: body.0.name.into(),
            token_hash: minted.hash,
            prefix: minted.display_prefix,
            expires_at: body.0.expires_at,
        };
        let token = tokens::insert(&state.db, row).await?;
        Ok(CreatedTokenResponse::Created(Json(CreatedToken {
            token: token.into(),
            secret: minted.secret,
        })))
    }

    /// List a user's tokens
    ///
    /// Newest first; revoked tokens included.
    #[oai(
        path = "/users/:id/tokens",
        method = "get",
        operation_id = "admin_list_tokens"
    )]
    async fn list_tokens(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<TokenList>, statuses::AdminRead> {
        let user = q::get(&state.db, id.0).await?;
        let items = tokens::list_for_user(&state.db, user.id)
            .await?
            .into_iter()
            .map(Token::from)
            .collect();
        Ok(Json(TokenList { items }))
    }

    /// Get a token
    ///
    /// Its metadata; the secret is never shown again.
    #[oai(path = "/tokens/:id", method = "get", operation_id = "admin_get_token")]
    async fn get_token(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Token>, statuses::AdminRead> {
        Ok(Json(tokens::get(&state.db, id.0).await?.into()))
    }

    /// Revoke a token
    ///
    /// The token stops authenticating at once; the feed tokens minted with it stop
    /// opening feeds and the feeds it opened close, within seconds, on every api
    /// process. Revoking twice is harmless; revoking the token the request itself uses
    /// answers 409 `token_in_use`.
    #[oai(
        path = "/tokens/:id",
        method = "delete",
        operation_id = "admin_revoke_token"
    )]
    async fn revoke_token(
        &self,
        auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Token>, statuses::AdminDelete> {
        if auth.0.token_id == id.0 {
            return Err(Error::conflict(
                "token_in_use",
                "an administrator cannot revoke the token this request uses",
            )
            .into());
        }
        let token = tokens::revoke(&state.db, id.0).await?;
        let revoked = tokens::Revoked {
            tokens: vec![token.id],
            ..Default::default()
        };
        state.revocations.note(&revoked, chrono::Utc::now());
        Ok(Json(token.into()))
    }
}
