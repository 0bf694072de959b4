//! The `Generate` job: one turn, from claim to `complete` (DESIGN §5).
//!
//! [`generate`] is a plain async function over [`Deps`], so tests call it directly; the
//! queue consumer wraps it. Jobs are at-least-once, so every step is idempotent: a job
//! for a finished prompt does nothing, a job for a prompt another worker holds is tried
//! again later, and a turn that runs again (its worker died, or it was resumed) reuses
//! the user message it already saved and tells readers to drop its partial blocks.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use parley_entity::{
    enums::{MessageRole, PromptState as DbPromptState},
    prompts,
    query::{
        self,
        conversation::{self, NewMessage, UsageRow},
        prompts::{Claim, Outcome},
    },
};
use parley_protocol::{
    events::{ChatResponsePayload, ErrorCode, EventKind, PromptState, Usage},
    jobs::Generate,
};
use parley_runtime::event_log::EventLog;
use sea_orm::DatabaseConnection;
use serde_json::Value;
use uuid::Uuid;

use crate::{
    agent_loop::{self, Generation, LoopEnd, LoopSettings, Sink},
    context::{self, Window},
    persist::{Stop, TurnSink, Watcher},
    providers::{Catalog, Route},
};

/// Everything a turn needs.
#[derive(Clone)]
pub struct Deps {
    pub db: DatabaseConnection,
    pub events: Arc<dyn EventLog>,
    pub catalog: Arc<Catalog>,
    pub settings: TurnSettings,
    /// This worker's identity, recorded as the lease owner.
    pub worker_id: String,
}

#[derive(Debug, Clone)]
pub struct TurnSettings {
    pub agent_loop: LoopSettings,
    /// How long a claim holds without renewal.
    pub lease: Duration,
    /// How often the watcher looks for a cancel.
    pub cancel_poll: Duration,
    /// The most often partial blocks are written to the database.
    pub checkpoint_interval: Duration,
    /// How long a finished prompt's event log stays readable.
    pub retention: Duration,
    /// Tokens kept free for the answer in the context window.
    pub response_buffer: usize,
}

impl Default for TurnSettings {
    fn default() -> Self {
        Self {
            agent_loop: LoopSettings {
                stall_timeout: Duration::from_secs(15),
                max_attempts: 3,
                retry_backoff: Duration::from_millis(250),
            },
            lease: Duration::from_secs(30),
            cancel_poll: Duration::from_millis(100),
            checkpoint_interval: Duration::from_millis(100),
            retention: Duration::from_secs(24 * 3600),
            response_buffer: 1024,
        }
    }
}

/// What a job did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handled {
    /// The turn ran (to any end) or was already finished. `next` is the session's next
    /// waiting prompt, whose job the caller enqueues.
    Done { next: Option<Uuid> },
    /// Another worker holds the prompt; try the job again later.
    Busy,
}

/// A failure the job cannot finish past: the queue retries it (bounded).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct JobError(pub String);

impl From<parley_entity::error::Error> for JobError {
    fn from(err: parley_entity::error::Error) -> Self {
        Self(describe(&err))
    }
}

/// An error with its internal context (what was attempted and why it failed), for logs
/// and `prompts.error`; the domain error's `Display` hides that context from clients.
fn describe(err: &parley_entity::error::Error) -> String {
    match err {
        parley_entity::error::Error::Internal(context) => context.to_string(),
        other => other.to_string(),
    }
}

/// Runs one `Generate` job.
#[tracing::instrument(
    skip_all,
    fields(
        prompt_id = %job.prompt_id,
        worker = %deps.worker_id,
        traceparent = job.trace_context.get("traceparent").map(String::as_str).unwrap_or_default(),
    ),
    err
)]
pub async fn generate(deps: &Deps, job: &Generate) -> Result<Handled, JobError> {
    let started = Instant::now();
    let lease =
        chrono::Duration::from_std(deps.settings.lease).unwrap_or(chrono::Duration::seconds(30));
    let prompt = match query::prompts::claim(
        &deps.db,
        job.prompt_id,
        &deps.worker_id,
        lease,
        query::now(),
    )
    .await?
    {
        Claim::Claimed(prompt) => prompt,
        Claim::Finished(_) => return Ok(Handled::Done { next: None }),
        Claim::Busy => return Ok(Handled::Busy),
        Claim::Canceled(prompt) => return cancelled_before_start(deps, &prompt).await,
    };
    let watcher = Watcher::start(
        deps.db.clone(),
        prompt.id,
        deps.worker_id.clone(),
        deps.settings.lease,
        deps.settings.cancel_poll,
    );
    let mut sink = TurnSink::new(
        deps.events.clone(),
        deps.db.clone(),
        prompt.id,
        deps.settings.checkpoint_interval,
        &watcher,
    );
    let turn = Turn {
        deps,
        prompt: &prompt,
        started,
    };
    match turn.run(&mut sink, &watcher).await {
        Ok(next) => Ok(Handled::Done { next }),
        Err(TurnError::LeaseLost) => {
            tracing::warn!("lost the prompt to another worker; stopping");
            Ok(Handled::Done { next: None })
        }
        Err(TurnError::Internal(message)) => {
            tracing::error!(error = %message, "turn failed internally");
            let outcome = Outcome {
                error_code: Some("internal_error".into()),
                error: Some(message.clone()),
                ..outcome(DbPromptState::Error)
            };
            let next =
                query::prompts::finish(&deps.db, prompt.id, &deps.worker_id, outcome, query::now())
                    .await
                    .ok()
                    .flatten();
            let _ = sink
                .event(EventKind::PromptState {
                    state: PromptState::Error,
                    attempt: attempt(&prompt),
                })
                .await;
            let _ = sink
                .event(EventKind::Error {
                    code: ErrorCode::InternalError,
                    message: "internal error".into(),
                    retryable: true,
                })
                .await;
            let _ = deps.events.expire(prompt.id, deps.settings.retention).await;
            Ok(Handled::Done { next })
        }
    }
}

/// A cancel arrived before any worker ran the prompt: tell readers and hand over.
async fn cancelled_before_start(deps: &Deps, prompt: &prompts::Model) -> Result<Handled, JobError> {
    append(
        deps,
        prompt.id,
        EventKind::PromptState {
            state: PromptState::Canceled,
            attempt: attempt(prompt),
        },
    )
    .await?;
    append(deps, prompt.id, EventKind::Cancelled).await?;
    let _ = deps.events.expire(prompt.id, deps.settings.retention).await;
    let next = query::prompts::hand_over_after_cancel(&deps.db, prompt, query::now()).await?;
    Ok(Handled::Done { next })
}

async fn append(deps: &Deps, prompt_id: Uuid, kind: EventKind) -> Result<(), JobError> {
    deps.events
        .append(prompt_id, kind)
        .await
        .map(|_| ())
        .map_err(|err| JobError(err.to_string()))
}

fn attempt(prompt: &prompts::Model) -> u32 {
    u32::try_from(prompt.attempt).unwrap_or(0)
}

fn outcome(state: DbPromptState) -> Outcome {
    Outcome {
        state,
        assistant_message_id: None,
        user_message_id: None,
        model: None,
        vendor: None,
        system_message: None,
        error_code: None,
        error: None,
    }
}

enum TurnError {
    LeaseLost,
    Internal(String),
}

impl From<parley_entity::error::Error> for TurnError {
    fn from(err: parley_entity::error::Error) -> Self {
        Self::Internal(describe(&err))
    }
}

impl From<agent_loop::SinkError> for TurnError {
    fn from(err: agent_loop::SinkError) -> Self {
        Self::Internal(err.0)
    }
}

struct Turn<'a> {
    deps: &'a Deps,
    prompt: &'a prompts::Model,
    started: Instant,
}

impl Turn<'_> {
    async fn run(&self, sink: &mut TurnSink, watcher: &Watcher) -> Result<Option<Uuid>, TurnError> {
        let deps = self.deps;
        let prompt = self.prompt;
        if prompt.attempt > 1 {
            sink.event(EventKind::Retry {
                attempt: attempt(prompt),
                reason: "the turn starts over".into(),
            })
            .await?;
            conversation::discard_blocks(&deps.db, prompt.id).await?;
        }
        sink.event(EventKind::PromptState {
            state: PromptState::InProgress,
            attempt: attempt(prompt),
        })
        .await?;
        let session = query::sessions::get(&deps.db, prompt.session_id).await?;
        let content = prompt
            .input
            .as_ref()
            .and_then(|input| input.get("content"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let Some(route) = deps.catalog.resolve(prompt.model.as_deref()).cloned() else {
            return self.fail_unknown_model(sink).await;
        };
        // chat:before_ai modules run here (they may block or rewrite the message).
        let user_message_id = match prompt.user_message_id {
            Some(id) => id,
            None => {
                let new = NewMessage {
                    session_id: session.id,
                    role: MessageRole::User,
                    content: content.clone(),
                    prompt_id: Some(prompt.id),
                    is_complete: true,
                };
                let message = conversation::append_message(&deps.db, new, query::now()).await?;
                query::prompts::set_user_message(&deps.db, prompt.id, message.id).await?;
                message.id
            }
        };
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
        let context = context::assemble(&session.config, &history, &content, window);
        let (generation, end) = agent_loop::run(
            &route,
            context.messages,
            &deps.settings.agent_loop,
            sink,
            self.started,
        )
        .await;
        if watcher.state() == Stop::LeaseLost {
            return Err(TurnError::LeaseLost);
        }
        sink.flush(&generation.drafts).await?;
        let record = Record {
            session: &session,
            route: &route,
            user_message_id,
            system: context.system,
        };
        self.finish(sink, generation, end, record).await
    }

    async fn fail_unknown_model(&self, sink: &mut TurnSink) -> Result<Option<Uuid>, TurnError> {
        let message = format!(
            "the model `{}` is not served here",
            self.prompt.model.as_deref().unwrap_or_default()
        );
        let outcome = Outcome {
            error_code: Some("unknown_model".into()),
            error: Some(message.clone()),
            ..outcome(DbPromptState::Failed)
        };
        let next = self.end(outcome).await?;
        sink.event(EventKind::PromptState {
            state: PromptState::Failed,
            attempt: attempt(self.prompt),
        })
        .await?;
        sink.event(EventKind::Error {
            code: ErrorCode::UnknownModel,
            message,
            retryable: false,
        })
        .await?;
        self.expire().await;
        Ok(next)
    }

    /// Records the turn's end — message, blocks, usage, prompt state — then tells readers.
    async fn finish(
        &self,
        sink: &mut TurnSink,
        generation: Generation,
        end: LoopEnd,
        record: Record<'_>,
    ) -> Result<Option<Uuid>, TurnError> {
        let deps = self.deps;
        let prompt = self.prompt;
        let text = generation.text();
        let (state, complete) = match &end {
            LoopEnd::Completed => (DbPromptState::Completed, true),
            LoopEnd::Cancelled => (DbPromptState::Canceled, false),
            LoopEnd::Failed { produced: true, .. } => (DbPromptState::Error, false),
            LoopEnd::Failed {
                produced: false, ..
            } => (DbPromptState::Failed, false),
            LoopEnd::Internal(message) => return Err(TurnError::Internal(message.clone())),
        };
        // Partial content is kept: a cancelled or broken answer is saved as incomplete.
        let assistant_message_id = if complete || !generation.drafts.is_empty() {
            let message = match prompt.assistant_message_id {
                Some(id) => {
                    conversation::update_message(&deps.db, id, text.clone(), complete).await?
                }
                None => {
                    let new = NewMessage {
                        session_id: record.session.id,
                        role: MessageRole::Assistant,
                        content: text.clone(),
                        prompt_id: Some(prompt.id),
                        is_complete: complete,
                    };
                    conversation::append_message(&deps.db, new, query::now()).await?
                }
            };
            conversation::finalize_blocks(&deps.db, prompt.id, message.id).await?;
            Some(message.id)
        } else {
            None
        };
        let mut total = Usage::default();
        for call in &generation.calls {
            total.input_tokens += call.input_tokens;
            total.output_tokens += call.output_tokens;
            let row = UsageRow {
                prompt_id: prompt.id,
                message_id: assistant_message_id,
                session_id: record.session.id,
                user_id: record.session.user_id,
                tool_id: record.session.tool_id,
                model: record.route.model.clone(),
                vendor: record.route.vendor.clone(),
                input_tokens: call.input_tokens as i64,
                output_tokens: call.output_tokens as i64,
                cost_usd: 0.0,
                latency_ms: call.latency_ms as i64,
                ttft_ms: call.ttft_ms.map(|t| t as i64),
            };
            conversation::record_usage(&deps.db, row, query::now()).await?;
        }
        let (error_code, error) = match &end {
            LoopEnd::Failed { code, message, .. } => {
                (Some(code.as_str().to_owned()), Some(message.clone()))
            }
            _ => (None, None),
        };
        let outcome = Outcome {
            state,
            assistant_message_id,
            user_message_id: Some(record.user_message_id),
            model: Some(record.route.model.clone()),
            vendor: Some(record.route.vendor.clone()),
            system_message: Some(record.system),
            error_code,
            error,
        };
        let next = self.end(outcome).await?;
        sink.event(EventKind::PromptState {
            state: state.into(),
            attempt: attempt(prompt),
        })
        .await?;
        let last = match end {
            LoopEnd::Completed => EventKind::Complete {
                message_id: assistant_message_id.unwrap_or_default(),
                payload: ChatResponsePayload {
                    message: text,
                    ..Default::default()
                },
                usage: total,
                model: record.route.model.clone(),
                vendor: record.route.vendor.clone(),
                latency_ms: self.started.elapsed().as_millis() as u64,
                blocked: false,
                replaced: false,
            },
            LoopEnd::Cancelled => EventKind::Cancelled,
            LoopEnd::Failed {
                code,
                message,
                retryable,
                ..
            } => EventKind::Error {
                code,
                message,
                retryable,
            },
            LoopEnd::Internal(_) => unreachable!("returned above"),
        };
        sink.event(last).await?;
        self.expire().await;
        Ok(next)
    }

    async fn end(&self, outcome: Outcome) -> Result<Option<Uuid>, TurnError> {
        match query::prompts::finish(
            &self.deps.db,
            self.prompt.id,
            &self.deps.worker_id,
            outcome,
            query::now(),
        )
        .await
        {
            Ok(next) => Ok(next),
            Err(parley_entity::error::Error::Conflict {
                code: "lease_lost", ..
            }) => Err(TurnError::LeaseLost),
            Err(err) => Err(err.into()),
        }
    }

    async fn expire(&self) {
        if let Err(err) = self
            .deps
            .events
            .expire(self.prompt.id, self.deps.settings.retention)
            .await
        {
            tracing::warn!(error = %err, "cannot set the event log's retention");
        }
    }
}

struct Record<'a> {
    session: &'a parley_entity::sessions::Model,
    route: &'a Route,
    user_message_id: Uuid,
    system: String,
}
