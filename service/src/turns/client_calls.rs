//! Functions of the caller's own (#46 items 1–2), as the service sees them: a turn's
//! `client_functions` checked when it is accepted, and the caller's result of a call
//! recorded (`POST /v1/prompts/{id}/calls/{call_id}/result`) — the call's row answered,
//! the prompt woken and its job enqueued once no call of it waits. The wait itself (the
//! row, the suspend, the expiry) is `parley_entity::query::approvals` and the worker's.

use std::collections::HashSet;

use parley_entity::{
    query::{
        self,
        approvals::{self, Answered},
        prompts as q,
    },
    sessions, tool_calls,
};
use parley_protocol::client_functions::{CallAnswer, ClientFunction, MAX_CLIENT_FUNCTIONS};
use parley_protocol::error::{Error, ErrorCode, Result};
use parley_protocol::events::ToolCallState;
use parley_protocol::jobs::PromptJob;
use parley_runtime::queue::JobQueue;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::TurnService;

/// What the model reads when no result came in time.
pub const EXPIRED: &str = "The caller did not answer this call in time, so it has no result.";

fn invalid(why: String) -> Error {
    Error::invalid(ErrorCode::InvalidClientFunction, why)
}

impl TurnService {
    /// A turn's client functions: at most [`MAX_CLIENT_FUNCTIONS`], each a usable name
    /// once, not a function of the session's tool, with parameters (and a result) that are
    /// JSON schemas. 422 `invalid_client_function` naming the first that is not.
    pub(super) fn check_client_functions(
        &self,
        functions: &[ClientFunction],
        session: &sessions::Model,
    ) -> Result<()> {
        if functions.len() > MAX_CLIENT_FUNCTIONS {
            return Err(invalid(format!(
                "a message may offer at most {MAX_CLIENT_FUNCTIONS} client functions"
            )));
        }
        let own: HashSet<&str> = session.config.functions().collect();
        let mut seen = HashSet::new();
        for function in functions {
            if let Some(problem) = function.problem() {
                return Err(invalid(format!("`client_functions`: {problem}")));
            }
            if !seen.insert(function.name.as_str()) {
                return Err(invalid(format!(
                    "`client_functions`: `{}` is offered twice",
                    function.name
                )));
            }
            if own.contains(function.name.as_str()) {
                return Err(invalid(format!(
                    "`client_functions`: `{}` is a function of the session's tool, which Parley runs; name yours otherwise",
                    function.name
                )));
            }
            for (field, schema) in [
                ("parameters", Some(&function.parameters)),
                ("returns", function.returns.as_ref()),
            ] {
                if let Some(schema) = schema
                    && let Err(err) = jsonschema::validator_for(schema)
                {
                    return Err(invalid(format!(
                        "`client_functions`: `{}`'s `{field}` is not a JSON schema: {err}",
                        function.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// The caller's prompt that call `call_id` belongs to, with all of the prompt's
    /// calls in the order they were made (the OpenAI surface answers a waiting turn's
    /// calls from the `tool` messages of the next request). 404 for a call of no prompt
    /// of the caller's.
    pub async fn calls_with(
        &self,
        user_id: Uuid,
        call_id: Uuid,
    ) -> Result<(parley_entity::prompts::Model, Vec<tool_calls::Model>)> {
        let call = query::tool_calls::get(&self.db, call_id).await?;
        let prompt = q::get_owned(&self.db, user_id, call.prompt_id).await?;
        let calls = query::tool_calls::of_prompt(&self.db, prompt.id).await?;
        Ok((prompt, calls))
    }

    /// Records the caller's `answer` to call `call_id` of their prompt `prompt_id`: 404
    /// for another user's prompt or a call it does not have; 409 `not_awaiting_result`
    /// when the call does not wait for one (answered, expired, cancelled, or not a client
    /// function's); 422 `invalid_call_result` for a result that is not what the function
    /// declares (`returns`: JSON of that schema).
    #[tracing::instrument(skip(self, answer), err(level = "debug"))]
    pub async fn answer_call(
        &self,
        user_id: Uuid,
        prompt_id: Uuid,
        call_id: Uuid,
        answer: CallAnswer,
    ) -> Result<tool_calls::Model> {
        let prompt = q::get_owned(&self.db, user_id, prompt_id).await?;
        let call = query::tool_calls::get(&self.db, call_id).await?;
        if call.prompt_id != prompt.id {
            return Err(Error::not_found("tool call"));
        }
        if call.state != ToolCallState::AwaitingClient {
            return Err(not_awaiting(call.state));
        }
        let declared = prompt.input.as_ref().and_then(|input| {
            input
                .client_functions
                .iter()
                .find(|f| f.name == call.tool_name)
        });
        if let Some(schema) = declared.and_then(|f| f.returns.as_ref()) {
            check_result(&call.tool_name, schema, &answer)?;
        }
        let answered = Answered {
            state: if answer.succeeded() {
                ToolCallState::Success
            } else {
                ToolCallState::Error
            },
            result: answer.to_value(),
            error: match &answer {
                CallAnswer::Failed(why) => Some(why.clone()),
                _ => None,
            },
            by: Some(user_id),
        };
        record(&self.db, self.queue.as_ref(), prompt.id, call_id, answered).await
    }
}

fn not_awaiting(state: ToolCallState) -> Error {
    Error::conflict(
        ErrorCode::NotAwaitingResult,
        format!("the call is not waiting for a result (it is {state})"),
    )
}

/// A result of a function that declares one: JSON of its schema (a failure is always
/// accepted).
fn check_result(function: &str, schema: &serde_json::Value, answer: &CallAnswer) -> Result<()> {
    let invalid = |why: String| Error::invalid(ErrorCode::InvalidCallResult, why);
    let value = match answer {
        CallAnswer::Failed(_) => return Ok(()),
        CallAnswer::Text(_) => {
            return Err(invalid(format!(
                "`{function}` declares a JSON result: send it as `output`, not `text`"
            )));
        }
        CallAnswer::Output(value) => value,
    };
    let validator = jsonschema::validator_for(schema)
        .map_err(|err| Error::internal("checking a client call's result", err.to_string()))?;
    match crate::payloads::schema_problems(&validator, value) {
        None => Ok(()),
        Some(problems) => Err(invalid(format!(
            "the result does not fit `{function}`'s `returns`: {problems}"
        ))),
    }
}

/// Records an answer on a waiting call and, when it was the prompt's last waiting call,
/// enqueues the job that resumes the turn (a lost enqueue is left to the reaper).
pub async fn record(
    db: &DatabaseConnection,
    queue: &dyn JobQueue,
    prompt_id: Uuid,
    call_id: Uuid,
    answered: Answered,
) -> Result<tool_calls::Model> {
    let expired = answered.by.is_none();
    let decided = approvals::answer(db, prompt_id, call_id, answered, query::now()).await?;
    tracing::info!(%prompt_id, %call_id, expired, resume = decided.resume, "a client call was answered");
    if decided.resume
        && let Err(err) = queue.enqueue(PromptJob::turn(prompt_id)).await
    {
        tracing::error!(error = %err, %prompt_id, "cannot enqueue the resumed turn; the reaper will");
    }
    Ok(decided.call)
}

/// Fails a call whose caller did not answer in time (the workers' expiry pass); 409
/// `not_awaiting_result` when it was answered meanwhile.
pub async fn expire(
    db: &DatabaseConnection,
    queue: &dyn JobQueue,
    prompt_id: Uuid,
    call_id: Uuid,
) -> Result<tool_calls::Model> {
    let answered = Answered {
        state: ToolCallState::Error,
        result: CallAnswer::Failed(EXPIRED.to_owned()).to_value(),
        error: Some(EXPIRED.to_owned()),
        by: None,
    };
    record(db, queue, prompt_id, call_id, answered).await
}
