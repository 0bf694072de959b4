//! Trace context across processes (DESIGN §11): one trace per turn, from the API request
//! through the queue (the context rides in the job, `PromptJob::trace_context`) to the
//! worker's spans. W3C Trace Context (`traceparent`, `tracestate`) through OpenTelemetry's
//! global propagator, which `parley`'s telemetry set-up installs when traces are
//! exported; without it both functions here do nothing.

use std::collections::HashMap;

use opentelemetry::trace::TraceContextExt;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The trace context of `span`, as `traceparent` (and `tracestate`) entries; empty when
/// traces are not exported.
pub fn context_of(span: &tracing::Span) -> HashMap<String, String> {
    let cx = span.context();
    let mut carrier = HashMap::new();
    if cx.span().span_context().is_valid() {
        opentelemetry::global::get_text_map_propagator(|p| p.inject_context(&cx, &mut carrier));
    }
    carrier
}

/// Makes `span` a child of the trace context in `carrier` (a job's, or a request's
/// headers), before it is entered. Nothing when the carrier has no valid context or
/// traces are not exported.
pub fn adopt(span: &tracing::Span, carrier: &HashMap<String, String>) {
    if carrier.is_empty() {
        return;
    }
    let cx = opentelemetry::global::get_text_map_propagator(|p| p.extract(carrier));
    if cx.span().span_context().is_valid()
        && let Err(err) = span.set_parent(cx)
    {
        tracing::debug!(error = %err, "cannot join the carried trace");
    }
}
