//! Context assembly (DESIGN §5.6): the system prompt in delimited sections from the
//! session's resolved configuration, then as much history as fits the model's window.
//!
//! The history budget is `max_context − system − response_buffer − current`, filled
//! newest-first with tokens counted by the model's tokenizer (tiktoken's encodings for
//! the models it knows). For a model no tokenizer fits, the last
//! [`FALLBACK_HISTORY`] messages are sent instead.

use std::{
    collections::HashMap,
    sync::{Mutex, OnceLock},
};

use parley_entity::{enums::MessageRole, messages};
use parley_protocol::config::SessionConfig;
use tiktoken_rs::CoreBPE;

use crate::providers::ChatMessage;

/// Messages sent when no tokenizer fits the model.
pub const FALLBACK_HISTORY: usize = 50;
/// Tokens a chat message costs beyond its text (role and separators).
const PER_MESSAGE_OVERHEAD: usize = 4;
/// The most history a turn reads for a model with a tokenizer.
pub const MAX_HISTORY_READ: usize = 500;
/// Messages of the turn itself a read may return besides history (its user message and,
/// on a retry, what an earlier attempt wrote), which the caller drops.
const OWN_MESSAGES: usize = 8;
/// The most messages [`history_read`] asks for.
pub const MOST_READ: usize = MAX_HISTORY_READ + OWN_MESSAGES;

/// How many recent messages a turn on `upstream_model` reads: enough for the window
/// (the budget decides, up to [`MAX_HISTORY_READ`]) or, without a tokenizer, for
/// [`FALLBACK_HISTORY`] and the `at_least` another reader of the history needs (modules'
/// context). Reading 500 where 50 are sent was most of a long session's turn in
/// embedded mode (BENCHMARKS.md, #9).
pub fn history_read(upstream_model: &str, at_least: usize) -> usize {
    match tokenizer(upstream_model) {
        Some(_) => MAX_HISTORY_READ,
        None => FALLBACK_HISTORY.max(at_least).min(MAX_HISTORY_READ) + OWN_MESSAGES,
    }
}

/// What is sent to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// The system prompt (also recorded on the prompt row).
    pub system: String,
    /// System prompt, history (oldest first) and the current message.
    pub messages: Vec<ChatMessage>,
    /// How many history messages made it in.
    pub history_used: usize,
}

/// The model's window, as context assembly needs it.
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    /// The provider's model name, to pick a tokenizer.
    pub upstream_model: &'a str,
    pub max_context: usize,
    /// Tokens kept free for the answer.
    pub response_buffer: usize,
}

/// Builds the system prompt from the resolved session config (org → tool → assignment),
/// the sections `chat:before_ai` modules added (under "Additional Guidance", after the
/// config's own `guidance`) and `formats`: what the model is told about payloads and
/// suggestions (section "Response Formats", last; empty: none).
pub fn system_prompt(config: &SessionConfig, additions: &[String], formats: &str) -> String {
    let mut sections: Vec<(&str, String)> = Vec::new();
    if let Some(behavior) = text(config.behavior.as_deref()) {
        sections.push(("Core Behavior", behavior));
    }
    if let Some(assignment) = &config.assignment {
        let mut body = String::new();
        if let Some(title) = text(Some(&assignment.title)) {
            body.push_str(&format!("Assignment: {title}\n"));
        }
        if let Some(instructions) = text(Some(&assignment.instructions)) {
            body.push_str(&instructions);
        }
        if !body.trim().is_empty() {
            sections.push(("Assignment Context", body.trim_end().to_owned()));
        }
    }
    let constraints = config.constraints.as_ref();
    let mut rules = Vec::new();
    let topics: Vec<&str> = constraints
        .and_then(|c| c.topics.as_deref())
        .unwrap_or_default()
        .iter()
        .map(|topic| &**topic)
        .collect();
    if !topics.is_empty() {
        rules.push(format!(
            "- Stay within these topics: {}. Politely decline anything else.",
            topics.join(", ")
        ));
    }
    if constraints.and_then(|c| c.no_direct_answers) == Some(true) {
        rules.push("- Do not give direct answers; guide the learner to find them with hints and questions.".to_owned());
    }
    if !rules.is_empty() {
        sections.push(("Constraints", rules.join("\n")));
    }
    let guidance: Vec<String> = text(config.guidance.as_deref())
        .into_iter()
        .chain(additions.iter().map(|a| a.trim().to_owned()))
        .filter(|g| !g.is_empty())
        .collect();
    if !guidance.is_empty() {
        sections.push(("Additional Guidance", guidance.join("\n\n")));
    }
    if !formats.trim().is_empty() {
        sections.push(("Response Formats", formats.trim().to_owned()));
    }
    sections
        .into_iter()
        .map(|(name, body)| format!("=== {name} ===\n{body}"))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A text of the configuration, trimmed; none when absent or blank.
fn text(value: Option<&str>) -> Option<String> {
    value
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Assembles the context: `history` is the session's earlier messages, newest first.
pub fn assemble(
    config: &SessionConfig,
    additions: &[String],
    formats: &str,
    history: &[messages::Model],
    current: &str,
    window: Window<'_>,
) -> Context {
    let system = system_prompt(config, additions, formats);
    let chosen: Vec<&messages::Model> = match tokenizer(window.upstream_model) {
        Some(bpe) => {
            let count = |text: &str| bpe.encode_ordinary(text).len() + PER_MESSAGE_OVERHEAD;
            let system_cost = if system.is_empty() { 0 } else { count(&system) };
            let fixed = system_cost + count(current) + window.response_buffer;
            let mut budget = window.max_context.saturating_sub(fixed);
            let mut chosen = Vec::new();
            for message in history {
                let cost = count(&message.content);
                if cost > budget {
                    break;
                }
                budget -= cost;
                chosen.push(message);
            }
            chosen
        }
        None => history.iter().take(FALLBACK_HISTORY).collect(),
    };
    let mut messages = Vec::with_capacity(chosen.len() + 2);
    if !system.is_empty() {
        messages.push(ChatMessage::system(system.clone()));
    }
    for message in chosen.iter().rev() {
        messages.push(match message.role {
            MessageRole::User => ChatMessage::user(message.content.clone()),
            MessageRole::Assistant => ChatMessage::assistant(message.content.clone()),
            MessageRole::System => ChatMessage::system(message.content.clone()),
        });
    }
    messages.push(ChatMessage::user(current));
    Context {
        system,
        history_used: chosen.len(),
        messages,
    }
}

/// The tokenizer of a model, if tiktoken knows it. Looked up once per model name: the
/// lookup of an unknown model builds an error (with a backtrace when `RUST_BACKTRACE` is
/// set), too costly for every message of every turn.
pub fn tokenizer(model: &str) -> Option<&'static CoreBPE> {
    static KNOWN: OnceLock<Mutex<HashMap<String, Option<&'static CoreBPE>>>> = OnceLock::new();
    let mut known = KNOWN
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *known
        .entry(model.to_owned())
        .or_insert_with(|| tiktoken_rs::bpe_for_model(model).ok())
}

/// Counts tokens of `text` for `model`, falling back to ~4 characters per token.
pub fn count_tokens(model: &str, text: &str) -> u64 {
    match tokenizer(model) {
        Some(bpe) => bpe.encode_ordinary(text).len() as u64,
        None => text.chars().count().div_ceil(4) as u64,
    }
}

#[cfg(test)]
mod tests {
    use parley_entity::enums::MessageRole;
    use serde_json::json;
    use uuid::Uuid;

    use super::*;

    fn message(seq: i32, role: MessageRole, content: &str) -> messages::Model {
        messages::Model {
            id: Uuid::now_v7(),
            session_id: Uuid::nil(),
            seq,
            role,
            content: content.to_owned(),
            is_complete: true,
            prompt_id: None,
            created_at: chrono::Utc::now(),
            parent_id: None,
        }
    }

    /// A session's config in its stored form.
    fn config(stored: serde_json::Value) -> SessionConfig {
        serde_json::from_value(stored).expect("a session config")
    }

    #[test]
    fn the_system_prompt_has_delimited_sections_in_order() {
        let config = config(json!({
            "behavior": "You are a patient tutor.",
            "constraints": {"topics": ["algebra", "geometry"], "no_direct_answers": true},
            "assignment": {"id": Uuid::nil(), "title": "Quadratics", "instructions": "Factor the polynomials."},
            "guidance": "Use short sentences.",
        }));
        let additions = ["A module's note.".to_owned()];
        let prompt = system_prompt(&config, &additions, "TODO cards: confirm briefly.");
        assert!(prompt.contains("Use short sentences.\n\nA module's note."));
        let order = [
            "=== Core Behavior ===",
            "=== Assignment Context ===",
            "=== Constraints ===",
            "=== Additional Guidance ===",
            "=== Response Formats ===",
        ];
        let positions: Vec<usize> = order
            .iter()
            .map(|h| prompt.find(h).unwrap_or_else(|| panic!("{h} in {prompt}")))
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{prompt}");
        assert!(prompt.contains("algebra, geometry"));
        assert!(prompt.contains("Do not give direct answers"));
        assert!(prompt.contains("Assignment: Quadratics\nFactor the polynomials."));
        assert_eq!(
            system_prompt(&SessionConfig::default(), &[], " "),
            "",
            "no config, no sections"
        );
    }

    #[test]
    fn a_model_without_a_tokenizer_reads_only_the_history_it_can_send() {
        let read = history_read("no-such-model", 0);
        assert!(
            (FALLBACK_HISTORY..=FALLBACK_HISTORY + OWN_MESSAGES).contains(&read),
            "{read}"
        );
        assert!(history_read("no-such-model", 80) >= 80);
        assert_eq!(history_read("gpt-4o", 0), MAX_HISTORY_READ);
    }

    #[test]
    fn history_fills_the_budget_newest_first() {
        let newest_first: Vec<messages::Model> = (1..=10)
            .rev()
            .map(|seq| {
                message(
                    seq,
                    if seq % 2 == 1 {
                        MessageRole::User
                    } else {
                        MessageRole::Assistant
                    },
                    &format!("message number {seq} with a few words"),
                )
            })
            .collect();
        let per_message = count_tokens("gpt-4o", "message number 10 with a few words") as usize
            + PER_MESSAGE_OVERHEAD;
        let current_cost = count_tokens("gpt-4o", "now") as usize + PER_MESSAGE_OVERHEAD;
        let window = Window {
            upstream_model: "gpt-4o",
            max_context: current_cost + 3 * per_message + 100,
            response_buffer: 100,
        };
        let context = assemble(
            &SessionConfig::default(),
            &[],
            "",
            &newest_first,
            "now",
            window,
        );
        assert_eq!(context.history_used, 3);
        let texts: Vec<&str> = context
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(
            texts,
            vec![
                "message number 8 with a few words",
                "message number 9 with a few words",
                "message number 10 with a few words",
                "now"
            ],
            "the newest messages, oldest first, then the current one"
        );
        assert_eq!(context.messages[0].role, "assistant");
    }

    #[test]
    fn unknown_models_fall_back_to_the_last_fifty_messages() {
        let newest_first: Vec<messages::Model> = (1..=60)
            .rev()
            .map(|seq| message(seq, MessageRole::User, "hi"))
            .collect();
        let window = Window {
            upstream_model: "some-local-model",
            max_context: 10,
            response_buffer: 0,
        };
        let context = assemble(
            &config(json!({"behavior": "Be brief."})),
            &[],
            "",
            &newest_first,
            "now",
            window,
        );
        assert_eq!(context.history_used, FALLBACK_HISTORY);
        assert_eq!(context.messages.len(), FALLBACK_HISTORY + 2);
        assert_eq!(
            context.messages[0],
            ChatMessage::system("=== Core Behavior ===\nBe brief.")
        );
    }
}
