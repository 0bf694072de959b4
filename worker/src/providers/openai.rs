//! OpenAI-compatible providers through async-openai.
//!
//! Requests and chunks are our own types (async-openai's "bring your own types" calls),
//! so that providers' reasoning fields (`reasoning_content`, `reasoning`) reach us. A
//! stream must end with a `finish_reason`; one that stops without it was cut. Retries
//! are the agent loop's, not the HTTP client's.

use async_openai::{Client, config::OpenAIConfig, error::OpenAIError};
use futures::StreamExt;
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::json;

use super::{
    ChatMessage, Delta, DeltaStream, FunctionOffer, Provider, ProviderConfig, ProviderError,
};

pub struct OpenAiProvider {
    client: Client<OpenAIConfig>,
}

impl OpenAiProvider {
    pub fn new(config: &ProviderConfig) -> Self {
        let key = config
            .api_key
            .as_ref()
            .map(|k| k.expose_secret().to_owned())
            .unwrap_or_default();
        let openai = OpenAIConfig::new()
            .with_api_base(config.base_url.trim_end_matches('/'))
            .with_api_key(key);
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        Self {
            // async-openai's default transport retries 429s and 5xx itself, with its own
            // backoff; Parley's agent loop owns retries (bounded, cancellable, counted in
            // usage), so the client gets the plain transport without that layer.
            client: Client::with_config(openai)
                .with_http_service(async_openai::middleware::ReqwestService::new(http)),
        }
    }
}

#[async_trait::async_trait]
impl Provider for OpenAiProvider {
    async fn stream(
        &self,
        upstream_model: &str,
        messages: &[ChatMessage],
        functions: &[FunctionOffer],
        partial: Option<&str>,
        max_tokens: Option<u32>,
    ) -> Result<DeltaStream, ProviderError> {
        let mut request = json!({
            "model": upstream_model,
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        // The answer so far as the final assistant message, which the model continues
        // (vLLM's and llama.cpp's `continue_final_message`).
        if let Some(partial) = partial {
            if let Some(list) = request["messages"].as_array_mut() {
                list.push(json!({"role": "assistant", "content": partial}));
            }
            request["continue_final_message"] = true.into();
            request["add_generation_prompt"] = false.into();
        }
        if let Some(max_tokens) = max_tokens {
            // `max_tokens`, not `max_completion_tokens`: the field every
            // OpenAI-compatible server (vLLM, llama.cpp, Ollama, OpenRouter) reads.
            request["max_tokens"] = max_tokens.into();
        }
        if !functions.is_empty() {
            let tools: Vec<_> = functions.iter().map(FunctionOffer::to_wire).collect();
            request["tools"] = tools.into();
        }
        let chunks = self
            .client
            .chat()
            .create_stream_byot::<_, Chunk>(request)
            .await
            .map_err(map_error)?;
        Ok(deltas(chunks).boxed())
    }
}

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ChunkUsage>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    delta: ChunkDelta,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ChunkDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ChunkToolCall>,
}

#[derive(Debug, Deserialize)]
struct ChunkToolCall {
    #[serde(default)]
    index: u32,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: ChunkFunction,
}

#[derive(Debug, Default, Deserialize)]
struct ChunkFunction {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// Flattens chunks into deltas; reports a stream that ends without a finish reason.
fn deltas(
    chunks: impl futures::Stream<Item = Result<Chunk, OpenAIError>> + Send + 'static,
) -> impl futures::Stream<Item = Result<Delta, ProviderError>> + Send {
    let mut finished = false;
    let mut ended = false;
    chunks
        .map(Some)
        .chain(futures::stream::once(async { None }))
        .flat_map(move |item| {
            let out: Vec<Result<Delta, ProviderError>> = match item {
                Some(Ok(chunk)) => {
                    let mut out = Vec::new();
                    for choice in chunk.choices {
                        if let Some(text) = choice
                            .delta
                            .reasoning_content
                            .or(choice.delta.reasoning)
                            .filter(|t| !t.is_empty())
                        {
                            out.push(Ok(Delta::Reasoning(text)));
                        }
                        if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
                            out.push(Ok(Delta::Text(text)));
                        }
                        for call in choice.delta.tool_calls {
                            out.push(Ok(Delta::ToolCall {
                                index: call.index,
                                id: call.id.filter(|id| !id.is_empty()),
                                name: call.function.name.filter(|n| !n.is_empty()),
                                arguments: call.function.arguments.unwrap_or_default(),
                            }));
                        }
                        finished |= choice.finish_reason.is_some();
                    }
                    if let Some(usage) = chunk.usage {
                        out.push(Ok(Delta::Usage {
                            input_tokens: usage.prompt_tokens,
                            output_tokens: usage.completion_tokens,
                        }));
                    }
                    out
                }
                Some(Err(err)) => {
                    ended = true;
                    vec![Err(map_stream_error(err))]
                }
                None if !finished && !ended => {
                    vec![Err(ProviderError::Broken(
                        "the stream ended without a finish reason".into(),
                    ))]
                }
                None => Vec::new(),
            };
            futures::stream::iter(out)
        })
}

fn map_error(err: OpenAIError) -> ProviderError {
    match err {
        OpenAIError::ApiError(api) => ProviderError::Status {
            status: api.status_code.as_u16(),
            message: api.api_error.message,
        },
        OpenAIError::Reqwest(e) if e.is_connect() || e.is_timeout() => {
            ProviderError::Unreachable(e.to_string())
        }
        OpenAIError::Reqwest(e) => match e.status() {
            Some(status) => ProviderError::Status {
                status: status.as_u16(),
                message: e.to_string(),
            },
            None => ProviderError::Unreachable(e.to_string()),
        },
        other => ProviderError::Broken(other.to_string()),
    }
}

fn map_stream_error(err: OpenAIError) -> ProviderError {
    match err {
        OpenAIError::ApiError(api) => ProviderError::Status {
            status: api.status_code.as_u16(),
            message: api.api_error.message,
        },
        other => ProviderError::Broken(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::Arc, time::Duration};

    use parley_mock_llm::{DEFAULT_MODEL, MockConfig, MockLlm};
    use tokio::sync::OnceCell;

    use super::*;
    use crate::providers::{
        ProviderKind,
        conformance::{Harness, TIME_FUNCTION, conformance_suite},
    };

    /// The client against the mock LLM (started by the first call of a test).
    #[derive(Default)]
    struct AgainstTheMock {
        mock: OnceCell<MockLlm>,
    }

    #[async_trait::async_trait]
    impl Harness for AgainstTheMock {
        async fn provider(&self) -> (Arc<dyn Provider>, String) {
            let mock = self
                .mock
                .get_or_init(|| MockLlm::start(MockConfig::default()))
                .await;
            let config = ProviderConfig {
                name: "mock".into(),
                kind: ProviderKind::Openai,
                base_url: mock.base_url(),
                api_key: None,
                connect_timeout: Duration::from_secs(2),
                first_token_timeout: Duration::from_secs(5),
                continue_partial: false,
            };
            (ProviderKind::Openai.build(&config), DEFAULT_MODEL.into())
        }

        fn plain(&self) -> String {
            "hello there, model".into()
        }

        fn calling(&self) -> String {
            format!(
                r#"what time is it [[mock tool_call='{TIME_FUNCTION}:{{"time_zone": "UTC"}}']]"#
            )
        }
    }

    conformance_suite!(AgainstTheMock::default());
}
