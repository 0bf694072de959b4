//! Who a request acts for: the caller a bearer token resolves to ([`Caller`], with the
//! ownership check every handler uses), the credential a feed is opened with
//! ([`Credential`], what a revocation ends), and what the gate found a request to be
//! authenticated as ([`Authenticated`], kept in the request for the security schemes
//! of `crate::auth`). Plain data: of the HTTP edge it imports only the feed token's
//! grant (`crate::feed_token`, which imports nothing), and the security schemes, the
//! gate, the token cache, the revocations and the feeds build on it.

use parley_entity::{enums::UserRole, query::tokens::TokenOwner};
use parley_protocol::error::{Error, Result};
use uuid::Uuid;

use crate::feed_token::FeedGrant;

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

    /// The credential feeds opened by this caller watch (`crate::revocations`).
    pub fn credential(&self) -> Credential {
        Credential {
            user_id: self.user_id,
            token_id: self.token_id,
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

/// The credential a feed was opened with: its owner and (unless it is unknown) the API
/// token that authenticated it or minted its feed token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Credential {
    pub user_id: Uuid,
    pub token_id: Uuid,
}

/// Who a request authenticated as, kept in its extensions for the handler.
#[derive(Debug, Clone)]
pub enum Authenticated {
    Bearer(Caller),
    FeedToken(FeedGrant),
}
