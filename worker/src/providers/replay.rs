//! What a provider must see again, on the next request of the same turn, of a response
//! it gave (DESIGN §14, "provider state is the attempt's"): typed per provider kind,
//! made by the provider module that streamed the response and read only by the one
//! that sends the next request. The agent loop carries it from the response to the
//! assistant message of that round without looking inside, and the function calls' rows
//! keep it (`tool_calls.provider_state`), so a retried, taken-over or approval-resumed
//! turn sends it too.
//!
//! The rules it serves:
//! * DeepSeek's thinking mode and Moonshot Kimi: the assistant message that carries
//!   `tool_calls` must carry its `reasoning_content` on the next request of the turn
//!   (400 otherwise); outside the current turn it is dropped (Parley sends earlier
//!   turns as text).
//! * Gemini 3 (OpenAI-compatible endpoint): a function call's `extra_content`
//!   (`google.thought_signature`) must come back with the call.
//! * Anthropic with extended thinking: the last assistant turn's `thinking` and
//!   `redacted_thinking` blocks must come back unaltered, in order, before its
//!   `tool_use` blocks.
//!
//! A provider of another kind ignores a state that is not its own (a fallback to
//! another provider within a turn sends the plain transcript).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A response's state, by the kind of provider that gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResponseState {
    /// An OpenAI-compatible response's reasoning, sent back on its assistant message
    /// under the field it came in.
    Openai { field: ReasoningField, text: String },
    /// An Anthropic response's thinking blocks, in order.
    Anthropic { thinking: Vec<ThinkingBlock> },
}

/// The field an OpenAI-compatible server streams reasoning in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningField {
    /// DeepSeek, Kimi, vLLM, llama.cpp.
    ReasoningContent,
    /// OpenRouter, Ollama.
    Reasoning,
}

impl ReasoningField {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReasoningContent => "reasoning_content",
            Self::Reasoning => "reasoning",
        }
    }
}

/// One of Anthropic's thinking blocks, as the response gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ThinkingBlock {
    /// Thinking text and the signature that certifies it.
    Thinking { thinking: String, signature: String },
    /// Thinking the provider encrypted: opaque data.
    RedactedThinking { data: String },
}

/// One function call's own state, by the kind of provider that made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallState {
    /// An OpenAI-compatible call's `extra_content` (Gemini's thought signature), sent
    /// back with the call exactly as it came.
    Openai { extra_content: Value },
}

impl ResponseState {
    /// The OpenAI-compatible reasoning field and text, if this state is that kind's.
    pub fn openai(&self) -> Option<(ReasoningField, &str)> {
        match self {
            Self::Openai { field, text } => Some((*field, text)),
            Self::Anthropic { .. } => None,
        }
    }

    /// Anthropic's thinking blocks, if this state is that kind's.
    pub fn anthropic(&self) -> Option<&[ThinkingBlock]> {
        match self {
            Self::Anthropic { thinking } => Some(thinking),
            Self::Openai { .. } => None,
        }
    }
}

impl CallState {
    /// The OpenAI-compatible `extra_content`, if this state is that kind's.
    pub fn openai_extra(&self) -> Option<&Value> {
        match self {
            Self::Openai { extra_content } => Some(extra_content),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn states_keep_their_kind_through_json() {
        let states = [
            ResponseState::Openai {
                field: ReasoningField::ReasoningContent,
                text: "I should check the time.".into(),
            },
            ResponseState::Anthropic {
                thinking: vec![
                    ThinkingBlock::RedactedThinking {
                        data: "EmwKAh".into(),
                    },
                    ThinkingBlock::Thinking {
                        thinking: "Let me see.".into(),
                        signature: "c2ln".into(),
                    },
                ],
            },
        ];
        for state in states {
            let json = serde_json::to_value(&state).unwrap();
            assert_eq!(
                serde_json::from_value::<ResponseState>(json).unwrap(),
                state
            );
        }
        let call = CallState::Openai {
            extra_content: json!({"google": {"thought_signature": "abc"}}),
        };
        assert_eq!(
            serde_json::to_value(&call).unwrap(),
            json!({"kind": "openai", "extra_content": {"google": {"thought_signature": "abc"}}})
        );
    }
}
