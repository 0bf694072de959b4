//! Usage of models from `ai_usage` (one row per LLM call): calls, tokens, cost and
//! latency percentiles per day, model, user or tool, in a time window, paged by group.

use std::collections::BTreeMap;

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, prelude::DateTimeUtc,
};
use uuid::Uuid;

use super::{Percentiles, Window, day_of};
use crate::{
    ai_usage,
    error::Context,
    query::page::{Page, PageRequest},
};

/// What the calls are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageGrouping {
    /// The UTC day of the call (`YYYY-MM-DD`).
    Day,
    Model,
    User,
    Tool,
}

/// Which calls count: those in the window that match every filter given.
#[derive(Debug, Clone, Default)]
pub struct UsageFilter {
    pub window: Window,
    pub model: Option<String>,
    pub user_id: Option<Uuid>,
    pub tool_id: Option<Uuid>,
}

/// The figures of one group of calls.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageGroup {
    /// The day (`YYYY-MM-DD`), the model id, or the user's or tool's id.
    pub key: String,
    pub calls: u64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cost_usd: f64,
    /// Time to the first token; `None` when no call of the group reported one.
    pub ttft_ms: Option<Percentiles>,
    /// Whole call duration.
    pub latency_ms: Option<Percentiles>,
    /// Turns a quota refused (`quota_refusals`): they made no call.
    pub refused_turns: u64,
}

/// The columns of `ai_usage` the figures need.
type UsageFields = (
    DateTimeUtc,
    String,
    Uuid,
    Uuid,
    i64,
    i64,
    f64,
    i64,
    Option<i64>,
);

/// The groups of calls matching `filter`, ordered by key, one page after the cursor's
/// key (the last key of the previous page).
pub async fn usage<C: ConnectionTrait>(
    db: &C,
    filter: &UsageFilter,
    grouping: UsageGrouping,
    page: PageRequest<String>,
) -> Result<Page<UsageGroup, String>> {
    let rows: Vec<UsageFields> = select(filter)
        .into_tuple()
        .all(db)
        .await
        .context("reading usage rows")?;
    let mut groups: BTreeMap<String, Accumulator> = BTreeMap::new();
    for row in rows {
        let key = key_of(&row, grouping);
        if page.after.as_ref().is_some_and(|after| key <= *after) {
            continue;
        }
        groups.entry(key).or_default().add(&row);
    }
    for refusal in refusals(db, filter).await? {
        let key = key_of(&refusal, grouping);
        if page.after.as_ref().is_some_and(|after| key <= *after) {
            continue;
        }
        groups.entry(key).or_default().refused_turns += 1;
    }
    let first: Vec<UsageGroup> = groups
        .into_iter()
        .take(page.limit as usize + 1)
        .map(|(key, acc)| acc.finish(key))
        .collect();
    Ok(Page::from_overfetch(first, page.limit, |g| g.key.clone()))
}

/// The refused turns that match `filter`, shaped as calls without figures (so they
/// group by the same keys).
async fn refusals<C: ConnectionTrait>(db: &C, filter: &UsageFilter) -> Result<Vec<UsageFields>> {
    use crate::quota_refusals as r;
    let mut query = r::Entity::find().select_only().columns([
        r::Column::CreatedAt,
        r::Column::Model,
        r::Column::UserId,
        r::Column::ToolId,
    ]);
    if let Some(from) = filter.window.from {
        query = query.filter(r::Column::CreatedAt.gte(from));
    }
    if let Some(to) = filter.window.to {
        query = query.filter(r::Column::CreatedAt.lt(to));
    }
    if let Some(model) = &filter.model {
        query = query.filter(r::Column::Model.eq(model.as_str()));
    }
    if let Some(user_id) = filter.user_id {
        query = query.filter(r::Column::UserId.eq(user_id));
    }
    if let Some(tool_id) = filter.tool_id {
        query = query.filter(r::Column::ToolId.eq(tool_id));
    }
    let rows: Vec<(DateTimeUtc, String, Uuid, Uuid)> = query
        .into_tuple()
        .all(db)
        .await
        .context("reading refused turns")?;
    Ok(rows
        .into_iter()
        .map(|(at, model, user, tool)| (at, model, user, tool, 0, 0, 0.0, 0, None))
        .collect())
}

/// `SELECT` the needed columns of the calls that match `filter`.
fn select(filter: &UsageFilter) -> sea_orm::Select<ai_usage::Entity> {
    let mut query = ai_usage::Entity::find().select_only().columns([
        ai_usage::Column::CreatedAt,
        ai_usage::Column::Model,
        ai_usage::Column::UserId,
        ai_usage::Column::ToolId,
        ai_usage::Column::InputTokens,
        ai_usage::Column::OutputTokens,
        ai_usage::Column::CostUsd,
        ai_usage::Column::LatencyMs,
        ai_usage::Column::TtftMs,
    ]);
    if let Some(from) = filter.window.from {
        query = query.filter(ai_usage::Column::CreatedAt.gte(from));
    }
    if let Some(to) = filter.window.to {
        query = query.filter(ai_usage::Column::CreatedAt.lt(to));
    }
    if let Some(model) = &filter.model {
        query = query.filter(ai_usage::Column::Model.eq(model.as_str()));
    }
    if let Some(user_id) = filter.user_id {
        query = query.filter(ai_usage::Column::UserId.eq(user_id));
    }
    if let Some(tool_id) = filter.tool_id {
        query = query.filter(ai_usage::Column::ToolId.eq(tool_id));
    }
    query
}

fn key_of(row: &UsageFields, grouping: UsageGrouping) -> String {
    let (created_at, model, user_id, tool_id, ..) = row;
    match grouping {
        UsageGrouping::Day => day_of(*created_at),
        UsageGrouping::Model => model.clone(),
        UsageGrouping::User => user_id.to_string(),
        UsageGrouping::Tool => tool_id.to_string(),
    }
}

/// The running sums of one group.
#[derive(Debug, Default)]
struct Accumulator {
    calls: u64,
    input_tokens: i64,
    output_tokens: i64,
    cost_usd: f64,
    ttft_ms: Vec<i64>,
    latency_ms: Vec<i64>,
    refused_turns: u64,
}

impl Accumulator {
    fn add(&mut self, row: &UsageFields) {
        let (.., input, output, cost, latency, ttft) = row;
        self.calls += 1;
        self.input_tokens += input;
        self.output_tokens += output;
        self.cost_usd += cost;
        self.latency_ms.push(*latency);
        self.ttft_ms.extend(*ttft);
    }

    fn finish(self, key: String) -> UsageGroup {
        UsageGroup {
            key,
            calls: self.calls,
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            cost_usd: self.cost_usd,
            ttft_ms: Percentiles::of(self.ttft_ms),
            latency_ms: Percentiles::of(self.latency_ms),
            refused_turns: self.refused_turns,
        }
    }
}
