//! The last stage: record how the turn ended — the answer, its blocks, usage per LLM
//! call and the prompt's terminal state — then tell readers (the `prompt_state` and the
//! terminal event, built by `parley_service::turns::record` from what was recorded) and
//! hand the session to its next waiting prompt.

use parley_entity::{
    enums::{ErrorCode, MessageRole, PromptState},
    prompts,
    query::{
        self,
        conversation::{self, MessageRow, UsageRow},
        prompts::{Finished, Outcome, TurnWrites},
    },
};
use parley_protocol::events::{ResponseExtras, Usage};
use parley_service::{
    respond,
    turns::record::{self, TurnRecord},
};
use uuid::Uuid;

use super::{
    Deps, Handled, JobError, TurnError,
    run::{Generated, Produced},
};
use crate::{
    agent_loop::{LoopEnd, Sink},
    persist::TurnSink,
};

/// Records the end of a turn the run stage brought to an end.
#[tracing::instrument(skip_all, err)]
pub(super) async fn finish(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    produced: Produced,
    count: i32,
) -> Result<Option<Uuid>, TurnError> {
    let from = Some(count);
    match produced {
        Produced::UnknownModel => {
            tracing::warn!(
                model = prompt.model.as_deref(),
                "the prompt's model is not served here"
            );
            let outcome = Outcome::failure(PromptState::Failed, ErrorCode::UnknownModel);
            end(deps, prompt, sink, outcome, Recorded::nothing(), from).await
        }
        Produced::Generated(generated) => {
            record_generation(deps, prompt, sink, *generated, from).await
        }
    }
}

async fn record_generation(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    mut generated: Generated,
    from: Option<i32>,
) -> Result<Option<Uuid>, TurnError> {
    if generated.user_breaker {
        super::user_breaker::report(deps, generated.session.user_id, &generated.end).await;
    }
    let (state, complete) = match generated.end {
        LoopEnd::Completed => (PromptState::Completed, true),
        LoopEnd::Cancelled => (PromptState::Canceled, false),
        LoopEnd::Failed { produced: true, .. } => (PromptState::Error, false),
        LoopEnd::Failed {
            produced: false, ..
        } => (PromptState::Failed, false),
        LoopEnd::Internal(err) => return Err(err.into()),
    };
    let (text, mut response) = if complete {
        answer_and_extras(deps, &generated)
    } else {
        (generated.generation.text(), None)
    };
    if let Some(moderation) = generated.moderation.clone() {
        response
            .get_or_insert_with(ResponseExtras::default)
            .moderation = Some(moderation);
    }
    if complete && let Some(fallback) = generated.generation.fallback.clone() {
        response
            .get_or_insert_with(ResponseExtras::default)
            .fallback = Some(fallback);
    }
    // Partial content is kept: a cancelled or broken answer is saved as incomplete.
    let keep_answer = complete || !generated.generation.drafts.is_empty();
    let mut writes = TurnWrites::default();
    let assistant_message_id = match (keep_answer, prompt.assistant_message_id) {
        (false, _) => None,
        // A repeated attempt rewrites the answer it saved before.
        (true, Some(id)) => {
            conversation::update_message(&deps.db, id, text.clone(), complete).await?;
            Some(id)
        }
        (true, None) => {
            let id = Uuid::now_v7();
            writes.messages.push(MessageRow {
                id,
                role: MessageRole::Assistant,
                content: text.clone(),
                prompt_id: Some(prompt.id),
                is_complete: complete,
            });
            Some(id)
        }
    };
    writes.answer_id = assistant_message_id;
    writes.blocks = std::mem::take(&mut generated.generation.drafts);
    let usage = usage_rows(prompt, &generated, assistant_message_id);
    let total = record::total_usage(usage.iter().map(|r| (r.input_tokens, r.output_tokens)));
    writes.usage = usage;
    let after = Afterwards {
        after_ai: generated.after_ai.take(),
        session_id: generated.session.id,
        attach_calls: !generated.generation.results.is_empty(),
        quota: Some((generated.session.user_id, generated.session.tool_id)),
    };
    let mut outcome = match generated.end {
        LoopEnd::Failed { code, .. } => Outcome::failure(state, code),
        _ => Outcome::bare(state),
    };
    outcome.assistant_message_id = assistant_message_id;
    outcome.user_message_id = Some(generated.user_message_id);
    outcome.model = Some(generated.model.clone());
    outcome.vendor = Some(generated.vendor.clone());
    outcome.system_message = generated.system.clone();
    outcome.response = response;
    outcome.route = generated.decision;
    let recorded = Recorded {
        answer: &text,
        usage: total,
        writes,
        after,
    };
    end(deps, prompt, sink, outcome, recorded, from).await
}

/// The text of a completed answer without its markers, and what they and the function
/// calls carried: suggestions, the LLM payloads of the types the tool enables
/// (`payload_types` of its definition), the last function payload (which wins).
fn answer_and_extras(deps: &Deps, generated: &Generated) -> (String, Option<ResponseExtras>) {
    let enabled: Vec<&str> = generated.session.config.payload_types().collect();
    let extracted = respond::extract(
        &generated.generation.text(),
        deps.registry.snapshot().payloads(),
        &enabled,
    );
    for problem in &extracted.dropped {
        tracing::warn!(%problem, "dropped a marker's content from the model's answer");
    }
    let mut extras = extracted.extras;
    extras.custom_payload = respond::final_payload(
        generated
            .generation
            .results
            .iter()
            .map(|r| r.payload.clone()),
        extras.custom_payload,
    );
    (extracted.text, (!extras.is_empty()).then_some(extras))
}

/// What a turn writes besides its prompt row, and what its terminal event tells.
struct Recorded<'a> {
    answer: &'a str,
    usage: Usage,
    writes: TurnWrites,
    after: Afterwards,
}

impl Recorded<'_> {
    fn nothing() -> Self {
        Self {
            answer: "",
            usage: Usage::default(),
            writes: TurnWrites::default(),
            after: Afterwards::default(),
        }
    }
}

/// Rows that point at the turn's messages, written once the messages are.
#[derive(Default)]
struct Afterwards {
    /// What `chat:after_ai` found (its audit points at the answer).
    after_ai: Option<parley_service::modules::runner::HookOutcome>,
    session_id: Uuid,
    /// The turn called functions: attach their rows to the answer, and tell them.
    attach_calls: bool,
    /// The user and tool whose quotas count the turn's tokens.
    quota: Option<(Uuid, Uuid)>,
}

/// One `ai_usage` row per LLM call of the turn.
fn usage_rows(
    prompt: &prompts::Model,
    generated: &Generated,
    message_id: Option<Uuid>,
) -> Vec<UsageRow> {
    generated
        .generation
        .calls
        .iter()
        .map(|call| UsageRow {
            prompt_id: prompt.id,
            message_id,
            session_id: generated.session.id,
            user_id: generated.session.user_id,
            tool_id: generated.session.tool_id,
            model: call.model.clone(),
            vendor: call.vendor.clone(),
            input_tokens: call.input_tokens as i64,
            output_tokens: call.output_tokens as i64,
            cost_usd: call.price.cost_usd(call.input_tokens, call.output_tokens),
            latency_ms: call.latency_ms as i64,
            ttft_ms: call.ttft_ms.map(|t| t as i64),
            error: call.error,
        })
        .collect()
}

/// Records `outcome` as the end of this worker's attempt, then tells readers how the
/// turn ended and sets the event log's retention. Returns the session's next prompt.
/// `from` is the session's message counter at the claim, when the history cache may be
/// extended by what this attempt wrote.
async fn end(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    mut outcome: Outcome,
    recorded: Recorded<'_>,
    from: Option<i32>,
) -> Result<Option<Uuid>, TurnError> {
    let mut writes = recorded.writes;
    writes.checkpointed = sink.checkpointed();
    if let Some(user) = sink.take_pending_user() {
        outcome.user_message_id = Some(user.id);
        writes.messages.insert(0, user);
    }
    // The finish records the seq the terminal event will have (its `prompt_state`
    // comes first): a feed rebuilt after the log is gone knows a reader holding it holds
    // everything. Unknown (the writer failed): the ceiling stays the bound it is.
    outcome.terminal_seq = sink.seq_ahead(2).await.ok().flatten();
    let now = query::now();
    let session_id = prompt.session_id;
    let own = match from {
        Some(from) if prompt.attempt <= 1 && deps.history.is_enabled() => {
            Some(own_messages(sink, &writes, session_id, from, now))
        }
        _ => None,
    };
    let outcome_seq = outcome.terminal_seq;
    let finished =
        query::prompts::finish(&deps.db, prompt, &deps.worker_id, outcome, writes, now).await;
    let (prompt, next) = match finished {
        Ok(Finished::Ended {
            prompt,
            next,
            message_count,
        }) => {
            match (from, own) {
                (Some(from), Some(own)) => {
                    deps.history.extend(session_id, from, message_count, own)
                }
                _ => deps.history.forget(session_id),
            }
            observe(&prompt, now, "running");
            (*prompt, next)
        }
        Ok(Finished::LeaseLost) => {
            deps.history.forget(session_id);
            return Err(TurnError::LeaseLost);
        }
        Err(err) => {
            deps.history.forget(session_id);
            return Err(err.into());
        }
    };
    let after = recorded.after;
    if let Some(outcome) = &after.after_ai {
        crate::hooks::record(deps, after.session_id, prompt.assistant_message_id, outcome).await?;
    }
    let calls = if after.attach_calls {
        if let Some(message_id) = prompt.assistant_message_id {
            query::tool_calls::attach(&deps.db, prompt.id, message_id).await?;
        }
        query::tool_calls::of_prompt(&deps.db, prompt.id).await?
    } else {
        Vec::new()
    };
    sink.event(record::state_event(&prompt)).await?;
    let ended = TurnRecord {
        prompt: &prompt,
        answer: recorded.answer,
        usage: recorded.usage,
        tool_calls: &calls,
    };
    if let Some(terminal) = record::terminal_event(ended) {
        sink.event(terminal).await?;
        let seq = sink.last_event.as_ref().map_or(0, |event| event.seq);
        if Some(seq) != outcome_seq {
            // Another appender came first: the ceiling must not stay below the terminal.
            let seq = i64::try_from(seq).unwrap_or(i64::MAX);
            query::prompts::raise_seq_ceiling(&deps.db, prompt.id, seq).await?;
        }
    }
    if let Some((user_id, tool_id)) = after.quota {
        let tokens = recorded.usage.input_tokens + recorded.usage.output_tokens;
        charge_tokens(deps, user_id, tool_id, tokens).await;
    }
    expire(deps, prompt.id).await;
    Ok(next)
}

/// Counts a turn's tokens against its user's and group's daily quotas (when any is
/// configured: else no query). A failure is logged: the turn is recorded already.
async fn charge_tokens(deps: &Deps, user_id: Uuid, tool_id: Uuid, tokens: u64) {
    if !deps.quotas.is_enabled() || tokens == 0 {
        return;
    }
    match query::quotas::scope_of_tool(&deps.db, tool_id).await {
        Ok(Some(scope)) => {
            let counted = deps.quotas.counted(user_id, &scope);
            deps.quotas
                .charge_tokens(&counted, tokens, query::now())
                .await;
        }
        Ok(None) => {}
        Err(err) => {
            tracing::warn!(error = %err, "cannot count a turn's tokens: its tool's group is unknown")
        }
    }
}

/// Counts the turn's end in the metrics (once per turn: only the attempt whose end was
/// recorded gets here); `stage` is where a cancelled turn was (`queued`, `running`).
pub(super) fn observe(
    prompt: &prompts::Model,
    now: chrono::DateTime<chrono::Utc>,
    stage: &'static str,
) {
    let elapsed = (now - prompt.created_at).num_milliseconds() as f64 / 1000.0;
    let m = parley_runtime::metrics::metrics();
    m.turn_ended(
        prompt.state.as_str(),
        prompt.error_code.map(ErrorCode::as_str),
        elapsed,
    );
    if prompt.state == PromptState::Canceled {
        m.cancelled(stage);
    }
}

/// The turn could not be recorded normally (the database or the event log failed): end
/// it `error`/`internal_error` (resumable) if that can still be recorded, else leave it
/// to the queue's bounded retries and the reaper.
pub(super) async fn fail_internally(
    deps: &Deps,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    err: TurnError,
) -> Result<Handled, JobError> {
    tracing::error!(error = %err, "turn failed internally");
    let outcome = Outcome::failure(PromptState::Error, ErrorCode::InternalError);
    match end(deps, prompt, sink, outcome, Recorded::nothing(), None).await {
        Ok(next) => Ok(Handled::Done { next }),
        Err(TurnError::LeaseLost) => Ok(Handled::Done { next: None }),
        Err(again) => Err(again.into()),
    }
}

/// The messages this attempt wrote to its session, in order, as the history cache keeps
/// them: the user message (written before the end, or now) and the answer; their seqs
/// follow `from` (the cache checks that the finish left the counter just past them).
fn own_messages(
    sink: &mut TurnSink,
    writes: &TurnWrites,
    session_id: Uuid,
    from: i32,
    now: chrono::DateTime<chrono::Utc>,
) -> Vec<parley_entity::messages::Model> {
    let earlier = sink.take_written_user();
    earlier
        .into_iter()
        .chain(writes.messages.iter().map(|row| (row.clone(), now)))
        .enumerate()
        .map(|(i, (row, at))| row.into_model(session_id, from + 1 + i as i32, at))
        .collect()
}

/// Sets the retention of the prompt's finished event log.
pub(super) async fn expire(deps: &Deps, prompt_id: Uuid) {
    if let Err(err) = deps.events.expire(prompt_id, deps.settings.retention).await {
        tracing::warn!(error = %err, "cannot set the event log's retention");
    }
}
