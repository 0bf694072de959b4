//! Files users upload to attach to their messages.

use parley_protocol::error::{Error, Result};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set,
    prelude::DateTimeUtc,
};
use uuid::Uuid;

use crate::{
    error::Context,
    files::{self, FileKind},
};

/// A file to store.
#[derive(Debug, Clone)]
pub struct NewFile {
    pub user_id: Uuid,
    pub name: String,
    pub content_type: String,
    pub kind: FileKind,
    pub text: Option<String>,
    pub data: Vec<u8>,
}

pub async fn create<C: ConnectionTrait>(
    db: &C,
    new: NewFile,
    now: DateTimeUtc,
) -> Result<files::Model> {
    files::ActiveModel {
        id: Set(Uuid::now_v7()),
        user_id: Set(new.user_id),
        name: Set(new.name),
        content_type: Set(new.content_type),
        size: Set(new.data.len() as i64),
        kind: Set(new.kind),
        text: Set(new.text),
        data: Set(new.data),
        created_at: Set(now),
    }
    .insert(db)
    .await
    .context("storing a file")
}

/// One of the user's files (another user's file is not found).
pub async fn get_owned<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    id: Uuid,
) -> Result<files::Model> {
    files::Entity::find_by_id(id)
        .filter(files::Column::UserId.eq(user_id))
        .one(db)
        .await
        .context("reading a file")?
        .ok_or(Error::not_found("file"))
}

/// The user's files with these ids, in the order given; not found when one is missing
/// or another user's.
pub async fn owned_in_order<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<files::Model>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = files::Entity::find()
        .filter(files::Column::UserId.eq(user_id))
        .filter(files::Column::Id.is_in(ids.iter().copied()))
        .all(db)
        .await
        .context("reading files")?;
    ids.iter()
        .map(|id| {
            rows.iter()
                .find(|f| f.id == *id)
                .cloned()
                .ok_or(Error::not_found("file"))
        })
        .collect()
}
