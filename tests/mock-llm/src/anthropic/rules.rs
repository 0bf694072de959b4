//! The rules of `/v1/messages` across blocks and messages, with Anthropic's messages:
//! non-empty content, `tool_use` answered by `tool_result` in the very next message, and —
//! with extended thinking — the current turn's assistant messages starting with their
//! signed thinking blocks, unaltered.

use serde_json::Value;

use super::convert::{blocks, kind, turn_start};
use super::request::{Invalid, invalid};
use crate::sign;

/// Content: every message but a final assistant one non-empty; no empty text block; some
/// text in a message whose blocks are text is not only white space; a final assistant
/// message (a prefill) does not end with white space.
pub(crate) fn content(messages: &[Value]) -> Result<(), Invalid> {
    let last = messages.len() - 1;
    for (i, message) in messages.iter().enumerate() {
        let content = blocks(&message["content"]);
        let final_assistant = i == last && message["role"] == "assistant";
        let empty = content.is_empty() || message["content"] == "";
        if empty && !final_assistant {
            return invalid(format!(
                "messages.{i}: all messages must have non-empty content except for the optional \
                 final assistant message"
            ));
        }
        let texts: Vec<&str> = content
            .iter()
            .filter(|b| kind(b) == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        if texts.iter().any(|t| t.is_empty()) && !empty {
            return invalid("messages: text content blocks must be non-empty");
        }
        if !texts.is_empty() && texts.iter().all(|t| t.trim().is_empty()) && !empty {
            return invalid("messages: text content blocks must contain non-whitespace text");
        }
        let ends_in_space = content
            .last()
            .filter(|b| kind(b) == "text")
            .and_then(|b| b["text"].as_str())
            .is_some_and(|t| t.ends_with(char::is_whitespace));
        if final_assistant && ends_in_space {
            return invalid(
                "messages: final assistant content cannot end with trailing whitespace",
            );
        }
    }
    Ok(())
}

/// Tool pairing: the `tool_use` ids of an assistant message are all answered by the
/// `tool_result` blocks that open the next message (a user message; results after another
/// block do not count), and every `tool_result` answers a `tool_use` of the message before.
pub(crate) fn tool_pairing(messages: &[Value]) -> Result<(), Invalid> {
    for (i, message) in messages.iter().enumerate() {
        let content = blocks(&message["content"]);
        if message["role"] == "assistant" {
            let uses: Vec<&str> = content
                .iter()
                .filter(|b| kind(b) == "tool_use")
                .filter_map(|b| b["id"].as_str())
                .collect();
            let answered: Vec<&str> = match messages.get(i + 1) {
                Some(next) if next["role"] == "user" => leading_results(&next["content"]),
                _ => Vec::new(),
            };
            let missing: Vec<&str> = uses
                .iter()
                .copied()
                .filter(|id| !answered.contains(id))
                .collect();
            if !missing.is_empty() {
                return invalid(format!(
                    "messages.{i}: `tool_use` ids were found without `tool_result` blocks \
                     immediately after: {}. Each `tool_use` block must have a corresponding \
                     `tool_result` block in the next message.",
                    missing.join(", ")
                ));
            }
            continue;
        }
        let before: Vec<String> = i
            .checked_sub(1)
            .map(|p| &messages[p])
            .filter(|p| p["role"] == "assistant")
            .map(|p| {
                blocks(&p["content"])
                    .iter()
                    .filter(|b| kind(b) == "tool_use")
                    .filter_map(|b| b["id"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        for (k, b) in content.iter().enumerate() {
            let id = b["tool_use_id"].as_str().unwrap_or_default();
            if kind(b) == "tool_result" && !before.iter().any(|u| u == id) {
                return invalid(format!(
                    "messages.{i}.content.{k}: unexpected `tool_use_id` found in `tool_result` \
                     blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` \
                     block in the previous message."
                ));
            }
        }
    }
    Ok(())
}

/// The `tool_use_id`s of the `tool_result` blocks a content opens with.
fn leading_results(content: &Value) -> Vec<&str> {
    match content {
        Value::Array(blocks) => blocks
            .iter()
            .take_while(|b| kind(b) == "tool_result")
            .filter_map(|b| b["tool_use_id"].as_str())
            .collect(),
        _ => Vec::new(),
    }
}

/// Thinking. When it is on, each assistant message of the current turn (the tool loop after
/// the last user input) starts with a `thinking` or `redacted_thinking` block, and its
/// thinking blocks are the ones the mock issued: each `signature` verifies over its
/// `thinking` and the `redacted_thinking` blocks right before it, each `redacted_thinking` `data` is one the mock made. Earlier turns' thinking
/// blocks are not checked (Anthropic drops them). When it is off, a final assistant message
/// has no thinking blocks.
pub(crate) fn thinking(messages: &[Value], on: bool) -> Result<(), Invalid> {
    if !on {
        let last = messages.len() - 1;
        if messages[last]["role"] == "assistant" {
            let content = blocks(&messages[last]["content"]);
            if let Some(k) = content
                .iter()
                .position(|b| matches!(kind(b), "thinking" | "redacted_thinking"))
            {
                return invalid(format!(
                    "messages.{last}.content.{k}: When thinking is disabled, an `assistant` \
                     message in the final position cannot contain `thinking`. To use thinking \
                     blocks, enable `thinking` in your request."
                ));
            }
        }
        return Ok(());
    }
    for (i, message) in messages.iter().enumerate().skip(turn_start(messages)) {
        if message["role"] != "assistant" {
            continue;
        }
        let content = blocks(&message["content"]);
        let Some(first) = content.first() else {
            continue;
        };
        if !matches!(kind(first), "thinking" | "redacted_thinking") {
            return invalid(format!(
                "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but \
                 found `{}`. When `thinking` is enabled, a final `assistant` message must start \
                 with a thinking block (preceeding the lastmost set of `tool_use` and \
                 `tool_result` blocks). We recommend you include thinking blocks from previous \
                 turns. To avoid this requirement, disable `thinking`. Please consult our \
                 documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
                kind(first)
            ));
        }
        for (k, b) in content.iter().enumerate() {
            let text = |field: &str| b[field].as_str().unwrap_or_default();
            // The redacted blocks right before a thinking block are part of its signature.
            let mut redacted: Vec<&str> = content[..k]
                .iter()
                .rev()
                .take_while(|b| kind(b) == "redacted_thinking")
                .map(|b| b["data"].as_str().unwrap_or_default())
                .collect();
            redacted.reverse();
            let signed = || sign::thinking_signature(&redacted.concat(), text("thinking"));
            match kind(b) {
                "thinking" if text("signature") != signed() => {
                    return invalid(format!(
                        "messages.{i}.content.{k}: Invalid `signature` in `thinking` block"
                    ));
                }
                "redacted_thinking" if !sign::redacted_data_is_valid(text("data")) => {
                    return invalid(format!(
                        "messages.{i}.content.{k}: Invalid `data` in `redacted_thinking` block"
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}
