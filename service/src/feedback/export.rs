//! The export of conversations for evaluation and fine-tuning
//! (`GET /v1/admin/exports/conversations`): one JSON line per conversation in OpenAI's
//! chat fine-tuning format —
//!
//! ```text
//! {"messages":[{"role":"system","content":"…"},
//!              {"role":"user","content":"What time is it?"},
//!              {"role":"assistant","content":"Checking","tool_calls":[{"id":"call_0","type":"function",
//!                "function":{"name":"getCurrentTime","arguments":"{\"timezone\":\"UTC\"}"}}]},
//!              {"role":"tool","tool_call_id":"call_0","content":"{\"time\":\"12:00\"}"},
//!              {"role":"assistant","content":"It is noon."}],
//!  "tools":[{"type":"function","function":{"name":"getCurrentTime","description":"…","parameters":{…}}}]}
//! ```
//!
//! * the messages are the session's **active branch**, first to last, as stored (the
//!   text after the modules: redacted, or `[blocked]`); notices are `system` messages;
//! * an answer that called functions is cut at its `[[tool:N]]` markers: the text before
//!   a group of markers is an assistant message carrying those calls (`content` omitted
//!   when there is none), each call's result a `tool` message, and the text after the
//!   last group the final assistant message. Arguments are a JSON string, as OpenAI
//!   writes them; a result is its JSON text (a string result as it is);
//! * the first `system` message is the system prompt the branch's first answer was
//!   given, when one was recorded (skills and blocks call no model);
//! * `tools` lists the functions the session offered that the deployment still has,
//!   with their descriptions and JSON schemas (omitted when there are none).
//!
//! Pages of [`PAGE`] sessions are read one after another and each is written as soon
//! as it is read, so the export of a large range never holds more than a page.

use std::sync::Arc;

use futures::{Stream, StreamExt, stream};
use parley_entity::{
    enums::MessageRole,
    query::feedback::export::{
        self as rows, BranchMessage, CallOutput, Conversation, ExportCall, ExportFilter, ExportPage,
    },
};
use parley_protocol::error::Result;
use sea_orm::DatabaseConnection;
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::functions::FunctionCatalog;

/// How many sessions a page reads.
pub const PAGE: u64 = 50;

/// One line of the export.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FineTuningLine {
    pub messages: Vec<ChatMessage>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
}

/// A message of a conversation, as OpenAI's chat format has it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        tool_call_id: String,
        content: String,
    },
}

/// A function call of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: FunctionCall,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionCall {
    pub name: String,
    /// The arguments as a JSON text.
    pub arguments: String,
}

/// A function the conversation's model was offered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: FunctionSpecLine,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionSpecLine {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// The export of the conversations matching `filter`, as chunks of JSONL text (the
/// lines of one page each). The first page is read before this returns, so a database
/// that cannot answer is an error here; a later page that fails ends the stream with
/// the error (the body is cut short: a reader sees an incomplete transfer).
pub async fn conversations(
    db: DatabaseConnection,
    catalog: Arc<FunctionCatalog>,
    filter: ExportFilter,
) -> Result<impl Stream<Item = Result<String>> + Send + 'static> {
    let first = rows::page(&db, &filter, None, PAGE).await?;
    let reader = Reader {
        db,
        catalog,
        filter,
    };
    let chunks = stream::unfold((Step::Write(first), reader), |(step, reader)| async move {
        let page = match step {
            Step::Done => return None,
            Step::Write(page) => page,
            Step::Read(after) => {
                match rows::page(&reader.db, &reader.filter, Some(after), PAGE).await {
                    Ok(page) => page,
                    Err(err) => {
                        tracing::error!(error = %err, "the export stopped: a page could not be read");
                        return Some((Err(err), (Step::Done, reader)));
                    }
                }
            }
        };
        let next = page.next.map_or(Step::Done, Step::Read);
        let chunk = reader.chunk(&page);
        Some((Ok(chunk), (next, reader)))
    });
    Ok(chunks.filter(|chunk| std::future::ready(!matches!(chunk, Ok(text) if text.is_empty()))))
}

/// What comes next in the export.
enum Step {
    /// A page read, to write.
    Write(ExportPage),
    /// The page after this session id, to read.
    Read(Uuid),
    Done,
}

struct Reader {
    db: DatabaseConnection,
    catalog: Arc<FunctionCatalog>,
    filter: ExportFilter,
}

impl Reader {
    /// The lines of a page, each ending with `\n`.
    fn chunk(&self, page: &ExportPage) -> String {
        let mut chunk = String::new();
        for conversation in &page.conversations {
            let line = line(conversation, &self.catalog);
            match serde_json::to_string(&line) {
                Ok(text) => {
                    chunk.push_str(&text);
                    chunk.push('\n');
                }
                Err(err) => {
                    tracing::error!(error = %err, session_id = %conversation.session_id, "a conversation could not be written");
                }
            }
        }
        chunk
    }
}

/// A conversation as one line of the export.
pub fn line(conversation: &Conversation, catalog: &FunctionCatalog) -> FineTuningLine {
    let mut messages = Vec::new();
    if let Some(system) = &conversation.system {
        messages.push(ChatMessage::System {
            content: system.clone(),
        });
    }
    for message in &conversation.messages {
        match message.role {
            MessageRole::System => messages.push(ChatMessage::System {
                content: message.content.clone(),
            }),
            MessageRole::User => messages.push(ChatMessage::User {
                content: message.content.clone(),
            }),
            MessageRole::Assistant => messages.extend(answer(message, conversation)),
        }
    }
    let tools = conversation
        .config
        .functions()
        .filter_map(|name| catalog.get(name))
        .map(|spec| ToolSpec {
            kind: "function",
            function: FunctionSpecLine {
                name: spec.name.clone(),
                description: spec.description.clone(),
                parameters: spec.parameters.clone(),
            },
        })
        .collect();
    FineTuningLine { messages, tools }
}

/// A piece of an answer's text: text, or the `[[tool:N]]` marker of call N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Marker(u32),
}

/// `text` cut at its `[[tool:N]]` markers (a `[[tool:` not followed by digits and `]]`
/// is text).
fn pieces(text: &str) -> Vec<Piece<'_>> {
    const OPEN: &str = "[[tool:";
    let mut pieces = Vec::new();
    let mut rest = text;
    let mut plain = 0;
    while let Some(at) = rest[plain..].find(OPEN).map(|at| at + plain) {
        let after = &rest[at + OPEN.len()..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        let marker = (digits > 0 && after[digits..].starts_with("]]"))
            .then(|| after[..digits].parse::<u32>().ok())
            .flatten();
        match marker {
            Some(n) => {
                if at > 0 {
                    pieces.push(Piece::Text(&rest[..at]));
                }
                pieces.push(Piece::Marker(n));
                rest = &after[digits + 2..];
                plain = 0;
            }
            None => plain = at + OPEN.len(),
        }
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest));
    }
    pieces
}

/// An answer as OpenAI's messages: the text before each group of calls with the calls,
/// a `tool` message per call, then the text after the last group.
fn answer(message: &BranchMessage, conversation: &Conversation) -> Vec<ChatMessage> {
    let calls = conversation.calls.get(&message.id);
    let mut out = Vec::new();
    let mut text = String::new();
    let mut pending: Vec<&ExportCall> = Vec::new();
    for piece in pieces(&message.content) {
        match piece {
            Piece::Marker(n) => {
                // A marker whose call is unknown is left out.
                if let Some(call) = calls.and_then(|calls| calls.get(&n)) {
                    pending.push(call);
                }
            }
            Piece::Text(s) if !pending.is_empty() && s.trim().is_empty() => {}
            Piece::Text(s) => {
                if !pending.is_empty() {
                    flush(&mut out, &mut text, &mut pending);
                }
                text.push_str(s);
            }
        }
    }
    if !pending.is_empty() {
        flush(&mut out, &mut text, &mut pending);
    }
    if !text.trim().is_empty() || out.is_empty() {
        out.push(ChatMessage::Assistant {
            content: Some(text),
            tool_calls: Vec::new(),
        });
    }
    out
}

/// One model response that called functions: the assistant message and the results.
fn flush(out: &mut Vec<ChatMessage>, text: &mut String, pending: &mut Vec<&ExportCall>) {
    let content = std::mem::take(text);
    out.push(ChatMessage::Assistant {
        content: (!content.trim().is_empty()).then_some(content),
        tool_calls: pending
            .iter()
            .map(|call| ToolCall {
                id: call.id.clone(),
                kind: "function",
                function: FunctionCall {
                    name: call.name.clone(),
                    arguments: arguments(&call.arguments),
                },
            })
            .collect(),
    });
    for call in pending.drain(..) {
        out.push(ChatMessage::Tool {
            tool_call_id: call.id.clone(),
            content: output(&call.output),
        });
    }
}

/// Recorded arguments as OpenAI's JSON string (arguments that were not JSON are
/// recorded as a string, and stay that text).
fn arguments(recorded: &Value) -> String {
    match recorded {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// What a call answered, as a `tool` message's text.
fn output(output: &CallOutput) -> String {
    match output {
        CallOutput::Result(Value::String(text)) => text.clone(),
        CallOutput::Result(value) => value.to_string(),
        CallOutput::Error(message) => serde_json::json!({ "error": message }).to_string(),
        CallOutput::Shown(text) => text.clone(),
    }
}

#[cfg(test)]
mod tests;
