//! The built-in offline demo model: used only when no provider is configured, so a
//! newcomer sees a whole turn stream without any account. Its `vendor`/`model` say what
//! it is, and its reply is deterministic. Asked for the time when `getCurrentTime` is
//! offered, it calls that function and answers with its result, so a tool card's events
//! can be seen without a provider too; asked to "remind me to …" when `createTodo` is
//! offered, it calls that (the demo tool makes it wait for the user's approval) and says
//! what came of it. When the tool asks for suggestions, it ends its answers with
//! suggested values and an action button. Asked for a title (`[titles] model =
//! "parley-demo"`), it answers with the message's telling words ([`title`]).

use std::time::Duration;

use futures::StreamExt;
use parley_protocol::client_functions::ToolChoice;
use parley_protocol::events::{StopReason, Usage};

use super::{ChatMessage, Delta, DeltaStream, FunctionOffer, Provider, ProviderError, Route};

pub const MODEL: &str = "parley-demo";
pub const VENDOR: &str = "parley-offline";

/// The pause between tokens, so the reply visibly streams.
const TOKEN_INTERVAL: Duration = Duration::from_millis(15);

pub(super) fn route() -> Route {
    Route {
        model: MODEL.into(),
        upstream: MODEL.into(),
        vendor: VENDOR.into(),
        max_context: 8192,
        max_output_tokens: 4096,
        vision: false,
        structured_outputs: false,
        price: super::Price::default(),
        thinking_budget: None,
        prompt_cache: super::PromptCache::Off,
        first_token_timeout: std::time::Duration::from_secs(6),
        continue_partial: false,
        breakers: None,
        fallback: Vec::new(),
        provider: std::sync::Arc::new(Demo),
        demo: true,
    }
}

/// The demo model as a provider.
pub struct Demo;

#[async_trait::async_trait]
impl Provider for Demo {
    async fn stream(
        &self,
        _model: &str,
        messages: &[ChatMessage],
        functions: &[FunctionOffer],
        _partial: Option<&str>,
        options: &super::CallOptions,
    ) -> Result<DeltaStream, ProviderError> {
        Ok(stream(messages, functions, options))
    }
}

/// The reply to a conversation: it quotes the last user message.
pub fn reply(messages: &[ChatMessage]) -> String {
    let last = messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .map(|m| m.content.trim())
        .unwrap_or("");
    let quoted: String = last.chars().take(200).collect();
    format!(
        "Hello from Parley's offline demo model. You said: \"{quoted}\". \
         No LLM provider is configured, so this answer is generated locally; \
         add a provider to parley.toml to talk to a real model."
    )
}

/// The function the demo model calls when asked the time.
pub const TIME_FUNCTION: &str = "getCurrentTime";

/// The function the demo model calls when asked to remind the user of something.
pub const REMIND_FUNCTION: &str = "createTodo";

/// A call the demo model makes: what it says first, the function, its arguments.
struct DemoCall {
    text: &'static str,
    function: String,
    arguments: String,
}

/// The call the demo model makes in answer to `messages`, if any: the last user message
/// asks the time (or to be reminded of something), the function is offered, and no
/// function answered since.
fn call_for(messages: &[ChatMessage], functions: &[FunctionOffer]) -> Option<DemoCall> {
    let last_user = messages.iter().rposition(|m| m.role == "user")?;
    if messages[last_user..].iter().any(|m| m.role == "tool") {
        return None;
    }
    let asked = messages[last_user].content.trim();
    let lower = asked.to_lowercase();
    let offered = |name: &str| functions.iter().any(|f| f.name == name);
    if offered(REMIND_FUNCTION)
        && let Some(at) = lower.find("remind me")
    {
        let rest = asked[at + "remind me".len()..].trim_start();
        let rest = rest.strip_prefix("to ").unwrap_or(rest);
        let title: String = rest
            .trim_end_matches(['.', '!', '?'])
            .chars()
            .take(80)
            .collect();
        let title = if title.trim().is_empty() {
            "Something to do".to_owned()
        } else {
            title
        };
        return Some(DemoCall {
            text: "I'll put that on your to-do list.",
            function: REMIND_FUNCTION.into(),
            arguments: serde_json::json!({ "title": title }).to_string(),
        });
    }
    if offered(TIME_FUNCTION) && (lower.contains("time") || lower.contains("clock")) {
        return Some(DemoCall {
            text: "Let me look at the clock.",
            function: TIME_FUNCTION.into(),
            arguments: r#"{"time_zone":"UTC"}"#.to_owned(),
        });
    }
    None
}

/// The call a forced `choice` makes when the message asks for none: the named function,
/// or (`required`) the first offered, with no arguments.
fn forced_call(
    messages: &[ChatMessage],
    functions: &[FunctionOffer],
    choice: &ToolChoice,
) -> Option<DemoCall> {
    if messages.last().is_some_and(|m| m.role == "tool") {
        return None;
    }
    let function = match choice {
        ToolChoice::Function { name } => functions.iter().find(|f| &f.name == name),
        ToolChoice::Required => functions.first(),
        ToolChoice::Auto | ToolChoice::None => None,
    }?;
    Some(DemoCall {
        text: "Let me check.",
        function: function.name.clone(),
        arguments: "{}".into(),
    })
}

/// What the demo model suggests after an answer, when the tool asks for suggestions
/// (the system prompt carries their instructions): two values to pick and an action
/// button.
fn suggestions(messages: &[ChatMessage]) -> Option<String> {
    let asked = messages.first().is_some_and(|m| {
        m.role == "system" && m.content.contains(parley_service::respond::VALUES_MARKER)
    });
    asked.then(|| {
        format!(
            "\n{}: [{{\"label\": \"What time is it?\", \"value\": \"What time is it?\"}},              {{\"label\": \"Remind me\", \"value\": \"Remind me to practise fractions\"}}]\n             {}: [{{\"label\": \"Explain it more simply\", \"action\": \"send_message\",              \"handler\": \"server\", \"data\": {{\"content\": \"Please explain that more simply.\"}},              \"style\": \"primary\"}}]",
            parley_service::respond::VALUES_MARKER,
            parley_service::respond::ACTIONS_MARKER,
        )
    })
}

/// Words a demo title leaves out: they say little about what a conversation is about.
const FILLER: &[&str] = &[
    "a", "about", "an", "and", "are", "be", "can", "could", "did", "do", "does", "for", "hello",
    "help", "hi", "how", "i", "in", "is", "it", "me", "my", "of", "on", "please", "tell", "the",
    "to", "what", "when", "where", "which", "who", "why", "with", "would", "you", "your",
];

/// The demo model's title for a conversation ([`super::TITLE_INSTRUCTIONS`]): up to
/// four words of the user's message that are not filler, the first capitalised ("How does
/// photosynthesis work in plants?" → "Photosynthesis work plants"); "New conversation"
/// when none is left.
pub fn title(message: &str) -> String {
    let words: Vec<String> = message
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .map(|w| w.trim_matches(|c| c == '\'' || c == '-'))
        .filter(|w| !w.is_empty() && !FILLER.contains(&w.to_lowercase().as_str()))
        .take(4)
        .map(str::to_owned)
        .collect();
    let Some((first, rest)) = words.split_first() else {
        return "New conversation".to_owned();
    };
    let mut chars = first.chars();
    let capital: String = chars
        .next()
        .into_iter()
        .flat_map(char::to_uppercase)
        .collect();
    std::iter::once(capital + chars.as_str())
        .chain(rest.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text of the demo model's answer when it does not call a function.
fn answer(messages: &[ChatMessage]) -> String {
    if messages
        .first()
        .is_some_and(|m| m.role == "system" && m.content == super::TITLE_INSTRUCTIONS)
    {
        let asked = messages.iter().find(|m| m.role == "user");
        return title(asked.map_or("", |m| m.content.as_str()));
    }
    let last_user = messages.iter().rposition(|m| m.role == "user").unwrap_or(0);
    let results: Vec<&str> = messages[last_user..]
        .iter()
        .filter(|m| m.role == "tool")
        .map(|m| m.content.as_str())
        .collect();
    let text = match results.first() {
        None => reply(messages),
        Some(result) => {
            let result: serde_json::Value = serde_json::from_str(result).unwrap_or_default();
            if let (Some(time), Some(zone)) =
                (result["local_time"].as_str(), result["time_zone"].as_str())
            {
                format!("It is {time} ({zone}).")
            } else if let Some(title) = result["title"]
                .as_str()
                .filter(|_| result["todo_id"].is_string())
            {
                format!("Done: \"{title}\" is on your to-do list.")
            } else if result["error"].is_string() {
                format!(
                    "That did not happen: {}",
                    result["error"].as_str().unwrap_or_default()
                )
            } else {
                "The function did not answer.".to_owned()
            }
        }
    };
    match suggestions(messages) {
        Some(more) => text + &more,
        None => text,
    }
}

/// The demo answer as a stream, a word a token: it stops before the first of the
/// options' stop sequences and at their token limit (then says so, as a model does).
pub(super) fn stream(
    messages: &[ChatMessage],
    functions: &[FunctionOffer],
    options: &super::CallOptions,
) -> DeltaStream {
    let input_tokens: u64 = messages
        .iter()
        .map(|m| m.content.split_whitespace().count() as u64)
        .sum();
    // A function the choice names comes before the one the message would call.
    let choice = &options.calls.choice;
    let call = call_for(messages, functions)
        .filter(|call| !matches!(choice, ToolChoice::Function { name } if *name != call.function))
        .or_else(|| forced_call(messages, functions, choice));
    let text = match &call {
        Some(call) => call.text.to_owned(),
        None => answer(messages),
    };
    let stopped_at = options
        .sampling
        .stop
        .iter()
        .filter_map(|stop| text.find(stop.as_str()))
        .min();
    let text = &text[..stopped_at.unwrap_or(text.len())];
    let limit = options.max_tokens.map_or(usize::MAX, |n| n as usize);
    let mut pieces: Vec<Delta> = Vec::new();
    for (i, word) in text.split(' ').enumerate() {
        if i == limit {
            pieces.push(Delta::Stop(StopReason::MaxTokens));
            break;
        }
        pieces.push(Delta::Text(if i == 0 {
            word.to_owned()
        } else {
            format!(" {word}")
        }));
    }
    let cut = stopped_at.is_some() || matches!(pieces.last(), Some(Delta::Stop(_)));
    if let Some(call) = call.filter(|_| !cut) {
        pieces.push(Delta::ToolCall {
            index: 0,
            id: Some("demo_call_0".to_owned()),
            name: Some(call.function),
            arguments: call.arguments,
            state: None,
        });
    }
    let output_tokens = pieces.iter().filter(|d| d.is_output()).count() as u64;
    pieces.push(Delta::Usage(Usage::plain(input_tokens, output_tokens)));
    futures::stream::iter(pieces)
        .then(|delta| async move {
            if matches!(delta, Delta::Text(_)) {
                tokio::time::sleep(TOKEN_INTERVAL).await;
            }
            Ok(delta)
        })
        .boxed()
}

#[cfg(test)]
mod tests;
