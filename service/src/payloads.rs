//! The payload registry (seed 004, DESIGN §9): the one list of payload types — structured
//! results a client renders as cards — that functions, the system prompt, the parser of
//! the model's text and `GET /v1/payload-types` all refer to by name.
//!
//! A [`PayloadType`] is a name, a description, its source (`tool`: a function's result;
//! `llm`: a `NAME: {json}` marker in the model's final text), a JSON schema its data must
//! fit, instructions for the model, and what the frontend needs to render it. Types come
//! from code ([`PayloadRegistry::builtin`]) and from `parley.toml` (`[[payload_types]]`).

use std::{collections::BTreeMap, sync::Arc};

use parley_protocol::{error::ErrorCode, events::CustomPayload};
use serde_json::{Value, json};

/// Where a payload comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadSource {
    /// A function's result (the function names the type as its `payload_type`).
    Tool,
    /// A marker in the model's final text (`NAME: {json}`).
    Llm,
}

impl PayloadSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Llm => "llm",
        }
    }
}

/// One payload type.
#[derive(Debug, Clone, PartialEq)]
pub struct PayloadType {
    /// `snake_case`; an LLM payload's marker is the name in upper case (`SCHEMA_PROPOSAL:`).
    pub name: String,
    pub description: String,
    pub source: PayloadSource,
    /// The JSON schema of its data.
    pub schema: Value,
    /// What the model is told about it (in the system prompt of tools that can produce it).
    pub llm_instructions: String,
    /// What the frontend needs to render it (panel width, title, icon…), as configured.
    pub frontend_config: Option<Value>,
}

impl PayloadType {
    /// The marker an LLM payload of this type starts with: its name in upper case.
    pub fn marker(&self) -> String {
        self.name.to_ascii_uppercase()
    }
}

/// Why a list of payload types is not a registry; each names the type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadTypeError {
    #[error("payload type `{0}`: a name is snake_case, at most 64 characters")]
    Name(String),
    #[error("two payload types are named `{0}`")]
    Twice(String),
    #[error("payload type `{name}`: its schema does not compile: {reason}")]
    Schema { name: String, reason: String },
}

/// Why data is not a payload of a type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadMismatch {
    #[error("there is no payload type `{0}`")]
    UnknownType(String),
    /// What is wrong with the data (at most three problems, each with where it is).
    #[error("{0}")]
    Schema(String),
}

struct Entry {
    kind: PayloadType,
    validator: jsonschema::Validator,
}

/// Every payload type of the deployment, by name. Cheap to clone.
#[derive(Clone, Default)]
pub struct PayloadRegistry {
    entries: Arc<BTreeMap<String, Arc<Entry>>>,
}

impl std::fmt::Debug for PayloadRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.entries.keys()).finish()
    }
}

/// What is wrong with `value` for a compiled JSON schema, for people and models: at most
/// three problems, each with where it is (`/title: 5 is not of type "string"`), joined
/// with `; `. `None`: it fits.
pub fn schema_problems(validator: &jsonschema::Validator, value: &Value) -> Option<String> {
    let problems: Vec<String> = validator
        .iter_errors(value)
        .take(3)
        .map(|err| {
            let at = err.instance_path().to_string();
            if at.is_empty() {
                err.to_string()
            } else {
                format!("{at}: {err}")
            }
        })
        .collect();
    (!problems.is_empty()).then(|| problems.join("; "))
}

/// A name a payload type may have: `snake_case`, a letter first, at most 64 characters.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

impl PayloadRegistry {
    /// The registry of `types`: a bad name, a name used twice or a schema that does not
    /// compile is an error naming the type.
    pub fn new(types: impl IntoIterator<Item = PayloadType>) -> Result<Self, PayloadTypeError> {
        let mut entries = BTreeMap::new();
        for kind in types {
            if !valid_name(&kind.name) {
                return Err(PayloadTypeError::Name(kind.name));
            }
            if entries.contains_key(&kind.name) {
                return Err(PayloadTypeError::Twice(kind.name));
            }
            let validator = jsonschema::validator_for(&kind.schema).map_err(|err| {
                PayloadTypeError::Schema {
                    name: kind.name.clone(),
                    reason: err.to_string(),
                }
            })?;
            entries.insert(kind.name.clone(), Arc::new(Entry { kind, validator }));
        }
        Ok(Self {
            entries: Arc::new(entries),
        })
    }

    /// The built-in types (those of the built-in functions) and `extra` ones.
    pub fn builtin_and(
        extra: impl IntoIterator<Item = PayloadType>,
    ) -> Result<Self, PayloadTypeError> {
        Self::new(builtin().into_iter().chain(extra))
    }

    /// The built-in types only.
    pub fn builtin() -> Self {
        Self::new(builtin()).expect("the built-in payload types are valid")
    }

    pub fn get(&self, name: &str) -> Option<&PayloadType> {
        self.entries.get(name).map(|e| &e.kind)
    }

    /// Every type, by name.
    pub fn all(&self) -> impl Iterator<Item = &PayloadType> {
        self.entries.values().map(|e| &e.kind)
    }

    /// `data` as a payload of type `name`, or what is wrong with it (at most three
    /// problems, each with where it is).
    pub fn payload(&self, name: &str, data: Value) -> Result<CustomPayload, PayloadMismatch> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| PayloadMismatch::UnknownType(name.to_owned()))?;
        match schema_problems(&entry.validator, &data) {
            None => Ok(CustomPayload {
                kind: name.to_owned(),
                data,
            }),
            Some(problems) => Err(PayloadMismatch::Schema(problems)),
        }
    }

    /// Checks that every name is a payload type the model may write (a tool definition's
    /// `payload_types`): 422 `unknown_payload_type` naming the first that is not.
    pub fn check_llm_names<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> parley_protocol::error::Result<()> {
        for name in names {
            match self.get(name) {
                Some(kind) if kind.source == PayloadSource::Llm => {}
                Some(_) => {
                    return Err(parley_protocol::error::Error::invalid(
                        ErrorCode::UnknownPayloadType,
                        format!(
                            "`{name}` is a function's payload type, not one the model writes; see GET /v1/payload-types"
                        ),
                    ));
                }
                None => {
                    return Err(parley_protocol::error::Error::invalid(
                        ErrorCode::UnknownPayloadType,
                        format!(
                            "`{name}` is not a payload type of this deployment; see GET /v1/payload-types"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The system prompt's instructions for `names` (those that exist, by name), one
    /// paragraph each; empty when there are none.
    pub fn instructions<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> String {
        let mut chosen: Vec<&PayloadType> = names.into_iter().filter_map(|n| self.get(n)).collect();
        chosen.sort_by(|a, b| a.name.cmp(&b.name));
        chosen.dedup_by(|a, b| a.name == b.name);
        chosen
            .iter()
            .filter(|t| !t.llm_instructions.trim().is_empty())
            .map(|t| match t.source {
                PayloadSource::Llm => format!(
                    "{} — {}\nTo produce it, end your answer with a line `{}: ` followed by one JSON object, nothing after it.\n{}",
                    t.marker(),
                    t.description,
                    t.marker(),
                    t.llm_instructions.trim()
                ),
                PayloadSource::Tool => t.llm_instructions.trim().to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// The payload types of the built-in functions.
fn builtin() -> Vec<PayloadType> {
    vec![
        PayloadType {
            name: "todo".into(),
            description: "A todo the assistant added to the user's list.".into(),
            source: PayloadSource::Tool,
            schema: json!({
                "type": "object",
                "properties": {
                    "todo_id": {"type": "string", "format": "uuid"},
                    "title": {"type": "string"},
                    "due_at": {"type": ["string", "null"], "format": "date-time"}
                },
                "required": ["todo_id", "title"]
            }),
            llm_instructions: "When createTodo succeeds, the user sees the todo as a card: confirm it in one sentence, do not repeat its fields.".into(),
            frontend_config: Some(json!({"title": "Todo", "icon": "check-square"})),
        },
        PayloadType {
            name: "note".into(),
            description: "A note the assistant saved for the user.".into(),
            source: PayloadSource::Tool,
            schema: json!({
                "type": "object",
                "properties": {
                    "note_id": {"type": "string", "format": "uuid"},
                    "title": {"type": "string"}
                },
                "required": ["note_id", "title"]
            }),
            llm_instructions: "When createNote succeeds, the user sees the note as a card: confirm it in one sentence.".into(),
            frontend_config: Some(json!({"title": "Note", "icon": "sticky-note"})),
        },
        PayloadType {
            name: "prior_session_matches".into(),
            description: "Messages of the user's earlier conversations that match a search.".into(),
            source: PayloadSource::Tool,
            schema: json!({
                "type": "object",
                "properties": {
                    "matches": {"type": "integer", "minimum": 0},
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "session_id": {"type": "string", "format": "uuid"},
                                "role": {"type": "string"},
                                "excerpt": {"type": "string"},
                                "created_at": {"type": "string", "format": "date-time"}
                            },
                            "required": ["session_id", "excerpt"]
                        }
                    }
                },
                "required": ["matches", "results"]
            }),
            llm_instructions: "When searchPriorSessions returns matches, the user sees them as a list: summarise what is relevant to the question instead of quoting every match.".into(),
            frontend_config: Some(json!({"title": "From earlier conversations", "icon": "history"})),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposal() -> PayloadType {
        PayloadType {
            name: "schema_proposal".into(),
            description: "Proposed changes to a schema.".into(),
            source: PayloadSource::Llm,
            schema: json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
            llm_instructions: "Use it when asked to improve a schema.".into(),
            frontend_config: None,
        }
    }

    #[test]
    fn payloads_are_checked_against_their_schema() {
        let registry = PayloadRegistry::builtin_and([proposal()]).unwrap();
        let ok = registry
            .payload("schema_proposal", json!({"name": "x"}))
            .unwrap();
        assert_eq!(ok.kind, "schema_proposal");
        let wrong = registry
            .payload("schema_proposal", json!({"name": 7}))
            .unwrap_err();
        assert!(wrong.to_string().contains("/name"), "{wrong}");
        assert!(registry.payload("nope", json!({})).is_err());
    }

    #[test]
    fn bad_registries_are_refused_with_the_types_name() {
        let twice = PayloadRegistry::builtin_and([PayloadType {
            name: "todo".into(),
            ..proposal()
        }]);
        assert_eq!(twice.unwrap_err(), PayloadTypeError::Twice("todo".into()));
        let bad_name = PayloadRegistry::new([PayloadType {
            name: "Schema".into(),
            ..proposal()
        }]);
        assert!(matches!(bad_name, Err(PayloadTypeError::Name(_))));
        let bad_schema = PayloadRegistry::new([PayloadType {
            schema: json!({"type": 12}),
            ..proposal()
        }]);
        assert!(bad_schema.unwrap_err().to_string().contains("schema"));
    }

    #[test]
    fn instructions_name_the_marker_of_llm_types() {
        let registry = PayloadRegistry::builtin_and([proposal()]).unwrap();
        let text = registry.instructions(["schema_proposal", "todo", "unknown"]);
        assert!(text.contains("SCHEMA_PROPOSAL: "), "{text}");
        assert!(text.contains("createTodo succeeds"), "{text}");
        assert!(registry.instructions([]).is_empty());
    }
}
