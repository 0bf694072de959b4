//! What `/v1/messages` accepts: the body's shape, checked field by field with Anthropic's
//! error wording (`messages.1.content.0.text: Field required`). The rules across messages —
//! empty content, tool pairing, thinking blocks — are in [`super::rules`].

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::convert::{blocks, kind};
use super::rules;

/// A request Anthropic would refuse: 400 `invalid_request_error` with this message.
#[derive(Debug)]
pub(crate) struct Invalid(pub String);

pub(crate) fn invalid<T>(message: impl Into<String>) -> Result<T, Invalid> {
    Err(Invalid(message.into()))
}

/// What the rest of the handler needs from a valid request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checked {
    pub max_tokens: u64,
    pub stream: bool,
    /// Extended thinking is on (`thinking.type` `enabled`, or `adaptive`).
    pub thinking: bool,
}

/// The most `cache_control` breakpoints a request may have.
const MAX_BREAKPOINTS: usize = 4;

/// Checks a request body whose `model` is a string and `messages` an array.
pub(crate) fn validate(body: &Value) -> Result<Checked, Invalid> {
    let max_tokens = match &body["max_tokens"] {
        Value::Null => return invalid("max_tokens: Field required"),
        v => v
            .as_u64()
            .ok_or_else(|| Invalid("max_tokens: Input should be a valid integer".into()))?,
    };
    if max_tokens == 0 {
        return invalid("max_tokens: Input should be greater than or equal to 1");
    }
    let stream = match &body["stream"] {
        Value::Null => false,
        Value::Bool(b) => *b,
        _ => return invalid("stream: Input should be a valid boolean"),
    };
    let mut breakpoints = 0;
    system(&body["system"], &mut breakpoints)?;
    tools(&body["tools"], &mut breakpoints)?;
    let messages = body["messages"].as_array().map_or(&[][..], Vec::as_slice);
    if messages.is_empty() {
        return invalid("messages: at least one message is required");
    }
    for (i, message) in messages.iter().enumerate() {
        let role = match message["role"].as_str() {
            Some(role @ ("user" | "assistant")) => role,
            _ => {
                return invalid(format!(
                    "messages.{i}.role: Input should be 'user' or 'assistant'"
                ));
            }
        };
        if !matches!(message["content"], Value::String(_) | Value::Array(_)) {
            return invalid(format!(
                "messages.{i}.content: Input should be a valid string or a list of content blocks"
            ));
        }
        for (k, b) in blocks(&message["content"]).iter().enumerate() {
            block(
                b,
                role,
                &format!("messages.{i}.content.{k}"),
                &mut breakpoints,
            )?;
        }
    }
    if breakpoints > MAX_BREAKPOINTS {
        return invalid(format!(
            "A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {breakpoints}."
        ));
    }
    let thinking = thinking(body, max_tokens)?;
    rules::content(messages)?;
    rules::tool_pairing(messages)?;
    rules::thinking(messages, thinking)?;
    Ok(Checked {
        max_tokens,
        stream,
        thinking,
    })
}

/// `system`: a string or a list of text blocks.
fn system(system: &Value, breakpoints: &mut usize) -> Result<(), Invalid> {
    match system {
        Value::Null | Value::String(_) => Ok(()),
        Value::Array(blocks) => {
            for (k, b) in blocks.iter().enumerate() {
                let path = format!("system.{k}");
                if kind(b) != "text" {
                    return invalid(format!("{path}.type: Input should be 'text'"));
                }
                text_block(b, &path)?;
                cache_control(b, &path, breakpoints)?;
            }
            Ok(())
        }
        _ => invalid("system: Input should be a valid string or a list of text blocks"),
    }
}

/// `tools`: client tools `{name, description?, input_schema, cache_control?}`.
fn tools(tools: &Value, breakpoints: &mut usize) -> Result<(), Invalid> {
    let tools = match tools {
        Value::Null => return Ok(()),
        Value::Array(tools) => tools,
        _ => return invalid("tools: Input should be a valid list"),
    };
    let mut names = BTreeSet::new();
    for (i, tool) in tools.iter().enumerate() {
        match tool["type"].as_str() {
            None | Some("custom") => {}
            Some(other) => {
                return invalid(format!(
                    "tools.{i}.type: `{other}`: the mock serves client tools only (`custom`)"
                ));
            }
        }
        let path = format!("tools.{i}.custom");
        let Some(name) = tool["name"].as_str() else {
            return invalid(format!("{path}.name: Field required"));
        };
        let well_formed = (1..=64).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !well_formed {
            return invalid(format!(
                "{path}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
            ));
        }
        if !matches!(tool["description"], Value::Null | Value::String(_)) {
            return invalid(format!(
                "{path}.description: Input should be a valid string"
            ));
        }
        if !tool["input_schema"].is_object() {
            return invalid(format!("{path}.input_schema: Field required"));
        }
        if tool["input_schema"]["type"] != "object" {
            return invalid(format!(
                "{path}.input_schema.type: Input should be 'object'"
            ));
        }
        cache_control(tool, &path, breakpoints)?;
        if !names.insert(name) {
            return invalid("tools: Tool names must be unique.");
        }
    }
    Ok(())
}

/// The block types each role may send.
const USER_BLOCKS: [&str; 4] = ["text", "image", "document", "tool_result"];
const ASSISTANT_BLOCKS: [&str; 4] = ["text", "tool_use", "thinking", "redacted_thinking"];

/// One content block of a message.
fn block(b: &Value, role: &str, path: &str, breakpoints: &mut usize) -> Result<(), Invalid> {
    let t = kind(b);
    let known = USER_BLOCKS.contains(&t) || ASSISTANT_BLOCKS.contains(&t);
    if !known {
        return invalid(format!(
            "{path}: Input tag '{t}' found using 'type' does not match any of the expected tags: \
             'text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'"
        ));
    }
    let allowed = if role == "user" {
        &USER_BLOCKS
    } else {
        &ASSISTANT_BLOCKS
    };
    if !allowed.contains(&t) {
        return invalid(format!(
            "{path}: `{t}` blocks are not allowed in `{role}` messages"
        ));
    }
    match t {
        "text" => text_block(b, path)?,
        "image" | "document" => media(b, path)?,
        "tool_use" => {
            for field in ["id", "name"] {
                if !b[field].is_string() {
                    return invalid(format!("{path}.{field}: Field required"));
                }
            }
            if !b["input"].is_object() {
                return invalid(format!("{path}.input: Input should be a valid dictionary"));
            }
        }
        "tool_result" => tool_result(b, path, breakpoints)?,
        "thinking" | "redacted_thinking" => {
            let fields: &[&str] = if t == "thinking" {
                &["thinking", "signature"]
            } else {
                &["data"]
            };
            for field in fields {
                if !b[*field].is_string() {
                    return invalid(format!("{path}.{t}.{field}: Field required"));
                }
            }
            if b.get("cache_control").is_some() {
                return invalid(format!(
                    "{path}.{t}.cache_control: Extra inputs are not permitted"
                ));
            }
        }
        _ => {}
    }
    cache_control(b, path, breakpoints)
}

fn text_block(b: &Value, path: &str) -> Result<(), Invalid> {
    if b["text"].is_string() {
        Ok(())
    } else {
        invalid(format!("{path}.text: Field required"))
    }
}

const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// An `image` or `document` block: a `base64` source (an image type or
/// `application/pdf`), a `url` source, or (documents) a `text` source.
fn media(b: &Value, path: &str) -> Result<(), Invalid> {
    let t = kind(b);
    let source = &b["source"];
    let path = format!("{path}.{t}.source");
    match source["type"].as_str() {
        Some("base64") => {
            let media_type = source["media_type"].as_str().unwrap_or_default();
            if t == "image" && !IMAGE_TYPES.contains(&media_type) {
                return invalid(format!(
                    "{path}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
                ));
            }
            if t == "document" && media_type != "application/pdf" {
                return invalid(format!(
                    "{path}.base64.media_type: Input should be 'application/pdf'"
                ));
            }
            let data = source["data"].as_str().unwrap_or_default();
            let Ok(bytes) = STANDARD.decode(data) else {
                return invalid(format!("{path}.base64.data: the data is not valid base64"));
            };
            if bytes.is_empty() {
                return invalid(format!("{path}.base64.data: the data is not valid base64"));
            }
            // Anthropic reads the PDF and refuses what is not one.
            if t == "document" && !bytes.starts_with(b"%PDF-") {
                return invalid("The PDF specified was not valid.".to_owned());
            }
        }
        Some("url") if source["url"].is_string() => {}
        Some("text") if t == "document" && source["data"].is_string() => {}
        _ => {
            let kinds = if t == "image" {
                "'base64' or 'url'"
            } else {
                "'base64', 'text' or 'url'"
            };
            return invalid(format!("{path}.type: Input should be {kinds}"));
        }
    }
    Ok(())
}

fn tool_result(b: &Value, path: &str, breakpoints: &mut usize) -> Result<(), Invalid> {
    if !b["tool_use_id"].is_string() {
        return invalid(format!("{path}.tool_use_id: Field required"));
    }
    if !matches!(b["is_error"], Value::Null | Value::Bool(_)) {
        return invalid(format!("{path}.is_error: Input should be a valid boolean"));
    }
    match &b["content"] {
        Value::Null | Value::String(_) => {}
        Value::Array(content) => {
            for (j, inner) in content.iter().enumerate() {
                let path = format!("{path}.content.{j}");
                match kind(inner) {
                    "text" => text_block(inner, &path)?,
                    "image" | "document" => media(inner, &path)?,
                    other => {
                        return invalid(format!(
                            "{path}: Input tag '{other}' found using 'type' does not match any of \
                             the expected tags: 'text', 'image', 'document'"
                        ));
                    }
                }
                cache_control(inner, &path, breakpoints)?;
            }
        }
        _ => {
            return invalid(format!(
                "{path}.content: Input should be a valid string or list"
            ));
        }
    }
    Ok(())
}

/// A block's optional `cache_control: {"type": "ephemeral", "ttl"?: "5m" | "1h"}`.
fn cache_control(b: &Value, path: &str, breakpoints: &mut usize) -> Result<(), Invalid> {
    let Some(control) = b.get("cache_control").filter(|c| !c.is_null()) else {
        return Ok(());
    };
    if control["type"] != "ephemeral" {
        return invalid(format!(
            "{path}.cache_control.type: Input should be 'ephemeral'"
        ));
    }
    if !matches!(
        control.get("ttl").and_then(Value::as_str),
        None | Some("5m" | "1h")
    ) {
        return invalid(format!(
            "{path}.cache_control.ttl: Input should be '5m' or '1h'"
        ));
    }
    *breakpoints += 1;
    Ok(())
}

/// `thinking`: `{"type": "enabled", "budget_tokens": N}` (N ≥ 1024 and below `max_tokens`),
/// `{"type": "disabled"}` or `{"type": "adaptive"}`; with thinking on, the sampling and
/// tool-choice settings Anthropic refuses with it.
fn thinking(body: &Value, max_tokens: u64) -> Result<bool, Invalid> {
    let thinking = &body["thinking"];
    let on = match thinking["type"].as_str() {
        _ if thinking.is_null() => false,
        Some("disabled") => false,
        Some("adaptive") => true,
        Some("enabled") => {
            let Some(budget) = thinking["budget_tokens"].as_u64() else {
                return invalid("thinking.enabled.budget_tokens: Field required");
            };
            if budget < 1024 {
                return invalid(
                    "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
                );
            }
            if budget >= max_tokens {
                return invalid(
                    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our \
                     documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
                );
            }
            true
        }
        _ => {
            return invalid(
                "thinking: Input tag found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'",
            );
        }
    };
    if !on {
        return Ok(false);
    }
    const DOCS: &str = "Please consult our documentation at \
        https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility";
    if body["temperature"].as_f64().is_some_and(|t| t != 1.0) {
        return invalid(format!(
            "`temperature` may only be set to 1 when thinking is enabled. {DOCS}"
        ));
    }
    if !body["top_k"].is_null() {
        return invalid(format!(
            "`top_k` may not be set when thinking is enabled. {DOCS}"
        ));
    }
    if body["top_p"].as_f64().is_some_and(|p| p < 0.95) {
        return invalid(format!(
            "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled. {DOCS}"
        ));
    }
    if matches!(body["tool_choice"]["type"].as_str(), Some("any" | "tool")) {
        return invalid(format!(
            "Thinking may not be enabled when tool_choice forces tool use. {DOCS}"
        ));
    }
    Ok(true)
}
