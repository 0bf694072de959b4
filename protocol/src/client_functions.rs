//! Functions of the caller's own (#46 items 1–2): a turn may offer the model functions
//! that the client runs, not Parley. The model's call of one suspends the turn as an
//! approval does (the call `awaiting_client`, no worker, no lease); the caller posts the
//! result and the turn resumes with it, or the wait expires and the model is told.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most client functions one turn may offer (OpenAI's limit of `tools`).
pub const MAX_CLIENT_FUNCTIONS: usize = 128;
/// The longest a function's name may be (OpenAI's limit).
pub const MAX_NAME_CHARS: usize = 64;

/// A function the caller runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientFunction {
    /// Letters, digits, `_` and `-`, at most 64; not one of the tool's own functions.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON schema of its arguments (an object); the model's arguments are checked
    /// against it before the caller is asked.
    #[serde(default = "any_object")]
    pub parameters: Value,
    /// The JSON schema of its result, when it answers JSON: a result that is text, or
    /// JSON that does not fit, is refused (422) and the call keeps waiting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<Value>,
}

/// Whether the model must call a function on its first answer of the turn (OpenAI's
/// `tool_choice`): later answers, after the calls it made, are free again, as the agent
/// frameworks reset a forced choice after a call so that the model may answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// The caller's functions are not offered (the chat tool's own still are).
    None,
    /// It calls a function, any of those offered (the tool's or the caller's).
    Required,
    /// It calls this one of the caller's functions.
    Function { name: String },
}

/// How the model may call the functions a turn offers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallPolicy {
    #[serde(default, skip_serializing_if = "ToolChoice::is_auto")]
    pub choice: ToolChoice,
    /// At most one call per answer (OpenAI's `parallel_tool_calls: false`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub serial: bool,
    /// The turn's first answer was forced, and so made without extended thinking (which
    /// Anthropic refuses beside a forced call): the later answers are too, since a tool
    /// loop's thinking must start with it. Set by [`Self::after_first`], never sent.
    #[serde(skip)]
    pub unthinking: bool,
}

impl ToolChoice {
    pub fn is_auto(&self) -> bool {
        *self == Self::Auto
    }

    /// Whether the model must call a function.
    pub fn is_forced(&self) -> bool {
        matches!(self, Self::Required | Self::Function { .. })
    }
}

impl CallPolicy {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// The policy of a later answer of the turn: serial still, no longer forced.
    pub fn after_first(&self) -> Self {
        Self {
            choice: ToolChoice::Auto,
            serial: self.serial,
            unthinking: self.unthinking || self.choice.is_forced(),
        }
    }

    /// Whether the answer is made without extended thinking.
    pub fn without_thinking(&self) -> bool {
        self.unthinking || self.choice.is_forced()
    }
}

fn any_object() -> Value {
    serde_json::json!({"type": "object"})
}

impl ClientFunction {
    /// Why the function cannot be offered as it is written (its schemas' validity is
    /// checked where they are compiled).
    pub fn problem(&self) -> Option<String> {
        let fits = (1..=MAX_NAME_CHARS).contains(&self.name.chars().count())
            && self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !fits {
            return Some(format!(
                "`{}`: a name is 1–{MAX_NAME_CHARS} letters, digits, `_` or `-`",
                self.name
            ));
        }
        if !self.parameters.is_object() {
            return Some(format!(
                "`{}`: `parameters` must be a JSON object",
                self.name
            ));
        }
        if self.returns.as_ref().is_some_and(|r| !r.is_object()) {
            return Some(format!("`{}`: `returns` must be a JSON object", self.name));
        }
        None
    }
}

/// What the caller answers for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallAnswer {
    /// The result as JSON.
    Output(Value),
    /// The result as text.
    Text(String),
    /// The function failed; the model is told this.
    Failed(String),
}

impl CallAnswer {
    /// Whether the answer is a result (not a failure).
    pub fn succeeded(&self) -> bool {
        !matches!(self, Self::Failed(_))
    }

    /// The call's stored result, as the model reads it: the JSON, the text as a JSON
    /// string, a failure as `{"error": why}`.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Output(value) => value.clone(),
            Self::Text(text) => Value::String(text.clone()),
            Self::Failed(why) => serde_json::json!({ "error": why }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_function_reads_with_defaults_and_names_what_is_wrong() {
        let f: ClientFunction = serde_json::from_value(json!({"name": "lookup"})).unwrap();
        assert_eq!(f.parameters, json!({"type": "object"}));
        assert_eq!(f.problem(), None);
        let bad = ClientFunction {
            name: "no spaces".into(),
            ..f.clone()
        };
        assert!(bad.problem().unwrap().contains("no spaces"));
        let odd = ClientFunction {
            returns: Some(json!("string")),
            ..f
        };
        assert!(odd.problem().unwrap().contains("returns"));
    }

    #[test]
    fn an_answer_is_stored_as_the_model_reads_it() {
        assert_eq!(
            CallAnswer::Output(json!({"a": 1})).to_value(),
            json!({"a": 1})
        );
        assert_eq!(CallAnswer::Text("sunny".into()).to_value(), json!("sunny"));
        assert_eq!(
            CallAnswer::Failed("offline".into()).to_value(),
            json!({"error": "offline"})
        );
        assert!(!CallAnswer::Failed(String::new()).succeeded());
    }
}
