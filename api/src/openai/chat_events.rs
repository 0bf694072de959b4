//! A prompt's events as a chat completion: the chunks of a streamed one, and (folded)
//! the finished one, so that the two always say the same.
//!
//! Text deltas become content deltas, without Parley's `[[tool:N]]` markers. A function
//! Parley ran for the model is shown as text — a line with its name, arguments and
//! result (`> getCurrentTime {"time_zone":"UTC"} → {…}`) — never as `tool_calls`, which
//! would tell the client to run it. A blocked message answers with the module's
//! response and `finish_reason: content_filter`. A failed or cancelled turn ends the
//! stream with an `error` data event (both SDKs raise it as `APIError`).
//!
//! A call of one of the caller's own functions (`tools`) is a `tool_calls` entry: once
//! every call of the model's response has either been run by Parley or waits for the
//! caller, the completion ends with `finish_reason: tool_calls` while the turn waits. The
//! completion that continues it ([`Continuing`]) reads the same prompt's events from the
//! resumed attempt on, without the calls replayed there.

use std::collections::{BTreeSet, HashMap};

use parley_protocol::error::ErrorCode;
use parley_protocol::events::{EventKind, StopReason, StreamEvent, ToolCallState};
use poem_openapi::types::ToJSON;
use serde_json::{Value, json};

use super::stream::{Translate, data};
use super::types::{
    ChatCompletion, ChatCompletionChoice, ChatCompletionChunk, ChatCompletionChunkChoice,
    ChatCompletionDelta, ChatCompletionMessage, ChatCompletionUsage, ChatFunctionCall,
    ChatFunctionCallDelta, ChatToolCall, ChatToolCallDelta,
};

/// The longest a function's result is shown in the text, in characters.
const RESULT_SHOWN: usize = 500;

/// Removes Parley's `[[tool:N]]` markers from a text delta.
pub fn strip_markers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("[[tool:") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "[[tool:".len()..];
        match after.find("]]") {
            Some(end) if end > 0 && after[..end].bytes().all(|b| b.is_ascii_digit()) => {
                rest = &after[end + 2..];
            }
            _ => {
                out.push_str("[[tool:");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// How a finished turn ended, for the finished completion.
#[derive(Debug, Clone)]
pub enum ChatEnd {
    Completed {
        finish_reason: &'static str,
        usage: ChatCompletionUsage,
    },
    /// The turn failed or was cancelled: the Parley code (its status is the answer's)
    /// and message.
    Failed { code: ErrorCode, message: String },
}

/// Where a completion that continues a waiting turn starts reading: after the turn's
/// `attempt` (the resumed one starts with a `retry` above it), and only calls numbered
/// from `calls` on (the ones before are replayed, already shown).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Continuing {
    pub attempt: u32,
    pub calls: u32,
}

/// The `id` a call of the caller's function has in `tool_calls`.
pub fn tool_call_id(call: uuid::Uuid) -> String {
    format!("call_{}", call.simple())
}

/// Turns a prompt's events into chunks.
pub struct ChatTranslator {
    id: String,
    created: i64,
    model: String,
    include_usage: bool,
    started: bool,
    /// The content so far (what the finished completion says).
    content: String,
    /// Each function call's name and arguments, by its index.
    calls: HashMap<u32, (String, Value)>,
    /// The calls of the model's response that have not run nor started to wait.
    open: BTreeSet<u32>,
    /// The calls of the caller's functions, in order.
    tool_calls: Vec<ChatToolCall>,
    /// Set while the events of the attempts before a continued one are passed over.
    continuing: Option<Continuing>,
    first_call: u32,
    end: Option<ChatEnd>,
}

impl ChatTranslator {
    pub fn new(id: String, created: i64, model: String, include_usage: bool) -> Self {
        Self {
            id,
            created,
            model,
            include_usage,
            started: false,
            content: String::new(),
            calls: HashMap::new(),
            open: BTreeSet::new(),
            tool_calls: Vec::new(),
            continuing: None,
            first_call: 0,
            end: None,
        }
    }

    /// A translator for the completion that continues a waiting turn (see [`Continuing`]).
    pub fn continuing(mut self, from: Continuing) -> Self {
        self.first_call = from.calls;
        self.continuing = Some(from);
        self
    }

    /// Whether the completion has ended (the turn's end, or its calls of the caller's
    /// functions).
    pub fn finished(&self) -> bool {
        self.end.is_some()
    }

    /// A call of the caller's function: one `tool_calls` entry; the completion ends once
    /// no call of the response is open.
    fn client_call(
        &mut self,
        index: u32,
        name: &str,
        call_id: uuid::Uuid,
        input: &Value,
        out: &mut Vec<ChatCompletionChunk>,
    ) {
        self.open.remove(&index);
        let call = ChatToolCall {
            id: tool_call_id(call_id),
            kind: "function".into(),
            function: ChatFunctionCall {
                name: name.to_owned(),
                arguments: input.to_string(),
            },
        };
        let delta = ChatToolCallDelta {
            index: self.tool_calls.len() as u32,
            id: Some(call.id.clone()),
            kind: Some(call.kind.clone()),
            function: Some(ChatFunctionCallDelta {
                name: Some(call.function.name.clone()),
                arguments: Some(call.function.arguments.clone()),
            }),
        };
        self.tool_calls.push(call);
        out.push(self.chunk(
            ChatCompletionDelta {
                tool_calls: Some(vec![delta]),
                ..ChatCompletionDelta::default()
            },
            None,
        ));
    }

    /// Ends the completion with its `tool_calls` once every call of the response has run
    /// or waits. The turn's usage is told by the completion that ends it.
    fn end_with_calls(&mut self, out: &mut Vec<ChatCompletionChunk>) {
        if self.tool_calls.is_empty() || !self.open.is_empty() || self.end.is_some() {
            return;
        }
        out.push(self.chunk(ChatCompletionDelta::default(), Some("tool_calls")));
        let usage = ChatCompletionUsage::from(parley_protocol::events::Usage::default());
        if self.include_usage {
            out.push(ChatCompletionChunk {
                choices: vec![],
                usage: Some(usage.clone()),
                ..self.chunk(ChatCompletionDelta::default(), None)
            });
        }
        self.end = Some(ChatEnd::Completed {
            finish_reason: "tool_calls",
            usage,
        });
    }

    fn chunk(&self, delta: ChatCompletionDelta, finish: Option<&str>) -> ChatCompletionChunk {
        ChatCompletionChunk {
            id: self.id.clone(),
            object: "chat.completion.chunk".into(),
            created: self.created,
            model: self.model.clone(),
            choices: vec![ChatCompletionChunkChoice {
                index: 0,
                delta,
                finish_reason: finish.map(str::to_owned),
            }],
            usage: None,
        }
    }

    fn content_chunk(&mut self, text: String, out: &mut Vec<ChatCompletionChunk>) {
        if text.is_empty() {
            return;
        }
        self.content.push_str(&text);
        out.push(self.chunk(
            ChatCompletionDelta {
                content: Some(text),
                ..ChatCompletionDelta::default()
            },
            None,
        ));
    }

    /// The chunks `event` turns into (the `data:` JSON of each), and the error body when
    /// the turn failed.
    pub fn chunks(&mut self, event: &StreamEvent) -> (Vec<ChatCompletionChunk>, Option<Value>) {
        let mut out = Vec::new();
        if let Some(from) = self.continuing {
            // The attempts before the resumed one were told by earlier completions.
            match &event.kind {
                EventKind::Retry { attempt, .. } if *attempt > from.attempt => {
                    self.continuing = None;
                }
                EventKind::Complete { .. } | EventKind::Error { .. } | EventKind::Cancelled => {
                    self.continuing = None;
                }
                _ => return (out, None),
            }
        }
        if self.end.is_some() {
            return (out, None);
        }
        if !self.started {
            self.started = true;
            out.push(self.chunk(
                ChatCompletionDelta {
                    role: Some("assistant".into()),
                    content: Some(String::new()),
                    tool_calls: None,
                },
                None,
            ));
        }
        match &event.kind {
            EventKind::TextDelta { text, .. } => self.content_chunk(strip_markers(text), &mut out),
            EventKind::ToolStart { index, .. } | EventKind::ToolComplete { index, .. }
                if *index < self.first_call => {}
            EventKind::ToolStart {
                index, tool, input, ..
            } => {
                self.calls.insert(*index, (tool.clone(), input.clone()));
                self.open.insert(*index);
            }
            EventKind::ClientCallRequested {
                index,
                tool,
                call_id,
                input,
                ..
            } if *index >= self.first_call => {
                self.client_call(*index, tool, *call_id, input, &mut out);
                self.end_with_calls(&mut out);
            }
            EventKind::ApprovalRequested { index, .. } => {
                self.open.remove(index);
                self.end_with_calls(&mut out);
            }
            EventKind::ToolComplete {
                index,
                tool,
                state,
                output,
                ..
            } => {
                self.open.remove(index);
                let input = self
                    .calls
                    .get(index)
                    .map(|(_, input)| input.to_string())
                    .unwrap_or_default();
                let mut shown: String = output.to_string().chars().take(RESULT_SHOWN).collect();
                if shown.len() < output.to_string().len() {
                    shown.push('…');
                }
                let line = match state {
                    ToolCallState::Success => format!("\n\n> {tool} {input} → {shown}\n\n"),
                    _ => format!("\n\n> {tool} {input} failed: {shown}\n\n"),
                };
                self.content_chunk(line, &mut out);
                self.end_with_calls(&mut out);
            }
            EventKind::Complete {
                payload,
                usage,
                blocked,
                replaced,
                stop_reason,
                ..
            } => {
                if (*blocked || *replaced) && self.content.trim() != payload.message.trim() {
                    // The module's answer is what stands (text already streamed cannot
                    // be taken back; a blocked turn streamed none).
                    let separator = if self.content.is_empty() { "" } else { "\n\n" };
                    self.content_chunk(format!("{separator}{}", payload.message), &mut out);
                }
                let finish_reason = match (blocked, stop_reason) {
                    (true, _) => "content_filter",
                    (false, Some(StopReason::MaxTokens)) => "length",
                    (false, None) => "stop",
                };
                out.push(self.chunk(ChatCompletionDelta::default(), Some(finish_reason)));
                let usage = ChatCompletionUsage::from(*usage);
                if self.include_usage {
                    out.push(ChatCompletionChunk {
                        choices: vec![],
                        usage: Some(usage.clone()),
                        ..self.chunk(ChatCompletionDelta::default(), None)
                    });
                }
                self.end = Some(ChatEnd::Completed {
                    finish_reason,
                    usage,
                });
            }
            EventKind::Error { code, message, .. } => {
                self.end = Some(ChatEnd::Failed {
                    code: *code,
                    message: message.clone(),
                });
                return (out, Some(self.error_body()));
            }
            EventKind::Cancelled => {
                self.end = Some(ChatEnd::Failed {
                    code: ErrorCode::Cancelled,
                    message: "the turn was cancelled".into(),
                });
                return (out, Some(self.error_body()));
            }
            _ => {}
        }
        (out, None)
    }

    fn error_body(&self) -> Value {
        match &self.end {
            Some(ChatEnd::Failed { code, message }) => json!({
                "error": {
                    "message": message,
                    "type": if code.status() >= 500 { "server_error" } else { "invalid_request_error" },
                    "param": null,
                    "code": code,
                }
            }),
            _ => Value::Null,
        }
    }

    /// How the turn ended, once it did.
    pub fn end(&self) -> Option<&ChatEnd> {
        self.end.as_ref()
    }

    /// The finished completion (after a `complete` event).
    pub fn completion(&self) -> Option<ChatCompletion> {
        let Some(ChatEnd::Completed {
            finish_reason,
            usage,
        }) = &self.end
        else {
            return None;
        };
        Some(ChatCompletion {
            id: self.id.clone(),
            object: "chat.completion".into(),
            created: self.created,
            model: self.model.clone(),
            choices: vec![ChatCompletionChoice {
                index: 0,
                message: ChatCompletionMessage {
                    role: "assistant".into(),
                    content: (!self.content.is_empty() || self.tool_calls.is_empty())
                        .then(|| self.content.clone()),
                    refusal: None,
                    tool_calls: (!self.tool_calls.is_empty()).then(|| self.tool_calls.clone()),
                },
                logprobs: None,
                finish_reason: (*finish_reason).to_owned(),
            }],
            usage: usage.clone(),
        })
    }
}

impl Translate for ChatTranslator {
    fn finished(&self) -> bool {
        ChatTranslator::finished(self)
    }

    fn translate(&mut self, event: &StreamEvent) -> Vec<String> {
        let (chunks, error) = self.chunks(event);
        let mut sse: Vec<String> = chunks
            .iter()
            .map(|chunk| data(&chunk.to_json().unwrap_or_default()))
            .collect();
        match (&self.end, error) {
            (_, Some(error)) => sse.push(data(&error)),
            (Some(ChatEnd::Completed { .. }), None) if !sse.is_empty() => {
                sse.push("data: [DONE]\n\n".to_owned());
            }
            _ => {}
        }
        sse
    }
}

#[cfg(test)]
mod tests;
