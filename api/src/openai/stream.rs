//! The Server-Sent Events of the OpenAI-compatible surface, framed the way the official
//! SDKs read them (`tests/openai-sdk/SHAPES.md` §3): `data:` lines (with `event:` for
//! the Responses API), never an `id:` or `retry:` line, keep-alives as comments, and the
//! body closed right after the last event. Parley's own feed (`crate::sse`) numbers its
//! events with `id:` and sends `ping` events; neither may reach an OpenAI client.

use std::marker::PhantomData;

use futures::{Stream, StreamExt, stream::BoxStream};
use parley_protocol::events::{EventKind, StreamEvent};
use poem::{Body, IntoResponse, Response};
use poem_openapi::{
    payload::Payload,
    registry::{MetaSchemaRef, Registry},
    types::Type,
};
use serde_json::Value;

/// A stream of SSE text whose events are documented as `D`.
pub struct OpenAiStream<D> {
    chunks: BoxStream<'static, String>,
    _doc: PhantomData<fn() -> D>,
}

impl<D> OpenAiStream<D> {
    pub fn new(chunks: impl Stream<Item = String> + Send + 'static) -> Self {
        Self {
            chunks: chunks.boxed(),
            _doc: PhantomData,
        }
    }
}

impl<D: Type> Payload for OpenAiStream<D> {
    const CONTENT_TYPE: &'static str = "text/event-stream";

    fn schema_ref() -> MetaSchemaRef {
        D::schema_ref()
    }

    fn register(registry: &mut Registry) {
        D::register(registry);
    }
}

impl<D: Send> IntoResponse for OpenAiStream<D> {
    fn into_response(self) -> Response {
        Response::builder()
            .content_type("text/event-stream")
            .header("X-Accel-Buffering", "no")
            .header("Cache-Control", "no-cache")
            .body(Body::from_bytes_stream(
                self.chunks.map(Ok::<_, std::io::Error>),
            ))
    }
}

/// One `data:` event (chat completions).
pub fn data(json: &Value) -> String {
    format!("data: {json}\n\n")
}

/// One named event (the Responses API: `event: <type>`).
pub fn named(json: &Value) -> String {
    let kind = json["type"].as_str().unwrap_or("message");
    format!("event: {kind}\ndata: {json}\n\n")
}

/// A keep-alive the SDKs skip.
pub const KEEPALIVE: &str = ": keepalive\n\n";

/// What a translator does with one Parley event.
pub trait Translate: Send + 'static {
    /// The SSE text of what `event` turns into (none, one or several events).
    fn translate(&mut self, event: &StreamEvent) -> Vec<String>;

    /// Whether the client's answer has ended before the turn did (a chat completion
    /// that ends with the caller's `tool_calls` while the turn waits).
    fn finished(&self) -> bool {
        false
    }
}

/// The SSE body of a prompt's events through `translator`: keep-alives for `ping`s,
/// the end after the terminal event (or when the translator has finished), or when the feed ends (a server closing its feeds
/// sends `reconnect`: the OpenAI shapes have no such event, and a client reconnects).
pub fn translated<T: Translate>(
    events: BoxStream<'static, StreamEvent>,
    mut translator: T,
) -> impl Stream<Item = String> + Send + 'static {
    events
        .scan(false, move |ended, event| {
            if *ended {
                return futures::future::ready(None);
            }
            let chunk = match &event.kind {
                EventKind::Ping { .. } => KEEPALIVE.to_owned(),
                EventKind::Reconnect { .. } => {
                    *ended = true;
                    String::new()
                }
                kind => {
                    let chunk = translator.translate(&event).concat();
                    *ended = kind.is_terminal() || translator.finished();
                    chunk
                }
            };
            futures::future::ready(Some(chunk))
        })
        .filter(|chunk| futures::future::ready(!chunk.is_empty()))
}
