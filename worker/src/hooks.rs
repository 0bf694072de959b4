//! Module hooks inside a turn (DESIGN §5 steps 2, 4 and 8; §8): the modules the
//! session's tool names, with the context they are given, run by
//! `parley_service::modules::runner`. A tool without modules costs nothing here: no
//! query is made.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use parley_entity::{
    messages, prompts,
    query::{self, moderation::Scope},
    sessions,
};
use parley_protocol::hooks::{Hook, HookContext};
use parley_service::modules::{
    Enabled, ModuleCatalog, context,
    runner::{self, HookOutcome},
};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::error::TurnError;

/// How many earlier messages a hook's context carries (newest kept).
pub(crate) const CONTEXT_MESSAGES: usize = 50;

/// How long a session's scope is reused before it is read again.
const SCOPE_TTL: Duration = Duration::from_secs(30);
/// The most scopes kept (past it, the expired ones go; then all).
const SCOPE_CAPACITY: usize = 10_000;

/// The scopes of recent sessions (user, tool, group, class, assignment), so the turns of
/// a conversation do not read the same four rows before every hook run. A change to a
/// user's name or a tool's definition reaches hooks within [`SCOPE_TTL`] (a session's
/// configuration is frozen at its start anyway). Cheap to clone; one per process.
#[derive(Debug, Clone, Default)]
pub struct ScopeCache {
    scopes: Arc<Mutex<Scopes>>,
}

/// Scopes by session id, with when each was read.
type Scopes = HashMap<uuid::Uuid, (Instant, Arc<Scope>)>;

impl ScopeCache {
    async fn get(
        &self,
        db: &DatabaseConnection,
        session: &sessions::Model,
    ) -> Result<Arc<Scope>, TurnError> {
        let now = Instant::now();
        if let Some((at, scope)) = self.lock().get(&session.id)
            && now.duration_since(*at) < SCOPE_TTL
        {
            return Ok(scope.clone());
        }
        let scope = Arc::new(query::moderation::scope_of(db, session).await?);
        let mut scopes = self.lock();
        if scopes.len() >= SCOPE_CAPACITY {
            scopes.retain(|_, (at, _)| now.duration_since(*at) < SCOPE_TTL);
            if scopes.len() >= SCOPE_CAPACITY {
                scopes.clear();
            }
        }
        scopes.insert(session.id, (now, scope.clone()));
        Ok(scope)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Scopes> {
        self.scopes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the hook stages use: the database (scopes, records), the deployment's modules
/// and the cache of sessions' scopes. Cheap to clone; one per process.
#[derive(Clone)]
pub struct Modules {
    pub db: DatabaseConnection,
    pub catalog: ModuleCatalog,
    pub scopes: ScopeCache,
}

/// The modules of one turn and what their context is built from.
pub struct TurnHooks {
    modules: Vec<Enabled>,
    scope: Arc<Scope>,
    session: sessions::Model,
    prompt_id: Uuid,
    /// Earlier messages, oldest first.
    history: Vec<messages::Model>,
}

impl TurnHooks {
    /// The hooks of the session's tool; `None` when it names no module.
    pub async fn load(
        modules: &Modules,
        session: &sessions::Model,
        prompt: &prompts::Model,
        newest_first: &[messages::Model],
    ) -> Result<Option<Self>, TurnError> {
        let enabled = modules.catalog.enabled(&session.config);
        if enabled.is_empty() {
            return Ok(None);
        }
        let scope = modules.scopes.get(&modules.db, session).await?;
        let mut history: Vec<_> = newest_first
            .iter()
            .take(CONTEXT_MESSAGES)
            .cloned()
            .collect();
        history.reverse();
        Ok(Some(Self {
            modules: enabled,
            scope,
            session: session.clone(),
            prompt_id: prompt.id,
            history,
        }))
    }

    fn context(&self, hook: Hook, content: &str) -> HookContext {
        let mut ctx = context::build(
            hook,
            &self.scope,
            &self.session,
            Some(self.prompt_id),
            &self.history,
        );
        ctx.conversation.current_message = Some(context::current(content));
        ctx
    }

    /// `chat:before_ai` over the user's message.
    pub async fn before_ai(&self, content: &str) -> HookOutcome {
        runner::run_blocking(&self.modules, self.context(Hook::BeforeAi, content)).await
    }

    /// `chat:after_ai` over the model's answer to `content`.
    pub async fn after_ai(&self, content: &str, response: &str) -> HookOutcome {
        let mut ctx = self.context(Hook::AfterAi, content);
        ctx.response = Some(response.to_owned());
        runner::run_blocking(&self.modules, ctx).await
    }

    /// Whether any module runs at `chat:after_ai` (and hold-back can mean something).
    pub fn has_after_ai(&self) -> bool {
        self.modules.iter().any(|m| m.runs_at(Hook::AfterAi))
    }

    /// `chat:on_message` over the saved message, on a task of its own.
    pub fn on_message(&self, db: &DatabaseConnection, content: &str, message_id: Uuid) {
        let mut ctx = self.context(Hook::OnMessage, content);
        if let Some(current) = ctx.conversation.current_message.as_mut() {
            current.id = Some(message_id);
        }
        runner::spawn_async(db.clone(), self.modules.clone(), ctx, Some(message_id));
    }
}

/// Records what a blocking hook found about a message: its runs, the audit trail and
/// the extractions.
pub async fn record(
    db: &DatabaseConnection,
    session_id: Uuid,
    message_id: Option<Uuid>,
    outcome: &HookOutcome,
) -> Result<(), TurnError> {
    let now = query::now();
    query::moderation::record_events(db, &outcome.events, now).await?;
    if let Some(message_id) = message_id {
        query::moderation::record_audit(db, message_id, &outcome.audits, now).await?;
    }
    query::moderation::record_extractions(db, session_id, message_id, &outcome.extractions, now)
        .await?;
    Ok(())
}
