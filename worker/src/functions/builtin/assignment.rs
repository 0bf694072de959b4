//! `getAssignmentInfo`: the assignment the session works on.

use async_trait::async_trait;
use parley_entity::query;
use parley_service::FunctionSpec;
use serde_json::{Value, json};

use crate::functions::{CallContext, Function, FunctionError, Progress};

pub struct AssignmentInfo {
    spec: FunctionSpec,
}

impl AssignmentInfo {
    pub fn new() -> Self {
        Self {
            spec: super::spec(
                "getAssignmentInfo",
                "The assignment this conversation is for: its title, instructions and when it opens and closes.",
                json!({"type": "object", "properties": {}, "additionalProperties": false}),
                &["assignments:read:self"],
            ),
        }
    }
}

#[async_trait]
impl Function for AssignmentInfo {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }

    async fn call(
        &self,
        ctx: &CallContext,
        _args: Value,
        _progress: &Progress,
    ) -> Result<Value, FunctionError> {
        let id = ctx
            .session_config
            .assignment
            .as_ref()
            .map(|assignment| assignment.id)
            .ok_or_else(|| {
                FunctionError::Failed("this conversation is not for an assignment".into())
            })?;
        let assignment = query::resource::get::<parley_entity::assignments::Entity, _>(&ctx.db, id)
            .await
            .map_err(|err| match err {
                parley_protocol::error::Error::NotFound { .. } => {
                    FunctionError::Failed("the assignment no longer exists".into())
                }
                other => other.into(),
            })?;
        let now = query::now();
        let open = assignment.available_at.is_none_or(|at| at <= now)
            && assignment.closes_at.is_none_or(|at| now < at);
        Ok(json!({
            "title": assignment.title,
            "instructions": assignment.instructions,
            "available_at": assignment.available_at,
            "closes_at": assignment.closes_at,
            "open": open,
        }))
    }
}
