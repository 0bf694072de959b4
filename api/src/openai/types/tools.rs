//! The shapes of the caller's own functions: on chat completions `tools`, the
//! `tool_calls` a completion returns and the deltas a stream carries them in; on the
//! Responses API its flat function `tools` and the `function_call` output item.

use poem_openapi::Object;
use serde_json::Value;

/// A function the caller offers the model (`tools`).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatTool")]
pub struct ChatTool {
    /// `function` (the only kind).
    #[oai(rename = "type")]
    pub kind: String,
    pub function: ChatFunctionDef,
}

/// What a caller's function is.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatFunctionDef")]
pub struct ChatFunctionDef {
    /// Letters, digits, `_` and `-`; not one of the chat tool's own functions (400).
    #[oai(validator(min_length = 1, max_length = 64))]
    pub name: String,
    #[oai(validator(max_length = 4096))]
    pub description: Option<String>,
    /// The JSON schema of its arguments (absent: any object).
    pub parameters: Option<Value>,
    /// Accepted; the arguments are checked against `parameters` either way.
    pub strict: Option<bool>,
}

/// A call of one of the caller's functions: run it and send its result back as a `tool`
/// message with this `id` as its `tool_call_id`.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatToolCall")]
pub struct ChatToolCall {
    /// `call_<hex>`.
    #[oai(validator(max_length = 200))]
    pub id: String,
    /// Always `function`.
    #[oai(rename = "type")]
    pub kind: String,
    pub function: ChatFunctionCall,
}

/// The function called and its arguments.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatFunctionCall")]
pub struct ChatFunctionCall {
    pub name: String,
    /// JSON text that fits the function's `parameters`.
    pub arguments: String,
}

/// A streamed call: its first chunk has `id`, `type` and the function's `name`; the
/// arguments follow as `function.arguments` deltas (all in one here).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatToolCallDelta", skip_serializing_if_is_none)]
pub struct ChatToolCallDelta {
    /// The call's place in the message's `tool_calls`.
    pub index: u32,
    pub id: Option<String>,
    #[oai(rename = "type")]
    pub kind: Option<String>,
    pub function: Option<ChatFunctionCallDelta>,
}

/// A part of a streamed call's function.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatFunctionCallDelta", skip_serializing_if_is_none)]
pub struct ChatFunctionCallDelta {
    pub name: Option<String>,
    pub arguments: Option<String>,
}

/// A function the caller offers the model on the Responses API (`tools`: flat, not
/// nested under `function` as on chat completions).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseFunctionTool")]
pub struct ResponseFunctionTool {
    /// `function` (the only kind: Parley's own functions are the chat tool's).
    #[oai(rename = "type")]
    pub kind: String,
    /// Letters, digits, `_` and `-`; not one of the chat tool's own functions (400).
    #[oai(validator(min_length = 1, max_length = 64))]
    pub name: String,
    #[oai(validator(max_length = 4096))]
    pub description: Option<String>,
    /// The JSON schema of its arguments (absent: any object).
    pub parameters: Option<Value>,
    /// Accepted; the arguments are checked against `parameters` either way.
    pub strict: Option<bool>,
}

impl From<ResponseFunctionTool> for ChatTool {
    fn from(tool: ResponseFunctionTool) -> Self {
        Self {
            kind: tool.kind,
            function: ChatFunctionDef {
                name: tool.name,
                description: tool.description,
                parameters: tool.parameters,
                strict: tool.strict,
            },
        }
    }
}

/// A call of one of the caller's functions in a response's output: run it and send its
/// result as a `function_call_output` input item with this `call_id` (with
/// `previous_response_id`, or after this item in the whole input).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseFunctionCall")]
pub struct ResponseFunctionCall {
    /// `fc_<response>_<n>`.
    pub id: String,
    /// Always `function_call`.
    #[oai(rename = "type")]
    pub kind: String,
    /// `call_<hex>`.
    pub call_id: String,
    pub name: String,
    /// JSON text that fits the function's `parameters`.
    pub arguments: String,
    /// `in_progress` while announced, then `completed`.
    pub status: String,
}
