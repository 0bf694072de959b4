//! What modules did at their hooks, from `module_events`: runs, blocks, modifications,
//! errors and timeouts per module or per day, hook latency, and blocks by category.
//!
//! The database sums whole days from `module_event_rollup` and the rest from the rows
//! (as [`super::usage`] does) into one row per key × outcome × category; those few rows
//! are folded into the report here. The 95th percentile of the durations is read from a
//! histogram.

use std::collections::BTreeMap;

use parley_protocol::error::Result;
use sea_orm::ConnectionTrait;

use super::{
    Split, Window,
    sql::{DURATION_BOUNDS, Sql, bucket_cases, bucket_columns, bucket_percentile, day_expr},
};
use crate::{enums::ModuleOutcome, error::Context};

/// The category of blocks and modifications recorded without one.
pub const UNCATEGORIZED: &str = "uncategorized";

/// What the events are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockGrouping {
    Module,
    /// The UTC day of the event (`YYYY-MM-DD`).
    Day,
}

/// Counts of events by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutcomeCounts {
    /// Every recorded hook run.
    pub runs: u64,
    pub blocks: u64,
    pub modifications: u64,
    pub errors: u64,
    pub timeouts: u64,
}

impl OutcomeCounts {
    fn add(&mut self, outcome: ModuleOutcome, n: u64) {
        self.runs += n;
        match outcome {
            ModuleOutcome::Continue => {}
            ModuleOutcome::Modify => self.modifications += n,
            ModuleOutcome::Block => self.blocks += n,
            ModuleOutcome::Error => self.errors += n,
            ModuleOutcome::Timeout => self.timeouts += n,
        }
    }
}

/// Blocks and modifications that gave one category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CategoryCount {
    /// The category, or [`UNCATEGORIZED`].
    pub category: String,
    pub blocks: u64,
    pub modifications: u64,
}

/// The figures of one module or day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockGroup {
    /// The module's name or the day (`YYYY-MM-DD`).
    pub key: String,
    pub counts: OutcomeCounts,
    /// The 95th percentile of the hook runs' durations (nearest rank).
    pub p95_duration_ms: i64,
    /// Blocks and modifications by category, by category name.
    pub by_category: Vec<CategoryCount>,
}

/// Every group (by key), and the blocks and modifications of the window by category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockReport {
    pub groups: Vec<BlockGroup>,
    pub by_category: Vec<CategoryCount>,
}

/// One summed row: the key, outcome and category, runs, the longest run and the
/// durations' histogram.
type Summed = (String, ModuleOutcome, String, u64, i64, Vec<i64>);

/// The block metrics of the events in `window`.
pub async fn blocks<C: ConnectionTrait>(
    db: &C,
    window: Window,
    grouping: BlockGrouping,
) -> Result<BlockReport> {
    let backend = db.get_database_backend();
    let dur = bucket_columns("dur_", DURATION_BOUNDS.len() + 1);
    let mut sql = Sql::new(backend);
    sql.push(&format!(
        "SELECT k, outcome, category, CAST(SUM(runs) AS BIGINT) AS runs, \
         CAST(MAX(duration_max) AS BIGINT) AS duration_max, {} FROM (",
        dur.iter()
            .map(|c| format!("CAST(SUM({c}) AS BIGINT) AS {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let split = Split::of(window);
    let mut parts = 0;
    if let Some((lo, hi)) = &split.days {
        parts += 1;
        let key = match grouping {
            BlockGrouping::Module => "r.module",
            BlockGrouping::Day => "r.day",
        };
        sql.push(&format!(
            "SELECT {key} AS k, r.outcome, r.category, r.runs, r.duration_max, {} \
             FROM module_event_rollup r WHERE 1 = 1",
            dur.iter()
                .map(|c| format!("r.{c}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if let Some(lo) = lo {
            let p = sql.bind(lo.clone());
            sql.push(&format!(" AND r.day >= {p}"));
        }
        if let Some(hi) = hi {
            let p = sql.bind(hi.clone());
            sql.push(&format!(" AND r.day < {p}"));
        }
    }
    for (range, unrolled) in split.raw_ranges() {
        if parts > 0 {
            sql.push(" UNION ALL ");
        }
        parts += 1;
        let key = match grouping {
            BlockGrouping::Module => "e.module".to_owned(),
            BlockGrouping::Day => day_expr(backend, "e.created_at"),
        };
        // Every column named: the first part of the union names them.
        sql.push(&format!(
            "SELECT {key} AS k, e.outcome, COALESCE(e.category, '{UNCATEGORIZED}') AS category, \
             1 AS runs, e.duration_ms AS duration_max, {} FROM module_events e WHERE 1 = 1",
            bucket_cases("e.duration_ms", &DURATION_BOUNDS)
                .into_iter()
                .zip(&dur)
                .map(|(case, name)| format!("{case} AS {name}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if unrolled {
            sql.push(" AND e.rolled_up = FALSE");
        }
        range.filter(&mut sql, "e.created_at");
    }
    sql.push(") x GROUP BY k, outcome, category ORDER BY k, outcome, category");
    let rows = db
        .query_all_raw(sql.statement())
        .await
        .context("summing module events")?;
    let mut summed = Vec::with_capacity(rows.len());
    for row in rows {
        let read = || -> std::result::Result<Summed, sea_orm::DbErr> {
            let buckets = dur
                .iter()
                .map(|c| row.try_get::<i64>("", c))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            Ok((
                row.try_get("", "k")?,
                row.try_get("", "outcome")?,
                row.try_get("", "category")?,
                u64::try_from(row.try_get::<i64>("", "runs")?).unwrap_or(0),
                row.try_get("", "duration_max")?,
                buckets,
            ))
        };
        summed.push(read().context("reading module events")?);
    }
    Ok(report(summed))
}

/// Folds the summed rows into groups (by key) and the window's categories.
fn report(rows: Vec<Summed>) -> BlockReport {
    let mut groups: BTreeMap<String, Accumulator> = BTreeMap::new();
    let mut overall = Categories::default();
    for (key, outcome, category, runs, max, buckets) in rows {
        let group = groups.entry(key).or_default();
        group.counts.add(outcome, runs);
        group.max = group.max.max(max);
        if group.buckets.is_empty() {
            group.buckets = vec![0; buckets.len()];
        }
        for (sum, n) in group.buckets.iter_mut().zip(&buckets) {
            *sum += n;
        }
        group.categories.add(outcome, &category, runs);
        overall.add(outcome, &category, runs);
    }
    BlockReport {
        groups: groups
            .into_iter()
            .map(|(key, acc)| acc.finish(key))
            .collect(),
        by_category: overall.finish(),
    }
}

#[derive(Debug, Default)]
struct Accumulator {
    counts: OutcomeCounts,
    max: i64,
    buckets: Vec<i64>,
    categories: Categories,
}

impl Accumulator {
    fn finish(self, key: String) -> BlockGroup {
        BlockGroup {
            key,
            counts: self.counts,
            p95_duration_ms: bucket_percentile(&self.buckets, &DURATION_BOUNDS, self.max, 95)
                .unwrap_or(0),
            by_category: self.categories.finish(),
        }
    }
}

/// Blocks and modifications by category.
#[derive(Debug, Default)]
struct Categories(BTreeMap<String, (u64, u64)>);

impl Categories {
    fn add(&mut self, outcome: ModuleOutcome, category: &str, n: u64) {
        let slot = match outcome {
            ModuleOutcome::Block | ModuleOutcome::Modify => {
                self.0.entry(category.to_owned()).or_default()
            }
            _ => return,
        };
        if outcome == ModuleOutcome::Block {
            slot.0 += n;
        } else {
            slot.1 += n;
        }
    }

    fn finish(self) -> Vec<CategoryCount> {
        self.0
            .into_iter()
            .map(|(category, (blocks, modifications))| CategoryCount {
                category,
                blocks,
                modifications,
            })
            .collect()
    }
}
