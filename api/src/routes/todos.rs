//! `/v1/todos`: the caller's todos (saved by the `createTodo` function during turns).

use chrono::{DateTime, Utc};
use parley_entity::todos;
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

/// Something the caller means to do.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Todo {
    pub id: Uuid,
    /// The session whose conversation created it, if it still exists.
    pub session_id: Option<Uuid>,
    pub title: String,
    pub notes: Option<String>,
    pub due_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<todos::Model> for Todo {
    fn from(t: todos::Model) -> Self {
        Self {
            id: t.id,
            session_id: t.session_id,
            title: t.title,
            notes: t.notes,
            due_at: t.due_at,
            completed_at: t.completed_at,
            created_at: t.created_at,
            updated_at: t.updated_at,
        }
    }
}

pub struct TodosApi;

#[OpenApi(prefix_path = "/v1/todos", tag = "ApiTags::Data")]
impl TodosApi {
    /// List todos
    ///
    /// The caller's todos, newest first.
    #[oai(path = "/", method = "get", operation_id = "list_todos")]
    async fn list(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        /// Page size.
        limit: Query<Option<Limit>>,
        /// `next_cursor` of the previous page.
        cursor: Query<Option<String>>,
    ) -> ApiResult<Json<Page<Todo>>, statuses::List> {
        let page = pagination::request(limit.0, cursor.0.as_deref())?;
        let rows = state.saved().todos(auth.0.user_id, page).await?;
        Ok(Json(Page::from_rows(rows, Todo::from)))
    }
}
