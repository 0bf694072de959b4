//! Budgets in money (issue #15 item 3): spend limits per user and per group, per UTC day
//! or month, in micro-units of the model prices' currency (US dollars), set by admins.
//!
//! A turn counts against its user's budgets and those of its tool's group and of every
//! ancestor of that group (a school's budget covers its classes). Each budget in its
//! current period is a [`Window`] of the budget store (`parley_runtime::budget`): Redis
//! in distributed mode, so the api and every worker see one counter, else this process.
//!
//! * The api [checks](Budgets::check) a turn before it is recorded: every budget must be
//!   below its limit (spent + reserved), else 429 `budget_exceeded` with `Retry-After`
//!   at the end of the period of the budget that refused it.
//! * The worker [reserves](Budgets::reserve) each model call's worst case (the prompt
//!   and the model's output limit at the model's prices) before the call, in every
//!   budget at once and only while each is below its limit, and [settles](Budgets::settle)
//!   what the call cost after it. So a budget is overrun by at most one reservation.
//! * A missing counter is seeded from `ai_usage` (the subject's spending in the period).
//! * Which budgets exist is read from a catalogue each process keeps and reads again
//!   at most every [`CATALOG_TTL`] (and at once after this process changed one): a turn
//!   of a deployment without budgets costs no statement at all, and one with budgets
//!   one (the tool's group path), not a query of the budgets per turn. Another
//!   process's change takes effect here within [`CATALOG_TTL`].
//! * A store that does not answer lets turns through (logged), as quotas do.

use std::{
    collections::HashMap,
    sync::Arc,
    time::{Duration, Instant},
};

use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Utc};
use parley_entity::query::{
    budgets::{self as q, Budget, Period, Subject},
    quotas::ToolScope,
};
use parley_protocol::error::{Error, Result};
use parley_runtime::budget::{BudgetStore, Counter, Decision, Reservation, Window};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

mod admin;
pub use admin::{BudgetService, Shown};

/// The currency of the model prices, and so of budgets.
pub const CURRENCY: &str = "USD";

/// Micro-units of the currency in one unit.
pub const MICROS: f64 = 1_000_000.0;

/// A call's cost in micro-units, as the counters add it and as the database sums it
/// (`ROUND(cost_usd × 10⁶)`): rounded to the nearest micro-unit.
pub fn micros(cost_usd: f64) -> i64 {
    (cost_usd * MICROS).round() as i64
}

/// One budget in its current period.
#[derive(Debug, Clone)]
pub struct Applied {
    pub budget: Budget,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub window: Window,
}

impl Applied {
    fn new(budget: Budget, now: DateTime<Utc>) -> Self {
        let (starts_at, ends_at) = period_bounds(budget.period, now);
        let start_key = match budget.period {
            Period::Day => starts_at.format("%Y%m%d"),
            Period::Month => starts_at.format("%Y%m"),
        };
        let window = Window {
            key: format!(
                "{}:{}:{}:{start_key}",
                budget.subject.kind(),
                budget.subject.id(),
                budget.period.as_str()
            ),
            limit: budget.limit_micros,
            ends_at_ms: ends_at.timestamp_millis(),
        };
        Self {
            budget,
            starts_at,
            ends_at,
            window,
        }
    }
}

/// The UTC calendar period of `period` that holds `now`: its start and its end.
pub fn period_bounds(period: Period, now: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
    let date = now.date_naive();
    let (start, end) = match period {
        Period::Day => (date, date.succ_opt().unwrap_or(date)),
        Period::Month => {
            let first = NaiveDate::from_ymd_opt(date.year(), date.month(), 1).unwrap_or(date);
            let next = if date.month() == 12 {
                NaiveDate::from_ymd_opt(date.year() + 1, 1, 1)
            } else {
                NaiveDate::from_ymd_opt(date.year(), date.month() + 1, 1)
            };
            (first, next.unwrap_or(first))
        }
    };
    let at = |d: NaiveDate| Utc.from_utc_datetime(&d.and_time(chrono::NaiveTime::MIN));
    (at(start), at(end))
}

/// The budgets one turn counts against, in their current periods: the user's first.
#[derive(Debug, Clone, Default)]
pub struct TurnBudgets {
    pub applied: Vec<Applied>,
}

impl TurnBudgets {
    pub fn is_empty(&self) -> bool {
        self.applied.is_empty()
    }

    fn windows(&self) -> Vec<Window> {
        self.applied.iter().map(|a| a.window.clone()).collect()
    }
}

/// A turn (or a call) over a budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub subject: Subject,
    pub period: Period,
    pub limit_micros: i64,
    /// Seconds until the budget's period ends (at least 1).
    pub retry_after_s: u64,
}

impl Refused {
    /// The 429 the caller gets.
    pub fn error(&self) -> Error {
        Error::OverBudget {
            message: self.message(),
            retry_after_s: self.retry_after_s,
        }
    }

    /// Whose budget, which period, when it renews.
    pub fn message(&self) -> String {
        let whose = match self.subject {
            Subject::User(_) => "your",
            Subject::Group(_) => "your group's",
        };
        format!(
            "over {whose} budget of {:.2} {CURRENCY} per {}; it renews in {} s",
            self.limit_micros as f64 / MICROS,
            self.period.as_str(),
            self.retry_after_s
        )
    }

    fn count(&self) {
        parley_runtime::metrics::metrics()
            .budget_refusals
            .get_or_create(&parley_runtime::metrics::BudgetLabels {
                subject: self.subject.kind(),
                period: self.period.as_str(),
            })
            .inc();
    }
}

/// A model call's hold on its turn's budgets, until it settles.
#[derive(Debug, Clone)]
pub struct Hold {
    windows: Vec<Window>,
    reservation: Reservation,
}

impl Hold {
    /// The amount held (micro-units).
    pub fn amount(&self) -> i64 {
        self.reservation.amount
    }
}

/// How long a process trusts its catalogue of budgets before it reads them again.
pub const CATALOG_TTL: Duration = Duration::from_secs(5);

/// The deployment's budgets as last read, and when.
type Catalog = tokio::sync::Mutex<Option<(Instant, Arc<Vec<Budget>>)>>;

/// The budget counters and the catalogue of budgets; cheap to clone.
#[derive(Clone)]
pub struct Budgets {
    store: Arc<dyn BudgetStore>,
    /// How long a hold lasts if its call never settles (its worker died).
    hold_ttl: Duration,
    catalog: Arc<Catalog>,
}

impl std::fmt::Debug for Budgets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budgets")
            .field("hold_ttl", &self.hold_ttl)
            .finish_non_exhaustive()
    }
}

impl Budgets {
    pub fn new(store: Arc<dyn BudgetStore>, hold_ttl: Duration) -> Self {
        Self {
            store,
            hold_ttl,
            catalog: Arc::default(),
        }
    }

    /// Every budget of the deployment, from the catalogue (read again when older than
    /// [`CATALOG_TTL`]).
    pub async fn catalog(&self, db: &DatabaseConnection) -> Result<Arc<Vec<Budget>>> {
        let mut held = self.catalog.lock().await;
        if let Some((read_at, budgets)) = held.as_ref()
            && read_at.elapsed() < CATALOG_TTL
        {
            return Ok(budgets.clone());
        }
        let budgets = Arc::new(q::all(db).await?);
        *held = Some((Instant::now(), budgets.clone()));
        Ok(budgets)
    }

    /// Forgets the catalogue: this process changed a budget.
    pub async fn invalidate(&self) {
        *self.catalog.lock().await = None;
    }

    /// Counters in this process (embedded mode, tests).
    pub fn in_process() -> Self {
        Self::new(
            Arc::new(parley_runtime::budget::memory::MemoryBudgets::new()),
            Duration::from_secs(600),
        )
    }

    /// The budgets of `user_id`'s turn on a tool of `scope`, from the catalogue.
    pub async fn of_turn(
        &self,
        db: &DatabaseConnection,
        user_id: Uuid,
        scope: &ToolScope,
        now: DateTime<Utc>,
    ) -> Result<TurnBudgets> {
        let groups: Vec<Uuid> = scope
            .group_path
            .split('/')
            .filter_map(|id| id.parse().ok())
            .chain(std::iter::once(scope.group_id))
            .collect();
        let mut budgets: Vec<Budget> = self
            .catalog(db)
            .await?
            .iter()
            .filter(|b| match b.subject {
                Subject::User(id) => id == user_id,
                Subject::Group(id) => groups.contains(&id),
            })
            .cloned()
            .collect();
        // The user's first, then the groups from the tool's own outwards.
        budgets.sort_by_key(|b| match b.subject {
            Subject::User(_) => 0,
            Subject::Group(id) => {
                groups.len() + 1 - groups.iter().position(|g| *g == id).unwrap_or(0)
            }
        });
        Ok(TurnBudgets {
            applied: budgets.into_iter().map(|b| Applied::new(b, now)).collect(),
        })
    }

    /// Whether every budget is below its limit (holds nothing).
    pub async fn check(
        &self,
        db: &DatabaseConnection,
        turn: &TurnBudgets,
        now: DateTime<Utc>,
    ) -> std::result::Result<(), Refused> {
        let check = Reservation {
            id: "check".into(),
            amount: 0,
            expires_at_ms: now.timestamp_millis(),
        };
        self.decide(db, turn, check, now).await.map(drop)
    }

    /// Holds `amount` (micro-units) in every budget of the turn for the call `id`, if
    /// each is below its limit; `None` when the turn has no budget (or the store does
    /// not answer: the call goes through, logged).
    pub async fn reserve(
        &self,
        db: &DatabaseConnection,
        turn: &TurnBudgets,
        id: String,
        amount: i64,
        now: DateTime<Utc>,
    ) -> std::result::Result<Option<Hold>, Refused> {
        let ttl_ms = i64::try_from(self.hold_ttl.as_millis()).unwrap_or(i64::MAX);
        let reservation = Reservation {
            id,
            amount: amount.max(0),
            expires_at_ms: now.timestamp_millis().saturating_add(ttl_ms),
        };
        self.decide(db, turn, reservation, now).await
    }

    async fn decide(
        &self,
        db: &DatabaseConnection,
        turn: &TurnBudgets,
        reservation: Reservation,
        now: DateTime<Utc>,
    ) -> std::result::Result<Option<Hold>, Refused> {
        if turn.is_empty() {
            return Ok(None);
        }
        let windows = turn.windows();
        // Each round seeds one more counter; one more round decides.
        for _ in 0..=windows.len() {
            let decided = self
                .store
                .reserve(&windows, &reservation, now.timestamp_millis())
                .await;
            match decided {
                Ok(Decision::Admitted) => {
                    return Ok(Some(Hold {
                        windows,
                        reservation,
                    }));
                }
                Ok(Decision::Refused { window }) => {
                    let applied = &turn.applied[window];
                    let left_ms = applied.ends_at.timestamp_millis() - now.timestamp_millis();
                    let refused = Refused {
                        subject: applied.budget.subject,
                        period: applied.budget.period,
                        limit_micros: applied.budget.limit_micros,
                        retry_after_s: u64::try_from((left_ms + 999) / 1000).unwrap_or(1).max(1),
                    };
                    refused.count();
                    return Err(refused);
                }
                Ok(Decision::Unseeded { window }) => {
                    if let Err(err) = self.seed(db, &turn.applied[window]).await {
                        tracing::warn!(error = %err, "budgets are not checked: cannot seed a counter");
                        return Ok(None);
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "budgets are not checked: the store does not answer");
                    return Ok(None);
                }
            }
        }
        tracing::warn!("budgets are not checked: a counter would not stay seeded");
        Ok(None)
    }

    /// Seeds a budget's counter from what its subject spent in the period.
    async fn seed(&self, db: &DatabaseConnection, applied: &Applied) -> Result<()> {
        let spent = q::spent_micros(
            db,
            applied.budget.subject,
            applied.starts_at,
            applied.ends_at,
        )
        .await?;
        self.store
            .seed(&applied.window, spent)
            .await
            .map(drop)
            .map_err(|err| Error::Unavailable {
                what: format!("the budget store ({err})"),
            })
    }

    /// Ends a hold: what the call cost (micro-units) is spent, the rest freed.
    pub async fn settle(&self, hold: Hold, actual: i64) {
        if let Err(err) = self
            .store
            .settle(&hold.windows, &hold.reservation, actual.max(0))
            .await
        {
            tracing::warn!(error = %err, "cannot settle a model call's budget hold (it lapses by itself)");
        }
    }

    /// The counters of `budgets` in their current periods (seeded when missing), for
    /// the admin: spent and reserved, by budget id.
    pub async fn counters(
        &self,
        db: &DatabaseConnection,
        budgets: &[Budget],
        now: DateTime<Utc>,
    ) -> Result<HashMap<Uuid, (Applied, Counter)>> {
        let applied: Vec<Applied> = budgets
            .iter()
            .cloned()
            .map(|b| Applied::new(b, now))
            .collect();
        let windows: Vec<Window> = applied.iter().map(|a| a.window.clone()).collect();
        let unavailable = |err: parley_runtime::budget::BudgetError| Error::Unavailable {
            what: format!("the budget store ({err})"),
        };
        let mut read = self
            .store
            .read(&windows, now.timestamp_millis())
            .await
            .map_err(unavailable)?;
        if read.iter().any(Option::is_none) {
            for (a, counter) in applied.iter().zip(&read) {
                if counter.is_none() {
                    self.seed(db, a).await?;
                }
            }
            read = self
                .store
                .read(&windows, now.timestamp_millis())
                .await
                .map_err(unavailable)?;
        }
        Ok(applied
            .into_iter()
            .zip(read)
            .map(|(a, c)| (a.budget.id, (a, c.unwrap_or_default())))
            .collect())
    }
}

#[cfg(test)]
mod tests;
