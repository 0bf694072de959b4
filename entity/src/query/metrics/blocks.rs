//! What modules did at their hooks, from `module_events`: runs, blocks, modifications,
//! errors and timeouts per module or per day, hook latency, and blocks by category.

use std::collections::BTreeMap;

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, prelude::DateTimeUtc,
};

use super::{Window, day_of, nearest_rank};
use crate::{enums::ModuleOutcome, error::Context, module_events};

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
    fn add(&mut self, outcome: ModuleOutcome) {
        self.runs += 1;
        match outcome {
            ModuleOutcome::Continue => {}
            ModuleOutcome::Modify => self.modifications += 1,
            ModuleOutcome::Block => self.blocks += 1,
            ModuleOutcome::Error => self.errors += 1,
            ModuleOutcome::Timeout => self.timeouts += 1,
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

type EventFields = (DateTimeUtc, String, ModuleOutcome, i64, Option<String>);

/// The block metrics of the events in `window`.
pub async fn blocks<C: ConnectionTrait>(
    db: &C,
    window: Window,
    grouping: BlockGrouping,
) -> Result<BlockReport> {
    let mut query = module_events::Entity::find().select_only().columns([
        module_events::Column::CreatedAt,
        module_events::Column::Module,
        module_events::Column::Outcome,
        module_events::Column::DurationMs,
        module_events::Column::Category,
    ]);
    if let Some(from) = window.from {
        query = query.filter(module_events::Column::CreatedAt.gte(from));
    }
    if let Some(to) = window.to {
        query = query.filter(module_events::Column::CreatedAt.lt(to));
    }
    let rows: Vec<EventFields> = query
        .into_tuple()
        .all(db)
        .await
        .context("reading module events")?;
    Ok(report(rows, grouping))
}

/// Groups the events and counts them.
fn report(rows: Vec<EventFields>, grouping: BlockGrouping) -> BlockReport {
    let mut groups: BTreeMap<String, Accumulator> = BTreeMap::new();
    let mut overall = Categories::default();
    for (created_at, module, outcome, duration_ms, category) in rows {
        let key = match grouping {
            BlockGrouping::Module => module,
            BlockGrouping::Day => day_of(created_at),
        };
        let group = groups.entry(key).or_default();
        group.counts.add(outcome);
        group.durations.push(duration_ms);
        group.categories.add(outcome, category.as_deref());
        overall.add(outcome, category.as_deref());
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
    durations: Vec<i64>,
    categories: Categories,
}

impl Accumulator {
    fn finish(mut self, key: String) -> BlockGroup {
        self.durations.sort_unstable();
        BlockGroup {
            key,
            counts: self.counts,
            p95_duration_ms: nearest_rank(&self.durations, 95).unwrap_or(0),
            by_category: self.categories.finish(),
        }
    }
}

/// Blocks and modifications by category.
#[derive(Debug, Default)]
struct Categories(BTreeMap<String, (u64, u64)>);

impl Categories {
    fn add(&mut self, outcome: ModuleOutcome, category: Option<&str>) {
        let slot = match outcome {
            ModuleOutcome::Block | ModuleOutcome::Modify => self
                .0
                .entry(category.unwrap_or(UNCATEGORIZED).to_owned())
                .or_default(),
            _ => return,
        };
        if outcome == ModuleOutcome::Block {
            slot.0 += 1;
        } else {
            slot.1 += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rfc3339: &str) -> DateTimeUtc {
        chrono::DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .with_timezone(&chrono::Utc)
    }

    fn event(
        day: &str,
        module: &str,
        outcome: ModuleOutcome,
        ms: i64,
        category: Option<&str>,
    ) -> EventFields {
        (
            at(&format!("{day}T12:00:00Z")),
            module.to_owned(),
            outcome,
            ms,
            category.map(str::to_owned),
        )
    }

    #[test]
    fn events_are_counted_by_module_with_categories() {
        use ModuleOutcome::*;
        let rows = vec![
            event("2026-11-01", "pii", Modify, 10, Some("email")),
            event("2026-11-01", "pii", Continue, 20, None),
            event("2026-11-02", "safety", Block, 30, Some("self_harm")),
            event("2026-11-02", "safety", Block, 40, None),
            event("2026-11-02", "safety", Timeout, 500, None),
            event("2026-11-02", "safety", Error, 5, None),
        ];
        let by_module = report(rows.clone(), BlockGrouping::Module);
        assert_eq!(by_module.groups.len(), 2);
        let safety = &by_module.groups[1];
        assert_eq!(safety.key, "safety");
        assert_eq!(
            safety.counts,
            OutcomeCounts {
                runs: 4,
                blocks: 2,
                modifications: 0,
                errors: 1,
                timeouts: 1
            }
        );
        assert_eq!(safety.p95_duration_ms, 500);
        let names: Vec<&str> = by_module
            .by_category
            .iter()
            .map(|c| c.category.as_str())
            .collect();
        assert_eq!(names, ["email", "self_harm", UNCATEGORIZED]);
        assert_eq!(by_module.by_category[0].modifications, 1);
        assert_eq!(by_module.by_category[2].blocks, 1);

        let by_day = report(rows, BlockGrouping::Day);
        let keys: Vec<&str> = by_day.groups.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(keys, ["2026-11-01", "2026-11-02"]);
        assert_eq!(by_day.groups[0].counts.runs, 2);
    }
}
