//! What is sent to the model (DESIGN §5.6): the system prompt in delimited sections from
//! the session's resolved configuration, then the history window and the current
//! message.
//!
//! The history budget is `max_context − system − response_buffer − current`, in tokens
//! counted as the model's provider counts them ([`tokens`]: the model's tokenizer, or
//! its length ratio corrected from the provider's reports). The window moves in steps
//! ([`window`]) so that a long conversation's requests keep one prefix between steps, and
//! what a step drops can be summarized (`crate::compaction`); the summary heads the
//! history.

pub mod tokens;
pub mod window;

use parley_entity::{enums::MessageRole, messages};
use parley_protocol::config::SessionConfig;

use crate::providers::ChatMessage;
pub use tokens::Counter;

/// The most history a turn reads.
pub const MAX_HISTORY_READ: usize = 500;
/// Messages of the turn itself a read may return besides history (its user message and,
/// on a retry, what an earlier attempt wrote), which the caller drops.
const OWN_MESSAGES: usize = 8;
/// The most messages [`history_read`] asks for.
pub const MOST_READ: usize = MAX_HISTORY_READ + OWN_MESSAGES;

/// How many recent messages a turn reads: enough for any window (the budget decides
/// what is sent, up to [`MAX_HISTORY_READ`]) and for the `at_least` another reader of the
/// history needs (modules' context). The worker's history cache keeps a conversation's
/// recent messages between its turns, so a long one is not read again each turn.
pub fn history_read(at_least: usize) -> usize {
    MAX_HISTORY_READ.max(at_least) + OWN_MESSAGES
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

/// The system prompt of a turn and what is left of the window for its history.
#[derive(Clone)]
pub struct Budget {
    pub system: String,
    /// Tokens the history (and a summary heading it) may take.
    pub history: usize,
    /// How the turn's model counts tokens.
    pub counter: Counter,
}

/// The system prompt, and the history budget beside it and the current message.
pub fn budget(
    config: &SessionConfig,
    additions: &[String],
    formats: &str,
    current: &str,
    window: Window<'_>,
) -> Budget {
    let system = system_prompt(config, additions, formats);
    let counter = Counter::of(window.upstream_model);
    let system_cost = if system.is_empty() {
        0
    } else {
        counter.message(&system)
    };
    let fixed = system_cost + counter.message(current) + window.response_buffer;
    Budget {
        history: window.max_context.saturating_sub(fixed),
        system,
        counter,
    }
}

/// The tokens of the newest messages of `history` (newest first): up to and including
/// the first that takes their sum past `budget`, and at least the `at_least` newest (a
/// long history's older messages are never counted); and whether the whole history fits.
pub fn costs(
    counter: &Counter,
    history: &[messages::Model],
    budget: usize,
    at_least: usize,
) -> (Vec<usize>, bool) {
    let mut costs = Vec::new();
    let mut sum = 0;
    for message in history {
        if sum > budget && costs.len() >= at_least {
            return (costs, false);
        }
        let cost = counter.message(&message.content);
        sum += cost;
        costs.push(cost);
    }
    (costs, sum <= budget)
}

/// The heading of a summary of the earlier conversation.
pub const SUMMARY_HEADING: &str = "=== Earlier in this conversation (summary) ===";

/// The messages of a turn: the system prompt, the summary of what fell out of the window
/// (if any), the window's `history` (given newest first, sent oldest first) and the
/// current message.
pub fn assemble(
    system: String,
    summary: Option<&str>,
    history: &[messages::Model],
    current: &str,
) -> Context {
    let mut messages = Vec::with_capacity(history.len() + 3);
    if !system.is_empty() {
        messages.push(ChatMessage::system(system.clone()));
    }
    if let Some(summary) = summary.filter(|s| !s.trim().is_empty()) {
        messages.push(ChatMessage::system(format!("{SUMMARY_HEADING}\n{summary}")));
    }
    for message in history.iter().rev() {
        messages.push(match message.role {
            MessageRole::User => ChatMessage::user(message.content.clone()),
            MessageRole::Assistant => ChatMessage::assistant(message.content.clone()),
            MessageRole::System => ChatMessage::system(message.content.clone()),
        });
    }
    messages.push(ChatMessage::user(current));
    Context {
        system,
        history_used: history.len(),
        messages,
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
    fn a_turn_reads_enough_history_for_any_window() {
        assert_eq!(history_read(0), MAX_HISTORY_READ + OWN_MESSAGES);
        assert!(history_read(900) >= 900);
    }

    #[test]
    fn the_budget_is_what_the_system_prompt_and_the_message_leave_and_the_window_fills_it() {
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
        let counter = Counter::of("gpt-4o");
        let per_message = counter.message("message number 10 with a few words");
        let window = Window {
            upstream_model: "gpt-4o",
            max_context: counter.message("now") + 3 * per_message + 100,
            response_buffer: 100,
        };
        let budget = budget(&SessionConfig::default(), &[], "", "now", window);
        assert_eq!(budget.history, 3 * per_message);
        let (costs, fits) = costs(&budget.counter, &newest_first, budget.history, 0);
        assert!(!fits);
        let window::Choice::Step { keep, .. } =
            window::choose(&costs, newest_first.len(), budget.history, None, 0, 0)
        else {
            panic!("ten messages do not fit three")
        };
        assert_eq!(keep, 1, "a step leaves half the budget");
        let context = assemble(
            budget.system,
            Some("They talked."),
            &newest_first[..3],
            "now",
        );
        let texts: Vec<&str> = context
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(
            texts,
            vec![
                "=== Earlier in this conversation (summary) ===\nThey talked.",
                "message number 8 with a few words",
                "message number 9 with a few words",
                "message number 10 with a few words",
                "now"
            ],
            "the summary, the window oldest first, then the current message"
        );
        assert_eq!(context.messages[1].role, "assistant");
        assert_eq!(context.history_used, 3);
    }
}
