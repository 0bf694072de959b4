//! `POST /v1/chat/completions`: the OpenAI-compatible endpoint, with each model's dialect
//! ([`crate::dialect`]) and OpenAI's prompt caching ([`crate::cache`]).

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use hyper::body::Incoming;
use hyper::header::{HeaderValue, RETRY_AFTER};
use hyper::{Request, StatusCode};
use serde_json::json;

use crate::cache::{self, Rules};
use crate::http::{Response, bytes_response, cut_response, json_response, read_json, sse_response};
use crate::record::{Endpoint, Exchange, Outcome, RecordedRequest};
use crate::reply;
use crate::sampling;
use crate::server::State;
use crate::structured;
use crate::wire::{Completion, End, Pace};

pub(crate) async fn completions(request: Request<Incoming>, state: &State) -> Response {
    if let Some(status) = state.outage() {
        return error(status, "the provider is down (mock outage)", None);
    }
    let body = match read_json(request).await {
        Ok(body) => body,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message, None),
    };
    let request = match reply::read_request(&body) {
        Ok(r) => r,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message, None),
    };
    let stops = match sampling::openai(&body) {
        Ok(stops) => stops,
        Err(refused) => {
            return param_error(&refused.message, refused.param);
        }
    };
    let choice = match crate::choice::openai(&body) {
        Ok(choice) => choice,
        Err(refused) => return param_error(&refused.message, refused.param),
    };
    let format = match structured::openai(&body) {
        Ok(format) => format,
        Err(message) => return param_error(&message, "response_format"),
    };
    let dialect = state
        .config
        .dialects
        .get(&request.model)
        .copied()
        .unwrap_or_default();
    let prompt_tokens = reply::count_prompt_tokens(&request.messages);
    let derived = reply::derive_for(
        &request.messages,
        request.continue_final,
        dialect.always_reasons(),
    )
    .map(|(directive, mut reply)| {
        crate::choice::apply(&choice, &body, &mut reply);
        (directive, reply)
    });
    let refusal = dialect.refusal(&request.messages);
    let prefixes = cache::chat_prefixes(&body);
    let mut exchange = state.log.start(RecordedRequest {
        seq: 0,
        endpoint: Endpoint::ChatCompletions,
        model: request.model.clone(),
        stream: request.stream,
        include_usage: request.include_usage,
        messages: request.messages,
        tools: request.tools,
        body,
        prompt_tokens,
        cached_tokens: 0,
        cache_creation_tokens: 0,
        tokens_sent: 0,
        outcome: Outcome::InProgress,
        received_at: Instant::now(),
        ended_at: None,
    });

    let rejected = |exchange: &mut Exchange, response: Response| {
        exchange.settle(Outcome::Rejected(response.status().as_u16()));
        response
    };
    if !state.config.models.contains(&request.model) {
        let message = format!("The model `{}` does not exist", request.model);
        let response = error(StatusCode::NOT_FOUND, &message, Some("model_not_found"));
        return rejected(&mut exchange, response);
    }
    let directive_error = |message: &str| {
        let message = format!("mock directive: {message}");
        error(StatusCode::BAD_REQUEST, &message, Some("mock_directive"))
    };
    let (directive, mut reply) = match derived {
        Ok((directive, mut reply)) => {
            if let Some(format) = &format
                && structured::answers(&directive, &reply)
                && !state.config.text_only.contains(&request.model)
            {
                reply.content = structured::tokens(&structured::answer(format));
            }
            sampling::cut_at_stop(&mut reply.content, &stops);
            if let Some(most) = request.max_tokens
                && reply.content.len() > most
            {
                reply.content.truncate(most);
                reply.cut = true;
            }
            (directive.for_model(&request.model), reply)
        }
        Err(message) => return rejected(&mut exchange, directive_error(&message)),
    };
    if directive.error_after.is_some() {
        let message = "error_after is for /v1/messages (scope it with model=)";
        return rejected(&mut exchange, directive_error(message));
    }
    if let Some(body) = refusal {
        return rejected(&mut exchange, json_response(StatusCode::BAD_REQUEST, &body));
    }
    if let Some(status) = directive.status {
        let response = injected_error(status, directive.retry_after.unwrap_or(1));
        return rejected(&mut exchange, response);
    }

    let rules = Rules {
        min: state.config.cache_min_tokens,
        increment: state.config.cache_increment,
    };
    let cached_tokens = cache::chat_cached_tokens(&state.caches, &request.model, &prefixes, rules);
    exchange.set_cache(cached_tokens, 0);
    dialect.sign(&mut reply);
    let completion = Completion {
        seq: exchange.seq(),
        model: &request.model,
        created: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        prompt_tokens,
        cached_tokens,
        dialect,
    };
    let pace = Pace {
        first_token: directive
            .first_token_delay
            .unwrap_or(state.config.first_token_delay),
        token: directive.token_delay.unwrap_or(state.config.token_delay),
    };
    let plan = completion.stream_plan(&reply, &directive, request.include_usage, &pace);
    if request.stream {
        return sse_response(plan, exchange);
    }

    // Not streaming: the same plan decides the timing and the faults.
    let total_delay: std::time::Duration = plan.segments.iter().map(|s| s.delay).sum();
    tokio::time::sleep(total_delay).await;
    match plan.end {
        End::Stall => std::future::pending().await,
        End::Cut => cut_response(exchange),
        End::Done if directive.malformed_after.is_some() => {
            exchange.settle(Outcome::Completed);
            let body = format!(
                r#"{{"id":"chatcmpl-mock-{}","choices":[{{"malformed"#,
                completion.seq
            );
            bytes_response(StatusCode::OK, "application/json", body.into())
        }
        End::Done => {
            let n = plan.segments.iter().map(|s| s.tokens).sum();
            exchange.add_tokens(n);
            exchange.settle(Outcome::Completed);
            json_response(StatusCode::OK, &completion.completion_json(&reply))
        }
    }
}

/// An OpenAI-style error: `{"error":{"message","type","param","code"}}`.
pub(crate) fn error(status: StatusCode, message: &str, code: Option<&str>) -> Response {
    let kind = if status.is_server_error() {
        "server_error"
    } else {
        "invalid_request_error"
    };
    let body =
        json!({ "error": { "message": message, "type": kind, "param": null, "code": code } });
    json_response(status, &body)
}

/// A 400 naming the request's parameter at fault, as OpenAI's refusals do.
fn param_error(message: &str, param: &str) -> Response {
    let body = json!({ "error": {
        "message": message, "type": "invalid_request_error", "param": param, "code": null,
    } });
    json_response(StatusCode::BAD_REQUEST, &body)
}

/// The error of `status=S`; a 429 carries `retry-after`.
fn injected_error(status: u16, retry_after: u64) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let (kind, code, message) = match status.as_u16() {
        429 => (
            "requests",
            "rate_limit_exceeded",
            "Rate limit reached (injected by mock-llm)",
        ),
        503 => (
            "server_error",
            "service_unavailable",
            "The server is overloaded (injected by mock-llm)",
        ),
        s if s >= 500 => (
            "server_error",
            "server_error",
            "The server had an error (injected by mock-llm)",
        ),
        _ => (
            "invalid_request_error",
            "mock_status",
            "Request rejected (injected by mock-llm)",
        ),
    };
    let body =
        json!({ "error": { "message": message, "type": kind, "param": null, "code": code } });
    let mut response = json_response(status, &body);
    if status == StatusCode::TOO_MANY_REQUESTS {
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from(retry_after));
    }
    response
}
