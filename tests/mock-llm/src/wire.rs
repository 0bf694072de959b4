//! The reply's wire forms: the stream as a [`Plan`], and the non-streaming
//! `chat.completion` body.
//!
//! A stream is laid out up front: segments of pre-serialized SSE bytes, each with the delay
//! before it, and how the stream ends. Chunks with no delay between them are merged into one
//! segment, so at 0 ms delays a whole 50-token reply is one write and no timer is involved.

use std::time::Duration;

use bytes::Bytes;
use serde_json::{Value, json};

use crate::dialect::Dialect;
use crate::directive::Directive;
use crate::reply::Reply;

/// Tool-call arguments are streamed in pieces of this many characters.
pub(crate) const ARGUMENT_PIECE: usize = 8;

impl Reply {
    /// The `delta` objects of the output chunks, in order: reasoning, content, tool calls.
    /// Each is one "token" for `completion_tokens` and for the `*_after=K` options.
    fn deltas(&self) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.reasoning {
            out.push(format!(r#"{{"reasoning_content":{}}}"#, json_str(t)));
        }
        for t in &self.content {
            out.push(format!(r#"{{"content":{}}}"#, json_str(t)));
        }
        for (index, call) in self.tool_calls.iter().enumerate() {
            // `split_name`: the first half of the name, then the second half.
            let (name, rest) = if self.split_name {
                let half = call.name.chars().count().div_ceil(2);
                let at = call
                    .name
                    .char_indices()
                    .nth(half)
                    .map_or(call.name.len(), |(i, _)| i);
                call.name.split_at(at)
            } else {
                (call.name.as_str(), "")
            };
            // Gemini: the first call's first chunk carries its thought signature.
            let extra = match &self.thought_signature {
                Some(sig) if index == 0 => format!(
                    r#","extra_content":{{"google":{{"thought_signature":{}}}}}"#,
                    json_str(sig)
                ),
                _ => String::new(),
            };
            out.push(format!(
                r#"{{"tool_calls":[{{"index":{index},"id":"{}","type":"function","function":{{"name":{},"arguments":""}}{extra}}}]}}"#,
                self.call_id(index),
                json_str(name)
            ));
            if self.split_name {
                out.push(format!(
                    r#"{{"tool_calls":[{{"index":{index},"function":{{"name":{}}}}}]}}"#,
                    json_str(rest)
                ));
            }
            let chars: Vec<char> = call.arguments.chars().collect();
            for piece in chars.chunks(ARGUMENT_PIECE) {
                let piece: String = piece.iter().collect();
                out.push(format!(
                    r#"{{"tool_calls":[{{"index":{index},"function":{{"arguments":{}}}}}]}}"#,
                    json_str(&piece)
                ));
            }
        }
        out
    }

    /// The id of the `index`-th tool call of this reply.
    pub(crate) fn call_id(&self, index: usize) -> String {
        format!("call_mock_{}", self.first_call_id + index)
    }

    fn finish_reason(&self) -> &'static str {
        if self.cut {
            "length"
        } else if self.tool_calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
    }
}

pub(crate) fn json_str(s: &str) -> String {
    Value::from(s).to_string()
}

/// Pre-serialized bytes, with the delay before them and the output tokens they carry.
pub(crate) struct Segment {
    pub delay: Duration,
    pub bytes: Bytes,
    pub tokens: usize,
}

/// How a planned stream ends after its segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// Cleanly, the last segment having carried `data: [DONE]`.
    Done,
    /// Never: the connection stays open, silent, until the client goes away.
    Stall,
    /// By dropping the connection.
    Cut,
}

pub(crate) struct Plan {
    pub segments: Vec<Segment>,
    pub end: End,
}

/// Delays of one stream.
pub(crate) struct Pace {
    pub first_token: Duration,
    pub token: Duration,
}

/// One completion's constant fields, for building its chunks.
pub(crate) struct Completion<'a> {
    pub seq: u64,
    pub model: &'a str,
    pub created: u64,
    pub prompt_tokens: u64,
    /// `prompt_tokens_details.cached_tokens`.
    pub cached_tokens: u64,
    pub dialect: Dialect,
}

impl Completion<'_> {
    fn id(&self) -> String {
        format!("chatcmpl-mock-{}", self.seq)
    }

    /// The `usage` object, with the dialect's additions.
    fn usage(&self, reply: &Reply, completion_tokens: u64) -> Value {
        let mut usage = json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": self.prompt_tokens + completion_tokens,
            "prompt_tokens_details": { "cached_tokens": self.cached_tokens },
            "completion_tokens_details": { "reasoning_tokens": reply.reasoning.len() },
        });
        self.dialect
            .extend_usage(&mut usage, self.prompt_tokens, self.cached_tokens);
        usage
    }

    /// The stream of `reply`, with the faults of `directive` applied.
    pub(crate) fn stream_plan(
        &self,
        reply: &Reply,
        directive: &Directive,
        include_usage: bool,
        pace: &Pace,
    ) -> Plan {
        let head = format!(
            r#"{{"id":"{}","object":"chat.completion.chunk","created":{},"model":{}"#,
            self.id(),
            self.created,
            json_str(self.model)
        );
        let chunk_prefix = format!(r#"data: {head},"choices":[{{"index":0,"delta":"#);
        let chunk = |delta: &str, finish: &str| {
            format!("{chunk_prefix}{delta},\"finish_reason\":{finish}}}]}}\n\n")
        };
        let deltas = reply.deltas();
        let n = deltas.len();
        let at = |k: Option<usize>| k.map(|k| k.min(n));
        let (stall, cut, malformed) = (
            at(directive.stall_after),
            at(directive.cut_after),
            at(directive.malformed_after),
        );

        let mut plan = PlanBuilder::default();
        plan.push(
            pace.first_token,
            chunk(r#"{"role":"assistant","content":""}"#, "null"),
            0,
        );
        for i in 0..=n {
            if malformed == Some(i) {
                plan.push(
                    Duration::ZERO,
                    format!("{chunk_prefix}{{\"content\":\"malformed\n\n"),
                    0,
                );
            }
            if stall == Some(i) {
                return plan.finish(End::Stall);
            }
            if cut == Some(i) {
                return plan.finish(End::Cut);
            }
            if let Some(delta) = deltas.get(i) {
                let delay = if i == 0 { Duration::ZERO } else { pace.token };
                plan.push(delay, chunk(delta, "null"), 1);
            }
        }
        let mut tail = chunk("{}", &format!("\"{}\"", reply.finish_reason()));
        if include_usage && !directive.no_usage {
            let usage = self.usage(reply, n as u64);
            tail.push_str(&format!(
                "data: {head},\"choices\":[],\"usage\":{usage}}}\n\n"
            ));
        }
        tail.push_str("data: [DONE]\n\n");
        plan.push(Duration::ZERO, tail, 0);
        plan.finish(End::Done)
    }

    /// The non-streaming `chat.completion` body of `reply`.
    pub(crate) fn completion_json(&self, reply: &Reply) -> Value {
        let mut message = json!({ "role": "assistant", "content": null });
        if !reply.content.is_empty() || reply.tool_calls.is_empty() {
            message["content"] = reply.content.concat().into();
        }
        if !reply.reasoning.is_empty() {
            message["reasoning_content"] = reply.reasoning.concat().into();
        }
        if !reply.tool_calls.is_empty() {
            let calls: Vec<Value> = reply
                .tool_calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let mut call = json!({
                        "id": reply.call_id(i),
                        "type": "function",
                        "function": { "name": c.name, "arguments": c.arguments },
                    });
                    if let (0, Some(sig)) = (i, &reply.thought_signature) {
                        call["extra_content"] = json!({ "google": { "thought_signature": sig } });
                    }
                    call
                })
                .collect();
            message["tool_calls"] = calls.into();
        }
        json!({
            "id": self.id(),
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [{
                "index": 0,
                "message": message,
                "finish_reason": reply.finish_reason(),
                "logprobs": null,
            }],
            "usage": self.usage(reply, reply.deltas().len() as u64),
        })
    }
}

/// Collects segments, appending to the previous one when there is no delay in between.
#[derive(Default)]
pub(crate) struct PlanBuilder {
    segments: Vec<(Duration, String, usize)>,
}

impl PlanBuilder {
    pub(crate) fn push(&mut self, delay: Duration, text: String, tokens: usize) {
        match self.segments.last_mut() {
            Some(last) if delay.is_zero() => {
                last.1.push_str(&text);
                last.2 += tokens;
            }
            _ => self.segments.push((delay, text, tokens)),
        }
    }

    pub(crate) fn finish(self, end: End) -> Plan {
        Plan {
            segments: self
                .segments
                .into_iter()
                .map(|(delay, text, tokens)| Segment {
                    delay,
                    bytes: Bytes::from(text),
                    tokens,
                })
                .collect(),
            end,
        }
    }
}
