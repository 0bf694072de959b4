//! Dialects of the chat endpoint: what a provider adds to OpenAI's wire format, and the
//! follow-up requests it refuses (README.md, "Dialects").
//!
//! * `deepseek` — DeepSeek's thinking mode with tools: every reply reasons first, the usage
//!   reports `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`, and an assistant message
//!   with `tool_calls` in the current turn must carry its `reasoning_content`.
//! * `gemini` — Gemini 3 through its OpenAI-compatible endpoint: the first tool call of a
//!   reply carries a thought signature in `extra_content`, and must carry it back.
//!
//! The "current turn" is what follows the last `user` message: the tool loop under way.

use std::str::FromStr;

use serde_json::{Value, json};

use crate::record::RecordedMessage;
use crate::reply::Reply;
use crate::sign;

/// How a model of the chat endpoint behaves beyond plain OpenAI (`MockConfig::dialects`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI's chat completions as they are.
    #[default]
    Plain,
    /// DeepSeek's thinking mode: reasoning on every reply, `reasoning_content` required back.
    DeepSeek,
    /// Gemini 3 (OpenAI-compatible endpoint): thought signatures required back.
    Gemini,
}

impl FromStr for Dialect {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "plain" | "openai" => Ok(Self::Plain),
            "deepseek" => Ok(Self::DeepSeek),
            "gemini" => Ok(Self::Gemini),
            other => Err(format!(
                "unknown dialect `{other}` (plain, deepseek or gemini)"
            )),
        }
    }
}

/// Gemini's documented stand-ins for a signature it never issued (histories from other
/// models); it accepts them, so the mock does.
const GEMINI_DUMMY_SIGNATURES: [&str; 2] = [
    "skip_thought_signature_validator",
    "context_engineering_is_the_way_to_go",
];

impl Dialect {
    /// The dialect's name, as `--model NAME:<name>` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::DeepSeek => "deepseek",
            Self::Gemini => "gemini",
        }
    }

    /// Whether every reply streams reasoning (a default text when the directive has none).
    pub(crate) fn always_reasons(self) -> bool {
        self == Self::DeepSeek
    }

    /// The 400 body for a request the provider refuses, `None` when it is fine.
    pub(crate) fn refusal(self, messages: &[RecordedMessage]) -> Option<Value> {
        let turn = messages
            .iter()
            .rposition(|m| m.role == "user")
            .map_or(0, |i| i + 1);
        let rounds = messages
            .iter()
            .enumerate()
            .skip(turn)
            .filter(|(_, m)| m.role == "assistant" && !m.tool_calls.is_empty());
        match self {
            Self::Plain => None,
            Self::DeepSeek => rounds
                .into_iter()
                .find(|(_, m)| m.reasoning_content.as_deref().is_none_or(str::is_empty))
                .map(|(i, _)| deepseek_error(i)),
            Self::Gemini => rounds.into_iter().find_map(|(i, m)| gemini_refusal(i, m)),
        }
    }

    /// Gemini: the thought signature of the reply's first tool call.
    pub(crate) fn sign(self, reply: &mut Reply) {
        if self == Self::Gemini
            && let Some(call) = reply.tool_calls.first()
        {
            let id = reply.call_id(0);
            reply.thought_signature =
                Some(sign::thought_signature(&id, &call.name, &call.arguments));
        }
    }

    /// What the dialect adds to `usage`.
    pub(crate) fn extend_usage(self, usage: &mut Value, prompt_tokens: u64, cached_tokens: u64) {
        if self == Self::DeepSeek {
            usage["prompt_cache_hit_tokens"] = cached_tokens.into();
            usage["prompt_cache_miss_tokens"] = prompt_tokens.saturating_sub(cached_tokens).into();
        }
    }
}

/// DeepSeek's 400 for an assistant message with `tool_calls` and no `reasoning_content`.
fn deepseek_error(index: usize) -> Value {
    let message = format!(
        "Missing `reasoning_content` field in the assistant message at message index {index}. \
         For more information, please refer to \
         https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"
    );
    json!({ "error": {
        "message": message,
        "type": "invalid_request_error",
        "param": null,
        "code": "invalid_request_error",
    } })
}

/// Gemini's 400 when the first call of the assistant message at `index` lacks its thought
/// signature or carries another one. Gemini's OpenAI-compatible endpoint answers its own
/// error shape, a one-element array.
fn gemini_refusal(index: usize, message: &RecordedMessage) -> Option<Value> {
    let call = message.tool_calls.first()?;
    let function = &call["function"];
    let name = function["name"].as_str().unwrap_or_default();
    let text = match call["extra_content"]["google"]["thought_signature"].as_str() {
        None => format!(
            "Function call is missing a thought_signature in functionCall parts. This is \
             required for tools to work correctly, and missing thought_signature may lead to \
             degraded model performance. Additional data, function call `default_api:{name}` \
             , position {index}. Please refer to \
             https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
        ),
        Some(sig) if GEMINI_DUMMY_SIGNATURES.contains(&sig) => return None,
        Some(sig) => {
            let id = call["id"].as_str().unwrap_or_default();
            let arguments = function["arguments"].as_str().unwrap_or_default();
            if sig == sign::thought_signature(id, name, arguments) {
                return None;
            }
            "Corrupted thought signature.".to_owned()
        }
    };
    Some(json!([{ "error": { "code": 400, "message": text, "status": "INVALID_ARGUMENT" } }]))
}
