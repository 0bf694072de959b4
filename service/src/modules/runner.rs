//! Running one hook over a session's modules (DESIGN §8).
//!
//! Blocking hooks (`chat:before_ai`, `chat:after_ai`) run the modules one after another
//! in priority order; each sees the message (or answer) as the modules before it left
//! it, and each run is bounded by the module's timeout. A module that errors or times
//! out is skipped — unless it is fail-closed, which blocks. The first block ends the
//! hook. Asynchronous hooks (`session:start`, `session:end`, `chat:on_message`) run on a
//! task of their own that nobody waits for; what they find is recorded, what they ask to
//! change is ignored (there is nothing left to change). Every run is one `module_events`
//! row.

use std::time::Instant;

use parley_entity::{
    enums::ModuleOutcome,
    query::{
        self,
        moderation::{AuditRow, ExtractionRow, ModuleEvent},
    },
};
use parley_protocol::hooks::{Hook, HookAction, HookContext, HookResult};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::{Enabled, ModuleError};

/// The category of a block a failing fail-closed module causes.
pub const FAILURE_CATEGORY: &str = "module_failure";
/// What the user is told when a module blocks without saying what to answer.
pub const DEFAULT_DIRECT_RESPONSE: &str =
    "I can't help with that message. Please rephrase it or ask something else.";

/// A module stopped the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocked {
    pub module: String,
    pub category: String,
    /// For the audit trail; never shown to the user.
    pub reason: String,
    /// What the user is told instead.
    pub direct_response: String,
}

/// What one blocking hook decided, over all of its modules.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    pub blocked: Option<Blocked>,
    /// The user's message as the modules left it, when one rewrote it.
    pub message: Option<String>,
    /// The answer as the modules left it, when one replaced it.
    pub response: Option<String>,
    /// Sections for the system prompt's "Additional Guidance".
    pub additions: Vec<String>,
    pub audits: Vec<AuditRow>,
    pub extractions: Vec<ExtractionRow>,
    pub events: Vec<ModuleEvent>,
}

/// Runs a blocking hook over `modules` (those that run at it), in order.
pub async fn run_blocking(modules: &[Enabled], mut ctx: HookContext) -> HookOutcome {
    let hook = ctx.request.hook;
    let mut outcome = HookOutcome::default();
    for module in modules.iter().filter(|m| m.runs_at(hook)) {
        ctx.config = module.config.clone();
        ctx.request.request_id = Uuid::now_v7();
        let started = Instant::now();
        let ran = run_one(module, &ctx).await;
        let took = started.elapsed();
        let mut event = ModuleEvent {
            prompt_id: ctx.request.prompt_id,
            module: module.name().to_owned(),
            hook: hook.as_str().to_owned(),
            outcome: ModuleOutcome::Continue,
            duration_ms: took.as_millis() as i64,
            category: None,
        };
        let result = match ran {
            Ok(result) => result,
            Err(failure) => {
                event.outcome = failure.outcome();
                if module.registered.fail_closed {
                    event.category = Some(FAILURE_CATEGORY.into());
                }
                observe(&event, hook, took);
                outcome.events.push(event);
                tracing::warn!(module = module.name(), hook = hook.as_str(), error = %failure, "a module failed");
                if module.registered.fail_closed {
                    outcome.blocked = Some(Blocked {
                        module: module.name().to_owned(),
                        category: FAILURE_CATEGORY.into(),
                        reason: format!("fail-closed module failed: {failure}"),
                        direct_response: DEFAULT_DIRECT_RESPONSE.into(),
                    });
                    return outcome;
                }
                continue;
            }
        };
        event.category = result
            .block_category
            .clone()
            .filter(|c| !c.trim().is_empty());
        event.outcome = apply(module.name(), result, &mut ctx, &mut outcome);
        if event.outcome == ModuleOutcome::Block {
            event.category = outcome.blocked.as_ref().map(|b| b.category.clone());
        } else if event.outcome == ModuleOutcome::Continue {
            event.category = None;
        }
        observe(&event, hook, took);
        outcome.events.push(event);
        if outcome.blocked.is_some() {
            return outcome;
        }
    }
    outcome
}

/// Counts one module run in the metrics (its latency, and its outcome: the block rate by
/// module is the share of `block`).
fn observe(event: &ModuleEvent, hook: Hook, took: std::time::Duration) {
    parley_runtime::metrics::metrics().hook_ran(
        &event.module,
        hook.as_str(),
        event.outcome.as_str(),
        took.as_secs_f64(),
    );
}

/// Runs an asynchronous hook on a task of its own: records each module's run and
/// findings; never delays the caller.
pub fn spawn_async(
    db: DatabaseConnection,
    modules: Vec<Enabled>,
    ctx: HookContext,
    message_id: Option<Uuid>,
) {
    if modules.iter().any(|m| m.runs_at(ctx.request.hook)) {
        tokio::spawn(run_async(db, modules, ctx, message_id));
    }
}

/// `session:start` or `session:end` for `session`, on a task of its own (the context's
/// scope is read there too, so the caller waits for nothing). Fired by the
/// [`SessionService`](crate::sessions::SessionService) only.
pub(crate) fn session_hook(
    db: DatabaseConnection,
    catalog: &super::ModuleCatalog,
    session: parley_entity::sessions::Model,
    hook: Hook,
) {
    let modules = catalog.enabled(&session.config);
    if !modules.iter().any(|m| m.runs_at(hook)) {
        return;
    }
    tokio::spawn(async move {
        let scope = match query::moderation::scope_of(&db, &session).await {
            Ok(scope) => scope,
            Err(err) => {
                tracing::warn!(error = %err, hook = hook.as_str(), "cannot run a session hook");
                return;
            }
        };
        let ctx = super::context::build(hook, &scope, &session, None, &[]);
        run_async(db, modules, ctx, None).await;
    });
}

async fn run_async(
    db: DatabaseConnection,
    modules: Vec<Enabled>,
    mut ctx: HookContext,
    message_id: Option<Uuid>,
) {
    let hook = ctx.request.hook;
    {
        let mut events = Vec::new();
        let mut extractions = Vec::new();
        for module in modules.iter().filter(|m| m.runs_at(hook)) {
            ctx.config = module.config.clone();
            ctx.request.request_id = Uuid::now_v7();
            let started = Instant::now();
            let outcome = match run_one(module, &ctx).await {
                Ok(result) => {
                    extractions.extend(result.extractions.into_iter().map(|e| ExtractionRow {
                        module: module.name().to_owned(),
                        kind: e.kind,
                        data: e.data,
                    }));
                    ModuleOutcome::Continue
                }
                Err(failure) => {
                    tracing::warn!(module = module.name(), hook = hook.as_str(), error = %failure, "a module failed");
                    failure.outcome()
                }
            };
            let took = started.elapsed();
            let event = ModuleEvent {
                prompt_id: ctx.request.prompt_id,
                module: module.name().to_owned(),
                hook: hook.as_str().to_owned(),
                outcome,
                duration_ms: took.as_millis() as i64,
                category: None,
            };
            observe(&event, hook, took);
            events.push(event);
        }
        let now = query::now();
        if let Err(err) = query::moderation::record_events(&db, &events, now).await {
            tracing::warn!(error = %err, hook = hook.as_str(), "cannot record module runs");
        }
        let recorded = query::moderation::record_extractions(
            &db,
            ctx.session.id,
            message_id,
            &extractions,
            now,
        )
        .await;
        if let Err(err) = recorded {
            tracing::warn!(error = %err, hook = hook.as_str(), "cannot record extractions");
        }
    }
}

/// Why a run gave no result.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("timed out after {0} ms")]
    TimedOut(u128),
    #[error(transparent)]
    Module(#[from] ModuleError),
}

impl Failure {
    fn outcome(&self) -> ModuleOutcome {
        match self {
            Self::TimedOut(_) => ModuleOutcome::Timeout,
            Self::Module(_) => ModuleOutcome::Error,
        }
    }
}

async fn run_one(module: &Enabled, ctx: &HookContext) -> Result<HookResult, Failure> {
    let timeout = module.registered.timeout;
    match tokio::time::timeout(timeout, module.registered.module.run(ctx)).await {
        Ok(result) => Ok(result?),
        Err(_) => Err(Failure::TimedOut(timeout.as_millis())),
    }
}

/// Applies one module's result to the context the next module sees and to the hook's
/// outcome; returns how the run is recorded.
fn apply(
    module: &str,
    result: HookResult,
    ctx: &mut HookContext,
    outcome: &mut HookOutcome,
) -> ModuleOutcome {
    outcome
        .extractions
        .extend(result.extractions.into_iter().map(|e| ExtractionRow {
            module: module.to_owned(),
            kind: e.kind,
            data: e.data,
        }));
    if result.action == HookAction::Block {
        outcome.blocked = Some(Blocked {
            module: module.to_owned(),
            category: result
                .block_category
                .filter(|c| !c.trim().is_empty())
                .unwrap_or_else(|| "policy".into()),
            reason: result.block_reason.unwrap_or_default(),
            direct_response: result
                .direct_response
                .filter(|r| !r.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_DIRECT_RESPONSE.into()),
        });
        return ModuleOutcome::Block;
    }
    let mut modified = false;
    let changes = result.modifications.unwrap_or_default();
    if let Some(content) = changes.message_content
        && ctx.request.hook == Hook::BeforeAi
        && let Some(current) = ctx.conversation.current_message.as_mut()
        && current.content != content
    {
        // A rewrite is audited: with the module's own record (a redactor's holds the
        // redacted text, never the values), or with the text as it was.
        let before = std::mem::replace(&mut current.content, content.clone());
        outcome.audits.push(match &result.audit {
            Some(audit) => AuditRow {
                module: module.to_owned(),
                original_content: audit.original_content.clone(),
                reason: audit.redaction_reason.clone(),
                patterns_matched: audit.patterns_matched.clone(),
            },
            None => AuditRow {
                module: module.to_owned(),
                original_content: before,
                reason: "rewritten by a module".into(),
                patterns_matched: Vec::new(),
            },
        });
        outcome.message = Some(content);
        modified = true;
    }
    if let Some(response) = changes.response_content
        && ctx.request.hook == Hook::AfterAi
        && ctx.response.as_deref() != Some(response.as_str())
    {
        ctx.response = Some(response.clone());
        outcome.response = Some(response);
        modified = true;
    }
    if !changes.system_prompt_additions.is_empty() && ctx.request.hook == Hook::BeforeAi {
        outcome.additions.extend(
            changes
                .system_prompt_additions
                .into_iter()
                .filter(|a| !a.trim().is_empty()),
        );
        modified = true;
    }
    if modified {
        ModuleOutcome::Modify
    } else {
        ModuleOutcome::Continue
    }
}
