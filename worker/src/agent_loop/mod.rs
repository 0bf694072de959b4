//! The agent loop (DESIGN §5.7, seed 002): call the model, stream what it writes into
//! content blocks, run the functions it calls, feed their results back, and call it
//! again — until it answers without calling anything, or `max_iterations` model calls
//! were made.
//!
//! * [`model_call`] — one model call: streaming deltas into blocks, assembling function calls
//!   from their split deltas, bounded retries of calls that fail before any output, stall
//!   detection, cancellation;
//! * [`blocks`] — the layout of an answer: text, thinking and `tool_call` blocks, the
//!   `[[tool:N]]` markers, and the events that go with them;
//! * the functions themselves run behind the [`Functions`] trait (`crate::functions::runner`).

pub mod blocks;
mod model_call;
pub mod output;
pub mod round;
pub mod spend;

use std::time::{Duration, Instant};

use async_trait::async_trait;
use parley_entity::{enums::BlockType as DbBlockType, query::conversation::BlockDraft};
use parley_protocol::error::ErrorCode;
use parley_protocol::events::{
    CustomPayload, EventKind, Fallback, FallbackReason, StopReason, ToolCallState, Usage,
};
use parley_protocol::sampling::Sampling;
use serde_json::Value;

use crate::providers::{ChatMessage, FunctionOffer, Price, Route};
pub use round::CallRecord;

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

/// The default of a tool's `max_iterations`: model calls per turn.
pub const DEFAULT_MAX_ITERATIONS: u32 = 5;

/// Where the loop sends what it produces.
#[async_trait]
pub trait Sink: Send {
    /// Records one event of the turn.
    async fn event(&mut self, kind: EventKind) -> Result<(), SinkError>;
    /// The drafts changed; persist them if it is time to.
    async fn drafts(&mut self, drafts: &[BlockDraft]) -> Result<(), SinkError>;
    /// Whether the turn was cancelled (checked between deltas).
    fn cancelled(&self) -> bool;
    /// Resolves when the turn is cancelled, to abort a wait for the provider. The future
    /// owns what it waits on, so a call's loop makes it once and polls it beside every
    /// delta instead of registering a waiter per delta.
    fn until_cancelled(&self) -> futures::future::BoxFuture<'static, ()>;
    /// When deltas the sink holds back to merge them are due (none held: `None`).
    fn due(&self) -> Option<std::time::Instant> {
        None
    }
    /// Sends what is due: the events waiting to go as one batch, and the deltas held
    /// back to merge them once their time has come. The loop calls it when it has
    /// nothing else ready.
    async fn flush_due(&mut self) -> Result<(), SinkError> {
        Ok(())
    }
    /// Sends every event waiting to go (not the deltas still being merged): the turn is
    /// about to wait (for a model, a function).
    async fn flush(&mut self) -> Result<(), SinkError> {
        Ok(())
    }
    /// Sends every event waiting to go (merged deltas too), then writes the drafts (and a
    /// deferred user message) now, whatever the checkpoint interval: the turn is about
    /// to run functions, or stops for a while (it waits for an approval), and a later
    /// attempt reads what was written.
    async fn checkpoint_now(&mut self, _drafts: &[BlockDraft]) -> Result<(), SinkError> {
        Ok(())
    }
    /// Whether the checkpoints write the prompt's running state on its row, in their own
    /// statement: [`Sink::checkpoint_now`] marks it `waiting_for_tools` (functions are
    /// about to run), a checkpoint while the model streams `in_progress`. When false,
    /// whoever changes the state writes it.
    fn checkpoints_keep_the_state(&self) -> bool {
        false
    }
    /// Takes back the events of blocks `from_block` on, which nobody has seen (the sink
    /// holds the answer back). Whether it could: a sink that sent them cannot.
    fn retract(&mut self, _from_block: u32) -> bool {
        false
    }
}

pub use crate::error::SinkError;

/// A function call the model asked for, placed in the answer: the `N` of its
/// `[[tool:N]]` marker and the index of its `tool_call` block.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCall {
    pub n: u32,
    pub block: u32,
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them.
    pub arguments: String,
    /// What the call keeps of the response that made it.
    pub record: CallRecord,
}

/// How one function call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them (for the transcript sent back).
    pub arguments: String,
    /// The arguments as `tool_start` shows them: parsed, or the raw text when they are
    /// not JSON.
    pub input: Value,
    pub state: ToolCallState,
    /// What the call gave back, or why it gave nothing.
    pub output: CallOutput,
    /// The result as a payload of the function's payload type (`success` only).
    pub payload: Option<CustomPayload>,
    pub duration_ms: u64,
    /// What the call keeps of the response that made it (sent again with it).
    pub record: CallRecord,
}

impl CallResult {
    /// The content of the `tool` message that gives the model this result: JSON, or a
    /// result that is text as it is (a caller's `tool` message, a client function's
    /// `text`), not quoted as a JSON string.
    pub fn for_model(&self) -> String {
        match self.output.to_value() {
            Value::String(text) => text,
            other => other.to_string(),
        }
    }
}

/// What a call gave back: its result, or why it has none. Readers and the model see a
/// failure as `{"error": reason}` (the shape `tool_complete` and `tool` messages have
/// always had), but nothing reads that key to learn that a call failed: a function's
/// result may have a key named `error` and still be a result.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutput {
    /// What the function answered (or what the model reads while the call waits or
    /// runs in the background).
    Result(Value),
    /// Why the call has no result, in words for the model.
    Failed(String),
}

impl CallOutput {
    /// The output as events, the model and the call's row show it.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Result(value) => value.clone(),
            Self::Failed(reason) => serde_json::json!({ "error": reason }),
        }
    }

    /// Why the call failed, if it did.
    pub fn error(&self) -> Option<&str> {
        match self {
            Self::Result(_) => None,
            Self::Failed(reason) => Some(reason),
        }
    }

    /// The output of a finished `tool_calls` row: a success's result; a failure's
    /// recorded reason (`error_message`), or — on a row without one — what it stored.
    pub fn of_row(row: &parley_entity::tool_calls::Model) -> Self {
        match (&row.error_message, row.state) {
            (Some(reason), state) if state != ToolCallState::Success => {
                Self::Failed(reason.clone())
            }
            _ => Self::Result(row.tool_result.clone().unwrap_or(Value::Null)),
        }
    }
}

/// The functions of a turn.
#[async_trait]
pub trait Functions: Send {
    /// What the model may call.
    fn offers(&self) -> &[FunctionOffer];

    /// Runs the calls of one model response (their `tool_call` blocks are open and
    /// `tool_start` was sent); sends `tool_progress`, `tool_complete` and `block_stop`
    /// as each ends. Returns one result per call, in order.
    async fn run(
        &mut self,
        calls: &[PlannedCall],
        sink: &mut dyn Sink,
    ) -> Result<Vec<CallResult>, SinkError>;
}

/// One LLM call's figures, for `ai_usage`.
#[derive(Debug, Clone, Default)]
pub struct CallUsage {
    /// The model called, its provider, and what its tokens cost.
    pub model: String,
    pub vendor: String,
    pub price: Price,
    /// Its tokens by kind, as the provider reported them (or counted, when it did not).
    pub tokens: Usage,
    pub latency_ms: u64,
    pub ttft_ms: Option<u64>,
    /// How the call failed; `None`: it did not (or was cancelled).
    pub error: Option<parley_protocol::events::CallError>,
}

/// How a turn's generation ended.
#[derive(Debug)]
pub enum LoopEnd {
    /// The model answered (possibly after calling functions), or the loop reached its
    /// iteration limit and said so.
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
    /// A function call waits for the user's approval: the turn stops here and resumes
    /// as a new attempt once every waiting call is decided.
    Suspended,
}

/// What the loop produced, whatever the end.
#[derive(Debug, Default)]
pub struct Generation {
    pub drafts: Vec<BlockDraft>,
    /// One entry per model call, for `ai_usage`.
    pub calls: Vec<CallUsage>,
    pub ttft_ms: Option<u64>,
    /// The function calls made, in `[[tool:N]]` order.
    pub results: Vec<CallResult>,
    /// The model of the chain that answered (0: the one asked for).
    pub answered_by: usize,
    /// Why the model asked for did not answer, when another one did.
    pub fallback: Option<Fallback>,
    /// Why the answer (the last model call) stopped before the model was done.
    pub stop_reason: Option<StopReason>,
    /// What a failed turn's error says instead of its code's stable message.
    pub failure: Option<String>,
    /// The text or thinking block deltas currently go to.
    open_block: Option<usize>,
    /// What of the model's text may be shown, and the markers taken out of it.
    pub gate: parley_service::respond::Gate,
}

impl Generation {
    /// An answer whose text may carry `markers`.
    pub fn new(markers: parley_service::respond::Markers) -> Self {
        Self {
            gate: parley_service::respond::Gate::new(markers),
            ..Self::default()
        }
    }

    /// The answer's text as shown and stored (its markers taken out): its text blocks,
    /// in order.
    pub fn text(&self) -> String {
        self.drafts
            .iter()
            .filter(|d| d.kind() == DbBlockType::Text)
            .map(|d| d.content.as_str())
            .collect()
    }
}

/// What a turn's loop starts from.
pub struct Start<'a> {
    /// The models that may answer: the one asked for, then its fallback chain.
    pub chain: &'a [Route],
    /// Start with the fallback chain (the user's breaker is open): the first model is
    /// skipped, or, with no other model, called once with no retries.
    pub skip_first: Option<FallbackReason>,
    pub messages: Vec<ChatMessage>,
    pub settings: &'a LoopSettings,
    pub max_iterations: u32,
    /// Calls an earlier attempt of this turn finished: shown again and fed to the model
    /// instead of being run twice.
    pub replay: Vec<CallResult>,
    /// The text an earlier attempt's last model call had written (after the replayed
    /// calls) when it stopped: a model whose provider continues a partial answer is
    /// asked to go on from it; any other answers from scratch.
    pub partial: Option<String>,
    /// Calls an earlier attempt left waiting for approval, or approved since (after
    /// `replay`): run — or waited for again — before the model is called again; the
    /// model is not asked for them twice.
    pub approved: Vec<ApprovedCall>,
    pub started: Instant,
    /// The turn's budgets (none: nothing is held).
    pub spend: Option<spend::Spend<'a>>,
    /// The markers the answer's text may carry (taken out as it streams).
    pub markers: parley_service::respond::Markers,
    /// The turn's sampling (within the session's bounds), sent with every call.
    pub sampling: Sampling,
    /// What the answer must be: asked of every call, checked when the model answers.
    pub output: Option<output::Output>,
    /// Whether the model must call a function on the turn's first answer, and may call
    /// several at once (every answer).
    pub calls: parley_protocol::client_functions::CallPolicy,
}

/// A call the model asked for in an earlier attempt that its user approved: run as the
/// turn resumes, with the arguments approved.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovedCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// What the call keeps of the response that made it.
    pub record: CallRecord,
}

/// Runs the generation of one turn.
#[tracing::instrument(skip_all, fields(model = %start.chain[0].model, vendor = %start.chain[0].vendor))]
pub async fn run(
    start: Start<'_>,
    sink: &mut dyn Sink,
    functions: &mut dyn Functions,
) -> (Generation, LoopEnd) {
    let mut generation = Generation::new(start.markers);
    let mut messages = start.messages;
    let mut position = model_call::Position {
        index: 0,
        failures: 0,
        max_attempts: start.settings.max_attempts,
    };
    match start.skip_first {
        Some(reason) if start.chain.len() > 1 => {
            let skipped =
                model_call::fall_back(&mut position, start.chain, reason, sink, &mut generation)
                    .await;
            if let Err(err) = skipped {
                return (generation, LoopEnd::Internal(err));
            }
        }
        Some(_) => position.max_attempts = 1,
        None => {}
    }
    // The calls of earlier attempts go to the model as they were made: round by round,
    // each with its response's text and state — the finished ones replayed, the approved
    // ones (of the last round) run now.
    let mut earlier = start.replay;
    if !earlier.is_empty()
        && let Err(err) = blocks::replay(&mut generation, &earlier, sink).await
    {
        return (generation, LoopEnd::Internal(err));
    }
    if !start.approved.is_empty() {
        let requested = start
            .approved
            .into_iter()
            .map(|call| model_call::Requested {
                id: call.id,
                name: call.name,
                arguments: call.arguments,
                record: call.record,
            })
            .collect();
        match blocks::run_calls(&mut generation, requested, sink, functions).await {
            Ok(results) if waits(&results) => {
                return end(generation, sink, LoopEnd::Suspended).await;
            }
            Ok(results) => earlier.extend(results),
            Err(err) => return (generation, LoopEnd::Internal(err)),
        }
        if sink.cancelled() {
            return end(generation, sink, LoopEnd::Cancelled).await;
        }
    }
    earlier.sort_by_key(|r| r.record.round);
    messages.extend(round::transcript(&earlier));
    // Only the first model call of the attempt continues the earlier one's answer.
    let mut partial = start.partial.filter(|p| !p.trim().is_empty());
    // A forced call is the turn's first answer's: once calls were made (this attempt's
    // or an earlier one's), the model is free to answer.
    let later = start.calls.after_first();
    for iteration in 1..=start.max_iterations.max(1) {
        let calls = if iteration == 1 && earlier.is_empty() {
            &start.calls
        } else {
            &later
        };
        let text_before = generation.text().len();
        let blocks_before = generation.drafts.len();
        let offers = functions.offers();
        let continued = partial.take();
        let request = model_call::Request {
            chain: start.chain,
            messages: &messages,
            offers,
            settings: start.settings,
            started: start.started,
            partial: continued.as_deref(),
            spend: start.spend.as_ref(),
            sampling: &start.sampling,
            format: start.output.as_ref().map(|o| &o.format),
            calls,
        };
        let called = model_call::with_retries(&request, &mut position, sink, &mut generation).await;
        let (mut requested, state) = match called {
            Ok(called) if called.requested.is_empty() => {
                let answered = match &start.output {
                    None => LoopEnd::Completed,
                    Some(output) => {
                        let at = output::Answer {
                            text_from: text_before,
                            blocks_from: blocks_before,
                        };
                        output
                            .settle(&request, at, &mut position, sink, &mut generation)
                            .await
                    }
                };
                return end(generation, sink, answered).await;
            }
            Ok(called) => (called.requested, called.state),
            Err(end) => return (generation, end),
        };
        if iteration >= start.max_iterations {
            let note = format!(
                "(Stopped after {} rounds of function calls without a final answer.)",
                start.max_iterations
            );
            let written = blocks::write_text(&mut generation, sink, note).await;
            let end_now = written.map_or_else(LoopEnd::Internal, |()| LoopEnd::Completed);
            return end(generation, sink, end_now).await;
        }
        let said = generation.text()[text_before..].to_owned();
        // The round is numbered by its first call; its text and state ride on that call.
        let round = generation.results.len() as u32;
        for (i, call) in requested.iter_mut().enumerate() {
            call.record.round = round;
            call.record.arguments.clone_from(&call.arguments);
            if i == 0 {
                call.record.said.clone_from(&said);
                call.record.response.clone_from(&state);
            }
        }
        match blocks::run_calls(&mut generation, requested, sink, functions).await {
            Ok(results) if waits(&results) => {
                return end(generation, sink, LoopEnd::Suspended).await;
            }
            Ok(results) => messages.extend(round::transcript(&results)),
            Err(err) => return (generation, LoopEnd::Internal(err)),
        }
        if sink.cancelled() {
            return end(generation, sink, LoopEnd::Cancelled).await;
        }
    }
    end(generation, sink, LoopEnd::Completed).await
}

/// Whether a call of the response waits (for approval, for its caller's result): the
/// turn suspends.
fn waits(results: &[CallResult]) -> bool {
    results.iter().any(|r| r.state.waits())
}

/// Shows what the gate still holds, closes the open block and returns the end.
async fn end(
    mut generation: Generation,
    sink: &mut dyn Sink,
    end: LoopEnd,
) -> (Generation, LoopEnd) {
    match blocks::finish(&mut generation, sink).await {
        Ok(()) => (generation, end),
        Err(err) => (generation, LoopEnd::Internal(err)),
    }
}
