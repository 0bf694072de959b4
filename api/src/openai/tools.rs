//! The caller's own functions on chat completions (#46 item 1): a request's `tools` are
//! the turn's client functions (`parley_protocol::client_functions`); the model's calls
//! of them end the completion with `tool_calls` while the turn waits (as a call of
//! Parley's own API waits for `POST …/calls/{call_id}/result`), and the next request,
//! whose messages end with a `tool` message per call, answers them and continues the same
//! turn — with or without `Parley-Conversation`, since a call's `id` names it. A `tool`
//! message that answers no waiting call of the caller's is a 400 naming it. The
//! Responses API's function tools and `function_call_output` items go the same way
//! ([`super::items`]).

use parley_protocol::client_functions::{CallAnswer, CallPolicy, ClientFunction, ToolChoice};
use parley_protocol::error::{Error, ErrorCode};
use parley_protocol::events::ToolCallState;
use serde_json::{Value, json};
use uuid::Uuid;

use super::chat_events::Continuing;
use super::input::tool_text_of;
use super::types::{ChatMessageInput, ChatRole, ChatTool};
use crate::{error::Problem, identity::Caller, state::AppState};

fn invalid_at(param: impl Into<String>, detail: impl Into<String>) -> Box<Problem> {
    Box::new(Problem::new(ErrorCode::InvalidParameter, detail).param(param))
}

/// What a request offers the model: the caller's functions and how they may be called.
pub struct Offered {
    pub functions: Vec<ClientFunction>,
    pub policy: CallPolicy,
}

/// The functions a request offers the model: its `tools`, unless `tool_choice` is
/// `none`; and how the model may call them: `tool_choice` `required` (some function,
/// the caller's or the chat tool's) or a named function of `tools` (on chat completions
/// `{type: function, function: {name}}`, on the Responses API `{type: function, name}`)
/// forces the turn's first answer to call, and `parallel_tool_calls: false` allows one
/// call per answer. A forced choice of no function is a 400 naming `tool_choice`. `parameters_at` is where a tool's `parameters` are
/// (`function.parameters` on chat completions, `parameters` on the Responses API).
pub fn offered(
    tools: Option<Vec<ChatTool>>,
    choice: Option<&Value>,
    parallel: Option<bool>,
    parameters_at: &str,
) -> Result<Offered, Box<Problem>> {
    let tools = tools.unwrap_or_default();
    let mut functions = Vec::new();
    for (i, tool) in tools.into_iter().enumerate() {
        if tool.kind != "function" {
            return Err(Box::new(
                Problem::new(
                    ErrorCode::UnsupportedParameter,
                    format!("`tools[{i}].type`: only `function` tools are offered"),
                )
                .param(format!("tools[{i}].type")),
            ));
        }
        let parameters = match tool.function.parameters {
            None | Some(Value::Null) => json!({"type": "object"}),
            Some(schema @ Value::Object(_)) => schema,
            Some(_) => {
                return Err(invalid_at(
                    format!("tools[{i}].{parameters_at}"),
                    "a function's `parameters` is a JSON schema (an object)",
                ));
            }
        };
        functions.push(ClientFunction {
            name: tool.function.name,
            description: tool.function.description,
            parameters,
            returns: None,
        });
    }
    let choice = tool_choice(choice, &functions)?;
    if choice == ToolChoice::Required && functions.is_empty() {
        return Err(invalid_at(
            "tool_choice",
            "`tool_choice: required` needs `tools` to call",
        ));
    }
    if choice == ToolChoice::None {
        functions.clear();
    }
    let policy = CallPolicy {
        choice,
        serial: parallel == Some(false),
        ..CallPolicy::default()
    };
    Ok(Offered { functions, policy })
}

/// A request's `tool_choice`, one of `functions` when it names one.
fn tool_choice(
    choice: Option<&Value>,
    functions: &[ClientFunction],
) -> Result<ToolChoice, Box<Problem>> {
    let choice = match choice {
        None | Some(Value::Null) => return Ok(ToolChoice::Auto),
        Some(choice) => choice,
    };
    match choice {
        Value::String(s) if s == "auto" => Ok(ToolChoice::Auto),
        Value::String(s) if s == "none" => Ok(ToolChoice::None),
        Value::String(s) if s == "required" => Ok(ToolChoice::Required),
        Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("function") => {
            // Chat completions nest the name in `function`; the Responses API does not.
            let name = o
                .get("function")
                .and_then(|f| f.get("name"))
                .or_else(|| o.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            if !functions.iter().any(|f| f.name == name) {
                return Err(invalid_at(
                    "tool_choice",
                    format!("`tool_choice` names `{name}`, which is none of the `tools`"),
                ));
            }
            Ok(ToolChoice::Function {
                name: name.to_owned(),
            })
        }
        Value::Object(o) => Err(Box::new(
            Problem::new(
                ErrorCode::UnsupportedParameter,
                format!(
                    "`tool_choice` of type `{}` is not offered (`auto`, `none`, `required` or a function)",
                    o.get("type").and_then(Value::as_str).unwrap_or("?")
                ),
            )
            .param("tool_choice"),
        )),
        _ => Err(invalid_at(
            "tool_choice",
            "`tool_choice` is `auto`, `none`, `required` or a function",
        )),
    }
}

/// A refused submission as the OpenAI surface answers it: the service's refusal of the
/// offered functions (a name the chat tool has, a schema that is none) is a 400 naming
/// `tools`.
pub fn refused(err: Error) -> Box<Problem> {
    let offered = err.code() == ErrorCode::InvalidClientFunction;
    let problem = Problem::from(err);
    if offered {
        return invalid_at("tools", problem.detail.replace("client_functions", "tools"));
    }
    Box::new(problem)
}

/// A result that ends a request (a `tool` message, a `function_call_output` item): where
/// it is (`param`), the call it answers and the result.
pub struct ToolResult {
    pub param: String,
    pub call_id: String,
    pub text: String,
}

/// How a surface's request answers calls: the list its results are in and what one is.
pub struct Answers {
    pub list: &'static str,
    pub each: &'static str,
}

pub const CHAT_ANSWERS: Answers = Answers {
    list: "messages",
    each: "a `tool` message for each of the last `tool_calls`",
};

pub const RESPONSES_ANSWERS: Answers = Answers {
    list: "input",
    each: "a `function_call_output` item for each `function_call` of the response",
};

/// The `tool` messages that end `messages` (none: the request asks a new turn).
pub fn trailing_results(messages: &[ChatMessageInput]) -> Result<Vec<ToolResult>, Box<Problem>> {
    let mut results = Vec::new();
    for (index, message) in messages.iter().enumerate().rev() {
        if message.role != ChatRole::Tool {
            break;
        }
        let call_id = message.tool_call_id.clone().ok_or_else(|| {
            invalid_at(
                format!("messages[{index}].tool_call_id"),
                "a `tool` message names the call it answers",
            )
        })?;
        results.push(ToolResult {
            param: format!("messages[{index}].tool_call_id"),
            call_id,
            text: tool_text_of(message.content.clone())?,
        });
    }
    results.reverse();
    Ok(results)
}

/// Answers the calls the results name — every call of one waiting turn of the caller's,
/// of the prompt `within` when one is named (`previous_response_id`) — and returns that
/// turn's prompt with where its continuation starts.
pub async fn continue_turn(
    state: &AppState,
    caller: &Caller,
    results: Vec<ToolResult>,
    answers: &Answers,
    within: Option<Uuid>,
) -> Result<(parley_entity::prompts::Model, Continuing), Box<Problem>> {
    let unknown = |result: &ToolResult| {
        invalid_at(
            result.param.clone(),
            format!(
                "`{}` answers no call of yours that waits for its result (it was answered, it expired, or it is no call Parley returned)",
                result.call_id
            ),
        )
    };
    let ids = results
        .iter()
        .map(|result| {
            result
                .call_id
                .strip_prefix("call_")
                .and_then(|hex| Uuid::try_parse(hex).ok())
                .ok_or_else(|| unknown(result))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (prompt, calls) = state
        .turns
        .calls_with(caller.user_id, ids[0])
        .await
        .map_err(|err| match err {
            Error::NotFound { .. } => unknown(&results[0]),
            other => Box::new(Problem::from(other)),
        })?;
    if within.is_some_and(|within| within != prompt.id) {
        return Err(invalid_at(
            "previous_response_id",
            format!(
                "`{}` is a call of another response's turn than `previous_response_id`",
                results[0].call_id
            ),
        ));
    }
    for (result, id) in results.iter().zip(&ids) {
        let waits = calls
            .iter()
            .any(|c| c.id == *id && c.state == ToolCallState::AwaitingClient);
        if !waits {
            return Err(unknown(result));
        }
    }
    if let Some(missing) = calls
        .iter()
        .find(|c| c.state == ToolCallState::AwaitingClient && !ids.contains(&c.id))
    {
        return Err(invalid_at(
            answers.list,
            format!(
                "the call `{}` ({}) waits for its result too: send {}",
                super::chat_events::tool_call_id(missing.id),
                missing.tool_name,
                answers.each,
            ),
        ));
    }
    let from = Continuing {
        attempt: u32::try_from(prompt.attempt).unwrap_or_default(),
        calls: calls.len() as u32,
    };
    for (result, id) in results.into_iter().zip(ids) {
        state
            .turns
            .answer_call(caller.user_id, prompt.id, id, CallAnswer::Text(result.text))
            .await?;
    }
    Ok((prompt, from))
}
