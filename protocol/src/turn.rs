//! What a turn carries from the api to the worker besides its job: the user's input,
//! recorded on the prompt (`prompts.input`) when the turn is accepted and saved as the
//! user message by the worker (after `chat:before_ai`, DESIGN §5).

use serde::{Deserialize, Serialize};

use crate::client_functions::{CallPolicy, ClientFunction};
use crate::output::ResponseFormat;
use crate::sampling::Sampling;

/// The user's side of one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "db", derive(sea_orm::FromJsonQueryResult))]
pub struct TurnInput {
    /// What the user said.
    pub content: String,
    /// Files of the user attached to the message (`POST /v1/files`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<uuid::Uuid>,
    /// What the client asks of this turn's answer besides the message: an
    /// OpenAI-compatible client's `system` / `developer` messages or `instructions`.
    /// The worker adds it to the system prompt under "Additional Guidance", after the
    /// tool's own sections (which it cannot replace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The client surface the turn was asked through, when it is not Parley's own API:
    /// what is needed to answer in that surface's shape later (`GET
    /// /openai/v1/responses/{id}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<Surface>,
    /// Where the user message goes in the session's tree when it is not after the
    /// active leaf: an edit names the message the new one follows (DESIGN §13).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
    /// The id the user message gets when the worker saves it, chosen when the turn is
    /// accepted so the answer and the user's feed can name it before it exists. Turns
    /// recorded before it have none (the worker picks one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<uuid::Uuid>,
    /// The sampling the client asked for, within the session's bounds (the effective
    /// values, recorded when the turn is accepted): every model call of the turn uses
    /// them. Nothing asked: the providers' defaults (and the tool's fixed values).
    #[serde(default, skip_serializing_if = "Sampling::is_empty")]
    pub sampling: Sampling,
    /// What the answer must be besides text (a JSON object, a value of a schema): asked
    /// of the model and checked before the turn completes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    /// Functions the caller runs (offered beside the tool's own): a call of one suspends
    /// the turn until the caller posts its result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub client_functions: Vec<ClientFunction>,
    /// Whether the model must call a function first, and may call several at once.
    #[serde(default, skip_serializing_if = "CallPolicy::is_default")]
    pub call_policy: CallPolicy,
}

/// Where a new user message goes in its session's tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// A new first message (an edit of the first one): it follows nothing.
    Root,
    /// After this message of the session (an edit of the message that follows it).
    After(uuid::Uuid),
}

impl Placement {
    /// The parent the message gets.
    pub fn parent(self) -> Option<uuid::Uuid> {
        match self {
            Self::Root => None,
            Self::After(id) => Some(id),
        }
    }
}

/// How an OpenAI-compatible client asked for a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Surface {
    /// Which OpenAI API the request used.
    pub api: SurfaceApi,
    /// The `model` the request named (a chat tool `tool:<id>`, or a model id).
    pub model: String,
    /// A Responses API request asked to run in the background.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub background: bool,
    /// The prompt (response) whose conversation this one continues
    /// (`previous_response_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<uuid::Uuid>,
    /// That response's id (`resp_<prompt>`, or a continuation's
    /// `resp_<prompt>_<attempt>_<calls>`), as the response reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_response_id: Option<String>,
}

/// The OpenAI-compatible APIs Parley answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SurfaceApi {
    ChatCompletions,
    Responses,
}

impl TurnInput {
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            attachments: Vec::new(),
            instructions: None,
            surface: None,
            placement: None,
            message_id: None,
            sampling: Sampling::default(),
            response_format: None,
            client_functions: Vec::new(),
            call_policy: CallPolicy::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_round_trips_and_rejects_unknown_fields() {
        let input = TurnInput::text("hello");
        let json = serde_json::to_value(&input).unwrap();
        assert_eq!(json, serde_json::json!({"content": "hello"}));
        assert_eq!(serde_json::from_value::<TurnInput>(json).unwrap(), input);
        assert!(serde_json::from_value::<TurnInput>(serde_json::json!({"content": 42})).is_err());
        assert!(
            serde_json::from_value::<TurnInput>(serde_json::json!({"content": "a", "x": 1}))
                .is_err()
        );
    }
}
