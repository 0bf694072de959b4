//! The agent loop (DESIGN §5.7): stream from the provider and turn deltas into content
//! blocks — `block_start` / deltas / `block_stop` events and block drafts that the
//! persistence stage checkpoints.
//!
//! A turn makes one or more LLM calls. Calls that fail before producing anything are
//! retried (bounded, with backoff) when the failure is retryable; a stream that breaks
//! after producing output ends the turn with its partial content kept. No token for the
//! stall window is a stall. The tool loop (up to five iterations of call → tools → call)
//! slots in here when functions land.

use std::time::{Duration, Instant};

use futures::StreamExt;
use parley_entity::{enums::BlockType as DbBlockType, query::conversation::BlockDraft};
use parley_protocol::events::{BlockType, ErrorCode, EventKind};
use serde_json::json;

use crate::{
    context,
    providers::{ChatMessage, Delta, ProviderError, Route},
};

/// Settings of the loop.
#[derive(Debug, Clone)]
pub struct LoopSettings {
    /// No token for this long is a stall (`upstream_stall`).
    pub stall_timeout: Duration,
    /// Calls per turn that may fail before producing output before the turn fails.
    pub max_attempts: u32,
    /// The pause before the first retry; doubled for each next one.
    pub retry_backoff: Duration,
}

/// Where the loop sends what it produces.
#[async_trait::async_trait]
pub trait Sink: Send {
    /// Records one event of the turn.
    async fn event(&mut self, kind: EventKind) -> Result<(), SinkError>;
    /// The drafts changed; persist them if it is time to.
    async fn drafts(&mut self, drafts: &[BlockDraft]) -> Result<(), SinkError>;
    /// Whether the turn was cancelled (checked between deltas).
    fn cancelled(&self) -> bool;
    /// Resolves when the turn is cancelled, to abort a wait for the provider.
    async fn until_cancelled(&self);
}

/// The sink could not record: the event log or the database failed.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("appending an event: {0}")]
    Events(#[from] parley_runtime::event_log::EventLogError),
    #[error("writing the turn: {}", crate::jobs::describe(.0))]
    Storage(#[from] parley_entity::error::Error),
}

/// One LLM call's figures, for `ai_usage`.
#[derive(Debug, Clone, Default)]
pub struct CallUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub latency_ms: u64,
    pub ttft_ms: Option<u64>,
}

/// How a turn's generation ended.
#[derive(Debug)]
pub enum LoopEnd {
    Completed,
    Cancelled,
    /// The provider failed; `produced` says whether any content had been streamed. What
    /// the provider said is logged here; readers see the code's stable message.
    Failed {
        code: ErrorCode,
        produced: bool,
    },
    /// Recording failed (event log or database).
    Internal(SinkError),
}

/// What the loop produced, whatever the end.
#[derive(Debug, Default)]
pub struct Generation {
    pub drafts: Vec<BlockDraft>,
    pub calls: Vec<CallUsage>,
    pub ttft_ms: Option<u64>,
}

impl Generation {
    /// The answer's text: its text blocks, in order.
    pub fn text(&self) -> String {
        self.drafts
            .iter()
            .filter(|d| d.kind == DbBlockType::Text)
            .map(|d| d.content.as_str())
            .collect()
    }
}

/// Runs the generation of one turn.
#[tracing::instrument(skip_all, fields(model = %route.model, vendor = %route.vendor))]
pub async fn run(
    route: &Route,
    messages: Vec<ChatMessage>,
    settings: &LoopSettings,
    sink: &mut dyn Sink,
    started: Instant,
) -> (Generation, LoopEnd) {
    let mut generation = Generation::default();
    let mut attempt = 0;
    loop {
        attempt += 1;
        let call_started = Instant::now();
        let outcome = call(
            route,
            messages.clone(),
            settings,
            sink,
            &mut generation,
            started,
        )
        .await;
        let reported = outcome.usage.is_some();
        let mut usage = outcome.usage.unwrap_or_default();
        if !reported {
            // The provider reported no usage (a failed or cancelled call, or one without
            // the usage chunk): count what was sent and what came back.
            usage.input_tokens = messages
                .iter()
                .map(|m| context::count_tokens(&route.upstream, &m.content) + 4)
                .sum();
            usage.output_tokens = context::count_tokens(&route.upstream, &outcome.produced_text);
        }
        usage.latency_ms = call_started.elapsed().as_millis() as u64;
        usage.ttft_ms = outcome.ttft_ms;
        generation.calls.push(usage);
        match outcome.end {
            CallEnd::Failed(err)
                if !outcome.produced && err.retryable() && attempt < settings.max_attempts =>
            {
                tracing::warn!(error = %err, attempt, "provider call failed before any output; retrying");
                let pause = settings.retry_backoff * 2u32.saturating_pow(attempt - 1);
                tokio::select! {
                    _ = tokio::time::sleep(pause) => continue,
                    _ = sink.until_cancelled() => return (generation, LoopEnd::Cancelled),
                }
            }
            CallEnd::Failed(err) => {
                tracing::warn!(error = %err, attempt, "provider call failed; the turn fails");
                let end = LoopEnd::Failed {
                    code: err.code(),
                    produced: !generation.drafts.is_empty(),
                };
                return (generation, end);
            }
            CallEnd::Stalled => {
                tracing::warn!(
                    stall_ms = settings.stall_timeout.as_millis() as u64,
                    "no token from the provider within the stall window"
                );
                let end = LoopEnd::Failed {
                    code: ErrorCode::UpstreamStall,
                    produced: !generation.drafts.is_empty(),
                };
                return (generation, end);
            }
            CallEnd::Done => return (generation, LoopEnd::Completed),
            CallEnd::Cancelled => return (generation, LoopEnd::Cancelled),
            CallEnd::Internal(message) => return (generation, LoopEnd::Internal(message)),
        }
    }
}

enum CallEnd {
    Done,
    Cancelled,
    Stalled,
    Failed(ProviderError),
    Internal(SinkError),
}

struct CallOutcome {
    end: CallEnd,
    produced: bool,
    produced_text: String,
    usage: Option<CallUsage>,
    ttft_ms: Option<u64>,
}

/// One LLM call: stream deltas into blocks until the provider finishes, fails, stalls or
/// the turn is cancelled.
async fn call(
    route: &Route,
    messages: Vec<ChatMessage>,
    settings: &LoopSettings,
    sink: &mut dyn Sink,
    generation: &mut Generation,
    started: Instant,
) -> CallOutcome {
    let mut outcome = CallOutcome {
        end: CallEnd::Done,
        produced: false,
        produced_text: String::new(),
        usage: None,
        ttft_ms: None,
    };
    let call_started = Instant::now();
    let opened = tokio::select! {
        opened = tokio::time::timeout(settings.stall_timeout, route.stream(messages)) => opened,
        _ = sink.until_cancelled() => { outcome.end = CallEnd::Cancelled; return outcome; }
    };
    let mut stream = match opened {
        Ok(Ok(stream)) => stream,
        Ok(Err(err)) => {
            outcome.end = CallEnd::Failed(err);
            return outcome;
        }
        Err(_) => {
            outcome.end = CallEnd::Stalled;
            return outcome;
        }
    };
    let mut open_block: Option<usize> = None;
    loop {
        if sink.cancelled() {
            outcome.end = CallEnd::Cancelled;
            break;
        }
        let next = tokio::select! {
            next = tokio::time::timeout(settings.stall_timeout, stream.next()) => next,
            _ = sink.until_cancelled() => { outcome.end = CallEnd::Cancelled; break; }
        };
        let delta = match next {
            Err(_) => {
                outcome.end = CallEnd::Stalled;
                break;
            }
            Ok(None) => break,
            Ok(Some(Err(err))) => {
                outcome.end = CallEnd::Failed(err);
                break;
            }
            Ok(Some(Ok(delta))) => delta,
        };
        let (kind, text) = match delta {
            Delta::Usage {
                input_tokens,
                output_tokens,
            } => {
                outcome.usage = Some(CallUsage {
                    input_tokens,
                    output_tokens,
                    ..Default::default()
                });
                continue;
            }
            Delta::Text(text) => (BlockType::Text, text),
            Delta::Reasoning(text) => (BlockType::Thinking, text),
        };
        if outcome.ttft_ms.is_none() {
            outcome.ttft_ms = Some(call_started.elapsed().as_millis() as u64);
            generation
                .ttft_ms
                .get_or_insert(started.elapsed().as_millis() as u64);
        }
        outcome.produced = true;
        if kind == BlockType::Text {
            outcome.produced_text.push_str(&text);
        }
        if let Err(err) = write_delta(sink, generation, &mut open_block, kind, text).await {
            outcome.end = CallEnd::Internal(err);
            return outcome;
        }
    }
    if let Some(index) = open_block
        && let Err(err) = sink
            .event(EventKind::BlockStop {
                index: index as u32,
            })
            .await
    {
        outcome.end = CallEnd::Internal(err);
    }
    outcome
}

/// Appends a delta to the open block of its kind, opening a new block when the kind
/// changes.
async fn write_delta(
    sink: &mut dyn Sink,
    generation: &mut Generation,
    open_block: &mut Option<usize>,
    kind: BlockType,
    text: String,
) -> Result<(), SinkError> {
    let db_kind = match kind {
        BlockType::Thinking => DbBlockType::Thinking,
        _ => DbBlockType::Text,
    };
    let reuse = open_block.filter(|&i| generation.drafts[i].kind == db_kind);
    let index = match reuse {
        Some(index) => index,
        None => {
            if let Some(previous) = open_block.take() {
                sink.event(EventKind::BlockStop {
                    index: previous as u32,
                })
                .await?;
            }
            let index = generation.drafts.len();
            generation.drafts.push(BlockDraft {
                index: index as i32,
                kind: db_kind,
                content: String::new(),
                metadata: json!({}),
            });
            sink.event(EventKind::BlockStart {
                index: index as u32,
                block_type: kind,
            })
            .await?;
            *open_block = Some(index);
            index
        }
    };
    generation.drafts[index].content.push_str(&text);
    let event = match kind {
        BlockType::Thinking => EventKind::ThinkingDelta {
            index: index as u32,
            text,
        },
        _ => EventKind::TextDelta {
            index: index as u32,
            text,
        },
    };
    sink.event(event).await?;
    sink.drafts(&generation.drafts).await
}
