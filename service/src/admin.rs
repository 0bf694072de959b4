//! The application layer of administration (`/v1/admin/…`): the resources an
//! administrator manages — users and their tokens, groups and their members, tools,
//! classes and their enrolments, assignments.
//!
//! Every resource is created, listed, read, changed and deleted by the same generic
//! functions, and every membership table put, removed and listed the same way; the SQL
//! under them is [`parley_entity::query::resource`], where each entity says what its
//! rows need. What is left to say here is policy: what the acting administrator may do
//! to a row beyond being an administrator ([`AdminResource`]) — none of it, today,
//! except about their own user and the token their request uses: an administrator
//! cannot lock themselves out.
//!
//! The api checks that the caller is an administrator (403 otherwise) and validates what
//! its wire types carry (a tool definition against the deployment's functions and
//! modules) before calling here.

use parley_entity::{
    api_tokens, assignments, classes,
    enums::UserRole,
    groups,
    query::{
        page::{Page, PageRequest},
        resource::{
            self, Membership, Resource,
            names::{Names, UserName},
        },
        tokens,
        users::UserChanges,
    },
    tools, users,
};
use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

/// The administrator a request acts for.
#[derive(Debug, Clone, Copy)]
pub struct Actor {
    pub user_id: Uuid,
    /// The token the request authenticated with.
    pub token_id: Uuid,
}

/// A resource administrators manage, with what the acting administrator may not do to
/// it (by default, nothing is refused).
pub trait AdminResource: Resource {
    /// Refuses changes `actor` may not make to row `id`.
    fn may_update(_actor: &Actor, _id: Uuid, _changes: &Self::Changes) -> Result<()> {
        Ok(())
    }

    /// Refuses the deletion of row `id` by `actor`.
    fn may_delete(_actor: &Actor, _id: Uuid) -> Result<()> {
        Ok(())
    }
}

impl AdminResource for groups::Entity {}
impl AdminResource for tools::Entity {}
impl AdminResource for classes::Entity {}
impl AdminResource for assignments::Entity {}

/// An administrator cannot demote, disable or delete themselves: the deployment would
/// lose the administrator acting on it.
impl AdminResource for users::Entity {
    fn may_update(actor: &Actor, id: Uuid, changes: &UserChanges) -> Result<()> {
        if actor.user_id != id {
            return Ok(());
        }
        if changes.role.is_some_and(|role| role != UserRole::Admin) {
            return Err(Error::conflict(
                ErrorCode::CannotDemoteSelf,
                "an administrator cannot remove their own admin role",
            ));
        }
        if changes.disabled == Some(true) {
            return Err(Error::conflict(
                ErrorCode::CannotDisableSelf,
                "an administrator cannot disable themselves",
            ));
        }
        Ok(())
    }

    fn may_delete(actor: &Actor, id: Uuid) -> Result<()> {
        if actor.user_id == id {
            return Err(Error::conflict(
                ErrorCode::CannotDeleteSelf,
                "an administrator cannot delete themselves",
            ));
        }
        Ok(())
    }
}

/// A new API token: the api mints the secret and hands over only its hash.
pub struct NewToken {
    pub name: String,
    /// The SHA-256 of the secret.
    pub hash: String,
    /// The first characters of the secret, to tell tokens apart.
    pub prefix: String,
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// The application layer of administration; cheap to clone.
#[derive(Clone)]
pub struct AdminService {
    db: DatabaseConnection,
}

impl AdminService {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    pub async fn create<R: AdminResource>(&self, new: R::New) -> Result<R::Model> {
        R::create(&self.db, new).await
    }

    /// A page of rows, newest first.
    pub async fn list<R: AdminResource>(
        &self,
        filter: R::Filter,
        page: PageRequest<Uuid>,
    ) -> Result<Page<R::Model, Uuid>> {
        resource::list::<R, _>(&self.db, filter, page).await
    }

    pub async fn get<R: AdminResource>(&self, id: Uuid) -> Result<R::Model> {
        resource::get::<R, _>(&self.db, id).await
    }

    pub async fn update<R: AdminResource>(
        &self,
        actor: &Actor,
        id: Uuid,
        changes: R::Changes,
    ) -> Result<R::Model> {
        R::may_update(actor, id, &changes)?;
        resource::update::<R, _>(&self.db, id, changes).await
    }

    pub async fn delete<R: AdminResource>(&self, actor: &Actor, id: Uuid) -> Result<()> {
        R::may_delete(actor, id)?;
        resource::delete::<R, _>(&self.db, id).await
    }

    /// The names of what `rows` refer to by id, read with one query per table they
    /// refer to (see [`Resource::refs`]).
    pub async fn refs<R: AdminResource>(&self, rows: &[R::Model]) -> Result<R::Refs> {
        R::refs(&self.db, rows).await
    }

    /// The names and emails of the users of membership rows, in one query.
    pub async fn member_names<M: Membership>(&self, rows: &[M::Model]) -> Result<Names<UserName>> {
        resource::member_names::<M, _>(&self.db, rows).await
    }

    /// Makes the user a member of the parent with this role, or changes their role.
    pub async fn put_member<M: Membership>(
        &self,
        parent_id: Uuid,
        user_id: Uuid,
        role: M::Role,
    ) -> Result<M::Model> {
        resource::put_member::<M, _>(&self.db, parent_id, user_id, role).await
    }

    pub async fn remove_member<M: Membership>(&self, parent_id: Uuid, user_id: Uuid) -> Result<()> {
        resource::remove_member::<M, _>(&self.db, parent_id, user_id).await
    }

    /// A page of the parent's members, by user id, newest users first.
    pub async fn list_members<M: Membership>(
        &self,
        parent_id: Uuid,
        page: PageRequest<Uuid>,
    ) -> Result<Page<M::Model, Uuid>> {
        resource::list_members::<M, _>(&self.db, parent_id, page).await
    }

    /// Stores a new token of user `user_id` (404 when there is no such user).
    pub async fn create_token(&self, user_id: Uuid, new: NewToken) -> Result<api_tokens::Model> {
        let user = self.get::<users::Entity>(user_id).await?;
        let row = tokens::NewTokenRow {
            user_id: user.id,
            name: new.name,
            token_hash: new.hash,
            prefix: new.prefix,
            expires_at: new.expires_at,
        };
        tokens::insert(&self.db, row).await
    }

    /// The user's tokens, newest first, revoked ones included (404 when there is no
    /// such user).
    pub async fn tokens(&self, user_id: Uuid) -> Result<Vec<api_tokens::Model>> {
        let user = self.get::<users::Entity>(user_id).await?;
        tokens::list_for_user(&self.db, user.id).await
    }

    pub async fn token(&self, id: Uuid) -> Result<api_tokens::Model> {
        tokens::get(&self.db, id).await
    }

    /// Revokes a token (again: harmless). The token the request itself uses is refused:
    /// 409 `token_in_use`.
    pub async fn revoke_token(&self, actor: &Actor, id: Uuid) -> Result<api_tokens::Model> {
        if actor.token_id == id {
            return Err(Error::conflict(
                ErrorCode::TokenInUse,
                "an administrator cannot revoke the token this request uses",
            ));
        }
        tokens::revoke(&self.db, id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(result: Result<()>) -> Option<&'static str> {
        match result {
            Ok(()) => None,
            Err(Error::Conflict { code, .. }) => Some(code.as_str()),
            Err(other) => panic!("not a conflict: {other:?}"),
        }
    }

    #[test]
    fn an_administrator_cannot_lock_themselves_out() {
        let me = Actor {
            user_id: Uuid::now_v7(),
            token_id: Uuid::now_v7(),
        };
        let other = Uuid::now_v7();
        let demote = UserChanges {
            role: Some(UserRole::Teacher),
            ..UserChanges::default()
        };
        let disable = UserChanges {
            disabled: Some(true),
            ..UserChanges::default()
        };
        let rename = UserChanges {
            name: Some("Me".into()),
            role: Some(UserRole::Admin),
            disabled: Some(false),
            ..UserChanges::default()
        };
        let update = |id, changes: &UserChanges| users::Entity::may_update(&me, id, changes);
        assert_eq!(
            code(update(me.user_id, &demote)),
            Some("cannot_demote_self")
        );
        assert_eq!(
            code(update(me.user_id, &disable)),
            Some("cannot_disable_self")
        );
        assert_eq!(code(update(me.user_id, &rename)), None);
        assert_eq!(code(update(other, &demote)), None);
        assert_eq!(code(update(other, &disable)), None);
        let delete = |id| users::Entity::may_delete(&me, id);
        assert_eq!(code(delete(me.user_id)), Some("cannot_delete_self"));
        assert_eq!(code(delete(other)), None);
        // Other resources refuse nothing.
        assert_eq!(code(groups::Entity::may_delete(&me, me.user_id)), None);
    }
}
