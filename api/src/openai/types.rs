//! The OpenAI wire shapes Parley answers in, as poem-openapi objects: the document
//! describes them and the handlers serialize them, so the two cannot differ. Names
//! follow OpenAI's own (`chat.completion`, `response`, …); fields the official SDKs
//! require are always present (nullable ones as `null`), per `tests/openai-sdk/SHAPES.md`.
//! Request objects accept and ignore the many fields of OpenAI's requests Parley does
//! not use (`store`, `user`, …): no `deny_unknown_fields` here. The
//! options that would change what the client gets back and that Parley does not offer
//! (`n`, `logprobs`, `audio`, …) are fields, so that asking for one is refused by name.

use poem_openapi::{Enum, Object, Union};
use serde_json::Value;

mod content;
mod response;
mod tools;
mod usage;
pub use content::*;
pub use response::*;
pub use tools::*;
pub use usage::*;

/// One model (a chat tool or a model) the caller may name.
#[derive(Debug, Clone, Object)]
#[oai(rename = "OpenAiModel")]
pub struct OpenAiModel {
    /// `tool:<tool id>` for a chat tool, else a Parley model id.
    pub id: String,
    /// Always `model`.
    pub object: String,
    /// When it was created (Unix seconds).
    pub created: i64,
    /// Always `parley`.
    pub owned_by: String,
    /// A name to show: the tool's name, or the model id.
    pub name: String,
}

/// `GET /openai/v1/models`.
#[derive(Debug, Object)]
#[oai(rename = "OpenAiModelList")]
pub struct OpenAiModelList {
    /// Always `list`.
    pub object: String,
    pub data: Vec<OpenAiModel>,
}

/// Who wrote a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename = "ChatRole", rename_all = "snake_case")]
pub enum ChatRole {
    System,
    Developer,
    User,
    Assistant,
    Tool,
    Function,
}

/// One message of a chat completion request.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatMessageInput")]
pub struct ChatMessageInput {
    pub role: ChatRole,
    /// Absent or null on an assistant message that only called tools.
    pub content: Option<ChatContent>,
    /// A `tool` message's: the call it answers (the `id` of one of the `tool_calls` a
    /// completion returned).
    #[oai(validator(max_length = 200))]
    pub tool_call_id: Option<String>,
    /// An assistant message's calls of the caller's functions (as a completion returned
    /// them).
    pub tool_calls: Option<Vec<ChatToolCall>>,
}

/// `stream_options`.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatStreamOptions")]
pub struct ChatStreamOptions {
    /// Send a last chunk with `usage` and no choices.
    pub include_usage: Option<bool>,
}

/// What a response format asks the answer to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename = "ResponseFormatType", rename_all = "snake_case")]
pub enum ResponseFormatType {
    /// Text (the default).
    Text,
    /// Any JSON object.
    JsonObject,
    /// A value of the given JSON schema.
    JsonSchema,
}

/// A JSON schema the answer must fit.
#[derive(Debug, Clone, Object)]
#[oai(rename = "JsonSchemaFormat")]
pub struct JsonSchemaFormat {
    /// The format's name: letters, digits, `_` and `-`.
    #[oai(validator(min_length = 1, max_length = 64))]
    pub name: String,
    #[oai(validator(max_length = 4096))]
    pub description: Option<String>,
    /// The JSON schema (an object).
    pub schema: Option<Value>,
    /// Ask the provider to constrain its output to the schema exactly (the answer is
    /// checked either way).
    pub strict: Option<bool>,
}

/// A chat completion's `response_format`: `text`, `json_object`, or `json_schema` with
/// `json_schema`. The answer is checked before the turn completes; one that does not fit
/// is asked for once more, then the turn fails (`output_mismatch`). A model that cannot
/// answer in a format is a 400 naming it.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatResponseFormat")]
pub struct ChatResponseFormat {
    #[oai(rename = "type")]
    pub kind: ResponseFormatType,
    pub json_schema: Option<JsonSchemaFormat>,
}

/// A response's `text` settings.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseTextParam")]
pub struct ResponseTextParam {
    pub format: Option<ResponseTextFormatParam>,
}

/// A response's `text.format`: `text`, `json_object`, or `json_schema` with its `name`
/// and `schema` (checked as a chat completion's `response_format`).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseTextFormatParam")]
pub struct ResponseTextFormatParam {
    #[oai(rename = "type")]
    pub kind: ResponseFormatType,
    #[oai(validator(min_length = 1, max_length = 64))]
    pub name: Option<String>,
    #[oai(validator(max_length = 4096))]
    pub description: Option<String>,
    pub schema: Option<Value>,
    pub strict: Option<bool>,
}

/// A chat completion's `stop`: one sequence or up to four.
#[derive(Debug, Clone, Union)]
#[oai(rename = "ChatStop")]
pub enum ChatStop {
    One(String),
    /// At most four (more is 400 `invalid_parameter`).
    Many(Vec<String>),
}

/// `POST /openai/v1/chat/completions`.
#[derive(Debug, Object)]
#[oai(rename = "ChatCompletionRequest")]
pub struct ChatCompletionRequest {
    /// A chat tool (`tool:<id>`) or a model id (`GET /openai/v1/models`).
    #[oai(validator(min_length = 1, max_length = 200))]
    pub model: String,
    /// The conversation; the last one is the user's message this turn answers.
    #[oai(validator(min_items = 1, max_items = 1000))]
    pub messages: Vec<ChatMessageInput>,
    /// Stream `chat.completion.chunk` events (Server-Sent Events).
    pub stream: Option<bool>,
    pub stream_options: Option<ChatStreamOptions>,
    /// Choices to generate: only 1 (more is 400 `unsupported_parameter`).
    pub n: Option<u32>,
    /// Token log probabilities: not available (`true` is 400 `unsupported_parameter`).
    pub logprobs: Option<bool>,
    /// Not available (above 0 is 400 `unsupported_parameter`).
    pub top_logprobs: Option<u32>,
    /// Audio output: not available (400 `unsupported_parameter`).
    pub audio: Option<Value>,
    /// Only `["text"]` (anything else is 400 `unsupported_parameter`).
    pub modalities: Option<Vec<String>>,
    /// Predicted outputs: not available (400 `unsupported_parameter`).
    pub prediction: Option<Value>,
    /// Token biases: not available (a non-empty map is 400 `unsupported_parameter`).
    pub logit_bias: Option<Value>,
    /// The most tokens the answer may have (below the model's and the tool's limits;
    /// the answer stops there with `finish_reason: "length"`).
    #[oai(validator(minimum(value = "1")))]
    pub max_completion_tokens: Option<u32>,
    /// The older name of `max_completion_tokens` (the smaller counts when both are given).
    #[oai(validator(minimum(value = "1")))]
    pub max_tokens: Option<u32>,
    /// 0–2. A tool may fix it or bound it: outside its bounds the value is clamped or
    /// refused 400 `invalid_parameter`, as the tool says.
    #[oai(validator(minimum(value = "0"), maximum(value = "2")))]
    pub temperature: Option<f64>,
    /// 0–1, within the tool's bounds (as `temperature`).
    #[oai(validator(minimum(value = "0"), maximum(value = "1")))]
    pub top_p: Option<f64>,
    /// Up to four sequences where the answer stops (they are not shown).
    pub stop: Option<ChatStop>,
    /// Asks the provider for repeatable sampling (where it offers it).
    pub seed: Option<i64>,
    /// −2–2, within the tool's bounds (as `temperature`).
    #[oai(validator(minimum(value = "-2"), maximum(value = "2")))]
    pub presence_penalty: Option<f64>,
    /// −2–2, within the tool's bounds (as `temperature`).
    #[oai(validator(minimum(value = "-2"), maximum(value = "2")))]
    pub frequency_penalty: Option<f64>,
    /// What the answer must be: text, a JSON object, or a value of a JSON schema.
    pub response_format: Option<ChatResponseFormat>,
    /// Functions the caller runs itself. The model's calls of them end the completion
    /// with `tool_calls` (`finish_reason: tool_calls`); the next request, whose messages
    /// end with a `tool` message per call, continues the same turn. The chat tool's own
    /// functions still run on the server.
    #[oai(validator(max_items = 128))]
    pub tools: Option<Vec<ChatTool>>,
    /// `auto` (the default), `none` (the caller's functions are not offered),
    /// `required` (the model's first answer calls a function: the caller's or the chat
    /// tool's) or `{"type": "function", "function": {"name": …}}` (it calls that one of
    /// `tools`; another name is 400 `invalid_parameter`). A forced choice holds for the
    /// turn's first answer only: after its calls the model may answer.
    pub tool_choice: Option<Value>,
    /// `true` (the default); `false`: at most one call per answer.
    pub parallel_tool_calls: Option<bool>,
}

/// The assistant's message of a completion.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatCompletionMessage")]
pub struct ChatCompletionMessage {
    /// Always `assistant`.
    pub role: String,
    pub content: Option<String>,
    /// Always null.
    pub refusal: Option<String>,
    /// The model's calls of the caller's functions (`finish_reason: tool_calls`); absent
    /// otherwise.
    #[oai(skip_serializing_if_is_none)]
    pub tool_calls: Option<Vec<ChatToolCall>>,
}

/// One choice (there is always exactly one).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatCompletionChoice")]
pub struct ChatCompletionChoice {
    pub index: u32,
    pub message: ChatCompletionMessage,
    /// Always null.
    pub logprobs: Option<Value>,
    /// `stop`, `length`, `tool_calls` (the model called the caller's functions), or
    /// `content_filter` when a module blocked the message or the answer.
    pub finish_reason: String,
}

/// A finished chat completion.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatCompletion")]
pub struct ChatCompletion {
    /// `chatcmpl-<the Parley prompt's id>`.
    pub id: String,
    /// Always `chat.completion`.
    pub object: String,
    pub created: i64,
    pub model: String,
    pub choices: Vec<ChatCompletionChoice>,
    pub usage: ChatCompletionUsage,
}

/// What one chunk adds to the message.
#[derive(Debug, Clone, Default, Object)]
#[oai(rename = "ChatCompletionDelta", skip_serializing_if_is_none)]
pub struct ChatCompletionDelta {
    /// `assistant`, in the first chunk only.
    pub role: Option<String>,
    pub content: Option<String>,
    /// Calls of the caller's functions.
    pub tool_calls: Option<Vec<ChatToolCallDelta>>,
}

/// A choice of a chunk.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatCompletionChunkChoice")]
pub struct ChatCompletionChunkChoice {
    pub index: u32,
    pub delta: ChatCompletionDelta,
    /// Set on the last content chunk only.
    pub finish_reason: Option<String>,
}

/// One `data:` event of a streamed chat completion (the stream ends with
/// `data: [DONE]`).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatCompletionChunk")]
pub struct ChatCompletionChunk {
    pub id: String,
    /// Always `chat.completion.chunk`.
    pub object: String,
    pub created: i64,
    pub model: String,
    /// Empty in the usage chunk.
    pub choices: Vec<ChatCompletionChunkChoice>,
    /// In the last chunk with `stream_options.include_usage`; null otherwise.
    pub usage: Option<ChatCompletionUsage>,
}

/// One item of a response's input, of the kind `type` names (`message` when absent):
///
/// * `message` — `role` and `content` (a string, or `input_text` / `output_text` parts);
/// * `item_reference` — `id` of an output item of one of the caller's responses
///   (`msg_…`, `mcp_…`, `fc_…`), read as that item;
/// * `mcp_call` — a call of Parley's own functions (`name`, `arguments`, `output`), as a
///   response's output has it;
/// * `function_call` (`call_id`, `name`, `arguments`) and `function_call_output`
///   (`call_id`, `output`) — a call of the client's function and its result; the
///   `function_call_output` items that end the input answer the calls a response
///   returned and continue its turn;
/// * `reasoning` — a model's reasoning (`summary`, `encrypted_content`).
///
/// Calls, their results and reasoning are part of the conversation the input describes,
/// not its text: like a Parley conversation's own history, the history a new
/// conversation imports is its messages (docs/openai.md).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseInputItem")]
pub struct ResponseInputItem {
    /// `message` (the default), `item_reference`, `mcp_call`, `function_call`,
    /// `function_call_output` or `reasoning`.
    #[oai(rename = "type")]
    pub kind: Option<String>,
    /// `message`: who wrote it.
    pub role: Option<ChatRole>,
    /// `message`: what it says.
    pub content: Option<ResponseInputContent>,
    /// `item_reference`: the item referred to; other items: their own id.
    #[oai(validator(max_length = 200))]
    pub id: Option<String>,
    /// `function_call`, `function_call_output`: the call's id.
    #[oai(validator(max_length = 200))]
    pub call_id: Option<String>,
    /// `function_call`, `mcp_call`: the function called.
    pub name: Option<String>,
    /// `function_call`, `mcp_call`: its arguments (a JSON text).
    pub arguments: Option<String>,
    /// `function_call_output`: the result (a string or content parts); `mcp_call`: its
    /// output.
    pub output: Option<Value>,
    /// `mcp_call`: the server (`parley`).
    pub server_label: Option<String>,
    /// `mcp_call`: why it failed.
    pub error: Option<String>,
    /// The item's status as its response had it.
    pub status: Option<String>,
    /// `reasoning`: its summary parts.
    pub summary: Option<Vec<Value>>,
    /// `reasoning`: the provider's encrypted reasoning.
    pub encrypted_content: Option<String>,
}

/// A response's input: the user's message, or items.
#[derive(Debug, Clone, Union)]
#[oai(rename = "ResponseInput")]
pub enum ResponseInput {
    Text(String),
    Items(Vec<ResponseInputItem>),
}

/// `POST /openai/v1/responses`.
#[derive(Debug, Object)]
#[oai(rename = "ResponseCreateRequest")]
pub struct ResponseCreateRequest {
    /// A chat tool (`tool:<id>`) or a model id (`GET /openai/v1/models`).
    #[oai(validator(min_length = 1, max_length = 200))]
    pub model: String,
    pub input: ResponseInput,
    /// Added to the tool's system prompt for this turn.
    #[oai(validator(max_length = 32768))]
    pub instructions: Option<String>,
    /// Continue the conversation of this response (`resp_…`).
    #[oai(validator(max_length = 100))]
    pub previous_response_id: Option<String>,
    /// Answer at once (status `queued`) and run in the background; follow it with
    /// `GET /openai/v1/responses/{id}`.
    pub background: Option<bool>,
    /// Stream the response's events (Server-Sent Events).
    pub stream: Option<bool>,
    /// Not available (above 0 is 400 `unsupported_parameter`).
    pub top_logprobs: Option<u32>,
    /// The most tokens the response may have (below the model's and the tool's
    /// limits; a response cut there is `incomplete`, reason `max_output_tokens`).
    #[oai(validator(minimum(value = "1")))]
    pub max_output_tokens: Option<u32>,
    /// 0–2. A tool may fix it or bound it: outside its bounds the value is clamped or
    /// refused 400 `invalid_parameter`, as the tool says.
    #[oai(validator(minimum(value = "0"), maximum(value = "2")))]
    pub temperature: Option<f64>,
    /// 0–1, within the tool's bounds (as `temperature`).
    #[oai(validator(minimum(value = "0"), maximum(value = "1")))]
    pub top_p: Option<f64>,
    /// The answer's text settings: its `format` (text, a JSON object, a JSON schema).
    pub text: Option<ResponseTextParam>,
    /// Functions the caller runs itself. The model's calls of them are `function_call`
    /// output items and end the response (`completed`) while the turn waits; a request
    /// whose input ends with a `function_call_output` per call (with
    /// `previous_response_id`, or after the whole input) continues the same turn as a
    /// new response. The chat tool's own functions still run on the server.
    #[oai(validator(max_items = 128))]
    pub tools: Option<Vec<ResponseFunctionTool>>,
    /// `auto` (the default), `none` (the caller's functions are not offered),
    /// `required` (the model's first answer calls a function: the caller's or the chat
    /// tool's) or `{"type": "function", "name": …}` (it calls that one of
    /// `tools`; another name is 400 `invalid_parameter`). A forced choice holds for the
    /// turn's first answer only: after its calls the model may answer.
    pub tool_choice: Option<Value>,
    /// `true` (the default); `false`: at most one call per answer.
    pub parallel_tool_calls: Option<bool>,
}

/// One event of a response's stream (`event: <type>`, `data: {…}`): `response.created`,
/// `response.queued`, `response.in_progress`, `response.output_item.added`,
/// `response.content_part.added`, `response.output_text.delta`,
/// `response.output_text.done`, `response.content_part.done`,
/// `response.output_item.done`, `response.function_call_arguments.delta`,
/// `response.function_call_arguments.done`, `response.mcp_call_arguments.delta`,
/// `response.mcp_call_arguments.done`, `response.mcp_call.in_progress`,
/// `response.mcp_call.completed`, `response.mcp_call.failed`, and one terminal event:
/// `response.completed`, `response.failed` or `response.incomplete` (a cancelled
/// response: `response.incomplete` with `response.status` `cancelled`). Numbered from 0,
/// the same on every replay while the prompt's events are kept.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseStreamEvent")]
pub struct ResponseStreamEvent {
    #[oai(rename = "type")]
    pub kind: String,
    pub sequence_number: u64,
}

/// One Server-Sent Event of a streamed chat completion, as an SSE client sees it: a
/// `data:` line and no `event:` or `id:`.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatCompletionSseEvent")]
pub struct ChatCompletionSseEvent {
    /// A `ChatCompletionChunk` as JSON (see that schema); the last event's is `[DONE]`.
    pub data: String,
}

/// One Server-Sent Event of a response's stream, as an SSE client sees it.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseSseEvent")]
pub struct ResponseSseEvent {
    /// The event's type, the same as `type` in `data`.
    pub event: String,
    /// A `ResponseStreamEvent` as JSON (see that schema).
    pub data: String,
}

/// The error of a failed request, in OpenAI's shape.
#[derive(Debug, Clone, Object)]
#[oai(rename = "OpenAiErrorDetail")]
pub struct OpenAiErrorDetail {
    pub message: String,
    /// `invalid_request_error`, `authentication_error`, `permission_error`,
    /// `not_found_error`, `rate_limit_error` (with `requests` or `tokens` limits) or
    /// `server_error`.
    #[oai(rename = "type")]
    pub kind: String,
    pub param: Option<String>,
    /// Parley's error code (`model_not_found`, `rate_limit_exceeded`, …).
    pub code: Option<String>,
}

/// `{"error": {…}}`.
#[derive(Debug, Clone, Object)]
#[oai(rename = "OpenAiError")]
pub struct OpenAiErrorBody {
    pub error: OpenAiErrorDetail,
}
