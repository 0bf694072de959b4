//! HTTP plumbing shared by the endpoints: body types, plain responses, and the streaming
//! body that plays a [`Plan`] back while keeping the request log's [`Exchange`] up to date.

use bytes::Bytes;
use futures::{Stream, TryStreamExt};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::StatusCode;
use hyper::body::Frame;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use serde_json::Value;

use crate::record::{Exchange, Outcome};
use crate::wire::{End, Plan};

pub(crate) type Body = UnsyncBoxBody<Bytes, std::io::Error>;
pub(crate) type Response = hyper::Response<Body>;

/// Plays a plan back as a body stream. The `exchange` lives in the stream, so hyper dropping
/// the body early (client gone) records `ClientDisconnected`.
pub(crate) fn play(
    plan: Plan,
    exchange: Exchange,
) -> impl Stream<Item = std::io::Result<Bytes>> + Send {
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

pub(crate) fn stream_body(
    stream: impl Stream<Item = std::io::Result<Bytes>> + Send + 'static,
) -> Body {
    BodyExt::boxed_unsync(StreamBody::new(stream.map_ok(Frame::data)))
}

/// A `text/event-stream` response playing `plan`.
pub(crate) fn sse_response(plan: Plan, exchange: Exchange) -> Response {
    let mut response = hyper::Response::new(stream_body(play(plan, exchange)));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A response that sends its headers and then drops the connection (`cut_after` without
/// streaming).
pub(crate) fn cut_response(exchange: Exchange) -> Response {
    let nothing = Plan {
        segments: Vec::new(),
        end: End::Cut,
    };
    hyper::Response::new(stream_body(play(nothing, exchange)))
}

pub(crate) fn bytes_response(
    status: StatusCode,
    content_type: &'static str,
    body: Bytes,
) -> Response {
    let body = Full::new(body).map_err(|never| match never {});
    let mut response = hyper::Response::new(BodyExt::boxed_unsync(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

pub(crate) fn json_response(status: StatusCode, body: &Value) -> Response {
    bytes_response(status, "application/json", body.to_string().into())
}

/// The request body as JSON; `Err` says why not (for a 400).
pub(crate) async fn read_json(
    request: hyper::Request<hyper::body::Incoming>,
) -> Result<Value, String> {
    let body = request
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    serde_json::from_slice(&body).map_err(|e| format!("request body is not valid JSON: {e}"))
}
