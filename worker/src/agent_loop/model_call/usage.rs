//! What one model call used: the provider's report, or this worker's count when there
//! is none; the provider's report also teaches the count ([`crate::prompt::tokens`]).
//! The call's metrics are recorded here.

use std::time::Instant;

use parley_protocol::events::{CallError, Usage};
use parley_runtime::metrics::LlmCall;

use super::{CallEnd, CallOutcome, Request};
use crate::{agent_loop::CallUsage, prompt, providers::Route};

/// The usage of one call: as reported, or — when the provider reported none (a failed
/// or cancelled call, or one without the usage chunk) — counted from what was sent and
/// what came back.
pub(super) fn usage_of(
    request: &Request<'_>,
    route: &Route,
    outcome: &CallOutcome,
    call_started: Instant,
) -> CallUsage {
    let counter = prompt::Counter::of(&route.upstream);
    let estimated = counter.request(
        request.messages,
        request.offers,
        request.continued_on(route),
    );
    let mut usage = match &outcome.usage {
        Some(reported) => {
            // The provider's count teaches this worker's estimate of the model's tokens.
            if counter.learns() {
                prompt::tokens::learn(&route.upstream, estimated, reported.tokens.input_tokens);
            }
            reported.clone()
        }
        None => CallUsage {
            tokens: Usage::plain(estimated, counter.count(&outcome.produced_text) as u64),
            ..CallUsage::default()
        },
    };
    usage.latency_ms = call_started.elapsed().as_millis() as u64;
    usage.ttft_ms = outcome.ttft_ms;
    usage.error = match &outcome.end {
        CallEnd::Failed(err) => Some(err.call_error()),
        CallEnd::Stalled => Some(CallError::Stalled),
        CallEnd::Done | CallEnd::Cancelled | CallEnd::Internal(_) => None,
    };
    usage.model = route.model.clone();
    usage.vendor = route.vendor.clone();
    usage.price = route.price;
    let outcome = match &outcome.end {
        CallEnd::Done => "ok",
        CallEnd::Cancelled => "cancelled",
        CallEnd::Internal(_) => "internal",
        CallEnd::Failed(_) | CallEnd::Stalled => usage.error.map_or("failed", CallError::as_str),
    };
    parley_runtime::metrics::metrics().llm_call(LlmCall {
        provider: &usage.vendor,
        model: &usage.model,
        outcome,
        tokens: usage.tokens,
        ttft_seconds: usage.ttft_ms.map(|ms| ms as f64 / 1000.0),
    });
    usage
}
