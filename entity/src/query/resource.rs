//! The rows an administrator manages — users, groups, tools, classes, assignments — read,
//! paged, changed and deleted by one implementation, and the two membership tables
//! (group members, class enrolments) the same way.
//!
//! What is the same for all of them is written once here: a row is found by its UUIDv7
//! `id`, is missing as a 404 naming its kind, is listed newest first with the id as the
//! page key, is changed by reading it, applying the changes and stamping `updated_at`,
//! and is deleted by id. What truly differs is said by each entity in its
//! [`Resource`] impl, beside its own queries (`classes.rs`, `groups.rs`, …): the
//! changes it accepts and how they apply (checked before the row is read, and again
//! against the row as it stands), the list's filter, and what holds a row against its
//! deletion (checked first, because SQLite reports a `RESTRICT` violation in a way the
//! generic error classification does not recognise) and the conflict a held row answers.
//! Creating a row stays with each entity: what a new row needs has nothing in common
//! beyond [`parent`] and [`insert`].

use std::future::Future;

use sea_orm::{
    ActiveModelBehavior, ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait,
    IntoActiveModel, QueryFilter, QueryOrder, QuerySelect, Select, Value,
    sea_query::{OnConflict, SelectStatement},
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::error::{Context, Error, Result};

/// A kind of row an administrator manages (see the module note).
pub trait Resource:
    EntityTrait<ActiveModel: Send, Model: IntoActiveModel<Self::ActiveModel> + Sync>
{
    /// What a missing row is called in its 404 (`class`).
    const NOUN: &'static str;
    /// The noun with its article, for the context of errors (`a class`).
    const A: &'static str;
    /// The plural, for the context of errors (`classes`).
    const PLURAL: &'static str;
    /// What a new row needs.
    type New: Send;
    /// The fields an update may change.
    type Changes: Send;
    /// What a list may be narrowed to (`()`: nothing).
    type Filter: Send;

    fn id_column() -> Self::Column;
    fn updated_at_column() -> Self::Column;
    fn id_of(model: &Self::Model) -> Uuid;

    /// Creates a row: each entity's own `create`, which checks what a new row of its
    /// kind needs.
    fn create<C: ConnectionTrait>(
        db: &C,
        new: Self::New,
    ) -> impl Future<Output = Result<Self::Model>> + Send;

    /// Narrows a list to `filter`.
    fn narrow(query: Select<Self>, _filter: Self::Filter) -> Select<Self> {
        query
    }

    /// Checks what the changes say on their own, before the row is read (so an invalid
    /// change is 422 whether or not the row exists).
    fn check(changes: Self::Changes) -> Result<Self::Changes> {
        Ok(changes)
    }

    /// Writes the changes onto `row`, read as `current`; refuses changes that do not hold
    /// against it.
    fn apply(
        changes: Self::Changes,
        current: &Self::Model,
        row: &mut Self::ActiveModel,
    ) -> Result<()>;

    /// What holds the row `id` against its deletion; `None`: nothing but the database's
    /// own constraints, whose conflict is answered as it is.
    fn hold(_id: Uuid) -> Option<Hold> {
        None
    }
}

/// What holds a row against its deletion.
pub struct Hold {
    /// Queries for rows that hold it: while one finds a row, the delete is refused.
    pub holders: Vec<SelectStatement>,
    /// The conflict a held row answers, also when the database refuses the delete
    /// because a holder appeared in between.
    pub conflict: fn() -> Error,
}

pub async fn find<R: Resource, C: ConnectionTrait>(db: &C, id: Uuid) -> Result<Option<R::Model>> {
    R::find()
        .filter(R::id_column().eq(id))
        .one(db)
        .await
        .context(&format!("reading {}", R::A))
}

/// The row, or 404 naming its kind.
pub async fn get<R: Resource, C: ConnectionTrait>(db: &C, id: Uuid) -> Result<R::Model> {
    find::<R, C>(db, id).await?.ok_or(Error::not_found(R::NOUN))
}

/// Rows newest first (ids are UUIDv7), narrowed by `filter`.
pub async fn list<R: Resource, C: ConnectionTrait>(
    db: &C,
    filter: R::Filter,
    page: PageRequest<Uuid>,
) -> Result<Page<R::Model, Uuid>> {
    let mut query = R::narrow(R::find(), filter).order_by_desc(R::id_column());
    if let Some(after) = page.after {
        query = query.filter(R::id_column().lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context(&format!("listing {}", R::PLURAL))?;
    Ok(Page::from_overfetch(rows, page.limit, R::id_of))
}

/// Applies the changes (see [`Resource::check`] and [`Resource::apply`]) and stamps
/// `updated_at`.
pub async fn update<R: Resource, C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    changes: R::Changes,
) -> Result<R::Model> {
    let changes = R::check(changes)?;
    let current = get::<R, C>(db, id).await?;
    let mut row = current.clone().into_active_model();
    R::apply(changes, &current, &mut row)?;
    row.set(R::updated_at_column(), Value::from(super::now()));
    row.update(db).await.context(&format!("updating {}", R::A))
}

/// Deletes the row: 404 when there is none, the [hold](Resource::hold)'s conflict while
/// a holder exists (or appears while deleting).
pub async fn delete<R: Resource, C: ConnectionTrait>(db: &C, id: Uuid) -> Result<()> {
    let hold = R::hold(id);
    if let Some(hold) = &hold {
        for holder in &hold.holders {
            let mut holder = holder.clone();
            holder.limit(1);
            let found = db.query_one(&holder).await;
            if found
                .context(&format!("checking whether {} is in use", R::A))?
                .is_some()
            {
                return Err((hold.conflict)());
            }
        }
    }
    let deleted = R::delete_many()
        .filter(R::id_column().eq(id))
        .exec(db)
        .await
        .context(&format!("deleting {}", R::A));
    match (deleted, hold) {
        (Ok(res), _) if res.rows_affected == 0 => Err(Error::not_found(R::NOUN)),
        (Ok(_), _) => Ok(()),
        (Err(Error::Conflict { .. }), Some(hold)) => Err((hold.conflict)()),
        (Err(other), _) => Err(other),
    }
}

/// The parent a new row names, or `missing()` (a 422: the parent is part of the body).
pub async fn parent<P: Resource, C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    missing: fn() -> Error,
) -> Result<P::Model> {
    find::<P, C>(db, id).await?.ok_or_else(missing)
}

/// Inserts a new row; a conflict (its parent deleted in between, a unique value taken)
/// answers `conflict()`.
pub async fn insert<A, C>(
    db: &C,
    row: A,
    attempt: &str,
    conflict: fn() -> Error,
) -> Result<<A::Entity as EntityTrait>::Model>
where
    A: ActiveModelBehavior + Send,
    <A::Entity as EntityTrait>::Model: IntoActiveModel<A>,
    C: ConnectionTrait,
{
    row.insert(db)
        .await
        .context(attempt)
        .map_err(|err| match err {
            Error::Conflict { .. } => conflict(),
            other => other,
        })
}

/// What the errors of a membership table's queries say they were doing.
pub struct MemberAttempts {
    pub saving: &'static str,
    pub reading: &'static str,
    pub removing: &'static str,
    pub listing: &'static str,
}

/// A table of (parent, user, role) rows: a user's membership of a group, a user's
/// enrolment in a class. Unique per (parent, user); listed by user id, newest users
/// first.
pub trait Membership:
    EntityTrait<ActiveModel: Send, Model: IntoActiveModel<Self::ActiveModel> + Sync>
{
    /// What the rows belong to.
    type Parent: Resource;
    /// What a member is (`MemberRole`, `EnrollmentRole`).
    type Role: Send;
    /// What a missing row is called in its 404 (`group member`).
    const NOUN: &'static str;
    const ATTEMPTS: MemberAttempts;

    fn parent_column() -> Self::Column;
    fn user_column() -> Self::Column;
    fn role_column() -> Self::Column;
    fn user_of(model: &Self::Model) -> Uuid;
    /// A new row.
    fn row(parent_id: Uuid, user_id: Uuid, role: Self::Role) -> Self::ActiveModel;
}

/// Makes the user a member of the parent with this role, or changes their role (the
/// first row's id and `created_at` are kept). 404 when the parent or the user does not
/// exist.
pub async fn put_member<M: Membership, C: ConnectionTrait>(
    db: &C,
    parent_id: Uuid,
    user_id: Uuid,
    role: M::Role,
) -> Result<M::Model> {
    get::<M::Parent, C>(db, parent_id).await?;
    get::<crate::users::Entity, C>(db, user_id).await?;
    M::insert(M::row(parent_id, user_id, role))
        .on_conflict(
            OnConflict::columns([M::parent_column(), M::user_column()])
                .update_column(M::role_column())
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context(M::ATTEMPTS.saving)?;
    M::find()
        .filter(M::parent_column().eq(parent_id))
        .filter(M::user_column().eq(user_id))
        .one(db)
        .await
        .context(M::ATTEMPTS.reading)?
        .ok_or(Error::not_found(M::NOUN))
}

/// Removes the user from the parent; 404 when they are not a member.
pub async fn remove_member<M: Membership, C: ConnectionTrait>(
    db: &C,
    parent_id: Uuid,
    user_id: Uuid,
) -> Result<()> {
    let res = M::delete_many()
        .filter(M::parent_column().eq(parent_id))
        .filter(M::user_column().eq(user_id))
        .exec(db)
        .await
        .context(M::ATTEMPTS.removing)?;
    if res.rows_affected == 0 {
        return Err(Error::not_found(M::NOUN));
    }
    Ok(())
}

/// The parent's members by user id, newest users first (404 when the parent is missing).
pub async fn list_members<M: Membership, C: ConnectionTrait>(
    db: &C,
    parent_id: Uuid,
    page: PageRequest<Uuid>,
) -> Result<Page<M::Model, Uuid>> {
    get::<M::Parent, C>(db, parent_id).await?;
    let mut query = M::find()
        .filter(M::parent_column().eq(parent_id))
        .order_by_desc(M::user_column());
    if let Some(after) = page.after {
        query = query.filter(M::user_column().lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context(M::ATTEMPTS.listing)?;
    Ok(Page::from_overfetch(rows, page.limit, M::user_of))
}

#[cfg(test)]
mod tests;
