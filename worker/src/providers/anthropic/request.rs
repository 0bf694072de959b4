//! The Messages request of one call: Parley's messages in Anthropic's form, and where
//! the prompt-cache breakpoints go.
//!
//! Caching pays when the prefix a request shares with the next one is marked: the tools
//! and the system prompt (the same every request of a session) and, with history, the
//! last message of the request — which the next request of the turn (a function round)
//! and of the session (the next turn) begin with, and find through Anthropic's lookback
//! from their own last message. At most two breakpoints of the four Anthropic allows.

use parley_protocol::client_functions::ToolChoice;
use parley_protocol::output::ResponseFormat;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::super::{CallOptions, ChatMessage, FunctionOffer, replay::ThinkingBlock};

/// Where a model's requests put prompt-cache breakpoints (`[[models]] prompt_cache`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptCache {
    /// None: nothing is cached.
    Off,
    /// The tools and the system prompt.
    Prefix,
    /// The tools and the system prompt, and the request's last message (what the next
    /// request of the turn or the session begins with).
    #[default]
    PrefixAndHistory,
}

/// The request body.
pub(super) fn build(
    model: &str,
    messages: &[ChatMessage],
    functions: &[FunctionOffer],
    partial: Option<&str>,
    options: &CallOptions,
) -> Value {
    let system: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == "system")
        .map(|m| m.content.as_str())
        .collect();
    let mut turns = conversation(messages.iter().filter(|m| m.role != "system"));
    if let Some(partial) = partial {
        // The answer so far as a final assistant message, which the model continues
        // (Anthropic refuses one that ends in white space).
        let text = partial.trim_end();
        if !text.is_empty() {
            push(
                &mut turns,
                "assistant",
                vec![json!({"type": "text", "text": text})],
            );
        }
    }
    let cache = options.prompt_cache;
    let mut body = json!({
        "model": model,
        "max_tokens": options.max_tokens.unwrap_or(4096),
        "stream": true,
    });
    if !functions.is_empty() {
        let mut tools: Vec<Value> = functions
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "description": f.description,
                    "input_schema": schema(&f.parameters),
                })
            })
            .collect();
        // The tools come first in the prompt: without a system prompt the last tool
        // ends the prefix.
        if cache != PromptCache::Off
            && system.is_empty()
            && let Some(last) = tools.last_mut()
        {
            mark(last);
        }
        body["tools"] = tools.into();
        let mut choice = match &options.calls.choice {
            ToolChoice::Auto | ToolChoice::None if options.calls.serial => json!({"type": "auto"}),
            ToolChoice::Auto | ToolChoice::None => Value::Null,
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::Function { name } => json!({"type": "tool", "name": name}),
        };
        if options.calls.serial {
            choice["disable_parallel_tool_use"] = true.into();
        }
        if !choice.is_null() {
            body["tool_choice"] = choice;
        }
    }
    if !system.is_empty() {
        let mut block = json!({"type": "text", "text": system.join("\n\n")});
        if cache != PromptCache::Off {
            mark(&mut block);
        }
        body["system"] = json!([block]);
    }
    if cache == PromptCache::PrefixAndHistory {
        // The last block of the request's last message that may carry a breakpoint (not
        // a final assistant prefill: the next request does not begin with it).
        let at = turns.iter().rposition(|t| t["role"] == "user");
        if let Some(at) = at
            && let Some(last) = turns[at]["content"]
                .as_array_mut()
                .and_then(|blocks| blocks.last_mut())
        {
            mark(last);
        }
    }
    body["messages"] = turns.into();
    if let Some(budget) = options.thinking_budget {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
    }
    sample(&mut body, options);
    // A schema constrains the answer (`output_config.format`); a plain JSON object has
    // no such form on Anthropic and is checked after the answer.
    if let Some(ResponseFormat::JsonSchema { schema, .. }) = &options.format {
        body["output_config"] = json!({"format": {"type": "json_schema", "schema": schema}});
    }
    body
}

/// The turn's sampling as Anthropic reads it: `temperature` (its range is 0–1: above
/// is 1) or else `top_p` — recent models refuse both — and neither with extended
/// thinking, which refuses them; `stop_sequences`. Anthropic has no penalties and no
/// seed: they are not sent.
fn sample(body: &mut Value, options: &CallOptions) {
    let sampling = &options.sampling;
    if options.thinking_budget.is_none() {
        if let Some(temperature) = sampling.temperature {
            body["temperature"] = temperature.min(1.0).into();
        } else if let Some(top_p) = sampling.top_p {
            body["top_p"] = top_p.into();
        }
    }
    if !sampling.stop.is_empty() {
        body["stop_sequences"] = sampling.stop.clone().into();
    }
}

/// A cache breakpoint on `block`.
fn mark(block: &mut Value) {
    block["cache_control"] = json!({"type": "ephemeral"});
}

/// A function's JSON schema as Anthropic's `input_schema`: an object schema.
fn schema(parameters: &Value) -> Value {
    match parameters {
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("object") => {
            parameters.clone()
        }
        Value::Object(map) => {
            let mut map = map.clone();
            map.insert("type".into(), "object".into());
            Value::Object(map)
        }
        _ => json!({"type": "object"}),
    }
}

/// The messages as Anthropic's alternating turns: consecutive messages of one role
/// (results of parallel calls, a user message after results) become one turn.
fn conversation<'a>(messages: impl Iterator<Item = &'a ChatMessage>) -> Vec<Value> {
    let mut turns = Vec::new();
    for message in messages {
        match message.role {
            "assistant" => push(&mut turns, "assistant", assistant(message)),
            "tool" => push(
                &mut turns,
                "user",
                vec![json!({
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id.clone().unwrap_or_default(),
                    "content": non_empty(&message.content),
                })],
            ),
            _ => push(&mut turns, "user", user(message)),
        }
    }
    turns
}

/// Appends `blocks` to the last turn when it has `role`, else as a new turn.
fn push(turns: &mut Vec<Value>, role: &str, blocks: Vec<Value>) {
    if blocks.is_empty() {
        return;
    }
    if let Some(last) = turns.last_mut()
        && last["role"] == role
        && let Some(content) = last["content"].as_array_mut()
    {
        content.extend(blocks);
        return;
    }
    turns.push(json!({"role": role, "content": blocks}));
}

/// A user message's blocks: its PDFs as `document` blocks (first, as Anthropic
/// recommends; their extracted text left out of the message's text), its text, then its
/// images.
fn user(message: &ChatMessage) -> Vec<Value> {
    let mut blocks = Vec::with_capacity(1 + message.images.len() + message.documents.len());
    let mut text = message.content.clone();
    for document in &message.documents {
        blocks.push(json!({
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": document.data},
            "title": document.name,
        }));
        text = text.replacen(&document.inlined, &document.placeholder(), 1);
    }
    if !text.trim().is_empty() {
        blocks.push(json!({"type": "text", "text": text}));
    }
    blocks.extend(message.images.iter().filter_map(|url| image(url)));
    if blocks.is_empty() {
        blocks.push(json!({"type": "text", "text": "(empty message)"}));
    }
    blocks
}

/// A `data:` URL as an `image` block.
fn image(url: &str) -> Option<Value> {
    let rest = url.strip_prefix("data:")?;
    let (media_type, data) = rest.split_once(";base64,")?;
    Some(json!({
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": data},
    }))
}

/// An assistant message's blocks: its thinking (when its response was Anthropic's), its
/// text, its calls.
fn assistant(message: &ChatMessage) -> Vec<Value> {
    let mut blocks: Vec<Value> = message
        .state
        .as_ref()
        .and_then(|state| state.anthropic())
        .unwrap_or_default()
        .iter()
        .map(|block| match block {
            ThinkingBlock::Thinking {
                thinking,
                signature,
            } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
            ThinkingBlock::RedactedThinking { data } => {
                json!({"type": "redacted_thinking", "data": data})
            }
        })
        .collect();
    let text = message.content.trim_end();
    if !text.trim().is_empty() {
        blocks.push(json!({"type": "text", "text": text}));
    }
    for call in &message.tool_calls {
        blocks.push(json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.function.name,
            "input": input(&call.function.arguments),
        }));
    }
    blocks
}

/// A call's arguments as `tool_use` input: an object (arguments that are not one are
/// kept as the text they were, under `arguments`).
fn input(arguments: &str) -> Value {
    if arguments.trim().is_empty() {
        return Value::Object(Map::new());
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(object @ Value::Object(_)) => object,
        _ => json!({"arguments": arguments}),
    }
}

/// Content Anthropic accepts: no empty text.
fn non_empty(text: &str) -> &str {
    if text.trim().is_empty() {
        "(no output)"
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::{
        CallRequest,
        replay::{ResponseState, ThinkingBlock},
    };

    fn options(cache: PromptCache, thinking: Option<u32>) -> CallOptions {
        CallOptions {
            max_tokens: Some(2048),
            thinking_budget: thinking,
            prompt_cache: cache,
            ..CallOptions::default()
        }
    }

    #[test]
    fn a_round_goes_back_with_its_thinking_first_and_results_in_one_user_turn() {
        let thinking = vec![
            ThinkingBlock::RedactedThinking {
                data: "opaque".into(),
            },
            ThinkingBlock::Thinking {
                thinking: "Two calls.".into(),
                signature: "sig".into(),
            },
        ];
        let messages = [
            ChatMessage::system("Be brief."),
            ChatMessage::user("time and weather?"),
            ChatMessage::assistant_calls(
                "Checking. ",
                vec![
                    CallRequest::new("t1", "getCurrentTime", r#"{"time_zone": "UTC"}"#),
                    CallRequest::new("t2", "weather", ""),
                ],
                Some(ResponseState::Anthropic { thinking }),
            ),
            ChatMessage::tool_result("t1", "12:00"),
            ChatMessage::tool_result("t2", ""),
        ];
        let body = build(
            "claude",
            &messages,
            &[],
            None,
            &options(PromptCache::Off, Some(1024)),
        );
        assert_eq!(body["system"][0]["text"], "Be brief.");
        assert!(body["system"][0].get("cache_control").is_none());
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 1024})
        );
        let turns = body["messages"].as_array().unwrap();
        assert_eq!(turns.len(), 3);
        let types: Vec<&str> = turns[1]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            [
                "redacted_thinking",
                "thinking",
                "text",
                "tool_use",
                "tool_use"
            ]
        );
        assert_eq!(turns[1]["content"][1]["signature"], "sig");
        assert_eq!(turns[1]["content"][2]["text"], "Checking.");
        assert_eq!(turns[1]["content"][3]["input"], json!({"time_zone": "UTC"}));
        assert_eq!(turns[1]["content"][4]["input"], json!({}));
        let results = turns[2]["content"].as_array().unwrap();
        assert_eq!(results.len(), 2, "one user turn for both results");
        assert_eq!(results[1]["content"], "(no output)");
    }

    #[test]
    fn breakpoints_mark_the_prefix_and_the_last_message() {
        let messages = [
            ChatMessage::system("Be brief."),
            ChatMessage::user("one"),
            ChatMessage::assistant("two"),
            ChatMessage::user("three"),
        ];
        let offers = [FunctionOffer {
            name: "f".into(),
            description: "does f".into(),
            parameters: json!({"properties": {}}),
        }];
        let marked = |body: &Value| -> usize { body.to_string().matches("cache_control").count() };
        let off = build(
            "m",
            &messages,
            &offers,
            None,
            &options(PromptCache::Off, None),
        );
        assert_eq!(marked(&off), 0);
        assert_eq!(off["tools"][0]["input_schema"]["type"], "object");
        let prefix = build(
            "m",
            &messages,
            &offers,
            None,
            &options(PromptCache::Prefix, None),
        );
        assert_eq!(marked(&prefix), 1);
        assert!(prefix["system"][0].get("cache_control").is_some());
        let history = build(
            "m",
            &messages,
            &offers,
            Some("par"),
            &options(PromptCache::PrefixAndHistory, None),
        );
        assert_eq!(marked(&history), 2);
        let turns = history["messages"].as_array().unwrap();
        assert!(turns[2]["content"][0].get("cache_control").is_some());
        assert_eq!(turns[3]["role"], "assistant", "the prefill");
        assert!(turns[3]["content"][0].get("cache_control").is_none());
    }

    #[test]
    fn a_pdf_goes_as_a_document_block_first_and_its_text_is_not_sent_twice() {
        let inlined = "\n\n[Attachment: paper.pdf (application/pdf)]\nChlorophyll is green";
        let mut message = ChatMessage::user(format!("what does it say?{inlined}"));
        message.documents = vec![crate::providers::Document {
            name: "paper.pdf".into(),
            data: "JVBERi0xLjQ=".into(),
            inlined: inlined.into(),
        }];
        let body = build("m", &[message], &[], None, &options(PromptCache::Off, None));
        let blocks = body["messages"][0]["content"].as_array().unwrap();
        assert_eq!(blocks[0]["type"], "document");
        assert_eq!(blocks[0]["source"]["media_type"], "application/pdf");
        assert_eq!(blocks[0]["source"]["data"], "JVBERi0xLjQ=");
        assert_eq!(
            blocks[1]["text"],
            "what does it say?\n\n[Attachment: paper.pdf (application/pdf)] — the document is attached."
        );
    }

    #[test]
    fn a_forced_choice_is_anthropics_any_or_tool_and_serial_calls_disable_parallel_use() {
        use parley_protocol::client_functions::CallPolicy;
        let offers = [FunctionOffer {
            name: "lookup".into(),
            description: "looks up".into(),
            parameters: json!({"type": "object"}),
        }];
        let choice_of = |choice: ToolChoice, serial: bool| {
            let mut options = options(PromptCache::Off, None);
            options.calls = CallPolicy {
                choice,
                serial,
                ..CallPolicy::default()
            };
            build("m", &[ChatMessage::user("hi")], &offers, None, &options)["tool_choice"].clone()
        };
        assert!(choice_of(ToolChoice::Auto, false).is_null());
        assert_eq!(
            choice_of(ToolChoice::Required, false),
            json!({"type": "any"})
        );
        let named = ToolChoice::Function {
            name: "lookup".into(),
        };
        assert_eq!(
            choice_of(named, true),
            json!({"type": "tool", "name": "lookup", "disable_parallel_tool_use": true})
        );
        assert_eq!(
            choice_of(ToolChoice::None, true),
            json!({"type": "auto", "disable_parallel_tool_use": true})
        );
    }
}
