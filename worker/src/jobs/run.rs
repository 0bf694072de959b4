//! The middle stage: the turn runs — readers are told, `chat:before_ai` modules see the
//! message (and may block or rewrite it), the skill router may answer it instead of a
//! model, the user message is saved, `chat:on_message` is fired, the context is
//! assembled, the agent loop streams the answer and
//! `chat:after_ai` modules see it (and may replace or block it; with hold-back, before
//! anyone else does).

use std::time::Instant;

use parley_entity::{
    blocks,
    enums::{BlockType, MessageRole, ModuleOutcome},
    error::Error,
    prompts,
    query::{
        self,
        conversation::{self, BlockDraft, MessageRow},
        moderation::AuditRow,
    },
    sessions,
};
use parley_protocol::{
    config::SessionConfig,
    events::{EventKind, Moderation, PromptState},
    route::RouteDecision,
};
use parley_service::{
    modules::runner::{Blocked, HookOutcome},
    turns::record,
};
use uuid::Uuid;

use super::{Deps, TurnError, user_breaker};
use crate::{
    agent_loop::{self, CallResult, Generation, LoopEnd, Sink},
    attachments,
    context::{self, Window},
    hooks::{self, TurnHooks},
    persist::{Stop, TurnSink, Watcher},
    tools::{CallContext, Registry, runner::TurnTools},
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
    /// Who answered: the model and vendor, or the module that blocked (`vendor: module`).
    pub model: String,
    pub vendor: String,
    /// The turn's end is reported to the user's breaker (a model was called with it
    /// closed, or as its probe).
    pub user_breaker: bool,
    pub user_message_id: Uuid,
    /// The system prompt sent (recorded on the prompt); none when a skill answered.
    pub system: Option<String>,
    pub generation: Generation,
    pub end: LoopEnd,
    /// What modules did to the answer.
    pub moderation: Option<Moderation>,
    /// What `chat:after_ai` found, recorded with the assistant message.
    pub after_ai: Option<HookOutcome>,
    /// The skill router's decision (recorded on the prompt); none with skills off.
    pub decision: Option<RouteDecision>,
}

/// The text a blocked user message is saved as; the original is only in `message_audit`.
pub const BLOCKED_TEXT: &str = "[blocked]";

/// Runs the turn of a claimed prompt up to the end of its generation.
#[tracing::instrument(skip_all, fields(attempt = prompt.attempt), err)]
pub(super) async fn run(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    watcher: &Watcher,
    started: Instant,
    known: Option<sessions::Model>,
    count: i32,
) -> Result<Produced, TurnError> {
    let mut partial = None;
    if prompt.attempt > 1 {
        sink.event(EventKind::Retry {
            attempt: record::attempt(prompt),
            reason: "the turn starts over".into(),
        })
        .await?;
        partial = partial_answer(&conversation::blocks_of(&deps.db, prompt.id).await?);
        conversation::discard_blocks(&deps.db, prompt.id).await?;
    }
    let in_progress = EventKind::PromptState {
        state: PromptState::InProgress,
        attempt: record::attempt(prompt),
    };
    let Some(chain) = deps.catalog.chain(prompt.model.as_deref()) else {
        sink.event(in_progress).await?;
        return Ok(Produced::UnknownModel);
    };
    // The context is assembled for the model asked for; a fallback gets the same.
    let route = &chain[0];
    // The job carries the session as the api saw it (its config and owner never change);
    // a job without it (the reaper's, a resume's) reads it.
    let session = match known.filter(|s| s.id == prompt.session_id) {
        Some(session) => session,
        None => query::sessions::get(&deps.db, prompt.session_id).await?,
    };
    // The `prompt_state` append (the event log) runs on its own while the turn goes on
    // to its history (PostgreSQL or SQLite, or the worker's cache) and the model call;
    // every later event still follows it (the sink waits for it before the next one).
    sink.event_soon(in_progress).await?;
    let read = crate::context::history_read(&route.upstream, crate::hooks::CONTEXT_MESSAGES);
    let user = user_breaker::ask(deps, session.user_id);
    let recent = recent_history(deps, prompt, session.id, count, read).await;
    let input = prompt
        .input
        .clone()
        .ok_or_else(|| Error::internal("running a turn", "the prompt has no input"))?;
    let files = query::files::owned_in_order(&deps.db, session.user_id, &input.attachments).await?;
    let history: Vec<_> = recent?
        .into_iter()
        .filter(|m| Some(m.id) != prompt.user_message_id && m.prompt_id != Some(prompt.id))
        .collect();
    let hooks = TurnHooks::load(deps, &session, prompt, &history).await?;
    let before = match &hooks {
        Some(hooks) => hooks.before_ai(&input.content).await,
        None => HookOutcome::default(),
    };
    if let Some(blocked) = before.blocked.clone() {
        let generated =
            answer_blocked(deps, prompt, sink, session, &input.content, before, blocked).await?;
        return Ok(Produced::Generated(generated));
    }
    // What the client asked of this turn besides the message (an OpenAI-compatible
    // client's system messages) joins the modules' additions, after the tool's own
    // sections.
    let additions: Vec<String> = before
        .additions
        .iter()
        .cloned()
        .chain(input.instructions.clone())
        .collect();
    let content = before.message.clone().unwrap_or(input.content);
    let skills = crate::skills::route_turn(&deps.db, prompt, &session, &content, sink).await?;
    let user_message_id = save_user_message(
        deps,
        prompt,
        sink,
        &content,
        &files,
        hooks.as_ref().map(|_| &before),
    )
    .await?;
    if let Some(hooks) = &hooks
        && prompt.attempt <= 1
    {
        hooks.on_message(deps, &content, user_message_id);
    }
    if let Some(generation) = skills.answer {
        let skill = skills
            .decision
            .as_ref()
            .and_then(|d| d.skill_won.clone())
            .unwrap_or_default();
        return Ok(Produced::Generated(Box::new(Generated {
            session,
            model: skill,
            vendor: crate::skills::VENDOR.into(),
            user_breaker: false,
            user_message_id,
            system: None,
            generation,
            end: LoopEnd::Completed,
            moderation: None,
            after_ai: None,
            decision: skills.decision,
        })));
    }
    let window = Window {
        upstream_model: &route.upstream,
        max_context: route.max_context,
        response_buffer: deps.settings.response_buffer,
    };
    // One snapshot of the functions for the whole turn (an MCP server may join meanwhile).
    let registry = deps.registry.snapshot();
    let formats = response_formats(&registry, &session.config);
    let current = attachments::message_text(&content, &files, route.vision);
    let mut context = context::assemble(
        &session.config,
        &additions,
        &formats,
        &history,
        &current,
        window,
    );
    if route.vision
        && let Some(last) = context.messages.last_mut()
    {
        last.images = attachments::image_urls(&files);
    }
    let hold_back =
        hooks.as_ref().is_some_and(TurnHooks::has_after_ai) && session.config.holds_back();
    if hold_back {
        sink.hold_back();
    }
    let mut tools = turn_tools(deps, &registry, prompt, &session).await?;
    let user = user.answer().await;
    let start = agent_loop::Start {
        chain: &chain,
        skip_first: user.skips_first(),
        messages: context.messages,
        settings: &deps.settings.agent_loop,
        max_iterations: max_iterations(&session.config),
        replay: replay(deps, &registry, prompt).await?,
        partial,
        started,
    };
    let (mut generation, end) = agent_loop::run(start, sink, &mut tools).await;
    if watcher.state() == Stop::LeaseLost {
        return Err(TurnError::LeaseLost);
    }
    let (moderation, after_ai) = match (&hooks, &end) {
        (Some(hooks), LoopEnd::Completed) if hooks.has_after_ai() => {
            let after = hooks.after_ai(&content, &generation.text()).await;
            let moderation = settle_answer(sink, &mut generation, &after).await?;
            (moderation, Some(after))
        }
        _ => {
            sink.release().await?;
            (None, None)
        }
    };
    let answered = &chain[generation.answered_by];
    Ok(Produced::Generated(Box::new(Generated {
        session,
        model: answered.model.clone(),
        vendor: answered.vendor.clone(),
        user_breaker: user.reports(),
        user_message_id,
        system: Some(context.system),
        generation,
        end,
        moderation,
        after_ai,
        decision: skills.decision,
    })))
}

/// A `chat:before_ai` module blocked the message: it is saved as `[blocked]` (the text
/// that reached the module goes to the audit trail), the module's direct response is
/// the answer, and no model is called.
async fn answer_blocked(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    session: sessions::Model,
    original: &str,
    mut before: HookOutcome,
    blocked: Blocked,
) -> Result<Box<Generated>, TurnError> {
    before.audits.push(AuditRow {
        module: blocked.module.clone(),
        original_content: before
            .message
            .clone()
            .unwrap_or_else(|| original.to_owned()),
        reason: format!("blocked ({}): {}", blocked.category, blocked.reason),
        patterns_matched: vec![blocked.category.clone()],
    });
    let user_message_id =
        save_user_message(deps, prompt, sink, BLOCKED_TEXT, &[], Some(&before)).await?;
    let generation = agent_loop::blocks::whole_text(sink, blocked.direct_response.clone()).await?;
    Ok(Box::new(Generated {
        session,
        model: blocked.module.clone(),
        vendor: MODULE_VENDOR.into(),
        user_breaker: false,
        user_message_id,
        system: None,
        generation,
        end: LoopEnd::Completed,
        moderation: Some(Moderation {
            blocked: true,
            category: Some(blocked.category),
            module: Some(blocked.module),
            replaced: false,
        }),
        after_ai: None,
        decision: None,
    }))
}

/// The `vendor` of an answer a module gave instead of a model.
pub const MODULE_VENDOR: &str = "module";

/// Applies what `chat:after_ai` decided to the answer: a block or a replacement
/// rewrites the answer's text (its blocks become one text block with the final text);
/// held-back events are released when the answer stands, dropped and replaced by the
/// final text when it does not (so nobody saw the original).
async fn settle_answer(
    sink: &mut TurnSink,
    generation: &mut Generation,
    after: &HookOutcome,
) -> Result<Option<Moderation>, TurnError> {
    let (text, mut moderation) = match (&after.blocked, &after.response) {
        (Some(blocked), _) => (
            blocked.direct_response.clone(),
            Moderation {
                blocked: true,
                category: Some(blocked.category.clone()),
                module: Some(blocked.module.clone()),
                replaced: false,
            },
        ),
        (None, Some(response)) => (
            response.clone(),
            Moderation {
                module: after
                    .events
                    .iter()
                    .rev()
                    .find(|e| e.outcome == ModuleOutcome::Modify)
                    .map(|e| e.module.clone()),
                ..Moderation::default()
            },
        ),
        (None, None) => {
            sink.release().await?;
            return Ok(None);
        }
    };
    generation.drafts = if sink.discard_held() {
        agent_loop::blocks::whole_text(sink, text).await?.drafts
    } else {
        moderation.replaced = true;
        vec![BlockDraft {
            index: 0,
            kind: BlockType::Text,
            content: text,
            metadata: serde_json::json!({}),
        }]
    };
    Ok(Some(moderation))
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
    deps: &Deps,
    registry: &Registry,
    prompt: &prompts::Model,
    session: &sessions::Model,
) -> Result<TurnTools, TurnError> {
    let offers = registry.offers(session.config.functions());
    let permissions = if offers.is_empty() {
        Vec::new()
    } else {
        let user = query::users::get(&deps.db, session.user_id).await?;
        query::users::effective_permissions(&user)
    };
    Ok(TurnTools {
        registry: registry.clone(),
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
fn max_iterations(config: &SessionConfig) -> u32 {
    config
        .max_iterations
        .filter(|n| *n >= 1)
        .unwrap_or(agent_loop::DEFAULT_MAX_ITERATIONS)
}

/// What an earlier attempt's model was writing when it stopped: the text after its
/// last function call (whose `[[tool:N]]` markers the replay writes again), as far as it
/// was persisted; `None` when it stopped elsewhere (thinking, or making a call).
fn partial_answer(blocks: &[blocks::Model]) -> Option<String> {
    let trailing = blocks
        .iter()
        .rev()
        .take_while(|b| b.r#type == BlockType::Text)
        .collect::<Vec<_>>();
    let mut text: String = trailing.iter().rev().map(|b| b.content.as_str()).collect();
    while let Some(rest) = text.strip_prefix("[[tool:")
        && let Some((n, after)) = rest.split_once("]]")
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        text = after.to_owned();
    }
    (!text.trim().is_empty()).then_some(text)
}

/// The calls an earlier attempt of this turn finished, to replay instead of running
/// them again.
async fn replay(
    deps: &Deps,
    registry: &Registry,
    prompt: &prompts::Model,
) -> Result<Vec<CallResult>, TurnError> {
    if prompt.attempt <= 1 {
        return Ok(Vec::new());
    }
    let rows = query::tool_calls::of_prompt(&deps.db, prompt.id).await?;
    Ok(rows
        .into_iter()
        .filter(|row| agent_loop::blocks::finished(row.state))
        .map(|row| registry.result_of_row(row))
        .collect())
}

/// The session's newest `read` messages, newest first: from the worker's history cache
/// when it is at the counter `count` the claim found, else read (and, on a first attempt,
/// kept for the conversation's next turn). A repeated attempt reads, since what an
/// earlier one wrote is not in the cache.
async fn recent_history(
    deps: &Deps,
    prompt: &prompts::Model,
    session_id: Uuid,
    count: i32,
    read: usize,
) -> Result<Vec<parley_entity::messages::Model>, Error> {
    let first = prompt.attempt <= 1;
    if first && let Some(recent) = deps.history.get(session_id, count, read) {
        return Ok(recent);
    }
    let recent = conversation::recent_messages(&deps.db, session_id, read as u64).await?;
    if first {
        deps.history.keep(session_id, count, &recent, read);
    } else {
        deps.history.forget(session_id);
    }
    Ok(recent)
}

/// Saves the user's message once per prompt (a repeated attempt reuses it), with what
/// `chat:before_ai` found about it. A plain turn's message (no modules, no attachments:
/// nothing else points at it yet) is left to the sink, which writes it with the first
/// checkpoint or the end of the turn, in the transaction that writes the answer.
async fn save_user_message(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    content: &str,
    files: &[parley_entity::files::Model],
    before: Option<&HookOutcome>,
) -> Result<Uuid, TurnError> {
    if let Some(id) = prompt.user_message_id {
        // Audits and findings were recorded with the message; this run is recorded.
        if let Some(before) = before {
            query::moderation::record_events(&deps.db, &before.events, query::now()).await?;
        }
        return Ok(id);
    }
    let row = MessageRow {
        id: Uuid::now_v7(),
        role: MessageRole::User,
        content: content.to_owned(),
        prompt_id: Some(prompt.id),
        is_complete: true,
    };
    match before {
        None if files.is_empty() => {
            let id = row.id;
            sink.defer_user_message(prompt.session_id, row);
            Ok(id)
        }
        None => write_user_message(deps, prompt, sink, row, files, &HookOutcome::default()).await,
        Some(before) => write_user_message(deps, prompt, sink, row, files, before).await,
    }
}

/// Writes the user message now, with its attachments and hook records.
async fn write_user_message(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    row: MessageRow,
    files: &[parley_entity::files::Model],
    before: &HookOutcome,
) -> Result<Uuid, TurnError> {
    let now = query::now();
    query::prompts::save_user_message(&deps.db, prompt.id, prompt.session_id, &row, now).await?;
    let id = row.id;
    sink.wrote_user_message(row, now);
    let blocks = attachments::blocks(files);
    conversation::attach_files(&deps.db, prompt.id, id, &blocks, now).await?;
    hooks::record(deps, prompt.session_id, Some(id), before).await?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(kind: BlockType, content: &str) -> blocks::Model {
        blocks::Model {
            id: Uuid::nil(),
            message_id: None,
            prompt_id: Uuid::nil(),
            index: 0,
            r#type: kind,
            content: content.into(),
            metadata: serde_json::json!({}),
            is_finalized: false,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn the_partial_answer_is_the_text_after_the_last_call_without_its_markers() {
        use BlockType::{Text, Thinking, ToolCall};
        let of = |blocks: &[(BlockType, &str)]| {
            let blocks: Vec<_> = blocks.iter().map(|(k, c)| block(*k, c)).collect();
            partial_answer(&blocks)
        };
        assert_eq!(of(&[(Text, "Once upon")]).as_deref(), Some("Once upon"));
        assert_eq!(
            of(&[
                (Text, "Let me look. "),
                (ToolCall, "{}"),
                (ToolCall, "{}"),
                (Text, "[[tool:0]][[tool:1]]It is "),
                (Text, "noon"),
            ])
            .as_deref(),
            Some("It is noon")
        );
        // Stopped while making a call, thinking, or before writing: nothing to continue.
        assert_eq!(of(&[(Text, "Let me look. "), (ToolCall, "{}")]), None);
        assert_eq!(of(&[(Text, "Hm"), (Thinking, "so…")]), None);
        assert_eq!(of(&[(ToolCall, "{}"), (Text, "[[tool:0]]")]), None);
        assert_eq!(of(&[]), None);
        // Text that merely looks like a marker stays.
        assert_eq!(
            of(&[(Text, "[[tool:x]] is how markers look")]).as_deref(),
            Some("[[tool:x]] is how markers look")
        );
    }
}
