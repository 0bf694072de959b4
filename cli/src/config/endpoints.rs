//! The sections that name what a deployment reaches beyond itself, with their defaults:
//! model providers and models, MCP servers and payload types.

use secrecy::SecretString;
use serde::{Deserialize, Serialize};

use super::{
    mask,
    sections::{default_max_context, default_max_output_tokens},
};

/// A model provider (`[[providers]]`): an OpenAI-compatible endpoint or Anthropic's.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettings {
    /// Also the `vendor` recorded with usage.
    pub name: String,
    /// The kind of API it speaks: `openai` (an OpenAI-compatible chat completions
    /// endpoint, the default) or `anthropic` (Anthropic's Messages API: `base_url`
    /// `https://api.anthropic.com`, the key sent as `x-api-key`).
    #[serde(default)]
    pub kind: parley_worker::providers::ProviderKind,
    /// E.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    #[serde(serialize_with = "mask::secret_opt")]
    pub api_key: Option<SecretString>,
    /// How long establishing a connection (TCP and TLS) may take; past it the call fails
    /// as unreachable (and is retried, within `worker.max_attempts`).
    #[serde(default = "default_connect_timeout_ms")]
    pub connect_timeout_ms: u64,
    /// How long a call may take to its first output (text, thinking or a function call);
    /// past it the call fails before the first token, and is retried. After the first
    /// token, `worker.stall_timeout_ms` bounds the wait for each next one.
    #[serde(default = "default_first_token_timeout_ms")]
    pub first_token_timeout_ms: u64,
    /// Whether the provider continues a final assistant message
    /// (`continue_final_message`: vLLM, llama.cpp's server). A turn that starts again
    /// after its worker died, or is resumed after its stream broke, then asks the model
    /// to continue the answer it had persisted instead of answering from scratch.
    /// OpenAI and OpenRouter do not: leave it off for them.
    #[serde(default)]
    pub continue_partial: bool,
}

fn default_connect_timeout_ms() -> u64 {
    4_500
}

fn default_first_token_timeout_ms() -> u64 {
    6_000
}

/// An MCP server whose tools become functions (`[[mcp_servers]]`): either `command`
/// (stdio, a child process) or `url` (streamable HTTP).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSettings {
    /// Its functions are named `<name>_<tool>`; letters, digits, `-` and `_`.
    pub name: String,
    /// The program to run (stdio).
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment of the child process (values are secrets: never logged).
    #[serde(default)]
    #[serde(serialize_with = "mask::secret_map")]
    pub env: std::collections::BTreeMap<String, SecretString>,
    /// The streamable HTTP endpoint, e.g. `http://127.0.0.1:8000/mcp`.
    pub url: Option<String>,
    /// Sent as `Authorization: Bearer …` to `url`.
    #[serde(serialize_with = "mask::secret_opt")]
    pub bearer_token: Option<SecretString>,
    /// Permissions a caller needs for any of its functions (default: none beyond the
    /// tool offering the function).
    #[serde(default)]
    pub permissions: Vec<String>,
    /// How long one call may take.
    #[serde(default = "default_mcp_timeout_ms")]
    pub timeout_ms: u64,
    /// How long connecting and listing its tools may take at start-up.
    #[serde(default = "default_mcp_connect_timeout_ms")]
    pub connect_timeout_ms: u64,
    /// Payload types of its tools' results, by tool name (`{ search = "search_hits" }`).
    #[serde(default)]
    pub payload_types: std::collections::BTreeMap<String, String>,
    /// Tools that run asynchronously: the model is told at once that the work was
    /// accepted; the call runs as a job of its own.
    #[serde(default)]
    pub async_tools: Vec<String>,
    /// Tools whose every call waits for the session's owner to approve it (a tool's
    /// definition can ask the same of any function with `approval_required`).
    #[serde(default)]
    pub approval_tools: Vec<String>,
}

/// Where a configured payload type comes from.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PayloadSourceSetting {
    Tool,
    Llm,
}

/// A payload type (`[[payload_types]]`), beside the built-in ones.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PayloadTypeSettings {
    /// `snake_case`; an `llm` type's marker is the name in upper case.
    pub name: String,
    pub description: String,
    pub source: PayloadSourceSetting,
    /// The JSON schema its data must fit (a TOML table, or JSON in a string).
    pub schema: serde_json::Value,
    /// What the model is told about it.
    #[serde(default)]
    pub llm_instructions: String,
    /// Passed to frontends as is (`GET /v1/payload-types`).
    pub frontend_config: Option<serde_json::Value>,
}

fn default_mcp_timeout_ms() -> u64 {
    60_000
}

fn default_mcp_connect_timeout_ms() -> u64 {
    10_000
}

/// A model (`[[models]]`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    /// The id clients use.
    pub id: String,
    /// The provider that serves it.
    pub provider: String,
    /// The provider's name for it (default: `id`).
    pub upstream: Option<String>,
    /// The context window in tokens.
    #[serde(default = "default_max_context")]
    pub max_context: usize,
    /// The most tokens one answer may have: sent as the request's `max_tokens`, and the
    /// output half of the worst case a model call holds against budgets.
    #[serde(default = "default_max_output_tokens")]
    pub max_output_tokens: u32,
    /// Whether the model accepts images (attached images are sent to it as image parts).
    #[serde(default)]
    pub vision: bool,
    /// Whether its provider constrains answers to a JSON schema (`response_format`,
    /// Anthropic's `output_config`); a turn asking a model without it for a structured
    /// output is refused 400. Default true.
    #[serde(default = "yes")]
    pub structured_outputs: bool,
    /// What a million input (prompt) tokens cost, in US dollars; absent: 0. Usage rows
    /// (`ai_usage.cost_usd`) are priced with it when they are written.
    pub input_usd_per_mtok: Option<f64>,
    /// What a million output (completion) tokens cost, in US dollars; absent: 0.
    pub output_usd_per_mtok: Option<f64>,
    /// What a million input tokens read from the provider's prompt cache cost; absent:
    /// the input price (never 0 by default: an unset price does not make them free).
    pub cached_input_usd_per_mtok: Option<f64>,
    /// What a million input tokens written to the provider's prompt cache cost; absent:
    /// the input price.
    pub cache_write_usd_per_mtok: Option<f64>,
    /// What a million output tokens spent thinking cost; absent: the output price.
    pub reasoning_usd_per_mtok: Option<f64>,
    /// Extended thinking's budget in tokens (Anthropic models): at least 1024 and below
    /// `max_output_tokens`; absent: no extended thinking.
    pub thinking_budget_tokens: Option<u32>,
    /// Where requests mark prompt-cache breakpoints (Anthropic models): `off`, `prefix`
    /// (the tools and the system prompt) or `prefix_and_history` (also the request's last
    /// message, which the next request begins with; the default).
    #[serde(default)]
    pub prompt_cache: parley_worker::providers::PromptCache,
    /// Model ids that answer, in order, when this one fails before its first token or
    /// its provider's breaker is open (not followed further: each model lists its own).
    #[serde(default)]
    pub fallback: Vec<String>,
}

fn yes() -> bool {
    true
}
