//! What a turn's answer must be besides text: a JSON object, or a value of a JSON schema
//! (OpenAI's `response_format`, the Responses API's `text.format`). The worker asks the
//! model for it where the provider can constrain its output and checks the answer before
//! `complete` (`parley_service::structured`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest a format's name may be (OpenAI's limit).
pub const MAX_NAME_CHARS: usize = 64;

/// The shape a turn's answer must have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ResponseFormat {
    /// Any JSON object.
    JsonObject,
    /// A value of `schema`.
    JsonSchema {
        /// The format's name (letters, digits, `_` and `-`, at most 64).
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        schema: Value,
        /// Whether the provider is asked to constrain its output to the schema exactly
        /// (OpenAI's strict mode); the answer is checked either way.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        strict: bool,
    },
}

impl ResponseFormat {
    /// The schema the answer is checked against: `{"type": "object"}` for a JSON object.
    pub fn schema(&self) -> Value {
        match self {
            Self::JsonObject => serde_json::json!({"type": "object"}),
            Self::JsonSchema { schema, .. } => schema.clone(),
        }
    }

    /// Why a format cannot be used: its name is empty, too long or has other characters
    /// (the schema's own validity is checked where it is compiled).
    pub fn problem(&self) -> Option<String> {
        let Self::JsonSchema { name, schema, .. } = self else {
            return None;
        };
        let fits = (1..=MAX_NAME_CHARS).contains(&name.chars().count())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !fits {
            return Some(format!(
                "`name` must be 1–{MAX_NAME_CHARS} letters, digits, `_` or `-`"
            ));
        }
        (!schema.is_object()).then(|| "`schema` must be a JSON object".to_owned())
    }
}

#[cfg(test)]
mod tests;
