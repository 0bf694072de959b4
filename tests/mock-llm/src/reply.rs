//! What the mock answers: the request read leniently and the reply derived from it (its
//! wire forms are in [`crate::wire`]).
//!
//! The tool-call rules: the calls of the directive are made in rounds. A round is an
//! assistant message with `tool_calls` after the last user message; while fewer than
//! `tool_rounds` (default 1) are in the request, the reply makes the calls again (with fresh
//! ids), and then it answers in words: `Tool result: …` with the content of every `tool`
//! message after the last user message, in order.

use serde_json::Value;

use crate::directive::{self, Directive, ToolCallSpec};
use crate::record::RecordedMessage;

/// The fields of a chat completion request the mock uses.
pub(crate) struct ChatRequest {
    pub model: String,
    pub stream: bool,
    pub include_usage: bool,
    pub messages: Vec<RecordedMessage>,
    pub tools: Vec<Value>,
    /// `continue_final_message`: continue the final assistant message (vLLM, llama.cpp).
    pub continue_final: bool,
    /// `max_tokens` / `max_completion_tokens` (the smaller): the most content tokens the reply may have (cut there, as a real
    /// model stops at its limit).
    pub max_tokens: Option<usize>,
}

/// Reads a request body (already valid JSON); `Err` says what is missing.
pub(crate) fn read_request(body: &Value) -> Result<ChatRequest, String> {
    let model = body["model"]
        .as_str()
        .ok_or("`model` (a string) is required")?;
    let messages = body["messages"]
        .as_array()
        .ok_or("`messages` (an array) is required")?
        .iter()
        .map(|m| RecordedMessage {
            role: m["role"].as_str().unwrap_or_default().to_owned(),
            content: text_of(&m["content"]),
            tool_call_id: m["tool_call_id"].as_str().map(str::to_owned),
            tool_calls: m["tool_calls"].as_array().cloned().unwrap_or_default(),
            reasoning_content: m["reasoning_content"].as_str().map(str::to_owned),
        })
        .collect();
    Ok(ChatRequest {
        model: model.to_owned(),
        stream: body["stream"].as_bool().unwrap_or(false),
        include_usage: body["stream_options"]["include_usage"]
            .as_bool()
            .unwrap_or(false),
        messages,
        tools: body["tools"].as_array().cloned().unwrap_or_default(),
        continue_final: body["continue_final_message"].as_bool().unwrap_or(false),
        max_tokens: ["max_tokens", "max_completion_tokens"]
            .iter()
            .filter_map(|field| body[field].as_u64())
            .min()
            .and_then(|n| usize::try_from(n).ok()),
    })
}

/// A string content as is; the `text` of an array of parts joined with `\n`.
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `prompt_tokens`: the whitespace-separated words of every message's content.
pub(crate) fn count_prompt_tokens(messages: &[RecordedMessage]) -> u64 {
    messages
        .iter()
        .map(|m| m.content.split_whitespace().count() as u64)
        .sum()
}

/// The reply to one request, as tokens.
#[derive(Debug, Default)]
pub(crate) struct Reply {
    pub reasoning: Vec<String>,
    pub content: Vec<String>,
    pub tool_calls: Vec<ToolCallSpec>,
    /// The number in the id of the first tool call: `call_mock_<first_call_id + index>`.
    pub first_call_id: usize,
    /// `split_name=1`: each function name streams in two chunks.
    pub split_name: bool,
    /// The Gemini dialect: the thought signature of the first tool call.
    pub thought_signature: Option<String>,
    /// The content was cut at the request's token limit (`finish_reason: "length"`).
    pub cut: bool,
}

/// Derives the directive and the reply of a request: [`derive()`], except that a request
/// continuing its final assistant message (`continue_final`, a message without calls) gets
/// the rest of the reply that message began — its content tokens after the message's text,
/// no reasoning. A message the reply does not begin with is continued with the whole reply.
pub(crate) fn derive_for(
    messages: &[RecordedMessage],
    continue_final: bool,
    always_reason: bool,
) -> Result<(Directive, Reply), String> {
    let continued = messages
        .last()
        .filter(|m| continue_final && m.role == "assistant" && m.tool_calls.is_empty());
    let Some(partial) = continued else {
        return derive(messages, always_reason);
    };
    let (directive, mut reply) = derive(&messages[..messages.len() - 1], always_reason)?;
    reply.content = rest_after(&reply.content, &partial.content);
    reply.reasoning.clear();
    Ok((directive, reply))
}

/// The tokens of `content` after `prefix` (a token it ends inside is cut there); all of
/// them when their text does not begin with `prefix`.
fn rest_after(content: &[String], prefix: &str) -> Vec<String> {
    if !content.concat().starts_with(prefix) {
        return content.to_vec();
    }
    let mut at = 0;
    let mut rest = Vec::new();
    for token in content {
        let end = at + token.len();
        if end > prefix.len() {
            rest.push(token[prefix.len().saturating_sub(at)..].to_owned());
        }
        at = end;
    }
    rest
}

/// Derives the directive and the reply from the messages (see README.md for the rules).
/// With `always_reason`, a reply whose directive has no `reasoning` reasons
/// `Thinking about: <the words of the last user message>`.
pub(crate) fn derive(
    messages: &[RecordedMessage],
    always_reason: bool,
) -> Result<(Directive, Reply), String> {
    let last_user = messages.iter().rposition(|m| m.role == "user");
    let (text, directive) = match last_user {
        Some(i) => directive::extract(&messages[i].content)?,
        None => (String::new(), None),
    };
    let directive = directive.unwrap_or_default();
    let after_user = &messages[last_user.map_or(0, |i| i + 1)..];
    let tool_results: Vec<&str> = after_user
        .iter()
        .filter(|m| m.role == "tool")
        .map(|m| m.content.as_str())
        .collect();
    let rounds: Vec<&RecordedMessage> = after_user
        .iter()
        .filter(|m| m.role == "assistant" && !m.tool_calls.is_empty())
        .collect();
    // Call again until `tool_rounds` rounds of calls were made; then answer in words.
    let tool_calls = if rounds.len() < directive.tool_rounds.unwrap_or(1) {
        directive.tool_calls.clone()
    } else {
        Vec::new()
    };
    let content = if let Some(n) = directive.tokens {
        (1..=n)
            .map(|i| {
                if i == 1 {
                    "t1".into()
                } else {
                    format!(" t{i}")
                }
            })
            .collect()
    } else if let Some(reply) = &directive.reply {
        tokenize_lines(reply)
    } else if !tool_calls.is_empty() {
        Vec::new()
    } else if !tool_results.is_empty() {
        tokenize(&format!("Tool result: {}", tool_results.join(" ")))
    } else {
        tokenize(&format!("Echo: {text}"))
    };
    let reasoning = match &directive.reasoning {
        Some(reasoning) => tokenize(reasoning),
        None if always_reason => tokenize(&format!("Thinking about: {text}")),
        None => Vec::new(),
    };
    let reply = Reply {
        reasoning,
        content,
        tool_calls,
        // Ids go on numbering across rounds: a turn never sees the same id twice.
        first_call_id: rounds.iter().map(|m| m.tool_calls.len()).sum(),
        split_name: directive.split_name,
        thought_signature: None,
        cut: false,
    };
    Ok((directive, reply))
}

/// Words, each after the first with its leading space: `"a  b"` → `["a", " b"]`.
fn tokenize(text: &str) -> Vec<String> {
    text.split_whitespace()
        .enumerate()
        .map(|(i, w)| {
            if i == 0 {
                w.to_owned()
            } else {
                format!(" {w}")
            }
        })
        .collect()
}

/// Like [`tokenize`], but a word after white space that held a line break leads with
/// `\n` (a `reply=` keeps its lines): `"a  b\n c"` → `["a", " b", "\nc"]`.
fn tokenize_lines(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        let after = &rest[end..];
        let gap = after.len() - after.trim_start().len();
        tokens.push(word.to_owned());
        rest = &after[gap..];
        if !rest.is_empty() {
            let separator = if after[..gap].contains('\n') {
                "\n"
            } else {
                " "
            };
            // The separator leads the next word.
            tokens.push(separator.to_owned());
        }
    }
    // Join each separator onto the word after it.
    let mut joined: Vec<String> = Vec::with_capacity(tokens.len() / 2 + 1);
    let mut pending = String::new();
    for token in tokens {
        if token == " " || token == "\n" {
            pending = token;
        } else {
            joined.push(std::mem::take(&mut pending) + &token);
        }
    }
    joined
}

#[cfg(test)]
mod continuation_tests {
    use super::rest_after;

    fn tokens(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn a_continuation_sends_what_the_partial_message_lacks() {
        let reply = tokens(&["t1", " t2", " t3", " t4"]);
        assert_eq!(rest_after(&reply, "t1 t2"), [" t3", " t4"]);
        assert_eq!(rest_after(&reply, "t1 t"), ["2", " t3", " t4"]);
        assert_eq!(rest_after(&reply, ""), reply);
        assert!(rest_after(&reply, "t1 t2 t3 t4").is_empty());
        assert_eq!(rest_after(&reply, "something else"), reply);
    }
}

#[cfg(test)]
mod tokenize_tests {
    #[test]
    fn words_keep_line_breaks_and_collapse_other_space() {
        assert_eq!(super::tokenize_lines("a  b\n c"), ["a", " b", "\nc"]);
        assert_eq!(super::tokenize_lines("  one "), ["one"]);
        assert!(super::tokenize_lines(" ").is_empty());
        assert_eq!(super::tokenize("a\n b"), ["a", " b"]);
    }
}
