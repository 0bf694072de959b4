//! Functions of the caller's own (#46 item 2): what a message offers the model besides the
//! tool's functions (`CreateMessage.client_functions`), and the result the caller posts
//! for a call of one (`POST /v1/prompts/{id}/calls/{call_id}/result`, in `super::prompts`).
//! The rules live in `parley_service::turns::client_calls`.

use parley_protocol::client_functions::{CallAnswer, ClientFunction};
use poem_openapi::{Object, Union};
use serde_json::Value;

use crate::types::{AnyJson, JsonObject, Text};

/// A function the caller runs itself. The model may call it like one of the tool's
/// functions; the call is then streamed as `client_call_requested` (its arguments checked
/// against `parameters` first: arguments that do not fit are told to the model, not to
/// the caller), the turn waits (`waiting_for_tools`, no worker held) and resumes once the
/// caller posts the call's result (`POST /v1/prompts/{id}/calls/{call_id}/result`), or
/// when the wait expires (the model is told no result came).
#[derive(Debug, Clone, Object)]
#[oai(rename = "ClientFunction", deny_unknown_fields)]
pub struct ClientFunctionDef {
    /// Letters, digits, `_` and `-`; not one of the session tool's own functions (422
    /// `invalid_client_function`).
    #[oai(validator(min_length = 1, max_length = 64))]
    pub name: Text,
    /// What it does, for the model.
    #[oai(validator(max_length = 4096))]
    pub description: Option<Text>,
    /// The JSON schema of its arguments; absent: any object.
    pub parameters: Option<JsonObject>,
    /// The JSON schema of its result, when it answers JSON: a posted result that is
    /// `text`, or `output` that does not fit, is refused 422 `invalid_call_result` and
    /// the call keeps waiting.
    pub returns: Option<JsonObject>,
}

impl From<ClientFunctionDef> for ClientFunction {
    fn from(def: ClientFunctionDef) -> Self {
        Self {
            name: def.name.into_inner(),
            description: def.description.map(Text::into_inner),
            parameters: def
                .parameters
                .map_or_else(|| serde_json::json!({"type": "object"}), Value::from),
            returns: def.returns.map(Value::from),
        }
    }
}

/// The result of a call of a client function: exactly one of `output`, `text` and
/// `error`.
#[derive(Debug, Union)]
#[oai(rename = "ClientCallResult", one_of)]
pub enum ClientCallResult {
    Output(CallOutput),
    Text(CallText),
    Error(CallError),
}

/// The result as JSON: what a function that declares `returns` must send, fitting that
/// schema.
#[derive(Debug, Object)]
#[oai(rename = "ClientCallOutput", deny_unknown_fields)]
pub struct CallOutput {
    pub output: AnyJson,
}

/// The result as text.
#[derive(Debug, Object)]
#[oai(rename = "ClientCallText", deny_unknown_fields)]
pub struct CallText {
    // 128 Ki characters: one more, even each escaped as `\uXXXX` (6 bytes), still fits
    // the 1 MiB body limit, so a too-long text is a 422 that names it, never a 413.
    #[oai(validator(max_length = 131072))]
    pub text: String,
}

/// The function failed, and why: the model is told.
#[derive(Debug, Object)]
#[oai(rename = "ClientCallError", deny_unknown_fields)]
pub struct CallError {
    #[oai(validator(min_length = 1, max_length = 4096))]
    pub error: String,
}

impl From<ClientCallResult> for CallAnswer {
    fn from(result: ClientCallResult) -> Self {
        match result {
            ClientCallResult::Output(CallOutput { output }) => Self::Output(output.0),
            ClientCallResult::Text(CallText { text }) => Self::Text(text),
            ClientCallResult::Error(CallError { error }) => Self::Failed(error),
        }
    }
}
