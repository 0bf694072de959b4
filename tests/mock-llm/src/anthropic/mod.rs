//! `POST /v1/messages`: Anthropic's Messages API, strict where Anthropic is (README.md,
//! "The Anthropic endpoint").
//!
//! The request is checked ([`request`], [`rules`]), converted to the chat endpoint's
//! messages ([`convert`]) so the reply is derived by the same rules and logged the same way,
//! accounted against the prompt cache ([`cache`]), and answered as Anthropic's events or
//! `Message` ([`wire`]). Errors have Anthropic's shape, `{"type":"error","error":{"type",
//! "message"},"request_id"}`, with a `request-id` header.

mod cache;
mod convert;
mod request;
mod rules;
mod wire;

use std::time::Instant;

use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use hyper::{Request, StatusCode};
use serde_json::json;

use crate::http::{Response, bytes_response, cut_response, json_response, read_json, sse_response};
use crate::record::{Endpoint, Exchange, Outcome, RecordedRequest};
use crate::reply::{self, Reply};
use crate::sampling;
use crate::server::State;
use crate::structured;
use crate::wire::{End, Pace};

/// The `anthropic-version` values Anthropic accepts.
const VERSIONS: [&str; 2] = ["2023-06-01", "2023-01-01"];

/// Anthropic's error type for an HTTP status.
fn error_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        529 => "overloaded_error",
        s if s >= 500 => "api_error",
        _ => "invalid_request_error",
    }
}

/// An Anthropic error response.
fn error(status: StatusCode, message: &str, seq: u64) -> Response {
    let request_id = format!("req_mock_{seq}");
    let body = json!({ "type": "error",
        "error": { "type": error_type(status), "message": message }, "request_id": request_id });
    let mut response = json_response(status, &body);
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("request-id", value);
    }
    response
}

fn bad_request(message: &str, seq: u64) -> Response {
    error(StatusCode::BAD_REQUEST, message, seq)
}

/// The error of `status=S`; a 429 carries `retry-after`.
fn injected_error(status: u16, retry_after: u64, seq: u64) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let message = match status.as_u16() {
        429 => "Number of requests has exceeded your rate limit (injected by mock-llm)",
        529 => "Overloaded (injected by mock-llm)",
        s if s >= 500 => "Internal server error (injected by mock-llm)",
        _ => "Request rejected (injected by mock-llm)",
    };
    let mut response = error(status, message, seq);
    if status == StatusCode::TOO_MANY_REQUESTS {
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from(retry_after));
    }
    response
}

/// The headers Anthropic requires: `x-api-key` (401 without) and a known
/// `anthropic-version` (400 without).
fn header_error(headers: &HeaderMap) -> Option<(StatusCode, String)> {
    let present = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty())
    };
    if present("x-api-key").is_none() {
        return Some((
            StatusCode::UNAUTHORIZED,
            "x-api-key header is required".into(),
        ));
    }
    match present("anthropic-version") {
        None => Some((
            StatusCode::BAD_REQUEST,
            "anthropic-version: header is required".into(),
        )),
        Some(v) if !VERSIONS.contains(&v) => Some((
            StatusCode::BAD_REQUEST,
            format!("anthropic-version: unknown version `{v}` (2023-06-01 or 2023-01-01)"),
        )),
        Some(_) => None,
    }
}

/// Cuts the reply at `max_tokens` output tokens, in stream order (thinking, text, then whole
/// tool calls: a call that does not fit is dropped). Whether anything was cut.
fn cut_to(reply: &mut Reply, max_tokens: u64) -> bool {
    let mut budget = usize::try_from(max_tokens).unwrap_or(usize::MAX);
    let before = (
        reply.reasoning.len(),
        reply.content.len(),
        reply.tool_calls.len(),
    );
    reply.reasoning.truncate(budget);
    budget -= reply.reasoning.len();
    reply.content.truncate(budget);
    budget -= reply.content.len();
    let mut kept = 0;
    for call in &reply.tool_calls {
        let cost = 1 + call
            .arguments
            .chars()
            .count()
            .div_ceil(crate::wire::ARGUMENT_PIECE);
        if cost > budget {
            break;
        }
        budget -= cost;
        kept += 1;
    }
    reply.tool_calls.truncate(kept);
    before
        != (
            reply.reasoning.len(),
            reply.content.len(),
            reply.tool_calls.len(),
        )
}

pub(crate) async fn messages(request: Request<Incoming>, state: &State) -> Response {
    if let Some(status) = state.outage() {
        return error(status, "the provider is down (mock outage)", 0);
    }
    let headers = request.headers().clone();
    let body = match read_json(request).await {
        Ok(body) => body,
        Err(message) => return bad_request(&message, 0),
    };
    let Some(model) = body["model"].as_str().map(str::to_owned) else {
        return bad_request("model: Field required", 0);
    };
    if !body["messages"].is_array() {
        return bad_request("messages: Field required", 0);
    }
    // Everything is read before the body moves into the log.
    let header_error = header_error(&headers);
    let checked = request::validate(&body).and_then(|checked| {
        let stops = sampling::anthropic(&body).map_err(request::Invalid)?;
        let format = structured::anthropic(&body).map_err(request::Invalid)?;
        let choice = crate::choice::anthropic(&body).map_err(request::Invalid)?;
        Ok((checked, stops, format, choice))
    });
    let thinking = checked.as_ref().is_ok_and(|(c, ..)| c.thinking);
    let messages = convert::to_messages(&body);
    let derived = reply::derive_for(&messages, true, thinking).map(|(directive, mut reply)| {
        if let Ok((.., choice)) = &checked {
            crate::choice::apply(choice, &body, &mut reply);
        }
        (directive, reply)
    });
    let pieces = cache::pieces(&body);
    let mut exchange = state.log.start(RecordedRequest {
        seq: 0,
        endpoint: Endpoint::Messages,
        model: model.clone(),
        stream: body["stream"] == true,
        include_usage: true,
        messages,
        tools: body["tools"].as_array().cloned().unwrap_or_default(),
        body,
        prompt_tokens: cache::total(&pieces),
        cached_tokens: 0,
        cache_creation_tokens: 0,
        tokens_sent: 0,
        outcome: Outcome::InProgress,
        received_at: Instant::now(),
        ended_at: None,
    });
    let seq = exchange.seq();
    let rejected = |exchange: &mut Exchange, response: Response| {
        exchange.settle(Outcome::Rejected(response.status().as_u16()));
        response
    };
    if let Some((status, message)) = header_error {
        return rejected(&mut exchange, error(status, &message, seq));
    }
    if !state.config.models.contains(&model) {
        let response = error(StatusCode::NOT_FOUND, &format!("model: {model}"), seq);
        return rejected(&mut exchange, response);
    }
    let (checked, stops, format, _) = match checked {
        Ok(checked) => checked,
        Err(request::Invalid(message)) => {
            return rejected(&mut exchange, bad_request(&message, seq));
        }
    };
    let (directive, mut reply) = match derived {
        Ok((directive, reply)) => (directive.for_model(&model), reply),
        Err(message) => {
            let response = bad_request(&format!("mock directive: {message}"), seq);
            return rejected(&mut exchange, response);
        }
    };
    if let Some(status) = directive.status {
        let response = injected_error(status, directive.retry_after.unwrap_or(1), seq);
        return rejected(&mut exchange, response);
    }

    let usage = cache::account(
        &state.caches,
        &model,
        &pieces,
        state.config.anthropic_cache_min_tokens,
    );
    exchange.set_cache(usage.read, usage.creation);
    if !checked.thinking {
        reply.reasoning.clear();
    }
    if let Some(format) = &format
        && structured::answers(&directive, &reply)
        && !state.config.text_only.contains(&model)
    {
        reply.content = structured::tokens(&structured::answer(format));
    }
    let stop_sequence = sampling::cut_at_stop(&mut reply.content, &stops);
    if stop_sequence.is_some() {
        // The model stopped there: it makes no calls after it.
        reply.tool_calls.clear();
    }
    let stop_reason = if cut_to(&mut reply, checked.max_tokens) {
        "max_tokens"
    } else if stop_sequence.is_some() {
        "stop_sequence"
    } else if reply.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    let message = wire::Message {
        seq,
        model: &model,
        usage,
        reply: &reply,
        thinking: checked.thinking,
        redacted: directive.redacted_thinking,
        stop_reason,
        stop_sequence: stop_sequence.as_deref(),
    };
    let pace = Pace {
        first_token: directive
            .first_token_delay
            .unwrap_or(state.config.first_token_delay),
        token: directive.token_delay.unwrap_or(state.config.token_delay),
    };
    let plan = message.stream_plan(&directive, &pace);
    let mut response = if checked.stream {
        sse_response(plan, exchange)
    } else {
        let total_delay: std::time::Duration = plan.segments.iter().map(|s| s.delay).sum();
        tokio::time::sleep(total_delay).await;
        match plan.end {
            End::Stall => std::future::pending().await,
            End::Cut => cut_response(exchange),
            End::Done if directive.error_after.is_some() => {
                let overloaded =
                    StatusCode::from_u16(529).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
                let response = error(overloaded, "Overloaded", seq);
                rejected(&mut exchange, response)
            }
            End::Done if directive.malformed_after.is_some() => {
                exchange.settle(Outcome::Completed);
                let body =
                    format!(r#"{{"id":"msg_mock_{seq}","type":"message","content":[{{"malformed"#);
                bytes_response(StatusCode::OK, "application/json", body.into())
            }
            End::Done => {
                exchange.add_tokens(plan.segments.iter().map(|s| s.tokens).sum());
                exchange.settle(Outcome::Completed);
                json_response(StatusCode::OK, &message.json())
            }
        }
    };
    if let Ok(value) = HeaderValue::from_str(&format!("req_mock_{seq}")) {
        response.headers_mut().insert("request-id", value);
    }
    response
}
