//! What the admin API does with budgets: each budget shown with its subject's name and
//! its current period's counter (spent and reserved, seeded from `ai_usage` when the
//! counter is missing).

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

impl Budgets {
    /// Creates a budget (422 for an unknown subject, 409 when it has one for the period).
    pub async fn create(
        &self,
        db: &DatabaseConnection,
        subject: Subject,
        period: Period,
        limit_micros: i64,
    ) -> Result<Shown> {
        let budget = q::create(
            db,
            subject,
            period,
            limit_micros,
            parley_entity::query::now(),
        )
        .await?;
        self.invalidate().await;
        self.show_one(db, budget).await
    }

    pub async fn list(
        &self,
        db: &DatabaseConnection,
        filter: Filter,
        page: PageRequest<Uuid>,
    ) -> Result<Page<Shown, Uuid>> {
        let found = q::list(db, filter, page).await?;
        let shown = self.show(db, found.items).await?;
        Ok(Page {
            items: shown,
            next: found.next,
        })
    }

    pub async fn get(&self, db: &DatabaseConnection, id: Uuid) -> Result<Shown> {
        let budget = q::get(db, id).await?;
        self.show_one(db, budget).await
    }

    /// Changes a budget's limit; it applies to this process's next check, and to the
    /// others' within [`CATALOG_TTL`](super::CATALOG_TTL).
    pub async fn set_limit(
        &self,
        db: &DatabaseConnection,
        id: Uuid,
        limit_micros: i64,
    ) -> Result<Shown> {
        let budget = q::set_limit(db, id, limit_micros, parley_entity::query::now()).await?;
        self.invalidate().await;
        self.show_one(db, budget).await
    }

    pub async fn delete(&self, db: &DatabaseConnection, id: Uuid) -> Result<()> {
        q::delete(db, id).await?;
        self.invalidate().await;
        Ok(())
    }

    async fn show_one(&self, db: &DatabaseConnection, budget: Budget) -> Result<Shown> {
        let mut shown = self.show(db, vec![budget]).await?;
        shown
            .pop()
            .ok_or(parley_protocol::error::Error::NotFound { what: "budget" })
    }

    async fn show(&self, db: &DatabaseConnection, budgets: Vec<Budget>) -> Result<Vec<Shown>> {
        let names = q::subject_names(db, &budgets).await?;
        let mut counters = self
            .counters(db, &budgets, parley_entity::query::now())
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
