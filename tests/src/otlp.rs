//! An in-process OTLP/HTTP trace receiver: what a collector would get from `parley`
//! (`POST /v1/traces`, protobuf `ExportTraceServiceRequest`), kept as flat spans.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use opentelemetry_proto::tonic::{
    collector::trace::v1::ExportTraceServiceRequest,
    common::v1::{AnyValue, KeyValue, any_value},
};
use poem::{
    EndpointExt, Route, Server, handler,
    http::StatusCode,
    listener::{Acceptor, Listener, TcpListener},
    post,
    web::Data,
};
use prost::Message;

/// One received span.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceivedSpan {
    /// The `service.name` of its resource.
    pub service: String,
    pub name: String,
    /// Hex, as in a `traceparent`.
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    /// Its string, integer and boolean attributes, as text.
    pub attributes: Vec<(String, String)>,
}

impl ReceivedSpan {
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

type Spans = Arc<Mutex<Vec<ReceivedSpan>>>;

/// The receiver; stops when dropped.
pub struct OtlpReceiver {
    addr: SocketAddr,
    spans: Spans,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl OtlpReceiver {
    pub async fn start() -> Self {
        let spans = Spans::default();
        let acceptor = TcpListener::bind("127.0.0.1:0")
            .into_acceptor()
            .await
            .expect("binding the OTLP receiver");
        let addr = acceptor
            .local_addr()
            .first()
            .and_then(|a| a.as_socket_addr().copied())
            .expect("a socket address");
        let app = Route::new()
            .at("/v1/traces", post(receive))
            .data(spans.clone());
        let task = tokio::spawn(async move {
            let _ = Server::new_with_acceptor(acceptor).run(app).await;
        });
        Self { addr, spans, task }
    }

    /// The collector's base URL (`telemetry.otlp_endpoint`).
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.spans.lock().expect("the receiver's lock").clone()
    }

    /// Waits until `done` holds for the spans received so far; returns them (`None`
    /// after `timeout`).
    pub async fn wait_for(
        &self,
        timeout: Duration,
        done: impl Fn(&[ReceivedSpan]) -> bool,
    ) -> Option<Vec<ReceivedSpan>> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let spans = self.spans();
            if done(&spans) {
                return Some(spans);
            }
            if tokio::time::Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[handler]
async fn receive(body: Vec<u8>, spans: Data<&Spans>) -> poem::Response {
    let Ok(request) = ExportTraceServiceRequest::decode(body.as_slice()) else {
        return poem::Response::builder()
            .status(StatusCode::BAD_REQUEST)
            .finish();
    };
    let mut received = Vec::new();
    for resource in request.resource_spans {
        let service = resource
            .resource
            .as_ref()
            .and_then(|r| {
                r.attributes
                    .iter()
                    .find(|kv| kv.key == "service.name")
                    .and_then(|kv| text(kv.value.as_ref()))
            })
            .unwrap_or_default();
        for scope in resource.scope_spans {
            for span in scope.spans {
                received.push(ReceivedSpan {
                    service: service.clone(),
                    name: span.name,
                    trace_id: hex::encode(span.trace_id),
                    span_id: hex::encode(span.span_id),
                    parent_span_id: hex::encode(span.parent_span_id),
                    attributes: span.attributes.iter().filter_map(attribute).collect(),
                });
            }
        }
    }
    spans.lock().expect("the receiver's lock").extend(received);
    // An empty ExportTraceServiceResponse.
    poem::Response::builder()
        .content_type("application/x-protobuf")
        .body(Vec::<u8>::new())
}

fn attribute(kv: &KeyValue) -> Option<(String, String)> {
    Some((kv.key.clone(), text(kv.value.as_ref())?))
}

fn text(value: Option<&AnyValue>) -> Option<String> {
    match value?.value.as_ref()? {
        any_value::Value::StringValue(s) => Some(s.clone()),
        any_value::Value::IntValue(i) => Some(i.to_string()),
        any_value::Value::BoolValue(b) => Some(b.to_string()),
        any_value::Value::DoubleValue(d) => Some(d.to_string()),
        _ => None,
    }
}
