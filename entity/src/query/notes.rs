//! Notes: the data behind the built-in `createNote` function, owned by one user and
//! optionally tied to the session that created them.

use parley_protocol::error::{Error, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
    sea_query::OnConflict,
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::{error::Context, notes};

/// A note to save for a user.
#[derive(Debug, Clone)]
pub struct NewNote {
    /// The row's id, and its key: a function call passes its `tool_calls` row id, so a
    /// call run again (a retried turn) finds the note it made instead of making a second.
    pub id: Uuid,
    pub user_id: Uuid,
    /// The session whose function call created it, if any.
    pub session_id: Option<Uuid>,
    pub title: String,
    pub content: String,
}

/// Saves a note, once per id: when a note with `new.id` exists, that one is returned
/// unchanged (and it must be the same user's: anything else is not found).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewNote) -> Result<notes::Model> {
    let now = super::now();
    let (id, user_id) = (new.id, new.user_id);
    let row = notes::ActiveModel {
        id: Set(new.id),
        user_id: Set(new.user_id),
        session_id: Set(new.session_id),
        title: Set(new.title),
        content: Set(new.content),
        created_at: Set(now),
        updated_at: Set(now),
    };
    notes::Entity::insert(row)
        .on_conflict(
            OnConflict::column(notes::Column::Id)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context("creating a note")?;
    notes::Entity::find_by_id(id)
        .filter(notes::Column::UserId.eq(user_id))
        .one(db)
        .await
        .context("reading a note")?
        .ok_or(Error::not_found("note"))
}

/// A user's notes, newest first (by id: UUID v7 ids sort by creation time).
pub async fn list_for_user<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    page: PageRequest<Uuid>,
) -> Result<Page<notes::Model, Uuid>> {
    let mut query = notes::Entity::find()
        .filter(notes::Column::UserId.eq(user_id))
        .order_by_desc(notes::Column::Id);
    if let Some(after) = page.after {
        query = query.filter(notes::Column::Id.lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing notes")?;
    Ok(Page::from_overfetch(rows, page.limit, |n| n.id))
}
