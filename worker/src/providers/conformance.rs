//! The provider conformance suite: what the agent loop relies on from every
//! [`Provider`], run against each implementation through its [`Harness`] (the demo
//! model in-process, the OpenAI-compatible client against the mock LLM). A new provider
//! kind adds a harness and `conformance_suite!(its_harness)` beside its tests.
//!
//! Every provider, offered [`TIME_FUNCTION`]:
//! * answers a plain message in text deltas, then reports its usage once, last;
//! * asked what the harness says makes it call the function, streams the call — its id
//!   and name in the first piece of the call's index, arguments that assemble into a
//!   JSON object — and no usage before it;
//! * given the call and its result — with what it said it needs back of that response
//!   ([`Delta::State`], a call's `state`) — answers in words without calling again (a
//!   harness on a strict model of the mock checks that the follow-up carries it);
//! * made to call (`tool_choice`: the function by name), calls it on a message that asks
//!   for no call;
//! * can be called again after a caller dropped one of its streams midway;
//! * stops at the call's token limit and says so ([`Delta::Stop`]), and before a stop
//!   sequence of the call's sampling (not shown, not a cut answer).

use std::{collections::BTreeMap, sync::Arc};

use futures::StreamExt;

use super::{
    CallOptions, CallRequest, ChatMessage, Delta, FunctionOffer, Provider,
    replay::{CallState, ResponseState},
};

/// The function the suite offers (the demo model calls it when asked the time).
pub const TIME_FUNCTION: &str = super::demo::TIME_FUNCTION;

/// How the suite reaches one implementation.
#[async_trait::async_trait]
pub trait Harness: Send + Sync {
    /// The provider, and the model name to ask it for.
    async fn provider(&self) -> (Arc<dyn Provider>, String);
    /// A user message it answers in words.
    fn plain(&self) -> String;
    /// A user message that makes it call [`TIME_FUNCTION`] when offered.
    fn calling(&self) -> String;
    /// The model's settings its calls are made with (extended thinking, caching).
    fn options(&self) -> CallOptions {
        CallOptions::default()
    }
}

fn offered() -> Vec<FunctionOffer> {
    vec![FunctionOffer {
        name: TIME_FUNCTION.into(),
        description: "The current time in a time zone.".into(),
        parameters: serde_json::json!({
            "type": "object",
            "properties": {"time_zone": {"type": "string"}},
        }),
    }]
}

/// Every delta of one call, failing the test on a provider error.
async fn deltas(harness: &dyn Harness, messages: &[ChatMessage]) -> Vec<Delta> {
    deltas_with(harness, messages, &harness.options()).await
}

async fn deltas_with(
    harness: &dyn Harness,
    messages: &[ChatMessage],
    options: &CallOptions,
) -> Vec<Delta> {
    let (provider, model) = harness.provider().await;
    let stream = provider
        .stream(&model, messages, &offered(), None, options)
        .await
        .expect("the call starts");
    stream
        .map(|delta| delta.expect("the stream does not fail"))
        .collect()
        .await
}

fn text(deltas: &[Delta]) -> String {
    deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// One call of a stream: id, name, arguments, and its own state.
type Call = (Option<String>, Option<String>, String, Option<CallState>);

/// The calls of a stream, by index.
fn calls(deltas: &[Delta]) -> BTreeMap<u32, Call> {
    let mut calls: BTreeMap<u32, Call> = BTreeMap::new();
    for delta in deltas {
        if let Delta::ToolCall {
            index,
            id,
            name,
            arguments,
            state,
        } = delta
        {
            let call = calls.entry(*index).or_default();
            if call.0.is_none() && call.1.is_none() {
                assert!(
                    id.is_some() && name.is_some(),
                    "the first piece of call {index} names it: {delta:?}"
                );
                call.0.clone_from(id);
                call.1.clone_from(name);
            }
            call.2.push_str(arguments);
            if state.is_some() {
                call.3.clone_from(state);
            }
        }
    }
    calls
}

/// What the stream said it needs back of its response.
fn state(deltas: &[Delta]) -> Option<ResponseState> {
    deltas.iter().rev().find_map(|d| match d {
        Delta::State(state) => Some(state.clone()),
        _ => None,
    })
}

fn usage_is_last_and_once(deltas: &[Delta]) {
    let usages = deltas
        .iter()
        .filter(|d| matches!(d, Delta::Usage(_)))
        .count();
    assert_eq!(usages, 1, "one usage report: {deltas:?}");
    assert!(
        matches!(deltas.last(), Some(Delta::Usage(usage)) if usage.output_tokens > 0),
        "the usage comes last and counts the output: {deltas:?}"
    );
}

pub async fn answers_in_words_then_reports_its_usage(harness: &dyn Harness) {
    let messages = [
        ChatMessage::system("You are a test."),
        ChatMessage::user(harness.plain()),
    ];
    let deltas = deltas(harness, &messages).await;
    assert!(
        deltas
            .iter()
            .filter(|d| matches!(d, Delta::Text(_)))
            .count()
            >= 2,
        "the answer streams in pieces: {deltas:?}"
    );
    assert!(!text(&deltas).trim().is_empty());
    assert!(calls(&deltas).is_empty(), "no call was asked for");
    usage_is_last_and_once(&deltas);
}

pub async fn calls_an_offered_function_with_json_arguments(harness: &dyn Harness) {
    let deltas = deltas(harness, &[ChatMessage::user(harness.calling())]).await;
    let calls = calls(&deltas);
    assert_eq!(calls.len(), 1, "{deltas:?}");
    let (id, name, arguments, _) = &calls[&0];
    assert!(id.as_deref().is_some_and(|id| !id.is_empty()));
    assert_eq!(name.as_deref(), Some(TIME_FUNCTION));
    let arguments: serde_json::Value =
        serde_json::from_str(arguments).expect("the arguments are JSON");
    assert!(arguments.is_object(), "{arguments}");
    usage_is_last_and_once(&deltas);
}

pub async fn calls_the_function_a_forced_choice_names(harness: &dyn Harness) {
    let mut options = harness.options();
    options.calls.choice = parley_protocol::client_functions::ToolChoice::Function {
        name: TIME_FUNCTION.into(),
    };
    // A forced call goes without extended thinking (Anthropic refuses the two together).
    options.thinking_budget = None;
    let messages = [ChatMessage::user(harness.plain())];
    let deltas = deltas_with(harness, &messages, &options).await;
    let calls = calls(&deltas);
    assert_eq!(calls.len(), 1, "{deltas:?}");
    assert_eq!(calls[&0].1.as_deref(), Some(TIME_FUNCTION));
    usage_is_last_and_once(&deltas);
}

pub async fn answers_a_function_result_in_words(harness: &dyn Harness) {
    let asked = ChatMessage::user(harness.calling());
    let first = deltas(harness, std::slice::from_ref(&asked)).await;
    let (id, _, arguments, call_state) = calls(&first).remove(&0).expect("a call");
    let id = id.expect("an id");
    let result = r#"{"local_time":"2026-11-26T12:00:00+00:00","time_zone":"UTC"}"#;
    let call = CallRequest {
        state: call_state,
        ..CallRequest::new(id.clone(), TIME_FUNCTION, arguments)
    };
    let messages = [
        asked,
        ChatMessage::assistant_calls(text(&first), vec![call], state(&first)),
        ChatMessage::tool_result(id, result),
    ];
    let answer = deltas(harness, &messages).await;
    assert!(calls(&answer).is_empty(), "answered, not called again");
    assert!(!text(&answer).trim().is_empty(), "{answer:?}");
    usage_is_last_and_once(&answer);
}

pub async fn is_called_again_after_a_stream_was_dropped_midway(harness: &dyn Harness) {
    let (provider, model) = harness.provider().await;
    let messages = [ChatMessage::user(harness.plain())];
    let mut stream = provider
        .stream(&model, &messages, &offered(), None, &harness.options())
        .await
        .expect("the call starts");
    let first = stream.next().await;
    assert!(
        matches!(first, Some(Ok(Delta::Text(_) | Delta::Reasoning(_)))),
        "the answer (or its reasoning) begins: {first:?}"
    );
    drop(stream);
    answers_in_words_then_reports_its_usage(harness).await;
}

pub async fn stops_at_its_token_limit_and_before_a_stop_sequence(harness: &dyn Harness) {
    let messages = [ChatMessage::user(harness.plain())];
    let whole = text(&deltas(harness, &messages).await);
    let words: Vec<&str> = whole.split_whitespace().collect();
    assert!(
        words.len() >= 4,
        "the plain answer has a few words: {whole:?}"
    );
    // As a route sends it: too few tokens for extended thinking go without it.
    let limited = CallOptions {
        max_tokens: Some(2),
        thinking_budget: None,
        ..harness.options()
    };
    let cut = deltas_with(harness, &messages, &limited).await;
    assert!(
        cut.iter()
            .any(|d| matches!(d, Delta::Stop(super::StopReason::MaxTokens))),
        "the limit is said: {cut:?}"
    );
    let said = text(&cut);
    assert!(
        said.split_whitespace().count() <= 2 && whole.starts_with(&said),
        "at most 2 tokens of the answer: {said:?}"
    );
    usage_is_last_and_once(&cut);
    let stop = format!(" {}", words[2]);
    let mut stopping = harness.options();
    stopping.sampling.stop = vec![stop.clone()];
    let stopped = deltas_with(harness, &messages, &stopping).await;
    let before = &whole[..whole.find(&stop).expect("the stop is in the answer")];
    assert_eq!(text(&stopped), before, "the answer ends before the stop");
    assert!(
        !stopped.iter().any(|d| matches!(d, Delta::Stop(_))),
        "a stop sequence is a finished answer: {stopped:?}"
    );
}

/// The suite as tests, against the harness `$harness` builds.
macro_rules! conformance_suite {
    ($harness:expr) => {
        mod conformance {
            #[allow(
                unused_imports,
                reason = "the suite's module imports what some harnesses do not use"
            )]
            use super::*;
            use $crate::providers::conformance as suite;

            #[tokio::test]
            async fn answers_in_words_then_reports_its_usage() {
                suite::answers_in_words_then_reports_its_usage(&$harness).await;
            }

            #[tokio::test]
            async fn calls_an_offered_function_with_json_arguments() {
                suite::calls_an_offered_function_with_json_arguments(&$harness).await;
            }

            #[tokio::test]
            async fn calls_the_function_a_forced_choice_names() {
                suite::calls_the_function_a_forced_choice_names(&$harness).await;
            }

            #[tokio::test]
            async fn answers_a_function_result_in_words() {
                suite::answers_a_function_result_in_words(&$harness).await;
            }

            #[tokio::test]
            async fn stops_at_its_token_limit_and_before_a_stop_sequence() {
                suite::stops_at_its_token_limit_and_before_a_stop_sequence(&$harness).await;
            }

            #[tokio::test]
            async fn is_called_again_after_a_stream_was_dropped_midway() {
                suite::is_called_again_after_a_stream_was_dropped_midway(&$harness).await;
            }
        }
    };
}

pub(crate) use conformance_suite;
