//! The middle stage: the turn runs — readers are told, the user message is saved, the
//! context is assembled and the agent loop streams the answer.

use std::time::Instant;

use parley_entity::{
    enums::MessageRole,
    error::Error,
    prompts,
    query::{
        self,
        conversation::{self, NewMessage},
    },
    sessions,
};
use parley_protocol::{
    events::{EventKind, PromptState},
    route::RouteDecision,
};
use parley_service::turns::record;
use serde_json::Value;
use uuid::Uuid;

use super::{Deps, TurnError};
use crate::{
    agent_loop::{self, CallResult, Generation, LoopEnd, Sink},
    attachments,
    context::{self, Window},
    persist::{Stop, TurnSink, Watcher},
    providers::Route,
    tools::{CallContext, runner::TurnTools},
};

/// What the run stage produced, for the finish stage to record.
pub(super) enum Produced {
    /// The prompt names a model this deployment does not serve: nothing ran.
    UnknownModel,
    /// The agent loop ran to some end.
    Generated(Box<Generated>),
}

pub(super) struct Generated {
    pub session: sessions::Model,
    pub route: Route,
    pub user_message_id: Uuid,
    /// The system prompt sent (recorded on the prompt); none when a skill answered.
    pub system: Option<String>,
    pub generation: Generation,
    pub end: LoopEnd,
    /// The skill router's decision (recorded on the prompt); none with skills off.
    pub decision: Option<RouteDecision>,
}

/// Runs the turn of a claimed prompt up to the end of its generation.
#[tracing::instrument(skip_all, fields(attempt = prompt.attempt), err)]
pub(super) async fn run(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    watcher: &Watcher,
    started: Instant,
) -> Result<Produced, TurnError> {
    if prompt.attempt > 1 {
        sink.event(EventKind::Retry {
            attempt: record::attempt(prompt),
            reason: "the turn starts over".into(),
        })
        .await?;
        conversation::discard_blocks(&deps.db, prompt.id).await?;
    }
    sink.event(EventKind::PromptState {
        state: PromptState::InProgress,
        attempt: record::attempt(prompt),
    })
    .await?;
    let Some(route) = deps.catalog.resolve(prompt.model.as_deref()).cloned() else {
        return Ok(Produced::UnknownModel);
    };
    let input = prompt
        .input
        .clone()
        .ok_or_else(|| Error::internal("running a turn", "the prompt has no input"))?;
    let content = input.content;
    let session = query::sessions::get(&deps.db, prompt.session_id).await?;
    let files = query::files::owned_in_order(&deps.db, session.user_id, &input.attachments).await?;
    let skills = crate::skills::route_turn(&deps.db, prompt, &session, &content, sink).await?;
    if let Some(generation) = skills.answer {
        let user_message_id = save_user_message(deps, prompt, &content, &files).await?;
        return Ok(Produced::Generated(Box::new(Generated {
            session,
            route,
            user_message_id,
            system: None,
            generation,
            end: LoopEnd::Completed,
            decision: skills.decision,
        })));
    }
    // chat:before_ai modules run here (they may block or rewrite the message).
    let user_message_id = save_user_message(deps, prompt, &content, &files).await?;
    let history: Vec<_> = conversation::recent_messages(&deps.db, session.id, 500)
        .await?
        .into_iter()
        .filter(|m| m.id != user_message_id && m.prompt_id != Some(prompt.id))
        .collect();
    let window = Window {
        upstream_model: &route.upstream,
        max_context: route.max_context,
        response_buffer: deps.settings.response_buffer,
    };
    let formats = response_formats(deps, &session.config);
    let current = attachments::message_text(&content, &files, route.vision);
    let mut context = context::assemble(&session.config, &formats, &history, &current, window);
    if route.vision
        && let Some(last) = context.messages.last_mut()
    {
        last.images = attachments::image_urls(&files);
    }
    let mut tools = turn_tools(deps, prompt, &session).await?;
    let start = agent_loop::Start {
        route: &route,
        messages: context.messages,
        settings: &deps.settings.agent_loop,
        max_iterations: max_iterations(&session.config),
        replay: replay(deps, prompt).await?,
        started,
    };
    let (generation, end) = agent_loop::run(start, sink, &mut tools).await;
    if watcher.state() == Stop::LeaseLost {
        return Err(TurnError::LeaseLost);
    }
    sink.flush(&generation.drafts).await?;
    Ok(Produced::Generated(Box::new(Generated {
        session,
        route,
        user_message_id,
        system: Some(context.system),
        generation,
        end,
        decision: skills.decision,
    })))
}

/// What the model is told about the payloads the tool can produce (its functions' payload
/// types and the LLM payload types its definition enables) and, when the tool asks for
/// them, how to write suggestions.
fn response_formats(deps: &Deps, config: &Value) -> String {
    let mut types: Vec<&str> = context::names(config, "functions")
        .into_iter()
        .filter_map(|f| deps.registry.get(f))
        .filter_map(|f| f.spec().payload_type.as_deref())
        .collect();
    types.extend(context::names(config, "payload_types"));
    let mut formats = deps.registry.payloads().instructions(types);
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
    deps: &Deps,
    prompt: &prompts::Model,
    session: &sessions::Model,
) -> Result<TurnTools, TurnError> {
    let offers = deps
        .registry
        .offers(context::names(&session.config, "functions"));
    let permissions = if offers.is_empty() {
        Vec::new()
    } else {
        let user = query::users::get(&deps.db, session.user_id).await?;
        query::users::effective_permissions(&user)
    };
    Ok(TurnTools {
        registry: deps.registry.clone(),
        offers,
        permissions,
        context: CallContext {
            db: deps.db.clone(),
            user_id: session.user_id,
            session_id: session.id,
            prompt_id: prompt.id,
            call_id: Uuid::nil(),
            session_config: session.config.clone(),
        },
        worker: deps.worker_id.clone(),
        queue: deps.queue.clone(),
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
async fn replay(deps: &Deps, prompt: &prompts::Model) -> Result<Vec<CallResult>, TurnError> {
    if prompt.attempt <= 1 {
        return Ok(Vec::new());
    }
    let rows = query::tool_calls::of_prompt(&deps.db, prompt.id).await?;
    Ok(rows
        .into_iter()
        .filter(|row| agent_loop::blocks::finished(row.state))
        .map(|row| deps.registry.result_of_row(row))
        .collect())
}

/// Saves the user's message once per prompt (a repeated attempt reuses it).
async fn save_user_message(
    deps: &Deps,
    prompt: &prompts::Model,
    content: &str,
    files: &[parley_entity::files::Model],
) -> Result<Uuid, TurnError> {
    if let Some(id) = prompt.user_message_id {
        return Ok(id);
    }
    let new = NewMessage {
        session_id: prompt.session_id,
        role: MessageRole::User,
        content: content.to_owned(),
        prompt_id: Some(prompt.id),
        is_complete: true,
    };
    let message = conversation::append_message(&deps.db, new, query::now()).await?;
    let blocks = attachments::blocks(files);
    conversation::attach_files(&deps.db, prompt.id, message.id, &blocks, query::now()).await?;
    query::prompts::set_user_message(&deps.db, prompt.id, message.id).await?;
    Ok(message.id)
}
