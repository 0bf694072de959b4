use std::sync::Arc;

use super::*;
use crate::providers::CallOptions;
use crate::providers::conformance::{Harness, conformance_suite};

/// The demo model, in-process.
struct Offline;

#[async_trait::async_trait]
impl Harness for Offline {
    async fn provider(&self) -> (Arc<dyn Provider>, String) {
        (Arc::new(Demo), MODEL.into())
    }

    fn plain(&self) -> String {
        "Tell me a story.".into()
    }

    fn calling(&self) -> String {
        "What time is it?".into()
    }
}

conformance_suite!(Offline);

#[tokio::test]
async fn the_demo_reply_streams_deterministically_with_usage() {
    let messages = vec![
        ChatMessage::system("be nice"),
        ChatMessage::user("What is 2+2?"),
    ];
    let deltas: Vec<Delta> = stream(&messages, &[], &CallOptions::default())
        .map(|d| d.unwrap())
        .collect()
        .await;
    let text: String = deltas
        .iter()
        .filter_map(|d| {
            if let Delta::Text(t) = d {
                Some(t.as_str())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(text, reply(&messages));
    assert!(text.contains("You said: \"What is 2+2?\""));
    assert!(matches!(
        deltas.last(),
        Some(Delta::Usage(Usage {
            input_tokens: 5,
            ..
        }))
    ));
}

#[test]
fn a_demo_title_keeps_the_telling_words() {
    assert_eq!(
        title("How does photosynthesis work in plants?"),
        "Photosynthesis work plants"
    );
    assert_eq!(
        title("Can you help me with fractions, decimals and percentages today?"),
        "Fractions decimals percentages today"
    );
    assert_eq!(title("Hi!"), "New conversation");
    assert_eq!(title(""), "New conversation");
    assert_eq!(title("Élan vital?"), "Élan vital");
}

#[tokio::test]
async fn asked_for_a_title_it_answers_with_one() {
    let messages = vec![
        ChatMessage::system(crate::providers::TITLE_INSTRUCTIONS),
        ChatMessage::user("What caused the French Revolution?"),
    ];
    let text: String = stream(&messages, &[], &CallOptions::default())
        .filter_map(|d| async move {
            match d.unwrap() {
                Delta::Text(t) => Some(t),
                _ => None,
            }
        })
        .collect()
        .await;
    assert_eq!(text, "Caused French Revolution");
}

#[tokio::test]
async fn asked_the_time_it_calls_the_clock_then_answers_with_its_result() {
    let clock = FunctionOffer {
        name: TIME_FUNCTION.into(),
        description: String::new(),
        parameters: serde_json::json!({"type": "object"}),
    };
    let mut messages = vec![ChatMessage::user("What time is it?")];
    let deltas: Vec<Delta> = stream(
        &messages,
        std::slice::from_ref(&clock),
        &CallOptions::default(),
    )
    .map(|d| d.unwrap())
    .collect()
    .await;
    assert!(
        deltas
            .iter()
            .any(|d| matches!(d, Delta::ToolCall { name: Some(n), .. } if n == TIME_FUNCTION))
    );
    let without: Vec<Delta> = stream(&messages, &[], &CallOptions::default())
        .map(|d| d.unwrap())
        .collect()
        .await;
    assert!(
        !without.iter().any(|d| matches!(d, Delta::ToolCall { .. })),
        "not offered"
    );
    messages.push(ChatMessage::assistant_calls("", vec![], None));
    let result = r#"{"local_time":"2026-11-23T12:00:00+00:00","time_zone":"UTC"}"#;
    messages.push(ChatMessage::tool_result("demo_call_0", result));
    let answer: Vec<Delta> = stream(&messages, &[clock], &CallOptions::default())
        .map(|d| d.unwrap())
        .collect()
        .await;
    let text: String = answer
        .iter()
        .filter_map(|d| {
            if let Delta::Text(t) = d {
                Some(t.as_str())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(text, "It is 2026-11-23T12:00:00+00:00 (UTC).");
}

/// The text of the demo model's answer to `messages` with `functions` offered, and the
/// call it made.
async fn said(
    messages: &[ChatMessage],
    functions: &[FunctionOffer],
) -> (String, Option<(String, String)>) {
    let deltas: Vec<Delta> = stream(messages, functions, &CallOptions::default())
        .map(|d| d.unwrap())
        .collect()
        .await;
    let mut text = String::new();
    let mut call = None;
    for delta in deltas {
        match delta {
            Delta::Text(t) => text.push_str(&t),
            Delta::ToolCall {
                name, arguments, ..
            } => call = Some((name.unwrap_or_default(), arguments)),
            _ => {}
        }
    }
    (text, call)
}

#[tokio::test]
async fn asked_to_remind_it_calls_create_todo_and_says_what_came_of_it() {
    let todo = FunctionOffer {
        name: REMIND_FUNCTION.into(),
        description: String::new(),
        parameters: serde_json::json!({"type": "object"}),
    };
    let asked = ChatMessage::user("Please remind me to practise fractions!");
    let (_, call) = said(std::slice::from_ref(&asked), std::slice::from_ref(&todo)).await;
    assert_eq!(
        call,
        Some((
            REMIND_FUNCTION.to_owned(),
            r#"{"title":"practise fractions"}"#.to_owned()
        ))
    );
    let (_, none) = said(std::slice::from_ref(&asked), &[]).await;
    assert_eq!(none, None, "not offered");
    let ran = vec![
        asked.clone(),
        ChatMessage::tool_result(
            "demo_call_0",
            r#"{"todo_id":"t1","title":"practise fractions"}"#,
        ),
    ];
    let (text, call) = said(&ran, std::slice::from_ref(&todo)).await;
    assert_eq!(
        (text.as_str(), call),
        ("Done: \"practise fractions\" is on your to-do list.", None)
    );
    let denied = vec![
        asked,
        ChatMessage::tool_result(
            "demo_call_0",
            r#"{"error":"The user denied this call, so it was not run."}"#,
        ),
    ];
    let (text, _) = said(&denied, std::slice::from_ref(&todo)).await;
    assert!(
        text.starts_with("That did not happen: The user denied"),
        "{text}"
    );
}

#[tokio::test]
async fn asked_for_suggestions_it_ends_with_values_and_a_button() {
    let system = format!(
        "be nice\n\n{}",
        parley_service::respond::suggestion_instructions()
    );
    let messages = vec![ChatMessage::system(&system), ChatMessage::user("Hi")];
    let (text, _) = said(&messages, &[]).await;
    let registry = parley_service::payloads::PayloadRegistry::default();
    let extracted = parley_service::respond::extract(&text, &registry, &[]);
    assert!(extracted.dropped.is_empty(), "{:?}", extracted.dropped);
    assert_eq!(extracted.text, reply(&messages));
    assert_eq!(extracted.extras.suggested_values.map(|v| v.len()), Some(2));
    let actions = extracted.extras.suggested_actions.expect("a button");
    assert_eq!(actions[0].action, "send_message");
}

#[tokio::test]
async fn a_named_choice_is_called_though_the_message_asks_for_another_function() {
    let functions = [
        FunctionOffer {
            name: TIME_FUNCTION.into(),
            description: "the time".into(),
            parameters: serde_json::json!({"type": "object"}),
        },
        FunctionOffer {
            name: "lookup".into(),
            description: "looks up".into(),
            parameters: serde_json::json!({"type": "object"}),
        },
    ];
    let mut options = CallOptions::default();
    options.calls.choice = ToolChoice::Function {
        name: "lookup".into(),
    };
    let deltas: Vec<Delta> = stream(
        &[ChatMessage::user("what time is it?")],
        &functions,
        &options,
    )
    .map(|d| d.expect("no error"))
    .collect()
    .await;
    let names: Vec<&str> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::ToolCall { name, .. } => name.as_deref(),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["lookup"]);
}
