//! OpenAI-compatible providers: Chat Completions over HTTP, streamed as server-sent
//! events.
//!
//! Requests and chunks are our own types, so that providers' reasoning fields
//! (`reasoning_content`, `reasoning`) reach us. A stream must end with a
//! `finish_reason`; one that stops without it was cut. Retries are the agent loop's, not
//! the HTTP client's.
//!
//! The stream is read in the turn's own task: reqwest's body, `eventsource-stream`'s
//! parser, then [`Deltas`]. async-openai (which this module used until #16) reads every
//! stream in a task of its own and hands each chunk over an unbounded channel: one more
//! task woken per token, for every token of every turn (docs/decisions.md, "The provider
//! stream in the turn's task").

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use parley_protocol::client_functions::ToolChoice;
use parley_protocol::events::{StopReason, Usage};
use parley_protocol::output::ResponseFormat;
use parley_protocol::sampling::DECIMALS;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::json;

use super::{
    CallOptions, ChatMessage, Delta, DeltaStream, FunctionOffer, Provider, ProviderConfig,
    ProviderError,
    replay::{CallState, ReasoningField, ResponseState},
};

pub struct OpenAiProvider {
    http: reqwest::Client,
    /// `{base_url}/chat/completions`.
    url: String,
    api_key: Option<SecretString>,
}

impl OpenAiProvider {
    pub fn new(config: &ProviderConfig) -> Self {
        let http = parley_service::tls::http_client()
            .connect_timeout(config.connect_timeout)
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        Self {
            http,
            url: format!("{}/chat/completions", config.base_url.trim_end_matches('/')),
            api_key: config.api_key.clone(),
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
        options: &CallOptions,
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
        if let Some(max_tokens) = options.max_tokens {
            // `max_tokens`, not `max_completion_tokens`: the field every
            // OpenAI-compatible server (vLLM, llama.cpp, Ollama, OpenRouter) reads.
            request["max_tokens"] = max_tokens.into();
        }
        let sampling = &options.sampling;
        for ((name, _), value) in DECIMALS.into_iter().zip(sampling.decimals()) {
            if let Some(value) = value {
                request[name] = value.into();
            }
        }
        if !sampling.stop.is_empty() {
            request["stop"] = sampling.stop.clone().into();
        }
        if let Some(seed) = sampling.seed {
            request["seed"] = seed.into();
        }
        if let Some(format) = &options.format {
            request["response_format"] = response_format(format);
        }
        if !functions.is_empty() {
            let tools: Vec<_> = functions.iter().map(FunctionOffer::to_wire).collect();
            request["tools"] = tools.into();
            match &options.calls.choice {
                ToolChoice::Auto | ToolChoice::None => {}
                ToolChoice::Required => request["tool_choice"] = "required".into(),
                ToolChoice::Function { name } => {
                    request["tool_choice"] =
                        json!({"type": "function", "function": {"name": name}});
                }
            }
            if options.calls.serial {
                request["parallel_tool_calls"] = false.into();
            }
        }
        let mut call = self.http.post(&self.url).json(&request);
        if let Some(key) = &self.api_key {
            call = call.bearer_auth(key.expose_secret());
        }
        let response = call.send().await.map_err(unreachable_or_status)?;
        let status = response.status();
        if !status.is_success() {
            return Err(refusal(status, response).await);
        }
        Ok(Deltas::new(response.bytes_stream().eventsource()).boxed())
    }
}

/// A format as OpenAI's `response_format`.
fn response_format(format: &ResponseFormat) -> serde_json::Value {
    match format {
        ResponseFormat::JsonObject => json!({"type": "json_object"}),
        ResponseFormat::JsonSchema {
            name,
            description,
            schema,
            strict,
        } => {
            let mut spec = json!({"name": name, "schema": schema, "strict": strict});
            if let Some(description) = description {
                spec["description"] = description.clone().into();
            }
            json!({"type": "json_schema", "json_schema": spec})
        }
    }
}

/// A request that got no answer: unreachable, unless reqwest saw a status.
fn unreachable_or_status(err: reqwest::Error) -> ProviderError {
    match err.status() {
        Some(status) if !err.is_connect() && !err.is_timeout() => ProviderError::Status {
            status: status.as_u16(),
            message: err.to_string(),
        },
        _ => ProviderError::Unreachable(err.to_string()),
    }
}

/// An error status: the message of OpenAI's `{"error": {"message": …}}` body, or the
/// body itself (servers' 5xx pages are seldom JSON).
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
    /// Gemini's `{"google": {"thought_signature": …}}`: opaque, sent back as it came.
    #[serde(default)]
    extra_content: Option<serde_json::Value>,
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
    /// OpenAI's (and vLLM's, Gemini's, Kimi's, DeepSeek's) cached input.
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    /// DeepSeek's own name for cached input (beside the details on newer versions).
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Debug, Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

impl ChunkUsage {
    /// The counts by kind: OpenAI's `prompt_tokens` includes the cached part,
    /// `completion_tokens` the reasoning part, as Parley counts them. Servers that
    /// report no cache writes have none to report (OpenAI's caching is automatic).
    fn tokens(&self) -> Usage {
        let cached = self
            .prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens)
            .or(self.prompt_cache_hit_tokens)
            .unwrap_or(0);
        let reasoning = self
            .completion_tokens_details
            .as_ref()
            .and_then(|d| d.reasoning_tokens)
            .unwrap_or(0);
        Usage {
            cached_input_tokens: cached.min(self.prompt_tokens),
            reasoning_tokens: reasoning.min(self.completion_tokens),
            ..Usage::plain(self.prompt_tokens, self.completion_tokens)
        }
    }
}

/// The stream's events as [`Delta`]s: `[DONE]` ends it, keep-alives are skipped, and
/// an end without a finish reason is an error (the stream was cut). One chunk may hold
/// several deltas; they wait in a queue the stream keeps, not in a list per chunk.
struct Deltas<S> {
    events: S,
    pending: VecDeque<Result<Delta, ProviderError>>,
    finished: bool,
    ended: bool,
    /// The response's reasoning so far and the field it came in: sent back with the
    /// response's calls on the next request of the turn ([`ResponseState::Openai`]).
    reasoning: Option<(ReasoningField, String)>,
}

impl<S> Deltas<S> {
    fn new(events: S) -> Self {
        Self {
            events,
            pending: VecDeque::new(),
            finished: false,
            ended: false,
            reasoning: None,
        }
    }

    fn chunk(&mut self, chunk: Chunk) {
        for choice in chunk.choices {
            let reasoning = match (choice.delta.reasoning_content, choice.delta.reasoning) {
                (Some(text), _) if !text.is_empty() => {
                    Some((ReasoningField::ReasoningContent, text))
                }
                (_, Some(text)) if !text.is_empty() => Some((ReasoningField::Reasoning, text)),
                _ => None,
            };
            if let Some((field, text)) = reasoning {
                self.reasoning
                    .get_or_insert_with(|| (field, String::new()))
                    .1
                    .push_str(&text);
                self.pending.push_back(Ok(Delta::Reasoning(text)));
            }
            if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
                self.pending.push_back(Ok(Delta::Text(text)));
            }
            for call in choice.delta.tool_calls {
                self.pending.push_back(Ok(Delta::ToolCall {
                    index: call.index,
                    id: call.id.filter(|id| !id.is_empty()),
                    name: call.function.name.filter(|n| !n.is_empty()),
                    arguments: call.function.arguments.unwrap_or_default(),
                    state: call
                        .extra_content
                        .filter(|extra| !extra.is_null())
                        .map(|extra_content| CallState::Openai { extra_content }),
                }));
            }
            if choice.finish_reason.is_some()
                && !self.finished
                && let Some((field, text)) = self.reasoning.take()
            {
                self.pending
                    .push_back(Ok(Delta::State(ResponseState::Openai { field, text })));
            }
            if choice.finish_reason.as_deref() == Some("length") && !self.finished {
                self.pending
                    .push_back(Ok(Delta::Stop(StopReason::MaxTokens)));
            }
            self.finished |= choice.finish_reason.is_some();
        }
        if let Some(usage) = chunk.usage {
            self.pending.push_back(Ok(Delta::Usage(usage.tokens())));
        }
    }

    /// The stream is over: cut, unless a finish reason came.
    fn end(&mut self) {
        if !self.finished && !self.ended {
            self.pending.push_back(Err(ProviderError::Broken(
                "the stream ended without a finish reason".into(),
            )));
        }
        self.ended = true;
    }

    /// The stream failed: the error, and nothing after it.
    fn fail(&mut self, message: String) {
        self.pending.push_back(Err(ProviderError::Broken(message)));
        self.ended = true;
    }
}

impl<S, E> Stream for Deltas<S>
where
    S: Stream<Item = Result<Event, EventStreamError<E>>> + Unpin,
    E: std::fmt::Display,
{
    type Item = Result<Delta, ProviderError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(next) = this.pending.pop_front() {
                return Poll::Ready(Some(next));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            match ready!(this.events.poll_next_unpin(cx)) {
                Some(Ok(event)) if event.data == "[DONE]" => this.end(),
                Some(Ok(event)) if event.event == "keepalive" => {}
                Some(Ok(event)) => match serde_json::from_str::<Chunk>(&event.data) {
                    Ok(chunk) => this.chunk(chunk),
                    Err(err) => this.fail(format!("an unreadable chunk: {err}")),
                },
                Some(Err(err)) => this.fail(format!("the stream broke: {err}")),
                None => this.end(),
            }
        }
    }
}

#[cfg(test)]
mod tests;
