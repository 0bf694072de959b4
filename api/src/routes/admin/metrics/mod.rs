//! `/v1/admin/usage`, `/v1/admin/blocks` and `/v1/admin/prompts/stats`: the figures of
//! the admin dashboard (DESIGN §7), and ([`rows`]) the rows behind them and the admin's
//! cancel of any prompt. The queries are in `parley_entity::query::metrics` (summed by
//! the database over daily rollups and the rows they do not cover yet); here the window
//! is parsed and the figures mapped ([`views`]).

use chrono::{DateTime, Duration, NaiveDate, Utc};
use parley_entity::query::{
    self,
    metrics::{Window, usage as u},
};
use parley_protocol::error::ErrorCode;
use poem::web::Data;
use poem_openapi::{OpenApi, param::Query, payload::Json};
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

mod rows;
mod views;

pub use rows::{PromptsAdminApi, UsageRowsAdminApi};
pub use views::*;

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

pub(super) use crate::window::span;

/// The filter of the usage view and of its calls: the window (narrowed to `day` when
/// one is given) and the model, user, tool and group filters.
pub(super) fn usage_filter(
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
    day: Option<NaiveDate>,
    model: Option<String>,
    user_id: Option<Uuid>,
    tool_id: Option<Uuid>,
    group_id: Option<Uuid>,
) -> Result<u::UsageFilter, Box<Problem>> {
    let window = match day {
        Some(day) => {
            let start = day.and_time(chrono::NaiveTime::MIN).and_utc();
            let end = start + Duration::days(1);
            span(
                Some(from.map_or(start, |f| f.max(start))),
                Some(to.map_or(end, |t| t.min(end))),
            )?
        }
        None => window(from, to)?,
    };
    Ok(u::UsageFilter {
        window,
        model,
        user_id,
        tool_id,
        group_id,
    })
}

pub struct MetricsAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl MetricsAdminApi {
    /// Usage of models
    ///
    /// LLM calls in a window — calls, tokens, cost (with its currency), time to first
    /// token and latency percentiles — grouped by day, model, user, tool or group, in key
    /// order, paged by group; users, tools and groups carry their names beside their
    /// ids. `GET /v1/admin/usage/calls` lists the calls behind a group (same filters).
    #[oai(path = "/usage", method = "get", operation_id = "admin_usage")]
    // poem-openapi takes each query parameter as an argument of its own.
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
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
        /// Only calls in sessions of the tools of this group.
        group_id: Query<Option<Uuid>>,
        /// Only calls of this UTC day (within `from` and `to` when given).
        day: Query<Option<NaiveDate>>,
        /// Page size (groups).
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<UsageGroup>>, statuses::AdminList> {
        let filter = usage_filter(
            from.0, to.0, day.0, model.0, user_id.0, tool_id.0, group_id.0,
        )?;
        let grouping: u::UsageGrouping = group_by.0.unwrap_or(UsageGroupBy::Day).into();
        let page = pagination::request::<String>(limit.0, cursor.0.as_deref())?;
        if grouping.keyed_by_id()
            && let Some(after) = &page.after
            && Uuid::parse_str(after).is_err()
        {
            return Err(Box::new(Problem::new(
                ErrorCode::InvalidCursor,
                "parameter `cursor`: not a cursor of this grouping",
            ))
            .into());
        }
        let groups = state.reports().usage(&filter, grouping, page).await?;
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
        Ok(Json(state.reports().blocks(window, grouping).await?.into()))
    }

    /// Prompt statistics
    ///
    /// How many prompts created in the window are in each state, the prompts in flight
    /// and those still unfinished long after they were created (stuck), oldest first,
    /// with their users' and tools' names. Cancel one with
    /// `POST /v1/admin/prompts/{id}/cancel`.
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
        /// Count prompts created at or after this time; default: all.
        from: Query<Option<DateTime<Utc>>>,
        /// Count prompts created before this time (after `from`); default: no end.
        to: Query<Option<DateTime<Utc>>>,
    ) -> ApiResult<Json<PromptStats>, statuses::AdminList> {
        let window = span(from.0, to.0)?;
        let stuck_after_s = stuck_after_s.0.unwrap_or(DEFAULT_STUCK_AFTER_S);
        let now = query::now();
        let stuck_before = now - Duration::seconds(i64::from(stuck_after_s));
        let stats = state
            .reports()
            .prompt_stats(window, stuck_before, MAX_STUCK_LISTED)
            .await?;
        Ok(Json(PromptStats::new(stats, stuck_after_s, now)))
    }
}

#[cfg(test)]
mod tests {
    use chrono::Datelike;

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
