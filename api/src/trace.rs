//! The W3C trace context of a request: what the caller sent (`traceparent`,
//! `tracestate`), which the request's span adopts (`crate::middleware`), and what a
//! request's job carries to the worker ([`trace_context`]), so the worker's spans join
//! the request's trace.

use std::collections::HashMap;

/// The caller's `traceparent` and `tracestate` headers (at most 512 bytes each).
pub fn carried_headers(request: &poem::Request) -> HashMap<String, String> {
    ["traceparent", "tracestate"]
        .into_iter()
        .filter_map(|name| {
            let value = request.header(name).filter(|v| v.len() <= 512)?;
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}

/// The W3C trace context to carry in a request's job, so the worker's spans join the
/// request's trace: the request span's own when traces are exported, else what the
/// caller sent (passed on for a tracer downstream).
pub fn trace_context(request: &poem::Request) -> HashMap<String, String> {
    let exported = parley_runtime::trace::context_of(&tracing::Span::current());
    if exported.is_empty() {
        carried_headers(request)
    } else {
        exported
    }
}
