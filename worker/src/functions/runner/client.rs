//! The runner's part in the caller's own functions (#46 items 1–2): a call of one is
//! checked like any call (JSON arguments that fit its parameters), then waits for the
//! caller's result (`awaiting_client` until the wait ends) instead of running, and
//! readers are told (`client_call_requested`). The wait itself — the suspend, the result,
//! the expiry — is `parley_entity::query::approvals` and the turn's suspend stage.

use parley_entity::query::{self, approvals};
use parley_protocol::client_functions::ClientFunction;
use parley_protocol::events::{EventKind, ToolCallState};
use serde_json::{Value, json};

use super::{Prepared, Refused, TurnFunctions, ended};
use crate::agent_loop::{CallOutput, CallResult, PlannedCall, Sink, SinkError};
use crate::providers::FunctionOffer;

impl TurnFunctions {
    /// The caller's function `name`, unless the tool offers one of that name (the api
    /// refuses a clash; a tool that gained the name since keeps it).
    pub(super) fn client_function(&self, name: &str) -> Option<&ClientFunction> {
        if self.offers[..self.own].iter().any(|o| o.name == name) {
            return None;
        }
        self.client.iter().find(|f| f.name == name)
    }

    /// A call of the caller's function: refused when its arguments are not JSON or do not
    /// fit; else it waits for the caller's result (an earlier attempt's wait keeps its
    /// end).
    pub(super) async fn prepare_client_call(
        &self,
        call: &PlannedCall,
        function: &ClientFunction,
        parsed: Result<Value, serde_json::Error>,
        row: &parley_entity::tool_calls::Model,
    ) -> Result<Prepared, SinkError> {
        let refused = match parsed {
            Err(err) => Some(Refused::NotJson(err)),
            Ok(args) => fits(&function.parameters, &args)
                .err()
                .map(Refused::Arguments),
        };
        if let Some(refused) = refused {
            return Ok(Prepared::Done(ended(
                call,
                ToolCallState::Error,
                refused.to_string(),
                0,
            )));
        }
        let expires_at = match row.approval_expires_at {
            Some(at) if row.state == ToolCallState::AwaitingClient => at,
            _ => {
                let timeout = chrono::Duration::from_std(self.approval_timeout)
                    .unwrap_or(chrono::Duration::days(1));
                let at = query::now() + timeout;
                approvals::await_result(&self.context.db, row.id, at)
                    .await?
                    .approval_expires_at
                    .unwrap_or(at)
            }
        };
        let waiting = CallResult {
            output: CallOutput::Result(json!({ "status": "awaiting_result" })),
            ..ended(call, ToolCallState::AwaitingClient, String::new(), 0)
        };
        Ok(Prepared::WaitingForClient(waiting, expires_at))
    }

    /// Tells readers that call `row_id` waits for the caller's result until `expires_at`,
    /// and closes its block.
    pub(super) async fn request_result(
        &self,
        row_id: uuid::Uuid,
        call: &PlannedCall,
        waiting: &CallResult,
        expires_at: chrono::DateTime<chrono::Utc>,
        sink: &mut dyn Sink,
    ) -> Result<(), SinkError> {
        sink.event(EventKind::ClientCallRequested {
            index: call.n,
            tool: call.name.clone(),
            tool_use_id: call.id.clone(),
            call_id: row_id,
            input: waiting.input.clone(),
            expires_at,
        })
        .await?;
        sink.event(EventKind::BlockStop { index: call.block }).await
    }
}

/// Why `args` do not fit `schema` (a schema that does not compile fits anything: the api
/// checked it when the turn was accepted).
fn fits(schema: &Value, args: &Value) -> Result<(), String> {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Ok(());
    };
    match parley_service::payloads::schema_problems(&validator, args) {
        None => Ok(()),
        Some(problems) => Err(problems),
    }
}

/// The offers of a turn: the tool's own, then the caller's functions whose names the
/// tool does not offer. Returns them and how many are the tool's.
pub fn with_client(
    mut own: Vec<FunctionOffer>,
    client: &[ClientFunction],
) -> (Vec<FunctionOffer>, usize) {
    let count = own.len();
    for f in client {
        if own[..count].iter().any(|o| o.name == f.name) {
            continue;
        }
        own.push(FunctionOffer {
            name: f.name.clone(),
            description: f.description.clone().unwrap_or_default(),
            parameters: f.parameters.clone(),
        });
    }
    (own, count)
}
