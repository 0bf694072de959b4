//! The rows an administrator manages — users, groups, tools, classes, assignments — read,
//! paged, changed and deleted by one implementation, and the two membership tables
//! (group members, class enrolments) the same way.
//!
//! What is the same for all of them is written once here: a row is inserted with a fresh
//! UUIDv7 `id` and its times, is found by its `id`, is missing as a 404 naming its kind,
//! is listed newest first with the id as the page key, is changed by reading it,
//! applying the changes and stamping `updated_at`, and is deleted by id. What truly
//! differs is said by each entity in its [`Resource`] impl, beside its own queries
//! (`classes.rs`, `groups.rs`, …): its names and types (one [`rows!`] line), how a new
//! row is built from what it needs (its `create`, over [`parent`] and [`insert`]), the
//! changes it accepts and how they apply (checked against the row as it stands; their
//! types are already the schema), the list's filter, and what holds a row against its
//! deletion (checked first, because SQLite reports a `RESTRICT` violation in a way the
//! generic error classification does not recognise) and the conflict a held row answers.

use std::future::Future;

use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{
    ActiveModelTrait, ActiveValue, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel,
    QueryFilter, QueryOrder, QuerySelect, Select, Value,
    sea_query::{Expr, OnConflict, Query, SelectStatement},
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::error::Context;

pub mod names;

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
    /// The names of the rows these rows refer to by id (a tool's group, …), shown beside
    /// the ids (`()`: none).
    type Refs: Send + Sync;

    /// Its key, a UUIDv7 (so the newest rows have the largest ids).
    fn id_column() -> Self::Column;
    fn created_at_column() -> Self::Column;
    fn updated_at_column() -> Self::Column;
    fn id_of(model: &Self::Model) -> Uuid;

    /// Creates a row: each entity's own `create`, which checks what a new row of its
    /// kind needs.
    fn create<C: ConnectionTrait>(
        db: &C,
        new: Self::New,
    ) -> impl Future<Output = Result<Self::Model>> + Send;

    /// The names of what `rows` refer to: one query per table they refer to
    /// ([`names::Named`]), whatever the number of rows.
    fn refs<C: ConnectionTrait>(
        db: &C,
        rows: &[Self::Model],
    ) -> impl Future<Output = Result<Self::Refs>> + Send;

    /// Narrows a list to `filter`.
    fn narrow(query: Select<Self>, _filter: Self::Filter) -> Select<Self> {
        query
    }

    /// Writes the changes onto `row`, the row as it stands (its fields `Unchanged`);
    /// refuses changes that do not hold against it.
    fn apply(changes: Self::Changes, row: &mut Self::ActiveModel) -> Result<()>;

    /// What holds the row `id` against its deletion; `None`: nothing but the database's
    /// own constraints, whose conflict is answered as it is.
    fn hold(_id: Uuid) -> Option<Hold> {
        None
    }
}

/// The hooks that name a column: `columns! { classes: id_column Id, … }`.
macro_rules! columns {
    ($rows:ident: $($hook:ident $column:ident),+) => {
        $(
            fn $hook() -> $rows::Column {
                $rows::Column::$column
            }
        )+
    };
}
pub(crate) use columns;

/// Writes what every admin row has into its [`Resource`] impl: the names
/// (`NOUN`, `A`, `PLURAL`), the types of its create, update and list (`New`, `Changes`,
/// `Filter`), its `id` key and its `created_at` and `updated_at` columns, and its
/// module's `create`:
/// `rows! { classes: "class" / "a class" / "classes", NewClass, ClassChanges, () }`.
macro_rules! rows {
    ($rows:ident: $noun:literal / $a:literal / $plural:literal, $new:ty, $changes:ty, $filter:ty) => {
        const NOUN: &'static str = $noun;
        const A: &'static str = $a;
        const PLURAL: &'static str = $plural;
        type New = $new;
        type Changes = $changes;
        type Filter = $filter;

        $crate::query::resource::columns! {
            $rows: id_column Id, created_at_column CreatedAt, updated_at_column UpdatedAt
        }

        fn id_of(row: &$rows::Model) -> uuid::Uuid {
            row.id
        }

        fn create<C: sea_orm::ConnectionTrait>(
            db: &C,
            new: $new,
        ) -> impl std::future::Future<Output = parley_protocol::error::Result<$rows::Model>> + Send
        {
            create(db, new)
        }
    };
}
pub(crate) use rows;

/// Sets a field of a row to the changed value, if there is one.
pub fn set<T: Into<Value>>(field: &mut ActiveValue<T>, change: Option<T>) {
    if let Some(value) = change {
        *field = ActiveValue::Set(value);
    }
}

/// What holds a row against its deletion.
pub struct Hold {
    /// Queries for rows that hold it: while one finds a row, the delete is refused.
    holders: Vec<SelectStatement>,
    /// The code and message of the conflict a held row answers, also when the database
    /// refuses the delete because a holder appeared in between.
    code: ErrorCode,
    message: &'static str,
}

impl Hold {
    pub fn new(code: ErrorCode, message: &'static str, holders: Vec<SelectStatement>) -> Self {
        Self {
            holders,
            code,
            message,
        }
    }

    fn conflict(&self) -> Error {
        Error::conflict(self.code, self.message)
    }
}

/// The rows whose `column` holds row `id` (`tools.group_id` holds a group).
pub fn held_by<C: ColumnTrait>(column: C, id: Uuid) -> SelectStatement {
    Query::select()
        .expr(Expr::val(1))
        .from(column.entity_name())
        .and_where(column.eq(id))
        .to_owned()
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
    let query = R::narrow(R::find(), filter);
    let key = Key {
        column: R::id_column(),
        of: R::id_of,
    };
    keyset(db, query, key, page, &format!("listing {}", R::PLURAL)).await
}

/// What a list is paged by: a UUIDv7 column of its rows, newest first.
struct Key<E: EntityTrait> {
    column: E::Column,
    of: fn(&E::Model) -> Uuid,
}

/// A page of `query` by its key, after the page's key.
async fn keyset<E: EntityTrait, C: ConnectionTrait>(
    db: &C,
    query: Select<E>,
    key: Key<E>,
    page: PageRequest<Uuid>,
    attempt: &str,
) -> Result<Page<E::Model, Uuid>> {
    let Key { column, of } = key;
    let mut query = query.order_by_desc(column);
    if let Some(after) = page.after {
        query = query.filter(column.lt(after));
    }
    let rows = query.limit(page.limit + 1).all(db).await.context(attempt)?;
    Ok(Page::from_overfetch(rows, page.limit, of))
}

/// Applies the changes (see [`Resource::apply`]) and stamps
/// `updated_at`.
pub async fn update<R: Resource, C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    changes: R::Changes,
) -> Result<R::Model> {
    let mut row = get::<R, C>(db, id).await?.into_active_model();
    R::apply(changes, &mut row)?;
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
                return Err(hold.conflict());
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
        (Err(Error::Conflict { .. }), Some(hold)) => Err(hold.conflict()),
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

/// Inserts a new row, with a fresh UUIDv7 `id` unless it has one and `created_at` and
/// `updated_at` now. A conflict (its parent deleted in between, a unique value taken)
/// answers `conflict()` when given.
pub async fn insert<R: Resource, C: ConnectionTrait>(
    db: &C,
    row: R::ActiveModel,
    conflict: Option<fn() -> Error>,
) -> Result<R::Model> {
    let mut row = row;
    if row.is_not_set(R::id_column()) {
        row.set(R::id_column(), Value::from(Uuid::now_v7()));
    }
    let now = Value::from(super::now());
    row.set(R::created_at_column(), now.clone());
    row.set(R::updated_at_column(), now);
    let inserted = row.insert(db).await.context(&format!("creating {}", R::A));
    match (inserted, conflict) {
        (Err(Error::Conflict { .. }), Some(conflict)) => Err(conflict()),
        (inserted, _) => inserted,
    }
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
    type Role: Into<Value> + Send;
    /// What a missing row is called in its 404 (`group member`).
    const NOUN: &'static str;
    /// One row with its article, for the context of errors (`a group membership`).
    const A: &'static str;
    /// The plural, for the context of errors (`group memberships`).
    const PLURAL: &'static str;

    fn parent_column() -> Self::Column;
    fn user_column() -> Self::Column;
    fn role_column() -> Self::Column;
    fn user_of(model: &Self::Model) -> Uuid;
    fn created_at_column() -> Self::Column;
    /// The table's own key, for one that has a UUIDv7 `id` besides (parent, user).
    fn id_column() -> Option<Self::Column>;
}

/// Writes a [`Membership`] impl's items: the names, the parent and its column, the
/// `user_id`, `role` and `created_at` columns, and the table's own key if it has one
/// (`, key Id`):
/// `members! { group_members: "group member" / "a group membership" / "group memberships",
/// groups::Entity => GroupId, MemberRole }`.
macro_rules! members {
    (
        $rows:ident: $noun:literal / $a:literal / $plural:literal,
        $parent:ty => $parent_column:ident, $role:ty $(, key $key:ident)?
    ) => {
        type Parent = $parent;
        type Role = $role;
        const NOUN: &'static str = $noun;
        const A: &'static str = $a;
        const PLURAL: &'static str = $plural;

        $crate::query::resource::columns! {
            $rows: parent_column $parent_column, user_column UserId, role_column Role,
            created_at_column CreatedAt
        }

        fn user_of(row: &$rows::Model) -> uuid::Uuid {
            row.user_id
        }

        fn id_column() -> Option<$rows::Column> {
            None$(.or(Some($rows::Column::$key)))?
        }
    };
}
pub(crate) use members;

/// Makes the user a member of the parent with this role, or changes their role (only the
/// role changes: the first row's id and `created_at` are kept). 404 when the parent or the user does not
/// exist.
pub async fn put_member<M: Membership, C: ConnectionTrait>(
    db: &C,
    parent_id: Uuid,
    user_id: Uuid,
    role: M::Role,
) -> Result<M::Model> {
    get::<M::Parent, C>(db, parent_id).await?;
    get::<crate::users::Entity, C>(db, user_id).await?;
    let mut row = <M::ActiveModel as ActiveModelTrait>::default();
    if let Some(id) = M::id_column() {
        row.set(id, Value::from(Uuid::now_v7()));
    }
    row.set(M::parent_column(), Value::from(parent_id));
    row.set(M::user_column(), Value::from(user_id));
    row.set(M::role_column(), role.into());
    row.set(M::created_at_column(), Value::from(super::now()));
    M::insert(row)
        .on_conflict(
            OnConflict::columns([M::parent_column(), M::user_column()])
                .update_column(M::role_column())
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context(&format!("saving {}", M::A))?;
    M::find()
        .filter(M::parent_column().eq(parent_id))
        .filter(M::user_column().eq(user_id))
        .one(db)
        .await
        .context(&format!("reading {}", M::A))?
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
        .context(&format!("removing {}", M::A))?;
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
    let query = M::find().filter(M::parent_column().eq(parent_id));
    let key = Key {
        column: M::user_column(),
        of: M::user_of,
    };
    keyset(db, query, key, page, &format!("listing {}", M::PLURAL)).await
}

/// The names of the users of membership rows (a group's members, a class's enrolments),
/// in one query.
pub async fn member_names<M: Membership, C: ConnectionTrait>(
    db: &C,
    rows: &[M::Model],
) -> Result<names::Names<names::UserName>> {
    use names::Named;
    crate::users::Entity::names(db, rows.iter().map(M::user_of)).await
}

#[cfg(test)]
mod tests;
