//! Anthropic's Messages API, natively (`[[providers]] kind = "anthropic"`): `POST
//! {base_url}/v1/messages` with `x-api-key` and `anthropic-version`, streamed as server-sent
//! events.
//!
//! * **The request** ([`request`]): the system prompt apart from the messages; a user
//!   message's images as `image` blocks; an assistant message that called functions as its
//!   thinking blocks (the response's [`ResponseState::Anthropic`](super::replay::ResponseState::Anthropic), in order and unaltered,
//!   as extended thinking requires on the next request of the turn), its text and its
//!   `tool_use` blocks; function results as `tool_result` blocks of one user message;
//!   extended thinking with the model's budget; prompt-cache breakpoints
//!   (`cache_control`) where the model's [`PromptCache`] setting puts them.
//! * **The stream** ([`Events`]): `message_start` (input usage, cached and written),
//!   `content_block_start` / `_delta` (`text_delta`, `thinking_delta`, `signature_delta`,
//!   `input_json_delta`) / `_stop`, `message_delta` (stop reason, output usage),
//!   `message_stop`, `ping`, and `error` mid-stream (an `overloaded_error` is a 529, as the
//!   status of a refused request is). A stream that ends without `message_stop` was cut.
//! * **Errors**: Anthropic's `{"type":"error","error":{"type","message"}}` body's message
//!   with its status (429 and 529 feed the breakers, retries and fallback chains like any
//!   provider's).
//!
//! Events are typed serde structs read straight from each event's data, one per event.

mod events;
mod request;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use super::{
    CallOptions, ChatMessage, DeltaStream, FunctionOffer, Provider, ProviderConfig, ProviderError,
};
use events::Events;

pub use request::PromptCache;

/// The API version Parley speaks (Anthropic's stable one).
pub const VERSION: &str = "2023-06-01";

pub struct AnthropicProvider {
    http: reqwest::Client,
    /// `{base_url}/v1/messages`.
    url: String,
    api_key: Option<SecretString>,
}

impl AnthropicProvider {
    pub fn new(config: &ProviderConfig) -> Self {
        let http = parley_service::tls::http_client()
            .connect_timeout(config.connect_timeout)
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        let base = config.base_url.trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base);
        Self {
            http,
            url: format!("{base}/v1/messages"),
            api_key: config.api_key.clone(),
        }
    }
}

#[async_trait::async_trait]
impl Provider for AnthropicProvider {
    async fn stream(
        &self,
        upstream_model: &str,
        messages: &[ChatMessage],
        functions: &[FunctionOffer],
        partial: Option<&str>,
        options: &CallOptions,
    ) -> Result<DeltaStream, ProviderError> {
        let body = request::build(upstream_model, messages, functions, partial, options);
        let mut call = self
            .http
            .post(&self.url)
            .header("anthropic-version", VERSION)
            .json(&body);
        if let Some(key) = &self.api_key {
            call = call.header("x-api-key", key.expose_secret());
        }
        let response = call.send().await.map_err(|err| match err.status() {
            Some(status) if !err.is_connect() && !err.is_timeout() => ProviderError::Status {
                status: status.as_u16(),
                message: err.to_string(),
            },
            _ => ProviderError::Unreachable(err.to_string()),
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(refusal(status, response).await);
        }
        Ok(Events::new(response.bytes_stream().eventsource()).boxed())
    }
}

/// An error status: the message of Anthropic's error body, or the body itself.
async fn refusal(status: reqwest::StatusCode, response: reqwest::Response) -> ProviderError {
    #[derive(Deserialize)]
    struct Wrapped {
        error: Message,
    }
    #[derive(Deserialize)]
    struct Message {
        message: String,
    }
    let body = match response.bytes().await {
        Ok(body) => body,
        Err(err) => return ProviderError::Unreachable(err.to_string()),
    };
    let message = match serde_json::from_slice::<Wrapped>(&body) {
        Ok(wrapped) => wrapped.error.message,
        Err(_) => String::from_utf8_lossy(&body).into_owned(),
    };
    ProviderError::Status {
        status: status.as_u16(),
        message,
    }
}

#[cfg(test)]
mod tests;
