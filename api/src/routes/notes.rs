//! `/v1/notes`: the caller's notes (saved by the `createNote` function during turns).

use chrono::{DateTime, Utc};
use parley_entity::notes;
use poem::web::Data;
use poem_openapi::{Object, OpenApi, param::Query, payload::Json};
use uuid::Uuid;

use super::ApiTags;
use crate::{
    auth::BearerAuth,
    error::{ApiResult, statuses},
    pagination::{self, Limit, Page},
    state::AppState,
};

/// A note the caller kept.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Note {
    pub id: Uuid,
    /// The session whose conversation created it, if it still exists.
    pub session_id: Option<Uuid>,
    pub title: String,
    pub content: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<notes::Model> for Note {
    fn from(n: notes::Model) -> Self {
        Self {
            id: n.id,
            session_id: n.session_id,
            title: n.title,
            content: n.content,
            created_at: n.created_at,
            updated_at: n.updated_at,
        }
    }
}

pub struct NotesApi;

#[OpenApi(prefix_path = "/v1/notes", tag = "ApiTags::Data")]
impl NotesApi {
    /// List notes
    ///
    /// The caller's notes, newest first.
    #[oai(path = "/", method = "get", operation_id = "list_notes")]
    async fn list(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Note>>, statuses::List> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let rows = state.saved().notes(auth.0.user_id, page).await?;
        Ok(Json(Page::from_rows(rows, Note::from)))
    }
}
