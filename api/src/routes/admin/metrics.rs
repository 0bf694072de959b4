//! `/v1/admin/usage`, `/v1/admin/blocks` and `/v1/admin/prompts/stats`: the figures of
//! the admin dashboard (DESIGN §7). The queries are in
//! `parley_entity::query::metrics`; here the window is parsed and the figures mapped.

use chrono::{DateTime, Datelike, Duration, Utc};
use parley_entity::query::{
    self,
    metrics::{Window, blocks as b, prompt_stats as s, usage as u},
};
use parley_protocol::error::ErrorCode;
use parley_protocol::events::PromptState;
use poem::web::Data;
use poem_openapi::{Enum, Object, OpenApi, param::Query, payload::Json};
use uuid::Uuid;

use crate::{
    auth::AdminAuth,
    error::{ApiResult, Problem, statuses},
    pagination::{self, Limit, Page},
    routes::ApiTags,
    state::AppState,
};

/// The window when `from` is absent: this many days before `to` (or now).
const DEFAULT_DAYS: i64 = 30;
/// A prompt unfinished for this long is stuck, unless `stuck_after_s` says otherwise.
const DEFAULT_STUCK_AFTER_S: u32 = 120;
/// The most stuck prompts listed (all are counted).
const MAX_STUCK_LISTED: u64 = 50;

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
}

impl From<UsageGroupBy> for u::UsageGrouping {
    fn from(value: UsageGroupBy) -> Self {
        match value {
            UsageGroupBy::Day => Self::Day,
            UsageGroupBy::Model => Self::Model,
            UsageGroupBy::User => Self::User,
            UsageGroupBy::Tool => Self::Tool,
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

/// The LLM calls of one group: a day, a model, a user or a tool.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct UsageGroup {
    /// The day (`YYYY-MM-DD`, UTC), the model id, or the user's or tool's id, as
    /// `group_by` asked.
    pub key: String,
    /// LLM calls (a turn makes one per round of its function-calling loop; cancelled
    /// and failed calls count).
    pub calls: u64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    /// The calls' cost in US dollars, at the model's prices when each call was recorded.
    pub cost_usd: f64,
    /// Median time to the first token, in ms; absent when no call reported one.
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
            calls: g.calls,
            input_tokens: g.input_tokens,
            output_tokens: g.output_tokens,
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
    /// 95th percentile of the hook runs' durations, in ms.
    pub p95_duration_ms: i64,
    /// Blocks and modifications by category, by category name.
    pub by_category: Vec<BlockCategory>,
}

/// `part / whole`, 0 for an empty whole.
fn rate(part: u64, whole: u64) -> f64 {
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
pub struct StuckPrompt {
    pub id: Uuid,
    pub session_id: Uuid,
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
}

impl PromptStats {
    fn new(stats: s::PromptStats, stuck_after_s: u32, now: DateTime<Utc>) -> Self {
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
                .map(|p| StuckPrompt {
                    age_s: (now - p.created_at).num_seconds(),
                    id: p.id,
                    session_id: p.session_id,
                    state: p.state,
                    created_at: p.created_at,
                })
                .collect(),
        }
    }
}

/// The window of `from` and `to`: `from` defaults to 30 days before `to` (or now), and
/// must be before `to` (400 `invalid_parameter`).
pub(super) fn window(
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
) -> Result<Window, Box<Problem>> {
    let from = from.or_else(|| {
        to.unwrap_or_else(query::now)
            .checked_sub_signed(Duration::days(DEFAULT_DAYS))
    });
    span(from, to)
}

/// The window of `from` and `to` as given (an absent side is open); `from` must be
/// before `to` (400 `invalid_parameter`).
pub(super) fn span(
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
) -> Result<Window, Box<Problem>> {
    if let (Some(from), Some(to)) = (from, to)
        && from >= to
    {
        return Err(Box::new(Problem::new(
            ErrorCode::InvalidParameter,
            "parameter `from`: must be before `to`",
        )));
    }
    Ok(Window {
        from: from.map(storable),
        to: to.map(storable),
    })
}

/// `at` within the years 1 to 9999, which both databases store and order correctly
/// (SQLite compares times as text); no row lies outside them, so the window's rows are
/// the same.
fn storable(at: DateTime<Utc>) -> DateTime<Utc> {
    let first = DateTime::<Utc>::MIN_UTC
        .with_year(1)
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    let last = DateTime::<Utc>::MAX_UTC
        .with_year(9999)
        .unwrap_or(DateTime::<Utc>::MAX_UTC);
    at.clamp(first, last)
}

pub struct MetricsAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl MetricsAdminApi {
    /// Usage of models
    ///
    /// LLM calls in a window — calls, tokens, cost, time to first token and latency
    /// percentiles — grouped by day, model, user or tool, in key order, paged by group.
    #[oai(path = "/usage", method = "get", operation_id = "admin_usage")]
    // poem-openapi takes each query parameter as an argument of its own.
    #[allow(clippy::too_many_arguments)]
    async fn usage(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Calls at or after this time; default: 30 days before `to`.
        from: Query<Option<DateTime<Utc>>>,
        /// Calls before this time (must be after `from`); default: no end.
        to: Query<Option<DateTime<Utc>>>,
        /// What to group by (default `day`).
        group_by: Query<Option<UsageGroupBy>>,
        /// Only calls to this model.
        #[oai(validator(min_length = 1, max_length = 200))]
        model: Query<Option<String>>,
        /// Only calls answering this user.
        user_id: Query<Option<Uuid>>,
        /// Only calls in sessions of this chat tool.
        tool_id: Query<Option<Uuid>>,
        /// Page size (groups).
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<UsageGroup>>, statuses::AdminList> {
        let filter = u::UsageFilter {
            window: window(from.0, to.0)?,
            model: model.0,
            user_id: user_id.0,
            tool_id: tool_id.0,
        };
        let grouping = group_by.0.unwrap_or(UsageGroupBy::Day).into();
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let groups = u::usage(&state.db, &filter, grouping, page).await?;
        Ok(Json(Page::from_rows(groups, UsageGroup::from)))
    }

    /// Block metrics
    ///
    /// What modules did at their hooks in a window, by module or day: runs, blocks,
    /// modifications, errors and timeouts with their rates, the 95th percentile of the
    /// hook latency, and blocks and modifications by category.
    #[oai(path = "/blocks", method = "get", operation_id = "admin_blocks")]
    async fn blocks(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Runs at or after this time; default: 30 days before `to`.
        from: Query<Option<DateTime<Utc>>>,
        /// Runs before this time (must be after `from`); default: no end.
        to: Query<Option<DateTime<Utc>>>,
        /// What to group by (default `module`).
        group_by: Query<Option<BlocksGroupBy>>,
    ) -> ApiResult<Json<BlockReport>, statuses::AdminList> {
        let window = window(from.0, to.0)?;
        let grouping = group_by.0.unwrap_or(BlocksGroupBy::Module).into();
        Ok(Json(b::blocks(&state.db, window, grouping).await?.into()))
    }

    /// Prompt statistics
    ///
    /// How many prompts are in each state, and the prompts still unfinished long after
    /// they were created (stuck), oldest first.
    #[oai(
        path = "/prompts/stats",
        method = "get",
        operation_id = "admin_prompt_stats"
    )]
    async fn prompt_stats(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// An unfinished prompt created longer ago than this many seconds is stuck
        /// (default 120).
        #[oai(validator(minimum(value = "1"), maximum(value = "2592000")))]
        stuck_after_s: Query<Option<u32>>,
    ) -> ApiResult<Json<PromptStats>, statuses::AdminList> {
        let stuck_after_s = stuck_after_s.0.unwrap_or(DEFAULT_STUCK_AFTER_S);
        let now = query::now();
        let stuck_before = now - Duration::seconds(i64::from(stuck_after_s));
        let stats = s::prompt_stats(&state.db, stuck_before, MAX_STUCK_LISTED).await?;
        Ok(Json(PromptStats::new(stats, stuck_after_s, now)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rfc3339: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn a_window_must_start_before_it_ends() {
        let (a, b) = (at("2026-01-01T00:00:00Z"), at("2026-01-02T00:00:00Z"));
        for (from, to) in [(b, a), (a, a)] {
            let problem = window(Some(from), Some(to)).unwrap_err();
            assert_eq!(
                (problem.status, problem.code().as_str()),
                (400, "invalid_parameter")
            );
        }
        let ok = window(Some(a), Some(b)).unwrap();
        assert_eq!((ok.from, ok.to), (Some(a), Some(b)));
    }

    #[test]
    fn a_window_starts_30_days_before_its_end_by_default() {
        let to = at("2026-03-01T00:00:00Z");
        let w = window(None, Some(to)).unwrap();
        assert_eq!(w.from, Some(at("2026-01-30T00:00:00Z")));
        let open = window(Some(to), None).unwrap();
        assert_eq!((open.from, open.to), (Some(to), None));
    }

    #[test]
    fn window_bounds_stay_within_storable_years() {
        // Valid RFC 3339 that lies in the year 10000 once in UTC.
        let late = at("9999-12-31T23:59:59-23:59");
        let w = window(Some(at("2026-01-01T00:00:00Z")), Some(late)).unwrap();
        assert_eq!(w.to.unwrap().year(), 9999);
    }

    #[test]
    fn rates_of_nothing_are_zero() {
        assert_eq!(rate(1, 4), 0.25);
        assert_eq!(rate(0, 0), 0.0);
    }
}
