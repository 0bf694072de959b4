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
//! said, not again every function's result.

use std::collections::{HashMap, HashSet};

use parley_protocol::error::ErrorCode;
use uuid::Uuid;

use super::{
    conversation,
    input::parts_text,
    reading::{events_of, fold_until_end, meta_of},
    response_events::ResponsesTranslator,
    types::{ChatRole, ResponseInputContent, ResponseInputItem, ResponseOutputItem},
};
use crate::{error::Problem, identity::Caller, state::AppState};

/// The longest an `item_reference` waits for the response it names to end.
const REFERENCE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// `input`'s items as the conversation's messages, in order.
pub async fn conversation(
    state: &AppState,
    caller: &Caller,
    items: Vec<ResponseInputItem>,
) -> Result<Vec<(ChatRole, String)>, Box<Problem>> {
    let mut messages = Vec::with_capacity(items.len());
    let mut calls = HashSet::new();
    let mut responses = Responses::default();
    let last = items.len().saturating_sub(1);
    for (i, item) in items.into_iter().enumerate() {
        let at = |field: &str| format!("input[{i}].{field}");
        match item.kind.as_deref().unwrap_or("message") {
            "message" => {
                let role = item.role.ok_or_else(|| missing(at("role")))?;
                let content = item.content.ok_or_else(|| missing(at("content")))?;
                messages.push((role, text_of(content, &at("content"))?));
            }
            "item_reference" => {
                let id = item.id.ok_or_else(|| missing(at("id")))?;
                if let Some(text) = responses.text_of(state, caller, &id, &at("id")).await? {
                    messages.push((ChatRole::Assistant, text));
                }
            }
            "function_call" => {
                let call_id = item.call_id.ok_or_else(|| missing(at("call_id")))?;
                item.name.ok_or_else(|| missing(at("name")))?;
                calls.insert(call_id);
            }
            "function_call_output" => {
                let call_id = item.call_id.ok_or_else(|| missing(at("call_id")))?;
                item.output.ok_or_else(|| missing(at("output")))?;
                if !calls.contains(&call_id) {
                    return Err(refused(
                        ErrorCode::ValidationFailed,
                        at("call_id"),
                        "no `function_call` before it in `input` has this call id",
                    ));
                }
                if i == last {
                    return Err(refused(
                        ErrorCode::UnsupportedInput,
                        format!("input[{i}]"),
                        "a `function_call_output` last in `input` hands a client function's result back to the turn that called it, and no Parley turn offered the model a client function (`tools` are not read yet: docs/openai.md)",
                    ));
                }
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
    Ok(messages)
}

/// A message's text: a string, or its `input_text` / `output_text` parts.
fn text_of(content: ResponseInputContent, at: &str) -> Result<String, Box<Problem>> {
    match content {
        ResponseInputContent::Text(text) => Ok(text),
        ResponseInputContent::Parts(parts) => {
            let kinds: Vec<(String, Option<String>)> =
                parts.into_iter().map(|p| (p.kind, p.text)).collect();
            let bad = kinds
                .iter()
                .position(|(kind, _)| kind != "input_text" && kind != "output_text");
            parts_text(kinds.into_iter(), "input_text|output_text").map_err(|problem| {
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

/// The caller's responses an input's `item_reference`s name, each read once.
#[derive(Default)]
struct Responses {
    /// A response's output items, by its prompt's id.
    outputs: HashMap<Uuid, Vec<ResponseOutputItem>>,
}

impl Responses {
    /// The text of the output item `id`: a message's, `None` for a call of Parley's
    /// (not part of the text). 404 `item_not_found` for an item of no response of the
    /// caller's.
    async fn text_of(
        &mut self,
        state: &AppState,
        caller: &Caller,
        id: &str,
        param: &str,
    ) -> Result<Option<String>, Box<Problem>> {
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
        let prompt_id = item_prompt(id).ok_or_else(not_found)?;
        let outputs = match self.outputs.entry(prompt_id) {
            std::collections::hash_map::Entry::Occupied(read) => read.into_mut(),
            std::collections::hash_map::Entry::Vacant(unread) => {
                let prompt = state
                    .turns
                    .prompt(caller.user_id, prompt_id)
                    .await
                    .map_err(|_| not_found())?;
                let mut translator = ResponsesTranslator::new(meta_of(&prompt, None));
                let events = events_of(state, &prompt, caller).await?;
                let ended = fold_until_end(events, REFERENCE_WAIT, |event| {
                    translator.events(event);
                    false
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
            ResponseOutputItem::Message(message) => Some(
                message
                    .content
                    .iter()
                    .map(|part| part.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            ResponseOutputItem::McpCall(_) => None,
        })
    }
}

/// The prompt whose response has the output item `id` (`msg_<hex>_<n>`,
/// `mcp_<hex>_<n>`).
fn item_prompt(id: &str) -> Option<Uuid> {
    let rest = id
        .strip_prefix("msg_")
        .or_else(|| id.strip_prefix("mcp_"))?;
    let (hex, n) = rest.split_once('_')?;
    n.parse::<u32>().ok()?;
    conversation::prompt_id(hex)
}

fn item_id(item: &ResponseOutputItem) -> &str {
    match item {
        ResponseOutputItem::Message(message) => &message.id,
        ResponseOutputItem::McpCall(call) => &call.id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_item_ids_name_their_response() {
        let id = Uuid::now_v7();
        let hex = id.simple();
        assert_eq!(item_prompt(&format!("msg_{hex}_0")), Some(id));
        assert_eq!(item_prompt(&format!("mcp_{hex}_12")), Some(id));
        assert_eq!(item_prompt(&format!("msg_{hex}")), None);
        assert_eq!(item_prompt(&format!("rs_{hex}_0")), None);
        assert_eq!(item_prompt("msg_nothex_0"), None);
    }
}
