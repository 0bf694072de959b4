//! What a user's conversations saved for them: the todos and notes the built-in
//! functions wrote (`GET /v1/todos`, `GET /v1/notes`), each list the user's own, newest
//! first. The SQL is `parley_entity::query::{todos, notes}`.

use parley_entity::{
    notes,
    query::{
        notes as n,
        page::{Page, PageRequest},
        todos as t,
    },
    todos,
};
use parley_protocol::error::Result;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

/// The application layer of a user's todos and notes; cheap to clone.
#[derive(Clone)]
pub struct SavedService {
    db: DatabaseConnection,
}

impl SavedService {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// The user's todos, newest first.
    pub async fn todos(
        &self,
        user_id: Uuid,
        page: PageRequest<Uuid>,
    ) -> Result<Page<todos::Model, Uuid>> {
        t::list_for_user(&self.db, user_id, page).await
    }

    /// The user's notes, newest first.
    pub async fn notes(
        &self,
        user_id: Uuid,
        page: PageRequest<Uuid>,
    ) -> Result<Page<notes::Model, Uuid>> {
        n::list_for_user(&self.db, user_id, page).await
    }
}
