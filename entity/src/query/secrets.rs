//! Secrets all processes of a deployment share, created on first use.

use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, Set};

use crate::{
    error::{Context, Error, Result},
    server_secrets,
};

/// The secret `name`, created with `generate()` if no process created it yet. Two
/// processes racing both insert; the loser's insert fails on the primary key and it
/// reads the winner's value, so all of them end up with the same secret.
pub async fn get_or_create<C: ConnectionTrait>(
    db: &C,
    name: &str,
    generate: impl FnOnce() -> String,
) -> Result<String> {
    if let Some(row) = find(db, name).await? {
        return Ok(row.value);
    }
    let inserted = server_secrets::ActiveModel {
        name: Set(name.to_owned()),
        value: Set(generate()),
        created_at: Set(super::now()),
    }
    .insert(db)
    .await
    .context("creating a server secret");
    match inserted {
        Ok(row) => Ok(row.value),
        Err(Error::Conflict { .. }) => find(db, name)
            .await?
            .map(|row| row.value)
            .ok_or_else(|| Error::internal("reading a server secret", "it vanished after a race")),
        Err(other) => Err(other),
    }
}

async fn find<C: ConnectionTrait>(db: &C, name: &str) -> Result<Option<server_secrets::Model>> {
    server_secrets::Entity::find_by_id(name.to_owned())
        .one(db)
        .await
        .context("reading a server secret")
}
