use std::{sync::Arc, time::Duration};

use parley_mock_llm::{DEFAULT_MODEL, Dialect, MockConfig, MockLlm};
use tokio::sync::OnceCell;

use super::*;
use crate::providers::{
    ProviderKind,
    conformance::{Harness, TIME_FUNCTION, conformance_suite},
};

/// The client against the mock LLM (started by the first call of a test), on a
/// model of the dialect given: plain OpenAI, or a strict one that refuses a
/// follow-up without what the provider needs back of its response.
#[derive(Default)]
struct AgainstTheMock {
    mock: OnceCell<MockLlm>,
    dialect: Dialect,
}

impl AgainstTheMock {
    fn strict(dialect: Dialect) -> Self {
        Self {
            mock: OnceCell::new(),
            dialect,
        }
    }
}

#[async_trait::async_trait]
impl Harness for AgainstTheMock {
    async fn provider(&self) -> (Arc<dyn Provider>, String) {
        let dialect = self.dialect;
        let mock = self
            .mock
            .get_or_init(|| async move {
                MockLlm::start(MockConfig {
                    dialects: [(DEFAULT_MODEL.to_owned(), dialect)].into(),
                    ..MockConfig::default()
                })
                .await
            })
            .await;
        let config = ProviderConfig {
            name: "mock".into(),
            kind: ProviderKind::Openai,
            base_url: mock.base_url(),
            api_key: None,
            connect_timeout: Duration::from_secs(2),
            first_token_timeout: Duration::from_secs(5),
            continue_partial: false,
        };
        (ProviderKind::Openai.build(&config), DEFAULT_MODEL.into())
    }

    fn plain(&self) -> String {
        "hello there, model".into()
    }

    fn calling(&self) -> String {
        format!(r#"what time is it [[mock tool_call='{TIME_FUNCTION}:{{"time_zone": "UTC"}}']]"#)
    }
}

conformance_suite!(AgainstTheMock::default());

/// DeepSeek's thinking mode: `reasoning_content` back on the tool loop's follow-up.
mod deepseek {
    use super::*;
    conformance_suite!(AgainstTheMock::strict(Dialect::DeepSeek));
}

/// Gemini 3: the first call's thought signature back with it.
mod gemini {
    use super::*;
    conformance_suite!(AgainstTheMock::strict(Dialect::Gemini));
}

/// Without the state, the strict models refuse the follow-up as their providers do:
/// what the suite's follow-up carries is what makes it pass.
#[tokio::test]
async fn strict_models_refuse_a_follow_up_without_the_state() {
    for dialect in [Dialect::DeepSeek, Dialect::Gemini] {
        let harness = AgainstTheMock::strict(dialect);
        let (provider, model) = harness.provider().await;
        let asked = ChatMessage::user(harness.calling());
        let offers = [FunctionOffer {
            name: TIME_FUNCTION.into(),
            description: "The time.".into(),
            parameters: json!({"type": "object"}),
        }];
        let first: Vec<Delta> = provider
            .stream(
                &model,
                std::slice::from_ref(&asked),
                &offers,
                None,
                &CallOptions::default(),
            )
            .await
            .unwrap()
            .map(|d| d.unwrap())
            .collect()
            .await;
        let (id, arguments) = first
            .iter()
            .find_map(|d| match d {
                Delta::ToolCall {
                    id: Some(id),
                    arguments,
                    ..
                } => Some((id.clone(), arguments.clone())),
                _ => None,
            })
            .expect("a call");
        let bare = [
            asked,
            ChatMessage::assistant_calls(
                "",
                vec![crate::providers::CallRequest::new(
                    &id,
                    TIME_FUNCTION,
                    arguments,
                )],
                None,
            ),
            ChatMessage::tool_result(id, "12:00"),
        ];
        match provider
            .stream(&model, &bare, &offers, None, &CallOptions::default())
            .await
        {
            Err(ProviderError::Status { status: 400, .. }) => {}
            Err(other) => panic!("{dialect:?}: {other:?}"),
            Ok(_) => panic!("{dialect:?}: a follow-up without the state was answered"),
        }
    }
}

/// The turn's sampling goes on the wire under OpenAI's names; what the mock refuses
/// (as OpenAI does) comes back as the provider's 400.
#[tokio::test]
async fn the_turns_sampling_is_sent_and_out_of_range_values_are_refused() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let provider = OpenAiProvider::new(&config(mock.base_url()));
    let messages = [ChatMessage::user("hello")];
    let mut options = CallOptions {
        max_tokens: Some(64),
        sampling: parley_protocol::sampling::Sampling {
            temperature: Some(0.25),
            top_p: Some(0.5),
            stop: vec!["END".into()],
            seed: Some(7),
            presence_penalty: Some(0.5),
            frequency_penalty: Some(-0.5),
            ..Default::default()
        },
        ..CallOptions::default()
    };
    let stream = provider
        .stream(DEFAULT_MODEL, &messages, &[], None, &options)
        .await
        .unwrap();
    let _: Vec<_> = stream.collect().await;
    let body = &mock.requests()[0].body;
    assert_eq!(
        (
            &body["temperature"],
            &body["top_p"],
            &body["stop"],
            &body["seed"]
        ),
        (&json!(0.25), &json!(0.5), &json!(["END"]), &json!(7))
    );
    assert_eq!(
        (&body["presence_penalty"], &body["frequency_penalty"]),
        (&json!(0.5), &json!(-0.5))
    );
    assert_eq!(body["max_tokens"], 64);
    options.sampling.temperature = Some(2.5);
    match provider
        .stream(DEFAULT_MODEL, &messages, &[], None, &options)
        .await
    {
        Err(ProviderError::Status {
            status: 400,
            message,
        }) => {
            assert!(message.contains("temperature"), "{message}");
        }
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("an out-of-range temperature was answered"),
    }
}

fn config(base_url: String) -> ProviderConfig {
    ProviderConfig {
        name: "mock".into(),
        kind: ProviderKind::Openai,
        base_url,
        api_key: Some("sk-test".to_owned().into()),
        connect_timeout: Duration::from_secs(2),
        first_token_timeout: Duration::from_secs(5),
        continue_partial: false,
    }
}

/// The deltas of one call of `text`, and how it ended.
async fn call(provider: &OpenAiProvider, text: &str) -> Result<Vec<Delta>, ProviderError> {
    let messages = [ChatMessage::user(text)];
    let mut stream = provider
        .stream(DEFAULT_MODEL, &messages, &[], None, &CallOptions::default())
        .await?;
    let mut deltas = Vec::new();
    while let Some(delta) = stream.next().await {
        deltas.push(delta?);
    }
    Ok(deltas)
}

#[tokio::test]
async fn refusals_cuts_and_bad_chunks_map_to_their_errors() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let provider = OpenAiProvider::new(&config(mock.base_url()));
    match call(&provider, "[[mock status=429]] hi").await {
        Err(ProviderError::Status {
            status: 429,
            message,
        }) => {
            assert!(
                !message.contains('{'),
                "OpenAI's message, not the body: {message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        call(&provider, "[[mock status=503]] hi").await,
        Err(ProviderError::Status { status: 503, .. })
    ));
    match call(&provider, "[[mock cut_after=2]] one two three four").await {
        Err(ProviderError::Broken(message)) => assert!(message.contains("broke"), "{message}"),
        other => panic!("{other:?}"),
    }
    match call(&provider, "[[mock malformed_after=1]] one two three").await {
        Err(ProviderError::Broken(message)) => {
            assert!(message.contains("unreadable chunk"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let answered: String = call(&provider, "one two")
        .await
        .unwrap()
        .into_iter()
        .filter_map(|delta| match delta {
            Delta::Text(text) => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(
        answered, "Echo: one two",
        "the same client answers after them"
    );
    drop(mock);

    let closed = OpenAiProvider::new(&config("http://127.0.0.1:9/v1".into()));
    assert!(matches!(
        call(&closed, "hi").await,
        Err(ProviderError::Unreachable(_))
    ));
}

/// A proxy's 4xx page is the status it came with, its body the message (not a
/// broken stream, which is what async-openai's reading of it as JSON made it).
#[tokio::test]
async fn an_error_page_that_is_not_json_is_its_status() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let _ = socket.read(&mut [0; 4096]).await;
        let page = "<html>denied by the proxy</html>";
        let head = format!(
            "HTTP/1.1 403 Forbidden\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\r\n",
            page.len()
        );
        socket.write_all((head + page).as_bytes()).await.unwrap();
    });
    let provider = OpenAiProvider::new(&config(base_url));
    match call(&provider, "hi").await {
        Err(ProviderError::Status {
            status: 403,
            message,
        }) => {
            assert_eq!(message, "<html>denied by the proxy</html>");
        }
        other => panic!("{other:?}"),
    }
}

fn event(event: &str, data: &str) -> Result<Event, EventStreamError<std::io::Error>> {
    Ok(Event {
        event: event.into(),
        data: data.into(),
        ..Event::default()
    })
}

async fn collect(
    events: Vec<Result<Event, EventStreamError<std::io::Error>>>,
) -> Vec<Result<Delta, ProviderError>> {
    Deltas::new(futures::stream::iter(events)).collect().await
}

#[tokio::test]
async fn a_stream_without_a_finish_reason_was_cut_and_keepalives_are_skipped() {
    let text = r#"{"choices":[{"delta":{"content":"hi"}}]}"#;
    let finish = r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#;
    let usage = r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#;

    let whole = collect(vec![
        event("message", text),
        event("keepalive", "{}"),
        event("message", finish),
        event("message", usage),
        event("message", "[DONE]"),
        event("message", text),
    ])
    .await;
    let whole: Vec<_> = whole.into_iter().map(Result::unwrap).collect();
    assert_eq!(
        whole,
        [Delta::Text("hi".into()), Delta::Usage(Usage::plain(3, 1))],
        "nothing after [DONE]"
    );

    for cut in [
        vec![event("message", text)],
        vec![event("message", text), event("message", "[DONE]")],
    ] {
        let deltas = collect(cut).await;
        assert_eq!(deltas.len(), 2, "{deltas:?}");
        assert!(
            matches!(&deltas[1], Err(ProviderError::Broken(m)) if m.contains("finish reason")),
            "{deltas:?}"
        );
    }
}
