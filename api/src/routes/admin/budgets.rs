//! `/v1/admin/budgets`: spend limits in money (issue #15), per user or per group and per
//! UTC day or month, each shown with its subject's name and what was spent and is
//! reserved (model calls in flight) in its current period.
//!
//! Amounts are in the model prices' currency (`currency`, US dollars) as decimal
//! numbers, and in integer micro-units beside them (`*_micros`), which are what the
//! counters hold: a limit is stored to the micro-unit.

use chrono::{DateTime, Utc};
use parley_entity::query::budgets::{Filter, Period, Subject};
use parley_protocol::error::{Error, ErrorCode};
use parley_service::budget::{CURRENCY, MICROS, Shown};
use poem::web::Data;
use poem_openapi::{ApiResponse, Enum, Object, OpenApi, param::Path, param::Query, payload::Json};
use uuid::Uuid;

use super::Deleted;
use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    routes::ApiTags,
    state::AppState,
};

/// Whose spending a budget limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum BudgetSubject {
    /// One user's turns, on any tool.
    User,
    /// The turns on the group's tools and its sub-groups' tools, by anyone.
    Group,
}

/// The UTC calendar period a budget counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum BudgetPeriod {
    Day,
    Month,
}

impl From<Period> for BudgetPeriod {
    fn from(p: Period) -> Self {
        match p {
            Period::Day => Self::Day,
            Period::Month => Self::Month,
        }
    }
}

impl From<BudgetPeriod> for Period {
    fn from(p: BudgetPeriod) -> Self {
        match p {
            BudgetPeriod::Day => Self::Day,
            BudgetPeriod::Month => Self::Month,
        }
    }
}

/// A spend limit, and the spending against it in the current period.
#[derive(Debug, Object)]
pub struct Budget {
    pub id: Uuid,
    pub subject: BudgetSubject,
    /// The user's or the group's id.
    pub subject_id: Uuid,
    /// The user's or the group's name.
    pub subject_name: String,
    pub period: BudgetPeriod,
    /// The currency of the amounts (the model prices').
    pub currency: String,
    /// The limit, in the currency.
    pub limit: f64,
    pub limit_micros: i64,
    /// What settled model calls cost in the current period.
    pub spent: f64,
    pub spent_micros: i64,
    /// What model calls in flight hold (their worst case) until they settle.
    pub reserved: f64,
    pub reserved_micros: i64,
    pub period_starts_at: DateTime<Utc>,
    /// When the current period ends and the budget renews.
    pub period_ends_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn money(micros: i64) -> f64 {
    micros as f64 / MICROS
}

impl From<Shown> for Budget {
    fn from(s: Shown) -> Self {
        let b = s.budget;
        Self {
            id: b.id,
            subject: match b.subject {
                Subject::User(_) => BudgetSubject::User,
                Subject::Group(_) => BudgetSubject::Group,
            },
            subject_id: b.subject.id(),
            subject_name: s.subject_name,
            period: b.period.into(),
            currency: CURRENCY.to_owned(),
            limit: money(b.limit_micros),
            limit_micros: b.limit_micros,
            spent: money(s.counter.spent),
            spent_micros: s.counter.spent,
            reserved: money(s.counter.reserved),
            reserved_micros: s.counter.reserved,
            period_starts_at: s.period_starts_at,
            period_ends_at: s.period_ends_at,
            created_at: b.created_at,
            updated_at: b.updated_at,
        }
    }
}

/// A new budget.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateBudget {
    pub subject: BudgetSubject,
    /// The user's or the group's id (422 `user_not_found` / `group_not_found`).
    pub subject_id: Uuid,
    pub period: BudgetPeriod,
    /// The limit in the currency (US dollars), to the micro-unit; 0 refuses every turn.
    #[oai(validator(minimum(value = "0"), maximum(value = "1000000000")))]
    pub limit: f64,
}

/// A budget's new limit.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateBudget {
    /// The limit in the currency (US dollars), to the micro-unit.
    #[oai(validator(minimum(value = "0"), maximum(value = "1000000000")))]
    pub limit: f64,
}

fn micros_of(limit: f64) -> Result<i64, Error> {
    if !limit.is_finite() || limit < 0.0 {
        return Err(Error::invalid(
            ErrorCode::ValidationFailed,
            "the limit must be a number of at least 0",
        ));
    }
    Ok((limit * MICROS).round() as i64)
}

#[derive(ApiResponse)]
pub enum CreatedBudget {
    /// The budget was created.
    #[oai(status = 201)]
    Created(Json<Budget>, #[oai(header = "Location")] String),
}

pub struct BudgetsAdminApi;

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl BudgetsAdminApi {
    /// Create a budget
    ///
    /// A spend limit for a user or a group per UTC day or month. 422 `user_not_found` or
    /// `group_not_found` when the subject does not exist; 409 `budget_exists` when it
    /// has a budget for the period already.
    #[oai(
        path = "/budgets",
        method = "post",
        operation_id = "admin_create_budget"
    )]
    async fn create(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        body: Json<CreateBudget>,
    ) -> ApiResult<CreatedBudget, statuses::AdminCreate> {
        let body = body.0;
        let subject = match body.subject {
            BudgetSubject::User => Subject::User(body.subject_id),
            BudgetSubject::Group => Subject::Group(body.subject_id),
        };
        let limit = micros_of(body.limit)?;
        let shown = state
            .budgets()
            .create(subject, body.period.into(), limit)
            .await?;
        let location = format!("/v1/admin/budgets/{}", shown.budget.id);
        Ok(CreatedBudget::Created(Json(shown.into()), location))
    }

    /// List budgets
    ///
    /// Newest first, each with what was spent and is reserved in its current period.
    #[oai(path = "/budgets", method = "get", operation_id = "admin_list_budgets")]
    async fn list(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Only this user's budgets.
        user_id: Query<Option<Uuid>>,
        /// Only this group's budgets.
        group_id: Query<Option<Uuid>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Budget>>, statuses::AdminList> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let filter = Filter {
            user_id: user_id.0,
            group_id: group_id.0,
        };
        let rows = state.budgets().list(filter, page).await?;
        Ok(Json(Page::from_rows(rows, Budget::from)))
    }

    /// Get a budget
    #[oai(
        path = "/budgets/:id",
        method = "get",
        operation_id = "admin_get_budget"
    )]
    async fn get(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<Budget>, statuses::AdminRead> {
        Ok(Json(state.budgets().get(id.0).await?.into()))
    }

    /// Change a budget's limit
    ///
    /// Applies from the next turn; what was spent in the period stays.
    #[oai(
        path = "/budgets/:id",
        method = "patch",
        operation_id = "admin_update_budget"
    )]
    async fn update(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<UpdateBudget>,
    ) -> ApiResult<Json<Budget>, statuses::AdminWrite> {
        let limit = micros_of(body.0.limit)?;
        let shown = state.budgets().set_limit(id.0, limit).await?;
        Ok(Json(shown.into()))
    }

    /// Delete a budget
    #[oai(
        path = "/budgets/:id",
        method = "delete",
        operation_id = "admin_delete_budget"
    )]
    async fn delete(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Deleted, statuses::AdminDelete> {
        state.budgets().delete(id.0).await?;
        Ok(Deleted::NoContent)
    }
}
