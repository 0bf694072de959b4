//! The Messages stream's events as [`Delta`]s.
//!
//! Each event's data is read into the one typed struct its `type` says ([`Event`]). Text
//! and thinking deltas go out as they come; a `tool_use` block's input arrives as JSON
//! text in pieces and goes out as a call's argument pieces; a thinking block's signature
//! (and a `redacted_thinking` block whole) is kept, in order, for the response's
//! [`ResponseState::Anthropic`], sent when the message stops — before its usage, which
//! `message_start` (input, cache reads and writes) and `message_delta` (output) report.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use eventsource_stream::{Event as SseEvent, EventStreamError};
use futures::{Stream, StreamExt};
use parley_protocol::events::{StopReason, Usage};
use serde::Deserialize;

use super::super::{
    Delta, ProviderError,
    replay::{ResponseState, ThinkingBlock},
};

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart {
        message: StartMessage,
    },
    ContentBlockStart {
        index: u32,
        content_block: Block,
    },
    ContentBlockDelta {
        index: u32,
        delta: BlockDelta,
    },
    ContentBlockStop {
        index: u32,
    },
    MessageDelta {
        #[serde(default)]
        delta: MessageDeltaBody,
        #[serde(default)]
        usage: Option<OutputUsage>,
    },
    MessageStop,
    Ping,
    Error {
        error: ApiError,
    },
}

/// What `message_delta` says of the message: why it stopped.
#[derive(Debug, Default, Deserialize)]
struct MessageDeltaBody {
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct StartMessage {
    #[serde(default)]
    usage: InputUsage,
}

#[derive(Debug, Default, Deserialize)]
struct InputUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: u64,
}

#[derive(Debug, Deserialize)]
struct OutputUsage {
    #[serde(default)]
    output_tokens: u64,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text,
    Thinking,
    RedactedThinking {
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        thinking: String,
    },
    SignatureDelta {
        signature: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct ApiError {
    #[serde(rename = "type")]
    kind: String,
    message: String,
}

impl ApiError {
    /// The HTTP status Anthropic answers a refused request of this error type with.
    fn status(&self) -> u16 {
        match self.kind.as_str() {
            "overloaded_error" => 529,
            "rate_limit_error" => 429,
            "invalid_request_error" => 400,
            "timeout_error" => 504,
            _ => 500,
        }
    }
}

/// What the stream keeps of the open blocks.
enum Open {
    /// A thinking block: its text so far (for its state) and signature.
    Thinking {
        text: String,
        signature: String,
    },
    /// A call: its number among the response's calls.
    Call(u32),
    Other,
}

pub(super) struct Events<S> {
    events: S,
    pending: VecDeque<Result<Delta, ProviderError>>,
    /// Open blocks by their index in the message.
    open: Vec<(u32, Open)>,
    calls: u32,
    thinking: Vec<ThinkingBlock>,
    usage: Usage,
    ended: bool,
}

impl<S> Events<S> {
    pub(super) fn new(events: S) -> Self {
        Self {
            events,
            pending: VecDeque::new(),
            open: Vec::new(),
            calls: 0,
            thinking: Vec::new(),
            usage: Usage::default(),
            ended: false,
        }
    }

    fn open_mut(&mut self, index: u32) -> Option<&mut Open> {
        self.open
            .iter_mut()
            .find(|(i, _)| *i == index)
            .map(|(_, open)| open)
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::MessageStart { message } => {
                let u = message.usage;
                let read = u.cache_read_input_tokens.unwrap_or(0);
                let written = u.cache_creation_input_tokens.unwrap_or(0);
                // Parley counts every input token in `input_tokens`; Anthropic's counts
                // the part neither read from nor written to the cache.
                self.usage = Usage {
                    input_tokens: u.input_tokens + read + written,
                    cached_input_tokens: read,
                    cache_write_tokens: written,
                    output_tokens: u.output_tokens,
                    reasoning_tokens: 0,
                };
            }
            Event::ContentBlockStart {
                index,
                content_block,
            } => {
                let open = match content_block {
                    Block::Thinking => Open::Thinking {
                        text: String::new(),
                        signature: String::new(),
                    },
                    Block::RedactedThinking { data } => {
                        self.thinking.push(ThinkingBlock::RedactedThinking { data });
                        Open::Other
                    }
                    Block::ToolUse { id, name } => {
                        let n = self.calls;
                        self.calls += 1;
                        self.pending.push_back(Ok(Delta::ToolCall {
                            index: n,
                            id: Some(id),
                            name: Some(name),
                            arguments: String::new(),
                            state: None,
                        }));
                        Open::Call(n)
                    }
                    Block::Text | Block::Other => Open::Other,
                };
                self.open.push((index, open));
            }
            Event::ContentBlockDelta { index, delta } => match (delta, self.open_mut(index)) {
                (BlockDelta::TextDelta { text }, _) if !text.is_empty() => {
                    self.pending.push_back(Ok(Delta::Text(text)));
                }
                (BlockDelta::ThinkingDelta { thinking }, Some(Open::Thinking { text, .. })) => {
                    text.push_str(&thinking);
                    if !thinking.is_empty() {
                        self.pending.push_back(Ok(Delta::Reasoning(thinking)));
                    }
                }
                (
                    BlockDelta::SignatureDelta { signature },
                    Some(Open::Thinking { signature: s, .. }),
                ) => {
                    s.push_str(&signature);
                }
                (BlockDelta::InputJsonDelta { partial_json }, Some(Open::Call(n))) => {
                    let n = *n;
                    if !partial_json.is_empty() {
                        self.pending.push_back(Ok(Delta::ToolCall {
                            index: n,
                            id: None,
                            name: None,
                            arguments: partial_json,
                            state: None,
                        }));
                    }
                }
                _ => {}
            },
            Event::ContentBlockStop { index } => {
                if let Some(at) = self.open.iter().position(|(i, _)| *i == index)
                    && let (_, Open::Thinking { text, signature }) = self.open.remove(at)
                {
                    self.thinking.push(ThinkingBlock::Thinking {
                        thinking: text,
                        signature,
                    });
                }
            }
            Event::MessageDelta { delta, usage } => {
                if let Some(usage) = usage {
                    self.usage.output_tokens = usage.output_tokens;
                }
                if delta.stop_reason.as_deref() == Some("max_tokens") {
                    self.pending
                        .push_back(Ok(Delta::Stop(StopReason::MaxTokens)));
                }
            }
            Event::MessageStop => {
                if !self.thinking.is_empty() {
                    let thinking = std::mem::take(&mut self.thinking);
                    self.pending
                        .push_back(Ok(Delta::State(ResponseState::Anthropic { thinking })));
                }
                self.pending.push_back(Ok(Delta::Usage(self.usage)));
                self.ended = true;
            }
            Event::Ping => {}
            Event::Error { error } => {
                self.pending.push_back(Err(ProviderError::Status {
                    status: error.status(),
                    message: error.message,
                }));
                self.ended = true;
            }
        }
    }

    fn fail(&mut self, message: String) {
        self.pending.push_back(Err(ProviderError::Broken(message)));
        self.ended = true;
    }
}

impl<S, E> Stream for Events<S>
where
    S: Stream<Item = Result<SseEvent, EventStreamError<E>>> + Unpin,
    E: std::fmt::Display,
{
    type Item = Result<Delta, ProviderError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(next) = this.pending.pop_front() {
                return Poll::Ready(Some(next));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            match ready!(this.events.poll_next_unpin(cx)) {
                Some(Ok(event)) => match serde_json::from_str::<Event>(&event.data) {
                    Ok(event) => this.event(event),
                    Err(err) => this.fail(format!("an unreadable event: {err}")),
                },
                Some(Err(err)) => this.fail(format!("the stream broke: {err}")),
                None => this.fail("the stream ended without message_stop".into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str) -> Result<SseEvent, EventStreamError<std::io::Error>> {
        Ok(SseEvent {
            data: data.into(),
            ..SseEvent::default()
        })
    }

    async fn collect(events: &[&str]) -> Vec<Result<Delta, ProviderError>> {
        let events: Vec<_> = events.iter().map(|e| event(e)).collect();
        Events::new(futures::stream::iter(events)).collect().await
    }

    #[tokio::test]
    async fn thinking_text_and_a_call_become_deltas_and_the_state_comes_before_the_usage() {
        let deltas = collect(&[
            r#"{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":90,"cache_creation_input_tokens":10,"output_tokens":1}}}"#,
            r#"{"type":"ping"}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"xyz"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"Hm, "}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"time."}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"c2ln"}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Let me see."}}"#,
            r#"{"type":"content_block_stop","index":2}"#,
            r#"{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_1","name":"getCurrentTime","input":{}}}"#,
            r#"{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"time_zone\""}}"#,
            r#"{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":": \"UTC\"}"}}"#,
            r#"{"type":"content_block_stop","index":3}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":12}}"#,
            r#"{"type":"message_stop"}"#,
        ])
        .await;
        let deltas: Vec<Delta> = deltas.into_iter().map(Result::unwrap).collect();
        assert_eq!(deltas[0], Delta::Reasoning("Hm, ".into()));
        assert_eq!(deltas[2], Delta::Text("Let me see.".into()));
        let arguments: String = deltas
            .iter()
            .filter_map(|d| match d {
                Delta::ToolCall {
                    index: 0,
                    arguments,
                    ..
                } => Some(arguments.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(arguments, r#"{"time_zone": "UTC"}"#);
        let n = deltas.len();
        assert_eq!(
            deltas[n - 2],
            Delta::State(ResponseState::Anthropic {
                thinking: vec![
                    ThinkingBlock::RedactedThinking { data: "xyz".into() },
                    ThinkingBlock::Thinking {
                        thinking: "Hm, time.".into(),
                        signature: "c2ln".into()
                    },
                ]
            })
        );
        assert_eq!(
            deltas[n - 1],
            Delta::Usage(Usage {
                input_tokens: 105,
                cached_input_tokens: 90,
                cache_write_tokens: 10,
                output_tokens: 12,
                reasoning_tokens: 0,
            })
        );
    }

    #[tokio::test]
    async fn an_error_event_an_unreadable_event_and_a_cut_end_the_stream() {
        let start = r#"{"type":"message_start","message":{"usage":{"input_tokens":5}}}"#;
        let text =
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}"#;
        let overloaded = collect(&[
            start,
            text,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            text,
        ])
        .await;
        assert!(matches!(
            overloaded.last(),
            Some(Err(ProviderError::Status { status: 529, .. }))
        ));
        assert_eq!(
            overloaded.len(),
            2,
            "nothing after the error: {overloaded:?}"
        );
        let unreadable = collect(&[start, r#"{"type":"content_block_delta","ind"#]).await;
        assert!(
            matches!(unreadable.last(), Some(Err(ProviderError::Broken(m))) if m.contains("unreadable"))
        );
        let cut = collect(&[start, text]).await;
        assert!(
            matches!(cut.last(), Some(Err(ProviderError::Broken(m))) if m.contains("message_stop"))
        );
    }
}
