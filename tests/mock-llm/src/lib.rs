//! `parley-mock-llm`: an OpenAI-compatible chat completions server and an Anthropic
//! Messages endpoint with fault injection, the one test double of Parley's tests and
//! benchmarks.
//!
//! ```no_run
//! # async fn demo() {
//! use parley_mock_llm::{MockConfig, MockLlm};
//! let mock = MockLlm::start(MockConfig::default()).await;
//! // Point Parley (or async-openai) at `mock.base_url()`; send `hello [[mock tokens=5]]`…
//! let sent = mock.requests();
//! # }
//! ```
//!
//! Replies are deterministic: `Echo: <last user message>` streamed word by word unless a
//! `[[mock ...]]` directive in the last user message says otherwise (README.md has the
//! syntax). Every request is logged with how it ended, including the client going away.
//! Each model can speak a provider's dialect (DeepSeek, Gemini) and refuses, as that
//! provider does, a follow-up that lacks what it must carry back.

mod anthropic;
mod cache;
mod chat;
mod choice;
mod dialect;
mod directive;
mod http;
mod record;
mod reply;
mod sampling;
mod server;
mod sign;
mod structured;
mod wire;

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;

pub use dialect::Dialect;
pub use record::{Endpoint, Outcome, RecordedMessage, RecordedRequest};

/// Server-wide settings; a directive in a request overrides the delays for that request.
#[derive(Debug, Clone)]
pub struct MockConfig {
    /// The model ids served (and listed by `GET /v1/models`); others get 404.
    pub models: Vec<String>,
    /// Delay before the first chunk of every stream.
    pub first_token_delay: Duration,
    /// Delay between output tokens of every stream.
    pub token_delay: Duration,
    /// Keep the request log. Off for long benchmark runs, where nobody reads it.
    pub record_requests: bool,
    /// The dialect of each model on the chat endpoint; a model not listed is plain OpenAI.
    pub dialects: BTreeMap<String, Dialect>,
    /// Chat endpoint: the shortest cached prefix reported in `cached_tokens` (OpenAI: 1024).
    pub cache_min_tokens: u64,
    /// Chat endpoint: `cached_tokens` is `cache_min_tokens` plus a multiple of this
    /// (OpenAI: 128).
    pub cache_increment: u64,
    /// Anthropic endpoint: the shortest prefix a `cache_control` breakpoint caches
    /// (Anthropic: 1024).
    pub anthropic_cache_min_tokens: u64,
    /// Models that answer in words whatever format a request asks (`response_format`,
    /// `output_config.format`): a model without a JSON mode, or one that ignores it.
    pub text_only: Vec<String>,
}

/// The model served by default.
pub const DEFAULT_MODEL: &str = "mock-model";

impl Default for MockConfig {
    fn default() -> Self {
        Self {
            models: vec![DEFAULT_MODEL.to_owned()],
            first_token_delay: Duration::ZERO,
            token_delay: Duration::ZERO,
            record_requests: true,
            dialects: BTreeMap::new(),
            cache_min_tokens: 1024,
            cache_increment: 128,
            anthropic_cache_min_tokens: 1024,
            text_only: Vec::new(),
        }
    }
}

/// A running mock server; it stops (dropping open connections) when this is dropped.
pub struct MockLlm {
    addr: SocketAddr,
    state: Arc<server::State>,
    shutdown: Option<oneshot::Sender<()>>,
}

impl MockLlm {
    /// Starts a mock on `127.0.0.1` at a free port, on the current tokio runtime.
    ///
    /// # Panics
    /// When no local port can be bound.
    pub async fn start(config: MockConfig) -> MockLlm {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        match Self::start_on(addr, config).await {
            Ok(mock) => mock,
            Err(e) => panic!("mock-llm: cannot bind {addr}: {e}"),
        }
    }

    /// Starts a mock listening on `addr` (port 0 picks a free one).
    pub async fn start_on(addr: SocketAddr, config: MockConfig) -> std::io::Result<MockLlm> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(server::State::new(config));
        let (shutdown, stop) = oneshot::channel();
        tokio::spawn(server::serve(listener, state.clone(), stop));
        Ok(MockLlm {
            addr,
            state,
            shutdown: Some(shutdown),
        })
    }

    /// The address the mock listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The OpenAI base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The Anthropic base URL, `http://127.0.0.1:PORT` (the SDKs add `/v1/messages`).
    pub fn anthropic_base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Forgets every cached prompt prefix (both endpoints, all models): the next requests
    /// read nothing from the cache.
    pub fn clear_cache(&self) {
        self.state.caches.clear();
    }

    /// A snapshot of the requests (both endpoints) received so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.log.snapshot()
    }

    /// Forgets the requests received so far.
    pub fn clear_requests(&self) {
        self.state.log.clear();
    }

    /// Waits until `pred` holds for the request log and returns the log then; `None` when
    /// it did not hold within `timeout`. E.g. wait for the upstream stream to be aborted:
    /// `mock.wait_for(Duration::from_secs(2), |r| r.last().is_some_and(|r| r.outcome == Outcome::ClientDisconnected))`.
    pub async fn wait_for(
        &self,
        timeout: Duration,
        pred: impl FnMut(&[RecordedRequest]) -> bool,
    ) -> Option<Vec<RecordedRequest>> {
        self.state.log.wait_for(timeout, pred).await
    }
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}
