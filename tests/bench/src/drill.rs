//! Fault-drill mode (`--drill SECONDS`, driven by `scripts/drill.sh`, which injects the
//! faults): C users each run turns back to back for SECONDS, every turn calling a
//! function (`createTodo`, titled with the turn's key, so a side effect that ran twice
//! shows as two todos of one title), and behave as a careful client does through
//! faults:
//!
//! * `POST /v1/sessions/{id}/messages` with an `Idempotency-Key`; a transport error or
//!   a 5xx/429 is retried with the same key (so a turn the API recorded is not sent
//!   twice) until the load ends — a turn never accepted by then was refused;
//! * the SSE feed is followed to a terminal event; a feed that breaks, goes quiet past
//!   the ping interval or ends early is followed again with `Last-Event-ID`, as an
//!   `EventSource` does, until the settle deadline;
//! * after a turn that did not complete, the user waits a second before the next.
//!
//! Then every accepted prompt's state is read (`GET /v1/prompts/{id}`), and one JSON
//! record per turn goes to `--drill-out` for `scripts/lib/drill_report.py`.

use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use anyhow::Context;
use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde::Serialize;
use serde_json::{Value, json};

use crate::setup::{Api, Fixtures, User};

pub struct Options {
    pub users: usize,
    pub seconds: f64,
    /// When the load starts (epoch ms), so the injector's clock and ours agree.
    pub start_ms: Option<u64>,
    /// How long after the load the last turns may take to end.
    pub settle: Duration,
    pub out: PathBuf,
}

/// One turn a user started.
#[derive(Debug, Serialize)]
struct Record {
    user: usize,
    key: String,
    prompt_id: Option<String>,
    sent_ms: u64,
    accepted_ms: Option<u64>,
    ended_ms: Option<u64>,
    /// `complete`, `error:<code>`, `cancelled`, `refused` (never accepted), `rejected:<status>`
    /// (a 4xx other than 429), or `none` (no terminal event by the settle deadline).
    outcome: String,
    reader_terminal: bool,
    /// The prompt's state at the end, from the API.
    prompt_state: Option<String>,
    posts: u32,
    reconnects: u32,
    /// Requests with no answer within [`ANSWER`] (given up and sent again).
    unanswered: u32,
}

/// No event (pings included) for this long: the feed is dead, follow it again.
const QUIET: Duration = Duration::from_secs(20);
const RETRY: Duration = Duration::from_millis(500);
/// A request whose response headers take longer is given up (and reported).
const ANSWER: Duration = Duration::from_secs(30);

fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

pub async fn run(api: &Api, fixtures: &Fixtures, options: Options) -> anyhow::Result<()> {
    let mut sessions = Vec::with_capacity(options.users);
    for user in &fixtures.users[..options.users] {
        sessions.push(api.open_session(user, &fixtures.tool_id).await?);
    }
    if let Some(start) = options.start_ms {
        let now = epoch_ms();
        if start > now {
            tokio::time::sleep(Duration::from_millis(start - now)).await;
        } else {
            println!("warning: the load starts {} ms late", now - start);
        }
    }
    let load_end = Instant::now() + Duration::from_secs_f64(options.seconds);
    let hard_end = load_end + options.settle;
    let api = Arc::new(api.clone());
    let mut tasks = Vec::new();
    for (n, (user, session)) in fixtures.users[..options.users]
        .iter()
        .cloned()
        .zip(sessions)
        .enumerate()
    {
        let api = api.clone();
        tasks.push(tokio::spawn(async move {
            let mut records = Vec::new();
            let mut turn = 0;
            while Instant::now() < load_end {
                let key = format!("drill-{n}-{turn}-{}", epoch_ms());
                let record = one_turn(&api, &user, &session, n, key, load_end, hard_end).await;
                // A person who saw an error waits a moment before sending again.
                if record.outcome != "complete" {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                records.push(record);
                turn += 1;
            }
            // Then where each accepted turn ended up, as the API tells it.
            for record in &mut records {
                if let Some(prompt_id) = &record.prompt_id {
                    record.prompt_state = prompt_state(&api, &user, prompt_id).await;
                }
            }
            records
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.context("a drill user panicked")?);
    }
    let lines: Vec<String> = all
        .iter()
        .map(|r| serde_json::to_string(r).unwrap_or_default())
        .collect();
    std::fs::write(&options.out, lines.join("\n") + "\n")
        .with_context(|| format!("writing {}", options.out.display()))?;
    let done = all.iter().filter(|r| r.outcome == "complete").count();
    println!(
        "drill: {} turns started, {} accepted, {} completed; records in {}",
        all.len(),
        all.iter().filter(|r| r.accepted_ms.is_some()).count(),
        done,
        options.out.display()
    );
    Ok(())
}

/// How following a feed ended.
enum Followed {
    Terminal(String),
    /// Broken, quiet or ended early; the last `id:` seen.
    Broken(Option<String>),
}

async fn one_turn(
    api: &Api,
    user: &User,
    session: &str,
    n: usize,
    key: String,
    load_end: Instant,
    hard_end: Instant,
) -> Record {
    let mut record = Record {
        user: n,
        key: key.clone(),
        prompt_id: None,
        sent_ms: epoch_ms(),
        accepted_ms: None,
        ended_ms: None,
        outcome: "refused".into(),
        reader_terminal: false,
        prompt_state: None,
        posts: 0,
        reconnects: 0,
        unanswered: 0,
    };
    let content = format!(r#"[[mock tool_call='createTodo:{{"title": "{key}"}}']] note it"#);
    let url = api.url(&format!("/v1/sessions/{session}/messages"));
    // Send until the API records the turn (the same key: never twice).
    let mut followed = None;
    while record.prompt_id.is_none() && Instant::now() < load_end {
        record.posts += 1;
        let sent = api
            .client
            .post(&url)
            .bearer_auth(&user.token)
            .header("accept", "text/event-stream")
            .header("idempotency-key", &key)
            .json(&json!({"content": content}))
            .send();
        let response = match tokio::time::timeout(ANSWER, sent).await {
            Ok(Ok(response)) => response,
            Ok(Err(_)) => {
                tokio::time::sleep(RETRY).await;
                continue;
            }
            Err(_) => {
                eprintln!("drill: POST of turn {key}: no answer within {ANSWER:?}");
                record.unanswered += 1;
                continue;
            }
        };
        let status = response.status().as_u16();
        if status == 200 {
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            record.prompt_id = location.rsplit('/').next().map(str::to_owned);
            record.accepted_ms = Some(epoch_ms());
            followed = Some(follow(response, None, hard_end).await);
        } else if status >= 500 || status == 429 {
            tokio::time::sleep(RETRY).await;
        } else {
            record.outcome = format!("rejected:{status}");
            return record;
        }
    }
    let Some(prompt_id) = record.prompt_id.clone() else {
        return record;
    };
    record.outcome = "none".into();
    let mut followed = followed.unwrap_or(Followed::Broken(None));
    loop {
        match followed {
            Followed::Terminal(outcome) => {
                record.outcome = outcome;
                record.reader_terminal = true;
                record.ended_ms = Some(epoch_ms());
                return record;
            }
            Followed::Broken(last) if Instant::now() < hard_end => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                record.reconnects += 1;
                let mut request = api
                    .client
                    .get(api.url(&format!("/v1/prompts/{prompt_id}/events")))
                    .bearer_auth(&user.token);
                if let Some(last) = &last {
                    request = request.header("last-event-id", last);
                }
                followed = match tokio::time::timeout(ANSWER, request.send()).await {
                    Ok(Ok(response)) if response.status().as_u16() == 200 => {
                        follow(response, last, hard_end).await
                    }
                    Ok(_) => Followed::Broken(last),
                    Err(_) => {
                        eprintln!("drill: feed of {prompt_id}: no answer within {ANSWER:?}");
                        record.unanswered += 1;
                        Followed::Broken(last)
                    }
                };
            }
            Followed::Broken(last) => {
                eprintln!(
                    "drill: the reader of {prompt_id} has no terminal event (last id {last:?})"
                );
                return record;
            }
        }
    }
}

/// Reads a feed to its terminal event, or until it breaks, goes quiet or `until`.
async fn follow(response: reqwest::Response, mut last: Option<String>, until: Instant) -> Followed {
    let mut events = response.bytes_stream().eventsource();
    loop {
        let by = (Instant::now() + QUIET).min(until);
        let event = match tokio::time::timeout_at(by.into(), events.next()).await {
            Ok(Some(Ok(event))) => event,
            Err(_) if Instant::now() >= until => {
                eprintln!("drill: a feed was still open at the settle deadline (last id {last:?})");
                return Followed::Broken(last);
            }
            _ => return Followed::Broken(last),
        };
        if !event.id.is_empty() {
            last = Some(event.id.clone());
        }
        match event.event.as_str() {
            "complete" | "cancelled" => return Followed::Terminal(event.event.clone()),
            "error" => {
                let data: Value = serde_json::from_str(&event.data).unwrap_or(Value::Null);
                let code = data["code"].as_str().unwrap_or("unknown");
                return Followed::Terminal(format!("error:{code}"));
            }
            _ => {}
        }
    }
}

/// The prompt's state as the API tells it now (a few tries: the API may be recovering).
async fn prompt_state(api: &Api, user: &User, prompt_id: &str) -> Option<String> {
    for _ in 0..10 {
        let answer = api
            .client
            .get(api.url(&format!("/v1/prompts/{prompt_id}")))
            .bearer_auth(&user.token)
            .timeout(Duration::from_secs(10))
            .send()
            .await;
        if let Ok(response) = answer
            && response.status().as_u16() == 200
            && let Ok(prompt) = response.json::<Value>().await
        {
            return prompt["state"].as_str().map(str::to_owned);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    eprintln!("drill: cannot read the state of prompt {prompt_id}");
    None
}
