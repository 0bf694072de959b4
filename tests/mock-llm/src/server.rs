//! The HTTP side on plain hyper: routing for `/v1/chat/completions` and `/v1/models`,
//! error bodies, and the streaming body that plays a [`Plan`] back.
//!
//! Not poem: poem 3.1's server polls a finished hyper connection once more to shut it down
//! gracefully, which turns a failed body into a clean chunked end (no `cut_after`) and keeps
//! a connection whose client left alive while its body is pending (no disconnect seen for
//! `stall_after`). Here a connection task ends with its first error, dropping the body.
//! Streams are raw `text/event-stream` bodies, so faults can send a chunk that is not JSON.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use futures::{Stream, TryStreamExt};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::{Method, Request, StatusCode};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use crate::MockConfig;
use crate::record::{Exchange, Log, Outcome, RecordedRequest};
use crate::reply;
use crate::wire::{Completion, End, Pace, Plan};

type Body = UnsyncBoxBody<Bytes, std::io::Error>;
type Response = hyper::Response<Body>;

pub(crate) struct State {
    pub config: MockConfig,
    pub log: Log,
    /// A provider outage (`POST /_mock/outage`): every completion request answers this
    /// status until then.
    pub outage: std::sync::Mutex<Option<(StatusCode, Instant)>>,
}

impl State {
    pub fn new(config: MockConfig) -> Self {
        Self {
            log: Log::new(config.record_requests),
            config,
            outage: std::sync::Mutex::new(None),
        }
    }

    /// The status of the outage under way, if one is.
    fn outage(&self) -> Option<StatusCode> {
        let outage = self
            .outage
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        outage.and_then(|(status, until)| (Instant::now() < until).then_some(status))
    }
}

/// Accepts connections until `stop` fires (or its sender is dropped), then drops every open
/// connection with it.
pub(crate) async fn serve(
    listener: TcpListener,
    state: Arc<State>,
    mut stop: oneshot::Receiver<()>,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut stop => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => {
                if let Ok((tcp, _)) = accepted {
                    connections.spawn(serve_connection(tcp, state.clone()));
                }
            }
        }
    }
}

async fn serve_connection(tcp: TcpStream, state: Arc<State>) {
    // Small SSE writes must not wait for Nagle.
    let _ = tcp.set_nodelay(true);
    let service = hyper::service::service_fn(move |request| {
        let state = state.clone();
        async move { Ok::<_, Infallible>(route(request, &state).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
        .await;
}

async fn route(request: Request<Incoming>, state: &State) -> Response {
    match (request.method(), request.uri().path()) {
        (&Method::POST, "/v1/chat/completions") => chat_completions(request, state).await,
        (&Method::GET, "/v1/models") => models(state),
        (&Method::POST, "/_mock/outage") => start_outage(request, state).await,
        _ => error(StatusCode::NOT_FOUND, "no such route", None),
    }
}

fn models(state: &State) -> Response {
    let data: Vec<Value> = state
        .config
        .models
        .iter()
        .map(|id| json!({ "id": id, "object": "model", "created": 0, "owned_by": "parley-mock-llm" }))
        .collect();
    json_response(StatusCode::OK, &json!({ "object": "list", "data": data }))
}

/// `POST /_mock/outage {"status": 500, "for_ms": 20000}`: every completion request
/// answers `status` (an error body, nothing logged) for `for_ms`, as a provider that is
/// down does, whatever the requests say. For fault drills across many turns.
async fn start_outage(request: Request<Incoming>, state: &State) -> Response {
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return error(StatusCode::BAD_REQUEST, &e.to_string(), None),
    };
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let status = parsed["status"]
        .as_u64()
        .and_then(|s| u16::try_from(s).ok())
        .and_then(|s| StatusCode::from_u16(s).ok())
        .filter(|s| s.is_client_error() || s.is_server_error());
    let (Some(status), Some(for_ms)) = (status, parsed["for_ms"].as_u64()) else {
        let message = "expected {\"status\": 4xx or 5xx, \"for_ms\": N}";
        return error(StatusCode::BAD_REQUEST, message, None);
    };
    let until = Instant::now() + std::time::Duration::from_millis(for_ms);
    *state
        .outage
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some((status, until));
    json_response(
        StatusCode::OK,
        &json!({"status": status.as_u16(), "for_ms": for_ms}),
    )
}

async fn chat_completions(request: Request<Incoming>, state: &State) -> Response {
    if let Some(status) = state.outage() {
        return error(status, "the provider is down (mock outage)", None);
    }
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return error(StatusCode::BAD_REQUEST, &e.to_string(), None),
    };
    let body: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            let message = format!("request body is not valid JSON: {e}");
            return error(StatusCode::BAD_REQUEST, &message, None);
        }
    };
    let request = match reply::read_request(&body) {
        Ok(r) => r,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message, None),
    };
    let prompt_tokens = reply::count_prompt_tokens(&request.messages);
    let derived = reply::derive_for(&request);
    let mut exchange = state.log.start(RecordedRequest {
        seq: 0,
        model: request.model.clone(),
        stream: request.stream,
        include_usage: request.include_usage,
        messages: request.messages,
        tools: request.tools,
        body,
        prompt_tokens,
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
    let (directive, reply) = match derived {
        Ok((directive, mut reply)) => {
            if let Some(most) = request.max_tokens {
                reply.content.truncate(most);
            }
            (directive.for_model(&request.model), reply)
        }
        Err(message) => {
            let message = format!("mock directive: {message}");
            let response = error(StatusCode::BAD_REQUEST, &message, Some("mock_directive"));
            return rejected(&mut exchange, response);
        }
    };
    if let Some(status) = directive.status {
        let response = injected_error(status, directive.retry_after.unwrap_or(1));
        return rejected(&mut exchange, response);
    }

    let completion = Completion {
        seq: exchange.seq(),
        model: &request.model,
        created: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        prompt_tokens,
    };
    let pace = Pace {
        first_token: directive
            .first_token_delay
            .unwrap_or(state.config.first_token_delay),
        token: directive.token_delay.unwrap_or(state.config.token_delay),
    };
    let plan = completion.stream_plan(&reply, &directive, request.include_usage, &pace);
    if request.stream {
        let mut response = hyper::Response::new(stream_body(play(plan, exchange)));
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        return response;
    }

    // Not streaming: the same plan decides the timing and the faults.
    let total_delay: std::time::Duration = plan.segments.iter().map(|s| s.delay).sum();
    tokio::time::sleep(total_delay).await;
    match plan.end {
        End::Stall => std::future::pending().await,
        End::Cut => {
            let nothing = Plan {
                segments: Vec::new(),
                end: End::Cut,
            };
            hyper::Response::new(stream_body(play(nothing, exchange)))
        }
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

/// Plays a plan back as a body stream. The `exchange` lives in the stream, so hyper dropping
/// the body early (client gone) records `ClientDisconnected`.
fn play(plan: Plan, exchange: Exchange) -> impl Stream<Item = std::io::Result<Bytes>> + Send {
    let segments = plan.segments.into_iter();
    futures::stream::unfold(
        (segments, plan.end, Some(exchange)),
        |(mut segments, end, exchange)| async move {
            let mut exchange = exchange?;
            if let Some(segment) = segments.next() {
                if !segment.delay.is_zero() {
                    tokio::time::sleep(segment.delay).await;
                }
                exchange.add_tokens(segment.tokens);
                return Some((Ok(segment.bytes), (segments, end, Some(exchange))));
            }
            match end {
                End::Done => {
                    exchange.settle(Outcome::Completed);
                    None
                }
                End::Stall => std::future::pending().await,
                End::Cut => {
                    // Let hyper flush what was sent (a pending poll makes it write its
                    // buffer), then fail the body so hyper drops the connection.
                    tokio::task::yield_now().await;
                    exchange.settle(Outcome::Cut);
                    let cut = std::io::Error::other("mock-llm: cut_after");
                    Some((Err(cut), (segments, end, None)))
                }
            }
        },
    )
}

fn stream_body(stream: impl Stream<Item = std::io::Result<Bytes>> + Send + 'static) -> Body {
    BodyExt::boxed_unsync(StreamBody::new(stream.map_ok(Frame::data)))
}

fn bytes_response(status: StatusCode, content_type: &'static str, body: Bytes) -> Response {
    let body = Full::new(body).map_err(|never| match never {});
    let mut response = hyper::Response::new(BodyExt::boxed_unsync(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    bytes_response(status, "application/json", body.to_string().into())
}

/// An OpenAI-style error: `{"error":{"message","type","param","code"}}`.
fn error(status: StatusCode, message: &str, code: Option<&str>) -> Response {
    let kind = if status.is_server_error() {
        "server_error"
    } else {
        "invalid_request_error"
    };
    let body =
        json!({ "error": { "message": message, "type": kind, "param": null, "code": code } });
    json_response(status, &body)
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
