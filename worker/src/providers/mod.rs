//! Providers: where a model's tokens come from.
//!
//! A [`Provider`] is one kind of model API: it streams [`Delta`]s and reports failures as
//! a [`ProviderError`], which says which protocol error code (DESIGN §6) it maps to and
//! whether any output was produced. The kinds a deployment configures are the
//! [`ProviderKind`]s: an OpenAI-compatible endpoint's Chat Completions stream
//! ([`openai`]). The built-in offline demo model ([`demo`]) is a provider too, used only
//! when no provider is configured at all. A new kind is one file implementing
//! [`Provider`] and a variant of [`ProviderKind`]; every implementation runs the one
//! conformance suite (`conformance.rs`).
//!
//! A [`Catalog`] maps the model ids clients ask for to a [`Route`]: the model's provider
//! with the model's settings, breakers and fallback chain.

pub mod anthropic;
mod catalog;
#[cfg(test)]
mod conformance;
pub mod demo;
mod messages;
pub mod openai;
mod price;
pub mod replay;

pub use anthropic::PromptCache;
pub use catalog::{Catalog, CatalogError};
pub use messages::{CallRequest, CalledFunction, ChatMessage, Document, FunctionOffer};
pub use price::Price;

use std::{pin::Pin, sync::Arc, time::Duration};

use parley_runtime::breaker::Breakers;

use futures::Stream;
use parley_protocol::client_functions::CallPolicy;
use parley_protocol::error::ErrorCode;
use parley_protocol::events::{CallError, FallbackReason, StopReason, Usage};
use parley_protocol::output::ResponseFormat;
use parley_protocol::sampling::Sampling;
use secrecy::SecretString;

/// A piece of a streamed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta {
    Text(String),
    Reasoning(String),
    /// A piece of a function call: the first piece of call `index` carries its `id` and
    /// `name`, later pieces more of its `arguments` (which may also arrive whole).
    ToolCall {
        index: u32,
        id: Option<String>,
        name: Option<String>,
        arguments: String,
        /// The call's own state, which the provider needs back with it (on any piece;
        /// the last one given counts).
        state: Option<replay::CallState>,
    },
    /// What the provider must see again of this response on the next request of the
    /// turn (its reasoning state), once the response is over.
    State(replay::ResponseState),
    /// Token counts, by kind, as the provider reported them.
    Usage(Usage),
    /// The model stopped before it was done with its answer (at its token limit).
    Stop(StopReason),
}

impl Delta {
    /// Whether this is the model's output (text, reasoning, a call), not a report about
    /// the response (its usage, its state).
    pub fn is_output(&self) -> bool {
        !matches!(self, Self::Usage(_) | Self::State(_) | Self::Stop(_))
    }
}

pub type DeltaStream = Pin<Box<dyn Stream<Item = Result<Delta, ProviderError>> + Send>>;

/// Why a provider call failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProviderError {
    /// The provider answered with an HTTP error status.
    #[error("provider answered HTTP {status}: {message}")]
    Status { status: u16, message: String },
    /// The provider could not be reached (connect, TLS, DNS).
    #[error("provider unreachable: {0}")]
    Unreachable(String),
    /// The stream broke or carried something unreadable after it started.
    #[error("provider stream broke: {0}")]
    Broken(String),
    /// Nothing came within the provider's first-token timeout.
    #[error("no output from the provider within {0:?}")]
    NoFirstToken(Duration),
    /// The provider's breaker is open: no call was made.
    #[error("the provider's circuit breaker is open")]
    CircuitOpen,
}

impl ProviderError {
    /// The protocol error code readers see.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Status { status: 429, .. } => ErrorCode::RateLimited,
            Self::Status { status: 404, .. } => ErrorCode::UnknownModel,
            Self::NoFirstToken(_) => ErrorCode::UpstreamStall,
            _ => ErrorCode::UpstreamError,
        }
    }

    /// How the call failed, as its usage row records it.
    pub fn call_error(&self) -> CallError {
        match self {
            Self::Status { status: 429, .. } => CallError::RateLimited,
            Self::Status { status, .. } if *status < 500 => CallError::Refused,
            Self::Status { .. } => CallError::ServerError,
            Self::Unreachable(_) => CallError::Unreachable,
            Self::Broken(_) => CallError::BrokenStream,
            Self::NoFirstToken(_) => CallError::NoFirstToken,
            // Never recorded: a refused call is no call.
            Self::CircuitOpen => CallError::Refused,
        }
    }

    /// Why the turn leaves this call's model for the next of its fallback chain.
    pub fn fallback_reason(&self) -> FallbackReason {
        match self {
            Self::Status { status: 429, .. } => FallbackReason::RateLimited,
            Self::Status { status, .. } if *status < 500 => FallbackReason::Refused,
            Self::Status { .. } | Self::Broken(_) => FallbackReason::UpstreamError,
            Self::Unreachable(_) => FallbackReason::Unreachable,
            Self::NoFirstToken(_) => FallbackReason::NoFirstToken,
            Self::CircuitOpen => FallbackReason::CircuitOpen,
        }
    }

    /// Whether trying again later may help.
    pub fn retryable(&self) -> bool {
        match self {
            Self::Status { status, .. } => *status == 429 || *status >= 500,
            Self::Unreachable(_) | Self::Broken(_) | Self::NoFirstToken(_) => true,
            // Another try would meet the same open breaker.
            Self::CircuitOpen => false,
        }
    }
}

/// What a title model is asked, as the system message before the user's first message
/// (the `titles` module); the demo model answers it with a title too ([`demo::title`]).
pub const TITLE_INSTRUCTIONS: &str = "Write a title of at most six words for the conversation \
     that starts with the user's message below. Answer with the title only: no quotes, \
     no final full stop.";

/// What one call asks of the model besides its messages: the model's settings that
/// shape a request, and the turn's sampling.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// The most tokens the answer may have (the model's limit, or the turn's below it).
    pub max_tokens: Option<u32>,
    /// The turn's sampling (its `max_output_tokens` is already in `max_tokens`).
    pub sampling: Sampling,
    /// What the answer must be (a JSON object, a value of a schema), when the turn asks.
    pub format: Option<ResponseFormat>,
    /// Extended thinking's budget in tokens (Anthropic); none: no extended thinking.
    pub thinking_budget: Option<u32>,
    /// Where the request marks prompt-cache breakpoints (Anthropic; OpenAI-compatible
    /// providers cache a repeated prefix on their own).
    pub prompt_cache: PromptCache,
    /// Whether the model must call one of the functions offered, and may call several
    /// (sent only with functions).
    pub calls: CallPolicy,
}

/// One kind of model API.
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    /// Starts streaming the answer of `model` (the provider's own name for it) to
    /// `messages`, offering `functions`; with `partial`, the continuation of that answer
    /// (the caller passes one only when the provider's `continue_partial` is set), shaped
    /// by `options`. The stream ends after the answer's last delta (and a
    /// [`Delta::State`] when the provider needs something of the response back) and its
    /// [`Delta::Usage`]; dropping it abandons the call.
    async fn stream(
        &self,
        model: &str,
        messages: &[ChatMessage],
        functions: &[FunctionOffer],
        partial: Option<&str>,
        options: &CallOptions,
    ) -> Result<DeltaStream, ProviderError>;
}

/// The kinds of provider a deployment can configure (`[[providers]] kind`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// An OpenAI-compatible chat completions endpoint.
    #[default]
    Openai,
    /// Anthropic's Messages API.
    Anthropic,
}

impl ProviderKind {
    /// The provider of this kind `config` describes.
    pub fn build(self, config: &ProviderConfig) -> Arc<dyn Provider> {
        match self {
            Self::Openai => Arc::new(openai::OpenAiProvider::new(config)),
            Self::Anthropic => Arc::new(anthropic::AnthropicProvider::new(config)),
        }
    }
}

/// A configured provider: an endpoint of one [`ProviderKind`] (OpenAI, OpenRouter,
/// vLLM, Ollama, llama.cpp server… for `openai`).
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// Also the `vendor` recorded with usage.
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub api_key: Option<SecretString>,
    /// How long establishing a connection may take.
    pub connect_timeout: Duration,
    /// How long a call may take to its first output.
    pub first_token_timeout: Duration,
    /// Whether it continues a final assistant message (`continue_final_message`).
    pub continue_partial: bool,
}

/// A model clients may ask for.
#[derive(Debug, Clone)]
pub struct ModelConfig {
    /// The id clients use.
    pub id: String,
    /// The provider's name for it (default: `id`).
    pub upstream: Option<String>,
    /// The provider that serves it.
    pub provider: String,
    /// The context window, in tokens.
    pub max_context: usize,
    /// The most tokens one answer may have (the request's `max_tokens`).
    pub max_output_tokens: u32,
    /// Whether it accepts images.
    pub vision: bool,
    /// What its tokens cost.
    pub price: Price,
    /// The models that answer, in order, when this one fails before its first token or
    /// may not be called (DESIGN §10).
    pub fallback: Vec<String>,
    /// Extended thinking's budget in tokens (Anthropic), below `max_output_tokens`.
    pub thinking_budget: Option<u32>,
    /// Where its requests mark prompt-cache breakpoints (Anthropic).
    pub prompt_cache: PromptCache,
    /// Whether its provider constrains an answer to a JSON schema (`response_format`;
    /// Anthropic's `output_config`). Without it a turn asking for one is refused.
    pub structured_outputs: bool,
}

/// How to reach one model.
#[derive(Clone)]
pub struct Route {
    pub model: String,
    pub upstream: String,
    pub vendor: String,
    pub max_context: usize,
    /// The most tokens one answer may have: sent with each call, so that a call's
    /// worst-case cost (what budgets hold) really bounds it.
    pub max_output_tokens: u32,
    /// Whether attached images are sent to it (as image parts).
    pub vision: bool,
    /// Whether a turn may ask it for a structured output.
    pub structured_outputs: bool,
    /// What its tokens cost (recorded with each call's usage).
    pub price: Price,
    /// Extended thinking's budget and the cache breakpoints, sent with each call.
    pub thinking_budget: Option<u32>,
    pub prompt_cache: PromptCache,
    /// How long a call may take to its first output (its provider's setting).
    pub first_token_timeout: Duration,
    /// Whether its provider continues a partial answer (its provider's setting).
    pub continue_partial: bool,
    /// The deployment's provider breakers (none for the offline demo model).
    pub breakers: Option<Arc<dyn Breakers>>,
    /// The models that answer when this one cannot, in order.
    pub fallback: Vec<String>,
    provider: Arc<dyn Provider>,
    /// The offline demo model (no breakers, never beside a real provider).
    demo: bool,
}

impl Route {
    /// Starts streaming an answer to `messages`, offering `functions`; with `partial`,
    /// the continuation of that answer (the caller passes one only when
    /// [`Route::continue_partial`]).
    pub async fn stream(
        &self,
        messages: &[ChatMessage],
        functions: &[FunctionOffer],
        partial: Option<&str>,
        sampling: &Sampling,
        format: Option<&ResponseFormat>,
        calls: &CallPolicy,
    ) -> Result<DeltaStream, ProviderError> {
        // A fallback without vision gets the text (the first model of the chain may have
        // been sent images).
        let stripped: Vec<ChatMessage>;
        let messages = if !self.vision && messages.iter().any(|m| !m.images.is_empty()) {
            stripped = messages
                .iter()
                .map(|m| ChatMessage {
                    images: Vec::new(),
                    ..m.clone()
                })
                .collect();
            &stripped
        } else {
            messages
        };
        let max_tokens = self.max_tokens(sampling);
        let options = CallOptions {
            max_tokens: Some(max_tokens),
            sampling: sampling.clone(),
            format: format.cloned(),
            // Thinking needs room for its budget and an answer: a turn asking for
            // fewer tokens than that is answered without it; and Anthropic refuses it
            // beside a forced call, so a turn whose first answer is forced is made
            // without it.
            thinking_budget: self
                .thinking_budget
                .filter(|budget| *budget < max_tokens)
                .filter(|_| !calls.without_thinking()),
            prompt_cache: self.prompt_cache,
            calls: calls.clone(),
        };
        self.provider
            .stream(&self.upstream, messages, functions, partial, &options)
            .await
    }

    /// The most tokens one answer may have with `sampling`: the model's limit, or the
    /// turn's below it.
    pub fn max_tokens(&self, sampling: &Sampling) -> u32 {
        sampling
            .max_output_tokens
            .map_or(self.max_output_tokens, |asked| {
                asked.min(self.max_output_tokens)
            })
    }

    /// Whether this is the built-in offline demo model.
    pub fn is_demo(&self) -> bool {
        self.demo
    }
}

#[cfg(test)]
mod tests;
