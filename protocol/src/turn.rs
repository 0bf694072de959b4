//! What a turn carries from the api to the worker besides its job: the user's input,
//! recorded on the prompt (`prompts.input`) when the turn is accepted and saved as the
//! user message by the worker (after `chat:before_ai`, DESIGN §5).

use serde::{Deserialize, Serialize};

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
}

impl TurnInput {
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            attachments: Vec::new(),
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
