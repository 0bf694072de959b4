//! `/v1/admin/users` and their API tokens.

use chrono::{DateTime, Utc};
use parley_entity::{
    api_tokens,
    query::{tokens, users as q},
    users,
};
use parley_protocol::error::Result;
use parley_service::admin::NewToken;
use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json};
use uuid::Uuid;

use super::resource::{FromRow, IntoChanges, IntoNew, actor, admin_api};
use crate::{
    auth::{self, AdminAuth},
    error::{ApiResult, statuses},
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

/// A user refers to nothing named elsewhere.
impl FromRow<users::Model, ()> for User {
    fn from_row(u: users::Model, _: &()) -> Self {
        u.into()
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
pub enum CreatedTokenResponse {
    /// The token was created; its secret is in the body, once.
    #[oai(status = 201)]
    Created(Json<CreatedToken>),
}

impl IntoNew<users::Entity> for CreateUser {
    fn into_new(self, _: &AppState) -> Result<q::NewUser> {
        Ok(q::NewUser {
            email: self.email.into_inner(),
            name: self.name.into(),
            role: self.role.into(),
            permissions: texts(self.permissions),
        })
    }
}

impl IntoChanges<users::Entity> for UpdateUser {
    fn into_changes(self, _: &AppState) -> Result<q::UserChanges> {
        Ok(q::UserChanges {
            name: self.name.map(Into::into),
            role: self.role.map(Into::into),
            permissions: self.permissions.map(texts),
            disabled: self.disabled,
        })
    }
}

/// A changed user's tokens leave this process's cache (their role or permissions may
/// have changed), and a disabled user's open feeds on this process close now (the
/// others learn it from the database within seconds).
fn user_changed(state: &AppState, user: &users::Model) {
    state.token_cache.forget_user(user.id);
    if user.disabled_at.is_some() {
        let disabled = tokens::Revoked {
            users: vec![user.id],
            ..Default::default()
        };
        state.revocations.note(&disabled, chrono::Utc::now());
    }
}

admin_api! {
    UsersAdminApi for User(users::Entity) at "/v1/admin/users" then user_changed;
    /// Create a user
    create "/users" "admin_create_user" CreateUser
        => CreatedUser "The user was created.";
    /// List users
    ///
    /// Newest first; only those whose email or name contains `q` (ignoring case) when
    /// it is given.
    list "/users" "admin_list_users" filter
        /// A piece of an email or a name, matched ignoring case (`%` and `_` are
        /// literal); blank: every user.
        #[oai(validator(max_length = 200))]
        q: Option<String>;
    /// Get a user
    get "/users/:id" "admin_get_user";
    /// Update a user
    update "/users/:id" "admin_update_user" UpdateUser;
    /// Delete a user
    ///
    /// Removes the user with their tokens and memberships; 409 when they have sessions.
    delete "/users/:id" "admin_delete_user";
}

/// A user's API tokens.
pub struct TokensAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl TokensAdminApi {
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
        let minted = auth::mint_token();
        let new = NewToken {
            name: body.0.name.into(),
            hash: minted.hash,
            prefix: minted.display_prefix,
            expires_at: body.0.expires_at,
        };
        let token = state.admin().create_token(id.0, new).await?;
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
        let items = state.admin().tokens(id.0).await?;
        let items = items.into_iter().map(Token::from).collect();
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
        Ok(Json(state.admin().token(id.0).await?.into()))
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
        let token = state.admin().revoke_token(&actor(&auth.0), id.0).await?;
        let revoked = tokens::Revoked {
            tokens: vec![token.id],
            ..Default::default()
        };
        // The cache checks every hit against the revocations: noting it is enough.
        state.revocations.note(&revoked, chrono::Utc::now());
        Ok(Json(token.into()))
    }
}
