//! `createTodo` and `createNote`: rows owned by the user, listed by `GET /v1/todos` and
//! `GET /v1/notes`.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use parley_entity::query::{notes, todos};
use parley_service::FunctionSpec;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::functions::{CallContext, Function, FunctionError, Progress};

/// `createTodo`'s arguments (its schema below). `due_at` is read as RFC 3339 by the
/// call, so that a time that does not parse is the model's to fix, not a refusal.
#[derive(Deserialize)]
struct TodoArgs {
    title: String,
    notes: Option<String>,
    due_at: Option<String>,
}

/// `createNote`'s arguments (its schema below).
#[derive(Deserialize)]
struct NoteArgs {
    title: String,
    content: String,
}

pub struct CreateTodo {
    spec: FunctionSpec,
}

impl CreateTodo {
    pub fn new() -> Self {
        Self {
            spec: FunctionSpec {
                payload_type: Some("todo".into()),
                requires_approval: false,
                ..super::spec(
                    "createTodo",
                    "Adds a todo to the user's list.",
                    json!({
                        "type": "object",
                        "properties": {
                            "title": {"type": "string", "minLength": 1, "maxLength": 200},
                            "notes": {"type": "string", "maxLength": 2000},
                            "due_at": {"type": "string", "format": "date-time", "description": "RFC 3339"}
                        },
                        "required": ["title"],
                        "additionalProperties": false
                    }),
                    &["todos:write:self"],
                )
            },
        }
    }
}

#[async_trait]
impl Function for CreateTodo {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }

    async fn call(
        &self,
        ctx: &CallContext,
        args: Value,
        _progress: &Progress,
    ) -> Result<Value, FunctionError> {
        let TodoArgs {
            title,
            notes,
            due_at,
        } = super::arguments(args)?;
        let due_at = match due_at.as_deref() {
            None => None,
            Some(text) => Some(
                DateTime::parse_from_rfc3339(text)
                    .map_err(|_| {
                        FunctionError::Invalid(format!("`{text}` is not an RFC 3339 time"))
                    })?
                    .with_timezone(&Utc),
            ),
        };
        let new = todos::NewTodo {
            id: ctx.call_id,
            user_id: ctx.user_id,
            session_id: Some(ctx.session_id),
            title,
            notes,
            due_at,
        };
        let todo = todos::create(&ctx.db, new).await?;
        Ok(json!({"todo_id": todo.id, "title": todo.title, "due_at": todo.due_at}))
    }
}

pub struct CreateNote {
    spec: FunctionSpec,
}

impl CreateNote {
    pub fn new() -> Self {
        Self {
            spec: FunctionSpec {
                payload_type: Some("note".into()),
                requires_approval: false,
                ..super::spec(
                    "createNote",
                    "Saves a note for the user.",
                    json!({
                        "type": "object",
                        "properties": {
                            "title": {"type": "string", "minLength": 1, "maxLength": 200},
                            "content": {"type": "string", "maxLength": 20000}
                        },
                        "required": ["title", "content"],
                        "additionalProperties": false
                    }),
                    &["notes:write:self"],
                )
            },
        }
    }
}

#[async_trait]
impl Function for CreateNote {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }

    async fn call(
        &self,
        ctx: &CallContext,
        args: Value,
        _progress: &Progress,
    ) -> Result<Value, FunctionError> {
        let NoteArgs { title, content } = super::arguments(args)?;
        let new = notes::NewNote {
            id: ctx.call_id,
            user_id: ctx.user_id,
            session_id: Some(ctx.session_id),
            title,
            content,
        };
        let note = notes::create(&ctx.db, new).await?;
        Ok(json!({"note_id": note.id, "title": note.title}))
    }
}
