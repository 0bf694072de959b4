//! What the model's final text carries besides prose (seed 002, 004): LLM payloads and
//! suggestions, each written as a marker line followed by JSON, taken out of the message
//! and validated.
//!
//! ```text
//! Here is the plan.
//! SUGGESTED_VALUES: [{"label": "Yes", "value": "Yes, go on"}]
//! SUGGESTED_ACTIONS: [{"label": "Done", "action": "end_session", "handler": "server"}]
//! SCHEMA_PROPOSAL: {"name": "…"}
//! ```
//!
//! A marker counts at the start of a line, followed by one JSON value (optionally inside
//! a ```` ``` ```` fence). A marker whose JSON parses is removed from the text whether or
//! not its content is valid: the user never sees raw JSON. Content that does not fit —
//! a payload failing its schema, a suggestion with unknown fields, a server action Parley
//! does not have — is dropped and reported in [`Extracted::dropped`] (logged by the
//! worker). The last valid payload wins; a function's payload wins over all of them.
//!
//! The text streams through a [`Gate`] that holds marker lines back until they are
//! decided, so a reader never sees one and what it is shown is the stored text;
//! [`extract`] is the gate over a whole text.
//!
//! Server-handled actions are Parley's own ([`ServerAction`]); a client runs one from the
//! last answer's `suggested_actions` with `POST /v1/sessions/{id}/actions`.

use parley_protocol::events::{
    ActionHandler, CustomPayload, ResponseExtras, SuggestedAction, SuggestedValue,
};
use serde_json::Value;

pub use gate::{Found, Gate, MAX_MARKER_BYTES, Markers};

use crate::payloads::PayloadRegistry;

mod gate;

/// The marker of suggested values.
pub const VALUES_MARKER: &str = "SUGGESTED_VALUES";
/// The marker of suggested actions.
pub const ACTIONS_MARKER: &str = "SUGGESTED_ACTIONS";
/// At most this many suggestions of each kind are kept.
pub const MAX_SUGGESTIONS: usize = 6;
/// The longest label or value of a suggestion, in characters.
pub const MAX_SUGGESTION_CHARS: usize = 200;

/// An action the server runs when the user picks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerAction {
    /// Sends `data.content` as the user's next message (a turn).
    SendMessage,
    /// Ends the session.
    EndSession,
}

impl ServerAction {
    pub const ALL: [Self; 2] = [Self::SendMessage, Self::EndSession];

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::SendMessage => "send_message",
            Self::EndSession => "end_session",
        }
    }

    /// Whether `data` is what the action needs.
    pub fn accepts(self, data: Option<&Value>) -> bool {
        match self {
            Self::SendMessage => data
                .and_then(|d| d["content"].as_str())
                .is_some_and(|c| !c.trim().is_empty() && c.chars().count() <= 4000),
            Self::EndSession => true,
        }
    }

    /// What the model is told about it.
    fn describe(self) -> &'static str {
        match self {
            Self::SendMessage => {
                "send_message — data {\"content\": text}: sends that text as the user's next message"
            }
            Self::EndSession => "end_session — ends this conversation",
        }
    }
}

/// The system prompt's section that asks for suggestions and says how to write them.
pub fn suggestion_instructions() -> String {
    let actions: Vec<&str> = ServerAction::ALL.iter().map(|a| a.describe()).collect();
    format!(
        "You may end an answer with suggestions the user can click, each on a line of its own after the text:\n\
         {VALUES_MARKER}: [{{\"label\": \"Yes\", \"value\": \"Yes, please go on\"}}]\n\
         {ACTIONS_MARKER}: [{{\"label\": \"…\", \"action\": \"…\", \"handler\": \"server\", \"data\": {{}}, \"style\": \"primary\"}}]\n\
         A value is sent as the user's message when picked. An action with \"handler\": \"client\" is handled by the app; \
         with \"handler\": \"server\" it must be one of: {}. \"style\" is primary, secondary or warning. \
         At most {MAX_SUGGESTIONS} of each; labels of at most {MAX_SUGGESTION_CHARS} characters.",
        actions.join("; ")
    )
}

/// The final text without its markers, and what they carried.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    pub text: String,
    pub extras: ResponseExtras,
    /// Why markers' contents were dropped (for the log; never shown to the user).
    pub dropped: Vec<String>,
}

/// Takes the markers out of `text`: suggestions, and payloads of the LLM types in
/// `payload_types` (names in `registry`). The same as a [`Gate`] streaming it.
pub fn extract(text: &str, registry: &PayloadRegistry, payload_types: &[&str]) -> Extracted {
    let mut gate = Gate::new(Markers::new(registry, payload_types));
    let mut kept = gate.push(text);
    kept.push_str(&gate.finish());
    let (extras, dropped) = contents(gate.found(), registry);
    Extracted {
        text: kept,
        extras,
        dropped,
    }
}

/// What the markers taken out of an answer carry, and why the contents that do not fit
/// were dropped.
pub fn contents(found: &[Found], registry: &PayloadRegistry) -> (ResponseExtras, Vec<String>) {
    let mut extras = ResponseExtras::default();
    let mut dropped = Vec::new();
    for f in found {
        let value = f.value.clone();
        match (f.marker.as_str(), &f.payload_type) {
            (VALUES_MARKER, _) => match values(value) {
                Ok(values) => extras.suggested_values = Some(values),
                Err(why) => dropped.push(format!("{VALUES_MARKER}: {why}")),
            },
            (ACTIONS_MARKER, _) => {
                let (actions, why) = actions(value);
                dropped.extend(why.into_iter().map(|w| format!("{ACTIONS_MARKER}: {w}")));
                if !actions.is_empty() {
                    extras.suggested_actions = Some(actions);
                }
            }
            (_, Some(name)) => match registry.payload(name, value) {
                Ok(payload) => extras.custom_payload = Some(payload),
                Err(why) => dropped.push(format!("{}: {why}", f.marker)),
            },
            _ => {}
        }
    }
    (extras, dropped)
}

fn fits(text: &str) -> bool {
    let n = text.chars().count();
    (1..=MAX_SUGGESTION_CHARS).contains(&n) && !text.trim().is_empty()
}

fn values(value: Value) -> Result<Vec<SuggestedValue>, DroppedValues> {
    let values: Vec<SuggestedValue> =
        serde_json::from_value(value).map_err(DroppedValues::NotAList)?;
    if values.is_empty() || values.len() > MAX_SUGGESTIONS {
        return Err(DroppedValues::Count(values.len()));
    }
    if let Some(bad) = values.iter().find(|v| !fits(&v.label) || !fits(&v.value)) {
        return Err(DroppedValues::TooLong(bad.clone()));
    }
    Ok(values)
}

/// Why suggested values were dropped (for the log).
#[derive(Debug, thiserror::Error)]
enum DroppedValues {
    #[error("not a list of {{label, value}}: {0}")]
    NotAList(serde_json::Error),
    #[error("1 to {MAX_SUGGESTIONS} values, not {0}")]
    Count(usize),
    #[error("a label or value of 1 to {MAX_SUGGESTION_CHARS} characters: {0:?}")]
    TooLong(SuggestedValue),
}

/// The valid actions, and why the others were dropped.
fn actions(value: Value) -> (Vec<SuggestedAction>, Vec<String>) {
    let Value::Array(items) = value else {
        return (Vec::new(), vec!["not a list".into()]);
    };
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for item in items {
        let action: SuggestedAction = match serde_json::from_value(item) {
            Ok(action) => action,
            Err(err) => {
                dropped.push(format!("not an action: {err}"));
                continue;
            }
        };
        let style_ok = action
            .style
            .as_deref()
            .is_none_or(|s| matches!(s, "primary" | "secondary" | "warning"));
        let server_ok = match action.handler {
            ActionHandler::Client => true,
            ActionHandler::Server => {
                ServerAction::parse(&action.action).is_some_and(|a| a.accepts(action.data.as_ref()))
            }
        };
        if !fits(&action.label) || !fits(&action.action) || !style_ok || !server_ok {
            dropped.push(format!(
                "`{}` is not an action Parley can offer",
                action.action
            ));
        } else if kept.len() < MAX_SUGGESTIONS {
            kept.push(action);
        }
    }
    (kept, dropped)
}

/// The payload of a finished turn: the last function payload, else the one of the text.
pub fn final_payload(
    function_payloads: impl IntoIterator<Item = Option<CustomPayload>>,
    from_text: Option<CustomPayload>,
) -> Option<CustomPayload> {
    function_payloads.into_iter().flatten().last().or(from_text)
}

#[cfg(test)]
mod tests;
