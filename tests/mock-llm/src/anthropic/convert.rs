//! An Anthropic request seen as the chat endpoint's messages, so that the reply is derived
//! by the same rules ([`crate::reply::derive_for`]) and the request log reads the same.
//!
//! * `system` → a first `system` message (its text blocks joined with `\n`);
//! * a user message → `tool` messages for its `tool_result` blocks (in order, `tool_call_id`
//!   = `tool_use_id`), then, when it has other blocks, a `user` message with their text;
//! * an assistant message → one `assistant` message: its text, its `tool_use` blocks as
//!   OpenAI `tool_calls` (`arguments` = the input serialized), its `thinking` texts joined
//!   as `reasoning_content`.

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::record::RecordedMessage;

/// The content blocks of a message or of `system`: a string is one text block.
pub(crate) fn blocks(content: &Value) -> Cow<'_, [Value]> {
    match content {
        Value::String(text) => Cow::Owned(vec![json!({ "type": "text", "text": text })]),
        Value::Array(blocks) => Cow::Borrowed(blocks),
        _ => Cow::Owned(Vec::new()),
    }
}

/// A block's `type` (`""` when it has none).
pub(crate) fn kind(block: &Value) -> &str {
    block["type"].as_str().unwrap_or_default()
}

/// Whether `message` is a user's input: a user message with anything but tool results.
fn is_user_input(message: &Value) -> bool {
    message["role"] == "user"
        && blocks(&message["content"])
            .iter()
            .any(|b| kind(b) != "tool_result")
}

/// The index of the first message of the current turn: the one after the last user message
/// that is not only tool results (0 when there is none). Its assistant messages are the tool
/// loop under way, whose thinking Anthropic keeps.
pub(crate) fn turn_start(messages: &[Value]) -> usize {
    messages
        .iter()
        .rposition(is_user_input)
        .map_or(0, |i| i + 1)
}

/// The `text` of the text blocks among `blocks`, joined with `\n`.
fn text(blocks: &[Value]) -> String {
    blocks
        .iter()
        .filter(|b| kind(b) == "text")
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of a `tool_result`'s content (a string, or its text blocks joined).
pub(crate) fn tool_result_text(block: &Value) -> String {
    match &block["content"] {
        Value::String(s) => s.clone(),
        content => text(&blocks(content)),
    }
}

fn message(role: &str, content: String) -> RecordedMessage {
    RecordedMessage {
        role: role.to_owned(),
        content,
        tool_call_id: None,
        tool_calls: Vec::new(),
        reasoning_content: None,
    }
}

/// The request's system prompt and messages as chat messages (read leniently: a request
/// that is refused is logged as well as it can be).
pub(crate) fn to_messages(body: &Value) -> Vec<RecordedMessage> {
    let mut out = Vec::new();
    if !body["system"].is_null() {
        out.push(message("system", text(&blocks(&body["system"]))));
    }
    for m in body["messages"].as_array().map_or(&[][..], Vec::as_slice) {
        let content = blocks(&m["content"]);
        let role = m["role"].as_str().unwrap_or_default();
        if role == "assistant" {
            let mut assistant = message(role, text(&content));
            assistant.tool_calls = content
                .iter()
                .filter(|b| kind(b) == "tool_use")
                .map(|b| {
                    json!({
                        "id": b["id"],
                        "type": "function",
                        "function": { "name": b["name"], "arguments": b["input"].to_string() },
                    })
                })
                .collect();
            let thinking: Vec<&str> = content
                .iter()
                .filter(|b| kind(b) == "thinking")
                .filter_map(|b| b["thinking"].as_str())
                .collect();
            if !thinking.is_empty() {
                assistant.reasoning_content = Some(thinking.join("\n"));
            }
            out.push(assistant);
            continue;
        }
        let (results, rest): (Vec<&Value>, Vec<&Value>) =
            content.iter().partition(|b| kind(b) == "tool_result");
        for result in &results {
            let mut tool = message("tool", tool_result_text(result));
            tool.tool_call_id = result["tool_use_id"].as_str().map(str::to_owned);
            out.push(tool);
        }
        if results.is_empty() || !rest.is_empty() {
            let rest: Vec<Value> = rest.into_iter().cloned().collect();
            out.push(message(role, text(&rest)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_loop_reads_as_chat_messages() {
        let body = json!({
            "system": [{ "type": "text", "text": "Be" }, { "type": "text", "text": "brief." }],
            "messages": [
                { "role": "user", "content": "hi [[mock tool_call=f]]" },
                { "role": "assistant", "content": [
                    { "type": "thinking", "thinking": "hm", "signature": "s" },
                    { "type": "tool_use", "id": "toolu_mock_0", "name": "f", "input": { "a": 1 } },
                ] },
                { "role": "user", "content": [
                    { "type": "tool_result", "tool_use_id": "toolu_mock_0",
                      "content": [{ "type": "text", "text": "r1" }] },
                ] },
            ],
        });
        let messages = to_messages(&body);
        let roles: Vec<&str> = messages.iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool"]);
        assert_eq!(messages[0].content, "Be\nbrief.");
        assert_eq!(messages[2].reasoning_content.as_deref(), Some("hm"));
        assert_eq!(
            messages[2].tool_calls[0]["function"]["arguments"],
            r#"{"a":1}"#
        );
        assert_eq!(messages[3].tool_call_id.as_deref(), Some("toolu_mock_0"));
        assert_eq!(messages[3].content, "r1");
        assert_eq!(turn_start(body["messages"].as_array().unwrap()), 1);
    }
}
