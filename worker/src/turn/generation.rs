//! The generation stage: the model's context is assembled — the system prompt from the
//! tool's configuration, the modules' additions and the payload formats, then the
//! token-budgeted history and the message with its attachments — and the agent loop
//! streams the answer, running the tool's functions as the session's user. With
//! hold-back (a tool whose `chat:after_ai` modules must see the answer before anyone
//! else), the answer's events wait in the sink for the after-hooks stage.

use std::{sync::Arc, time::Instant};

use parley_entity::{
    prompts,
    query::{self, tool_calls},
};
use parley_protocol::sampling::{OutOfBounds, Sampling};
use parley_protocol::{config::SessionConfig, events::ToolCallState};
use parley_runtime::queue::JobQueue;
use parley_service::turns::record;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::{answer::Generated, before::Before, context::TurnContext};
use crate::{
    agent_loop::{self, CallResult, LoopSettings},
    attachments, compaction,
    error::TurnError,
    functions::{CallContext, Registry, live::LiveRegistry, runner::TurnFunctions},
    prompt::{self, Window},
    sink::TurnSink,
};

/// What the generation stage runs with.
pub(super) struct Engine<'a> {
    pub db: &'a DatabaseConnection,
    /// The models a summary of the conversation's history may be written by.
    pub catalog: &'a crate::providers::Catalog,
    /// Where the window's start is kept beside the history (#45).
    pub history: &'a crate::history::HistoryCache,
    pub registry: &'a LiveRegistry,
    /// Where asynchronous function calls are queued.
    pub queue: &'a Arc<dyn JobQueue>,
    pub worker_id: &'a str,
    pub agent_loop: &'a LoopSettings,
    /// Tokens kept free for the answer in the context window.
    pub response_buffer: usize,
    /// Where the user hears of calls that wait for approval.
    pub feed: &'a parley_runtime::user_feed::Publisher,
    /// How long a call waits for approval before it is denied.
    pub approval_timeout: std::time::Duration,
    /// The budgets each model call holds against.
    pub budgets: &'a parley_service::budget::Budgets,
}

/// Assembles the context and runs the agent loop over `content` (the message as the
/// before-hooks left it).
#[tracing::instrument(name = "generation", skip_all, err)]
pub(super) async fn generate(
    engine: Engine<'_>,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    context: &mut TurnContext,
    before: &Before,
    content: &str,
    started: Instant,
) -> Result<Generated, TurnError> {
    let route = &context.chain[0];
    let config = &context.session.config;
    let window = Window {
        upstream_model: &route.upstream,
        max_context: route.max_context,
        response_buffer: engine.response_buffer,
    };
    // One snapshot of the functions for the whole turn (an MCP server may join meanwhile).
    let registry = engine.registry.snapshot();
    let formats = response_formats(&registry, config);
    let current = attachments::message_text(content, &context.files, route.vision);
    let additions = before.additions(&context.input);
    let budget = prompt::budget(config, &additions, &formats, &current, window);
    let sources = compaction::Sources {
        db: engine.db,
        catalog: engine.catalog,
        starts: context.history_at.map(|count| (engine.history, count)),
    };
    let fitted = compaction::fit(
        sources,
        prompt,
        &context.session,
        route,
        &budget,
        &context.history,
    )
    .await?;
    let mut assembled = prompt::assemble(
        budget.system,
        fitted.summary.as_deref(),
        &context.history[..fitted.keep],
        &current,
    );
    if let Some(last) = assembled.messages.last_mut() {
        if route.vision {
            last.images = attachments::image_urls(&context.files);
        }
        last.documents = attachments::documents(&context.files);
    }
    let hooks = before.hooks.as_ref();
    let output = agent_loop::output::Output::of(context.input.response_format.as_ref());
    // A structured answer is checked before anyone sees it: one that does not fit is
    // taken back and asked again.
    if output.is_some() || hooks.is_some_and(|hooks| hooks.has_after_ai()) && config.holds_back() {
        sink.hold_back();
    }
    let mut tools = turn_tools(&engine, &registry, prompt, context).await?;
    let admission = std::mem::take(&mut context.admission).answer().await;
    let earlier = earlier_calls(engine.db, &registry, prompt).await?;
    let spend = spend(&engine, prompt, context).await?;
    let start = agent_loop::Start {
        chain: &context.chain,
        skip_first: admission.skips_first(),
        messages: assembled.messages,
        settings: engine.agent_loop,
        max_iterations: max_iterations(config),
        replay: earlier.replay,
        partial: context.partial.take(),
        approved: earlier.approved,
        started,
        spend,
        markers: parley_service::respond::Markers::new(
            registry.payloads(),
            &config.payload_types().collect::<Vec<_>>(),
        ),
        sampling: sampling(config, &context.input.sampling),
        output,
        calls: context.input.call_policy.clone(),
    };
    let (generation, end) = agent_loop::run(start, sink, &mut tools).await;
    let answered = &context.chain[generation.answered_by];
    Ok(Generated {
        model: answered.model.clone(),
        vendor: answered.vendor.clone(),
        system: assembled.system,
        user_breaker: admission.reports(),
        generation,
        end,
    })
}

/// The sampling of the turn's calls: what the api recorded (already within the
/// session's bounds, so unchanged here) with the tool's fixed values, for the turns that
/// asked for nothing (Parley's own API, scheduled ones). Clamped, never refused: the
/// turn was accepted.
fn sampling(config: &SessionConfig, asked: &Sampling) -> Sampling {
    let bounds = config.sampling_bounds();
    bounds
        .apply(asked, OutOfBounds::Clamp)
        .unwrap_or_else(|_| asked.clone())
}

/// What the model is told about the payloads the tool can produce (its functions' payload
/// types and the LLM payload types its definition enables) and, when the tool asks for
/// them, how to write suggestions.
fn response_formats(registry: &Registry, config: &SessionConfig) -> String {
    let mut types: Vec<&str> = config
        .functions()
        .filter_map(|f| registry.get(f))
        .filter_map(|f| f.spec().payload_type.as_deref())
        .collect();
    types.extend(config.payload_types());
    let mut formats = registry.payloads().instructions(types);
    if config.wants_suggestions() {
        if !formats.is_empty() {
            formats.push_str("\n\n");
        }
        formats.push_str(&parley_service::respond::suggestion_instructions());
    }
    formats
}

/// The functions of the session's tool (those the deployment has), run as its user.
async fn turn_tools(
    engine: &Engine<'_>,
    registry: &Registry,
    prompt: &prompts::Model,
    context: &TurnContext,
) -> Result<TurnFunctions, TurnError> {
    let session = &context.session;
    let own = registry.offers(session.config.functions());
    let (offers, own) =
        crate::functions::runner::client::with_client(own, &context.input.client_functions);
    // The claim read the owner's permissions; a turn whose claim did not reads them now.
    let permissions = match (&context.owner_permissions, own == 0) {
        (_, true) => Vec::new(),
        (Some(permissions), false) => permissions.clone(),
        (None, false) => {
            let user = query::users::get(engine.db, session.user_id).await?;
            query::users::effective_permissions(&user)
        }
    };
    Ok(TurnFunctions {
        registry: registry.clone(),
        offers,
        own,
        client: context.input.client_functions.clone(),
        permissions,
        context: CallContext {
            db: engine.db.clone(),
            user_id: session.user_id,
            session_id: session.id,
            prompt_id: prompt.id,
            call_id: Uuid::nil(),
            session_config: session.config.clone(),
        },
        worker: engine.worker_id.to_owned(),
        queue: engine.queue.clone(),
        attempt: record::attempt(prompt),
        feed: engine.feed.clone(),
        approval_timeout: engine.approval_timeout,
    })
}

/// The budgets of the turn (its user's, its tool's group's and that group's
/// ancestors'), in their current periods; none when none is set.
async fn spend<'a>(
    engine: &Engine<'a>,
    prompt: &prompts::Model,
    context: &TurnContext,
) -> Result<Option<agent_loop::spend::Spend<'a>>, TurnError> {
    let session = &context.session;
    if engine.budgets.catalog(engine.db).await?.is_empty() {
        return Ok(None);
    }
    let Some(scope) = query::quotas::scope_of_tool(engine.db, session.tool_id).await? else {
        return Ok(None);
    };
    let turn = engine
        .budgets
        .of_turn(engine.db, session.user_id, &scope, query::now())
        .await?;
    if turn.is_empty() {
        return Ok(None);
    }
    Ok(Some(agent_loop::spend::Spend {
        budgets: engine.budgets,
        db: engine.db,
        turn,
        holder: format!("{}:{}", prompt.id, prompt.attempt),
    }))
}

/// The tool's `max_iterations` (model calls per turn), or the default.
fn max_iterations(config: &SessionConfig) -> u32 {
    config
        .max_iterations
        .filter(|n| *n >= 1)
        .unwrap_or(agent_loop::DEFAULT_MAX_ITERATIONS)
}

/// What earlier attempts of this turn left of its function calls.
#[derive(Default)]
struct Earlier {
    /// The calls that finished (denied ones too): replayed instead of run again.
    replay: Vec<CallResult>,
    /// The calls that wait for approval, were approved while the turn was suspended, or
    /// were approved and started by an attempt that died: run (or waited for again)
    /// before the model is called again — the model is not asked for them twice.
    approved: Vec<agent_loop::ApprovedCall>,
}

/// The calls earlier attempts of this turn made: those that finished, to replay instead
/// of running them again, and those approved since, to run now.
async fn earlier_calls(
    db: &DatabaseConnection,
    registry: &Registry,
    prompt: &prompts::Model,
) -> Result<Earlier, TurnError> {
    if prompt.attempt <= 1 {
        return Ok(Earlier::default());
    }
    let mut earlier = Earlier::default();
    for row in tool_calls::of_prompt(db, prompt.id).await? {
        // A call that still waits (a worker died before the turn suspended) is waited
        // for again, not asked of the model twice.
        let approved = matches!(row.state, ToolCallState::Approved)
            || row.state.waits()
            || (row.state == ToolCallState::Running && row.decided_at.is_some());
        if agent_loop::blocks::finished(row.state) {
            earlier.replay.push(registry.result_of_row(row));
        } else if approved {
            let record = agent_loop::CallRecord::of_row(row.provider_state.as_ref());
            earlier.approved.push(agent_loop::ApprovedCall {
                arguments: record.arguments_for(&row.tool_args),
                record,
                id: row.api_tool_call_id,
                name: row.tool_name,
            });
        }
    }
    Ok(earlier)
}
