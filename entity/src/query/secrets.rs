//! Secrets all processes of a deployment share, created on first use.

use parley_protocol::error::{Error, Result};
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, Set};

use crate::{error::Context, server_secrets};

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

/// Proves the database answers (`/readyz`, before [`write_probe`]): one `SELECT 1`.
/// The error is the driver's, for the readiness log.
pub async fn ping<C: ConnectionTrait>(db: &C) -> std::result::Result<(), sea_orm::DbErr> {
    db.execute_unprepared("SELECT 1").await?;
    Ok(())
}

/// The row [`write_probe`] rewrites.
const WRITE_PROBE: &str = "readiness_write_probe";

/// Proves the database takes writes (`/readyz`): upserts one row of `server_secrets`
/// with the current time. A database that refuses writes — a full disk, a read-only
/// transaction mode, a replica — fails it while reads still succeed.
pub async fn write_probe<C: ConnectionTrait>(db: &C) -> Result<()> {
    use sea_orm::sea_query::OnConflict;
    let now = super::now();
    server_secrets::Entity::insert(server_secrets::ActiveModel {
        name: Set(WRITE_PROBE.to_owned()),
        value: Set(now.to_rfc3339()),
        created_at: Set(now),
    })
    .on_conflict(
        OnConflict::column(server_secrets::Column::Name)
            .update_column(server_secrets::Column::Value)
            .to_owned(),
    )
    .exec(db)
    .await
    .context("writing the readiness probe")?;
    Ok(())
}
