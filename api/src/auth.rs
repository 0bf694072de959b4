//! Bearer-token authentication and the access checks every handler uses.
//!
//! Tokens are opaque: `prl_` followed by 32 random bytes in base64url. Only the SHA-256
//! of a token is stored (a fast hash is enough for 256 bits of entropy); the token itself
//! is shown once when created and never logged. A token may be revoked or expire; each
//! use refreshes `last_used_at` (at most once a minute, to keep reads cheap).

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use parley_entity::{
    enums::UserRole,
    error::{Error, Result},
    query::tokens::{self, TokenOwner},
};
use poem::Request;
use poem_openapi::{SecurityScheme, auth::Bearer};
use rand::RngCore;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::{error::ErrorResponse, state::AppState};

const TOKEN_PREFIX: &str = "prl_";

/// A freshly minted token: the secret (shown once) and what is stored.
pub struct NewToken {
    pub secret: String,
    pub hash: String,
    pub display_prefix: String,
}

/// Mints a new random token.
pub fn mint_token() -> NewToken {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let secret = format!("{TOKEN_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes));
    from_secret(secret)
}

/// Wraps a secret chosen elsewhere (the bootstrap token of automation).
pub fn from_secret(secret: String) -> NewToken {
    NewToken {
        hash: hash_token(&secret),
        display_prefix: secret.chars().take(TOKEN_PREFIX.len() + 6).collect(),
        secret,
    }
}

/// The stored form of a token.
pub fn hash_token(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: Uuid,
    pub role: UserRole,
    pub permissions: Vec<String>,
    pub token_id: Uuid,
}

impl From<TokenOwner> for Caller {
    fn from(owner: TokenOwner) -> Self {
        Self {
            user_id: owner.user.id,
            role: owner.user.role,
            permissions: owner.permissions(),
            token_id: owner.token_id,
        }
    }
}

impl Caller {
    pub fn is_admin(&self) -> bool {
        self.role == UserRole::Admin
    }

    /// Admin routes answer 403 to everyone else.
    pub fn admin(&self) -> Result<Admin> {
        if self.is_admin() {
            Ok(Admin {
                user_id: self.user_id,
            })
        } else {
            Err(Error::forbidden("this route is for administrators"))
        }
    }

    /// The ownership check: another user's data answers exactly like missing data.
    pub fn owns(&self, owner_id: Uuid, what: &'static str) -> Result<()> {
        if owner_id == self.user_id {
            Ok(())
        } else {
            Err(Error::not_found(what))
        }
    }
}

/// Proof that the caller is an administrator; admin services take it as an argument.
#[derive(Debug, Clone, Copy)]
pub struct Admin {
    pub user_id: Uuid,
}

/// `Authorization: Bearer <token>` with an opaque Parley API token.
#[derive(SecurityScheme)]
#[oai(
    rename = "bearer",
    ty = "bearer",
    bearer_format = "opaque",
    checker = "check_bearer"
)]
pub struct BearerAuth(pub Caller);

async fn check_bearer(req: &Request, bearer: Bearer) -> poem::Result<Caller> {
    let Some(state) = req.data::<AppState>() else {
        let err = Error::internal("authenticating a request", "application state is missing");
        return Err(poem::Error::from_response(
            poem::IntoResponse::into_response(ErrorResponse::from(err)),
        ));
    };
    let hash = hash_token(&bearer.token);
    match tokens::authenticate(&state.db, &hash, chrono::Utc::now()).await {
        Ok(Some(owner)) => Ok(owner.into()),
        Ok(None) => Err(poem_openapi::error::AuthorizationError.into()),
        Err(err) => Err(poem::Error::from_response(
            poem::IntoResponse::into_response(ErrorResponse::from(err)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_tokens_are_unique_and_hash_stably() {
        let a = mint_token();
        let b = mint_token();
        assert_ne!(a.secret, b.secret);
        assert!(a.secret.starts_with(TOKEN_PREFIX));
        assert_eq!(a.secret.len(), TOKEN_PREFIX.len() + 43);
        assert_eq!(a.hash, hash_token(&a.secret));
        assert_ne!(a.hash, b.hash);
        assert!(!a.hash.contains(&a.secret));
        assert!(a.secret.starts_with(&a.display_prefix));
    }
}
