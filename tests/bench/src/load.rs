//! The load levels: C users each running turns back to back, through Parley and — for
//! the baseline — straight against the mock LLM.

use std::time::{Duration, Instant};

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde::Deserialize;
use serde_json::json;

pub use crate::closed_loop::{Run, Timing, run_users_in};
use crate::{
    setup::{Api, User},
    stream::{Reading, Window},
};

/// One turn that worked.
#[derive(Debug, Clone)]
pub struct Turn {
    /// Request sent → first text (`text_delta`, or the first content chunk of the mock).
    pub ttft: Duration,
    /// Request sent → `complete` (or `[DONE]`).
    pub latency: Duration,
    /// Words of the streamed text (the mock's tokens are words).
    pub tokens: usize,
    /// SSE events read (Parley: every event but `ping`; the mock: every chunk, `[DONE]`
    /// included).
    pub events: usize,
    /// `POST /v1/sessions` before the turn, when each turn opens a session of its own.
    pub session: Option<Duration>,
    /// When the turn started, from the start of the measured window (set by
    /// [`run_users_in`]).
    pub started: Duration,
    /// Request sent → the response's headers (the prompt recorded and its job queued).
    pub headers: Option<Duration>,
    /// Request sent → the first `prompt_state` (a worker claimed the prompt).
    pub claimed: Option<Duration>,
    /// The gaps (µs) between consecutive events from the first text to the end
    /// (`complete`; the mock's `[DONE]`), pings left out: the stream's smoothness as its
    /// reader sees it.
    pub gaps: Vec<u32>,
}

/// Why a turn failed: a short kind to count by, and a detail to show once.
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: String,
    pub detail: String,
}

impl Failure {
    pub fn new(kind: impl Into<String>, detail: impl std::fmt::Display) -> Self {
        let mut detail = detail.to_string();
        detail.truncate(300);
        Self {
            kind: kind.into(),
            detail,
        }
    }
}

pub type TurnResult = Result<Turn, Failure>;

#[derive(Deserialize)]
struct TextDelta {
    #[serde(default)]
    text: String,
}

/// What a Parley turn's text must be.
#[derive(Debug, Clone, Copy)]
pub enum Expected {
    /// This many words (a plain `[[mock tokens=N]]` turn).
    Tokens(usize),
    /// A function call's marker, then the mock's answer to its result.
    FunctionCall,
    /// This many words, the function call's marker, this many words again: the mock's
    /// `[[mock tool_call=… tokens=N]]` answers N tokens with the call, and N again after
    /// its result.
    FunctionCallTokens(usize),
}

/// One Parley turn: `POST /v1/sessions/{id}/messages` with `Accept: text/event-stream`,
/// read with a real SSE parser up to `complete`.
pub async fn parley_turn(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    content: &str,
    expected: Expected,
) -> TurnResult {
    parley_turn_in(client, url, token, content, expected, None).await
}

/// [`parley_turn`], counting the tokens that arrive inside `window`.
pub async fn parley_turn_in(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    content: &str,
    expected: Expected,
    window: Option<&Window>,
) -> TurnResult {
    let sent = Instant::now();
    let response = client
        .post(url)
        .bearer_auth(token)
        .header("accept", "text/event-stream")
        .json(&json!({"content": content}))
        .send()
        .await
        .map_err(|err| Failure::new("transport", err))?;
    let status = response.status().as_u16();
    if status != 200 {
        let body = response.text().await.unwrap_or_default();
        return Err(Failure::new(format!("http {status}"), body));
    }
    let headers = Some(sent.elapsed());
    let mut claimed = None;
    let mut events = response.bytes_stream().eventsource();
    let mut ttft = None;
    let mut text = String::new();
    let mut count = 0;
    let mut reading = Reading::new(window);
    let marked = |turn: TurnResult, claimed| {
        turn.map(|turn| Turn {
            headers,
            claimed,
            ..turn
        })
    };
    while let Some(event) = events.next().await {
        let event = event.map_err(|err| Failure::new("stream", err))?;
        let at = Instant::now();
        if event.event != "ping" {
            count += 1;
        }
        match event.event.as_str() {
            "ping" => {}
            "prompt_state" if claimed.is_none() => {
                claimed = Some(sent.elapsed());
                reading.event(at, "");
            }
            "text_delta" => {
                let delta: TextDelta = serde_json::from_str(&event.data)
                    .map_err(|err| Failure::new("bad event", format!("{err}: {}", event.data)))?;
                if ttft.is_none() && !delta.text.is_empty() {
                    ttft = Some(at - sent);
                }
                reading.event(at, &delta.text);
                text.push_str(&delta.text);
            }
            "complete" => {
                reading.event(at, "");
                let gaps = reading.into_gaps();
                let turn = match expected {
                    Expected::Tokens(n) => finished(sent, ttft, &text, n, count, gaps),
                    Expected::FunctionCall if text.starts_with("[[tool:0]]Tool result: ") => {
                        let words = text.split_whitespace().count();
                        finished(sent, ttft, &text, words, count, gaps)
                    }
                    Expected::FunctionCall => Err(Failure::new(
                        "no function call",
                        format!("the answer is not a call and its result: {text}"),
                    )),
                    Expected::FunctionCallTokens(n) => match text.split_once("[[tool:0]]") {
                        Some((before, after))
                            if before.split_whitespace().count() == n
                                && after.split_whitespace().count() == n =>
                        {
                            // The marker joins the words around it: count them apart.
                            finished(sent, ttft, &format!("{before} {after}"), 2 * n, count, gaps)
                        }
                        _ => Err(Failure::new(
                            "no function call",
                            format!("not {n} words, the call, {n} words: {text}"),
                        )),
                    },
                };
                return marked(turn, claimed);
            }
            "error" => return Err(Failure::new("error event", event.data)),
            "cancelled" => return Err(Failure::new("cancelled", "")),
            _ => reading.event(at, ""),
        }
    }
    Err(Failure::new("no complete", "the stream ended early"))
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<ChoiceDelta>,
}

#[derive(Deserialize)]
struct ChoiceDelta {
    #[serde(default)]
    content: Option<String>,
}

/// The same exchange straight with the mock: a streaming chat completion shaped like the
/// worker's (system + user message, usage asked for), read up to `[DONE]`.
pub async fn direct_turn(
    client: &reqwest::Client,
    url: &str,
    model: &str,
    content: &str,
    expected_tokens: usize,
) -> TurnResult {
    direct_turn_in(client, url, model, content, expected_tokens, None).await
}

/// [`direct_turn`], counting the tokens that arrive inside `window`.
pub async fn direct_turn_in(
    client: &reqwest::Client,
    url: &str,
    model: &str,
    content: &str,
    expected_tokens: usize,
    window: Option<&Window>,
) -> TurnResult {
    let body = json!({
        "model": model,
        "messages": [
            {"role": "system", "content": "## Core Behavior\nAnswer briefly."},
            {"role": "user", "content": content},
        ],
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    let sent = Instant::now();
    let response = client
        .post(url)
        .json(&body)
        .send()
        .await
        .map_err(|err| Failure::new("transport", err))?;
    let status = response.status().as_u16();
    if status != 200 {
        let body = response.text().await.unwrap_or_default();
        return Err(Failure::new(format!("http {status}"), body));
    }
    let mut events = response.bytes_stream().eventsource();
    let mut ttft = None;
    let mut text = String::new();
    let mut count = 0;
    let mut reading = Reading::new(window);
    while let Some(event) = events.next().await {
        let event = event.map_err(|err| Failure::new("stream", err))?;
        let at = Instant::now();
        count += 1;
        if event.data == "[DONE]" {
            reading.event(at, "");
            let gaps = reading.into_gaps();
            return finished(sent, ttft, &text, expected_tokens, count, gaps);
        }
        let chunk: Chunk = serde_json::from_str(&event.data)
            .map_err(|err| Failure::new("bad chunk", format!("{err}: {}", event.data)))?;
        let mut piece_of_chunk = String::new();
        for choice in chunk.choices {
            if let Some(piece) = choice.delta.and_then(|d| d.content) {
                piece_of_chunk.push_str(&piece);
            }
        }
        if ttft.is_none() && !piece_of_chunk.is_empty() {
            ttft = Some(at - sent);
        }
        reading.event(at, &piece_of_chunk);
        text.push_str(&piece_of_chunk);
    }
    Err(Failure::new("no [DONE]", "the stream ended early"))
}

fn finished(
    sent: Instant,
    ttft: Option<Duration>,
    text: &str,
    expected_tokens: usize,
    events: usize,
    gaps: Vec<u32>,
) -> TurnResult {
    let latency = sent.elapsed();
    let tokens = text.split_whitespace().count();
    let Some(ttft) = ttft else {
        return Err(Failure::new("no text", "finished without any text"));
    };
    if tokens != expected_tokens {
        return Err(Failure::new(
            "wrong length",
            format!("{tokens} tokens instead of {expected_tokens}"),
        ));
    }
    Ok(Turn {
        ttft,
        latency,
        tokens,
        events,
        session: None,
        started: Duration::ZERO,
        headers: None,
        claimed: None,
        gaps,
    })
}

/// A turn in a session of its own: `POST /v1/sessions`, then [`parley_turn`] in it (the
/// cost of every new conversation). TTFT and latency run from the message being sent;
/// the session's creation is timed apart.
pub async fn new_session_turn(
    api: &Api,
    user: &User,
    tool_id: &str,
    content: &str,
    expected: Expected,
    window: Option<&Window>,
) -> TurnResult {
    let began = Instant::now();
    let session = api
        .open_session(user, tool_id)
        .await
        .map_err(|err| Failure::new("session", format!("{err:#}")))?;
    let created = began.elapsed();
    let url = api.url(&format!("/v1/sessions/{session}/messages"));
    let mut turn =
        parley_turn_in(&api.client, &url, &user.token, content, expected, window).await?;
    turn.session = Some(created);
    Ok(turn)
}

/// The `[[mock …]]` directive of a plain turn: `tokens` words, `token_delay_ms` apart when
/// given (else at the mock's own pace).
pub fn plain_directive(tokens: usize, token_delay_ms: Option<u64>) -> String {
    match token_delay_ms {
        Some(ms) => format!("[[mock tokens={tokens} token_delay_ms={ms}]]"),
        None => format!("[[mock tokens={tokens}]]"),
    }
}
