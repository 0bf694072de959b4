//! What the admin API does with budgets ([`BudgetService`]): each budget shown with its
//! subject's name and its current period's counter (spent and reserved, seeded from
//! `ai_usage` when the counter is missing).

use chrono::{DateTime, Utc};
use parley_entity::query::{
    budgets::{self as q, Budget, Filter, Period, Subject},
    page::{Page, PageRequest},
};
use parley_protocol::error::Result;
use parley_runtime::budget::Counter;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::Budgets;

/// A budget as the admin sees it.
#[derive(Debug, Clone)]
pub struct Shown {
    pub budget: Budget,
    /// The user's or the group's name.
    pub subject_name: String,
    pub period_starts_at: DateTime<Utc>,
    pub period_ends_at: DateTime<Utc>,
    pub counter: Counter,
}

/// The application layer of budgets for administrators: the rows over the database,
/// the counters and the catalogue over [`Budgets`]; cheap to clone.
#[derive(Clone)]
pub struct BudgetService {
    db: DatabaseConnection,
    budgets: Budgets,
}

impl BudgetService {
    pub fn new(db: DatabaseConnection, budgets: Budgets) -> Self {
        Self { db, budgets }
    }

    /// Creates a budget (422 for an unknown subject, 409 when it has one for the period).
    pub async fn create(
        &self,
        subject: Subject,
        period: Period,
        limit_micros: i64,
    ) -> Result<Shown> {
        let budget = q::create(
            &self.db,
            subject,
            period,
            limit_micros,
            parley_entity::query::now(),
        )
        .await?;
        self.budgets.invalidate().await;
        self.show_one(budget).await
    }

    pub async fn list(&self, filter: Filter, page: PageRequest<Uuid>) -> Result<Page<Shown, Uuid>> {
        let found = q::list(&self.db, filter, page).await?;
        let shown = self.show(found.items).await?;
        Ok(Page {
            items: shown,
            next: found.next,
        })
    }

    pub async fn get(&self, id: Uuid) -> Result<Shown> {
        let budget = q::get(&self.db, id).await?;
        self.show_one(budget).await
    }

    /// Changes a budget's limit; it applies to this process's next check, and to the
    /// others' within [`CATALOG_TTL`](super::CATALOG_TTL).
    pub async fn set_limit(&self, id: Uuid, limit_micros: i64) -> Result<Shown> {
        let budget = q::set_limit(&self.db, id, limit_micros, parley_entity::query::now()).await?;
        self.budgets.invalidate().await;
        self.show_one(budget).await
    }

    pub async fn delete(&self, id: Uuid) -> Result<()> {
        q::delete(&self.db, id).await?;
        self.budgets.invalidate().await;
        Ok(())
    }

    async fn show_one(&self, budget: Budget) -> Result<Shown> {
        let mut shown = self.show(vec![budget]).await?;
        shown
            .pop()
            .ok_or(parley_protocol::error::Error::NotFound { what: "budget" })
    }

    async fn show(&self, budgets: Vec<Budget>) -> Result<Vec<Shown>> {
        let names = q::subject_names(&self.db, &budgets).await?;
        let mut counters = self
            .budgets
            .counters(&self.db, &budgets, parley_entity::query::now())
            .await?;
        Ok(budgets
            .into_iter()
            .filter_map(|budget| {
                let (applied, counter) = counters.remove(&budget.id)?;
                Some(Shown {
                    subject_name: names.get(&budget.subject.id()).cloned().unwrap_or_default(),
                    period_starts_at: applied.starts_at,
                    period_ends_at: applied.ends_at,
                    counter,
                    budget,
                })
            })
            .collect())
    }
}
