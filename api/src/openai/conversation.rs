//! How a stateless OpenAI-compatible request becomes a Parley turn
//! (docs/decisions.md, "The OpenAI-compatible surface").
//!
//! * **The model** names a chat tool (`tool:<id>`, a session with that tool and its
//!   model) or a model id (a session with the caller's first usable tool, answered by
//!   that model; `auto`: the tool's own model). Anything else is `model_not_found`.
//! * **The conversation**: a request opens a new session and the messages before its
//!   last one are imported as that session's history (user and assistant text; tool
//!   messages and calls are the client's business and left out). With a conversation
//!   key (`Parley-Conversation`, or the Responses API's `previous_response_id`) the
//!   session is found again and only the last message is sent: the server's history
//!   wins over what the client sends.
//! * **`system` / `developer` messages** (and `instructions`) are this turn's
//!   instructions: the worker adds them to the system prompt after the tool's own
//!   sections, which they cannot replace.
//!
//! Then it is a turn like any other (`TurnService::submit`): hooks, skills, functions,
//! quotas, usage, audit and metrics apply.

use parley_entity::{
    enums::MessageRole,
    prompts,
    query::{self, sessions as q},
    sessions,
};
use parley_protocol::error::{Error, ErrorCode};
use parley_protocol::turn::{Surface, TurnInput};
use parley_service::turns::Submission;
use uuid::Uuid;

use super::sampling::Asked;
use crate::{error::Problem, identity::Caller, routes::sessions::opener, state::AppState};

/// What a request names as its model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A chat tool.
    Tool(Uuid),
    /// A model (None: `auto`, the tool's own).
    Model(Option<String>),
}

/// Reads `model`: `tool:<uuid>`, `auto`, or a model id.
pub fn target(model: &str) -> Target {
    match model.strip_prefix("tool:").map(Uuid::parse_str) {
        Some(Ok(id)) => Target::Tool(id),
        Some(Err(_)) => Target::Model(Some(model.to_owned())),
        None if model == "auto" => Target::Model(None),
        None => Target::Model(Some(model.to_owned())),
    }
}

/// A turn to submit: what the user says now, what came before, and how to answer.
#[derive(Debug, Clone)]
pub struct Ask {
    pub model: String,
    /// The last message: what this turn answers.
    pub content: String,
    /// The messages before it (imported into a new conversation only).
    pub history: Vec<(MessageRole, String)>,
    /// System / developer messages and `instructions`, joined.
    pub instructions: Option<String>,
    pub surface: Surface,
    /// The sampling the request asks for (checked against the session's bounds).
    pub sampling: Asked,
    /// The structured output it asks for (checked against the model).
    pub format: super::output::Asked,
    /// Functions the caller runs itself (a chat completion's `tools`).
    pub client_functions: Vec<parley_protocol::client_functions::ClientFunction>,
    /// How the model may call them (`tool_choice`, `parallel_tool_calls`).
    pub call_policy: parley_protocol::client_functions::CallPolicy,
    /// The last message's images and files: the turn's attachments.
    pub media: Vec<super::media::Media>,
}

/// Where the turn goes.
#[derive(Debug, Clone)]
pub enum Conversation {
    /// A new session (keyed with this `rid` when given).
    New { key: Option<String> },
    /// The session of an earlier prompt (`previous_response_id`).
    Of(Uuid),
}

/// The problem for a model the caller cannot use.
pub fn model_not_found(model: &str) -> Box<Problem> {
    Box::new(Problem::new(
        ErrorCode::ModelNotFound,
        format!(
            "the model `{model}` does not exist or you do not have access to it; see GET /openai/v1/models"
        ),
    ))
}

/// Records the turn: finds or opens its session (importing the history into a new
/// one), then submits it. Returns the prompt.
pub async fn submit(
    state: &AppState,
    caller: &Caller,
    ask: Ask,
    conversation: Conversation,
    trace_context: std::collections::HashMap<String, String>,
) -> Result<prompts::Model, Box<Problem>> {
    ask.sampling.check()?;
    let target = target(&ask.model);
    let model_override = match &target {
        Target::Model(Some(model)) if !state.turns.models.contains(model) => {
            return Err(model_not_found(&ask.model));
        }
        Target::Model(model) => model.clone(),
        Target::Tool(_) => None,
    };
    let sessions = state.sessions();
    let mut opened = false;
    let session = match conversation {
        Conversation::Of(session_id) => sessions.owned(caller.user_id, session_id).await?,
        Conversation::New { key } => {
            let existing = match &key {
                Some(key) => match sessions.by_rid(caller.user_id, key).await {
                    Ok(session) => Some(session),
                    Err(Error::NotFound { .. }) => None,
                    Err(other) => return Err(other.into()),
                },
                None => None,
            };
            match existing {
                Some(session) => session,
                None => {
                    opened = true;
                    open(state, caller, &target, &ask, key).await?
                }
            }
        }
    };
    let answering = model_override
        .clone()
        .or_else(|| session.config.model.as_ref().map(|m| m.to_string()))
        .filter(|m| state.turns.models.contains(m))
        .unwrap_or_else(|| state.turns.models.default_model().to_owned());
    let checked = ask
        .sampling
        .within(&session.config.sampling_bounds())
        .and_then(|sampling| match &ask.format.format {
            Some(_) if !state.turns.models.structured_outputs(&answering) => {
                Err(ask.format.unsupported(&answering))
            }
            _ => Ok(sampling),
        })
        .and_then(|sampling| match super::media::first_image(&ask.media) {
            Some(param) if !state.turns.models.vision(&answering) => Err(Box::new(
                Problem::new(
                    ErrorCode::UnsupportedContent,
                    format!(
                        "the model `{answering}` cannot read images; leave them out or name a model with vision"
                    ),
                )
                .param(param),
            )),
            _ => Ok(sampling),
        });
    // The images and files are stored once the request is known to be taken.
    let checked = match checked {
        Ok(sampling) => super::media::attach(state, caller, ask.media)
            .await
            .map(|attachments| (sampling, attachments)),
        Err(problem) => Err(problem),
    };
    let (sampling, attachments) = match checked {
        Ok(checked) => checked,
        Err(problem) => {
            // A refused request leaves nothing behind: not the conversation it opened.
            if opened && let Err(err) = sessions.delete(caller.user_id, session.id).await {
                tracing::warn!(error = %err, "deleting the session of a refused request");
            }
            return Err(problem);
        }
    };
    let submission = Submission {
        session_id: session.id,
        user_id: caller.user_id,
        input: TurnInput {
            instructions: ask.instructions,
            surface: Some(ask.surface),
            sampling,
            response_format: ask.format.format,
            client_functions: ask.client_functions,
            call_policy: ask.call_policy,
            attachments,
            ..TurnInput::text(ask.content)
        },
        model: model_override,
        idempotency_key: None,
        on_active: query::prompts::OnActive::Reject,
        trace_context,
        answers: None,
    };
    match state.turns.submit(submission).await {
        Ok(prompt) => Ok(prompt),
        Err(err) => {
            // Nothing was recorded: the conversation it opened goes too.
            if opened && let Err(err) = sessions.delete(caller.user_id, session.id).await {
                tracing::warn!(error = %err, "deleting the session of a refused request");
            }
            Err(super::tools::refused(err))
        }
    }
}

/// Opens the conversation's session and imports the history it brings.
async fn open(
    state: &AppState,
    caller: &Caller,
    target: &Target,
    ask: &Ask,
    key: Option<String>,
) -> Result<sessions::Model, Box<Problem>> {
    let who = opener(caller);
    let tool_id = match target {
        Target::Tool(id) => *id,
        Target::Model(_) => first_tool(state, caller).await?,
    };
    let request = q::OpenSession {
        tool_id,
        assignment_id: None,
        submission_id: None,
        rid: key.clone(),
    };
    let sessions = state.sessions();
    let session = match sessions.start(who, request).await {
        Ok(session) => session,
        // A tool the caller may not use is a model they cannot name.
        Err(Error::NotFound { .. }) => return Err(model_not_found(&ask.model)),
        // Another request opened the same keyed conversation at the same moment.
        Err(Error::Conflict { .. }) if key.is_some() => {
            let key = key.unwrap_or_default();
            return Ok(sessions.by_rid(caller.user_id, &key).await?);
        }
        Err(other) => return Err(other.into()),
    };
    sessions
        .import_history(session.id, ask.history.clone())
        .await?;
    Ok(session)
}

/// The first chat tool the caller may use (a model id names no tool).
async fn first_tool(state: &AppState, caller: &Caller) -> Result<Uuid, Box<Problem>> {
    state
        .sessions()
        .first_usable_tool(opener(caller))
        .await?
        .ok_or_else(|| {
            Box::new(Problem::from(Error::invalid(
                ErrorCode::NoTool,
                "the caller may use no chat tool: name one as `tool:<id>`, or ask an administrator",
            )))
        })
}

/// A prompt's id from a response or completion id (`resp_<hex>`, a continuation's
/// `resp_<hex>_<attempt>_<calls>`, `chatcmpl-<hex>`, or the bare uuid).
pub fn prompt_id(id: &str) -> Option<Uuid> {
    match id.strip_prefix("chatcmpl-") {
        Some(hex) => Uuid::parse_str(hex).ok(),
        None => super::segment::Segment::of_response(id).map(|segment| segment.prompt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_name_tools_models_or_auto() {
        let id = Uuid::now_v7();
        assert_eq!(target(&format!("tool:{id}")), Target::Tool(id));
        assert_eq!(target("auto"), Target::Model(None));
        assert_eq!(target("gpt-4o"), Target::Model(Some("gpt-4o".into())));
        assert_eq!(target("tool:nope"), Target::Model(Some("tool:nope".into())));
    }

    #[test]
    fn response_ids_are_prompt_ids() {
        let id = Uuid::now_v7();
        assert_eq!(prompt_id(&format!("resp_{}", id.simple())), Some(id));
        assert_eq!(prompt_id(&format!("chatcmpl-{}", id.simple())), Some(id));
        assert_eq!(prompt_id(&id.to_string()), Some(id));
        assert_eq!(prompt_id("resp_garbage"), None);
    }
}
