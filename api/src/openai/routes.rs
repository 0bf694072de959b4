//! The operations of `/openai/v1`: models, chat completions, responses.

use std::time::Duration;

use futures::StreamExt;
use parley_entity::{enums::PromptState, prompts, query::prompts as q};
use parley_protocol::error::ErrorCode;
use parley_protocol::turn::{Surface, SurfaceApi};
use poem::web::Data;
use poem_openapi::{
    OpenApi,
    param::{Header, Path, Query},
    payload::Json,
};

use super::{
    chat_events::ChatTranslator,
    conversation::{self, Ask, Conversation},
    error::OpenAiError,
    input::{invalid, refuse_unsupported, split, text_of},
    items, media, models,
    reading::{events_of, meta_of},
    replies::{ChatReply, ResponseReply, chat_reply, location, response_reply},
    response_events::ResponsesTranslator,
    segment::Segment,
    stream::{OpenAiStream, translated},
    tools,
    types::*,
};
use crate::{
    auth::BearerAuth,
    error::{Problem, statuses},
    identity::Caller,
    routes::{ApiTags, ask::may_chat},
    sse,
    state::AppState,
    trace::trace_context,
};

type Created<T> = Result<T, OpenAiError<statuses::OpenAiCreate>>;
type Read<T> = Result<T, OpenAiError<statuses::OpenAiRead>>;

/// How long a cancel waits for the turn to end before answering.
const CANCEL_WAIT: Duration = Duration::from_secs(5);

/// The status of a response that has not ended, from its prompt's state.
fn running_status(state: PromptState) -> &'static str {
    match state {
        PromptState::Created => "queued",
        _ => "in_progress",
    }
}

pub struct OpenAiApi;

#[OpenApi(prefix_path = "/openai/v1", tag = "ApiTags::OpenAi")]
impl OpenAiApi {
    /// List models (OpenAI-compatible)
    ///
    /// The chat tools the caller may use (`tool:<id>`, named by the tool) and the
    /// deployment's models, in OpenAI's list shape.
    #[oai(path = "/models", method = "get", operation_id = "openai_list_models")]
    async fn models(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
    ) -> Result<Json<OpenAiModelList>, OpenAiError<statuses::OpenAiModels>> {
        Ok(Json(OpenAiModelList {
            object: "list".into(),
            data: models::listed(&state, &auth).await?,
        }))
    }

    /// Retrieve a model (OpenAI-compatible)
    ///
    /// One entry of `GET /models`: a chat tool the caller may use (`tool:<id>`) or one of
    /// the deployment's models; 404 `model_not_found` for any other id.
    #[oai(
        path = "/models/:model",
        method = "get",
        operation_id = "openai_retrieve_model"
    )]
    async fn model(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        /// The model's id, as `GET /models` lists it.
        model: Path<String>,
    ) -> Result<Json<OpenAiModel>, OpenAiError<statuses::OpenAiModel>> {
        models::listed(&state, &auth)
            .await?
            .into_iter()
            .find(|listed| listed.id == model.0)
            .map(Json)
            .ok_or_else(|| conversation::model_not_found(&model.0).into())
    }

    /// Create a chat completion (OpenAI-compatible)
    ///
    /// Runs the last (user) message as a Parley turn and answers with the completion, or
    /// streams `chat.completion.chunk` events (`stream: true`). A new conversation each
    /// time, its earlier messages imported as history; with `Parley-Conversation` the
    /// conversation is kept on the server and only the last message is sent. The chat
    /// tool's functions run on the server and are shown in the text; the caller's own
    /// (`tools`) come back as `tool_calls`, and a request whose messages end with their
    /// `tool` results continues the same turn.
    #[oai(
        path = "/chat/completions",
        method = "post",
        operation_id = "openai_create_chat_completion"
    )]
    async fn chat(
        &self,
        auth: BearerAuth,
        request: &poem::Request,
        state: Data<&AppState>,
        body: Json<ChatCompletionRequest>,
        /// A conversation kept on the server: the first request with a key opens it
        /// (with the history it brings), later ones send only their last message.
        #[oai(
            name = "Parley-Conversation",
            validator(pattern = r"^[A-Za-z0-9_-]{1,64}$")
        )]
        conversation_key: Header<Option<String>>,
    ) -> Created<ChatReply> {
        may_chat(&auth.0)?;
        let body = body.0;
        let sampling = body.asked();
        let format = body.format()?;
        let present = |v: &Option<serde_json::Value>| v.as_ref().is_some_and(|v| !v.is_null());
        refuse_unsupported(&[
            ("n", body.n.is_some_and(|n| n > 1)),
            ("logprobs", body.logprobs == Some(true)),
            ("top_logprobs", body.top_logprobs.is_some_and(|n| n > 0)),
            ("audio", present(&body.audio)),
            (
                "modalities",
                body.modalities
                    .as_ref()
                    .is_some_and(|m| m.iter().any(|m| m != "text")),
            ),
            ("prediction", present(&body.prediction)),
            (
                "logit_bias",
                present(&body.logit_bias)
                    && body
                        .logit_bias
                        .as_ref()
                        .and_then(|b| b.as_object())
                        .is_none_or(|b| !b.is_empty()),
            ),
        ])?;
        let include_usage = body
            .stream_options
            .as_ref()
            .and_then(|o| o.include_usage)
            .unwrap_or(false);
        let stream = body.stream.unwrap_or(false);
        let results = tools::trailing_results(&body.messages)?;
        if !results.is_empty() {
            // The results of the caller's functions: the waiting turn goes on.
            let (prompt, from) =
                tools::continue_turn(&state, &auth.0, results, &tools::CHAT_ANSWERS, None).await?;
            let translator = ChatTranslator::new(
                format!("chatcmpl-{}", prompt.id.simple()),
                prompt.created_at.timestamp(),
                body.model,
                include_usage,
            )
            .continuing(from);
            return chat_reply(&state, &auth.0, &prompt, translator, stream).await;
        }
        let offered = tools::offered(
            body.tools,
            body.tool_choice.as_ref(),
            body.parallel_tool_calls,
            "function.parameters",
        )?;
        let last = body.messages.len().saturating_sub(1);
        let media = media::of_chat(
            body.messages.last().and_then(|m| m.content.as_ref()),
            &format!("messages[{last}].content"),
        )?;
        let messages = body
            .messages
            .into_iter()
            .map(|m| Ok((m.role, text_of(m.content)?)))
            .collect::<Result<Vec<_>, Box<Problem>>>()?;
        let (instructions, history, content) = split(messages)?;
        let ask = Ask {
            surface: Surface {
                api: SurfaceApi::ChatCompletions,
                model: body.model.clone(),
                background: false,
                previous: None,
                previous_response_id: None,
            },
            model: body.model.clone(),
            content,
            history,
            instructions,
            sampling,
            format,
            client_functions: offered.functions,
            call_policy: offered.policy,
            media,
        };
        let conversation = Conversation::New {
            key: conversation_key.0,
        };
        let prompt =
            conversation::submit(&state, &auth.0, ask, conversation, trace_context(request))
                .await?;
        let translator = ChatTranslator::new(
            format!("chatcmpl-{}", prompt.id.simple()),
            prompt.created_at.timestamp(),
            body.model,
            include_usage,
        );
        chat_reply(&state, &auth.0, &prompt, translator, stream).await
    }

    /// Create a response (OpenAI-compatible)
    ///
    /// Runs the input's last (user) message as a Parley turn. `stream: true` streams the
    /// response's events; `background: true` answers at once (`queued`) and the turn
    /// runs on; otherwise it answers with the finished response. `previous_response_id`
    /// continues that response's conversation; without it, a new one (earlier input
    /// messages imported as history). Parley's functions appear as answered `mcp_call`
    /// items (server `parley`); the caller's own (`tools`) as `function_call` items that
    /// end the response while the turn waits, and a request whose input ends with their
    /// `function_call_output`s continues the turn as a new response.
    #[oai(
        path = "/responses",
        method = "post",
        operation_id = "openai_create_response"
    )]
    async fn create_response(
        &self,
        auth: BearerAuth,
        request: &poem::Request,
        state: Data<&AppState>,
        body: Json<ResponseCreateRequest>,
    ) -> Created<ResponseReply> {
        may_chat(&auth.0)?;
        let body = body.0;
        let sampling = body.asked();
        let format = body.format()?;
        refuse_unsupported(&[("top_logprobs", body.top_logprobs.is_some_and(|n| n > 0))])?;
        let previous = match &body.previous_response_id {
            Some(id) => {
                let not_found = || {
                    Problem::new(
                        ErrorCode::PreviousResponseNotFound,
                        format!("no response `{id}`"),
                    )
                };
                let prompt_id = conversation::prompt_id(id).ok_or_else(not_found)?;
                let prompt = state
                    .turns
                    .prompt(auth.0.user_id, prompt_id)
                    .await
                    .map_err(|_| not_found())?;
                Some(prompt)
            }
            None => None,
        };
        let background = body.background.unwrap_or(false);
        let stream = body.stream.unwrap_or(false);
        let input = match body.input {
            ResponseInput::Text(text) => items::Input {
                messages: vec![(ChatRole::User, text)],
                results: Vec::new(),
                media: Vec::new(),
            },
            ResponseInput::Items(items) => {
                items::read(&state, &auth.0, items, previous.is_some()).await?
            }
        };
        if !input.results.is_empty() {
            // The results of the caller's functions: the waiting turn goes on, as a new
            // response (a segment of the same prompt).
            let (prompt, from) = tools::continue_turn(
                &state,
                &auth.0,
                input.results,
                &tools::RESPONSES_ANSWERS,
                previous.as_ref().map(|p| p.id),
            )
            .await?;
            let segment = Segment {
                prompt: prompt.id,
                from: Some(from),
            };
            let translator = ResponsesTranslator::of(&prompt, segment);
            return response_reply(&state, &auth.0, &prompt, translator, stream, background).await;
        }
        let mut messages = input.messages;
        if let Some(instructions) = &body.instructions {
            messages.insert(0, (ChatRole::System, instructions.clone()));
        }
        let (instructions, history, content) = split(messages)?;
        let offered = tools::offered(
            body.tools
                .map(|tools| tools.into_iter().map(ChatTool::from).collect()),
            body.tool_choice.as_ref(),
            body.parallel_tool_calls,
            "parameters",
        )?;
        let ask = Ask {
            surface: Surface {
                api: SurfaceApi::Responses,
                model: body.model.clone(),
                background,
                previous: previous.as_ref().map(|p| p.id),
                previous_response_id: body
                    .previous_response_id
                    .as_deref()
                    .and_then(Segment::of_response)
                    .map(|segment| format!("resp_{segment}")),
            },
            model: body.model.clone(),
            content,
            history,
            instructions,
            sampling,
            format,
            client_functions: offered.functions,
            call_policy: offered.policy,
            media: input.media,
        };
        let conversation = match &previous {
            Some(prompt) => Conversation::Of(prompt.session_id),
            None => Conversation::New { key: None },
        };
        let prompt =
            conversation::submit(&state, &auth.0, ask, conversation, trace_context(request))
                .await?;
        let translator = ResponsesTranslator::new(meta_of(&prompt, None));
        response_reply(&state, &auth.0, &prompt, translator, stream, background).await
    }

    /// Get a response (OpenAI-compatible)
    ///
    /// The response as it stands; with `stream=true`, its events (again) from the start,
    /// or after `starting_after` — numbered the same as when they were first streamed,
    /// for as long as the prompt's events are kept.
    #[oai(
        path = "/responses/:id",
        method = "get",
        operation_id = "openai_get_response"
    )]
    async fn get_response(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<String>,
        /// Stream the response's events.
        stream: Query<Option<bool>>,
        /// Only the events after this `sequence_number`.
        #[oai(validator(minimum(value = "0"), maximum(value = "9007199254740991")))]
        starting_after: Query<Option<u64>>,
    ) -> Read<ResponseReply> {
        let (prompt, segment) = readable(&state, &auth.0, &id.0).await?;
        let mut translator = ResponsesTranslator::of(&prompt, segment);
        if stream.0.unwrap_or(false) {
            let events = events_of(&state, &prompt, &auth.0).await?;
            let after = starting_after.0;
            let stream = translated(events, translator).filter(move |chunk| {
                let keep = after.is_none_or(|after| sequence_of(chunk).is_none_or(|n| n > after));
                futures::future::ready(keep)
            });
            return Ok(ResponseReply::Stream(
                OpenAiStream::new(stream),
                location(&prompt),
            ));
        }
        for event in sse::so_far(&state, &prompt).await? {
            translator.events(&event);
        }
        let response = translator.response(running_status(prompt.state));
        Ok(ResponseReply::Object(Box::new(response), location(&prompt)))
    }

    /// Cancel a response (OpenAI-compatible)
    ///
    /// Cancels the turn (durably, like `POST /v1/prompts/{id}/cancel`) and answers with
    /// the response once it ended (or as it stands after a few seconds). A cancelled
    /// response answers again as it is; a finished one cannot be cancelled (400).
    #[oai(
        path = "/responses/:id/cancel",
        method = "post",
        operation_id = "openai_cancel_response"
    )]
    async fn cancel_response(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<String>,
    ) -> Read<Json<OpenAiResponse>> {
        let (prompt, segment) = readable(&state, &auth.0, &id.0).await?;
        if !q::UNFINISHED.contains(&prompt.state) && prompt.state != PromptState::Canceled {
            return Err(invalid(
                ErrorCode::ResponseFinished,
                "Cannot cancel a response that has finished.",
            )
            .into());
        }
        if prompt.state != PromptState::Canceled {
            match state.turns.cancel(auth.0.user_id, prompt.id).await {
                Ok(_) => {}
                // It finished in the meantime: answer with it as it ended.
                Err(parley_protocol::error::Error::Conflict { .. }) => {}
                Err(other) => return Err(other.into()),
            }
            let _ = state.turns.wait_for_end(prompt.id, CANCEL_WAIT).await;
        }
        let prompt = state.turns.prompt_now(prompt.id).await?;
        let mut translator = ResponsesTranslator::of(&prompt, segment);
        for event in sse::so_far(&state, &prompt).await? {
            translator.events(&event);
        }
        Ok(Json(translator.response(running_status(prompt.state))))
    }
}

/// The caller's prompt a response id names, and its segment (404 for anything else).
async fn readable(
    state: &AppState,
    caller: &Caller,
    id: &str,
) -> Result<(prompts::Model, Segment), Box<Problem>> {
    let not_found = || {
        Box::new(Problem::new(
            ErrorCode::NotFound,
            format!("no response `{id}`"),
        ))
    };
    let segment = Segment::of_response(id).ok_or_else(not_found)?;
    let prompt = state
        .turns
        .prompt(caller.user_id, segment.prompt)
        .await
        .map_err(|err| match err {
            parley_protocol::error::Error::NotFound { .. } => not_found(),
            other => Box::new(Problem::from(other)),
        })?;
    Ok((prompt, segment))
}

/// The `sequence_number` of one SSE event of a response stream.
fn sequence_of(chunk: &str) -> Option<u64> {
    let data = chunk.lines().find_map(|line| line.strip_prefix("data: "))?;
    serde_json::from_str::<serde_json::Value>(data).ok()?["sequence_number"].as_u64()
}
