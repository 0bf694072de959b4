//! A webhook receiver for module tests: an operator's endpoint that checks each request's
//! signature the way DESIGN §8 tells receivers to (HMAC-SHA256 over `"<t>.<body>"`),
//! records what it got and answers as the test tells it to.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use hmac::{Hmac, Mac};
use poem::{
    EndpointExt, Request, Response, Route, Server, handler,
    http::StatusCode,
    listener::{Acceptor, Listener, TcpListener},
    web::Data,
};
use serde_json::Value;
use sha2::Sha256;

/// How the receiver answers.
#[derive(Debug, Clone)]
pub enum Answer {
    /// 200 with this JSON body (a `HookResult`).
    Json(Value),
    /// This status with an empty body.
    Status(u16),
    /// 200 with a body that is no `HookResult`.
    Garbage,
    /// Waits this long, then answers `{}`.
    Slow(Duration),
    /// This redirect status with `Location: location`, to requests for `/hook`; any
    /// other path answers `{}` (where an on-origin redirect lands).
    Redirect { status: u16, location: String },
}

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request's method and path (`POST /hook`).
    pub request: String,
    /// The `X-Parley-Hook` header.
    pub hook: String,
    /// Whether the signature matched the body and the shared secret.
    pub signature_valid: bool,
    /// The body (a `HookContext`).
    pub context: Value,
}

#[derive(Clone)]
struct State {
    secret: String,
    answer: Arc<Mutex<Answer>>,
    received: Arc<Mutex<Vec<Received>>>,
}

/// A running receiver; stops when dropped.
pub struct WebhookReceiver {
    pub addr: SocketAddr,
    state: State,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for WebhookReceiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl WebhookReceiver {
    /// Starts a receiver on a free loopback port that checks signatures with `secret`.
    pub async fn start(secret: &str, answer: Answer) -> Self {
        let state = State {
            secret: secret.to_owned(),
            answer: Arc::new(Mutex::new(answer)),
            received: Arc::new(Mutex::new(Vec::new())),
        };
        let acceptor = TcpListener::bind("127.0.0.1:0")
            .into_acceptor()
            .await
            .expect("binding the webhook receiver");
        let addr = acceptor
            .local_addr()
            .first()
            .and_then(|a| a.as_socket_addr().copied())
            .expect("a socket address");
        let app = Route::new()
            .at("/hook", receive)
            .at("/*rest", receive)
            .data(state.clone());
        let task = tokio::spawn(async move {
            let _ = Server::new_with_acceptor(acceptor).run(app).await;
        });
        Self { addr, state, task }
    }

    /// The URL modules post to.
    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    /// The same URL by the name `localhost` (another origin than [`url`](Self::url)'s
    /// `127.0.0.1`, resolved rather than literal).
    pub fn url_by_name(&self) -> String {
        format!("http://localhost:{}/hook", self.addr.port())
    }

    /// Changes how it answers from now on.
    pub fn answer(&self, answer: Answer) {
        *self.state.answer.lock().expect("the receiver's lock") = answer;
    }

    /// What it got so far, oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.state
            .received
            .lock()
            .expect("the receiver's lock")
            .clone()
    }

    /// Waits until it got `n` requests (panics after `timeout`).
    pub async fn wait_for(&self, n: usize, timeout: Duration) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let got = self.received();
            if got.len() >= n {
                return got;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the webhook got {} requests, not {n}: {got:?}",
                got.len()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Whether `header` (`t=<unix>,v1=<hex>`) signs `body` with `secret`.
pub fn signature_valid(secret: &str, header: &str, body: &[u8]) -> bool {
    let mut timestamp = None;
    let mut signature = None;
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", t)) => timestamp = Some(t),
            Some(("v1", v)) => signature = hex::decode(v).ok(),
            _ => {}
        }
    }
    let (Some(timestamp), Some(signature)) = (timestamp, signature) else {
        return false;
    };
    let fresh = timestamp
        .parse::<i64>()
        .is_ok_and(|t| (chrono::Utc::now().timestamp() - t).abs() < 300);
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key size");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    fresh && mac.verify_slice(&signature).is_ok()
}

#[handler]
async fn receive(req: &Request, body: poem::Body, state: Data<&State>) -> Response {
    let body = body.into_vec().await.unwrap_or_default();
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let signature_valid = signature_valid(&state.secret, &header("x-parley-signature"), &body);
    state
        .received
        .lock()
        .expect("the receiver's lock")
        .push(Received {
            request: format!("{} {}", req.method(), req.uri().path()),
            hook: header("x-parley-hook"),
            signature_valid,
            context: serde_json::from_slice(&body).unwrap_or(Value::Null),
        });
    let answer = state.answer.lock().expect("the receiver's lock").clone();
    match answer {
        Answer::Redirect { status, location } if req.uri().path() == "/hook" => Response::builder()
            .status(StatusCode::from_u16(status).expect("a status code"))
            .header("location", location)
            .finish(),
        Answer::Redirect { .. } => Response::builder()
            .content_type("application/json")
            .body("{}"),
        Answer::Json(value) => Response::builder()
            .content_type("application/json")
            .body(value.to_string()),
        Answer::Status(code) => Response::builder()
            .status(StatusCode::from_u16(code).expect("a status code"))
            .finish(),
        Answer::Garbage => Response::builder()
            .content_type("application/json")
            .body(r#"{"action": "explode"}"#),
        Answer::Slow(wait) => {
            tokio::time::sleep(wait).await;
            Response::builder()
                .content_type("application/json")
                .body("{}")
        }
    }
}
