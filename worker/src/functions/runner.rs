//! Running one model response's function calls (seed 002, DESIGN §5.7, §8–9).
//!
//! While calls run the prompt is `waiting_for_tools`. Each call is checked before it
//! runs — a function the tool offers, arguments that are JSON and fit the schema, the
//! caller's permissions — and a call that fails a check still gets its `tool_calls` row
//! and a `tool_complete` with `state: error`, the reason fed back to the model. The calls
//! of one response run concurrently, each within its function's timeout; progress
//! reports become `tool_progress` events. A cancel stops the calls still running (they
//! end `canceled`). Every call is a `tool_calls` row, unique per prompt and provider call
//! id: a retried turn that asks for the same call gets the finished row's result instead
//! of running the side effect twice.

use std::{collections::BTreeMap, time::Instant};

use async_trait::async_trait;
use futures::{FutureExt, StreamExt, future::BoxFuture, stream::FuturesUnordered};
use parley_entity::query::{
    self, approvals,
    tool_calls::{self as rows, NewToolCall},
};
use parley_protocol::events::{EventKind, PromptState, ToolCallState};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tracing::Instrument;

use parley_protocol::jobs::PromptJob;
use parley_service::functions::Mode;

mod approval;
pub mod client;

use super::{CallContext, FunctionError, Progress, ProgressUpdate, Registry};
use crate::{
    agent_loop::{
        CallOutput, CallResult, Functions, PlannedCall, Sink, SinkError,
        blocks::{self, parse_arguments},
    },
    providers::FunctionOffer,
};

/// The functions of one turn: what the tool offers, run as the session's user.
pub struct TurnFunctions {
    pub registry: Registry,
    /// What the model may call: the tool's functions, then the caller's.
    pub offers: Vec<FunctionOffer>,
    /// How many of `offers` are the tool's.
    pub own: usize,
    /// The session's user's permissions.
    pub permissions: Vec<String>,
    /// The context every call gets (`call_id` is set per call).
    pub context: CallContext,
    /// This worker (the lease owner) and the attempt, for `waiting_for_tools`.
    pub worker: String,
    pub attempt: u32,
    /// Where asynchronous calls are queued.
    pub queue: std::sync::Arc<dyn parley_runtime::queue::JobQueue>,
    /// Where the user hears that a call waits for their approval.
    pub feed: parley_runtime::user_feed::Publisher,
    /// How long a call waits for approval (or its caller's result) before it ends.
    pub approval_timeout: std::time::Duration,
    /// The functions the turn's caller runs (offered after the tool's own).
    pub client: Vec<parley_protocol::client_functions::ClientFunction>,
}

/// A call that passed its checks and runs now.
type Running = BoxFuture<
    'static,
    (
        usize,
        Instant,
        Result<Result<Value, FunctionError>, tokio::time::error::Elapsed>,
    ),
>;

/// Why a call was not run: what the model is told, as the call's error.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The tool does not offer it, or no function has the name.
    #[error("no function named `{0}` is available here")]
    NotOffered(String),
    #[error("the arguments are not valid JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// The arguments do not fit the function's schema (what is wrong, and where).
    #[error("invalid arguments: {0}")]
    Arguments(String),
    /// The user lacks these permissions.
    #[error("permission denied: the user lacks {}", .0.join(", "))]
    Permissions(Vec<String>),
}

/// What preparing a call gave.
enum Prepared {
    Run(Running),
    Done(CallResult),
    /// An earlier attempt of the turn made this call: its result, counted then.
    Reused(CallResult),
    /// The call waits for the user's approval until the given time (the turn suspends
    /// once the response's other calls ended).
    Waiting(CallResult, chrono::DateTime<chrono::Utc>),
    /// The call waits for its caller's result until the given time (likewise).
    WaitingForClient(CallResult, chrono::DateTime<chrono::Utc>),
}

#[async_trait]
impl Functions for TurnFunctions {
    fn offers(&self) -> &[FunctionOffer] {
        &self.offers
    }

    #[tracing::instrument(skip_all, fields(calls = calls.len()), err)]
    async fn run(
        &mut self,
        calls: &[PlannedCall],
        sink: &mut dyn Sink,
    ) -> Result<Vec<CallResult>, SinkError> {
        self.set_waiting(sink, true).await?;
        let (tx, mut progress) = mpsc::unbounded_channel();
        let mut results: Vec<Option<CallResult>> = vec![None; calls.len()];
        let mut row_ids = BTreeMap::new();
        let mut running = FuturesUnordered::new();
        for (i, call) in calls.iter().enumerate() {
            let (row_id, prepared) = self.prepare(i, call, &tx).await?;
            row_ids.insert(i, row_id);
            match prepared {
                Prepared::Run(future) => running.push(future),
                Prepared::Done(result) => {
                    count(&self.registry, &result);
                    results[i] = Some(self.record(row_id, call, result, sink).await?);
                }
                Prepared::Reused(result) => {
                    results[i] = Some(self.record(row_id, call, result, sink).await?);
                }
                Prepared::Waiting(result, expires_at) => {
                    self.request_approval(row_id.0, call, &result, expires_at, sink)
                        .await?;
                    results[i] = Some(result);
                }
                Prepared::WaitingForClient(result, expires_at) => {
                    self.request_result(row_id.0, call, &result, expires_at, sink)
                        .await?;
                    results[i] = Some(result);
                }
            }
        }
        drop(tx);
        while !running.is_empty() {
            tokio::select! {
                Some(update) = progress.recv() => sink.event(progress_event(calls, update)).await?,
                Some((i, started, ended)) = running.next() => {
                    let result = self.with_payload(outcome(&calls[i], started, ended));
                    count(&self.registry, &result);
                    results[i] = Some(self.record(row_ids[&i], &calls[i], result, sink).await?);
                }
                _ = sink.until_cancelled() => break,
            }
        }
        drop(running);
        for (i, call) in calls.iter().enumerate() {
            if results[i].is_none() {
                let result = ended(
                    call,
                    ToolCallState::Canceled,
                    "the turn was cancelled while the call ran".into(),
                    0,
                );
                count(&self.registry, &result);
                results[i] = Some(self.record(row_ids[&i], call, result, sink).await?);
            }
        }
        let results: Vec<CallResult> = results.into_iter().flatten().collect();
        // A call that waits (for approval, for its caller) keeps the prompt
        // `waiting_for_tools`: the turn suspends.
        if !results.iter().any(|r| r.state.waits()) {
            self.set_waiting(sink, false).await?;
        }
        Ok(results)
    }
}

/// A call's row: its id, and when it started (its end is written in one statement).
type RowRef = (uuid::Uuid, Option<sea_orm::prelude::DateTimeUtc>);

impl TurnFunctions {
    /// A successful result with its payload, when its function declares a payload type;
    /// a result that does not fit that type fails the call instead (its row records the
    /// error, the model is told why).
    fn with_payload(&self, mut result: CallResult) -> CallResult {
        if result.state != ToolCallState::Success {
            return result;
        }
        let CallOutput::Result(output) = &result.output else {
            return result;
        };
        match self.registry.payload_of(&result.name, output) {
            None => {}
            Some(Ok(payload)) => result.payload = Some(payload),
            Some(Err(why)) => {
                tracing::warn!(function = %result.name, problem = %why, "a function's result does not fit its payload type");
                result.state = ToolCallState::Error;
                result.output = CallOutput::Failed(why.to_string());
            }
        }
        result
    }

    /// Records the call and checks it; returns its row and either the run to await or
    /// the result it already has (a check failed, or an earlier attempt finished it).
    async fn prepare(
        &self,
        i: usize,
        call: &PlannedCall,
        tx: &mpsc::UnboundedSender<ProgressUpdate>,
    ) -> Result<(RowRef, Prepared), SinkError> {
        let parsed = parse_arguments(&call.arguments);
        let input = parsed
            .as_ref()
            .cloned()
            .unwrap_or_else(|_| Value::String(call.arguments.clone()));
        let new = NewToolCall {
            session_id: self.context.session_id,
            prompt_id: self.context.prompt_id,
            api_tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            tool_args: input.clone(),
            provider_state: call.record.to_row(),
        };
        let (row, new_row) = rows::start(&self.context.db, new, query::now()).await?;
        if blocks::finished(row.state) {
            let output = CallOutput::of_row(&row);
            let reused = CallResult {
                duration_ms: row.duration_ms.unwrap_or(0).max(0) as u64,
                ..ended(call, row.state, String::new(), 0)
            };
            let reused = self.with_payload(CallResult { output, ..reused });
            return Ok(((row.id, row.started_at), Prepared::Reused(reused)));
        }
        if let Some(client) = self.client_function(&call.name) {
            let prepared = self.prepare_client_call(call, client, parsed, &row).await?;
            return Ok(((row.id, row.started_at), prepared));
        }
        let checked = self.check(call, parsed);
        let (function, args) = match checked {
            Ok(ready) => ready,
            Err(refused) => {
                return Ok((
                    (row.id, row.started_at),
                    Prepared::Done(ended(call, ToolCallState::Error, refused.to_string(), 0)),
                ));
            }
        };
        let mut started_at = row.started_at;
        if row.state == ToolCallState::Approved {
            // Approved while the turn was suspended: it runs now, once (its end reads
            // when it started).
            approvals::start_approved(&self.context.db, row.id, query::now()).await?;
            started_at = None;
        } else if row.decided_at.is_none() && self.needs_approval(function.spec()) {
            let expires_at = match row.approval_expires_at {
                Some(at) if row.state == ToolCallState::AwaitingApproval => at,
                _ => {
                    let timeout = chrono::Duration::from_std(self.approval_timeout)
                        .unwrap_or(chrono::Duration::days(1));
                    let at = query::now() + timeout;
                    approvals::await_approval(&self.context.db, row.id, at)
                        .await?
                        .approval_expires_at
                        .unwrap_or(at)
                }
            };
            let waiting = CallResult {
                output: CallOutput::Result(json!({ "status": "awaiting_approval" })),
                ..ended(call, ToolCallState::AwaitingApproval, String::new(), 0)
            };
            return Ok(((row.id, started_at), Prepared::Waiting(waiting, expires_at)));
        }
        if function.spec().mode == Mode::Async {
            return Ok((
                (row.id, started_at),
                Prepared::Done(self.queue_call(call, &row, new_row).await),
            ));
        }
        let ctx = CallContext {
            call_id: row.id,
            ..self.context.clone()
        };
        let progress = Progress::new(call.n, tx.clone());
        let timeout = function.spec().timeout;
        let span = tracing::info_span!("function_call", function = %call.name, n = call.n);
        let future = async move {
            let started = Instant::now();
            let result = tokio::time::timeout(timeout, function.call(&ctx, args, &progress)).await;
            (i, started, result)
        }
        .instrument(span);
        Ok(((row.id, started_at), Prepared::Run(future.boxed())))
    }

    /// Queues an asynchronous call as a job of its own (once: a call an earlier attempt
    /// queued is still running) and returns the acknowledgement the model reads.
    async fn queue_call(
        &self,
        call: &PlannedCall,
        row: &parley_entity::tool_calls::Model,
        new_row: bool,
    ) -> CallResult {
        if new_row {
            let job = PromptJob::function_call(self.context.prompt_id, row.id);
            if let Err(err) = self.queue.enqueue(job).await {
                tracing::error!(error = %err, function = %call.name, "queueing an asynchronous call failed");
                return ended(
                    call,
                    ToolCallState::Error,
                    "the function could not be started; try again later".into(),
                    0,
                );
            }
        }
        CallResult {
            output: CallOutput::Result(acknowledgement()),
            ..ended(call, ToolCallState::Running, String::new(), 0)
        }
    }

    /// The checks before a call runs; `Err` is what the model is told.
    fn check(
        &self,
        call: &PlannedCall,
        parsed: Result<Value, serde_json::Error>,
    ) -> Result<(std::sync::Arc<dyn super::Function>, Value), Refused> {
        let offered = self.offers.iter().any(|o| o.name == call.name);
        let function = self
            .registry
            .get(&call.name)
            .filter(|_| offered)
            .ok_or_else(|| Refused::NotOffered(call.name.clone()))?;
        let args = parsed.map_err(Refused::NotJson)?;
        if let Some(problems) = self.registry.check_arguments(&call.name, &args) {
            return Err(Refused::Arguments(problems));
        }
        let missing = function.spec().missing(&self.permissions);
        if !missing.is_empty() {
            return Err(Refused::Permissions(missing));
        }
        Ok((function.clone(), args))
    }

    /// Writes the call's end on its row, sends `tool_complete` and closes its block.
    async fn record(
        &self,
        (row_id, started_at): RowRef,
        call: &PlannedCall,
        result: CallResult,
        sink: &mut dyn Sink,
    ) -> Result<CallResult, SinkError> {
        if result.state == ToolCallState::Running {
            // An asynchronous call: its job finishes the row and sends its tool_complete.
            sink.event(parley_service::turns::record::queued_event(
                call.n, &call.name,
            ))
            .await?;
            sink.event(EventKind::BlockStop { index: call.block })
                .await?;
            return Ok(result);
        }
        rows::finish(
            &self.context.db,
            row_id,
            started_at,
            result.state,
            Some(result.output.to_value()),
            result.output.error().map(str::to_owned),
            query::now(),
        )
        .await?;
        sink.event(blocks::tool_complete(call.n, &result)).await?;
        sink.event(EventKind::BlockStop { index: call.block })
            .await?;
        Ok(result)
    }

    /// `waiting_for_tools` while calls run, `in_progress` after, on the row and the log.
    /// Where the sink's checkpoints keep the row's state, the checkpoint before the calls
    /// marked it waiting, and the next checkpoint or the finish writes what follows: a
    /// function round costs no statement of its own for the state.
    async fn set_waiting(&self, sink: &mut dyn Sink, waiting: bool) -> Result<(), SinkError> {
        let state = if waiting {
            PromptState::WaitingForTools
        } else {
            PromptState::InProgress
        };
        let db = &self.context.db;
        if sink.checkpoints_keep_the_state()
            || query::prompts::set_state(db, self.context.prompt_id, &self.worker, state).await?
        {
            sink.event(EventKind::state(state, self.attempt)).await?;
        }
        Ok(())
    }
}

/// Counts a call's end in the metrics, by function (`other` for a name the model made
/// up) and state. An asynchronous call still running is counted when its job ends it.
fn count(registry: &Registry, result: &CallResult) {
    count_call(registry, &result.name, result.state);
}

pub fn count_call(registry: &Registry, name: &str, state: ToolCallState) {
    if state == ToolCallState::Running {
        return;
    }
    let function = if registry.get(name).is_some() {
        name
    } else {
        parley_runtime::metrics::OTHER
    };
    parley_runtime::metrics::metrics().function_called(function, state.as_str());
}

/// A call's result from how its run ended.
fn outcome(
    call: &PlannedCall,
    started: Instant,
    ended_as: Result<Result<Value, FunctionError>, tokio::time::error::Elapsed>,
) -> CallResult {
    let (state, output) = settle(&call.name, ended_as);
    CallResult {
        output,
        ..ended(
            call,
            state,
            String::new(),
            started.elapsed().as_millis() as u64,
        )
    }
}

/// The state and output of a call from how its run ended: its result, the function's
/// message (a storage failure is logged and told in stable words), or canceled past its
/// timeout.
pub fn settle(
    function: &str,
    ended_as: Result<Result<Value, FunctionError>, tokio::time::error::Elapsed>,
) -> (ToolCallState, CallOutput) {
    match ended_as {
        Ok(Ok(output)) => (ToolCallState::Success, CallOutput::Result(output)),
        Ok(Err(err)) => {
            if let FunctionError::Storage(cause) = &err {
                tracing::error!(error = %crate::error::describe(cause), %function, "a function's storage failed");
            }
            (ToolCallState::Error, CallOutput::Failed(err.to_string()))
        }
        Err(_) => (
            ToolCallState::Canceled,
            CallOutput::Failed("the call took too long and was canceled".into()),
        ),
    }
}

/// A result in `state` that failed for `reason`.
fn ended(call: &PlannedCall, state: ToolCallState, reason: String, duration_ms: u64) -> CallResult {
    CallResult {
        id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        input: parse_arguments(&call.arguments)
            .unwrap_or_else(|_| Value::String(call.arguments.clone())),
        state,
        output: CallOutput::Failed(reason),
        payload: None,
        duration_ms,
        record: call.record.clone(),
    }
}

fn progress_event(calls: &[PlannedCall], update: ProgressUpdate) -> EventKind {
    let tool = calls
        .iter()
        .find(|c| c.n == update.index)
        .map(|c| c.name.clone())
        .unwrap_or_default();
    EventKind::ToolProgress {
        index: update.index,
        tool,
        stage: update.stage,
        message: update.message,
        progress: update.progress,
        data: update.data,
    }
}

/// What the model is told when it calls an asynchronous function.
pub fn acknowledgement() -> serde_json::Value {
    json!({
        "status": "accepted",
        "message": "The work runs in the background; its result is recorded when it is done. Do not wait for it."
    })
}

#[cfg(test)]
mod tests;
