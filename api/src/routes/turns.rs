//! Turns: `POST /v1/sessions/{id}/messages` records a prompt, enqueues its job and
//! answers with the SSE feed, the finished turn, or `202` (`super::reply`); plus the
//! session's streaming state and cancel (DESIGN §7). The rules live in
//! `parley_service::TurnService`.

use parley_entity::blocks;
use parley_protocol::{
    events::BlockType,
    turn::{Placement, TurnInput},
};
use parley_service::turns::Submission;
use poem::web::Data;
use poem_openapi::{
    Object, OpenApi,
    param::{Header, Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::{
    ApiTags,
    client_calls::ClientFunctionDef,
    messages::Message,
    output_format::OutputFormat,
    prompts::{Prompt, PromptAccepted},
    reply::{OnActive, TurnResponse, respond},
};
use crate::{
    auth::BearerAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    state::AppState,
    trace::trace_context,
    types::{MessageText, Text},
};

/// A message to the session's tool.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CreateMessage {
    /// What the user says: at least one character that is not white space, at most
    /// 32768 characters (the deployment may set a lower limit).
    pub content: MessageText,
    /// The model to answer with (see `GET /v1/models`); absent: the default model.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub model: Option<Text>,
    /// Files of the caller to attach (`POST /v1/files`), each once; the deployment
    /// bounds how many (`files.max_attachments`, 422 `too_many_attachments` above).
    #[oai(validator(max_items = 20))]
    pub attachments: Option<Vec<Uuid>>,
    /// Edit: the message of this session the new message follows, instead of the end of
    /// the active branch. To edit a message, send its replacement with the edited
    /// message's `parent_id`: the new message is its sibling, and its branch becomes the
    /// active one. The nil UUID (`00000000-0000-0000-0000-000000000000`) makes it a new
    /// first message (an edit of the session's first message). Another session's
    /// message: 422 `message_not_found`.
    pub parent_message_id: Option<Uuid>,
    /// The answer must be JSON of this format (see `OutputFormat`).
    pub response_format: Option<OutputFormat>,
    /// Functions the caller runs itself, offered to the model for this turn besides the
    /// tool's (see `ClientFunction`); at most 128.
    #[oai(validator(max_items = 128))]
    pub client_functions: Option<Vec<ClientFunctionDef>>,
}

/// Where `parent_message_id` puts a new message (`None`: after the active leaf).
fn placement(parent_message_id: Option<Uuid>) -> Option<Placement> {
    parent_message_id.map(|id| {
        if id.is_nil() {
            Placement::Root
        } else {
            Placement::After(id)
        }
    })
}

/// The session's active generation and its partial content.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct StreamingState {
    /// The active prompt; absent when the session is idle.
    pub prompt: Option<Prompt>,
    /// Its content blocks so far (checkpointed at most every 100 ms).
    pub blocks: Vec<Block>,
}

/// A content block of an answer.
#[derive(Debug, Object)]
pub struct Block {
    pub index: i32,
    #[oai(rename = "type")]
    pub kind: BlockType,
    pub content: String,
    pub is_finalized: bool,
}

impl From<blocks::Model> for Block {
    fn from(b: blocks::Model) -> Self {
        Self {
            index: b.index,
            kind: b.r#type,
            content: b.content,
            is_finalized: b.is_finalized,
        }
    }
}

pub struct TurnsApi;

#[OpenApi(prefix_path = "/v1/sessions", tag = "ApiTags::Sessions")]
impl TurnsApi {
    /// Send a message
    ///
    /// Records a prompt and starts the turn. With `Accept: text/event-stream` the answer
    /// streams as Server-Sent Events (`Location` names the prompt); otherwise
    /// (`application/json`, `*/*` or no `Accept`) the finished turn is returned (a failed
    /// turn is a problem whose `instance` names the prompt); with `?background=true` it
    /// answers 202 at once. A repeated `Idempotency-Key` returns the same prompt; the key
    /// with a different request (content, attachments, model) answers 422
    /// `idempotency_key_reused`. While another
    /// message of the session is being answered: 409, unless `on_active` says
    /// `interrupt` or `enqueue`.
    #[oai(path = "/:id/messages", method = "post", operation_id = "send_message")]
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn send(
        &self,
        auth: BearerAuth,
        request: &poem::Request,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<CreateMessage>,
        /// Return the same prompt when the same request with this key was already
        /// accepted (another request with it: 422 `idempotency_key_reused`).
        #[oai(name = "Idempotency-Key", validator(min_length = 1, max_length = 200))]
        idempotency_key: Header<Option<String>>,
        /// Answer 202 at once and run the turn in the background.
        background: Query<Option<bool>>,
        /// What to do while another message of the session is being answered.
        on_active: Query<Option<OnActive>>,
    ) -> ApiResult<TurnResponse, statuses::SendMessage> {
        let submission = Submission {
            session_id: id.0,
            user_id: auth.0.user_id,
            input: TurnInput {
                attachments: body.0.attachments.unwrap_or_default(),
                placement: placement(body.0.parent_message_id),
                response_format: body.0.response_format.map(TryInto::try_into).transpose()?,
                client_functions: (body.0.client_functions.unwrap_or_default().into_iter())
                    .map(Into::into)
                    .collect(),
                ..TurnInput::text(body.0.content.0)
            },
            model: body.0.model.map(Text::into_inner),
            idempotency_key: idempotency_key.0,
            on_active: on_active.0.unwrap_or_default().into(),
            trace_context: trace_context(request),
            answers: None,
        };
        let prompt = state.turns.submit(submission).await?;
        respond(&state, request, background.0, &prompt, &auth).await
    }

    /// List a session's messages
    ///
    /// One branch of the session's message tree in conversation order: by default the
    /// active branch (what the session shows and continues), or with `branch` the one
    /// through that message (its ancestors, itself, then the newest child at each step).
    /// Each message names its parent and its siblings.
    #[oai(
        path = "/:id/messages",
        method = "get",
        operation_id = "list_session_messages"
    )]
    async fn messages(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        /// A message of the session: list the branch through it instead of the active one.
        branch: Query<Option<Uuid>>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Message>>, statuses::ListOf> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let shown = state
            .turns
            .branch(auth.0.user_id, id.0, branch.0, page)
            .await?;
        Ok(Json(Message::page(shown)))
    }

    /// Get the streaming state
    ///
    /// The session's active prompt and its partial blocks, to show an answer in progress
    /// (e.g. after a page reload) before joining its feed.
    #[oai(
        path = "/:id/streaming",
        method = "get",
        operation_id = "get_streaming_state"
    )]
    async fn streaming(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<StreamingState>, statuses::ReadOne> {
        let Some(now) = state.turns.in_progress(auth.0.user_id, id.0).await? else {
            return Ok(Json(StreamingState {
                prompt: None,
                blocks: vec![],
            }));
        };
        Ok(Json(StreamingState {
            prompt: Some(now.prompt.into()),
            blocks: now.blocks.into_iter().map(Block::from).collect(),
        }))
    }

    /// Cancel the session's active prompt
    ///
    /// Like `POST /v1/prompts/{id}/cancel` for whatever the session is answering; 409
    /// `nothing_to_cancel` when it is idle.
    #[oai(
        path = "/:id/cancel",
        method = "post",
        operation_id = "cancel_session_prompt"
    )]
    async fn cancel(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<PromptAccepted, statuses::Act> {
        let prompt = state.turns.cancel_active(auth.0.user_id, id.0).await?;
        Ok(PromptAccepted::Accepted(Json(prompt.into())))
    }
}
