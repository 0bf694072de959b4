//! A prompt's events as a response of the Responses API: the stream of its events
//! (numbered from 0 with `sequence_number`) and the response object they build.
//!
//! The translation is a pure function of the prompt's event log, read from its start:
//! a live stream, a `starting_after=N` resume and a full replay (what the SDKs' stream
//! helpers send) number every event the same, and items keep their ids
//! (`msg_<segment>_<n>`, `mcp_<segment>_<n>`, `fc_<segment>_<n>`, by output position;
//! [`super::segment`]). A text block is a `message` item; a function Parley ran for the
//! model is an `mcp_call` item (server `parley`) with its arguments and its output or
//! error; a call of one of the caller's functions is a `function_call` item, and once
//! every call of the model's response has run or waits the response ends `completed`
//! while the turn waits for the results ([`calls`]); thinking is not shown. A
//! module's block ends the response `incomplete` (`content_filter`), a failure
//! `failed`, a cancel `response.incomplete` with status `cancelled` (the Responses API
//! has no event of its own for it). A retried attempt's items are closed `incomplete`
//! and the new attempt's items follow them: what was streamed is never taken back.
//!
//! The numbering holds while the prompt's event log is kept (`worker.event_retention_s`,
//! a day by default); after that the response is replayed from the database, whole
//! blocks at a time, and numbered anew.

use std::collections::{BTreeSet, HashMap, HashSet};

use parley_protocol::error::ErrorCode;
use parley_protocol::events::{BlockType, EventKind, StopReason, StreamEvent};
use parley_protocol::sampling::Sampling;
use poem_openapi::types::ToJSON;
use serde_json::{Value, json};

use super::chat_events::{Continuing, strip_markers};
use super::stream::{Translate, named};
use super::types::{
    OpenAiResponse, ResponseError, ResponseIncompleteDetails, ResponseInputTokensDetails,
    ResponseOutputItem, ResponseOutputMessage, ResponseOutputText, ResponseOutputTokensDetails,
    ResponseText, ResponseUsage,
};

mod calls;

/// What a response says about itself besides its output.
#[derive(Debug, Clone)]
pub struct ResponseMeta {
    /// The response's segment of the prompt: its id as 32 hex digits, and for a
    /// continuation where it starts (`<hex>_<attempt>_<calls>`, [`super::segment`]).
    pub hex: String,
    pub created_at: i64,
    /// The `model` the request named.
    pub model: String,
    pub background: bool,
    pub previous_response_id: Option<String>,
    pub instructions: Option<String>,
    /// The sampling the turn's calls used (the request's within the tool's bounds).
    pub sampling: Sampling,
    /// The structured-output format the turn asked for.
    pub format: Option<parley_protocol::output::ResponseFormat>,
    /// The caller's functions the turn offers the model.
    pub client_functions: Vec<parley_protocol::client_functions::ClientFunction>,
    /// How the model may call them, as the request asked.
    pub call_policy: parley_protocol::client_functions::CallPolicy,
}

/// Turns a prompt's events into the Responses API's events and response.
pub struct ResponsesTranslator {
    meta: ResponseMeta,
    next: u64,
    started: bool,
    items: Vec<ResponseOutputItem>,
    /// The open message item of each text block, by block index.
    texts: HashMap<u32, usize>,
    /// The `mcp_call` item of each function call Parley runs, by call index.
    calls: HashMap<u32, usize>,
    /// The names of the caller's functions (their calls are `function_call` items).
    client: HashSet<String>,
    /// The calls of the model's response that have neither run nor started to wait.
    open: BTreeSet<u32>,
    /// The `function_call` items so far.
    function_calls: usize,
    /// Set while the events a continued response's earlier segments showed are passed
    /// over; calls numbered below `first_call` were shown there.
    continuing: Option<Continuing>,
    first_call: u32,
    /// `completed`, `failed`, `cancelled` or `incomplete` once the turn ended.
    ended: Option<&'static str>,
    usage: Option<ResponseUsage>,
    error: Option<ResponseError>,
    incomplete: Option<ResponseIncompleteDetails>,
    completed_at: Option<i64>,
}

impl ResponsesTranslator {
    pub fn new(meta: ResponseMeta) -> Self {
        let client = meta
            .client_functions
            .iter()
            .map(|f| f.name.clone())
            .collect();
        Self {
            meta,
            next: 0,
            started: false,
            items: Vec::new(),
            texts: HashMap::new(),
            calls: HashMap::new(),
            client,
            open: BTreeSet::new(),
            function_calls: 0,
            continuing: None,
            first_call: 0,
            ended: None,
            usage: None,
            error: None,
            incomplete: None,
            completed_at: None,
        }
    }

    /// The translator of the response that continues the prompt's turn `from` where it
    /// resumed after its calls' results ([`super::segment`]).
    pub fn continuing(mut self, from: Continuing) -> Self {
        self.meta.hex = format!("{}_{}_{}", self.meta.hex, from.attempt, from.calls);
        self.first_call = from.calls;
        self.continuing = Some(from);
        self
    }

    /// The response as the events so far build it; `running` is the status of one not
    /// ended yet (`queued` or `in_progress`).
    pub fn response(&self, running: &str) -> OpenAiResponse {
        let sampling = &self.meta.sampling;
        OpenAiResponse {
            id: format!("resp_{}", self.meta.hex),
            object: "response".into(),
            created_at: self.meta.created_at,
            status: self.ended.unwrap_or(running).to_owned(),
            background: self.meta.background,
            completed_at: self.completed_at,
            error: self.error.clone(),
            incomplete_details: self.incomplete.clone(),
            instructions: self.meta.instructions.clone(),
            metadata: HashMap::new(),
            model: self.meta.model.clone(),
            output: self.items.clone(),
            parallel_tool_calls: !self.meta.call_policy.serial,
            previous_response_id: self.meta.previous_response_id.clone(),
            // The effective values: OpenAI's defaults where nothing was asked.
            temperature: sampling.temperature.unwrap_or(1.0),
            top_p: sampling.top_p.unwrap_or(1.0),
            presence_penalty: sampling.presence_penalty.unwrap_or(0.0),
            frequency_penalty: sampling.frequency_penalty.unwrap_or(0.0),
            top_logprobs: 0,
            reasoning: None,
            max_output_tokens: sampling.max_output_tokens.map(i64::from),
            max_tool_calls: None,
            service_tier: "default".into(),
            safety_identifier: None,
            prompt_cache_key: None,
            tool_choice: calls::choice_shown(&self.meta.call_policy.choice),
            tools: self
                .meta
                .client_functions
                .iter()
                .map(calls::shown)
                .collect(),
            text: ResponseText {
                format: super::output::shown(self.meta.format.as_ref()),
            },
            truncation: "disabled".into(),
            usage: self.usage.clone(),
            user: None,
            store: true,
        }
    }

    /// Whether the turn has ended.
    pub fn is_ended(&self) -> bool {
        self.ended.is_some()
    }

    fn emit(&mut self, mut event: Value, out: &mut Vec<Value>) {
        event["sequence_number"] = json!(self.next);
        self.next += 1;
        out.push(event);
    }

    fn item_json(&self, index: usize) -> Value {
        self.items[index].to_json().unwrap_or_default()
    }

    /// `response.output_item.done` for output item `item`, as it now is.
    fn item_done(&mut self, item: usize, out: &mut Vec<Value>) {
        let done = json!({
            "type": "response.output_item.done",
            "output_index": item,
            "item": self.item_json(item),
        });
        self.emit(done, out);
    }

    fn with_response(&self, kind: &str, running: &str) -> Value {
        json!({"type": kind, "response": self.response(running).to_json()})
    }

    /// The events `event` turns into, each a JSON object with its `sequence_number`.
    pub fn events(&mut self, event: &StreamEvent) -> Vec<Value> {
        let mut out = Vec::new();
        if let Some(from) = self.continuing {
            // The attempts before the resumed one were shown by the earlier responses.
            match &event.kind {
                EventKind::Retry { attempt, .. } if *attempt > from.attempt => {
                    self.continuing = None;
                }
                kind if kind.is_terminal() => self.continuing = None,
                _ => return out,
            }
        }
        if self.ended.is_some() {
            return out;
        }
        if !self.started {
            self.started = true;
            let first = if self.meta.background {
                "queued"
            } else {
                "in_progress"
            };
            let created = self.with_response("response.created", first);
            self.emit(created, &mut out);
            let in_progress = self.with_response("response.in_progress", "in_progress");
            self.emit(in_progress, &mut out);
        }
        match &event.kind {
            EventKind::BlockStart {
                index,
                block_type: BlockType::Text,
            } => {
                self.open_message(*index, &mut out);
            }
            EventKind::TextDelta { index, text } => {
                let text = strip_markers(text);
                if !text.is_empty() {
                    let item = self.open_message(*index, &mut out);
                    self.append_text(item, text, &mut out);
                }
            }
            EventKind::BlockStop { index } => {
                if let Some(item) = self.texts.remove(index) {
                    self.close_message(item, "completed", &mut out);
                }
            }
            EventKind::ToolStart { index, .. } | EventKind::ToolComplete { index, .. }
                if *index < self.first_call => {}
            EventKind::ToolStart {
                index, tool, input, ..
            } => self.start_call(*index, tool, input, &mut out),
            EventKind::ClientCallRequested {
                index,
                tool,
                call_id,
                input,
                ..
            } => self.function_call(*index, tool, *call_id, input, &mut out),
            EventKind::ApprovalRequested { index, .. } => {
                self.open.remove(index);
                self.end_with_calls(&mut out);
            }
            EventKind::ToolComplete {
                index,
                state,
                output,
                ..
            } => self.finish_call(*index, *state, output, &mut out),
            EventKind::Retry { .. } => self.close_all("incomplete", &mut out),
            EventKind::Complete {
                payload,
                usage,
                blocked,
                latency_ms,
                stop_reason,
                ..
            } => {
                self.close_all("completed", &mut out);
                let said_anything = self.items.iter().any(|item| {
                    matches!(item, ResponseOutputItem::Message(m) if m.content.iter().any(|p| !p.text.is_empty()))
                });
                if !said_anything && !payload.message.is_empty() {
                    // A blocked message (or an answer made of nothing but a module's
                    // direct response) is said in one message item.
                    let item = self.open_message(u32::MAX, &mut out);
                    self.append_text(item, strip_markers(&payload.message), &mut out);
                    self.texts.remove(&u32::MAX);
                    self.close_message(item, "completed", &mut out);
                }
                self.usage = Some(usage_of(usage));
                self.completed_at = Some(self.meta.created_at + (*latency_ms / 1000) as i64);
                let cut = match (blocked, stop_reason) {
                    (true, _) => Some("content_filter"),
                    (false, Some(StopReason::MaxTokens)) => Some("max_output_tokens"),
                    (false, None) => None,
                };
                let kind = if let Some(reason) = cut {
                    self.incomplete = Some(ResponseIncompleteDetails {
                        reason: reason.into(),
                    });
                    self.ended = Some("incomplete");
                    "response.incomplete"
                } else {
                    self.ended = Some("completed");
                    "response.completed"
                };
                let last = self.with_response(kind, "completed");
                self.emit(last, &mut out);
            }
            EventKind::Error { code, message, .. } => {
                self.close_all("incomplete", &mut out);
                let openai_code = match code {
                    ErrorCode::RateLimited => "rate_limit_exceeded",
                    _ => "server_error",
                };
                self.error = Some(ResponseError {
                    code: openai_code.into(),
                    message: format!("{}: {message}", code.as_str()),
                });
                self.ended = Some("failed");
                let last = self.with_response("response.failed", "failed");
                self.emit(last, &mut out);
            }
            EventKind::Cancelled => {
                self.close_all("incomplete", &mut out);
                self.ended = Some("cancelled");
                let last = self.with_response("response.incomplete", "cancelled");
                self.emit(last, &mut out);
            }
            _ => {}
        }
        out
    }

    fn item_id(&self, item: usize) -> String {
        match &self.items[item] {
            ResponseOutputItem::Message(m) => m.id.clone(),
            ResponseOutputItem::McpCall(c) => c.id.clone(),
            ResponseOutputItem::FunctionCall(c) => c.id.clone(),
        }
    }

    /// The message item of text block `block`, opened (announced) if it is not yet.
    fn open_message(&mut self, block: u32, out: &mut Vec<Value>) -> usize {
        if let Some(item) = self.texts.get(&block) {
            return *item;
        }
        let item = self.items.len();
        self.items
            .push(ResponseOutputItem::Message(ResponseOutputMessage {
                id: format!("msg_{}_{item}", self.meta.hex),
                kind: "message".into(),
                role: "assistant".into(),
                status: "in_progress".into(),
                content: vec![],
            }));
        self.texts.insert(block, item);
        let added = json!({
            "type": "response.output_item.added",
            "output_index": item,
            "item": self.item_json(item),
        });
        self.emit(added, out);
        if let ResponseOutputItem::Message(message) = &mut self.items[item] {
            message.content.push(empty_text());
        }
        let part = json!({
            "type": "response.content_part.added",
            "item_id": self.item_id(item),
            "output_index": item,
            "content_index": 0,
            "part": empty_text().to_json(),
        });
        self.emit(part, out);
        item
    }

    /// Adds `text` to message item `item` and says so (`output_text.delta`).
    fn append_text(&mut self, item: usize, text: String, out: &mut Vec<Value>) {
        if let ResponseOutputItem::Message(message) = &mut self.items[item]
            && let Some(part) = message.content.first_mut()
        {
            part.text.push_str(&text);
        }
        let delta = json!({
            "type": "response.output_text.delta",
            "item_id": self.item_id(item),
            "output_index": item,
            "content_index": 0,
            "delta": text,
            "logprobs": [],
        });
        self.emit(delta, out);
    }

    fn close_message(&mut self, item: usize, status: &str, out: &mut Vec<Value>) {
        let text = match &mut self.items[item] {
            ResponseOutputItem::Message(message) => {
                message.status = status.to_owned();
                message
                    .content
                    .first()
                    .map(|p| p.text.clone())
                    .unwrap_or_default()
            }
            ResponseOutputItem::McpCall(_) | ResponseOutputItem::FunctionCall(_) => return,
        };
        let id = self.item_id(item);
        self.emit(
            json!({
                "type": "response.output_text.done",
                "item_id": id,
                "output_index": item,
                "content_index": 0,
                "text": text,
                "logprobs": [],
            }),
            out,
        );
        let part = ResponseOutputText {
            text,
            ..empty_text()
        };
        self.emit(
            json!({
                "type": "response.content_part.done",
                "item_id": id,
                "output_index": item,
                "content_index": 0,
                "part": part.to_json(),
            }),
            out,
        );
        self.item_done(item, out);
    }

    /// Closes every open item with `status` (`completed` at the end, `incomplete` for
    /// an attempt dropped or a turn that failed).
    fn close_all(&mut self, status: &str, out: &mut Vec<Value>) {
        let mut texts: Vec<usize> = self.texts.drain().map(|(_, item)| item).collect();
        texts.sort_unstable();
        for item in texts {
            self.close_message(item, status, out);
        }
        let mut calls: Vec<usize> = self.calls.drain().map(|(_, item)| item).collect();
        calls.sort_unstable();
        for item in calls {
            if let ResponseOutputItem::McpCall(c) = &mut self.items[item] {
                c.status = "incomplete".into();
            }
            self.item_done(item, out);
        }
    }
}

fn usage_of(usage: &parley_protocol::events::Usage) -> ResponseUsage {
    ResponseUsage {
        input_tokens: usage.input_tokens,
        input_tokens_details: ResponseInputTokensDetails {
            cached_tokens: usage.cached_input_tokens,
            cache_write_tokens: 0,
        },
        output_tokens: usage.output_tokens,
        output_tokens_details: ResponseOutputTokensDetails {
            reasoning_tokens: usage.reasoning_tokens,
        },
        total_tokens: usage.input_tokens + usage.output_tokens,
    }
}

fn empty_text() -> ResponseOutputText {
    ResponseOutputText {
        kind: "output_text".into(),
        text: String::new(),
        annotations: vec![],
        logprobs: vec![],
    }
}

impl Translate for ResponsesTranslator {
    fn translate(&mut self, event: &StreamEvent) -> Vec<String> {
        self.events(event).iter().map(named).collect()
    }

    fn finished(&self) -> bool {
        self.is_ended()
    }
}

#[cfg(test)]
mod tests;
