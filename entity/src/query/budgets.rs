//! What budgets need from the database: the admins' budgets (create, list, read, change
//! the limit, delete), the budgets a turn counts against, the names of their subjects,
//! and what a subject spent in a period (the sum of its `ai_usage` costs), from which a
//! missing counter is seeded.

use std::collections::HashMap;

use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, JoinType,
    QueryFilter, QueryOrder, QuerySelect, RelationTrait, prelude::DateTimeUtc, sea_query::Expr,
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::{ai_usage, budgets, error::Context, groups, tools, users};

/// Whose spending a budget limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subject {
    /// One user's turns, on any tool.
    User(Uuid),
    /// The turns on tools of a group and of its sub-groups, by anyone.
    Group(Uuid),
}

impl Subject {
    pub fn kind(self) -> &'static str {
        match self {
            Self::User(_) => "user",
            Self::Group(_) => "group",
        }
    }

    pub fn id(self) -> Uuid {
        match self {
            Self::User(id) | Self::Group(id) => id,
        }
    }

    fn of(row: &budgets::Model) -> Result<Self> {
        match (row.subject.as_str(), row.user_id, row.group_id) {
            ("user", Some(id), _) => Ok(Self::User(id)),
            ("group", _, Some(id)) => Ok(Self::Group(id)),
            (other, ..) => Err(Error::internal(
                "reading a budget",
                format!("a budget of subject `{other}` without its id"),
            )),
        }
    }
}

/// The calendar period a budget counts in (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Period {
    Day,
    Month,
}

impl Period {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Month => "month",
        }
    }

    fn parse(s: &str) -> Result<Self> {
        match s {
            "day" => Ok(Self::Day),
            "month" => Ok(Self::Month),
            other => Err(Error::internal(
                "reading a budget",
                format!("an unknown budget period `{other}`"),
            )),
        }
    }
}

/// A budget as the application works with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    pub id: Uuid,
    pub subject: Subject,
    pub period: Period,
    pub limit_micros: i64,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl TryFrom<budgets::Model> for Budget {
    type Error = Error;

    fn try_from(row: budgets::Model) -> Result<Self> {
        Ok(Self {
            id: row.id,
            subject: Subject::of(&row)?,
            period: Period::parse(&row.period)?,
            limit_micros: row.limit_micros,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

fn rows(rows: Vec<budgets::Model>) -> Result<Vec<Budget>> {
    rows.into_iter().map(Budget::try_from).collect()
}

/// A new budget. The subject must exist (422 `user_not_found` / `group_not_found`) and
/// have no budget for the period yet (409 `budget_exists`).
pub async fn create<C: ConnectionTrait>(
    db: &C,
    subject: Subject,
    period: Period,
    limit_micros: i64,
    now: DateTimeUtc,
) -> Result<Budget> {
    let exists = match subject {
        Subject::User(id) => users::Entity::find_by_id(id)
            .one(db)
            .await
            .map(|u| u.is_some()),
        Subject::Group(id) => groups::Entity::find_by_id(id)
            .one(db)
            .await
            .map(|g| g.is_some()),
    }
    .context("looking up a budget's subject")?;
    if !exists {
        return Err(match subject {
            Subject::User(_) => Error::invalid(ErrorCode::UserNotFound, "the user does not exist"),
            Subject::Group(_) => {
                Error::invalid(ErrorCode::GroupNotFound, "the group does not exist")
            }
        });
    }
    let (user_id, group_id) = match subject {
        Subject::User(id) => (Some(id), None),
        Subject::Group(id) => (None, Some(id)),
    };
    let row = budgets::Model {
        id: Uuid::now_v7(),
        subject: subject.kind().to_owned(),
        user_id,
        group_id,
        period: period.as_str().to_owned(),
        limit_micros,
        created_at: now,
        updated_at: now,
    };
    let inserted = budgets::Entity::insert(budgets::ActiveModel::from(row.clone()))
        .exec_without_returning(db)
        .await
        .context("creating a budget");
    match inserted {
        Err(Error::Conflict {
            code: ErrorCode::AlreadyExists,
            ..
        }) => Err(Error::conflict(
            ErrorCode::BudgetExists,
            format!(
                "this {} already has a budget per {}",
                subject.kind(),
                period.as_str()
            ),
        )),
        Err(err) => Err(err),
        Ok(_) => Budget::try_from(row),
    }
}

/// Which budgets a list shows (none set: all).
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter {
    pub user_id: Option<Uuid>,
    pub group_id: Option<Uuid>,
}

/// Budgets, newest first.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    filter: Filter,
    page: PageRequest<Uuid>,
) -> Result<Page<Budget, Uuid>> {
    let mut query = budgets::Entity::find().order_by_desc(budgets::Column::Id);
    if let Some(user) = filter.user_id {
        query = query.filter(budgets::Column::UserId.eq(user));
    }
    if let Some(group) = filter.group_id {
        query = query.filter(budgets::Column::GroupId.eq(group));
    }
    if let Some(after) = page.after {
        query = query.filter(budgets::Column::Id.lt(after));
    }
    let found = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing budgets")?;
    Ok(Page::from_overfetch(rows(found)?, page.limit, |b| b.id))
}

pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<Budget> {
    budgets::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a budget")?
        .ok_or(Error::NotFound { what: "budget" })?
        .try_into()
}

/// Changes a budget's limit.
pub async fn set_limit<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    limit_micros: i64,
    now: DateTimeUtc,
) -> Result<Budget> {
    let row = budgets::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a budget")?
        .ok_or(Error::NotFound { what: "budget" })?;
    let mut row: budgets::ActiveModel = row.into();
    row.limit_micros = Set(limit_micros);
    row.updated_at = Set(now);
    row.update(db)
        .await
        .context("changing a budget's limit")?
        .try_into()
}

pub async fn delete<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<()> {
    let deleted = budgets::Entity::delete_by_id(id)
        .exec(db)
        .await
        .context("deleting a budget")?;
    if deleted.rows_affected == 0 {
        return Err(Error::NotFound { what: "budget" });
    }
    Ok(())
}

/// Every budget of the deployment (a handful: one per user or group and period), for
/// the catalogue each process keeps (`parley_service::budget`).
pub async fn all<C: ConnectionTrait>(db: &C) -> Result<Vec<Budget>> {
    let found = budgets::Entity::find()
        .all(db)
        .await
        .context("reading the budgets")?;
    rows(found)
}

/// The names of the budgets' subjects (users' names, groups' names), by id.
pub async fn subject_names<C: ConnectionTrait>(
    db: &C,
    budgets: &[Budget],
) -> Result<HashMap<Uuid, String>> {
    let (mut user_ids, mut group_ids) = (Vec::new(), Vec::new());
    for b in budgets {
        match b.subject {
            Subject::User(id) => user_ids.push(id),
            Subject::Group(id) => group_ids.push(id),
        }
    }
    let mut names = HashMap::new();
    if !user_ids.is_empty() {
        let found: Vec<(Uuid, String)> = users::Entity::find()
            .select_only()
            .column(users::Column::Id)
            .column(users::Column::Name)
            .filter(users::Column::Id.is_in(user_ids))
            .into_tuple()
            .all(db)
            .await
            .context("reading budgets' users")?;
        names.extend(found);
    }
    if !group_ids.is_empty() {
        let found: Vec<(Uuid, String)> = groups::Entity::find()
            .select_only()
            .column(groups::Column::Id)
            .column(groups::Column::Name)
            .filter(groups::Column::Id.is_in(group_ids))
            .into_tuple()
            .all(db)
            .await
            .context("reading budgets' groups")?;
        names.extend(found);
    }
    Ok(names)
}

/// What `subject` spent in `[from, to)`: the sum of its usage rows' costs, each rounded
/// to micro-units as the counters add them. A group's are the turns on tools of the
/// group and of its sub-groups.
pub async fn spent_micros<C: ConnectionTrait>(
    db: &C,
    subject: Subject,
    from: DateTimeUtc,
    to: DateTimeUtc,
) -> Result<i64> {
    let mut query = ai_usage::Entity::find()
        .select_only()
        .column_as(
            Expr::cust("COALESCE(SUM(ROUND(ai_usage.cost_usd * 1000000.0)), 0.0)"),
            "spent",
        )
        .filter(ai_usage::Column::CreatedAt.gte(from))
        .filter(ai_usage::Column::CreatedAt.lt(to));
    match subject {
        Subject::User(id) => query = query.filter(ai_usage::Column::UserId.eq(id)),
        Subject::Group(id) => {
            let path: Option<String> = groups::Entity::find_by_id(id)
                .select_only()
                .column(groups::Column::Path)
                .into_tuple()
                .one(db)
                .await
                .context("reading a budget's group")?;
            let Some(path) = path else { return Ok(0) };
            query = query
                .join(JoinType::InnerJoin, ai_usage::Relation::Tool.def())
                .join(JoinType::InnerJoin, tools::Relation::Group.def())
                .filter(groups::Column::Path.starts_with(path));
        }
    }
    let spent: Option<f64> = query
        .into_tuple()
        .one(db)
        .await
        .context("summing a budget's spending")?;
    Ok(spent.unwrap_or(0.0).round() as i64)
}
