//! The built-in offline demo model: used only when no provider is configured, so a
//! newcomer sees a whole turn stream without any account. Its `vendor`/`model` say what
//! it is, and its reply is deterministic.

use std::time::Duration;

use futures::StreamExt;

use super::{Backend, ChatMessage, Delta, DeltaStream, Route};

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
        backend: Backend::Demo,
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

pub(super) fn stream(messages: &[ChatMessage]) -> DeltaStream {
    let text = reply(messages);
    let input_tokens: u64 = messages
        .iter()
        .map(|m| m.content.split_whitespace().count() as u64)
        .sum();
    let mut pieces: Vec<Delta> = Vec::new();
    for (i, word) in text.split(' ').enumerate() {
        pieces.push(Delta::Text(if i == 0 {
            word.to_owned()
        } else {
            format!(" {word}")
        }));
    }
    let output_tokens = pieces.len() as u64;
    pieces.push(Delta::Usage {
        input_tokens,
        output_tokens,
    });
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
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_demo_reply_streams_deterministically_with_usage() {
        let messages = vec![
            ChatMessage::system("be nice"),
            ChatMessage::user("What is 2+2?"),
        ];
        let deltas: Vec<Delta> = stream(&messages).map(|d| d.unwrap()).collect().await;
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
            Some(Delta::Usage {
                input_tokens: 5,
                ..
            })
        ));
    }
}
