//! The response object of the Responses API and its parts (output items, usage, the
//! settings it reports).

use std::collections::HashMap;

use poem_openapi::{Object, Union};
use serde_json::Value;

/// A text part of an output message.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseOutputText")]
pub struct ResponseOutputText {
    /// Always `output_text`.
    #[oai(rename = "type")]
    pub kind: String,
    pub text: String,
    /// Always empty.
    pub annotations: Vec<Value>,
    /// Always empty.
    pub logprobs: Vec<Value>,
}

/// An assistant message of the output.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseOutputMessage")]
pub struct ResponseOutputMessage {
    pub id: String,
    /// Always `message`.
    #[oai(rename = "type")]
    pub kind: String,
    /// Always `assistant`.
    pub role: String,
    /// `in_progress`, `completed` or `incomplete`.
    pub status: String,
    pub content: Vec<ResponseOutputText>,
}

/// A function Parley ran for the model (a call already answered, in the shape of a
/// remote MCP tool call).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseMcpCall")]
pub struct ResponseMcpCall {
    pub id: String,
    /// Always `mcp_call`.
    #[oai(rename = "type")]
    pub kind: String,
    /// Always `parley`.
    pub server_label: String,
    /// The function.
    pub name: String,
    /// Its arguments, as a JSON string.
    pub arguments: String,
    /// Its result, as a JSON string (null until it ran, or when it failed).
    pub output: Option<String>,
    /// Why it failed (null unless it did), as OpenAI's `mcp_call` says it: a string.
    pub error: Option<String>,
    /// `in_progress`, `completed`, `failed` or `incomplete`.
    pub status: String,
}

/// One item of a response's output.
#[derive(Debug, Clone, Union)]
#[oai(rename = "ResponseOutputItem", discriminator_name = "type", one_of)]
pub enum ResponseOutputItem {
    #[oai(mapping = "message")]
    Message(ResponseOutputMessage),
    #[oai(mapping = "mcp_call")]
    McpCall(ResponseMcpCall),
    #[oai(mapping = "function_call")]
    FunctionCall(super::ResponseFunctionCall),
}

/// Cached input tokens (always 0).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseInputTokensDetails")]
pub struct ResponseInputTokensDetails {
    pub cached_tokens: u64,
    pub cache_write_tokens: u64,
}

/// Reasoning output tokens (always 0).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseOutputTokensDetails")]
pub struct ResponseOutputTokensDetails {
    pub reasoning_tokens: u64,
}

/// Token counts of a response.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseUsage")]
pub struct ResponseUsage {
    pub input_tokens: u64,
    pub input_tokens_details: ResponseInputTokensDetails,
    pub output_tokens: u64,
    pub output_tokens_details: ResponseOutputTokensDetails,
    pub total_tokens: u64,
}

/// Why a response failed.
#[derive(Debug, Clone, Object)]
#[oai(rename = "OpenAiResponseError")]
pub struct ResponseError {
    /// `server_error` or `rate_limit_exceeded`.
    pub code: String,
    /// What failed, with Parley's error code.
    pub message: String,
}

/// Why a response is incomplete.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseIncompleteDetails")]
pub struct ResponseIncompleteDetails {
    /// `content_filter`: a module blocked the message or the answer.
    pub reason: String,
}

/// The text format: `text`, `json_object`, or `json_schema` with the schema asked for.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseTextFormat", skip_serializing_if_is_none)]
pub struct ResponseTextFormat {
    #[oai(rename = "type")]
    pub kind: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub schema: Option<serde_json::Value>,
    pub strict: Option<bool>,
}

/// The response's text settings.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseText")]
pub struct ResponseText {
    pub format: ResponseTextFormat,
}

/// A response's reasoning settings.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseReasoning")]
pub struct ResponseReasoning {
    /// `minimal`, `low`, `medium` or `high` (null: the model's own).
    pub effort: Option<String>,
    /// `auto`, `concise` or `detailed` (null: none asked for).
    pub summary: Option<String>,
}

/// A response: one Parley prompt, in the Responses API's shape.
#[derive(Debug, Clone, Object)]
#[oai(rename = "OpenAiResponse")]
pub struct OpenAiResponse {
    /// `resp_<the Parley prompt's id>`.
    pub id: String,
    /// Always `response`.
    pub object: String,
    pub created_at: i64,
    /// `queued`, `in_progress`, `completed`, `failed`, `cancelled` or `incomplete`.
    pub status: String,
    pub background: bool,
    pub completed_at: Option<i64>,
    pub error: Option<ResponseError>,
    pub incomplete_details: Option<ResponseIncompleteDetails>,
    pub instructions: Option<String>,
    pub metadata: HashMap<String, String>,
    pub model: String,
    pub output: Vec<ResponseOutputItem>,
    pub parallel_tool_calls: bool,
    pub previous_response_id: Option<String>,
    /// The sampling the model ran with: its provider's defaults (1, 1, 0, 0), which
    /// Parley does not change.
    pub temperature: f64,
    pub top_p: f64,
    pub presence_penalty: f64,
    pub frequency_penalty: f64,
    /// Always 0: Parley returns no log probabilities.
    pub top_logprobs: i64,
    /// Always null: the model's own reasoning settings apply.
    pub reasoning: Option<ResponseReasoning>,
    /// As the request asked (within the tool's bounds); null: the tool's.
    pub max_output_tokens: Option<i64>,
    /// Always null: the tool's own limit on function rounds applies.
    pub max_tool_calls: Option<i64>,
    /// Always `default`.
    pub service_tier: String,
    /// Always null: a request's `safety_identifier` and `prompt_cache_key` are not
    /// kept (the caller is known by its token; Parley keys provider caches itself).
    pub safety_identifier: Option<String>,
    pub prompt_cache_key: Option<String>,
    /// As the request asked: `auto` (the default), `none`, `required`, or the function
    /// it named (`{"type": "function", "name": …}`).
    pub tool_choice: Value,
    /// The caller's function tools offered to the model (none with `tool_choice: none`;
    /// Parley's own functions are the chat tool's, run by Parley, and not listed).
    pub tools: Vec<Value>,
    pub text: ResponseText,
    /// Always `disabled`.
    pub truncation: String,
    pub usage: Option<ResponseUsage>,
    pub user: Option<String>,
    /// Always true: every response is kept (as a Parley prompt).
    pub store: bool,
}
