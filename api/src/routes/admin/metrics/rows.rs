//! The rows behind the admin figures — `GET /v1/admin/usage/calls` (the LLM calls of a
//! usage group) and `GET /v1/admin/blocks/events` (the module events of a block figure)
//! — and `POST /v1/admin/prompts/{id}/cancel`. Each path has its own `#[OpenApi]` impl
//! here, apart from the figures' (poem-openapi wants one impl per path).

use chrono::{DateTime, NaiveDate, Utc};
use parley_entity::query::metrics::{
    Window,
    calls::{self as c, RowKey},
};
use parley_protocol::events::CallError;
use poem::web::Data;
use poem_openapi::{
    Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::{CURRENCY, usage_filter, window};
use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    routes::{ApiTags, prompts::PromptAccepted, views::ModuleOutcome},
    state::AppState,
};

/// One LLM call, with its user's and tool's names.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct UsageCall {
    pub id: Uuid,
    pub created_at: DateTime<Utc>,
    pub session_id: Uuid,
    pub prompt_id: Uuid,
    /// The answer the call produced, when it produced one.
    pub message_id: Option<Uuid>,
    pub user_id: Uuid,
    /// Absent when the user was deleted.
    pub user_name: Option<String>,
    pub user_email: Option<String>,
    pub tool_id: Uuid,
    pub tool_name: Option<String>,
    pub model: String,
    pub vendor: String,
    /// Every input token; the two below are parts of it.
    pub input_tokens: i64,
    /// Every output token; `reasoning_tokens` is a part of it.
    pub output_tokens: i64,
    /// Input read from the provider's prompt cache.
    pub cached_input_tokens: i64,
    /// Input written to the provider's prompt cache.
    pub cache_write_tokens: i64,
    /// Output the model spent thinking.
    pub reasoning_tokens: i64,
    /// At the model's prices (per kind) when the call was recorded.
    pub cost_usd: f64,
    /// Always `USD`.
    pub currency: String,
    pub latency_ms: i64,
    /// Absent when no token came.
    pub ttft_ms: Option<i64>,
    /// How the call failed; absent when it did not.
    pub error: Option<CallError>,
}

impl From<c::Call> for UsageCall {
    fn from(call: c::Call) -> Self {
        let r = call.row;
        Self {
            id: r.id,
            created_at: r.created_at,
            session_id: r.session_id,
            prompt_id: r.prompt_id,
            message_id: r.message_id,
            user_id: r.user_id,
            user_name: call.user_name,
            user_email: call.user_email,
            tool_id: r.tool_id,
            tool_name: call.tool_name,
            model: r.model,
            vendor: r.vendor,
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
            cached_input_tokens: r.cached_input_tokens,
            cache_write_tokens: r.cache_write_tokens,
            reasoning_tokens: r.reasoning_tokens,
            cost_usd: r.cost_usd,
            currency: CURRENCY.to_owned(),
            latency_ms: r.latency_ms,
            ttft_ms: r.ttft_ms,
            error: r.error,
        }
    }
}

/// One recorded run of a module at a hook, with its session.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct BlockEvent {
    pub id: Uuid,
    pub prompt_id: Option<Uuid>,
    /// The prompt's session, while the prompt exists.
    pub session_id: Option<Uuid>,
    pub module: String,
    pub hook: String,
    pub outcome: ModuleOutcome,
    pub duration_ms: i64,
    /// The category the module gave; absent when it gave none.
    pub category: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<c::Event> for BlockEvent {
    fn from(e: c::Event) -> Self {
        let r = e.row;
        Self {
            id: r.id,
            prompt_id: r.prompt_id,
            session_id: e.session_id,
            module: r.module,
            hook: r.hook,
            outcome: r.outcome.into(),
            duration_ms: r.duration_ms,
            category: r.category,
            created_at: r.created_at,
        }
    }
}

pub struct UsageRowsAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl UsageRowsAdminApi {
    /// LLM calls
    ///
    /// The calls behind `GET /v1/admin/usage`'s figures, with the same filters (and
    /// `day` for one day's group), newest first, with user and tool names: a group's
    /// calls sum to its figures.
    #[oai(
        path = "/usage/calls",
        method = "get",
        operation_id = "admin_usage_calls"
    )]
    // poem-openapi takes each query parameter as an argument of its own.
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn calls(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Calls at or after this time; default: 30 days before `to`.
        from: Query<Option<DateTime<Utc>>>,
        /// Calls before this time (must be after `from`); default: no end.
        to: Query<Option<DateTime<Utc>>>,
        /// Only calls of this UTC day (within `from` and `to` when given).
        day: Query<Option<NaiveDate>>,
        /// Only calls to this model.
        #[oai(validator(min_length = 1, max_length = 200))]
        model: Query<Option<String>>,
        /// Only calls answering this user.
        user_id: Query<Option<Uuid>>,
        /// Only calls in sessions of this chat tool.
        tool_id: Query<Option<Uuid>>,
        /// Only calls in sessions of the tools of this group.
        group_id: Query<Option<Uuid>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<UsageCall>>, statuses::AdminList> {
        let filter = usage_filter(
            from.0, to.0, day.0, model.0, user_id.0, tool_id.0, group_id.0,
        )?;
        let page = pagination::request::<RowKey>(limit.0, cursor.0.as_deref())?;
        let calls = state.reports().calls(&filter, page).await?;
        Ok(Json(Page::from_rows(calls, UsageCall::from)))
    }

    /// Module events
    ///
    /// The module runs behind `GET /v1/admin/blocks`' figures, filtered by module,
    /// outcome and category (`uncategorized`: recorded without one), newest first.
    #[oai(
        path = "/blocks/events",
        method = "get",
        operation_id = "admin_block_events"
    )]
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn events(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Runs at or after this time; default: 30 days before `to`.
        from: Query<Option<DateTime<Utc>>>,
        /// Runs before this time (must be after `from`); default: no end.
        to: Query<Option<DateTime<Utc>>>,
        /// Only runs of this module.
        #[oai(validator(min_length = 1, max_length = 200))]
        module: Query<Option<String>>,
        /// Only runs with this outcome.
        outcome: Query<Option<ModuleOutcome>>,
        /// Only blocks and modifications of this category.
        #[oai(validator(min_length = 1, max_length = 200))]
        category: Query<Option<String>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<BlockEvent>>, statuses::AdminList> {
        let window: Window = window(from.0, to.0)?;
        let filter = c::EventFilter {
            window,
            module: module.0,
            outcome: outcome.0.map(Into::into),
            category: category.0,
        };
        let page = pagination::request::<RowKey>(limit.0, cursor.0.as_deref())?;
        let events = state.reports().events(&filter, page).await?;
        Ok(Json(Page::from_rows(events, BlockEvent::from)))
    }
}

pub struct PromptsAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl PromptsAdminApi {
    /// Cancel any prompt
    ///
    /// The admin's cancel of a prompt in flight (a stuck one, say), whoever's it is: as
    /// the owner's `POST /v1/prompts/{id}/cancel` — recorded, then signalled to the
    /// worker; partial content is kept. 404 for an unknown prompt, 409
    /// `prompt_finished` when it already ended.
    #[oai(
        path = "/prompts/:id/cancel",
        method = "post",
        operation_id = "admin_cancel_prompt"
    )]
    async fn cancel(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<PromptAccepted, statuses::AdminAct> {
        let prompt = state.turns.cancel_any(id.0).await?;
        Ok(PromptAccepted::Accepted(Json(prompt.into())))
    }
}
