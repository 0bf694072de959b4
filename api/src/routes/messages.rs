//! A session's messages as a tree (DESIGN §13): the branch a client shows (the view;
//! `GET …/messages` is in `turns.rs`, beside `POST` on the same path, since a path's
//! operations must be declared together), another answer to a message (regenerate), and
//! the switch of the branch a session continues. Editing is `POST …/messages` with
//! `parent_message_id`.

use chrono::{DateTime, Utc};
use parley_entity::messages;
use parley_service::turns::{Regeneration, Shown};
use poem::web::Data;
use poem_openapi::{
    Object, OpenApi,
    param::{Header, Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::{
    ApiTags,
    feedback::Feedback,
    reply::{OnActive, TurnResponse, respond},
    sessions::Session,
    views::MessageRole,
};
use crate::{
    auth::BearerAuth,
    error::{ApiResult, statuses},
    pagination::Page,
    state::AppState,
    trace::trace_context,
    types::Text,
};

/// One message of a session.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Message {
    pub id: Uuid,
    /// Position in the session (creation order over all branches), gap-free from 1.
    pub seq: i32,
    /// The message this one follows in the session's tree; absent for a first message.
    pub parent_id: Option<Uuid>,
    /// The ids of this message's siblings — the messages with the same parent: edits of
    /// a user message, other answers to one — itself included, in creation order. More
    /// than one: show a ‹ n/m › switcher (n is this message's position among them) and
    /// read another sibling's branch with `?branch=`.
    pub siblings: Vec<Uuid>,
    pub role: MessageRole,
    /// The rendered text (`[blocked]` for a blocked user message).
    pub content: String,
    /// False while the assistant is still writing it.
    pub is_complete: bool,
    pub prompt_id: Option<Uuid>,
    /// The files attached to a user message, in order.
    pub attachments: Vec<Attachment>,
    pub created_at: DateTime<Utc>,
    /// The caller's own feedback on this answer (`PUT …/feedback`); absent when they
    /// gave none.
    pub feedback: Option<Feedback>,
}

/// A file attached to a message (see `GET /v1/files/{id}`).
#[derive(Debug, Object)]
pub struct Attachment {
    pub file_id: Uuid,
    pub name: String,
    pub content_type: String,
}

impl From<messages::Model> for Message {
    fn from(m: messages::Model) -> Self {
        Self {
            id: m.id,
            seq: m.seq,
            parent_id: m.parent_id,
            siblings: vec![m.id],
            role: m.role.into(),
            content: m.content,
            is_complete: m.is_complete,
            prompt_id: m.prompt_id,
            attachments: Vec::new(),
            created_at: m.created_at,
            feedback: None,
        }
    }
}

impl Message {
    /// Messages with their attachments, from the attachment blocks of these messages.
    pub fn with_attachments(
        messages: Vec<Self>,
        blocks: Vec<parley_entity::blocks::Model>,
    ) -> Vec<Self> {
        let mut messages = messages;
        for block in blocks {
            let Some(message) = messages.iter_mut().find(|m| Some(m.id) == block.message_id) else {
                continue;
            };
            let meta = block.meta();
            let Some(attached) = meta.attachment() else {
                continue;
            };
            let Some(file_id) = attached.file_id else {
                continue;
            };
            message.attachments.push(Attachment {
                file_id,
                name: block.content,
                content_type: attached.content_type.clone(),
            });
        }
        messages
    }
}

impl Message {
    /// A page of a branch as the API shows it: each message with its siblings,
    /// attachments and the caller's feedback.
    pub(super) fn page(mut shown: Shown) -> Page<Message> {
        let siblings: Vec<Vec<Uuid>> = shown
            .page
            .items
            .iter()
            .map(|m| shown.siblings_of(m))
            .collect();
        let mut feedback = std::mem::take(&mut shown.feedback);
        let mut page = Page::from_rows(shown.page, Message::from);
        for (message, siblings) in page.items.iter_mut().zip(siblings) {
            message.siblings = siblings;
            message.feedback = feedback.remove(&message.id).map(Feedback::from);
        }
        page.items = Message::with_attachments(page.items, shown.attachments);
        page
    }
}

/// Ask for another answer.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct RegenerateMessage {
    /// The model to answer with (see `GET /v1/models`); absent: as a new message would.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub model: Option<Text>,
}

/// The branch to show and continue.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct SwitchBranch {
    /// A message of the session: the branch through it (down to its newest leaf)
    /// becomes the active one.
    pub message_id: Uuid,
}

pub struct MessagesApi;

#[OpenApi(prefix_path = "/v1/sessions", tag = "ApiTags::Sessions")]
impl MessagesApi {
    /// Regenerate an answer
    ///
    /// Another answer to a user message of the session (name the user message or one of
    /// its answers), as a new turn: its answer is a sibling of the earlier ones and
    /// becomes the end of the active branch. Answers like `send_message` (a feed with
    /// `Accept: text/event-stream`, the finished turn, or 202 with `?background=true`),
    /// under the same rules (limits, quotas, `on_active` while the session is
    /// answering). A message that answers nothing a user said: 422
    /// `nothing_to_regenerate`.
    #[oai(
        path = "/:id/messages/:message_id/regenerate",
        method = "post",
        operation_id = "regenerate_message"
    )]
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn regenerate(
        &self,
        auth: BearerAuth,
        request: &poem::Request,
        state: Data<&AppState>,
        id: Path<Uuid>,
        message_id: Path<Uuid>,
        body: Json<RegenerateMessage>,
        /// Return the same prompt when the same request with this key was already
        /// accepted (another request with it: 422 `idempotency_key_reused`).
        #[oai(name = "Idempotency-Key", validator(min_length = 1, max_length = 200))]
        idempotency_key: Header<Option<String>>,
        /// Answer 202 at once and run the turn in the background.
        background: Query<Option<bool>>,
        /// What to do while another message of the session is being answered.
        on_active: Query<Option<OnActive>>,
    ) -> ApiResult<TurnResponse, statuses::SendMessage> {
        let asked = Regeneration {
            session_id: id.0,
            user_id: auth.0.user_id,
            message_id: message_id.0,
            model: body.0.model.map(Text::into_inner),
            idempotency_key: idempotency_key.0,
            on_active: on_active.0.unwrap_or_default().into(),
            trace_context: trace_context(request),
        };
        let prompt = state.turns.regenerate(asked).await?;
        respond(&state, request, background.0, &prompt, &auth).await
    }

    /// Switch branches
    ///
    /// Makes the branch through a message the one the session shows and continues (the
    /// ‹ n/m › switcher): the session's `active_leaf_id` becomes the newest leaf below
    /// it. 409 `prompt_active` while a turn of the session runs; 422 `message_not_found`
    /// for a message the session does not have.
    #[oai(path = "/:id/branch", method = "put", operation_id = "switch_branch")]
    async fn switch(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
        body: Json<SwitchBranch>,
    ) -> ApiResult<Json<Session>, statuses::ChangeMayConflict> {
        let session = state
            .turns
            .switch_branch(auth.0.user_id, id.0, body.0.message_id)
            .await?;
        Ok(Json(session.into()))
    }
}
