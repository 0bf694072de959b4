//! One model call: stream from the provider, turn deltas into blocks and events, and
//! assemble the function calls the model asks for from their split deltas. A call that
//! fails before producing anything is retried (bounded, with backoff) when the failure
//! is retryable; a stream that breaks after producing output ends the turn with its
//! partial content kept. Nothing within the provider's first-token timeout (or the stall
//! window, if shorter) fails the call before its first token (retried); after that, no
//! token for the stall window is a stall.

mod breaker;
mod usage;

use std::time::Instant;

use futures::StreamExt;
use parley_protocol::error::ErrorCode;
use parley_protocol::events::{EventKind, Fallback, FallbackReason, StopReason};
use parley_protocol::output::ResponseFormat;
use parley_protocol::sampling::Sampling;

use super::{CallRecord, CallUsage, Generation, LoopEnd, LoopSettings, Sink, SinkError, blocks};
use crate::providers::{
    ChatMessage, Delta, FunctionOffer, ProviderError, Route, replay::ResponseState,
};
use breaker::{admit, report};
use usage::usage_of;

/// What one model call is made of.
pub(super) struct Request<'a> {
    /// The models that may answer: the one asked for, then its fallback chain.
    pub chain: &'a [Route],
    pub messages: &'a [ChatMessage],
    pub offers: &'a [FunctionOffer],
    pub settings: &'a LoopSettings,
    pub started: Instant,
    /// An earlier attempt's partial answer, continued by a model whose provider can.
    pub partial: Option<&'a str>,
    /// The turn's budgets: each call holds its worst case first and settles after.
    pub spend: Option<&'a super::spend::Spend<'a>>,
    /// The turn's sampling, sent with every call.
    pub sampling: &'a Sampling,
    /// What the answer must be, sent with every call (the model may call functions
    /// first).
    pub format: Option<&'a ResponseFormat>,
    /// Whether the model must call a function (the turn's first answer only), and may
    /// call several.
    pub calls: &'a parley_protocol::client_functions::CallPolicy,
}

impl Request<'_> {
    /// The partial answer `route` is asked to continue, if any.
    fn continued_on(&self, route: &Route) -> Option<&str> {
        self.partial.filter(|_| route.continue_partial)
    }
}

/// Where a turn is in its chain of models, and how its calls went so far.
pub(super) struct Position {
    /// The model of the chain that answers now.
    pub index: usize,
    /// Calls of the turn that failed before any output, on this model.
    pub failures: u32,
    /// Calls per model that may fail before output before the turn fails.
    pub max_attempts: u32,
}

/// A function call as the model asked for it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Requested {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// What it keeps of the response (the call's own state here; the loop adds the
    /// round's).
    pub record: CallRecord,
}

/// What a model call asked for: its function calls (none: it answered), and what its
/// provider needs back of the response on the next request of the turn.
#[derive(Debug, Default)]
pub(super) struct Called {
    pub requested: Vec<Requested>,
    pub state: Option<ResponseState>,
}

/// Calls the model until it answers or the call fails for good. A call that fails
/// before any output hands the turn to the next model of the chain, if there is one
/// (no pause: another provider), else is retried on this one while it may help. Returns
/// the function calls it asked for (none: it answered).
pub(super) async fn with_retries(
    request: &Request<'_>,
    position: &mut Position,
    sink: &mut dyn Sink,
    generation: &mut Generation,
) -> Result<Called, LoopEnd> {
    loop {
        let route = &request.chain[position.index];
        let call_started = Instant::now();
        let outcome = match admit(route).await {
            true => {
                let hold = match request.spend {
                    Some(spend) => match spend.hold(request, route, generation.calls.len()).await {
                        Ok(hold) => hold,
                        Err(refused) => {
                            tracing::info!(reason = %refused.message(), "a budget refused a model call");
                            return Err(failed(generation, ErrorCode::BudgetExceeded));
                        }
                    },
                    None => None,
                };
                let outcome = once(request, route, sink, generation).await;
                report(route, &outcome.end).await;
                let usage = usage_of(request, route, &outcome, call_started);
                if let (Some(spend), Some(hold)) = (request.spend, hold) {
                    spend.settle(hold, &usage).await;
                }
                generation.calls.push(usage);
                outcome
            }
            // No call was made: nothing to record in usage.
            false => CallOutcome::refused(),
        };
        match outcome.end {
            CallEnd::Failed(err)
                if !outcome.produced && position.index + 1 < request.chain.len() =>
            {
                tracing::warn!(error = %err, "provider call failed before any output; falling back");
                fall_back(
                    position,
                    request.chain,
                    err.fallback_reason(),
                    sink,
                    generation,
                )
                .await
                .map_err(LoopEnd::Internal)?;
            }
            CallEnd::Failed(err)
                if !outcome.produced
                    && err.retryable()
                    && position.failures + 1 < position.max_attempts =>
            {
                position.failures += 1;
                let failures = position.failures;
                tracing::warn!(error = %err, failures, "provider call failed before any output; retrying");
                let pause = backoff(request.settings.retry_backoff, failures);
                tokio::select! {
                    _ = tokio::time::sleep(pause) => continue,
                    () = sink.until_cancelled() => return Err(LoopEnd::Cancelled),
                }
            }
            CallEnd::Failed(err) => {
                tracing::warn!(error = %err, "provider call failed; the turn fails");
                return Err(failed(generation, err.code()));
            }
            CallEnd::Stalled => {
                tracing::warn!(
                    stall_ms = request.settings.stall_timeout.as_millis() as u64,
                    "no token from the provider within the stall window"
                );
                return Err(failed(generation, ErrorCode::UpstreamStall));
            }
            CallEnd::Done => {
                // The turn's answer is the last call's: whether it was cut is its.
                generation.stop_reason = outcome.stop;
                return Ok(Called {
                    requested: outcome.requested,
                    state: outcome.state,
                });
            }
            CallEnd::Cancelled => return Err(LoopEnd::Cancelled),
            CallEnd::Internal(err) => return Err(LoopEnd::Internal(err)),
        }
    }
}

/// Hands the turn to the next model of the chain, for `reason`, and tells readers.
pub(super) async fn fall_back(
    position: &mut Position,
    chain: &[Route],
    reason: FallbackReason,
    sink: &mut dyn Sink,
    generation: &mut Generation,
) -> Result<(), SinkError> {
    let from = &chain[position.index];
    position.index += 1;
    position.failures = 0;
    let to = &chain[position.index];
    tracing::warn!(from = %from.model, to = %to.model, %reason, "the next model of the fallback chain answers");
    generation.answered_by = position.index;
    generation.fallback.get_or_insert_with(|| Fallback {
        from: chain[0].model.clone(),
        reason,
    });
    sink.event(EventKind::Fallback {
        from: from.model.clone(),
        to: to.model.clone(),
        reason,
    })
    .await
}

/// The pause before retry `n` (1, 2, …): `base × 2ⁿ⁻¹`, jittered to 50–150 % so that
/// the turns a provider's hiccup failed together do not all come back at once.
fn backoff(base: std::time::Duration, n: u32) -> std::time::Duration {
    let exponential = base.saturating_mul(2u32.saturating_pow(n.saturating_sub(1)));
    exponential.mul_f64(rand::random_range(0.5..1.5))
}

fn failed(generation: &Generation, code: ErrorCode) -> LoopEnd {
    LoopEnd::Failed {
        code,
        produced: !generation.drafts.is_empty(),
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
    requested: Vec<Requested>,
    /// What the provider needs back of the response.
    state: Option<ResponseState>,
    /// Why the model stopped before it was done, if it did.
    stop: Option<StopReason>,
}

impl CallOutcome {
    /// A call the provider's open breaker refused.
    fn refused() -> Self {
        Self {
            end: CallEnd::Failed(ProviderError::CircuitOpen),
            produced: false,
            produced_text: String::new(),
            usage: None,
            ttft_ms: None,
            requested: Vec::new(),
            state: None,
            stop: None,
        }
    }
}

/// One call: stream deltas into blocks until the provider finishes, fails, stalls or the
/// turn is cancelled.
#[tracing::instrument(name = "llm_call", skip_all, fields(model = %route.model, provider = %route.vendor))]
async fn once(
    request: &Request<'_>,
    route: &Route,
    sink: &mut dyn Sink,
    generation: &mut Generation,
) -> CallOutcome {
    let mut outcome = CallOutcome {
        end: CallEnd::Done,
        produced: false,
        produced_text: String::new(),
        usage: None,
        ttft_ms: None,
        requested: Vec::new(),
        state: None,
        stop: None,
    };
    let call_started = Instant::now();
    let stall = request.settings.stall_timeout;
    // Until the first output, one deadline from the start of the call.
    let first_wait = stall.min(route.first_token_timeout);
    let no_first_token = || CallEnd::Failed(ProviderError::NoFirstToken(first_wait));
    let mut stall_at = tokio::time::Instant::now() + first_wait;
    // A continued answer shows what it continues when the model's first output comes
    // (or when it ends, having nothing to add): a call that fails before that leaves
    // no trace, and the next model of the chain may answer from scratch.
    let mut prefix = request.continued_on(route);
    // Readers get what waits before the turn waits for the model.
    if let Err(err) = sink.flush().await {
        outcome.end = CallEnd::Internal(err);
        return outcome;
    }
    let stream = route.stream(
        request.messages,
        request.offers,
        prefix,
        request.sampling,
        request.format,
        request.calls,
    );
    let mut cancelled = sink.until_cancelled();
    let opened = tokio::select! {
        opened = tokio::time::timeout_at(stall_at, stream) => opened,
        _ = &mut cancelled => { outcome.end = CallEnd::Cancelled; return outcome; }
    };
    let mut stream = match opened {
        Ok(Ok(stream)) => stream,
        Ok(Err(err)) => {
            outcome.end = CallEnd::Failed(err);
            return outcome;
        }
        Err(_) => {
            outcome.end = no_first_token();
            return outcome;
        }
    };
    // Two timers for the whole call, moved only when their moment has to: the stall
    // timer fires at the deadline it was set to and, if a delta came since, is set to the
    // new one; the flush timer moves when the sink's due time does (once a window).
    // Setting them per delta cost two timer registrations and a waiter a token.
    let stall_timer = tokio::time::sleep_until(stall_at);
    let flush_timer = tokio::time::sleep_until(stall_at);
    tokio::pin!(stall_timer, flush_timer);
    let mut flush_armed: Option<Instant> = None;
    loop {
        if sink.cancelled() {
            outcome.end = CallEnd::Cancelled;
            break;
        }
        let flush_at = sink.due();
        if flush_at != flush_armed {
            if let Some(at) = flush_at {
                flush_timer.as_mut().reset(at.into());
            }
            flush_armed = flush_at;
        }
        // What the model has ready comes first: events wait to go together until it has
        // nothing more (or their time comes), then go as one batch.
        let next = tokio::select! {
            biased;
            next = stream.next() => Next::Item(next),
            () = &mut stall_timer => Next::Stall,
            () = &mut flush_timer, if flush_armed.is_some() => Next::Flush,
            () = &mut cancelled => Next::Cancelled,
        };
        let next = match next {
            Next::Item(next) => next,
            Next::Stall if tokio::time::Instant::now() < stall_at => {
                stall_timer.as_mut().reset(stall_at);
                continue;
            }
            Next::Stall if outcome.ttft_ms.is_none() => {
                outcome.end = no_first_token();
                break;
            }
            Next::Stall => {
                outcome.end = CallEnd::Stalled;
                break;
            }
            Next::Flush => {
                // Fired: armed again by the next due time, even if it is the same.
                flush_armed = None;
                if let Err(err) = sink.flush_due().await {
                    outcome.end = CallEnd::Internal(err);
                    return outcome;
                }
                continue;
            }
            Next::Cancelled => {
                outcome.end = CallEnd::Cancelled;
                break;
            }
        };
        let delta = match next {
            None => break,
            Some(Err(err)) => {
                outcome.end = CallEnd::Failed(err);
                break;
            }
            Some(Ok(delta)) => delta,
        };
        // The first output starts the stall window; until then the first deadline holds.
        if outcome.ttft_ms.is_some() || delta.is_output() {
            stall_at = tokio::time::Instant::now() + stall;
        }
        if outcome.ttft_ms.is_none() && delta.is_output() {
            outcome.ttft_ms = Some(call_started.elapsed().as_millis() as u64);
            generation
                .ttft_ms
                .get_or_insert(request.started.elapsed().as_millis() as u64);
        }
        if delta.is_output()
            && let Err(err) = continue_from(prefix.take(), &mut outcome, sink, generation).await
        {
            outcome.end = CallEnd::Internal(err);
            return outcome;
        }
        if let Err(err) = take(delta, &mut outcome, sink, generation).await {
            outcome.end = CallEnd::Internal(err);
            return outcome;
        }
    }
    if matches!(outcome.end, CallEnd::Done)
        && let Err(err) = continue_from(prefix.take(), &mut outcome, sink, generation).await
    {
        outcome.end = CallEnd::Internal(err);
        return outcome;
    }
    // The response's text ends here: the line the gate holds is decided now, so the
    // text said before its function calls is whole.
    if let Err(err) = blocks::settle_and_close(generation, sink).await {
        outcome.end = CallEnd::Internal(err);
    }
    outcome
}

/// What woke the call's loop.
enum Next<T> {
    /// The provider sent something.
    Item(T),
    /// The stall timer fired (a stall if no delta moved its deadline since it was set).
    Stall,
    /// Deltas the sink held back are due.
    Flush,
    Cancelled,
}

/// Writes the partial answer a call continues into the answer (once; `None`: nothing
/// to write). It is the model's output as much as what it adds.
async fn continue_from(
    prefix: Option<&str>,
    outcome: &mut CallOutcome,
    sink: &mut dyn Sink,
    generation: &mut Generation,
) -> Result<(), SinkError> {
    let Some(prefix) = prefix else {
        return Ok(());
    };
    outcome.produced = true;
    blocks::write(generation, sink, blocks::Kind::Text, prefix.to_owned()).await
}

/// Adds one delta to the call's outcome and the answer's blocks.
async fn take(
    delta: Delta,
    outcome: &mut CallOutcome,
    sink: &mut dyn Sink,
    generation: &mut Generation,
) -> Result<(), SinkError> {
    match delta {
        Delta::Usage(tokens) => {
            outcome.usage = Some(CallUsage {
                tokens,
                ..CallUsage::default()
            });
            Ok(())
        }
        Delta::ToolCall {
            index,
            id,
            name,
            arguments,
            state,
        } => {
            outcome.produced = true;
            let index = index as usize;
            if outcome.requested.len() <= index {
                outcome.requested.resize_with(index + 1, Requested::default);
            }
            let call = &mut outcome.requested[index];
            if let Some(id) = id {
                call.id = id;
            }
            if let Some(name) = name {
                call.name.push_str(&name);
            }
            call.arguments.push_str(&arguments);
            if state.is_some() {
                call.record.call = state;
            }
            Ok(())
        }
        Delta::State(state) => {
            outcome.state = Some(state);
            Ok(())
        }
        Delta::Stop(reason) => {
            outcome.stop = Some(reason);
            Ok(())
        }
        Delta::Text(text) => {
            outcome.produced = true;
            outcome.produced_text.push_str(&text);
            blocks::write(generation, sink, blocks::Kind::Text, text).await
        }
        Delta::Reasoning(text) => {
            outcome.produced = true;
            blocks::write(generation, sink, blocks::Kind::Thinking, text).await
        }
    }
}

#[cfg(test)]
mod tests;
