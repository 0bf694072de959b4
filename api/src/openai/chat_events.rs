//! A prompt's events as a chat completion: the chunks of a streamed one, and (folded)
//! the finished one, so that the two always say the same.
//!
//! Text deltas become content deltas, without Parley's `[[tool:N]]` markers. A function
//! Parley ran for the model is shown as text — a line with its name, arguments and
//! result (`> getCurrentTime {"time_zone":"UTC"} → {…}`) — never as `tool_calls`, which
//! would tell the client to run it. A blocked message answers with the module's
//! response and `finish_reason: content_filter`. A failed or cancelled turn ends the
//! stream with an `error` data event (both SDKs raise it as `APIError`).

use std::collections::HashMap;

use parley_protocol::error::ErrorCode;
use parley_protocol::events::{EventKind, StopReason, StreamEvent, ToolCallState};
use poem_openapi::types::ToJSON;
use serde_json::{Value, json};

use super::stream::{Translate, data};
use super::types::{
    ChatCompletion, ChatCompletionChoice, ChatCompletionChunk, ChatCompletionChunkChoice,
    ChatCompletionDelta, ChatCompletionMessage, ChatCompletionUsage,
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
            end: None,
        }
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
                role: None,
                content: Some(text),
            },
            None,
        ));
    }

    /// The chunks `event` turns into (the `data:` JSON of each), and the error body when
    /// the turn failed.
    pub fn chunks(&mut self, event: &StreamEvent) -> (Vec<ChatCompletionChunk>, Option<Value>) {
        let mut out = Vec::new();
        if !self.started {
            self.started = true;
            out.push(self.chunk(
                ChatCompletionDelta {
                    role: Some("assistant".into()),
                    content: Some(String::new()),
                },
                None,
            ));
        }
        match &event.kind {
            EventKind::TextDelta { text, .. } => self.content_chunk(strip_markers(text), &mut out),
            EventKind::ToolStart {
                index, tool, input, ..
            } => {
                self.calls.insert(*index, (tool.clone(), input.clone()));
            }
            EventKind::ToolComplete {
                index,
                tool,
                state,
                output,
                ..
            } => {
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
                    content: Some(self.content.clone()),
                    refusal: None,
                },
                logprobs: None,
                finish_reason: (*finish_reason).to_owned(),
            }],
            usage: usage.clone(),
        })
    }
}

impl Translate for ChatTranslator {
    fn translate(&mut self, event: &StreamEvent) -> Vec<String> {
        let (chunks, error) = self.chunks(event);
        let mut sse: Vec<String> = chunks
            .iter()
            .map(|chunk| data(&chunk.to_json().unwrap_or_default()))
            .collect();
        match (&self.end, error) {
            (_, Some(error)) => sse.push(data(&error)),
            (Some(ChatEnd::Completed { .. }), None) if event.kind.is_terminal() => {
                sse.push("data: [DONE]\n\n".to_owned());
            }
            _ => {}
        }
        sse
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;
    use crate::openai::fixtures::complete;

    fn event(seq: u64, kind: EventKind) -> StreamEvent {
        StreamEvent {
            seq,
            prompt_id: Uuid::nil(),
            kind,
        }
    }

    #[test]
    fn markers_go_and_other_brackets_stay() {
        assert_eq!(strip_markers("a [[tool:0]]b[[tool:12]]"), "a b");
        assert_eq!(
            strip_markers("[[tool:x]] [[tool:]] [[tool:3"),
            "[[tool:x]] [[tool:]] [[tool:3"
        );
    }

    #[test]
    fn a_turn_with_a_function_call_reads_as_text_and_ends_once() {
        let mut t = ChatTranslator::new("chatcmpl-x".into(), 1, "m".into(), true);
        let events = [
            EventKind::BlockStart {
                index: 0,
                block_type: parley_protocol::events::BlockType::Text,
            },
            EventKind::TextDelta {
                index: 0,
                text: "Let me check.[[tool:0]]".into(),
            },
            EventKind::ToolStart {
                index: 0,
                block_index: 1,
                tool: "getCurrentTime".into(),
                tool_use_id: "c1".into(),
                input: json!({"time_zone": "UTC"}),
            },
            EventKind::ToolComplete {
                index: 0,
                tool: "getCurrentTime".into(),
                tool_use_id: "c1".into(),
                state: ToolCallState::Success,
                output: json!({"iso": "2026-01-01T00:00:00Z"}),
                payload: None,
                duration_ms: 3,
            },
            EventKind::TextDelta {
                index: 2,
                text: "It is midnight.".into(),
            },
            complete("Let me check.[[tool:0]]It is midnight.", false),
        ];
        let mut sse = Vec::new();
        for (i, kind) in events.into_iter().enumerate() {
            sse.extend(t.translate(&event(i as u64 + 1, kind)));
        }
        let text = sse.concat();
        assert!(text.starts_with("data: {"), "{text}");
        assert!(text.contains("\"role\":\"assistant\""));
        assert!(!text.contains("[[tool:"), "{text}");
        assert!(!text.contains("id:"), "no SSE ids");
        assert_eq!(text.matches("\"finish_reason\":\"stop\"").count(), 1);
        assert!(text.ends_with("data: [DONE]\n\n"));
        let completion = t.completion().expect("finished");
        let content = completion.choices[0]
            .message
            .content
            .clone()
            .unwrap_or_default();
        assert!(
            content.starts_with(
                "Let me check.\n\n> getCurrentTime {\"time_zone\":\"UTC\"} → {\"iso\""
            ),
            "{content}"
        );
        assert!(content.ends_with("It is midnight."), "{content}");
        assert_eq!(completion.usage.total_tokens, 7);
    }

    #[test]
    fn a_blocked_message_answers_with_the_modules_response() {
        let mut t = ChatTranslator::new("chatcmpl-x".into(), 1, "m".into(), false);
        let text = t
            .translate(&event(1, complete("I can't help with that.", true)))
            .concat();
        assert!(
            text.contains("\"finish_reason\":\"content_filter\""),
            "{text}"
        );
        let completion = t.completion().expect("finished");
        assert_eq!(
            completion.choices[0].message.content.as_deref(),
            Some("I can't help with that.")
        );
    }
}
