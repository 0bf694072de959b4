//! The persistence stage: how the turn ended is written in one transaction — the answer
//! (complete, or partial and incomplete), its blocks, one usage row per LLM call, the
//! user message when nothing wrote it yet, and the prompt's terminal state — guarded by
//! this worker's lease. The worker's history cache is extended by what was written (or
//! forgotten when that is unsure).

use parley_entity::{
    enums::{ErrorCode, MessageRole, PromptState},
    messages, prompts,
    query::{
        self,
        conversation::{self, MessageRow, UsageRow},
        prompts::{Finished, Outcome, TurnWrites},
        session_edits,
    },
};
use parley_protocol::events::{ResponseExtras, Usage};
use parley_service::{modules::runner::HookOutcome, respond, turns::record};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::{answer::Answer, answer::Produced, before::BLOCKED_TEXT as BLOCKED, user_breaker};
use crate::{
    agent_loop::LoopEnd, error::TurnError, functions::live::LiveRegistry, history::HistoryCache,
    providers::Catalog, sink::TurnSink,
};

/// Where the persistence stage writes, and what it reads to shape the answer.
#[derive(Clone, Copy)]
pub(super) struct Store<'a> {
    pub db: &'a DatabaseConnection,
    pub history: &'a HistoryCache,
    /// The lease owner the finish is guarded by.
    pub worker_id: &'a str,
    /// The payload types an answer's markers are read with.
    pub registry: &'a LiveRegistry,
    /// The user's breaker is told how a turn it let through ended.
    pub catalog: &'a Catalog,
}

/// What a turn records: its prompt's outcome and the rows written with it, and what the
/// finish stage tells and writes after.
pub(super) struct Record {
    pub outcome: Outcome,
    pub writes: TurnWrites,
    /// The answer's text (without markers), for the terminal event.
    pub answer: String,
    pub usage: Usage,
    pub after: Afterwards,
}

/// Rows that point at the turn's messages, written once the messages are.
#[derive(Default)]
pub(super) struct Afterwards {
    /// What `chat:after_ai` found (its audit points at the answer).
    pub after_ai: Option<HookOutcome>,
    pub session_id: Uuid,
    /// The turn called functions: attach their rows to the answer, and tell them.
    pub attach_calls: bool,
    /// The user and tool whose quotas count the turn's tokens.
    pub quota: Option<(Uuid, Uuid)>,
    /// The session had no title when the turn started: a completed turn is its first
    /// exchange, which the title model titles ([`crate::titles`]).
    pub untitled: Option<crate::titles::Untitled>,
    /// The first words' title the finish gives an untitled session (told on the feed).
    pub first_words: Option<String>,
}

impl Record {
    /// A turn that recorded nothing but its end.
    pub fn bare(outcome: Outcome) -> Self {
        Self {
            outcome,
            writes: TurnWrites::default(),
            answer: String::new(),
            usage: Usage::default(),
            after: Afterwards::default(),
        }
    }

    /// The turn could not be recorded normally (the database or the event log failed):
    /// it ends `error`/`internal_error`, resumable.
    pub fn internal_failure() -> Self {
        Self::bare(Outcome::failure(
            PromptState::Error,
            ErrorCode::InternalError,
        ))
    }
}

/// What the stages before produced, as a record.
pub(super) async fn record(
    store: Store<'_>,
    prompt: &prompts::Model,
    produced: Produced,
) -> Result<Record, TurnError> {
    match produced {
        Produced::UnknownModel => {
            tracing::warn!(
                model = prompt.model.as_deref(),
                "the prompt's model is not served here"
            );
            Ok(Record::bare(Outcome::failure(
                PromptState::Failed,
                ErrorCode::UnknownModel,
            )))
        }
        Produced::Answered(answer) => record_answer(store, prompt, *answer).await,
        Produced::Suspended(_) => Err(parley_protocol::error::Error::internal(
            "recording a turn",
            "a suspended turn has no end to record",
        )
        .into()),
    }
}

async fn record_answer(
    store: Store<'_>,
    prompt: &prompts::Model,
    mut answer: Answer,
) -> Result<Record, TurnError> {
    if answer.user_breaker {
        user_breaker::report(store.catalog, answer.session.user_id, &answer.end).await;
    }
    let (state, complete) = match answer.end {
        LoopEnd::Completed => (PromptState::Completed, true),
        LoopEnd::Cancelled => (PromptState::Canceled, false),
        LoopEnd::Failed { produced: true, .. } => (PromptState::Error, false),
        LoopEnd::Failed {
            produced: false, ..
        } => (PromptState::Failed, false),
        LoopEnd::Internal(err) => return Err(err.into()),
        LoopEnd::Suspended => {
            return Err(parley_protocol::error::Error::internal(
                "recording a turn",
                "a suspended turn has no end to record",
            )
            .into());
        }
    };
    let (text, mut response) = if complete {
        answer_and_extras(store.registry, &answer)
    } else {
        (answer.generation.text(), None)
    };
    if let Some(moderation) = answer.moderation.clone() {
        response
            .get_or_insert_with(ResponseExtras::default)
            .moderation = Some(moderation);
    }
    if complete && let Some(fallback) = answer.generation.fallback.clone() {
        response
            .get_or_insert_with(ResponseExtras::default)
            .fallback = Some(fallback);
    }
    if complete && let Some(reason) = answer.generation.stop_reason {
        response
            .get_or_insert_with(ResponseExtras::default)
            .stop_reason = Some(reason);
    }
    // Partial content is kept: a cancelled or broken answer is saved as incomplete.
    let keep_answer = complete || !answer.generation.drafts.is_empty();
    let mut writes = TurnWrites::default();
    let assistant_message_id = match (keep_answer, prompt.assistant_message_id) {
        (false, _) => None,
        // A repeated attempt rewrites the answer it saved before.
        (true, Some(id)) => {
            conversation::update_message(store.db, id, text.clone(), complete).await?;
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
                parent_id: Some(answer.user_message_id),
            });
            Some(id)
        }
    };
    writes.answer_id = assistant_message_id;
    writes.blocks = std::mem::take(&mut answer.generation.drafts);
    let usage = usage_rows(prompt, &answer, assistant_message_id);
    let total = record::total_usage(usage.iter().map(|r| r.tokens));
    writes.usage = usage;
    let after = Afterwards {
        after_ai: answer.after_ai.take(),
        session_id: answer.session.id,
        attach_calls: !answer.generation.results.is_empty(),
        quota: Some((answer.session.user_id, answer.session.tool_id)),
        untitled: (complete && answer.session.title_source.is_none()).then_some(
            crate::titles::Untitled {
                session_id: answer.session.id,
                user_id: answer.session.user_id,
                tool_id: answer.session.tool_id,
                prompt_id: prompt.id,
            },
        ),
        first_words: None,
    };
    let mut outcome = match answer.end {
        LoopEnd::Failed { code, .. } => Outcome::failure(state, code),
        _ => Outcome::bare(state),
    };
    if let (LoopEnd::Failed { .. }, Some(detail)) = (&answer.end, answer.generation.failure.take())
    {
        outcome.error = Some(detail);
    }
    outcome.assistant_message_id = assistant_message_id;
    outcome.user_message_id = Some(answer.user_message_id);
    outcome.model = Some(answer.model);
    outcome.vendor = Some(answer.vendor);
    outcome.system_message = answer.system;
    outcome.response = response;
    outcome.route = answer.decision;
    Ok(Record {
        outcome,
        writes,
        answer: text,
        usage: total,
        after,
    })
}

/// The text of a completed answer (its markers were taken out as it streamed), and what
/// they and the function calls carried: suggestions, the LLM payloads of the types the
/// tool enables (`payload_types` of its definition), the last function payload (which
/// wins).
fn answer_and_extras(registry: &LiveRegistry, answer: &Answer) -> (String, Option<ResponseExtras>) {
    let (mut extras, dropped) = respond::contents(
        answer.generation.gate.found(),
        registry.snapshot().payloads(),
    );
    for problem in &dropped {
        tracing::warn!(%problem, "dropped a marker's content from the model's answer");
    }
    extras.custom_payload = respond::final_payload(
        answer.generation.results.iter().map(|r| r.payload.clone()),
        extras.custom_payload,
    );
    (
        answer.generation.text(),
        (!extras.is_empty()).then_some(extras),
    )
}

/// One `ai_usage` row per LLM call of the turn.
fn usage_rows(prompt: &prompts::Model, answer: &Answer, message_id: Option<Uuid>) -> Vec<UsageRow> {
    usage_of_calls(
        prompt,
        &answer.session,
        &answer.generation.calls,
        message_id,
    )
}

/// One `ai_usage` row per LLM call in `calls`, of `prompt` in `session`.
pub(super) fn usage_of_calls(
    prompt: &prompts::Model,
    session: &parley_entity::sessions::Model,
    calls: &[crate::agent_loop::CallUsage],
    message_id: Option<Uuid>,
) -> Vec<UsageRow> {
    calls
        .iter()
        .map(|call| UsageRow {
            prompt_id: prompt.id,
            message_id,
            session_id: session.id,
            user_id: session.user_id,
            tool_id: session.tool_id,
            model: call.model.clone(),
            vendor: call.vendor.clone(),
            tokens: call.tokens,
            cost_usd: call.price.cost_usd(&call.tokens),
            latency_ms: call.latency_ms as i64,
            ttft_ms: call.ttft_ms.map(|t| t as i64),
            error: call.error,
        })
        .collect()
}

/// What the transaction left: the prompt as finished and the session's next prompt.
pub(super) struct Written {
    pub prompt: prompts::Model,
    pub next: Option<Uuid>,
    /// The seq the terminal event was recorded with (its `prompt_state` comes first).
    pub terminal_seq: Option<u64>,
}

/// Writes `record` as the end of this worker's attempt. `from` is the session's message
/// counter at the claim, when the history cache may be extended by what this attempt
/// wrote.
#[tracing::instrument(name = "persist", skip_all, err)]
pub(super) async fn write(
    store: Store<'_>,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    record: &mut Record,
    from: Option<i32>,
) -> Result<Written, TurnError> {
    let mut writes = std::mem::take(&mut record.writes);
    let mut outcome = std::mem::replace(&mut record.outcome, Outcome::bare(PromptState::Error));
    writes.checkpointed = sink.checkpointed();
    // The first finished exchange titles an untitled session with the user's first
    // words (the finish's session update keeps a title it has).
    if outcome.state == PromptState::Completed {
        writes.title = sink
            .user_text()
            .filter(|text| *text != BLOCKED)
            .and_then(session_edits::first_words);
    }
    if writes.title.is_none() {
        // Nothing to title from (a blocked message, no words, an unfinished turn).
        record.after.untitled = None;
    }
    record.after.first_words = record
        .after
        .untitled
        .is_some()
        .then(|| writes.title.clone())
        .flatten();
    if let Some(user) = sink.take_pending_user() {
        outcome.user_message_id = Some(user.id);
        writes.messages.insert(0, user);
    }
    // The finish records the seq the terminal event will have (its `prompt_state`
    // comes first): a feed rebuilt after the log is gone knows a reader holding it holds
    // everything. Unknown (the writer failed): the ceiling stays the bound it is.
    outcome.terminal_seq = sink.seq_ahead(2).await.ok().flatten();
    let terminal_seq = outcome.terminal_seq;
    let now = query::now();
    let session_id = prompt.session_id;
    let own = match from {
        Some(from) if prompt.attempt <= 1 && store.history.is_enabled() => {
            Some(own_messages(sink, &writes, session_id, from, now))
        }
        _ => None,
    };
    let finished =
        query::prompts::finish(store.db, prompt, store.worker_id, outcome, writes, now).await;
    match finished {
        Ok(Finished::Ended {
            prompt,
            next,
            message_count,
        }) => {
            match (from, own) {
                (Some(from), Some(own)) => {
                    store.history.extend(session_id, from, message_count, own)
                }
                _ => store.history.forget(session_id),
            }
            observe(&prompt, now, "running");
            Ok(Written {
                prompt: *prompt,
                next,
                terminal_seq,
            })
        }
        Ok(Finished::LeaseLost) => {
            store.history.forget(session_id);
            Err(TurnError::LeaseLost)
        }
        Err(err) => {
            store.history.forget(session_id);
            Err(err.into())
        }
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
) -> Vec<messages::Model> {
    let earlier = sink.take_written_user();
    earlier
        .into_iter()
        .chain(writes.messages.iter().map(|row| (row.clone(), now)))
        .enumerate()
        .map(|(i, (row, at))| row.into_model(session_id, from + 1 + i as i32, at))
        .collect()
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
    m.turn_ended(prompt.state.as_str(), prompt.error_code, elapsed);
    if prompt.state == PromptState::Canceled {
        m.cancelled(stage);
    }
}
