//! The HTTP side on plain hyper: the shared state, the accept loop and routing
//! (`/v1/chat/completions` in [`crate::chat`], `/v1/messages` in [`crate::anthropic`],
//! `/v1/models`, `/_mock/outage`).
//!
//! Not poem: poem 3.1's server polls a finished hyper connection once more to shut it down
//! gracefully, which turns a failed body into a clean chunked end (no `cut_after`) and keeps
//! a connection whose client left alive while its body is pending (no disconnect seen for
//! `stall_after`). Here a connection task ends with its first error, dropping the body.
//! Streams are raw `text/event-stream` bodies, so faults can send a chunk that is not JSON.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Method, Request, StatusCode};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use crate::MockConfig;
use crate::cache::Caches;
use crate::chat::error;
use crate::http::{Response, json_response};
use crate::record::Log;

pub(crate) struct State {
    pub config: MockConfig,
    pub log: Log,
    /// The prompt caches (prefix hashes) of both endpoints.
    pub caches: Caches,
    /// A provider outage (`POST /_mock/outage`): every completion request answers this
    /// status until then.
    pub outage: std::sync::Mutex<Option<(StatusCode, Instant)>>,
}

impl State {
    pub fn new(config: MockConfig) -> Self {
        Self {
            log: Log::new(config.record_requests),
            config,
            caches: Caches::default(),
            outage: std::sync::Mutex::new(None),
        }
    }

    /// The status of the outage under way, if one is.
    pub(crate) fn outage(&self) -> Option<StatusCode> {
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
        (&Method::POST, "/v1/chat/completions") => crate::chat::completions(request, state).await,
        (&Method::POST, "/v1/messages") => crate::anthropic::messages(request, state).await,
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
