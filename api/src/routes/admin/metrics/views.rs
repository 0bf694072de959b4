//! The admin figures' shapes on the wire, and how the entity's figures map to them.

use chrono::{DateTime, Utc};
use parley_entity::query::metrics::{blocks as b, prompt_stats as s, usage as u};
use parley_protocol::events::PromptState;
use poem_openapi::{Enum, Object};
use uuid::Uuid;

/// How `GET /v1/admin/usage` groups LLM calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum UsageGroupBy {
    /// The UTC day of the call (`YYYY-MM-DD`).
    Day,
    /// The model id.
    Model,
    /// The user the call answered.
    User,
    /// The chat tool of the session.
    Tool,
    /// The group the session's tool belongs to (its group now).
    Group,
}

impl From<UsageGroupBy> for u::UsageGrouping {
    fn from(value: UsageGroupBy) -> Self {
        match value {
            UsageGroupBy::Day => Self::Day,
            UsageGroupBy::Model => Self::Model,
            UsageGroupBy::User => Self::User,
            UsageGroupBy::Tool => Self::Tool,
            UsageGroupBy::Group => Self::Group,
        }
    }
}

/// How `GET /v1/admin/blocks` groups module runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum BlocksGroupBy {
    /// The module's name.
    Module,
    /// The UTC day of the run (`YYYY-MM-DD`).
    Day,
}

impl From<BlocksGroupBy> for b::BlockGrouping {
    fn from(value: BlocksGroupBy) -> Self {
        match value {
            BlocksGroupBy::Module => Self::Module,
            BlocksGroupBy::Day => Self::Day,
        }
    }
}

/// The currency of every cost: model prices are US dollars per million tokens.
pub const CURRENCY: &str = "USD";

/// The LLM calls of one group: a day, a model, a user, a tool or a group.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct UsageGroup {
    /// The day (`YYYY-MM-DD`, UTC), the model id, or the user's, tool's or group's id,
    /// as `group_by` asked.
    pub key: String,
    /// The user's, tool's or group's name beside its id in `key`; absent for days and
    /// models, and when the user, tool or group was deleted.
    pub name: Option<String>,
    /// The user's email (`group_by=user`).
    pub email: Option<String>,
    /// LLM calls (a turn makes one per round of its function-calling loop; cancelled
    /// and failed calls count).
    pub calls: u64,
    /// Every input token; the two below are parts of it.
    pub input_tokens: i64,
    /// Every output token; `reasoning_tokens` is a part of it.
    pub output_tokens: i64,
    /// Input read from the providers' prompt caches.
    pub cached_input_tokens: i64,
    /// Input written to the providers' prompt caches.
    pub cache_write_tokens: i64,
    /// Output the models spent thinking.
    pub reasoning_tokens: i64,
    /// The calls' cost in US dollars, at the model's prices when each call was recorded.
    pub cost_usd: f64,
    /// The currency of `cost_usd`: always `USD`.
    pub currency: String,
    /// Median time to the first token, in ms; absent when no call reported one.
    /// Percentiles are read from histograms (buckets about 1.5× apart, from 50 ms to
    /// 60 s): the bound of the bucket holding the rank, never above the largest value.
    pub ttft_p50_ms: Option<i64>,
    /// 95th percentile of the time to the first token, in ms.
    pub ttft_p95_ms: Option<i64>,
    /// Median duration of a call, in ms.
    pub latency_p50_ms: Option<i64>,
    /// 95th percentile of the duration of a call, in ms.
    pub latency_p95_ms: Option<i64>,
    /// Turns a quota refused (429 `quota_exceeded`); they made no call.
    pub refused_turns: u64,
}

impl From<u::UsageGroup> for UsageGroup {
    fn from(g: u::UsageGroup) -> Self {
        Self {
            key: g.key,
            name: g.name,
            email: g.email,
            currency: CURRENCY.to_owned(),
            calls: g.calls,
            input_tokens: g.input_tokens,
            output_tokens: g.output_tokens,
            cached_input_tokens: g.cached_input_tokens,
            cache_write_tokens: g.cache_write_tokens,
            reasoning_tokens: g.reasoning_tokens,
            cost_usd: g.cost_usd,
            ttft_p50_ms: g.ttft_ms.map(|p| p.p50),
            ttft_p95_ms: g.ttft_ms.map(|p| p.p95),
            latency_p50_ms: g.latency_ms.map(|p| p.p50),
            latency_p95_ms: g.latency_ms.map(|p| p.p95),
            refused_turns: g.refused_turns,
        }
    }
}

/// Blocks and modifications that gave one category.
#[derive(Debug, Object)]
pub struct BlockCategory {
    /// The category the module gave with its reason, or `uncategorized`.
    pub category: String,
    pub blocks: u64,
    pub modifications: u64,
}

impl From<b::CategoryCount> for BlockCategory {
    fn from(c: b::CategoryCount) -> Self {
        Self {
            category: c.category,
            blocks: c.blocks,
            modifications: c.modifications,
        }
    }
}

/// What modules did in one group: a module or a day.
#[derive(Debug, Object)]
pub struct BlockGroup {
    /// The module's name or the day (`YYYY-MM-DD`, UTC), as `group_by` asked.
    pub key: String,
    /// Recorded hook runs.
    pub runs: u64,
    pub blocks: u64,
    pub modifications: u64,
    pub errors: u64,
    pub timeouts: u64,
    /// `blocks / runs`.
    pub block_rate: f64,
    /// `modifications / runs`.
    pub modify_rate: f64,
    /// `errors / runs`.
    pub error_rate: f64,
    /// `timeouts / runs`.
    pub timeout_rate: f64,
    /// 95th percentile of the hook runs' durations, in ms, read from a histogram
    /// (buckets from 1 ms to 5 s): the bound of the bucket holding the rank, never above
    /// the longest run.
    pub p95_duration_ms: i64,
    /// Blocks and modifications by category, by category name.
    pub by_category: Vec<BlockCategory>,
}

/// `part / whole`, 0 for an empty whole.
pub(super) fn rate(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

impl From<b::BlockGroup> for BlockGroup {
    fn from(g: b::BlockGroup) -> Self {
        let c = g.counts;
        Self {
            key: g.key,
            block_rate: rate(c.blocks, c.runs),
            modify_rate: rate(c.modifications, c.runs),
            error_rate: rate(c.errors, c.runs),
            timeout_rate: rate(c.timeouts, c.runs),
            runs: c.runs,
            blocks: c.blocks,
            modifications: c.modifications,
            errors: c.errors,
            timeouts: c.timeouts,
            p95_duration_ms: g.p95_duration_ms,
            by_category: g.by_category.into_iter().map(Into::into).collect(),
        }
    }
}

/// Block metrics of a window.
#[derive(Debug, Object)]
pub struct BlockReport {
    /// Every module (or day) with recorded runs in the window, by key.
    pub groups: Vec<BlockGroup>,
    /// Blocks and modifications of the whole window by category, by category name.
    pub by_category: Vec<BlockCategory>,
}

impl From<b::BlockReport> for BlockReport {
    fn from(r: b::BlockReport) -> Self {
        Self {
            groups: r.groups.into_iter().map(Into::into).collect(),
            by_category: r.by_category.into_iter().map(Into::into).collect(),
        }
    }
}

/// How many prompts are in one state.
#[derive(Debug, Object)]
pub struct StateCount {
    pub state: PromptState,
    pub count: u64,
}

/// A prompt unfinished long after it was created.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct StuckPrompt {
    pub id: Uuid,
    pub session_id: Uuid,
    /// The session's user and tool, with their names (absent when deleted).
    pub user_id: Option<Uuid>,
    pub user_name: Option<String>,
    pub tool_id: Option<Uuid>,
    pub tool_name: Option<String>,
    pub state: PromptState,
    pub created_at: DateTime<Utc>,
    /// Seconds since it was created.
    pub age_s: i64,
}

/// The prompts' state distribution and the stuck ones.
#[derive(Debug, Object)]
pub struct PromptStats {
    /// Every prompt state, zeros included.
    pub by_state: Vec<StateCount>,
    /// The threshold used: unfinished prompts created longer ago than this are stuck.
    pub stuck_after_s: u32,
    /// How many prompts are stuck.
    pub stuck_count: u64,
    /// The oldest stuck prompts, oldest first (at most 50).
    pub stuck: Vec<StuckPrompt>,
    /// How many prompts are in flight (created, in progress or waiting for tools).
    pub in_flight_count: u64,
    /// The prompts in flight, oldest first (at most 50), stuck or not.
    pub in_flight: Vec<StuckPrompt>,
}

impl PromptStats {
    pub(super) fn new(stats: s::PromptStats, stuck_after_s: u32, now: DateTime<Utc>) -> Self {
        Self {
            by_state: stats
                .by_state
                .into_iter()
                .map(|(state, count)| StateCount { state, count })
                .collect(),
            stuck_after_s,
            stuck_count: stats.stuck_count,
            stuck: stats
                .stuck
                .into_iter()
                .map(|p| StuckPrompt::new(p, now))
                .collect(),
            in_flight_count: stats.in_flight_count,
            in_flight: stats
                .in_flight
                .into_iter()
                .map(|p| StuckPrompt::new(p, now))
                .collect(),
        }
    }
}

impl StuckPrompt {
    fn new(p: s::StuckPrompt, now: DateTime<Utc>) -> Self {
        Self {
            age_s: (now - p.created_at).num_seconds(),
            id: p.id,
            session_id: p.session_id,
            user_id: p.user_id,
            user_name: p.user_name,
            tool_id: p.tool_id,
            tool_name: p.tool_name,
            state: p.state,
            created_at: p.created_at,
        }
    }
}
