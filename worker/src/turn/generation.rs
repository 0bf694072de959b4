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
use parley_runtime::queue::JobQueue;
use parley_service::turns::record;
use sea_orm::DatabaseConnection;
use serde_json::Value;
use uuid::Uuid;

use super::{answer::Generated, before::Before, context::TurnContext};
use crate::{
    agent_loop::{self, CallResult, LoopSettings},
    attachments,
    context::{self, Window},
    error::TurnError,
    persist::TurnSink,
    tools::{CallContext, Registry, live::LiveRegistry, runner::TurnTools},
};

/// What the generation stage runs with.
pub(super) struct Engine<'a> {
    pub db: &'a DatabaseConnection,
    pub registry: &'a LiveRegistry,
    /// Where asynchronous function calls are queued.
    pub queue: &'a Arc<dyn JobQueue>,
    pub worker_id: &'a str,
    pub agent_loop: &'a LoopSettings,
    /// Tokens kept free for the answer in the context window.
    pub response_buffer: usize,
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
    let mut assembled = context::assemble(
        config,
        &additions,
        &formats,
        &context.history,
        &current,
        window,
    );
    if route.vision
        && let Some(last) = assembled.messages.last_mut()
    {
        last.images = attachments::image_urls(&context.files);
    }
    let hooks = before.hooks.as_ref();
    if hooks.is_some_and(|hooks| hooks.has_after_ai())
        && config["hold_back"].as_bool() == Some(true)
    {
        sink.hold_back();
    }
    let mut tools = turn_tools(&engine, &registry, prompt, context).await?;
    let admission = std::mem::take(&mut context.admission).answer().await;
    let start = agent_loop::Start {
        chain: &context.chain,
        skip_first: admission.skips_first(),
        messages: assembled.messages,
        settings: engine.agent_loop,
        max_iterations: max_iterations(config),
        replay: replay(engine.db, &registry, prompt).await?,
        partial: context.partial.take(),
        started,
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

/// What the model is told about the payloads the tool can produce (its functions' payload
/// types and the LLM payload types its definition enables) and, when the tool asks for
/// them, how to write suggestions.
fn response_formats(registry: &Registry, config: &Value) -> String {
    let mut types: Vec<&str> = context::names(config, "functions")
        .into_iter()
        .filter_map(|f| registry.get(f))
        .filter_map(|f| f.spec().payload_type.as_deref())
        .collect();
    types.extend(context::names(config, "payload_types"));
    let mut formats = registry.payloads().instructions(types);
    if config["suggestions"].as_bool() == Some(true) {
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
) -> Result<TurnTools, TurnError> {
    let session = &context.session;
    let offers = registry.offers(context::names(&session.config, "functions"));
    let permissions = if offers.is_empty() {
        Vec::new()
    } else {
        let user = query::users::get(engine.db, session.user_id).await?;
        query::users::effective_permissions(&user)
    };
    Ok(TurnTools {
        registry: registry.clone(),
        offers,
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
    })
}

/// The tool's `max_iterations` (model calls per turn), or the default.
fn max_iterations(config: &Value) -> u32 {
    config["max_iterations"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n >= 1)
        .unwrap_or(agent_loop::DEFAULT_MAX_ITERATIONS)
}

/// The calls an earlier attempt of this turn finished, to replay instead of running
/// them again.
async fn replay(
    db: &DatabaseConnection,
    registry: &Registry,
    prompt: &prompts::Model,
) -> Result<Vec<CallResult>, TurnError> {
    if prompt.attempt <= 1 {
        return Ok(Vec::new());
    }
    let rows = tool_calls::of_prompt(db, prompt.id).await?;
    Ok(rows
        .into_iter()
        .filter(|row| agent_loop::blocks::finished(row.state))
        .map(|row| registry.result_of_row(row))
        .collect())
}
