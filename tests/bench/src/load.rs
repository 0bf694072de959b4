//! The load levels: C users each running turns back to back, through Parley and — for
//! the baseline — straight against the mock LLM.

use std::{
    collections::BTreeMap,
    future::Future,
    sync::Arc,
    time::{Duration, Instant},
};

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde::Deserialize;
use serde_json::json;

use crate::{
    setup::{Api, User},
    stats::Percentiles,
};

/// One turn that worked.
#[derive(Debug, Clone, Copy)]
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
    /// [`run_users`]).
    pub started: Duration,
    /// Request sent → the response's headers (the prompt recorded and its job queued).
    pub headers: Option<Duration>,
    /// Request sent → the first `prompt_state` (a worker claimed the prompt).
    pub claimed: Option<Duration>,
}

/// Why a turn failed: a short kind to count by, and a detail to show once.
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: String,
    pub detail: String,
}

impl Failure {
    fn new(kind: impl Into<String>, detail: impl std::fmt::Display) -> Self {
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
    let marked = |turn: TurnResult, claimed| {
        turn.map(|turn| Turn {
            headers,
            claimed,
            ..turn
        })
    };
    while let Some(event) = events.next().await {
        let event = event.map_err(|err| Failure::new("stream", err))?;
        if event.event != "ping" {
            count += 1;
        }
        match event.event.as_str() {
            "prompt_state" if claimed.is_none() => claimed = Some(sent.elapsed()),
            "text_delta" => {
                let delta: TextDelta = serde_json::from_str(&event.data)
                    .map_err(|err| Failure::new("bad event", format!("{err}: {}", event.data)))?;
                if ttft.is_none() && !delta.text.is_empty() {
                    ttft = Some(sent.elapsed());
                }
                text.push_str(&delta.text);
            }
            "complete" => {
                let turn = match expected {
                    Expected::Tokens(n) => finished(sent, ttft, &text, n, count),
                    Expected::FunctionCall if text.starts_with("[[tool:0]]Tool result: ") => {
                        let words = text.split_whitespace().count();
                        finished(sent, ttft, &text, words, count)
                    }
                    Expected::FunctionCall => Err(Failure::new(
                        "no function call",
                        format!("the answer is not a call and its result: {text}"),
                    )),
                };
                return marked(turn, claimed);
            }
            "error" => return Err(Failure::new("error event", event.data)),
            "cancelled" => return Err(Failure::new("cancelled", "")),
            _ => {}
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
    while let Some(event) = events.next().await {
        let event = event.map_err(|err| Failure::new("stream", err))?;
        count += 1;
        if event.data == "[DONE]" {
            return finished(sent, ttft, &text, expected_tokens, count);
        }
        let chunk: Chunk = serde_json::from_str(&event.data)
            .map_err(|err| Failure::new("bad chunk", format!("{err}: {}", event.data)))?;
        for choice in chunk.choices {
            if let Some(piece) = choice.delta.and_then(|d| d.content) {
                if ttft.is_none() && !piece.is_empty() {
                    ttft = Some(sent.elapsed());
                }
                text.push_str(&piece);
            }
        }
    }
    Err(Failure::new("no [DONE]", "the stream ended early"))
}

fn finished(
    sent: Instant,
    ttft: Option<Duration>,
    text: &str,
    expected_tokens: usize,
    events: usize,
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
) -> TurnResult {
    let began = Instant::now();
    let session = api
        .open_session(user, tool_id)
        .await
        .map_err(|err| Failure::new("session", format!("{err:#}")))?;
    let created = began.elapsed();
    let url = api.url(&format!("/v1/sessions/{session}/messages"));
    let mut turn = parley_turn(&api.client, &url, &user.token, content, expected).await?;
    turn.session = Some(created);
    Ok(turn)
}

/// How long each user runs turns.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Turns run but not recorded first.
    pub warmup: Duration,
    /// The measured window: turns that start in it are recorded.
    pub duration: Duration,
    /// A turn longer than this counts as a failure (and the user goes on).
    pub turn_timeout: Duration,
}

/// What one level measured.
pub struct Run {
    pub turns: Vec<Turn>,
    /// Failures by kind: count and one example.
    pub failures: BTreeMap<String, (usize, String)>,
    /// From the start of the measured window to the end of its last turn.
    pub elapsed: Duration,
}

impl Run {
    pub fn errors(&self) -> usize {
        self.failures.values().map(|(n, _)| n).sum()
    }

    pub fn turns_per_s(&self) -> f64 {
        self.turns.len() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn tokens_per_s(&self) -> f64 {
        self.turns.iter().map(|t| t.tokens).sum::<usize>() as f64
            / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn ttft(&self) -> Option<Percentiles> {
        Percentiles::of(&self.turns.iter().map(|t| t.ttft).collect::<Vec<_>>())
    }

    pub fn latency(&self) -> Option<Percentiles> {
        Percentiles::of(&self.turns.iter().map(|t| t.latency).collect::<Vec<_>>())
    }

    /// Of the session creations, when each turn opened its own session.
    pub fn session(&self) -> Option<Percentiles> {
        Percentiles::of(
            &self
                .turns
                .iter()
                .filter_map(|t| t.session)
                .collect::<Vec<_>>(),
        )
    }

    /// One line per turn that worked, in start order:
    /// `started_s,headers_ms,claimed_ms,ttft_ms,latency_ms` (the `--series` file, to see
    /// when the slow turns happened and which stage was slow; a mark the turn has not is
    /// empty).
    pub fn series(&self) -> Vec<String> {
        let mut turns = self.turns.clone();
        turns.sort_by_key(|t| t.started);
        turns
            .iter()
            .map(|t| {
                let ms = |d: Duration| format!("{:.3}", d.as_secs_f64() * 1e3);
                format!(
                    "{:.4},{},{},{},{}",
                    t.started.as_secs_f64(),
                    t.headers.map(ms).unwrap_or_default(),
                    t.claimed.map(ms).unwrap_or_default(),
                    ms(t.ttft),
                    ms(t.latency)
                )
            })
            .collect()
    }

    /// SSE events per turn that worked.
    pub fn events_per_turn(&self) -> f64 {
        self.turns.iter().map(|t| t.events).sum::<usize>() as f64 / self.turns.len().max(1) as f64
    }
}

/// Runs `users` concurrent loops of `turn(user)` for warm-up + duration; a user starts
/// no turn after the window closes, and the turns in flight then finish (bounded by the
/// turn timeout).
pub async fn run_users<F, Fut>(users: usize, timing: Timing, turn: F) -> Run
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = TurnResult> + Send,
{
    let turn = Arc::new(turn);
    let start = Instant::now();
    let measure_from = start + timing.warmup;
    let stop_at = measure_from + timing.duration;
    let tasks: Vec<_> = (0..users)
        .map(|user| {
            let turn = turn.clone();
            tokio::spawn(async move {
                let mut recorded = Vec::new();
                loop {
                    let began = Instant::now();
                    if began >= stop_at {
                        break;
                    }
                    let result = tokio::time::timeout(timing.turn_timeout, turn(user))
                        .await
                        .unwrap_or_else(|_| {
                            Err(Failure::new(
                                "timeout",
                                format!("no end within {:?}", timing.turn_timeout),
                            ))
                        });
                    let failed = result.is_err();
                    if began >= measure_from {
                        let result = result.map(|turn| Turn {
                            started: began - measure_from,
                            ..turn
                        });
                        recorded.push((Instant::now(), result));
                    }
                    if failed {
                        // Do not spin on a failing endpoint.
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
                recorded
            })
        })
        .collect();
    let mut run = Run {
        turns: Vec::new(),
        failures: BTreeMap::new(),
        elapsed: timing.duration,
    };
    let mut last_end = measure_from;
    for task in tasks {
        let Ok(recorded) = task.await else {
            *run.failures
                .entry("panic".into())
                .or_insert((0, String::new())) = (1, "a user task panicked".into());
            continue;
        };
        for (ended, result) in recorded {
            last_end = last_end.max(ended);
            match result {
                Ok(turn) => run.turns.push(turn),
                Err(failure) => {
                    let entry = run
                        .failures
                        .entry(failure.kind)
                        .or_insert((0, failure.detail));
                    entry.0 += 1;
                }
            }
        }
    }
    run.elapsed = last_end
        .duration_since(measure_from)
        .max(Duration::from_millis(1));
    run
}
