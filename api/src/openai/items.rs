//! A Responses request's `input` items read as the conversation they describe: every
//! kind a client sends back (a response's own `output` appended to its input, an SDK's
//! `to_input_list()`, the Vercel AI SDK's `item_reference`s), each checked with the
//! offending field named as `param` (`input[3].call_id`) and never echoed.
//!
//! The conversation's text is its messages: `message` items, and the `msg_…` items an
//! `item_reference` names (the text of that output item of one of the caller's
//! responses, read from its events — live, or rebuilt from the database). Calls
//! (`mcp_call`, `function_call`), their results and `reasoning` are checked and read as
//! the steps they were, but, as in a Parley conversation's own history, the history a
//! new conversation imports is the messages: a model that continues it reads what was
//! said, not again every function's result. The `function_call_output` items that end
//! the input are the exception: they answer the calls a response returned
//! (`function_call`), and the request continues that turn ([`super::tools`]).

use std::collections::{HashMap, HashSet};

use parley_protocol::error::ErrorCode;

use super::{
    input::parts_text,
    reading::{events_of, fold_until_end},
    response_events::ResponsesTranslator,
    segment::Segment,
    tools::ToolResult,
    types::{ChatRole, ResponseInputContent, ResponseInputItem, ResponseOutputItem},
};
use crate::{error::Problem, identity::Caller, state::AppState};

/// The longest an `item_reference` waits for the response it names to end.
const REFERENCE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What a request's `input` says: the conversation's messages, in order, and the
/// results that end it — the `function_call_output` items after every other item, which
/// answer the calls of a response's `function_call`s and continue its turn.
pub struct Input {
    pub messages: Vec<(ChatRole, String)>,
    pub results: Vec<ToolResult>,
    /// The images and files of the last message item: the turn's attachments.
    pub media: Vec<super::media::Media>,
}

/// Reads `input`'s items. With `previous` (a `previous_response_id`), a
/// `function_call_output` may answer a call of the previous response that `input` does
/// not repeat.
pub async fn read(
    state: &AppState,
    caller: &Caller,
    items: Vec<ResponseInputItem>,
    previous: bool,
) -> Result<Input, Box<Problem>> {
    let mut messages = Vec::with_capacity(items.len());
    let mut results = Vec::new();
    let mut calls = HashSet::new();
    let mut responses = Responses::default();
    let mut media = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let at = |field: &str| format!("input[{i}].{field}");
        let kind = item.kind.as_deref().unwrap_or("message");
        if kind != "function_call_output" {
            // Results followed by anything else are the history's, answered already.
            results.clear();
        }
        match kind {
            "message" => {
                let role = item.role.ok_or_else(|| missing(at("role")))?;
                let content = item.content.ok_or_else(|| missing(at("content")))?;
                media = super::media::of_response(&content, &at("content"))?;
                messages.push((role, text_of(content, &at("content"))?));
            }
            "item_reference" => {
                let id = item.id.ok_or_else(|| missing(at("id")))?;
                match responses.item(state, caller, &id, &at("id")).await? {
                    Referenced::Message(text) => {
                        media.clear();
                        messages.push((ChatRole::Assistant, text));
                    }
                    Referenced::FunctionCall(call_id) => {
                        calls.insert(call_id);
                    }
                    Referenced::McpCall => {}
                }
            }
            "function_call" => {
                let call_id = item.call_id.ok_or_else(|| missing(at("call_id")))?;
                item.name.ok_or_else(|| missing(at("name")))?;
                calls.insert(call_id);
            }
            "function_call_output" => {
                let call_id = item.call_id.ok_or_else(|| missing(at("call_id")))?;
                let output = item.output.ok_or_else(|| missing(at("output")))?;
                if !previous && !calls.contains(&call_id) {
                    return Err(refused(
                        ErrorCode::ValidationFailed,
                        at("call_id"),
                        "no `function_call` before it in `input` has this call id (or send `previous_response_id`, the response that made the call)",
                    ));
                }
                results.push(ToolResult {
                    param: at("call_id"),
                    call_id,
                    text: output_text(output, &at("output"))?,
                });
            }
            "mcp_call" => {
                item.name.ok_or_else(|| missing(at("name")))?;
            }
            "reasoning" => {}
            other => {
                let known = "`message`, `item_reference`, `mcp_call`, `function_call`, `function_call_output` or `reasoning`";
                let shown: String = other.chars().take(40).collect();
                return Err(refused(
                    ErrorCode::UnsupportedInput,
                    at("type"),
                    &format!("`{shown}` is not an input item Parley reads; send {known}"),
                ));
            }
        }
    }
    Ok(Input {
        messages,
        results,
        media,
    })
}

/// A function's result: a string, or `input_text` parts (other JSON as its text).
fn output_text(output: serde_json::Value, at: &str) -> Result<String, Box<Problem>> {
    use serde_json::Value;
    match output {
        Value::String(text) => Ok(text),
        Value::Array(parts) => {
            let parts = parts.into_iter().map(|part| {
                let kind = part["type"].as_str().unwrap_or_default().to_owned();
                (kind, part["text"].as_str().map(str::to_owned))
            });
            parts_text(parts, "input_text|output_text")
                .map_err(|problem| Box::new((*problem).param(at)))
        }
        other => Ok(other.to_string()),
    }
}

/// The parts a message item may have: text, and images and files (read apart).
const MESSAGE_KINDS: &str = "input_text|output_text|input_image|input_file";

/// A message's text: a string, or its `input_text` / `output_text` parts.
fn text_of(content: ResponseInputContent, at: &str) -> Result<String, Box<Problem>> {
    match content {
        ResponseInputContent::Text(text) => Ok(text),
        ResponseInputContent::Parts(parts) => {
            let kinds: Vec<(String, Option<String>)> =
                parts.into_iter().map(|p| (p.kind, p.text)).collect();
            let bad = kinds
                .iter()
                .position(|(kind, _)| !MESSAGE_KINDS.split('|').any(|k| k == kind));
            parts_text(kinds.into_iter(), MESSAGE_KINDS).map_err(|problem| {
                Box::new((*problem).param(format!("{at}[{}].type", bad.unwrap_or(0))))
            })
        }
    }
}

fn missing(param: String) -> Box<Problem> {
    refused(
        ErrorCode::ValidationFailed,
        param,
        "required for this item's type",
    )
}

/// A refused item: `param` names its field, the detail says it first.
fn refused(code: ErrorCode, param: impl Into<String>, why: &str) -> Box<Problem> {
    let param = param.into();
    Box::new(Problem::new(code, format!("`{param}`: {why}")).param(param))
}

/// What an `item_reference` names: a message's text (part of the conversation), a call
/// of the caller's function (its `call_id`), or a call Parley ran (neither).
enum Referenced {
    Message(String),
    FunctionCall(String),
    McpCall,
}

/// The caller's responses an input's `item_reference`s name, each read once.
#[derive(Default)]
struct Responses {
    /// A response's output items, by its segment of a prompt.
    outputs: HashMap<Segment, Vec<ResponseOutputItem>>,
}

impl Responses {
    /// The output item `id` of one of the caller's responses (404 `item_not_found` for
    /// any other).
    async fn item(
        &mut self,
        state: &AppState,
        caller: &Caller,
        id: &str,
        param: &str,
    ) -> Result<Referenced, Box<Problem>> {
        let not_found = || {
            let shown: String = id.chars().take(80).collect();
            Box::new(
                Problem::new(
                    ErrorCode::ItemNotFound,
                    format!("`{param}`: no output item `{shown}` of your responses"),
                )
                .param(param),
            )
        };
        let segment = item_segment(id).ok_or_else(not_found)?;
        let outputs = match self.outputs.entry(segment) {
            std::collections::hash_map::Entry::Occupied(read) => read.into_mut(),
            std::collections::hash_map::Entry::Vacant(unread) => {
                let prompt = state
                    .turns
                    .prompt(caller.user_id, segment.prompt)
                    .await
                    .map_err(|_| not_found())?;
                let mut translator = ResponsesTranslator::of(&prompt, segment);
                let events = events_of(state, &prompt, caller).await?;
                let ended = fold_until_end(events, REFERENCE_WAIT, |event| {
                    translator.events(event);
                    translator.is_ended()
                })
                .await;
                if !ended {
                    // Its items are not final yet: another try once it has ended.
                    return Err(Box::new(
                        Problem::new(
                            ErrorCode::Conflict,
                            format!(
                                "`{param}`: the response this item belongs to is still running"
                            ),
                        )
                        .param(param),
                    ));
                }
                unread.insert(translator.response("completed").output)
            }
        };
        let item = outputs
            .iter()
            .find(|item| item_id(item) == id)
            .ok_or_else(not_found)?;
        Ok(match item {
            ResponseOutputItem::Message(message) => Referenced::Message(
                message
                    .content
                    .iter()
                    .map(|part| part.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            ResponseOutputItem::FunctionCall(call) => {
                Referenced::FunctionCall(call.call_id.clone())
            }
            ResponseOutputItem::McpCall(_) => Referenced::McpCall,
        })
    }
}

/// The response (a segment of a prompt) that has the output item `id` (`msg_<segment>_<n>`,
/// `mcp_…`, `fc_…`).
fn item_segment(id: &str) -> Option<Segment> {
    let rest = ["msg_", "mcp_", "fc_"]
        .iter()
        .find_map(|prefix| id.strip_prefix(prefix))?;
    let (segment, n) = rest.rsplit_once('_')?;
    n.parse::<u32>().ok()?;
    Segment::parse(segment)
}

fn item_id(item: &ResponseOutputItem) -> &str {
    match item {
        ResponseOutputItem::Message(message) => &message.id,
        ResponseOutputItem::McpCall(call) => &call.id,
        ResponseOutputItem::FunctionCall(call) => &call.id,
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    #[test]
    fn output_item_ids_name_their_response() {
        let id = Uuid::now_v7();
        let hex = id.simple();
        let first = Some(Segment::first(id));
        assert_eq!(item_segment(&format!("msg_{hex}_0")), first);
        assert_eq!(item_segment(&format!("mcp_{hex}_12")), first);
        assert_eq!(item_segment(&format!("fc_{hex}_1")), first);
        let next = Segment {
            prompt: id,
            from: Some(super::super::chat_events::Continuing {
                attempt: 2,
                calls: 1,
            }),
        };
        assert_eq!(item_segment(&format!("fc_{hex}_2_1_0")), Some(next));
        assert_eq!(item_segment(&format!("msg_{hex}")), None);
        assert_eq!(item_segment(&format!("msg_{hex}_2_0")), None);
        assert_eq!(item_segment(&format!("rs_{hex}_0")), None);
        assert_eq!(item_segment("msg_nothex_0"), None);
    }
}
