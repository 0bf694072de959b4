//! Each provider's recent calls and failures, and its latest failure, from `ai_usage`
//! (one row per provider call, with how it failed): what `GET /v1/admin/providers`
//! shows beside the breakers' states.

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    prelude::DateTimeUtc,
    sea_query::{Expr, Func},
};

use crate::{ai_usage, enums::CallError, error::Context};

/// A provider's calls since a time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderCalls {
    pub calls: u64,
    pub failed: u64,
}

/// A provider's latest failed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastFailure {
    pub error: CallError,
    pub at: DateTimeUtc,
}

/// The calls to `vendor` at or after `since`, and how many failed.
pub async fn calls_since<C: ConnectionTrait>(
    db: &C,
    vendor: &str,
    since: DateTimeUtc,
) -> Result<ProviderCalls> {
    // `COUNT(error)` counts the rows with one: the failed calls.
    let counts: Option<(i64, i64)> = ai_usage::Entity::find()
        .select_only()
        .column_as(
            Expr::from(Func::count(Expr::col(ai_usage::Column::Id))),
            "calls",
        )
        .column_as(
            Expr::from(Func::count(Expr::col(ai_usage::Column::Error))),
            "failed",
        )
        .filter(ai_usage::Column::Vendor.eq(vendor))
        .filter(ai_usage::Column::CreatedAt.gte(since))
        .into_tuple()
        .one(db)
        .await
        .context("counting a provider's recent calls")?;
    let (calls, failed) = counts.unwrap_or_default();
    Ok(ProviderCalls {
        calls: u64::try_from(calls).unwrap_or(0),
        failed: u64::try_from(failed).unwrap_or(0),
    })
}

/// The latest failed call to `vendor`, if any.
pub async fn last_failure<C: ConnectionTrait>(db: &C, vendor: &str) -> Result<Option<LastFailure>> {
    let row: Option<(Option<CallError>, DateTimeUtc)> = ai_usage::Entity::find()
        .select_only()
        .column(ai_usage::Column::Error)
        .column(ai_usage::Column::CreatedAt)
        .filter(ai_usage::Column::Vendor.eq(vendor))
        .filter(ai_usage::Column::Error.is_not_null())
        .order_by_desc(ai_usage::Column::CreatedAt)
        .limit(1)
        .into_tuple()
        .one(db)
        .await
        .context("reading a provider's last failure")?;
    Ok(row.and_then(|(error, at)| error.map(|error| LastFailure { error, at })))
}
