//! The reply's wire forms on `/v1/messages`: the SSE stream (`event:` lines) as a
//! [`Plan`], and the non-streamed `Message` object. Block shapes follow the Anthropic SDK's
//! types (`RawMessageStartEvent`, `RawContentBlockDeltaEvent`, `ThinkingDelta`,
//! `SignatureDelta`, `InputJSONDelta`, `MessageDeltaUsage`…).
//!
//! Output tokens, counted as on the chat endpoint: each thinking word, each text word, and
//! per tool call one for its start (the name) and one per 8-character piece of its input.
//! The signature and a `redacted_thinking` block count none.

use std::time::Duration;

use serde_json::{Value, json};

use super::cache::PromptUsage;
use crate::directive::Directive;
use crate::reply::Reply;
use crate::sign;
use crate::wire::{ARGUMENT_PIECE, End, Pace, Plan, PlanBuilder};

/// One message's constant fields and its reply.
pub(crate) struct Message<'a> {
    pub seq: u64,
    pub model: &'a str,
    pub usage: PromptUsage,
    pub reply: &'a Reply,
    /// Extended thinking is on: the reply opens with a thinking block.
    pub thinking: bool,
    /// `redacted_thinking=1`: a `redacted_thinking` block before it.
    pub redacted: bool,
    /// `end_turn`, `tool_use`, `max_tokens` or `stop_sequence`.
    pub stop_reason: &'static str,
    /// The stop sequence the reply stopped at (with `stop_sequence`).
    pub stop_sequence: Option<&'a str>,
}

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// The pieces a tool call's arguments stream in.
fn pieces(arguments: &str) -> Vec<String> {
    let chars: Vec<char> = arguments.chars().collect();
    chars
        .chunks(ARGUMENT_PIECE)
        .map(|p| p.iter().collect())
        .collect()
}

/// A tool call's `input` in a `Message`: its arguments parsed; `{}` when empty; the text as
/// a JSON string when it is not JSON (`tool_call_raw`).
fn input(arguments: &str) -> Value {
    if arguments.is_empty() {
        return json!({});
    }
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::from(arguments))
}

impl Message<'_> {
    fn id(&self) -> String {
        format!("msg_mock_{}", self.seq)
    }

    /// The id of the reply's `index`-th tool call: `toolu_mock_<k>`.
    fn tool_id(&self, index: usize) -> String {
        format!("toolu_mock_{}", self.reply.first_call_id + index)
    }

    fn thinking_text(&self) -> String {
        self.reply.reasoning.concat()
    }

    /// The `data` of the `redacted_thinking` block, `""` when there is none.
    fn redacted_data(&self) -> String {
        if self.redacted {
            sign::redacted_data(&self.thinking_text())
        } else {
            String::new()
        }
    }

    fn output_tokens(&self) -> usize {
        let calls: usize = self
            .reply
            .tool_calls
            .iter()
            .map(|c| 1 + pieces(&c.arguments).len())
            .sum();
        self.reply.reasoning.len() + self.reply.content.len() + calls
    }

    fn usage(&self, output_tokens: usize) -> Value {
        json!({
            "input_tokens": self.usage.input(),
            "cache_creation_input_tokens": self.usage.creation,
            "cache_read_input_tokens": self.usage.read,
            "output_tokens": output_tokens,
        })
    }

    /// The stream's events in order, each with the output tokens it carries (0 or 1).
    fn events(&self) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        let start = json!({ "type": "message_start", "message": {
            "id": self.id(), "type": "message", "role": "assistant", "content": [],
            "model": self.model, "stop_reason": null, "stop_sequence": null,
            "usage": self.usage(0),
        } });
        out.push((event("message_start", &start), 0));
        out.push((event("ping", &json!({ "type": "ping" })), 0));
        let mut index = 0;
        let mut block = |out: &mut Vec<(String, usize)>,
                         first: Value,
                         deltas: Vec<(Value, usize)>| {
            let start =
                json!({ "type": "content_block_start", "index": index, "content_block": first });
            out.push((event("content_block_start", &start), 0));
            for (delta, tokens) in deltas {
                let delta =
                    json!({ "type": "content_block_delta", "index": index, "delta": delta });
                out.push((event("content_block_delta", &delta), tokens));
            }
            let stop = json!({ "type": "content_block_stop", "index": index });
            out.push((event("content_block_stop", &stop), 0));
            index += 1;
        };
        if self.thinking {
            let text = self.thinking_text();
            let redacted = self.redacted_data();
            if !redacted.is_empty() {
                let first = json!({ "type": "redacted_thinking", "data": redacted });
                block(&mut out, first, Vec::new());
            }
            let mut deltas: Vec<(Value, usize)> = self
                .reply
                .reasoning
                .iter()
                .map(|t| (json!({ "type": "thinking_delta", "thinking": t }), 1))
                .collect();
            let signature = sign::thinking_signature(&redacted, &text);
            deltas.push((
                json!({ "type": "signature_delta", "signature": signature }),
                0,
            ));
            block(
                &mut out,
                json!({ "type": "thinking", "thinking": "", "signature": "" }),
                deltas,
            );
        }
        if !self.reply.content.is_empty() {
            let deltas = self
                .reply
                .content
                .iter()
                .map(|t| (json!({ "type": "text_delta", "text": t }), 1))
                .collect();
            block(&mut out, json!({ "type": "text", "text": "" }), deltas);
        }
        for (i, call) in self.reply.tool_calls.iter().enumerate() {
            let first = json!({ "type": "tool_use", "id": self.tool_id(i), "name": call.name, "input": {} });
            let deltas = pieces(&call.arguments)
                .into_iter()
                .map(|p| (json!({ "type": "input_json_delta", "partial_json": p }), 1))
                .collect();
            // The start carries the name: one token, as the first chunk of a chat call.
            let at = out.len();
            block(&mut out, first, deltas);
            out[at].1 = 1;
        }
        out
    }

    /// The stream of the reply, with the faults of `directive` applied. A fault at K comes
    /// before the (K+1)-th token-carrying event (after the events without tokens before it);
    /// a K at or beyond the reply's tokens comes before `message_delta`.
    pub(crate) fn stream_plan(&self, directive: &Directive, pace: &Pace) -> Plan {
        let events = self.events();
        let n: usize = events.iter().map(|e| e.1).sum();
        let at = |k: Option<usize>| k.map(|k| k.min(n));
        let (stall, cut, malformed, error) = (
            at(directive.stall_after),
            at(directive.cut_after),
            at(directive.malformed_after),
            at(directive.error_after),
        );
        let mut plan = PlanBuilder::default();
        let mut sent = 0;
        // Applies the faults due after `sent` tokens; `Some` ends the plan there.
        let faults = |plan: &mut PlanBuilder, sent: usize| -> Option<End> {
            if malformed == Some(sent) {
                let bad = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\
                           \"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"malformed\n\n";
                plan.push(Duration::ZERO, bad.to_owned(), 0);
            }
            if stall == Some(sent) {
                return Some(End::Stall);
            }
            if cut == Some(sent) {
                return Some(End::Cut);
            }
            if error == Some(sent) {
                let overloaded = json!({ "type": "error",
                    "error": { "type": "overloaded_error", "message": "Overloaded" } });
                plan.push(Duration::ZERO, event("error", &overloaded), 0);
                return Some(End::Done);
            }
            None
        };
        for (i, (text, tokens)) in events.into_iter().enumerate() {
            if tokens > 0
                && let Some(end) = faults(&mut plan, sent)
            {
                return plan.finish(end);
            }
            let delay = match (i, tokens, sent) {
                (0, ..) => pace.first_token,
                (_, 1, 1..) => pace.token,
                _ => Duration::ZERO,
            };
            plan.push(delay, text, tokens);
            sent += tokens;
        }
        if let Some(end) = faults(&mut plan, n) {
            return plan.finish(end);
        }
        let delta = json!({ "type": "message_delta",
            "delta": { "stop_reason": self.stop_reason, "stop_sequence": self.stop_sequence },
            "usage": { "output_tokens": n } });
        let mut tail = event("message_delta", &delta);
        tail.push_str(&event("message_stop", &json!({ "type": "message_stop" })));
        plan.push(Duration::ZERO, tail, 0);
        plan.finish(End::Done)
    }

    /// The non-streamed `Message` object.
    pub(crate) fn json(&self) -> Value {
        let mut content = Vec::new();
        if self.thinking {
            let text = self.thinking_text();
            let redacted = self.redacted_data();
            if !redacted.is_empty() {
                content.push(json!({ "type": "redacted_thinking", "data": redacted }));
            }
            let signature = sign::thinking_signature(&redacted, &text);
            content.push(json!({ "type": "thinking", "thinking": text, "signature": signature }));
        }
        if !self.reply.content.is_empty() {
            content.push(json!({ "type": "text", "text": self.reply.content.concat() }));
        }
        for (i, call) in self.reply.tool_calls.iter().enumerate() {
            content.push(
                json!({ "type": "tool_use", "id": self.tool_id(i), "name": call.name,
                "input": input(&call.arguments) }),
            );
        }
        json!({
            "id": self.id(), "type": "message", "role": "assistant", "model": self.model,
            "content": content, "stop_reason": self.stop_reason, "stop_sequence": self.stop_sequence,
            "usage": self.usage(self.output_tokens()),
        })
    }
}
