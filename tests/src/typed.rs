//! Typed-client counterparts of the raw turn helpers of [`crate::turns`]: sending
//! messages (in the background too), reading prompts and messages, each request through
//! the generated client ([`crate::client`]) and each answer as the API's types. SSE feeds
//! are not the client's business: follow them with [`crate::TestApp::prompt_events`] /
//! [`crate::TestApp::stream_message`].
//!
//! ```ignore
//! let me = app.client_as(&token);
//! let accepted = typed::send_in_background(&me, session_id, "hello").await;
//! let prompt =
//!     typed::wait_for_prompt_state(&me, accepted.prompt_id, PromptState::Completed, WAIT).await;
//! assert_eq!(typed::messages(&me, session_id).await.len(), 2);
//! ```

use std::time::{Duration, Instant};

use reqwest::header::CONTENT_TYPE;
use uuid::Uuid;

use crate::client::types::{AcceptedTurn, FinishedTurn, Message, Prompt, PromptState};
use crate::client::{Client, Error};
use crate::{ApiResponse, ApiResult};

/// `POST /v1/sessions/{id}/messages` with `Accept: application/json`: the finished turn
/// (201), or the problem.
pub async fn send_message(
    client: &Client,
    session_id: Uuid,
    content: &str,
) -> ApiResponse<FinishedTurn> {
    client
        .send_message()
        .id(session_id)
        .body_map(|b| b.content(content))
        .send()
        .await
}

/// `POST /v1/sessions/{id}/messages?background=true` as sent by the client; see
/// [`accepted`] for the answer.
pub async fn send_message_in_background(
    client: &Client,
    session_id: Uuid,
    content: &str,
) -> ApiResponse<FinishedTurn> {
    client
        .send_message()
        .id(session_id)
        .background(true)
        .body_map(|b| b.content(content))
        .send()
        .await
}

/// Sends a message with `?background=true` and returns the accepted turn (asserted 202).
pub async fn send_in_background(client: &Client, session_id: Uuid, content: &str) -> AcceptedTurn {
    accepted(send_message_in_background(client, session_id, content).await).await
}

/// The `AcceptedTurn` of a `202 Accepted` answer to `send_message`. The generated client
/// has no type for it (`tests/build.rs` keeps one success type per operation, here the
/// 201 `FinishedTurn`), so it hands the response back as `Error::UnexpectedResponse`;
/// this checks its status and content type and decodes the body as the document's
/// `AcceptedTurn`. Panics on anything else.
pub async fn accepted(result: ApiResponse<FinishedTurn>) -> AcceptedTurn {
    let response = match result {
        Err(Error::UnexpectedResponse(response)) => response,
        Ok(value) => panic!(
            "expected 202, got {} {:?}",
            value.status(),
            value.into_inner()
        ),
        Err(other) => panic!("expected 202, got {other:?}"),
    };
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let text = response.text().await.expect("reading the 202 body");
    assert_eq!(status, 202, "expected 202 Accepted: {text}");
    assert!(
        content_type.starts_with("application/json"),
        "an accepted turn is JSON, got {content_type:?}: {text}"
    );
    serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("the 202 body is no AcceptedTurn ({err}): {text}"))
}

/// `GET /v1/prompts/{id}` (asserted 200).
pub async fn prompt(client: &Client, prompt_id: Uuid) -> Prompt {
    client
        .get_prompt()
        .id(prompt_id)
        .send()
        .await
        .assert_status(200)
        .into_inner()
}

/// Polls `GET /v1/prompts/{id}` every 100 ms until its state is `state`; panics after
/// `within`, showing the last prompt seen.
pub async fn wait_for_prompt_state(
    client: &Client,
    prompt_id: Uuid,
    state: PromptState,
    within: Duration,
) -> Prompt {
    let deadline = Instant::now() + within;
    loop {
        let prompt = prompt(client, prompt_id).await;
        if prompt.state == state {
            return prompt;
        }
        assert!(
            Instant::now() < deadline,
            "prompt {prompt_id} did not become {state} within {within:?}: {prompt:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every message of a session (up to 100, asserted one page), oldest first.
pub async fn messages(client: &Client, session_id: Uuid) -> Vec<Message> {
    let page = client
        .list_session_messages()
        .id(session_id)
        .limit(100)
        .send()
        .await
        .assert_status(200)
        .into_inner();
    assert!(
        page.next_cursor.is_none(),
        "more than 100 messages: {page:?}"
    );
    page.items
}
