//! The request log: what Parley sent, and how each exchange ended.
//!
//! Each accepted request (chat or Anthropic) gets an entry when it arrives; an [`Exchange`] guard owned by
//! the handler (and then by the streaming body) fills in the outcome. When hyper drops the
//! body before it ended — the client went away — the guard's `Drop` records
//! [`Outcome::ClientDisconnected`], which is how tests see that Parley aborted an upstream
//! request on cancel.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Notify;

/// One message of a recorded request.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedMessage {
    /// `system`, `developer`, `user`, `assistant` or `tool`.
    pub role: String,
    /// The text content: a string content as is, the `text` parts of an array joined with
    /// `\n`, empty for `null`.
    pub content: String,
    /// `tool_call_id` of a `tool` message.
    pub tool_call_id: Option<String>,
    /// `tool_calls` of an `assistant` message, as sent (on the Anthropic endpoint: its
    /// `tool_use` blocks as OpenAI tool calls, see README.md).
    pub tool_calls: Vec<Value>,
    /// `reasoning_content` of an `assistant` message when it is a string (on the Anthropic
    /// endpoint: the text of its `thinking` blocks, joined).
    pub reasoning_content: Option<String>,
}

/// How an exchange ended (so far).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Still being answered (a stream in progress or stalled).
    InProgress,
    /// The whole answer was handed to the connection (for a stream: up to `[DONE]`).
    Completed,
    /// Answered with this HTTP error status (unknown model, `status=`, bad directive).
    Rejected(u16),
    /// The mock dropped the connection as told by `cut_after`.
    Cut,
    /// The client went away before the answer ended.
    ClientDisconnected,
}

/// Which endpoint a request came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Endpoint {
    /// `POST /v1/chat/completions` (OpenAI-compatible).
    ChatCompletions,
    /// `POST /v1/messages` (Anthropic Messages).
    Messages,
}

/// One request (chat completion or Anthropic message) as received, and what became of it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// The number of the request since the mock started, from 1 (also in the completion id
    /// `chatcmpl-mock-<seq>` / the message id `msg_mock_<seq>`).
    pub seq: u64,
    /// The endpoint it came to.
    pub endpoint: Endpoint,
    /// `model` of the request.
    pub model: String,
    /// `stream` of the request.
    pub stream: bool,
    /// `stream_options.include_usage` of the request.
    pub include_usage: bool,
    /// The messages, in order. From the Anthropic endpoint: converted to chat messages
    /// (the `system` first, `tool_result` blocks as `tool` messages; see README.md).
    pub messages: Vec<RecordedMessage>,
    /// `tools` of the request, as sent (empty when absent).
    pub tools: Vec<Value>,
    /// The whole request body, for anything else (temperature, max_tokens…).
    pub body: Value,
    /// `prompt_tokens` the mock computed (and reports in usage): on the Anthropic endpoint
    /// all input tokens, `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`.
    pub prompt_tokens: u64,
    /// Input tokens read from the prompt cache: `prompt_tokens_details.cached_tokens` /
    /// `cache_read_input_tokens` (0 until the request was accepted). `cached_tokens /
    /// prompt_tokens` is the request's hit ratio.
    pub cached_tokens: u64,
    /// Input tokens written to the prompt cache: `cache_creation_input_tokens` (Anthropic
    /// only; 0 on the chat endpoint).
    pub cache_creation_tokens: u64,
    /// Output tokens (reasoning, content and tool-call chunks) handed to the connection.
    pub tokens_sent: usize,
    /// How it ended.
    pub outcome: Outcome,
    /// When the request arrived.
    pub received_at: Instant,
    /// When the outcome was settled (`None` while in progress).
    pub ended_at: Option<Instant>,
}

impl RecordedRequest {
    /// The content of the first `system` message, if any.
    pub fn system_prompt(&self) -> Option<&str> {
        self.messages
            .iter()
            .find(|m| m.role == "system")
            .map(|m| m.content.as_str())
    }

    /// The content of the last `user` message, if any (directive included).
    pub fn last_user_message(&self) -> Option<&str> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == "user")
            .map(|m| m.content.as_str())
    }

    /// The names of the functions offered in `tools`, in order (`function.name` of each
    /// tool, or `name` of an Anthropic tool; tools without one are skipped).
    pub fn tool_names(&self) -> Vec<String> {
        self.tools
            .iter()
            .filter_map(|t| t["function"]["name"].as_str().or(t["name"].as_str()))
            .map(str::to_owned)
            .collect()
    }

    /// The contents of the `tool` messages after the last `user` message, in order: what
    /// the mock's `Tool result: …` reply is made of.
    pub fn tool_results(&self) -> Vec<&str> {
        let after_user = self
            .messages
            .iter()
            .rposition(|m| m.role == "user")
            .map_or(0, |i| i + 1);
        self.messages[after_user..]
            .iter()
            .filter(|m| m.role == "tool")
            .map(|m| m.content.as_str())
            .collect()
    }

    /// How long the exchange lasted, once it has ended.
    pub fn duration(&self) -> Option<Duration> {
        self.ended_at.map(|end| end - self.received_at)
    }
}

/// The shared log (cheap to clone). With recording off it keeps nothing.
#[derive(Clone)]
pub(crate) struct Log(Arc<LogInner>);

struct LogInner {
    enabled: bool,
    next_seq: AtomicU64,
    entries: Mutex<Vec<RecordedRequest>>,
    changed: Notify,
}

impl Log {
    pub(crate) fn new(enabled: bool) -> Self {
        Self(Arc::new(LogInner {
            enabled,
            next_seq: AtomicU64::new(1),
            entries: Mutex::new(Vec::new()),
            changed: Notify::new(),
        }))
    }

    fn entries(&self) -> MutexGuard<'_, Vec<RecordedRequest>> {
        // A panic while holding this lock cannot leave an entry half-written.
        self.0.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn snapshot(&self) -> Vec<RecordedRequest> {
        self.entries().clone()
    }

    pub(crate) fn clear(&self) {
        self.entries().clear();
    }

    /// Waits until `pred` holds for the log; `None` after `timeout`.
    pub(crate) async fn wait_for(
        &self,
        timeout: Duration,
        mut pred: impl FnMut(&[RecordedRequest]) -> bool,
    ) -> Option<Vec<RecordedRequest>> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let changed = self.0.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let entries = self.entries();
                if pred(&entries) {
                    return Some(entries.clone());
                }
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return None;
            }
        }
    }

    /// Records a new request (numbering it); the returned guard settles its outcome.
    pub(crate) fn start(&self, mut request: RecordedRequest) -> Exchange {
        let seq = if self.0.enabled {
            let mut entries = self.entries();
            // Numbered under the lock, so entries stay in `seq` order.
            request.seq = self.0.next_seq.fetch_add(1, Ordering::Relaxed);
            let seq = request.seq;
            entries.push(request);
            seq
        } else {
            self.0.next_seq.fetch_add(1, Ordering::Relaxed)
        };
        self.0.changed.notify_waiters();
        Exchange {
            log: self.clone(),
            seq,
            settled: false,
        }
    }
}

/// The handle on one log entry. Dropped before [`Exchange::settle`]: the client went away.
pub(crate) struct Exchange {
    log: Log,
    seq: u64,
    settled: bool,
}

impl Exchange {
    /// The request's number.
    pub(crate) fn seq(&self) -> u64 {
        self.seq
    }

    fn update(&self, f: impl FnOnce(&mut RecordedRequest)) {
        if !self.log.0.enabled {
            return;
        }
        {
            let mut entries = self.log.entries();
            // Entries are in `seq` order; `clear_requests` may have removed this one.
            if let Ok(i) = entries.binary_search_by_key(&self.seq, |e| e.seq) {
                f(&mut entries[i]);
            }
        }
        self.log.0.changed.notify_waiters();
    }

    /// Records the prompt cache's part of the input.
    pub(crate) fn set_cache(&self, read: u64, creation: u64) {
        self.update(|e| {
            e.cached_tokens = read;
            e.cache_creation_tokens = creation;
        });
    }

    pub(crate) fn add_tokens(&self, n: usize) {
        if n > 0 {
            self.update(|e| e.tokens_sent += n);
        }
    }

    pub(crate) fn settle(&mut self, outcome: Outcome) {
        if !self.settled {
            self.settled = true;
            self.update(|e| {
                e.outcome = outcome;
                e.ended_at = Some(Instant::now());
            });
        }
    }
}

impl Drop for Exchange {
    fn drop(&mut self) {
        self.settle(Outcome::ClientDisconnected);
    }
}
