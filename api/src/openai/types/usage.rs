//! A chat completion's token counts, from a turn's usage.

use poem_openapi::Object;

/// Token counts of a completion.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatCompletionUsage")]
pub struct ChatCompletionUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    pub prompt_tokens_details: ChatPromptTokensDetails,
    pub completion_tokens_details: ChatCompletionTokensDetails,
}

/// The prompt tokens read from the provider's prompt cache.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatPromptTokensDetails")]
pub struct ChatPromptTokensDetails {
    pub cached_tokens: u64,
}

/// The completion tokens the model spent reasoning.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatCompletionTokensDetails")]
pub struct ChatCompletionTokensDetails {
    pub reasoning_tokens: u64,
}

impl From<parley_protocol::events::Usage> for ChatCompletionUsage {
    fn from(usage: parley_protocol::events::Usage) -> Self {
        Self {
            prompt_tokens: usage.input_tokens,
            completion_tokens: usage.output_tokens,
            total_tokens: usage.input_tokens + usage.output_tokens,
            prompt_tokens_details: ChatPromptTokensDetails {
                cached_tokens: usage.cached_input_tokens,
            },
            completion_tokens_details: ChatCompletionTokensDetails {
                reasoning_tokens: usage.reasoning_tokens,
            },
        }
    }
}
