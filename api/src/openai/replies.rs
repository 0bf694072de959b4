//! What the OpenAI-compatible operations answer: one 200 that is JSON, or an event
//! stream when the request asked to stream (`stream: true`), with `Location` naming the
//! Parley prompt.

use poem::IntoResponse;
use poem_openapi::{
    ApiResponse,
    payload::Json,
    registry::{MetaHeader, MetaMediaType, MetaResponse, MetaResponses, Registry},
    types::Type,
};

use super::{
    stream::OpenAiStream,
    types::{ChatCompletion, ChatCompletionSseEvent, OpenAiResponse, ResponseSseEvent},
};

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
