//! The names an admin view shows beside the ids a row holds: a tool's group, an
//! assignment's class and tool, a member's user.
//!
//! A page of rows refers to at most a page of other rows per column, so their names are
//! read with one `id IN (…)` query per table the page refers to, after the page itself,
//! never one query per row. The rows named are held by foreign keys, so a name is
//! missing only when its row was deleted between the two reads; the view then shows the
//! id alone.

use std::collections::{BTreeSet, HashMap};
use std::future::Future;

use parley_protocol::error::Result;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use uuid::Uuid;

use crate::error::Context;
use crate::{classes, groups, tools, users};

/// Names of rows by id.
#[derive(Debug, Clone)]
pub struct Names<T = String>(HashMap<Uuid, T>);

impl<T> Default for Names<T> {
    fn default() -> Self {
        Self(HashMap::new())
    }
}

impl<T: Clone> Names<T> {
    /// The name of row `id`, if it was read.
    pub fn get(&self, id: Uuid) -> Option<T> {
        self.0.get(&id).cloned()
    }

    /// The name of row `id` when there is one.
    pub fn of(&self, id: Option<Uuid>) -> Option<T> {
        id.and_then(|id| self.get(id))
    }
}

/// What a user is called: their name and email, the two things a person recognises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserName {
    pub name: String,
    pub email: String,
}

/// A table whose rows other rows name by id.
pub trait Named: EntityTrait {
    /// What a row is called.
    type Name: Clone + Send + Sync;

    /// The names of rows `ids` (repeats and ids without a row are left out), in one query;
    /// none when `ids` is empty.
    fn names<C: ConnectionTrait>(
        db: &C,
        ids: impl IntoIterator<Item = Uuid> + Send,
    ) -> impl Future<Output = Result<Names<Self::Name>>> + Send;
}

/// The distinct ids, in a stable order (so the statement is the same for the same page).
fn distinct(ids: impl IntoIterator<Item = Uuid>) -> Vec<Uuid> {
    ids.into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// `(id, name)` of the rows `ids` of a table with a `name` column.
macro_rules! named_by_name {
    ($($rows:ident: $attempt:literal),+ $(,)?) => {
        $(
            impl Named for $rows::Entity {
                type Name = String;

                async fn names<C: ConnectionTrait>(
                    db: &C,
                    ids: impl IntoIterator<Item = Uuid> + Send,
                ) -> Result<Names<String>> {
                    let ids = distinct(ids);
                    if ids.is_empty() {
                        return Ok(Names::default());
                    }
                    let rows: Vec<(Uuid, String)> = $rows::Entity::find()
                        .select_only()
                        .column($rows::Column::Id)
                        .column($rows::Column::Name)
                        .filter($rows::Column::Id.is_in(ids))
                        .into_tuple()
                        .all(db)
                        .await
                        .context($attempt)?;
                    Ok(Names(rows.into_iter().collect()))
                }
            }
        )+
    };
}

named_by_name! {
    groups: "reading the names of groups",
    tools: "reading the names of tools",
    classes: "reading the names of classes",
}

impl Named for users::Entity {
    type Name = UserName;

    async fn names<C: ConnectionTrait>(
        db: &C,
        ids: impl IntoIterator<Item = Uuid> + Send,
    ) -> Result<Names<UserName>> {
        let ids = distinct(ids);
        if ids.is_empty() {
            return Ok(Names::default());
        }
        let rows: Vec<(Uuid, String, String)> = users::Entity::find()
            .select_only()
            .column(users::Column::Id)
            .column(users::Column::Name)
            .column(users::Column::Email)
            .filter(users::Column::Id.is_in(ids))
            .into_tuple()
            .all(db)
            .await
            .context("reading the names of users")?;
        let names = rows
            .into_iter()
            .map(|(id, name, email)| (id, UserName { name, email }))
            .collect();
        Ok(Names(names))
    }
}
