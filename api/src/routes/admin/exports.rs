//! `/v1/admin/exports/conversations`: conversations as JSONL in OpenAI's chat fine-tuning
//! format, for evaluation and fine-tuning — streamed a page of sessions at a time
//! (`parley_service::feedback::export` writes the lines; the format is documented
//! there and in docs/architecture.md §9).
//!
//! The body is `application/x-ndjson`, one `ExportedConversation` per line, sent as it
//! is read (chunked): the objects below document a line's shape, and a unit test checks
//! that what the service writes fits them.

use std::pin::Pin;

use chrono::{DateTime, Utc};
use futures::{Stream, StreamExt};
use parley_entity::query::feedback::export::ExportFilter;
use parley_protocol::error::Result;
use poem::{Body, IntoResponse, Response, web::Data};
use poem_openapi::{
    ApiResponse, Enum, Object, OpenApi,
    param::Query,
    payload::Payload,
    registry::{MetaSchemaRef, Registry},
    types::Type,
};
use uuid::Uuid;

use super::metrics::span;
use crate::{
    auth::AdminAuth,
    error::{ApiResult, statuses},
    routes::{ApiTags, views::Rating},
    state::AppState,
    types::JsonObject,
};

/// Who speaks in a message of an exported conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum ExportedRole {
    System,
    User,
    Assistant,
    Tool,
}

/// The kind of a tool in OpenAI's format: always `function`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum ExportedToolKind {
    Function,
}

/// A function call of an assistant message.
#[derive(Debug, Object)]
pub struct ExportedToolCall {
    /// The call's id, which its `tool` message names.
    pub id: String,
    #[oai(rename = "type")]
    pub kind: ExportedToolKind,
    pub function: ExportedFunctionCall,
}

/// Which function was called, and with what.
#[derive(Debug, Object)]
pub struct ExportedFunctionCall {
    pub name: String,
    /// The arguments as a JSON text.
    pub arguments: String,
}

/// A message of an exported conversation.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ExportedMessage {
    pub role: ExportedRole,
    /// The text as stored (redacted where a module redacted it); absent on an assistant
    /// message that only calls functions.
    pub content: Option<String>,
    /// An assistant message's function calls, each answered by a `tool` message.
    pub tool_calls: Option<Vec<ExportedToolCall>>,
    /// A `tool` message's call.
    pub tool_call_id: Option<String>,
}

/// A function the conversation's model was offered.
#[derive(Debug, Object)]
pub struct ExportedTool {
    #[oai(rename = "type")]
    pub kind: ExportedToolKind,
    pub function: ExportedFunction,
}

/// A function's name, description and JSON schema.
#[derive(Debug, Object)]
pub struct ExportedFunction {
    pub name: String,
    pub description: String,
    /// The JSON schema of its arguments.
    pub parameters: JsonObject,
}

/// One line of the export: a conversation (a session's active branch) in OpenAI's chat
/// fine-tuning format.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ExportedConversation {
    /// First to last: the system prompt, then the branch's messages; an answer that
    /// called functions is its calls' assistant messages and their `tool` results,
    /// then its text.
    pub messages: Vec<ExportedMessage>,
    /// The functions the session offered (absent when none).
    pub tools: Option<Vec<ExportedTool>>,
}

type Lines = Pin<Box<dyn Stream<Item = Result<String>> + Send>>;

/// A JSONL body written as it is read; documented as `application/x-ndjson` of
/// `ExportedConversation`s (one per line).
pub struct Jsonl(Lines);

impl Payload for Jsonl {
    const CONTENT_TYPE: &'static str = "application/x-ndjson";

    fn schema_ref() -> MetaSchemaRef {
        ExportedConversation::schema_ref()
    }

    fn register(registry: &mut Registry) {
        ExportedConversation::register(registry);
    }
}

impl IntoResponse for Jsonl {
    fn into_response(self) -> Response {
        // A page that fails mid-way ends the body with an error: the connection is cut
        // before the last chunk, so a reader cannot take a partial export for a whole one.
        let chunks = self.0.map(|chunk| {
            chunk
                .map(|text| text.into_bytes())
                .map_err(|err| std::io::Error::other(err.to_string()))
        });
        Response::builder()
            .content_type(Self::CONTENT_TYPE)
            .header("X-Accel-Buffering", "no")
            .header("Cache-Control", "no-store")
            .body(Body::from_bytes_stream(chunks))
    }
}

#[derive(ApiResponse)]
pub enum ExportResponse {
    /// The conversations, one JSON object per line, oldest session first.
    #[oai(status = 200)]
    Lines(Jsonl),
}

pub struct ExportsAdminApi;

#[OpenApi(prefix_path = "/v1/admin/exports", tag = "ApiTags::Admin")]
impl ExportsAdminApi {
    /// Export conversations
    ///
    /// Conversations as JSONL in OpenAI's chat fine-tuning format, one per line: each
    /// session's active branch (its stored, redacted text; function calls as
    /// `tool_calls` and `tool` messages), oldest session first, streamed as it is read.
    /// Filters: sessions started in the window, with a chat tool, with an answer on the
    /// branch by a model, or with an answer on the branch rated so.
    #[oai(
        path = "/conversations",
        method = "get",
        operation_id = "admin_export_conversations"
    )]
    // poem-openapi takes each query parameter as an argument of its own.
    #[allow(
        clippy::too_many_arguments,
        reason = "a poem-openapi operation takes each path, query and header parameter as an argument"
    )]
    async fn conversations(
        &self,
        _auth: AdminAuth,
        state: Data<&AppState>,
        /// Sessions started at or after this time; default: no start.
        from: Query<Option<DateTime<Utc>>>,
        /// Sessions started before this time (must be after `from`); default: no end.
        to: Query<Option<DateTime<Utc>>>,
        /// Only sessions of this chat tool.
        tool_id: Query<Option<Uuid>>,
        /// Only conversations with an answer (on the exported branch) this model wrote.
        #[oai(validator(min_length = 1, max_length = 200))]
        model: Query<Option<String>>,
        /// Only conversations with an answer (on the exported branch) rated so.
        rating: Query<Option<Rating>>,
    ) -> ApiResult<ExportResponse, statuses::AdminList> {
        let filter = ExportFilter {
            window: span(from.0, to.0)?,
            tool_id: tool_id.0,
            model: model.0,
            rating: rating.0.map(Into::into),
        };
        let lines = state.feedback().export_conversations(filter).await?;
        Ok(ExportResponse::Lines(Jsonl(lines.boxed())))
    }
}

#[cfg(test)]
mod tests;
