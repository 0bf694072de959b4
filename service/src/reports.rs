//! What administrators read about the deployment: the dashboard's figures (usage,
//! module blocks, prompt statistics) and the rows behind them (calls, module events),
//! a session's audit, and each model provider's recent calls and breaker. Nothing here
//! writes.
//!
//! The figures and rows may lag the primary by a moment: they are read from the read
//! pool (a streaming replica when `database.read_url` is set). A session's audit and
//! the providers' calls are read from the primary, as they always were. The SQL is
//! `parley_entity::query::metrics`.

use parley_entity::query::{
    metrics::{
        Window,
        audit::{self, SessionAudit},
        blocks::{self, BlockGrouping, BlockReport},
        calls::{self, Call, Event, EventFilter, RowKey},
        prompt_stats::{self, PromptStats},
        providers::{self, LastFailure, ProviderCalls},
        usage::{self, UsageFilter, UsageGroup, UsageGrouping},
    },
    page::{Page, PageRequest},
};
use parley_protocol::error::Result;
use parley_runtime::breaker::{BreakerError, BreakerState};
use sea_orm::{DatabaseConnection, prelude::DateTimeUtc};
use uuid::Uuid;

use crate::catalog::{ProviderEntry, Providers};

/// One model provider as an operator sees it.
#[derive(Debug)]
pub struct ProviderHealth {
    pub entry: ProviderEntry,
    /// Its calls in the window asked for, and how many failed.
    pub calls: ProviderCalls,
    pub last_failure: Option<LastFailure>,
    /// Its breaker as the shared store says; `Err` when the store cannot be asked.
    pub breaker: std::result::Result<BreakerState, BreakerError>,
}

/// The application layer of the admin's reports; cheap to clone.
#[derive(Clone)]
pub struct ReportService {
    db: DatabaseConnection,
    read_db: DatabaseConnection,
    providers: Providers,
}

impl ReportService {
    pub fn new(db: DatabaseConnection, read_db: DatabaseConnection, providers: Providers) -> Self {
        Self {
            db,
            read_db,
            providers,
        }
    }

    /// The groups of LLM calls matching `filter`, one page by key.
    pub async fn usage(
        &self,
        filter: &UsageFilter,
        grouping: UsageGrouping,
        page: PageRequest<String>,
    ) -> Result<Page<UsageGroup, String>> {
        usage::usage(&self.read_db, filter, grouping, page).await
    }

    /// What modules did at their hooks in `window`.
    pub async fn blocks(&self, window: Window, grouping: BlockGrouping) -> Result<BlockReport> {
        blocks::blocks(&self.read_db, window, grouping).await
    }

    /// The prompts created in `window` by state, those in flight, and the oldest
    /// `max_listed` of those unfinished since before `stuck_before`.
    pub async fn prompt_stats(
        &self,
        window: Window,
        stuck_before: DateTimeUtc,
        max_listed: u64,
    ) -> Result<PromptStats> {
        prompt_stats::prompt_stats(&self.read_db, window, stuck_before, max_listed).await
    }

    /// The LLM calls matching `filter`, newest first.
    pub async fn calls(
        &self,
        filter: &UsageFilter,
        page: PageRequest<RowKey>,
    ) -> Result<Page<Call, RowKey>> {
        calls::calls(&self.read_db, filter, page).await
    }

    /// The module events matching `filter`, newest first.
    pub async fn events(
        &self,
        filter: &EventFilter,
        page: PageRequest<RowKey>,
    ) -> Result<Page<Event, RowKey>> {
        calls::events(&self.read_db, filter, page).await
    }

    /// What modules recorded about one session: audits, extractions, module runs.
    pub async fn session_audit(&self, session_id: Uuid) -> Result<SessionAudit> {
        audit::session_audit(&self.db, session_id).await
    }

    /// Every configured provider, in configuration order: its calls since `since`, its
    /// last failure and its breaker at `now`.
    pub async fn providers(
        &self,
        since: DateTimeUtc,
        now: DateTimeUtc,
    ) -> Result<Vec<ProviderHealth>> {
        let mut found = Vec::with_capacity(self.providers.entries.len());
        for entry in self.providers.entries.iter() {
            let calls = providers::calls_since(&self.db, &entry.name, since).await?;
            let last_failure = providers::last_failure(&self.db, &entry.name).await?;
            let breaker = self
                .providers
                .breaker_state(&entry.name, now.timestamp_millis())
                .await;
            found.push(ProviderHealth {
                entry: entry.clone(),
                calls,
                last_failure,
                breaker,
            });
        }
        Ok(found)
    }
}
