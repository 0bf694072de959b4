//! What the OpenAI-compatible operations answer: one 200 that is JSON, or an event
//! stream when the request asked to stream (`stream: true`), with `Location` naming the
//! Parley prompt; and how a created completion or response is answered from its
//! prompt's events.

use poem::IntoResponse;
use poem_openapi::{
    ApiResponse,
    payload::Json,
    registry::{MetaHeader, MetaMediaType, MetaResponse, MetaResponses, Registry},
    types::Type,
};

use parley_entity::prompts;
use parley_protocol::error::ErrorCode;

use super::{
    chat_events::{ChatEnd, ChatTranslator},
    error::OpenAiError,
    reading::{events_of, fold_until_end},
    response_events::ResponsesTranslator,
    stream::{OpenAiStream, translated},
    types::{ChatCompletion, ChatCompletionSseEvent, OpenAiResponse, ResponseSseEvent},
};
use crate::{
    error::{Problem, statuses},
    identity::Caller,
    state::AppState,
};

type Created<T> = Result<T, OpenAiError<statuses::OpenAiCreate>>;

pub fn still_running() -> Box<Problem> {
    Box::new(Problem::new(
        ErrorCode::Timeout,
        "the turn is still running; ask again with `stream: true`, or in the background",
    ))
}

pub fn location(prompt: &prompts::Model) -> String {
    format!("/v1/prompts/{}", prompt.id)
}

/// A chat completion's answer: its chunks streamed, or the completion once it ended (the
/// turn's end, or the caller's `tool_calls`).
pub async fn chat_reply(
    state: &AppState,
    caller: &Caller,
    prompt: &prompts::Model,
    mut translator: ChatTranslator,
    stream: bool,
) -> Created<ChatReply> {
    let events = events_of(state, prompt, caller).await?;
    if stream {
        let stream = OpenAiStream::new(translated(events, translator));
        return Ok(ChatReply::Stream(stream, location(prompt)));
    }
    let ended = fold_until_end(events, state.streaming.wait_timeout, |event| {
        translator.chunks(event);
        translator.finished()
    })
    .await;
    if !ended {
        return Err(still_running().into());
    }
    match (translator.completion(), translator.end()) {
        (Some(completion), _) => Ok(ChatReply::Completion(
            Box::new(completion),
            location(prompt),
        )),
        (None, Some(ChatEnd::Failed { code, message })) => {
            Err(Problem::new(*code, message.clone())
                .at(location(prompt))
                .into())
        }
        _ => Err(still_running().into()),
    }
}

/// A response's answer: its events streamed, at once in the background (`queued`), or
/// the response once it ended (the turn's end, or the caller's `function_call`s).
pub async fn response_reply(
    state: &AppState,
    caller: &Caller,
    prompt: &prompts::Model,
    mut translator: ResponsesTranslator,
    stream: bool,
    background: bool,
) -> Created<ResponseReply> {
    if stream {
        let events = events_of(state, prompt, caller).await?;
        let stream = OpenAiStream::new(translated(events, translator));
        return Ok(ResponseReply::Stream(stream, location(prompt)));
    }
    if background {
        let response = translator.response("queued");
        return Ok(ResponseReply::Object(Box::new(response), location(prompt)));
    }
    let events = events_of(state, prompt, caller).await?;
    let ended = fold_until_end(events, state.streaming.wait_timeout, |event| {
        translator.events(event);
        translator.is_ended()
    })
    .await;
    if !ended {
        return Err(still_running().into());
    }
    Ok(ResponseReply::Object(
        Box::new(translator.response("completed")),
        location(prompt),
    ))
}

/// A completion, or its stream.
pub enum ChatReply {
    Completion(Box<ChatCompletion>, String),
    Stream(OpenAiStream<ChatCompletionSseEvent>, String),
}

/// A response object, or its stream.
pub enum ResponseReply {
    Object(Box<OpenAiResponse>, String),
    Stream(OpenAiStream<ResponseSseEvent>, String),
}

/// One 200 with a JSON body (`J`) or, when the request asked to stream, an event stream
/// of `E`; `Location` names the Parley prompt.
fn json_or_stream<J: Type, E: Type>(description: &'static str) -> MetaResponses {
    MetaResponses {
        responses: vec![MetaResponse {
            description,
            status: Some(200),
            status_range: None,
            content: vec![
                MetaMediaType {
                    content_type: "application/json",
                    schema: J::schema_ref(),
                },
                MetaMediaType {
                    content_type: "text/event-stream",
                    schema: E::schema_ref(),
                },
            ],
            headers: vec![MetaHeader {
                name: "Location".into(),
                description: Some("The Parley prompt (`/v1/prompts/{id}`).".into()),
                required: true,
                deprecated: false,
                schema: String::schema_ref(),
            }],
        }],
    }
}

fn with_location(mut response: poem::Response, location: String) -> poem::Response {
    if let Ok(value) = poem::http::HeaderValue::from_str(&location) {
        response
            .headers_mut()
            .insert(poem::http::header::LOCATION, value);
    }
    response
}

impl ApiResponse for ChatReply {
    fn meta() -> MetaResponses {
        json_or_stream::<ChatCompletion, ChatCompletionSseEvent>(
            "The completion (`stream` false), or `chat.completion.chunk` events ending with `data: [DONE]`.",
        )
    }

    fn register(registry: &mut Registry) {
        ChatCompletion::register(registry);
        ChatCompletionSseEvent::register(registry);
    }
}

impl IntoResponse for ChatReply {
    fn into_response(self) -> poem::Response {
        match self {
            Self::Completion(completion, location) => {
                with_location(Json(*completion).into_response(), location)
            }
            Self::Stream(stream, location) => with_location(stream.into_response(), location),
        }
    }
}

impl ApiResponse for ResponseReply {
    fn meta() -> MetaResponses {
        json_or_stream::<OpenAiResponse, ResponseSseEvent>(
            "The response (`stream` false), or its events (`stream` true).",
        )
    }

    fn register(registry: &mut Registry) {
        OpenAiResponse::register(registry);
        ResponseSseEvent::register(registry);
    }
}

impl IntoResponse for ResponseReply {
    fn into_response(self) -> poem::Response {
        match self {
            Self::Object(response, location) => {
                with_location(Json(*response).into_response(), location)
            }
            Self::Stream(stream, location) => with_location(stream.into_response(), location),
        }
    }
}
