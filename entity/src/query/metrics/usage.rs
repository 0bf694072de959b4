//! Usage of models: calls, tokens, cost and latency percentiles per day, model, user,
//! tool or group in a time window, paged by group, aggregated by the database.
//!
//! Whole UTC days come from `usage_rollup` (kept by the [rollup pass](super::rollup));
//! the window's partial first and last days and the rows not rolled up yet come from
//! `ai_usage` itself, summed by the same statement ([`super::Split`]). Counts, tokens and
//! cost are exact; the percentiles are read from histograms (see [`bucket_percentile`]).

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QuerySelect, Value,
};
use uuid::Uuid;

use super::{
    Percentiles, Split, Window,
    sql::{LATENCY_BOUNDS, Sql, bucket_cases, bucket_columns, bucket_percentile, day_expr},
};
use crate::{
    error::Context,
    groups,
    query::page::{Page, PageRequest},
    tools, users,
};

/// What the calls are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageGrouping {
    /// The UTC day of the call (`YYYY-MM-DD`).
    Day,
    Model,
    User,
    Tool,
    /// The group the session's tool belongs to (now).
    Group,
}

impl UsageGrouping {
    /// Whether the keys are ids (the cursor holds one).
    pub fn keyed_by_id(self) -> bool {
        matches!(self, Self::User | Self::Tool | Self::Group)
    }
}

/// Which calls count: those in the window that match every filter given.
#[derive(Debug, Clone, Default)]
pub struct UsageFilter {
    pub window: Window,
    pub model: Option<String>,
    pub user_id: Option<Uuid>,
    pub tool_id: Option<Uuid>,
    /// Calls in sessions of the tools of this group.
    pub group_id: Option<Uuid>,
}

/// The figures of one group of calls.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageGroup {
    /// The day (`YYYY-MM-DD`), the model id, or the user's, tool's or group's id.
    pub key: String,
    /// The user's, tool's or group's name; `None` for days and models, and for a
    /// deleted one.
    pub name: Option<String>,
    /// The user's email (grouping by user).
    pub email: Option<String>,
    pub calls: u64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    /// The parts of `input_tokens` read from and written to prompt caches.
    pub cached_input_tokens: i64,
    pub cache_write_tokens: i64,
    /// The part of `output_tokens` spent thinking.
    pub reasoning_tokens: i64,
    pub cost_usd: f64,
    /// Time to the first token; `None` when no call of the group reported one.
    pub ttft_ms: Option<Percentiles>,
    /// Whole call duration.
    pub latency_ms: Option<Percentiles>,
    /// Turns a quota refused (`quota_refusals`): they made no call.
    pub refused_turns: u64,
}

/// The groups of calls matching `filter`, ordered by key, one page after the cursor's
/// key (the last key of the previous page; an id when [`UsageGrouping::keyed_by_id`]).
pub async fn usage<C: ConnectionTrait>(
    db: &C,
    filter: &UsageFilter,
    grouping: UsageGrouping,
    page: PageRequest<String>,
) -> Result<Page<UsageGroup, String>> {
    let backend = db.get_database_backend();
    let lat = bucket_columns("lat_", LATENCY_BOUNDS.len() + 1);
    let ttft = bucket_columns("ttft_", LATENCY_BOUNDS.len() + 1);
    let mut sql = Sql::new(backend);
    let mut outer = vec![
        "CAST(SUM(calls) AS BIGINT) AS calls".to_owned(),
        "CAST(SUM(input_tokens) AS BIGINT) AS input_tokens".to_owned(),
        "CAST(SUM(output_tokens) AS BIGINT) AS output_tokens".to_owned(),
        "CAST(SUM(cached_input_tokens) AS BIGINT) AS cached_input_tokens".to_owned(),
        "CAST(SUM(cache_write_tokens) AS BIGINT) AS cache_write_tokens".to_owned(),
        "CAST(SUM(reasoning_tokens) AS BIGINT) AS reasoning_tokens".to_owned(),
        "CAST(SUM(cost_usd) AS DOUBLE PRECISION) AS cost_usd".to_owned(),
        "CAST(SUM(ttft_calls) AS BIGINT) AS ttft_calls".to_owned(),
        "CAST(MAX(latency_max) AS BIGINT) AS latency_max".to_owned(),
        "CAST(MAX(ttft_max) AS BIGINT) AS ttft_max".to_owned(),
        "CAST(SUM(refused) AS BIGINT) AS refused".to_owned(),
    ];
    outer.extend(
        lat.iter()
            .chain(&ttft)
            .map(|c| format!("CAST(SUM({c}) AS BIGINT) AS {c}")),
    );
    sql.push(&format!("SELECT k, {} FROM (", outer.join(", ")));
    let split = Split::of(filter.window);
    let mut first = true;
    let mut union = |sql: &mut Sql| {
        if !std::mem::take(&mut first) {
            sql.push(" UNION ALL ");
        }
    };
    if let Some((lo, hi)) = &split.days {
        union(&mut sql);
        let key = key_expr(grouping, backend, "r", true);
        sql.push(&format!(
            "SELECT {key} AS k, r.calls, r.input_tokens, r.output_tokens, \
             r.cached_input_tokens, r.cache_write_tokens, r.reasoning_tokens, r.cost_usd, \
             r.ttft_calls, r.latency_max, r.ttft_max, 0 AS refused, {} FROM usage_rollup r{} WHERE 1 = 1",
            lat.iter()
                .chain(&ttft)
                .map(|c| format!("r.{c}"))
                .collect::<Vec<_>>()
                .join(", "),
            join_tools(grouping, filter, "r"),
        ));
        if let Some(lo) = lo {
            let p = sql.bind(lo.clone());
            sql.push(&format!(" AND r.day >= {p}"));
        }
        if let Some(hi) = hi {
            let p = sql.bind(hi.clone());
            sql.push(&format!(" AND r.day < {p}"));
        }
        filters(&mut sql, filter, "r");
    }
    for (range, unrolled) in split.raw_ranges() {
        union(&mut sql);
        let key = key_expr(grouping, backend, "u", false);
        // Every column named: the first part of the union names them.
        let cases: Vec<String> = bucket_cases("u.latency_ms", &LATENCY_BOUNDS)
            .into_iter()
            .chain(bucket_cases("u.ttft_ms", &LATENCY_BOUNDS))
            .zip(lat.iter().chain(&ttft))
            .map(|(case, name)| format!("{case} AS {name}"))
            .collect();
        sql.push(&format!(
            "SELECT {key} AS k, 1 AS calls, u.input_tokens, u.output_tokens, \
             u.cached_input_tokens, u.cache_write_tokens, u.reasoning_tokens, u.cost_usd, \
             CASE WHEN u.ttft_ms IS NULL THEN 0 ELSE 1 END AS ttft_calls, \
             u.latency_ms AS latency_max, COALESCE(u.ttft_ms, 0) AS ttft_max, 0 AS refused, \
             {} FROM ai_usage u{} WHERE 1 = 1",
            cases.join(", "),
            join_tools(grouping, filter, "u"),
        ));
        if unrolled {
            sql.push(" AND u.rolled_up = FALSE");
        }
        range.filter(&mut sql, "u.created_at");
        filters(&mut sql, filter, "u");
    }
    // Refused turns: few, read from their rows over the whole window.
    union(&mut sql);
    let zeros = lat
        .iter()
        .chain(&ttft)
        .map(|c| format!("0 AS {c}"))
        .collect::<Vec<_>>()
        .join(", ");
    sql.push(&format!(
        "SELECT {} AS k, 0 AS calls, 0 AS input_tokens, 0 AS output_tokens, \
         0 AS cached_input_tokens, 0 AS cache_write_tokens, 0 AS reasoning_tokens, \
         CAST(0 AS DOUBLE PRECISION) AS cost_usd, 0 AS ttft_calls, 0 AS latency_max, \
         0 AS ttft_max, 1 AS refused, {zeros} \
         FROM quota_refusals q{} WHERE 1 = 1",
        key_expr(grouping, backend, "q", false),
        join_tools(grouping, filter, "q"),
    ));
    super::Range {
        from: filter.window.from,
        to: filter.window.to,
    }
    .filter(&mut sql, "q.created_at");
    filters(&mut sql, filter, "q");
    sql.push(") x");
    if let Some(after) = &page.after {
        let p = match grouping.keyed_by_id() {
            true => sql.bind(Uuid::parse_str(after).unwrap_or(Uuid::max())),
            false => sql.bind(after.clone()),
        };
        sql.push(&format!(" WHERE k > {p}"));
    }
    let limit = sql.bind(
        i64::try_from(page.limit)
            .unwrap_or(i64::MAX)
            .saturating_add(1),
    );
    sql.push(&format!(" GROUP BY k ORDER BY k LIMIT {limit}"));
    let rows = db
        .query_all_raw(sql.statement())
        .await
        .context("summing usage")?;
    let mut groups = Vec::with_capacity(rows.len());
    for row in rows {
        let key = match grouping.keyed_by_id() {
            true => row.try_get::<Uuid>("", "k").map(|id| id.to_string()),
            false => row.try_get::<String>("", "k"),
        }
        .context("reading usage")?;
        let get = |col: &str| row.try_get::<i64>("", col);
        let read = || -> std::result::Result<UsageGroup, sea_orm::DbErr> {
            let lat: Vec<i64> = lat
                .iter()
                .map(|c| get(c))
                .collect::<std::result::Result<_, _>>()?;
            let ttft: Vec<i64> = ttft
                .iter()
                .map(|c| get(c))
                .collect::<std::result::Result<_, _>>()?;
            let (lat_max, ttft_max) = (get("latency_max")?, get("ttft_max")?);
            Ok(UsageGroup {
                key: key.clone(),
                name: None,
                email: None,
                calls: u64::try_from(get("calls")?).unwrap_or(0),
                input_tokens: get("input_tokens")?,
                output_tokens: get("output_tokens")?,
                cached_input_tokens: get("cached_input_tokens")?,
                cache_write_tokens: get("cache_write_tokens")?,
                reasoning_tokens: get("reasoning_tokens")?,
                cost_usd: row.try_get::<f64>("", "cost_usd")?,
                ttft_ms: percentiles(&ttft, ttft_max),
                latency_ms: percentiles(&lat, lat_max),
                refused_turns: u64::try_from(get("refused")?).unwrap_or(0),
            })
        };
        groups.push(read().context("reading usage")?);
    }
    let mut page = Page::from_overfetch(groups, page.limit, |g| g.key.clone());
    name_groups(db, grouping, &mut page.items).await?;
    Ok(page)
}

fn percentiles(counts: &[i64], max: i64) -> Option<Percentiles> {
    Some(Percentiles {
        p50: bucket_percentile(counts, &LATENCY_BOUNDS, max, 50)?,
        p95: bucket_percentile(counts, &LATENCY_BOUNDS, max, 95)?,
    })
}

/// The key of a row of `alias` (`rollup`: a `usage_rollup` row, whose day is a column).
fn key_expr(grouping: UsageGrouping, backend: DbBackend, alias: &str, rollup: bool) -> String {
    match grouping {
        UsageGrouping::Day if rollup => format!("{alias}.day"),
        UsageGrouping::Day => day_expr(backend, &format!("{alias}.created_at")),
        UsageGrouping::Model => format!("{alias}.model"),
        UsageGrouping::User => format!("{alias}.user_id"),
        UsageGrouping::Tool => format!("{alias}.tool_id"),
        UsageGrouping::Group => "t.group_id".to_owned(),
    }
}

/// The join to the tools when the grouping or the filter needs the tool's group.
fn join_tools(grouping: UsageGrouping, filter: &UsageFilter, alias: &str) -> String {
    if grouping == UsageGrouping::Group || filter.group_id.is_some() {
        format!(" JOIN tools t ON t.id = {alias}.tool_id")
    } else {
        String::new()
    }
}

/// The filters other than the window, on the row of `alias`.
pub(super) fn filters(sql: &mut Sql, filter: &UsageFilter, alias: &str) {
    let eq = |sql: &mut Sql, col: String, value: Value| {
        let p = sql.bind(value);
        sql.push(&format!(" AND {col} = {p}"));
    };
    if let Some(model) = &filter.model {
        eq(sql, format!("{alias}.model"), model.clone().into());
    }
    if let Some(user_id) = filter.user_id {
        eq(sql, format!("{alias}.user_id"), user_id.into());
    }
    if let Some(tool_id) = filter.tool_id {
        eq(sql, format!("{alias}.tool_id"), tool_id.into());
    }
    if let Some(group_id) = filter.group_id {
        eq(sql, "t.group_id".to_owned(), group_id.into());
    }
}

/// Fills in the names (and users' emails) of the groups keyed by id.
async fn name_groups<C: ConnectionTrait>(
    db: &C,
    grouping: UsageGrouping,
    items: &mut [UsageGroup],
) -> Result<()> {
    let ids: Vec<Uuid> = items
        .iter()
        .filter_map(|g| Uuid::parse_str(&g.key).ok())
        .collect();
    if ids.is_empty() || !grouping.keyed_by_id() {
        return Ok(());
    }
    // Only the names are read (not the tools' definitions or the users' permissions).
    let names: Vec<(Uuid, String, Option<String>)> = match grouping {
        UsageGrouping::User => users::Entity::find()
            .select_only()
            .columns([users::Column::Id, users::Column::Name, users::Column::Email])
            .filter(users::Column::Id.is_in(ids))
            .into_tuple::<(Uuid, String, String)>()
            .all(db)
            .await
            .context("naming users")?
            .into_iter()
            .map(|(id, name, email)| (id, name, Some(email)))
            .collect(),
        UsageGrouping::Tool => tools::Entity::find()
            .select_only()
            .columns([tools::Column::Id, tools::Column::Name])
            .filter(tools::Column::Id.is_in(ids))
            .into_tuple::<(Uuid, String)>()
            .all(db)
            .await
            .context("naming tools")?
            .into_iter()
            .map(|(id, name)| (id, name, None))
            .collect(),
        _ => groups::Entity::find()
            .select_only()
            .columns([groups::Column::Id, groups::Column::Name])
            .filter(groups::Column::Id.is_in(ids))
            .into_tuple::<(Uuid, String)>()
            .all(db)
            .await
            .context("naming groups")?
            .into_iter()
            .map(|(id, name)| (id, name, None))
            .collect(),
    };
    for group in items {
        if let Some((_, name, email)) = names.iter().find(|(id, ..)| id.to_string() == group.key) {
            group.name = Some(name.clone());
            group.email = email.clone();
        }
    }
    Ok(())
}
