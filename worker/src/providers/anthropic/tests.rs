//! The Anthropic provider against the mock's Messages endpoint, which refuses what
//! Anthropic refuses: the provider conformance suite with and without extended thinking
//! (thinking on, the follow-up must start with the response's signed thinking blocks),
//! and its faults.

use std::{sync::Arc, time::Duration};

use futures::StreamExt;
use parley_mock_llm::{DEFAULT_MODEL, MockConfig, MockLlm};
use tokio::sync::OnceCell;

use super::*;
use crate::providers::{
    CallRequest, Delta, PromptCache, ProviderKind,
    conformance::{Harness, TIME_FUNCTION, conformance_suite},
};

fn config(base_url: String) -> ProviderConfig {
    ProviderConfig {
        name: "claude".into(),
        kind: ProviderKind::Anthropic,
        base_url,
        api_key: Some("sk-ant-test".to_owned().into()),
        connect_timeout: Duration::from_secs(2),
        first_token_timeout: Duration::from_secs(5),
        continue_partial: false,
    }
}

/// The provider against the mock, with extended thinking or without.
#[derive(Default)]
struct AgainstTheMock {
    mock: OnceCell<MockLlm>,
    thinking: bool,
}

#[async_trait::async_trait]
impl Harness for AgainstTheMock {
    async fn provider(&self) -> (Arc<dyn Provider>, String) {
        let mock = self
            .mock
            .get_or_init(|| MockLlm::start(MockConfig::default()))
            .await;
        let provider = ProviderKind::Anthropic.build(&config(mock.anthropic_base_url()));
        (provider, DEFAULT_MODEL.into())
    }

    fn plain(&self) -> String {
        "hello there, model".into()
    }

    fn calling(&self) -> String {
        format!(
            r#"what time is it [[mock redacted_thinking=1 tool_call='{TIME_FUNCTION}:{{"time_zone": "UTC"}}']]"#
        )
    }

    fn options(&self) -> CallOptions {
        CallOptions {
            max_tokens: Some(4096),
            thinking_budget: self.thinking.then_some(1024),
            prompt_cache: PromptCache::PrefixAndHistory,
            ..CallOptions::default()
        }
    }
}

conformance_suite!(AgainstTheMock::default());

mod thinking {
    use super::*;
    conformance_suite!(AgainstTheMock {
        thinking: true,
        ..AgainstTheMock::default()
    });
}

async fn deltas(
    provider: &AnthropicProvider,
    messages: &[ChatMessage],
    options: &CallOptions,
) -> Result<Vec<Delta>, ProviderError> {
    let offers = [FunctionOffer {
        name: TIME_FUNCTION.into(),
        description: "The time.".into(),
        parameters: serde_json::json!({"type": "object"}),
    }];
    let mut stream = provider
        .stream(DEFAULT_MODEL, messages, &offers, None, options)
        .await?;
    let mut out = Vec::new();
    while let Some(delta) = stream.next().await {
        out.push(delta?);
    }
    Ok(out)
}

#[tokio::test]
async fn with_thinking_on_a_follow_up_without_the_signed_thinking_is_refused() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let provider = AnthropicProvider::new(&config(mock.anthropic_base_url()));
    let options = CallOptions {
        max_tokens: Some(4096),
        thinking_budget: Some(2048),
        prompt_cache: PromptCache::Off,
        ..CallOptions::default()
    };
    let asked = ChatMessage::user(format!(
        "time? [[mock reasoning=look_at_the_clock tool_call='{TIME_FUNCTION}:{{}}']]"
    ));
    let first = deltas(&provider, std::slice::from_ref(&asked), &options)
        .await
        .unwrap();
    let thought: String = first
        .iter()
        .filter_map(|d| match d {
            Delta::Reasoning(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        thought, "look at the clock",
        "thinking streams as reasoning"
    );
    let state = first.iter().find_map(|d| match d {
        Delta::State(state) => Some(state.clone()),
        _ => None,
    });
    assert!(
        state
            .as_ref()
            .and_then(|s| s.anthropic())
            .is_some_and(|t| t.len() == 1),
        "{first:?}"
    );
    let id = first
        .iter()
        .find_map(|d| match d {
            Delta::ToolCall { id: Some(id), .. } => Some(id.clone()),
            _ => None,
        })
        .expect("a call");
    let follow_up = |state| {
        vec![
            asked.clone(),
            ChatMessage::assistant_calls(
                "",
                vec![CallRequest::new(&id, TIME_FUNCTION, "{}")],
                state,
            ),
            ChatMessage::tool_result(&id, "12:00"),
        ]
    };
    match deltas(&provider, &follow_up(None), &options).await {
        Err(ProviderError::Status {
            status: 400,
            message,
        }) => {
            assert!(message.contains("thinking"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let answer = deltas(&provider, &follow_up(state), &options)
        .await
        .unwrap();
    assert!(
        answer.iter().any(|d| matches!(d, Delta::Text(_))),
        "{answer:?}"
    );
}

#[tokio::test]
async fn refusals_overloads_and_errors_mid_stream_map_to_their_errors() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let provider = AnthropicProvider::new(&config(mock.anthropic_base_url()));
    let options = CallOptions {
        max_tokens: Some(100),
        ..CallOptions::default()
    };
    let call = |text: &str| vec![ChatMessage::user(text)];
    for (directive, status) in [
        ("status=529", 529),
        ("status=429", 429),
        ("status=500", 500),
    ] {
        match deltas(
            &provider,
            &call(&format!("[[mock {directive}]] hi")),
            &options,
        )
        .await
        {
            Err(ProviderError::Status { status: s, message }) => {
                assert_eq!(s, status);
                assert!(
                    !message.contains('{'),
                    "the message, not the body: {message}"
                );
            }
            other => panic!("{directive}: {other:?}"),
        }
    }
    match deltas(
        &provider,
        &call("[[mock error_after=2]] one two three"),
        &options,
    )
    .await
    {
        Err(ProviderError::Status { status: 529, .. }) => {}
        other => panic!("{other:?}"),
    }
    match deltas(
        &provider,
        &call("[[mock cut_after=2]] one two three"),
        &options,
    )
    .await
    {
        Err(ProviderError::Broken(_)) => {}
        other => panic!("{other:?}"),
    }
    match deltas(
        &provider,
        &call("[[mock malformed_after=1]] one two three"),
        &options,
    )
    .await
    {
        Err(ProviderError::Broken(message)) => assert!(message.contains("unreadable"), "{message}"),
        other => panic!("{other:?}"),
    }
    // No key: 401, as Anthropic answers.
    let keyless = AnthropicProvider::new(&ProviderConfig {
        api_key: None,
        ..config(mock.anthropic_base_url())
    });
    assert!(matches!(
        deltas(&keyless, &call("hi"), &options).await,
        Err(ProviderError::Status { status: 401, .. })
    ));
    // The same client answers after them, with its usage last.
    let answered = deltas(&provider, &call("one two"), &options).await.unwrap();
    assert!(matches!(answered.last(), Some(Delta::Usage(u)) if u.output_tokens > 0));
}

#[tokio::test]
async fn the_prefix_and_the_last_message_are_read_from_the_cache_on_the_next_request() {
    let mock = MockLlm::start(MockConfig {
        anthropic_cache_min_tokens: 1,
        ..MockConfig::default()
    })
    .await;
    let provider = AnthropicProvider::new(&config(mock.anthropic_base_url()));
    let options = CallOptions {
        max_tokens: Some(100),
        thinking_budget: None,
        prompt_cache: PromptCache::PrefixAndHistory,
        ..CallOptions::default()
    };
    let mut messages = vec![
        ChatMessage::system("You are a patient tutor who explains things step by step."),
        ChatMessage::user("what is a cell?"),
    ];
    let usage = |deltas: &[Delta]| match deltas.last() {
        Some(Delta::Usage(u)) => *u,
        other => panic!("{other:?}"),
    };
    let first = usage(&deltas(&provider, &messages, &options).await.unwrap());
    assert_eq!(first.cached_input_tokens, 0);
    assert!(first.cache_write_tokens > 0, "{first:?}");
    messages.push(ChatMessage::assistant("The unit of life."));
    messages.push(ChatMessage::user("and a tissue?"));
    let second = usage(&deltas(&provider, &messages, &options).await.unwrap());
    assert_eq!(
        second.cached_input_tokens, first.input_tokens,
        "the whole first prompt is read back: {first:?} {second:?}"
    );
    assert!(second.input_tokens > second.cached_input_tokens);
}

/// Anthropic's reading of the turn's sampling: its temperature range is 0–1, `top_p`
/// only without a temperature, neither with extended thinking, stop sequences as
/// `stop_sequences`; no penalties and no seed (the mock refuses them, as Anthropic does).
#[tokio::test]
async fn the_turns_sampling_is_sent_as_anthropic_reads_it() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let provider = AnthropicProvider::new(&config(mock.anthropic_base_url()));
    let sampling = parley_protocol::sampling::Sampling {
        temperature: Some(1.5),
        top_p: Some(0.5),
        stop: vec!["END".into()],
        seed: Some(7),
        presence_penalty: Some(0.5),
        ..Default::default()
    };
    let plain = CallOptions {
        max_tokens: Some(100),
        sampling: sampling.clone(),
        ..CallOptions::default()
    };
    let messages = [ChatMessage::user("say something long enough")];
    deltas(&provider, &messages, &plain).await.unwrap();
    let body = &mock.requests()[0].body;
    assert_eq!(body["temperature"], 1.0, "above Anthropic's range: its top");
    assert!(body.get("top_p").is_none(), "not beside a temperature");
    assert_eq!(body["stop_sequences"], serde_json::json!(["END"]));
    for absent in ["seed", "presence_penalty", "frequency_penalty", "stop"] {
        assert!(body.get(absent).is_none(), "{absent} is not Anthropic's");
    }
    let thinking = CallOptions {
        max_tokens: Some(4096),
        thinking_budget: Some(1024),
        sampling,
        ..CallOptions::default()
    };
    deltas(&provider, &messages, &thinking).await.unwrap();
    let body = &mock.requests()[1].body;
    assert!(
        body.get("temperature").is_none() && body.get("top_p").is_none(),
        "extended thinking refuses both: {body}"
    );
    let cut = CallOptions {
        max_tokens: Some(2),
        ..CallOptions::default()
    };
    let out = deltas(&provider, &messages, &cut).await.unwrap();
    assert!(
        out.iter().any(|d| matches!(
            d,
            Delta::Stop(parley_protocol::events::StopReason::MaxTokens)
        )),
        "{out:?}"
    );
}

/// A schema goes as `output_config.format`, which the mock (as Anthropic) honours.
#[tokio::test]
async fn a_response_format_goes_as_output_config() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let provider = AnthropicProvider::new(&config(mock.anthropic_base_url()));
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 4}},
        "required": ["n"],
        "additionalProperties": false,
    });
    let options = CallOptions {
        max_tokens: Some(100),
        format: Some(parley_protocol::output::ResponseFormat::JsonSchema {
            name: "count".into(),
            description: None,
            schema: schema.clone(),
            strict: true,
        }),
        ..CallOptions::default()
    };
    let out = deltas(&provider, &[ChatMessage::user("count")], &options)
        .await
        .unwrap();
    let text: String = out
        .iter()
        .filter_map(|d| match d {
            Delta::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        serde_json::json!({"n": 4})
    );
    let body = &mock.requests()[0].body;
    assert_eq!(body["output_config"]["format"]["schema"], schema);
}
