//! The rollup pass: adds the usage rows and module events not rolled up yet to their
//! day's rollup row (`usage_rollup`, `module_event_rollup`) and marks them rolled up, in
//! one transaction, so a row is counted in the rollup exactly once however many workers
//! run the pass at the same time: on PostgreSQL the rows are claimed `FOR UPDATE SKIP
//! LOCKED` in batches by the statement that rolls them up; on SQLite the transaction
//! holds the database's single write lock from its first statement to its commit.
//!
//! The turn's own writes are unchanged (a new row is `rolled_up = false` by the column's
//! default); the reads ([`super::usage`], [`super::blocks`]) take whole days from the
//! rollups and the rest — the window's partial days and the rows not rolled up yet —
//! from the rows, so a figure is exact whenever the pass ran.

use parley_protocol::error::Result;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, TransactionTrait};

use super::sql::{
    DURATION_BOUNDS, LATENCY_BOUNDS, Sql, bucket_cases, bucket_columns, day_expr, greatest,
};
use crate::error::Context;

/// The most rows one PostgreSQL statement claims (a transaction each).
pub const BATCH: i64 = 50_000;

/// What one pass rolled up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rolled {
    pub usage_rows: u64,
    pub module_events: u64,
}

/// Rolls up every usage row and module event not rolled up yet.
pub async fn roll_up(db: &DatabaseConnection) -> Result<Rolled> {
    let mut rolled = Rolled::default();
    loop {
        let n = usage_batch(db).await?;
        rolled.usage_rows += n;
        if n < BATCH as u64 {
            break;
        }
    }
    loop {
        let n = events_batch(db).await?;
        rolled.module_events += n;
        if n < BATCH as u64 {
            break;
        }
    }
    Ok(rolled)
}

/// The `usage_rollup` columns after the key, with their values from `src` (whose
/// columns are `ai_usage`'s) and how a conflict adds them up.
fn usage_columns(backend: DbBackend) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut names = vec![
        "calls",
        "input_tokens",
        "output_tokens",
        "cached_input_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
        "cost_usd",
        "ttft_calls",
        "latency_max",
        "ttft_max",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect::<Vec<_>>();
    let mut values = vec![
        "COUNT(*)".to_owned(),
        "SUM(input_tokens)".to_owned(),
        "SUM(output_tokens)".to_owned(),
        "SUM(cached_input_tokens)".to_owned(),
        "SUM(cache_write_tokens)".to_owned(),
        "SUM(reasoning_tokens)".to_owned(),
        "SUM(cost_usd)".to_owned(),
        "COUNT(ttft_ms)".to_owned(),
        "MAX(latency_ms)".to_owned(),
        "COALESCE(MAX(ttft_ms), 0)".to_owned(),
    ];
    let lat = bucket_columns("lat_", LATENCY_BOUNDS.len() + 1);
    let ttft = bucket_columns("ttft_", LATENCY_BOUNDS.len() + 1);
    values.extend(
        bucket_cases("latency_ms", &LATENCY_BOUNDS)
            .into_iter()
            .chain(bucket_cases("ttft_ms", &LATENCY_BOUNDS))
            .map(|case| format!("SUM({case})")),
    );
    names.extend(lat.into_iter().chain(ttft));
    let updates = names
        .iter()
        .map(|c| {
            if c.ends_with("_max") {
                let both = greatest(
                    backend,
                    &format!("usage_rollup.{c}"),
                    &format!("excluded.{c}"),
                );
                format!("{c} = {both}")
            } else {
                format!("{c} = usage_rollup.{c} + excluded.{c}")
            }
        })
        .collect();
    (names, values, updates)
}

/// Rolls up one batch of usage rows; returns how many.
async fn usage_batch(db: &DatabaseConnection) -> Result<u64> {
    let backend = db.get_database_backend();
    let (names, values, updates) = usage_columns(backend);
    let insert = |from: &str, filter: &str| {
        format!(
            "INSERT INTO usage_rollup (day, model, user_id, tool_id, {names}) \
             SELECT {day}, model, user_id, tool_id, {values} FROM {from} {filter} \
             GROUP BY {day}, model, user_id, tool_id \
             ON CONFLICT (day, model, user_id, tool_id) DO UPDATE SET {updates}",
            names = names.join(", "),
            day = day_expr(backend, "created_at"),
            values = values.join(", "),
            updates = updates.join(", "),
        )
    };
    let claim = "UPDATE ai_usage SET rolled_up = TRUE WHERE id IN (SELECT id FROM ai_usage \
                 WHERE rolled_up = FALSE ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED) \
                 RETURNING created_at, model, user_id, tool_id, input_tokens, output_tokens, \
                 cached_input_tokens, cache_write_tokens, reasoning_tokens, cost_usd, \
                 latency_ms, ttft_ms";
    rolled(
        db,
        backend,
        claim,
        &insert("claimed", ""),
        &insert("ai_usage", "WHERE rolled_up = FALSE"),
        "ai_usage",
    )
    .await
    .context("rolling up usage")
}

/// Rolls up one batch of module events; returns how many.
async fn events_batch(db: &DatabaseConnection) -> Result<u64> {
    let backend = db.get_database_backend();
    let dur = bucket_columns("dur_", DURATION_BOUNDS.len() + 1);
    let sums: Vec<String> = bucket_cases("duration_ms", &DURATION_BOUNDS)
        .into_iter()
        .map(|case| format!("SUM({case})"))
        .collect();
    let mut updates = vec![
        "runs = module_event_rollup.runs + excluded.runs".to_owned(),
        format!(
            "duration_max = {}",
            greatest(
                backend,
                "module_event_rollup.duration_max",
                "excluded.duration_max"
            )
        ),
    ];
    updates.extend(
        dur.iter()
            .map(|c| format!("{c} = module_event_rollup.{c} + excluded.{c}")),
    );
    let category = format!("COALESCE(category, '{}')", super::blocks::UNCATEGORIZED);
    let insert = |from: &str, filter: &str| {
        format!(
            "INSERT INTO module_event_rollup (day, module, outcome, category, runs, duration_max, {dur}) \
             SELECT {day}, module, outcome, {category}, COUNT(*), MAX(duration_ms), {sums} \
             FROM {from} {filter} GROUP BY {day}, module, outcome, {category} \
             ON CONFLICT (day, module, outcome, category) DO UPDATE SET {updates}",
            dur = dur.join(", "),
            day = day_expr(backend, "created_at"),
            sums = sums.join(", "),
            updates = updates.join(", "),
        )
    };
    let claim = "UPDATE module_events SET rolled_up = TRUE WHERE id IN (SELECT id FROM \
                 module_events WHERE rolled_up = FALSE ORDER BY created_at LIMIT $1 \
                 FOR UPDATE SKIP LOCKED) \
                 RETURNING created_at, module, outcome, category, duration_ms";
    rolled(
        db,
        backend,
        claim,
        &insert("claimed", ""),
        &insert("module_events", "WHERE rolled_up = FALSE"),
        "module_events",
    )
    .await
    .context("rolling up module events")
}

/// Runs one batch: on PostgreSQL one statement claims the rows (`claim`) and feeds them
/// to `pg_insert`; on SQLite `sqlite_insert` reads every row not rolled up and an
/// `UPDATE` marks them, in one transaction.
async fn rolled(
    db: &DatabaseConnection,
    backend: DbBackend,
    claim: &str,
    pg_insert: &str,
    sqlite_insert: &str,
    table: &str,
) -> std::result::Result<u64, sea_orm::DbErr> {
    match backend {
        DbBackend::Postgres => {
            let mut sql = Sql::new(backend);
            sql.bind(BATCH);
            sql.push(&format!(
                "WITH claimed AS ({claim}), added AS ({pg_insert} RETURNING 1) \
                 SELECT (SELECT COUNT(*) FROM claimed) AS n, (SELECT COUNT(*) FROM added) AS m"
            ));
            let row = db.query_one_raw(sql.statement()).await?;
            let n: i64 = row.map_or(Ok(0), |r| r.try_get("", "n"))?;
            Ok(u64::try_from(n).unwrap_or(0))
        }
        _ => {
            let txn = db.begin().await?;
            txn.execute_unprepared(sqlite_insert).await?;
            let marked = txn
                .execute_unprepared(&format!(
                    "UPDATE {table} SET rolled_up = TRUE WHERE rolled_up = FALSE"
                ))
                .await?
                .rows_affected();
            txn.commit().await?;
            Ok(marked)
        }
    }
}
