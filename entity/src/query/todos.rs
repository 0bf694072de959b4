//! Todos: the data behind the built-in `createTodo` function, owned by one user and
//! optionally tied to the session that created them.

use parley_protocol::error::{Error, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
    prelude::DateTimeUtc, sea_query::OnConflict,
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::{error::Context, todos};

/// A todo to save for a user.
#[derive(Debug, Clone)]
pub struct NewTodo {
    /// The row's id, and its key: a function call passes its `tool_calls` row id, so a
    /// call run again (a retried turn) finds the todo it made instead of making a second.
    pub id: Uuid,
    pub user_id: Uuid,
    /// The session whose function call created it, if any.
    pub session_id: Option<Uuid>,
    pub title: String,
    pub notes: Option<String>,
    pub due_at: Option<DateTimeUtc>,
}

/// Saves a todo, once per id: when a todo with `new.id` exists, that one is returned
/// unchanged (and it must be the same user's: anything else is not found).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewTodo) -> Result<todos::Model> {
    let now = super::now();
    let (id, user_id) = (new.id, new.user_id);
    let row = todos::ActiveModel {
        id: Set(new.id),
        user_id: Set(new.user_id),
        session_id: Set(new.session_id),
        title: Set(new.title),
        notes: Set(new.notes),
        due_at: Set(new.due_at),
        completed_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    };
    todos::Entity::insert(row)
        .on_conflict(
            OnConflict::column(todos::Column::Id)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context("creating a todo")?;
    todos::Entity::find_by_id(id)
        .filter(todos::Column::UserId.eq(user_id))
        .one(db)
        .await
        .context("reading a todo")?
        .ok_or(Error::not_found("todo"))
}

/// A user's todos, newest first (by id: UUID v7 ids sort by creation time).
pub async fn list_for_user<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    page: PageRequest<Uuid>,
) -> Result<Page<todos::Model, Uuid>> {
    let mut query = todos::Entity::find()
        .filter(todos::Column::UserId.eq(user_id))
        .order_by_desc(todos::Column::Id);
    if let Some(after) = page.after {
        query = query.filter(todos::Column::Id.lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing todos")?;
    Ok(Page::from_overfetch(rows, page.limit, |t| t.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        enums::UserRole,
        query::testing::{self, on_both_backends},
    };

    fn todo(id: Uuid, user_id: Uuid, title: &str) -> NewTodo {
        NewTodo {
            id,
            user_id,
            session_id: None,
            title: title.into(),
            notes: None,
            due_at: None,
        }
    }

    on_both_backends!(a_todo_is_created_once_per_id, |db| {
        let alice = testing::user(&db, UserRole::Student).await;
        let bob = testing::user(&db, UserRole::Student).await;
        let key = Uuid::now_v7();
        let first = create(&db, todo(key, alice, "Buy milk")).await.unwrap();
        // The same call run again finds the todo it made, unchanged.
        let again = create(&db, todo(key, alice, "Buy milk, again"))
            .await
            .unwrap();
        assert_eq!(again, first);
        // Another user's key never reaches that todo.
        assert!(create(&db, todo(key, bob, "x")).await.is_err());
        let page = list_for_user(
            &db,
            alice,
            PageRequest {
                after: None,
                limit: 10,
            },
        )
        .await
        .unwrap();
        assert_eq!(page.items.len(), 1);
        assert!(
            list_for_user(
                &db,
                bob,
                PageRequest {
                    after: None,
                    limit: 10
                }
            )
            .await
            .unwrap()
            .items
            .is_empty()
        );
    });
}
